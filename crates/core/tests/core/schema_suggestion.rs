//! "Suggest a schema from this document" through the workspace, as the
//! app's command calls it: the exact request the model gets, the stored
//! call, the schema made of its answer, and a free library name. Also the
//! app's starter schemas in a new database.

use serde_json::{Value, json};
use sift_core::config::{AppSettings, ProviderEntry};
use sift_core::extract::schema_suggestion::{
    SUGGESTION_KIND, SuggestSchemaRequest, suggest_schema, suggestion_answer_schema,
};
use sift_core::{PathPolicy, ProviderKind, Workspace, WorkspaceOptions};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::CallStatus;

use crate::TempDir;

/// The app's workspace; `dir`'s files may be read, as when the folder is
/// dropped on the window.
fn workspace(dir: &TempDir, starter_schemas: bool) -> Workspace {
    let ws = Workspace::open(WorkspaceOptions {
        config: Some(dir.0.join("config.toml")),
        db: Some(dir.db()),
        paths: PathPolicy::GrantedOnly,
        starter_schemas,
    })
    .unwrap();
    ws.grants().grant_read(&dir.0);
    ws
}

fn with_scripted_provider(ws: &Workspace, server: &ScriptedServer) {
    let mut settings = AppSettings::defaults();
    settings.providers.push(ProviderEntry {
        id: "scripted".into(),
        kind: ProviderKind::OpenAi,
        label: "Scripted".into(),
        base_url: Some(server.openai_base_url()),
        extra_base_urls: Vec::new(),
        api_key_env: Some("SIFT_CORE_TESTS_NO_KEY".into()),
    });
    ws.save_settings(settings).unwrap();
}

/// A suggestion of `note.txt` (holding `text`) through the scripted
/// provider's model `m`.
fn request_for(dir: &TempDir, text: &str) -> SuggestSchemaRequest {
    let doc = dir.0.join("note.txt");
    std::fs::write(&doc, text).unwrap();
    SuggestSchemaRequest {
        file: doc.display().to_string(),
        provider_id: Some("scripted".into()),
        model: Some("m".into()),
    }
}

fn answer() -> Value {
    json!({
        "document_kind": "delivery note",
        "fields": [
            {"name": "Note number", "type": "text", "description": "The number after \"Note\".", "item_fields": []},
            {"name": "delivered_on", "type": "date", "description": "The delivery date.", "item_fields": []},
            {"name": "lines", "type": "list", "description": "Each article.", "item_fields": [
                {"name": "article", "type": "text", "description": "The article."},
                {"name": "count", "type": "integer", "description": "How many."}
            ]}
        ]
    })
}

#[tokio::test]
async fn a_suggestion_is_one_stored_call_whose_answer_becomes_a_reviewable_schema() {
    let dir = TempDir::new("suggest");
    let ws = workspace(&dir, false);
    let server = ScriptedServer::start(
        Script::new().with("m", [Reply::tool_call("submit_output", answer())]),
    )
    .await
    .unwrap();
    with_scripted_provider(&ws, &server);
    let doc = dir.0.join("note.txt");
    std::fs::write(&doc, "Delivery note 77\nDelivered 2024-05-02\n3 x Bolt\n").unwrap();

    let suggestion = suggest_schema(
        &ws,
        SuggestSchemaRequest {
            file: doc.display().to_string(),
            provider_id: Some("scripted".into()),
            model: Some("m".into()),
        },
    )
    .await
    .unwrap();

    assert_eq!(suggestion.name, "delivery_note");
    assert_eq!(suggestion.problems, vec![]);
    assert_eq!(
        suggestion.schema["required"],
        json!(["note_number", "delivered_on", "lines"])
    );
    assert_eq!(
        suggestion.schema["properties"]["lines"]["items"]["properties"]["count"],
        json!({"type": "integer", "description": "How many."})
    );
    assert_eq!(suggestion.schema["title"], "Delivery note");

    // One request: the document's text with the prompt, the form as the
    // answer tool's parameters.
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(body["model"], "m");
    let tool = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "submit_output")
        .unwrap();
    assert_eq!(tool["function"]["parameters"], suggestion_answer_schema());
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()
        .to_string();
    assert!(user.contains("Delivery note 77"), "{user}");
    assert!(user.contains("Suggest the fields to extract"), "{user}");

    // Stored with its transcript, under its own kind; nothing saved to
    // the library.
    let store = ws.store().unwrap();
    let call = store.get_call(&suggestion.call_id).unwrap().unwrap();
    assert_eq!(call.kind, SUGGESTION_KIND);
    assert_eq!(call.status, CallStatus::Completed);
    assert_eq!(call.output, Some(answer()));
    assert!(store.list_schemas().unwrap().is_empty());
}

#[tokio::test]
async fn a_suggestion_named_like_a_library_schema_gets_a_free_name() {
    let dir = TempDir::new("suggest-name");
    let ws = workspace(&dir, false);
    let store = ws.store().unwrap();
    let own = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
    store.save_schema("delivery_note", &own).unwrap();
    store.save_schema("delivery_note_2", &own).unwrap();
    let server = ScriptedServer::start(
        Script::new().with("m", [Reply::tool_call("submit_output", answer())]),
    )
    .await
    .unwrap();
    with_scripted_provider(&ws, &server);
    let suggestion = suggest_schema(&ws, request_for(&dir, "Delivery note 78\n"))
        .await
        .unwrap();
    assert_eq!(suggestion.name, "delivery_note_3");
}

#[tokio::test]
async fn a_failed_suggestion_says_why_in_the_models_category() {
    let dir = TempDir::new("suggest-fail");
    let ws = workspace(&dir, false);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::fault(401, r#"{"error":{"message":"bad key"}}"#).repeated()],
    ))
    .await
    .unwrap();
    with_scripted_provider(&ws, &server);
    let error = suggest_schema(&ws, request_for(&dir, "x\n"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "auth");
    // The call's own error, as stored with it.
    let store = ws.store().unwrap();
    let calls = store.list_calls(None).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(Some(error.to_string()), calls[0].error);
}

#[test]
fn a_new_database_has_the_starters_whichever_door_opens_it_first() {
    let names = |ws: &Workspace| -> Vec<String> {
        let store = ws.store().unwrap();
        store
            .list_schemas()
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect()
    };
    let starters = ["bank_statement", "invoice", "purchase_order", "receipt"];
    let dir = TempDir::new("starters-app");
    assert_eq!(names(&workspace(&dir, true)), starters);

    // The CLI creates the database and saves its own schema; the app,
    // opened on it later, finds the four starters beside that one.
    let cli = TempDir::new("starters-cli");
    let ws = Workspace::open(WorkspaceOptions {
        config: Some(cli.0.join("config.toml")),
        ..WorkspaceOptions::cli(Some(cli.db()))
    })
    .unwrap();
    sift_core::schemas::save_schema(
        &ws.store().unwrap(),
        "mine",
        &serde_json::json!({"type": "object", "properties": {"n": {"type": "string"}}}),
    )
    .unwrap();
    drop(ws);
    let app = Workspace::open(WorkspaceOptions::app(
        Some(cli.0.join("config.toml")),
        Some(cli.db()),
    ))
    .unwrap();
    assert_eq!(
        names(&app),
        [
            "bank_statement",
            "invoice",
            "mine",
            "purchase_order",
            "receipt"
        ]
    );
}
