//! The chat as the window drives it, through the functions its commands
//! call, against a real SQLite file, real files and the scripted model
//! server: a turn that waits for approval, is resumed from the store and
//! completes; a stopped turn that stores nothing; search; a branch to
//! edit from; files with a message; renaming; exports written only as
//! text and only to granted paths.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sift_core::chat::sessions::{
    branch_session, create_session, describe_attachments, discard_cut_reply, list_sessions,
    update_session, write_export,
};
use sift_core::chat::stream::{
    ApprovalAnswer, ChatMessage, answer_approval, send_chat_message, stop_chat_turn,
};
use sift_core::chat::view::{ChatTurnEvent, ModelChoice, SessionChange};
use sift_core::{ReadOptions, Workspace, WorkspaceOptions, read_documents, render_text};
use sift_scripted_server::{Reply, Script, ScriptedServer, ServerIdentity};
use sift_store::{NewMessage, NewSession, Store, TurnWrite};

use crate::TempDir;

/// A workspace of the app (paths must be granted) whose configuration
/// file names the scripted server as the provider `scripted`, model `m`,
/// with no key.
pub fn app_workspace(dir: &TempDir, server: Option<&ScriptedServer>) -> Workspace {
    let config = dir.0.join("config.toml");
    if let Some(server) = server {
        std::fs::write(
            &config,
            format!(
                "[defaults]\nprovider = \"scripted\"\nmodel = \"m\"\n\n[[providers]]\nid = \"scripted\"\nkind = \"openai\"\nbase_url = \"{}\"\napi_key_env = \"SIFT_CORE_TESTS_NO_KEY\"\n",
                server.openai_base_url()
            ),
        )
        .unwrap();
    }
    Workspace::open(WorkspaceOptions::app(Some(config), Some(dir.db()))).unwrap()
}

/// A sink that keeps the events as JSON, as the window's channel gets them.
fn collecting() -> (
    impl Fn(ChatTurnEvent) + Send + Sync + 'static,
    Arc<Mutex<Vec<Value>>>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    (
        move |e: ChatTurnEvent| sink.lock().unwrap().push(serde_json::to_value(&e).unwrap()),
        seen,
    )
}

/// The kinds of the events after the first, which gives the turn's key.
fn kinds_after_started(seen: &Arc<Mutex<Vec<Value>>>, key: &str) -> Vec<String> {
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], json!({"kind": "started", "key": key}));
    seen[1..]
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect()
}

fn new_session(store: &Store, title: &str, model_choice: Option<&str>) -> String {
    store
        .create_session(NewSession {
            title: title.into(),
            system_prompt: None,
            model_choice: model_choice.map(str::to_owned),
        })
        .unwrap()
        .id
}

