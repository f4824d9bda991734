//! Work a crash cut short: owners written on running work, the one
//! transition of an owner's work to interrupted, and chat replies kept
//! as they stream until their turn commits.

use serde_json::json;
use sift_store::{
    Interrupted, JobStatus, NewExtractionJob, NewWorkflowRun, Store, StoredStep, TurnWrite,
};

use crate::{assistant, count, fresh, raw, session, user};

fn job(store: &Store) -> String {
    let schema = json!({"type": "object"});
    let version = store.save_schema("invoice", &schema).unwrap();
    store
        .create_extraction_job(NewExtractionJob {
            schema_name: "invoice".into(),
            schema_version: version,
            prompt: "p".into(),
            models: json!(["m"]),
            paths: vec!["a.txt".into()],
        })
        .unwrap()
        .id
}

fn run_with_steps(store: &Store) -> String {
    let run = store
        .create_workflow_run(&NewWorkflowRun {
            file: "flow.yaml".into(),
            params: Vec::new(),
            from_run: None,
            from_step: None,
        })
        .unwrap();
    for (position, (name, status)) in [("fetch", "succeeded"), ("summarise", "running")]
        .into_iter()
        .enumerate()
    {
        store
            .save_workflow_step(&StoredStep {
                run_id: run.id.clone(),
                position: position as i64,
                name: name.into(),
                step_id: None,
                status: status.into(),
                stdout: String::new(),
                stderr: String::new(),
                outputs: json!({}),
                messages: json!([]),
                error: None,
                input_tokens: 0,
                output_tokens: 0,
                elapsed_ms: 0,
                reused: false,
                provider: None,
                host: None,
                model: None,
            })
            .unwrap();
    }
    run.id
}

#[test]
fn a_gone_owners_job_run_and_reply_are_marked_interrupted_once() {
    let (dir, plain) = fresh("interrupt");
    let gone = plain.clone().owned_by("100@1");
    let alive = plain.clone().owned_by("200@1");
    let job_gone = job(&gone);
    let job_alive = job(&alive);
    let run_gone = run_with_steps(&gone);
    let chat = session(&plain);
    gone.begin_chat_reply(&chat.id, "What is the total?")
        .unwrap();
    gone.update_chat_reply(&chat.id, "The total is").unwrap();
    let mut owners = plain.running_owners().unwrap();
    owners.sort();
    assert_eq!(owners, [Some("100@1".to_owned()), Some("200@1".to_owned())]);

    let marked = plain.interrupt_owner(Some("100@1")).unwrap();
    assert_eq!(
        marked,
        Interrupted {
            jobs: vec![job_gone.clone()],
            runs: vec![run_gone.clone()],
            replies: vec![chat.id.clone()],
        }
    );
    assert!(plain.interrupt_owner(Some("100@1")).unwrap().is_empty());
    assert_eq!(plain.running_owners().unwrap(), [Some("200@1".to_owned())]);
    let status = |id: &str| plain.get_extraction_job(id).unwrap().unwrap().status;
    assert_eq!(status(&job_gone), JobStatus::Interrupted);
    assert_eq!(status(&job_alive), JobStatus::Running);
    assert_eq!(
        plain.workflow_run(&run_gone).unwrap().unwrap().status,
        "interrupted"
    );
    let steps: Vec<(String, String)> = plain
        .workflow_steps(&run_gone)
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.status))
        .collect();
    assert_eq!(
        steps,
        [
            ("fetch".to_owned(), "succeeded".to_owned()),
            ("summarise".to_owned(), "interrupted".to_owned())
        ]
    );
    let cut = plain.chat_reply(&chat.id).unwrap().unwrap();
    assert_eq!(
        (cut.prompt.as_str(), cut.reply.as_str()),
        ("What is the total?", "The total is")
    );
    assert!(cut.interrupted_at.is_some());
    // The gone process's handle can no longer change the cut reply.
    gone.update_chat_reply(&chat.id, "The total is 12").unwrap();
    gone.end_chat_reply(&chat.id).unwrap();
    assert_eq!(
        plain.chat_reply(&chat.id).unwrap().unwrap().reply,
        "The total is"
    );

    // A resume takes the job over: running again, under its new owner.
    alive.set_job_status(&job_gone, JobStatus::Running).unwrap();
    assert_eq!(status(&job_gone), JobStatus::Running);
    let owner: Option<String> = raw(&dir.db())
        .query_row(
            "SELECT owner FROM extraction_jobs WHERE id = ?1",
            [&job_gone],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(owner.as_deref(), Some("200@1"));
    assert!(
        alive
            .set_job_status(&job_gone, JobStatus::Interrupted)
            .is_err()
    );
    let integrity: String = raw(&dir.db())
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}

#[test]
fn a_committed_turn_deletes_its_streaming_reply_in_the_same_transaction() {
    let (dir, store) = fresh("reply-commit");
    let store = store.owned_by("1@1");
    let chat = session(&store);
    store.begin_chat_reply(&chat.id, "hi").unwrap();
    store.update_chat_reply(&chat.id, "Hel").unwrap();
    assert_eq!(count(&dir.db(), "chat_replies"), 1);
    store
        .commit_turn(TurnWrite {
            messages: vec![user("hi"), assistant("Hello")],
            ..TurnWrite::new(&chat.id)
        })
        .unwrap();
    assert_eq!(count(&dir.db(), "chat_replies"), 0);
    assert_eq!(store.chat_reply(&chat.id).unwrap(), None);

    // A failed or stopped turn ends its own reply; a new turn replaces a
    // cut one; a cut one can be discarded.
    store.begin_chat_reply(&chat.id, "again").unwrap();
    store.end_chat_reply(&chat.id).unwrap();
    assert_eq!(count(&dir.db(), "chat_replies"), 0);
    store.begin_chat_reply(&chat.id, "once more").unwrap();
    store.interrupt_owner(Some("1@1")).unwrap();
    assert!(!store.discard_chat_reply("nope").unwrap());
    assert!(store.discard_chat_reply(&chat.id).unwrap());
    assert_eq!(count(&dir.db(), "chat_replies"), 0);
}
