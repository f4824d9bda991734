//! The chat commands' logic against a real SQLite file and the scripted
//! model server: a turn that waits for approval, is resumed from the
//! store and completes; a stopped turn that stores nothing; search; a
//! branch to edit from.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sift_core::chat::{ApprovalRequest, ChatRequest};
use sift_core::chat_tools::chat_toolkit;
use sift_core::store::{NewSession, Store};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use tokio_util::sync::CancellationToken;

use super::chat::{
    ChatTurnEvent, SessionChange, TurnInput, branch, change_session, describe, sessions_matching,
    turn, write_export,
};
use super::test_support::{collecting, scripted};

struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("sift-app-chat-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn kinds(seen: &Arc<Mutex<Vec<Value>>>) -> Vec<String> {
    seen.lock()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_call_waits_for_approval_then_the_turn_completes() {
    let folder = Folder::new("approval");
    let note = folder.0.join("note.txt");
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
    let db = folder.0.join("sift.db");
    let store = Store::open(&db).unwrap();
    let session = store
        .create_session(NewSession {
            title: "Bills".into(),
            system_prompt: None,
            model_choice: None,
        })
        .unwrap();
    let mut request = ChatRequest::new(&session.id, "What does my note say?", scripted(&server));
    request.toolkits = vec![chat_toolkit()];
    let (channel, seen) = collecting::<ChatTurnEvent>();
    let view = turn(
        &store,
        TurnInput::Message(request),
        CancellationToken::new(),
        &channel,
    )
    .await
    .unwrap();
    assert_eq!(view.status, "awaitingApproval");
    assert!(view.messages.is_empty(), "nothing is stored while it waits");
    assert_eq!(view.session.approvals.len(), 1);
    assert_eq!(view.session.approvals[0].name, "read_document");
    assert_eq!(kinds(&seen), ["toolStarted", "usage", "approvalRequired"]);

    // As after a restart: a new connection to the same file.
    drop(store);
    let store = Store::open(&db).unwrap();
    let call_id = view.session.approvals[0].call_id.clone();
    let mut approval = ApprovalRequest::new(&session.id, call_id, true, scripted(&server));
    approval.toolkits = vec![chat_toolkit()];
    let (channel, seen) = collecting::<ChatTurnEvent>();
    let view = turn(
        &store,
        TurnInput::Approval(approval),
        CancellationToken::new(),
        &channel,
    )
    .await
    .unwrap();
    assert_eq!(view.status, "completed");
    assert_eq!(view.reply, "It says to pay by Friday.");
    assert!(view.session.approvals.is_empty());
    let mut shown = kinds(&seen);
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
    let finished = seen.lock().unwrap()[0].clone();
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
    let folder = Folder::new("stop");
    let server =
        ScriptedServer::start(Script::new().with("m", [Reply::text("too late").delay_ms(5_000)]))
            .await
            .unwrap();
    let store = Store::open(folder.0.join("sift.db")).unwrap();
    let session = store
        .create_session(NewSession {
            title: String::new(),
            system_prompt: None,
            model_choice: None,
        })
        .unwrap();
    let request = ChatRequest::new(&session.id, "hello", scripted(&server));
    let stop = CancellationToken::new();
    let stopper = stop.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        stopper.cancel();
    });
    let (channel, _) = collecting::<ChatTurnEvent>();
    let view = turn(&store, TurnInput::Message(request), stop, &channel)
        .await
        .unwrap();
    assert_eq!(view.status, "stopped");
    assert!(store.messages(&session.id).unwrap().is_empty());
}

#[test]
fn sessions_are_found_by_their_messages_and_branch_before_an_edited_one() {
    let folder = Folder::new("search");
    let store = Store::open(folder.0.join("sift.db")).unwrap();
    let new = |title: &str| {
        store
            .create_session(NewSession {
                title: title.into(),
                system_prompt: Some("Be brief".into()),
                model_choice: None,
            })
            .unwrap()
    };
    let invoices = new("Invoices");
    let holidays = new("Holidays");
    let write = |session: &str, texts: &[(&str, &str)]| {
        let messages = texts
            .iter()
            .map(|(role, text)| {
                sift_core::store::NewMessage::new(
                    serde_json::from_value(json!(role)).unwrap(),
                    json!([{"type": "text", "text": text}]),
                )
            })
            .collect();
        store
            .commit_turn(sift_core::store::TurnWrite {
                messages,
                ..sift_core::store::TurnWrite::new(session)
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
    let found: Vec<String> = sessions_matching(&store, "inv-7")
        .unwrap()
        .into_iter()
        .map(|s| s.title)
        .collect();
    assert_eq!(found, ["Invoices"]);
    assert_eq!(sessions_matching(&store, "").unwrap().len(), 2);
    assert!(sessions_matching(&store, "Tokyo").unwrap().is_empty());

    let branched = branch(&store, &invoices.id, 2).unwrap();
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
    let folder = Folder::new("files");
    let note = folder.0.join("note.txt");
    std::fs::write(&note, "pay by Friday").unwrap();
    let server = ScriptedServer::start(Script::new().with("m", [Reply::text("Friday.")]))
        .await
        .unwrap();
    let store = Store::open(folder.0.join("sift.db")).unwrap();
    let session = store
        .create_session(NewSession {
            title: String::new(),
            system_prompt: None,
            model_choice: None,
        })
        .unwrap();
    let described = describe(&[note.display().to_string()]).unwrap();
    assert_eq!(
        (
            described[0].name.as_str(),
            described[0].chars,
            described[0].images
        ),
        ("note.txt", 13, 0)
    );
    let missing = folder.0.join("gone.pdf").display().to_string();
    assert_eq!(
        describe(std::slice::from_ref(&missing))
            .unwrap_err()
            .message,
        format!("{missing}: no such file")
    );
    let mut request = ChatRequest::new(&session.id, "When?", scripted(&server));
    request.files = vec![note.clone()];
    let (channel, _) = collecting::<ChatTurnEvent>();
    let view = turn(
        &store,
        TurnInput::Message(request),
        CancellationToken::new(),
        &channel,
    )
    .await
    .unwrap();
    assert_eq!(view.status, "completed");
    let body = &server.requests()[0].body;
    assert_eq!(
        body["messages"][0],
        json!({"role": "user", "content": "<file name=\"note.txt\">\npay by Friday\n</file>\n\nWhen?"})
    );
    // The stored message keeps the file's text too.
    assert_eq!(
        store.messages(&session.id).unwrap()[0].parts,
        json!([{"type": "text", "text": "<file name=\"note.txt\">\npay by Friday\n</file>\n\nWhen?"}])
    );
}

#[test]
fn sessions_are_renamed_and_exports_are_written_only_as_text() {
    let folder = Folder::new("rename");
    let store = Store::open(folder.0.join("sift.db")).unwrap();
    let session = store
        .create_session(NewSession {
            title: "Old".into(),
            system_prompt: None,
            model_choice: Some("m".into()),
        })
        .unwrap();
    let view = change_session(
        &store,
        &session.id,
        SessionChange {
            title: Some("New".into()),
            model_choice: Some(String::new()),
        },
    )
    .unwrap();
    assert_eq!((view.title.as_str(), view.model_choice), ("New", None));
    let file = folder.0.join("chat.md");
    write_export(file.display().to_string(), "# New\n".into()).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "# New\n");
    let script = folder.0.join("run.sh").display().to_string();
    assert_eq!(
        write_export(script.clone(), "rm -rf /".into())
            .unwrap_err()
            .message,
        format!("{script}: a conversation is exported as .md, .json or .txt")
    );
}