fn message(session_id: &str, text: &str) -> ChatMessage {
    ChatMessage {
        session_id: session_id.to_owned(),
        text: text.to_owned(),
        files: Vec::new(),
        choice: ModelChoice::default(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_call_waits_for_approval_then_the_turn_completes() {
    let dir = TempDir::new("chat-approval");
    let note = dir.0.join("note.txt");
    std::fs::write(&note, "pay by Friday").unwrap();
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            Reply::tool_call("read_document", json!({"path": note.display().to_string()})),
            Reply::text("It says to pay by Friday.").chunk_chars(4),
        ],
    ))
    .await
    .unwrap();
    let ws = app_workspace(&dir, Some(&server));
    let session = new_session(&ws.store().unwrap(), "Bills", None);
    let (sink, seen) = collecting();
    let (key, turn) =
        send_chat_message(&ws, message(&session, "What does my note say?"), sink).unwrap();
    let view = turn.await.unwrap();
    assert_eq!(view.status, "awaitingApproval");
    assert!(view.messages.is_empty(), "nothing is stored while it waits");
    assert_eq!(view.session.approvals.len(), 1);
    assert_eq!(view.session.approvals[0].name, "read_document");
    assert_eq!(
        kinds_after_started(&seen, &key),
        ["toolStarted", "usage", "approvalRequired"]
    );
    // The turn has ended: its key stops nothing.
    assert!(!stop_chat_turn(&ws, &key));

    // As after a restart: a new workspace on the same files.
    drop(ws);
    let ws = app_workspace(&dir, Some(&server));
    let answer = ApprovalAnswer {
        session_id: session.clone(),
        call_id: view.session.approvals[0].call_id.clone(),
        approved: true,
        choice: ModelChoice::default(),
    };
    let (sink, seen) = collecting();
    let (key, turn) = answer_approval(&ws, answer, sink).unwrap();
    let view = turn.await.unwrap();
    assert_eq!(view.status, "completed");
    assert_eq!(view.reply, "It says to pay by Friday.");
    assert!(view.session.approvals.is_empty());
    let mut shown = kinds_after_started(&seen, &key);
    shown.dedup();
    assert_eq!(shown, ["toolFinished", "text", "usage", "done"]);
    // The reply streamed in pieces, in order.
    let streamed: String = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "text")
        .map(|e| e["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(streamed, "It says to pay by Friday.");
    let finished = seen.lock().unwrap()[1].clone();
    assert_eq!(
        finished["content"],
        "<file name=\"note.txt\">\npay by Friday\n</file>"
    );
    let roles: Vec<&str> = view.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    // The model saw the file's text as the tool result.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let last = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert_eq!(
        last["content"],
        "<file name=\"note.txt\">\npay by Friday\n</file>"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stopped_turn_stores_nothing() {
    let dir = TempDir::new("chat-stop");
    // The reply stops after its first piece of text (held for good): the
    // turn is stopped there, before the rest could come, however slow.
    let server = ScriptedServer::start(
        Script::new().with(
            "m",
            [Reply::text("too late")
                .chunk_chars(3)
                .held_after_events("never", 2)],
        ),
    )
    .await
    .unwrap();
    let ws = app_workspace(&dir, Some(&server));
    let session = new_session(&ws.store().unwrap(), "", None);
    // The window's stop button, pressed at the first piece of text.
    let stopper = ws.clone();
    let key_seen: Arc<Mutex<Option<String>>> = Arc::default();
    let sink = {
        let key_seen = key_seen.clone();
        move |e: ChatTurnEvent| match e {
            ChatTurnEvent::Started { key } => *key_seen.lock().unwrap() = Some(key),
            ChatTurnEvent::Text { .. } => {
                let key = key_seen.lock().unwrap().clone().unwrap();
                assert!(stop_chat_turn(&stopper, &key));
            }
            _ => {}
        }
    };
    let (key, turn) = send_chat_message(&ws, message(&session, "hello"), sink).unwrap();
    assert!(key.starts_with("turn-"), "{key}");
    let view = turn.await.unwrap();
    assert_eq!(view.status, "stopped");
    assert!(ws.store().unwrap().messages(&session).unwrap().is_empty());
    assert!(!stop_chat_turn(&ws, &key), "a stopped turn is unregistered");
}

/// Discard, the other answer to a reply a crash cut: the reply and the
/// message it answered go, the stored messages stay, and a session with
/// none (or a reply still being written) is left as it is.
#[test]
fn discarding_a_cut_reply_keeps_the_stored_messages() {
    let dir = TempDir::new("chat-discard-cut");
    let ws = app_workspace(&dir, None);
    let store = ws.store().unwrap();
    let session = new_session(&store, "Bills", None);
    store
        .commit_turn(TurnWrite {
            messages: vec![
                NewMessage::new(
                    serde_json::from_value(json!("user")).unwrap(),
                    json!([{"type": "text", "text": "hi"}]),
                ),
                NewMessage::new(
                    serde_json::from_value(json!("assistant")).unwrap(),
                    json!([{"type": "text", "text": "Hello"}]),
                ),
            ],
            ..TurnWrite::new(&session)
        })
        .unwrap();
    // A reply being written (this process's) is not cut: Discard leaves it.
    store
        .begin_chat_reply(&session, "What is the total?")
        .unwrap();
    assert!(!discard_cut_reply(&ws, &session).unwrap());
    assert!(store.chat_reply(&session).unwrap().is_some());
    // Cut: its process is gone.
    store.update_chat_reply(&session, "The total is").unwrap();
    store.interrupt_owner(store.owner()).unwrap();
    let cut = list_sessions(&ws, "").unwrap().remove(0).cut_reply.unwrap();
    assert_eq!(
        (cut.prompt.as_str(), cut.reply.as_str()),
        ("What is the total?", "The total is")
    );

    assert!(discard_cut_reply(&ws, &session).unwrap());
    assert_eq!(list_sessions(&ws, "").unwrap()[0].cut_reply, None);
    assert_eq!(store.chat_reply(&session).unwrap(), None);
    let texts: Vec<Value> = store
        .messages(&session)
        .unwrap()
        .into_iter()
        .map(|m| m.parts[0]["text"].clone())
        .collect();
    assert_eq!(texts, [json!("hi"), json!("Hello")]);
    assert!(!discard_cut_reply(&ws, &session).unwrap());
    let missing = discard_cut_reply(&ws, "ses_none").unwrap_err();
    assert_eq!(missing.to_string(), "no session ses_none");
}

#[test]
fn sessions_are_found_by_their_messages_and_branch_before_an_edited_one() {
    let dir = TempDir::new("chat-search");
    let ws = app_workspace(&dir, None);
    let store = ws.store().unwrap();
    let new = |title: &str| create_session(&ws, title.into(), Some("Be brief".into())).unwrap();
    let invoices = new("Invoices");
    let holidays = new("Holidays");
    let write = |session: &str, texts: &[(&str, &str)]| {
        let messages = texts
            .iter()
            .map(|(role, text)| {
                NewMessage::new(
                    serde_json::from_value(json!(role)).unwrap(),
                    json!([{"type": "text", "text": text}]),
                )
            })
            .collect();
        store
            .commit_turn(TurnWrite {
                messages,
                ..TurnWrite::new(session)
            })
            .unwrap();
    };
    write(
        &invoices.id,
        &[("user", "Total of INV-7?"), ("assistant", "It is 120 EUR.")],
    );
    write(
        &holidays.id,
        &[("user", "Where to in May?"), ("assistant", "Lisbon.")],
    );
    let found: Vec<String> = list_sessions(&ws, "inv-7")
        .unwrap()
        .into_iter()
        .map(|s| s.title)
        .collect();
    assert_eq!(found, ["Invoices"]);
    assert_eq!(list_sessions(&ws, "").unwrap().len(), 2);
    assert!(list_sessions(&ws, "Tokyo").unwrap().is_empty());

    let branched = branch_session(&ws, &invoices.id, 2).unwrap();
    assert_eq!(branched.title, "Invoices (branch)");
    assert_eq!(branched.system_prompt.as_deref(), Some("Be brief"));
    let kept: Vec<Value> = store
        .messages(&branched.id)
        .unwrap()
        .into_iter()
        .map(|m| m.parts)
        .collect();
    assert_eq!(kept, [json!([{"type": "text", "text": "Total of INV-7?"}])]);
    // The original is untouched.
    assert_eq!(store.messages(&invoices.id).unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn files_go_with_the_message_through_the_documents_crate() {
    let dir = TempDir::new("chat-files");
    let note = dir.0.join("note.txt");
    std::fs::write(&note, "pay by Friday").unwrap();
    let server = ScriptedServer::start(Script::new().with("m", [Reply::text("Friday.")]))
        .await
        .unwrap();
    let ws = app_workspace(&dir, Some(&server));
    // As a drop of the folder grants it (a missing file is then reported as missing).
    ws.grants().grant_read(&dir.0);
    let session = new_session(&ws.store().unwrap(), "", None);
    let described = describe_attachments(&ws, vec![note.display().to_string()])
        .await
        .unwrap();
    assert_eq!(
        (
            described[0].name.as_str(),
            described[0].chars,
            described[0].images
        ),
        ("note.txt", 13, 0)
    );
    let missing = dir.0.join("gone.pdf").display().to_string();
    assert_eq!(
        describe_attachments(&ws, vec![missing.clone()])
            .await
            .unwrap_err()
            .to_string(),
        format!("{missing}: no such file")
    );
    let mut with_file = message(&session, "When?");
    with_file.files = vec![note.clone()];
    let (sink, _) = collecting();
    let (_, turn) = send_chat_message(&ws, with_file, sink).unwrap();
    let view = turn.await.unwrap();
    assert_eq!(view.status, "completed");
    let body = &server.requests()[0].body;
    assert_eq!(
        body["messages"][0],
        json!({"role": "user", "content": "<file name=\"note.txt\">\npay by Friday\n</file>\n\nWhen?"})
    );
    // The stored message keeps the file's text too.
    assert_eq!(
        ws.store().unwrap().messages(&session).unwrap()[0].parts,
        json!([{"type": "text", "text": "<file name=\"note.txt\">\npay by Friday\n</file>\n\nWhen?"}])
    );
}

/// A photo attached for a model that cannot take images (its server
/// says so, as llama.cpp's `/props` does): the request carries the
/// receipt's OCR text, as the documents crate gives it for such a model,
/// and no image part.
#[tokio::test(flavor = "multi_thread")]
async fn a_text_only_model_gets_an_attached_photo_as_its_ocr_text() {
    let dir = TempDir::new("chat-ocr");
    let server = ScriptedServer::start(
        Script::new()
            .answering_as(ServerIdentity::LlamaCpp {
                vision: false,
                supports_tools: Some(true),
                n_ctx: 4096,
                total_slots: 1,
            })
            .with("m", [Reply::text("9.00")]),
    )
    .await
    .unwrap();
    let ws = app_workspace(&dir, Some(&server));
    let session = new_session(&ws.store().unwrap(), "", None);
    let photo = std::fs::canonicalize(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/sroie_000.jpg"),
    )
    .unwrap();
    // As the open dialog grants the file it returned.
    ws.grants().grant_read(&photo);
    let mut with_photo = message(&session, "What is the total?");
    with_photo.files = vec![photo.clone()];
    let (sink, _) = collecting();
    let (_, turn) = send_chat_message(&ws, with_photo, sink).unwrap();
    let view = turn.await.unwrap();
    assert_eq!(view.status, "completed");
    let text_only = ReadOptions {
        model_takes_images: false,
        ..ws.read_options()
    };
    let text = render_text(&read_documents(&[photo], &text_only).unwrap());
    assert!(
        text.starts_with(
            "<file name=\"sroie_000.jpg\">\n[Image omitted: sroie_000.jpg; the model reads its text.]\n"
        ) && text.contains("25/12/2018 8:13:39 PM")
            && text.contains(" 9.00"),
        "{text}"
    );
    let body = &server.requests()[0].body;
    assert_eq!(
        body["messages"][0],
        json!({"role": "user", "content": format!("{text}\n\nWhat is the total?")})
    );
    assert_eq!(server.model_info_requests()[0].path, "/props");
}

#[test]
fn sessions_are_renamed_and_exports_are_written_only_as_text() {
    let dir = TempDir::new("chat-rename");
    let ws = app_workspace(&dir, None);
    let session = new_session(&ws.store().unwrap(), "Old", Some("m"));
    let view = update_session(
        &ws,
        &session,
        SessionChange {
            title: Some("New".into()),
            model_choice: Some(String::new()),
        },
    )
    .unwrap();
    assert_eq!((view.title.as_str(), view.model_choice), ("New", None));
    let file = dir.0.join("chat.md");
    // As the save dialog grants the path it returned.
    ws.grants().grant_file(&file);
    write_export(&ws, &file, "# New\n").unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "# New\n");
    let script = dir.0.join("run.sh");
    ws.grants().grant_file(&script);
    assert_eq!(
        write_export(&ws, &script, "rm -rf /")
            .unwrap_err()
            .to_string(),
        format!(
            "{}: a conversation is exported as .md, .json or .txt",
            script.display()
        )
    );
    assert!(!script.exists());
}

#[test]
fn an_export_to_a_path_no_dialog_returned_is_refused_and_nothing_is_written() {
    let dir = TempDir::new("chat-export-refused");
    let ws = app_workspace(&dir, None);
    let file = dir.0.join("elsewhere.md");
    let error = write_export(&ws, &file, "# Chat\n").unwrap_err();
    assert_eq!(error.code(), "path_not_allowed");
    assert!(!file.exists());
    let leftovers: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| !Path::new(n).to_string_lossy().starts_with("sift.db"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
