//! The schema library and extraction jobs.

use serde_json::json;
use sift_store::{DocumentResult, DocumentStatus, JobStatus, NewExtractionJob};

use crate::{count, fresh};

#[test]
fn a_schema_gets_a_new_version_only_when_it_changes() {
    let (dir, store) = fresh("schemas");
    let a = json!({"type": "object", "properties": {"n": {"type": "string"}}});
    let b = json!({"type": "object", "properties": {"n": {"type": "number"}}});
    assert_eq!(store.save_schema("invoice", &a).unwrap(), 1);
    assert_eq!(store.save_schema("invoice", &a).unwrap(), 1);
    assert_eq!(store.save_schema("invoice", &b).unwrap(), 2);
    assert_eq!(store.save_schema("invoice", &b).unwrap(), 2);
    assert_eq!(store.save_schema("receipt", &a).unwrap(), 1);
    assert_eq!(count(&dir.db(), "schemas"), 3);
    assert_eq!(
        store.get_schema("invoice", None).unwrap().unwrap().schema,
        b
    );
    assert_eq!(
        store
            .get_schema("invoice", Some(1))
            .unwrap()
            .unwrap()
            .schema,
        a
    );
    assert!(store.get_schema("invoice", Some(3)).unwrap().is_none());
    assert!(store.get_schema("nothing", None).unwrap().is_none());
    let list: Vec<(String, i64)> = store
        .list_schemas()
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.version))
        .collect();
    assert_eq!(list, [("invoice".to_owned(), 2), ("receipt".to_owned(), 1)]);
    assert!(store.save_schema("", &a).is_err());
    assert!(store.save_schema("x", &json!([1])).is_err());
}

#[test]
fn a_job_keeps_its_documents_results_and_revisions() {
    let (dir, store) = fresh("jobs");
    let schema = json!({"type": "object", "properties": {"n": {"type": "string"}}});
    let version = store.save_schema("invoice", &schema).unwrap();
    let job = store
        .create_extraction_job(NewExtractionJob {
            schema_name: "invoice".into(),
            schema_version: version,
            prompt: "p".into(),
            models: json!(["m"]),
            paths: vec!["a.txt".into(), "b.txt".into()],
        })
        .unwrap();
    assert!(job.id.starts_with("job_"));
    assert_eq!(job.status, JobStatus::Running);
    assert_eq!(job.schema, schema);
    assert_eq!(job.finished_at, None);
    let docs = store.extraction_documents(&job.id).unwrap();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[1].path, "b.txt");
    assert!(docs.iter().all(|d| d.status == DocumentStatus::Pending));

    let row = store
        .set_document_result(
            &job.id,
            1,
            DocumentResult {
                status: DocumentStatus::Completed,
                values: Some(json!({"n": "7"})),
                error: None,
                error_category: None,
                input_tokens: 10,
                output_tokens: 3,
                call_id: None,
                evidence: Some(json!([{"key": "n", "status": "exact"}])),
                evidence_source: Some("f1".into()),
            },
        )
        .unwrap();
    assert_eq!(row.status, DocumentStatus::Completed);
    assert_eq!(row.evidence, Some(json!([{"key": "n", "status": "exact"}])));
    assert_eq!(row.evidence_source.as_deref(), Some("f1"));
    assert_eq!(
        store.extraction_document(&job.id, 1).unwrap(),
        Some(row.clone())
    );
    assert_eq!(store.extraction_document(&job.id, 9).unwrap(), None);
    assert_eq!(row.values, Some(json!({"n": "7"})));
    assert_eq!((row.input_tokens, row.output_tokens), (10, 3));
    assert!(
        store
            .set_document_result(
                &job.id,
                5,
                DocumentResult {
                    status: DocumentStatus::Failed,
                    values: None,
                    error: Some("x".into()),
                    error_category: None,
                    input_tokens: 0,
                    output_tokens: 0,
                    call_id: None,
                    evidence: None,
                    evidence_source: None,
                },
            )
            .is_err()
    );

    store
        .add_extraction_revision(&job.id, 1, &json!({"n": "8"}), None)
        .unwrap();
    store
        .add_extraction_revision(
            &job.id,
            1,
            &json!({"n": "9"}),
            Some(&json!([{"key": "n", "status": "not_found"}])),
        )
        .unwrap();
    assert!(
        store
            .add_extraction_revision(&job.id, 7, &json!({}), None)
            .is_err()
    );
    let revisions: Vec<_> = store
        .extraction_revisions(&job.id, 1)
        .unwrap()
        .into_iter()
        .map(|r| r.values)
        .collect();
    assert_eq!(revisions, [json!({"n": "8"}), json!({"n": "9"})]);
    let evidence: Vec<_> = store
        .extraction_revisions(&job.id, 1)
        .unwrap()
        .into_iter()
        .map(|r| r.evidence)
        .collect();
    assert_eq!(
        evidence,
        [None, Some(json!([{"key": "n", "status": "not_found"}]))]
    );

    // Checked fields: kept once each, in the order checked; only for a
    // document of the job.
    store.check_field(&job.id, 1, "n").unwrap();
    store.check_field(&job.id, 1, "items[0].amount").unwrap();
    store.check_field(&job.id, 1, "n").unwrap();
    assert_eq!(
        store.checked_fields(&job.id, 1).unwrap(),
        ["n", "items[0].amount"]
    );
    assert!(store.checked_fields(&job.id, 0).unwrap().is_empty());
    assert_eq!(
        store.check_field(&job.id, 7, "n").unwrap_err().to_string(),
        format!("invalid input: no document 7 in job {}", job.id)
    );
    assert_eq!(count(&dir.db(), "extraction_checks"), 2);

    // Evidence found again (the document changed): the row's and its
    // latest revision's.
    store
        .set_evidence(&job.id, 1, &json!([]), "f2", Some(&json!([{"key": "n"}])))
        .unwrap();
    let row = &store.extraction_documents(&job.id).unwrap()[1];
    assert_eq!(
        (row.evidence.clone(), row.evidence_source.as_deref()),
        (Some(json!([])), Some("f2"))
    );
    let evidence: Vec<_> = store
        .extraction_revisions(&job.id, 1)
        .unwrap()
        .into_iter()
        .map(|r| r.evidence)
        .collect();
    assert_eq!(evidence, [None, Some(json!([{"key": "n"}]))]);
    // The model's values stay as they were.
    assert_eq!(
        store.extraction_documents(&job.id).unwrap()[1].values,
        Some(json!({"n": "7"}))
    );
    assert_eq!(count(&dir.db(), "extraction_revisions"), 2);

    assert_eq!(
        store
            .get_extraction_job(&job.id)
            .unwrap()
            .unwrap()
            .ocr_languages,
        None
    );
    store
        .set_job_ocr_languages(&job.id, &["eng".into(), "deu".into()])
        .unwrap();
    assert_eq!(
        store
            .get_extraction_job(&job.id)
            .unwrap()
            .unwrap()
            .ocr_languages,
        Some(vec!["eng".to_owned(), "deu".to_owned()])
    );

    store.set_job_status(&job.id, JobStatus::Completed).unwrap();
    let job = store.get_extraction_job(&job.id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Completed);
    assert!(job.finished_at.is_some());
}

