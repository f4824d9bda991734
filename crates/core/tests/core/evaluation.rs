//! Evaluation on a workspace, as the Evaluate screen runs it: labelled
//! sets stored (from a TSV of corpus invoices, from a corrected job),
//! two candidates side by side on the scripted server with an exact
//! matrix, the cost from the price table, the noise statement, and a
//! re-run that reuses the stored calls without a request.

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_core::eval::{
    Candidate, EvaluateEvent, EvaluateRequest, cancel_evaluation, evaluation_history,
    evaluation_view, export_set, get_set, import_set, resume_evaluation, run_history, set_from_job,
    start_evaluation,
};
use sift_core::extract::{NewJob, check_value, recent_jobs, revise_field, start_job};
use sift_core::usage::prices::set_price;
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::sessions::app_workspace;
use crate::{TempDir, selection};

fn corpus(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name)
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

fn invoice_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "invoice_number": {"type": "string", "description": "The invoice's number"},
            "date": {"type": "string", "description": "The invoice date"},
            "total": {"type": "number", "description": "The amount due"},
        },
        "required": ["invoice_number", "date", "total"],
    })
}

const DOCUMENTS: [&str; 3] = [
    "i2d_AmazonWebServices.pdf",
    "i2d_Orlen.txt",
    "mustang_Facture_F20180027.pdf",
];

fn answer(number: &str, date: &str, total: f64, usage: (u64, u64)) -> Reply {
    Reply::tool_call(
        "submit_output",
        json!({"invoice_number": number, "date": date, "total": total}),
    )
    .usage(usage.0, usage.1)
}

fn candidate(model: &str) -> Candidate {
    Candidate {
        provider_id: Some("scripted".into()),
        model: Some(model.into()),
        ..Candidate::default()
    }
}

