//! A structured call against the real llama.cpp server. Needs the local
//! server that `scripts/setup.sh` installs; `scripts/test.sh` runs it.

use std::path::PathBuf;

use sift_engine::{
    ANSWER_TOOL, AnswerChannel, CallStatus, ContextSettings, Engine, EngineContext, OutputSchema,
    initial_transcript, run_structured_call,
};
use sift_llm::local_server::{LocalServer, LocalServerConfig};
use sift_llm::{Client, ClientConfig, Message, ProviderKind, ServerFlavor};

use crate::{invoice_schema, invoice_spec};

fn data_dir() -> PathBuf {
    std::env::var_os("SIFT_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            std::env::var_os("XDG_DATA_HOME")
                .map_or_else(|| home.join(".local/share"), PathBuf::from)
                .join("sift")
        })
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_structured_call_completes_with_schema_valid_output() {
    let mut config = LocalServerConfig::in_data_dir(&data_dir());
    // SmolLM2, the fast real model: this test is of the server, not of the default model.
    config.model_path = data_dir()
        .join("models")
        .join("SmolLM2-135M-Instruct.Q4_1.gguf");
    // Not shared with other Sift processes: no record.
    config.record_path = None;
    config.log_path =
        std::env::temp_dir().join(format!("sift-engine-peer-{}.log", std::process::id()));
    let server = LocalServer::start(&config)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut client = ClientConfig::new(ProviderKind::OpenAi, server.base_url());
    client.flavor = ServerFlavor::LlamaCpp;
    client.api_key = Some(server.api_key().clone());
    let engine = Engine {
        client: Client::new(client).unwrap(),
        model: server.model_alias().to_owned(),
        engine_type: "openai".into(),
        context: EngineContext::new(2048),
        settings: ContextSettings::default(),
        // SmolLM2's chat template has no tool calls, and llama-server then
        // ignores a forced tool: the answer is held to the schema instead.
        answer: AnswerChannel::JsonFormat { max_tokens: 256 },
    };
    let spec = invoice_spec();
    let user = Message::user("Invoice number INV-2024-7. Total due: 12.50 EUR.");
    let outcome = run_structured_call(&engine, &spec, initial_transcript(&spec, user).await).await;
    assert_eq!(outcome.status, CallStatus::Completed, "{:?}", outcome.error);
    let output = outcome.output.unwrap();
    assert!(
        OutputSchema::new(invoice_schema())
            .unwrap()
            .errors(&output)
            .is_empty(),
        "{output}"
    );
    // One request, its reply recorded as the answer tool's call.
    assert_eq!(outcome.turns, 1);
    assert_eq!(outcome.metadata["answer_channel"], "json_format");
    let calls: Vec<_> = outcome.transcript[2].tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, ANSWER_TOOL);
    server.stop().await;
}
