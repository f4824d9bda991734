//! Runs are stored, and a re-run from a step reuses the stored outputs of
//! the steps before it instead of calling the model again.

use serde_json::json;
use sift_scripted_server::{Reply, Script};

use crate::workflow_support::{Scratch, assert_exit, server, step};

const FLOW: &str = "params: CODE=1
steps:
  - id: classify
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: \"Classify: please refund my 12.50\"
    output_schema:
      type: object
      properties:
        category: {type: string}
      required: [category]
  - id: record
    depends: classify
    run: echo \"${steps.classify.outputs.category}\"; exit ${params.CODE}
";

fn rows(db: &std::path::Path, sql: &str) -> Vec<Vec<String>> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut statement = conn.prepare(sql).unwrap();
    let count = statement.column_count();
    statement
        .query_map([], |row| {
            (0..count)
                .map(|i| {
                    let value: rusqlite::types::Value = row.get(i)?;
                    Ok(match value {
                        rusqlite::types::Value::Null => "NULL".to_owned(),
                        rusqlite::types::Value::Integer(n) => n.to_string(),
                        rusqlite::types::Value::Text(t) => t,
                        other => format!("{other:?}"),
                    })
                })
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap()
}

#[tokio::test]
async fn a_rerun_from_a_step_reuses_the_steps_before_it() {
    let server = server(Script::new().with(
        "test-model",
        [Reply::tool_call("respond", json!({"category": "refund"}))],
    ))
    .await;
    let scratch = Scratch::new("rerun");
    let file = scratch.flow(FLOW, Some(&server));
    let (output, first) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 1);
    assert_eq!(step(&first, "record")["status"], "failed");
    assert_eq!(step(&first, "record")["stdout"], "refund\n");
    let first_id = first["run_id"].as_str().unwrap().to_owned();
    assert_eq!(server.requests().len(), 1);

    let (output, second) = scratch
        .run_json(
            file,
            &["--from", "record", "--run", &first_id, "--param", "CODE=0"],
        )
        .await;
    assert_exit(&output, 0);
    // The model is not asked again: its answer comes from the first run.
    assert_eq!(server.requests().len(), 1);
    assert_eq!(
        step(&second, "classify")["outputs"],
        json!({"category": "refund"})
    );
    assert_eq!(step(&second, "record")["status"], "succeeded");
    assert_eq!(step(&second, "record")["stdout"], "refund\n");
    let second_id = second["run_id"].as_str().unwrap().to_owned();

    let db = scratch.path("sift.db");
    assert_eq!(
        rows(
            &db,
            "SELECT id, status, from_run, from_step, params FROM workflow_runs ORDER BY created_at, id"
        ),
        <Vec<Vec<String>>>::from([
            vec![
                first_id.clone(),
                "failed".into(),
                "NULL".into(),
                "NULL".into(),
                "[]".into()
            ],
            vec![
                second_id.clone(),
                "succeeded".into(),
                first_id.clone(),
                "record".into(),
                r#"[["CODE","0"]]"#.into()
            ],
        ])
    );
    assert_eq!(
        rows(
            &db,
            &format!(
                "SELECT position, name, step_id, status, stdout, outputs, error, reused FROM workflow_steps \
                 WHERE run_id = '{second_id}' ORDER BY position"
            )
        ),
        <Vec<Vec<String>>>::from([
            vec![
                "0".into(),
                "classify".into(),
                "classify".into(),
                "succeeded".into(),
                "{\"category\":\"refund\"}\n".into(),
                r#"{"category":"refund"}"#.into(),
                "NULL".into(),
                "1".into()
            ],
            vec![
                "1".into(),
                "record".into(),
                "record".into(),
                "succeeded".into(),
                "refund\n".into(),
                "{}".into(),
                "NULL".into(),
                "0".into()
            ],
        ])
    );
    // The stored conversation is the one later steps inherit: the
    // instruction is not in it, the answer is.
    let messages = rows(
        &db,
        &format!(
            "SELECT messages FROM workflow_steps WHERE run_id = '{first_id}' AND name = 'classify'"
        ),
    );
    let messages: serde_json::Value = serde_json::from_str(&messages[0][0]).unwrap();
    assert_eq!(
        messages,
        json!([
            {"role": "user", "parts": [{"type": "text", "text": "Classify: please refund my 12.50"}]},
            {"role": "assistant", "parts": [{"type": "text", "text": "{\"category\":\"refund\"}"}]},
        ])
    );
}

#[tokio::test]
async fn a_rerun_names_an_unknown_run_or_step_plainly() {
    let scratch = Scratch::new("rerun-bad");
    let file = scratch.flow("steps:\n  - {id: a, run: 'true'}\n", None);
    let (output, first) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    let id = first["run_id"].as_str().unwrap().to_owned();
    let output = scratch.run(file, &["--from", "zzz", "--run", &id]).await;
    assert_exit(&output, 1);
    assert_eq!(
        crate::stderr(&output),
        "error (other): the workflow has no step named \"zzz\"\n"
    );
    let output = scratch
        .run(file, &["--from", "a", "--run", "run_nope"])
        .await;
    assert_exit(&output, 1);
    assert_eq!(
        crate::stderr(&output),
        "error (other): no workflow run run_nope\n"
    );
}