#[tokio::test]
async fn two_candidates_give_an_exact_matrix_and_a_rerun_reuses_their_calls() {
    let dir = TempDir::new("eval-two");
    // One document at a time, so each model's replies go to the set's
    // documents in order.
    let server = ScriptedServer::start(
        Script::new()
            .with(
                "good",
                // Each answer held 40 ms: the latency is the call's own span.
                [
                    answer("42183017", "2014-08-03", 4.11, (1000, 100)).delay_ms(40),
                    answer("F 1234K20/1234/12", "01.01.2021", 316.83, (1000, 100)).delay_ms(40),
                    answer("F20180027", "31/12/2018", 110.0, (1000, 100)).delay_ms(40),
                ],
            )
            .with(
                "bad",
                [
                    answer("42183017", "2014-03-08", 4.11, (500, 50)),
                    answer("1234", "2021-01-01", 316.83, (500, 50)),
                    answer("F20180027", "2018-12-30", 110.0, (500, 50)),
                    // For the run with another prompt.
                    answer("42183017", "2014-08-03", 4.11, (500, 50)),
                    answer("F 1234K20/1234/12", "2021-01-01", 316.83, (500, 50)),
                    answer("F20180027", "2018-12-31", 110.0, (500, 50)),
                ],
            ),
    )
    .await
    .unwrap();
    let ws = app_workspace(&dir, Some(&server));
    let store = ws.store().unwrap();
    store.save_schema("invoice", &invoice_schema()).unwrap();
    let tsv = dir.0.join("truth.tsv");
    let mut text = String::from("file\tinvoice_number\tdate\ttotal\tnotes\n");
    for (file, number, date, total) in [
        (DOCUMENTS[0], "42183017", "2014-08-03", "4.11"),
        (DOCUMENTS[1], "F 1234K20/1234/12", "2021-01-01", "316.83"),
        (DOCUMENTS[2], "F20180027", "2018-12-31", "110.00"),
    ] {
        text.push_str(&format!(
            "{}\t{number}\t{date}\t{total}\tignored\n",
            corpus(file)
        ));
    }
    std::fs::write(&tsv, text).unwrap();
    let set = import_set(&store, "invoices", &tsv, "invoice", None).unwrap();
    assert_eq!(
        (set.fields.clone(), set.documents, set.source.as_str()),
        (
            vec!["invoice_number".to_owned(), "date".into(), "total".into()],
            3,
            "file truth.tsv"
        )
    );
    // The user's price for `good`; `bad`, on loopback, is free.
    set_price(&store, "scripted", "good", 1.0, 2.0).unwrap();

    let request = EvaluateRequest {
        set_name: "invoices".into(),
        candidates: vec![candidate("good"), candidate("bad")],
        concurrency: Some(1),
    };
    let (started, run) = start_evaluation(&ws, request.clone(), |_| {}).unwrap();
    assert_eq!(started.status, "running");
    let view = run.await.unwrap();
    assert_eq!(view.status, "completed");
    assert_eq!(server.requests().len(), 6);
    // The candidates' jobs are the Evaluate screen's, not Extract's history.
    assert!(recent_jobs(&store, 10).unwrap().is_empty());
    let cells = |i: usize| -> Vec<(String, u32, u32)> {
        view.candidates[i]
            .cells
            .iter()
            .chain([&view.candidates[i].overall])
            .map(|c| (c.field.clone(), c.correct, c.scored))
            .collect()
    };
    let row = |f: &str, c, s| (f.to_owned(), c, s);
    assert_eq!(
        cells(0),
        [
            row("invoice_number", 3, 3),
            row("date", 3, 3),
            row("total", 3, 3),
            row("overall", 9, 9)
        ]
    );
    assert_eq!(
        cells(1),
        [
            row("invoice_number", 2, 3),
            row("date", 1, 3),
            row("total", 3, 3),
            row("overall", 6, 9)
        ]
    );
    let good = &view.candidates[0];
    assert_eq!((good.input_tokens, good.output_tokens), (3000, 300));
    // The median and 95th percentile of its stored calls' spans, each at
    // least the 40 ms the server held it.
    let mut spans: Vec<i64> = store
        .list_calls(Some("eval"))
        .unwrap()
        .iter()
        .filter(|c| c.request["model"] == "good")
        .map(|c| c.finished_at - c.created_at)
        .collect();
    spans.sort_unstable();
    assert_eq!(spans.len(), 3);
    assert!(spans[0] >= 40, "{spans:?}");
    assert_eq!(
        (good.latency_median_ms, good.latency_p95_ms),
        (Some(spans[1]), Some(spans[2]))
    );
    // 3,000 × $1 + 300 × $2 per million.
    assert_eq!(good.cost, Some(0.0036));
    assert_eq!(view.candidates[1].cost, Some(0.0));
    assert_eq!(
        (
            good.candidate.label.as_str(),
            view.candidates[1].candidate.label.as_str()
        ),
        ("good", "bad")
    );
    assert_eq!(view.pairs.len(), 1);
    let pair = &view.pairs[0];
    assert_eq!(
        (pair.only_a, pair.only_b, pair.p_value, pair.within_noise),
        (3, 0, 0.25, true)
    );
    assert_eq!(
        pair.statement,
        "good vs bad: 9/9 against 6/9; 3 cells differ (3 for good, 0 for bad): within noise (McNemar exact p = 0.250)"
    );
    let disagreements: Vec<(String, String, String, Value)> = view
        .disagreements
        .iter()
        .map(|d| {
            (
                d.file_name.clone(),
                d.field.clone(),
                d.truth.clone(),
                json!(
                    d.values
                        .iter()
                        .map(|v| (v.value.clone(), v.correct))
                        .collect::<Vec<_>>()
                ),
            )
        })
        .collect();
    assert_eq!(
        disagreements,
        [
            (
                DOCUMENTS[0].into(),
                "date".into(),
                "2014-08-03".into(),
                json!([["2014-08-03", true], ["2014-03-08", false]])
            ),
            (
                DOCUMENTS[1].into(),
                "invoice_number".into(),
                "F 1234K20/1234/12".into(),
                json!([["F 1234K20/1234/12", true], ["1234", false]])
            ),
            (
                DOCUMENTS[2].into(),
                "date".into(),
                "2018-12-31".into(),
                json!([["31/12/2018", true], ["2018-12-30", false]])
            ),
        ]
    );
    // Each value names the stored call behind it.
    for d in &view.disagreements {
        for v in &d.values {
            let call = store
                .get_call(v.call_id.as_deref().unwrap())
                .unwrap()
                .unwrap();
            assert_eq!(call.kind, "eval");
        }
    }

    // The same candidates again: no request, the same matrix.
    let (_, again) = start_evaluation(&ws, request, |_| {}).unwrap();
    let again = again.await.unwrap();
    assert_eq!(server.requests().len(), 6);
    assert_eq!(
        again
            .candidates
            .iter()
            .map(|c| (c.reused, c.job_id.clone()))
            .collect::<Vec<_>>(),
        view.candidates
            .iter()
            .map(|c| (true, c.job_id.clone()))
            .collect::<Vec<_>>()
    );
    assert_eq!(again.candidates[1].overall.correct, 6);
    assert_eq!(again.pairs[0].statement, pair.statement);
    let history = run_history(&store, "invoices").unwrap();
    assert_eq!(
        history.iter().map(|h| h.run_id.clone()).collect::<Vec<_>>(),
        [again.run_id.clone(), view.run_id.clone()]
    );
    assert_eq!(
        history[0]
            .overall
            .iter()
            .map(|c| (c.correct, c.scored))
            .collect::<Vec<_>>(),
        [(9, 9), (6, 9)]
    );

    // A changed prompt is another candidate: it calls again.
    let mut changed = candidate("bad");
    changed.prompt = Some("Read the invoice.".into());
    let request = EvaluateRequest {
        set_name: "invoices".into(),
        candidates: vec![changed],
        concurrency: Some(1),
    };
    let (_, third) = start_evaluation(&ws, request, |_| {}).unwrap();
    let third = third.await.unwrap();
    assert!(!third.candidates[0].reused);
    assert_eq!(server.requests().len(), 9);
    assert_eq!(
        (
            third.candidates[0].overall.correct,
            third.candidates[0].overall.scored
        ),
        (9, 9)
    );
}

