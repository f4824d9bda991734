//! A job's documents a page at a time, and their totals by aggregate.

use serde_json::json;
use sift_store::{
    DOCUMENT_PAGE, DocumentResult, DocumentStatus, DocumentTotals, NewExtractionJob, Store,
};

use crate::fresh;

fn job_of(store: &Store, documents: usize) -> String {
    let schema = json!({"type": "object", "properties": {"n": {"type": "string"}}});
    let version = store.save_schema("invoice", &schema).unwrap();
    store
        .create_extraction_job(NewExtractionJob {
            schema_name: "invoice".into(),
            schema_version: version,
            prompt: "p".into(),
            models: json!(["m"]),
            paths: (0..documents).map(|i| format!("doc-{i}.txt")).collect(),
        })
        .unwrap()
        .id
}

fn result(status: DocumentStatus, input_tokens: u64, output_tokens: u64) -> DocumentResult {
    DocumentResult {
        status,
        values: (status == DocumentStatus::Completed).then(|| json!({"n": "1"})),
        error: (status == DocumentStatus::Failed).then(|| "no".into()),
        error_category: None,
        input_tokens,
        output_tokens,
        call_id: None,
        evidence: None,
        evidence_source: None,
    }
}

#[test]
fn pages_give_every_document_once_in_order_across_page_ends() {
    let (_dir, store) = fresh("pages");
    // Two full pages and one document more: the page ends are crossed,
    // and a full last page needs the empty query after it.
    let sizes = [0, 1, DOCUMENT_PAGE as usize, 2 * DOCUMENT_PAGE as usize + 1];
    for size in sizes {
        let job = job_of(&store, size);
        let positions: Vec<i64> = store
            .extraction_document_pages(&job)
            .map(|d| d.unwrap().position)
            .collect();
        assert_eq!(positions, (0..size as i64).collect::<Vec<_>>(), "{size}");
    }
    assert_eq!(store.extraction_document_pages("job_none").count(), 0);
}

#[test]
fn a_document_written_while_its_job_is_paged_is_not_given_twice() {
    let (_dir, store) = fresh("pages-write");
    let job = job_of(&store, DOCUMENT_PAGE as usize + 3);
    let mut seen = 0;
    for document in store.extraction_document_pages(&job) {
        let document = document.unwrap();
        assert_eq!(document.status, DocumentStatus::Pending);
        // Written before the next page is asked for, as a job's run does.
        store
            .set_document_result(
                &job,
                document.position,
                result(DocumentStatus::Completed, 1, 1),
            )
            .unwrap();
        seen += 1;
    }
    assert_eq!(seen, DOCUMENT_PAGE as usize + 3);
}

#[test]
fn totals_count_documents_by_status_with_their_tokens() {
    let (_dir, store) = fresh("totals");
    let job = job_of(&store, 5);
    let other = job_of(&store, 2);
    store
        .set_document_result(&job, 0, result(DocumentStatus::Completed, 100, 7))
        .unwrap();
    store
        .set_document_result(&job, 3, result(DocumentStatus::Completed, 50, 3))
        .unwrap();
    store
        .set_document_result(&job, 4, result(DocumentStatus::Failed, 20, 0))
        .unwrap();
    store
        .set_document_result(&other, 0, result(DocumentStatus::Completed, 9, 9))
        .unwrap();
    let totals = store.extraction_document_totals(&job).unwrap();
    assert_eq!(
        totals,
        DocumentTotals {
            completed: 2,
            failed: 1,
            pending: 2,
            input_tokens: 170,
            output_tokens: 10,
        }
    );
    assert_eq!(totals.documents(), 5);
    assert_eq!(
        store.extraction_document_totals("job_none").unwrap(),
        DocumentTotals::default()
    );
}