#[test]
fn a_job_needs_a_saved_schema() {
    let (dir, store) = fresh("job-schema");
    let err = store
        .create_extraction_job(NewExtractionJob {
            schema_name: "none".into(),
            schema_version: 1,
            prompt: "p".into(),
            models: json!([]),
            paths: vec!["a.txt".into()],
        })
        .unwrap_err();
    assert!(
        err.to_string().contains("no schema none version 1"),
        "{err}"
    );
    assert_eq!(count(&dir.db(), "extraction_jobs"), 0);
    assert_eq!(count(&dir.db(), "extraction_documents"), 0);
}

#[test]
fn jobs_are_listed_newest_first_up_to_the_limit() {
    let (_dir, store) = fresh("job-list");
    let schema = json!({"type": "object", "properties": {"n": {"type": "string"}}});
    let version = store.save_schema("invoice", &schema).unwrap();
    let ids: Vec<String> = (0..3)
        .map(|i| {
            store
                .create_extraction_job(NewExtractionJob {
                    schema_name: "invoice".into(),
                    schema_version: version,
                    prompt: format!("p{i}"),
                    models: json!(["m"]),
                    paths: vec![format!("{i}.txt")],
                })
                .unwrap()
                .id
        })
        .collect();
    let listed: Vec<String> = store
        .list_extraction_jobs(10)
        .unwrap()
        .into_iter()
        .map(|j| j.id)
        .collect();
    assert_eq!(listed, [ids[2].clone(), ids[1].clone(), ids[0].clone()]);
    let newest: Vec<String> = store
        .list_extraction_jobs(2)
        .unwrap()
        .into_iter()
        .map(|j| j.prompt)
        .collect();
    assert_eq!(newest, ["p2", "p1"]);
}