#[tokio::test]
async fn a_set_from_a_corrected_job_holds_only_the_values_the_user_vouched_for() {
    let dir = TempDir::new("eval-from-job");
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            answer("A-1", "2024-01-01", 10.0, (10, 1)),
            answer("B-2", "2024-02-02", 20.0, (10, 1)),
            answer("C-3", "2024-03-03", 30.0, (10, 1)),
        ],
    ))
    .await
    .unwrap();
    let ws = app_workspace(&dir, Some(&server));
    let files: Vec<PathBuf> = ["a.txt", "b.txt", "c.txt"]
        .iter()
        .map(|name| {
            let path = dir.0.join(name);
            std::fs::write(&path, format!("Invoice {name}\n")).unwrap();
            path
        })
        .collect();
    // As a drop of the folder grants its files.
    ws.grants().grant_read(&dir.0);
    let job = NewJob {
        schema_name: "invoice".into(),
        schema: invoice_schema(),
        prompt: None,
        files: files.clone(),
        selection: selection(&server, &["m"]),
        concurrency: 1,
        provider_id: None,
        ocr_languages: None,
        answers: None,
    };
    let (view, run) = start_job(&ws, job, |_| {}).unwrap();
    run.await.unwrap();
    let store = ws.store().unwrap();
    let none = set_from_job(&store, &view.job_id, "checked").unwrap_err();
    assert_eq!(
        none.to_string(),
        format!(
            "no value of job {} is checked or corrected: check the values you trust, then save the set",
            view.job_id
        )
    );
    // a: its total corrected; b: its number checked; c: untouched.
    revise_field(
        &store,
        &ws.read_options(),
        &view.job_id,
        0,
        &["total".into()],
        json!(12.5),
    )
    .await
    .unwrap();
    check_value(&store, &view.job_id, 1, "invoice_number").unwrap();
    let set = set_from_job(&store, &view.job_id, "checked").unwrap();
    assert_eq!(
        (set.fields.clone(), set.documents, set.source.clone()),
        (
            vec!["invoice_number".to_owned(), "total".into()],
            2,
            format!("job {}", view.job_id)
        )
    );
    let stored = get_set(&store, "checked").unwrap();
    let truths: Vec<(String, Value)> = stored
        .documents
        .iter()
        .map(|d| (d.file_name.clone(), json!(d.truth)))
        .collect();
    assert_eq!(
        truths,
        [
            ("a.txt".into(), json!({"total": "12.5"})),
            ("b.txt".into(), json!({"invoice_number": "B-2"}))
        ]
    );

    // Exported only where the save dialog granted, and read back as it was.
    let out = dir.0.join("checked.tsv");
    assert_eq!(
        export_set(&ws, "checked", &out).unwrap_err().code(),
        "path_not_allowed"
    );
    assert!(!out.exists());
    ws.grants().grant_file(&out);
    assert_eq!(export_set(&ws, "checked", &out).unwrap(), 2);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!(
            "file\tinvoice_number\ttotal\n{}\t\t12.5\n{}\tB-2\t\n",
            files[0].display(),
            files[1].display()
        )
    );
    let again = import_set(
        &store,
        "checked again",
        &out,
        "invoice",
        Some(set.schema_version),
    )
    .unwrap();
    assert_eq!((again.fields, again.documents), (set.fields, 2));
    let duplicate = import_set(&store, "checked", &out, "invoice", None).unwrap_err();
    assert_eq!(
        duplicate.to_string(),
        "a labelled set named \"checked\" already exists: pick another name, or delete that set first"
    );
}

