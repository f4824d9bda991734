//! Asking a server what a model takes, against the scripted server
//! answering as llama.cpp, Ollama and LM Studio do: the exact requests,
//! what is read from the answers, and the answers that say nothing.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use sift_llm::ServerFlavor;
use sift_llm::model_probe::{ProbeOutcome, ServerReport, ask_server};
use sift_scripted_server::{LmStudioModel, Script, ScriptedServer, ServerIdentity};

use crate::server;

fn requests(server: &ScriptedServer) -> Vec<(String, String, Value)> {
    server
        .model_info_requests()
        .into_iter()
        .map(|r| (r.method, r.path, r.body))
        .collect()
}

fn llama_cpp(vision: bool, supports_tools: Option<bool>) -> Script {
    Script::new().answering_as(ServerIdentity::LlamaCpp {
        vision,
        supports_tools,
        n_ctx: 8192,
        total_slots: 2,
    })
}

#[tokio::test]
async fn llama_cpp_tells_by_its_props_modalities() {
    let text_only = server(llama_cpp(false, None)).await;
    let outcome = ask_server(
        &text_only.openai_base_url(),
        ServerFlavor::LlamaCpp,
        None,
        "smollm2",
    )
    .await;
    assert_eq!(
        outcome,
        ProbeOutcome::Told(ServerReport {
            images: Some(false),
            tools: None,
            route: "GET /props",
        })
    );
    assert_eq!(
        requests(&text_only),
        [("GET".to_owned(), "/props".to_owned(), Value::Null)]
    );
    // The model requests are counted apart.
    assert!(text_only.requests().is_empty());

    let vision = server(llama_cpp(true, Some(true))).await;
    assert_eq!(
        ask_server(
            &vision.openai_base_url(),
            ServerFlavor::LlamaCpp,
            None,
            "gemma"
        )
        .await,
        ProbeOutcome::Told(ServerReport {
            images: Some(true),
            tools: Some(true),
            route: "GET /props",
        })
    );
}

#[tokio::test]
async fn ollama_tells_by_the_capabilities_of_api_show() {
    let capabilities = BTreeMap::from([
        (
            "qwen2.5vl:7b".to_owned(),
            vec![
                "completion".to_owned(),
                "vision".to_owned(),
                "tools".to_owned(),
            ],
        ),
        (
            "llama3.1:8b".to_owned(),
            vec!["completion".to_owned(), "tools".to_owned()],
        ),
    ]);
    let server = server(Script::new().answering_as(ServerIdentity::Ollama { capabilities })).await;
    let base = server.openai_base_url();
    assert_eq!(
        ask_server(&base, ServerFlavor::Ollama, None, "qwen2.5vl:7b").await,
        ProbeOutcome::Told(ServerReport {
            images: Some(true),
            tools: Some(true),
            route: "POST /api/show",
        })
    );
    assert_eq!(
        ask_server(&base, ServerFlavor::Ollama, None, "llama3.1:8b").await,
        ProbeOutcome::Told(ServerReport {
            images: Some(false),
            tools: Some(true),
            route: "POST /api/show",
        })
    );
    // Ollama answers 404 for a model it does not have.
    assert_eq!(
        ask_server(&base, ServerFlavor::Ollama, None, "nope").await,
        ProbeOutcome::CannotTell
    );
    assert_eq!(
        requests(&server),
        [
            (
                "POST".to_owned(),
                "/api/show".to_owned(),
                json!({"model": "qwen2.5vl:7b"})
            ),
            (
                "POST".to_owned(),
                "/api/show".to_owned(),
                json!({"model": "llama3.1:8b"})
            ),
            (
                "POST".to_owned(),
                "/api/show".to_owned(),
                json!({"model": "nope"})
            ),
        ]
    );
}

#[tokio::test]
async fn lm_studio_tells_by_the_type_in_its_model_list() {
    let models = vec![
        LmStudioModel {
            id: "qwen2-vl-7b-instruct".into(),
            kind: "vlm".into(),
            capabilities: None,
        },
        LmStudioModel {
            id: "meta-llama-3.1-8b-instruct".into(),
            kind: "llm".into(),
            capabilities: Some(vec!["tool_use".into()]),
        },
    ];
    let server = server(Script::new().answering_as(ServerIdentity::LmStudio { models })).await;
    let base = server.openai_base_url();
    assert_eq!(
        ask_server(&base, ServerFlavor::LmStudio, None, "qwen2-vl-7b-instruct").await,
        ProbeOutcome::Told(ServerReport {
            images: Some(true),
            tools: None,
            route: "GET /api/v0/models",
        })
    );
    assert_eq!(
        ask_server(
            &base,
            ServerFlavor::LmStudio,
            None,
            "meta-llama-3.1-8b-instruct"
        )
        .await,
        ProbeOutcome::Told(ServerReport {
            images: Some(false),
            tools: Some(true),
            route: "GET /api/v0/models",
        })
    );
    assert_eq!(
        ask_server(&base, ServerFlavor::LmStudio, None, "absent").await,
        ProbeOutcome::CannotTell
    );
    assert_eq!(
        requests(&server)
            .iter()
            .map(|(m, p, _)| format!("{m} {p}"))
            .collect::<Vec<_>>(),
        [
            "GET /api/v0/models",
            "GET /api/v0/models",
            "GET /api/v0/models"
        ]
    );
}

#[tokio::test]
async fn a_generic_address_is_asked_each_route_in_turn() {
    let capabilities = BTreeMap::from([(
        "llava:7b".to_owned(),
        vec!["completion".to_owned(), "vision".to_owned()],
    )]);
    let ollama = server(Script::new().answering_as(ServerIdentity::Ollama { capabilities })).await;
    assert_eq!(
        ask_server(
            &ollama.openai_base_url(),
            ServerFlavor::Generic,
            None,
            "llava:7b"
        )
        .await,
        ProbeOutcome::Told(ServerReport {
            images: Some(true),
            tools: Some(false),
            route: "POST /api/show",
        })
    );
    assert_eq!(
        requests(&ollama)
            .iter()
            .map(|(m, p, _)| format!("{m} {p}"))
            .collect::<Vec<_>>(),
        ["GET /props", "POST /api/show"]
    );

    // A server with none of the routes (llama-cpp-python's, say) cannot tell.
    let plain = server(Script::new()).await;
    assert_eq!(
        ask_server(&plain.openai_base_url(), ServerFlavor::Generic, None, "m").await,
        ProbeOutcome::CannotTell
    );
    assert_eq!(
        requests(&plain)
            .iter()
            .map(|(m, p, _)| format!("{m} {p}"))
            .collect::<Vec<_>>(),
        ["GET /props", "POST /api/show", "GET /api/v0/models"]
    );
}

#[tokio::test]
async fn first_party_clouds_are_not_asked_and_a_dead_address_is_unreachable() {
    let plain = server(Script::new()).await;
    for flavor in [
        ServerFlavor::OpenAi,
        ServerFlavor::Anthropic,
        ServerFlavor::Vllm,
    ] {
        assert_eq!(
            ask_server(&plain.openai_base_url(), flavor, None, "gpt-4o").await,
            ProbeOutcome::CannotTell
        );
    }
    assert!(plain.model_info_requests().is_empty());

    // A port nothing listens on: bound, then released.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let outcome = ask_server(
        &format!("http://127.0.0.1:{port}/v1"),
        ServerFlavor::LlamaCpp,
        None,
        "smollm2",
    )
    .await;
    assert!(
        matches!(outcome, ProbeOutcome::Unreachable(_)),
        "{outcome:?}"
    );
}
