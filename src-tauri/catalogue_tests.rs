//! The catalogue's commands invoked through the IPC layer (Tauri's mock
//! runtime), on a scratch data directory and a loopback index that never
//! answers (nothing is fetched from the network): the list, an unknown
//! name refused, a second fetch of the same model refused while the first
//! runs, and a cancel.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::net::TcpListener;

use serde_json::{Value, json};
use sift_core::models::catalogue_downloads::CatalogueDownloads;
use tauri::test::mock_builder;

use crate::commands;
use crate::mock_ipc::{Scratch, app_and_window, invoke};

#[test]
fn the_catalogue_lists_fetches_one_model_at_a_time_and_cancels() {
    let dir = Scratch::new("catalogue");
    // Takes connections and never answers: a fetch waits until cancelled.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let index = format!("http://{}/simple", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    let (_app, window) = app_and_window(
        mock_builder()
            .manage(CatalogueDownloads::with_index(dir.0.clone(), &index))
            .invoke_handler(tauri::generate_handler![
                commands::local_models::model_catalogue,
                commands::local_models::get_catalogue_model,
                commands::local_models::cancel_catalogue_model,
            ]),
    );

    let listed = invoke(&window, "model_catalogue", json!({})).unwrap();
    let rows: Vec<(String, String, bool)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_owned(),
                m["licence"].as_str().unwrap().to_owned(),
                m["installed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("qwen2.5-coder-0.5b".into(), "Apache-2.0".into(), false),
            ("qwen2.5-coder-1.5b".into(), "Apache-2.0".into(), false),
        ]
    );

    let get = |name: &str| {
        invoke(
            &window,
            "get_catalogue_model",
            json!({"name": name, "events": "__CHANNEL__:1"}),
        )
    };
    assert_eq!(
        get("llama"),
        Err(json!({
            "code": "usage",
            "message": "no model llama in the catalogue (it has qwen2.5-coder-0.5b, qwen2.5-coder-1.5b)",
        }))
    );
    assert_eq!(get("qwen2.5-coder-0.5b"), Ok(Value::Null));
    assert_eq!(
        get("qwen2.5-coder-0.5b"),
        Err(json!({
            "code": "usage",
            "message": "qwen2.5-coder-0.5b is already being downloaded: wait for it, or cancel it",
        }))
    );
    let cancel = |name: &str| invoke(&window, "cancel_catalogue_model", json!({"name": name}));
    assert_eq!(cancel("qwen2.5-coder-1.5b"), Ok(json!(false)));
    assert_eq!(cancel("qwen2.5-coder-0.5b"), Ok(json!(true)));
}