/// A cancel stops the candidate reading now (no document of it starts
/// after) and every later one; a resume reads what is left, and only
/// that.
#[tokio::test]
async fn a_cancelled_run_resumes_with_only_what_was_left() {
    let dir = TempDir::new("eval-cancel");
    let ok = |n: &str| answer(n, "2024-01-01", 1.0, (10, 1));
    let server = ScriptedServer::start(
        Script::new()
            .with("a", [ok("A-1"), ok("A-2")])
            .with("b", [ok("A-1"), ok("X")]),
    )
    .await
    .unwrap();
    let ws = app_workspace(&dir, Some(&server));
    let store = ws.store().unwrap();
    store.save_schema("invoice", &invoice_schema()).unwrap();
    let mut tsv = String::from("file\tinvoice_number\n");
    for (name, number) in [("one.txt", "A-1"), ("two.txt", "A-2")] {
        std::fs::write(dir.0.join(name), format!("Invoice {number}\n")).unwrap();
        tsv.push_str(&format!("{name}\t{number}\n"));
    }
    std::fs::write(dir.0.join("truth.tsv"), tsv).unwrap();
    import_set(&store, "two", &dir.0.join("truth.tsv"), "invoice", None).unwrap();
    let request = EvaluateRequest {
        set_name: "two".into(),
        candidates: vec![candidate("a"), candidate("b")],
        concurrency: Some(1),
    };
    let canceller = ws.clone();
    let (_, run) = start_evaluation(&ws, request, move |event| {
        if let EvaluateEvent::Document {
            run_id,
            position: 0,
            done: 1,
            ..
        } = event
        {
            assert!(cancel_evaluation(&canceller, &run_id));
        }
    })
    .unwrap();
    let cancelled = run.await.unwrap();
    assert_eq!(cancelled.status, "cancelled");
    assert_eq!(server.requests().len(), 1);
    let progress = |view: &sift_core::eval::EvalRunView| -> Vec<(u32, u32, bool)> {
        view.candidates
            .iter()
            .map(|c| (c.done, c.pending, c.job_id.is_some()))
            .collect()
    };
    assert_eq!(progress(&cancelled), [(1, 1, true), (0, 0, false)]);
    assert!(!cancel_evaluation(&ws, &cancelled.run_id));
    // A run a gone process left running (as after a crash) reads as
    // interrupted, in the view and in the history.
    let left = store
        .create_eval_run(
            "two",
            &store
                .eval_run(&cancelled.run_id)
                .unwrap()
                .unwrap()
                .candidates,
            1,
        )
        .unwrap();
    assert_eq!(
        evaluation_view(&ws, &left.id).unwrap().status,
        "interrupted"
    );
    let statuses: Vec<String> = evaluation_history(&ws, "two")
        .unwrap()
        .into_iter()
        .map(|h| h.status)
        .collect();
    assert_eq!(statuses, ["interrupted", "cancelled"]);

    let (_, rest) = resume_evaluation(&ws, &cancelled.run_id, |_| {}).unwrap();
    let done = rest.await.unwrap();
    assert_eq!(done.status, "completed");
    assert_eq!(server.requests().len(), 4);
    assert_eq!(progress(&done), [(2, 0, true), (2, 0, true)]);
    let overall: Vec<(u32, u32)> = done
        .candidates
        .iter()
        .map(|c| (c.overall.correct, c.overall.scored))
        .collect();
    assert_eq!(overall, [(2, 2), (1, 2)]);
}
