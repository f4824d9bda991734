//! What the commands' tests share: a channel that keeps what it is sent,
//! and a model selection that points at the scripted server.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::sync::{Arc, Mutex};

use serde_json::Value;
use sift_core::{ModelSelection, ProviderChoice, ProviderSettings};
use sift_scripted_server::ScriptedServer;
use tauri::ipc::{Channel, InvokeResponseBody, IpcResponse};

/// A channel whose events land in the returned list, as JSON.
pub fn collecting<T: IpcResponse>() -> (Channel<T>, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let channel = Channel::new(move |body: InvokeResponseBody| {
        if let InvokeResponseBody::Json(text) = body {
            sink.lock()
                .unwrap()
                .push(serde_json::from_str(&text).unwrap());
        }
        Ok(())
    });
    (channel, seen)
}

/// Model `m` at the scripted server, with no key.
pub fn scripted(server: &ScriptedServer) -> ModelSelection {
    ModelSelection {
        provider: ProviderSettings {
            provider: Some(ProviderChoice::OpenAi),
            base_url: Some(server.openai_base_url()),
            api_key_env: Some("SIFT_APP_TESTS_NO_KEY".into()),
            api_key_account: None,
        },
        models: vec!["m".into()],
    }
}
