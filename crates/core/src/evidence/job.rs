//! Evidence for an extraction's documents: located when a document's
//! call completes (from the documents the model read) and again when the
//! user revises a value (from the file, read as the job reads it), and
//! the words of a page for the user to click.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;
use sift_documents::{Document, OcrMode, ReadOptions, read_documents, read_fingerprint};
use sift_locate::pages::SearchPage;
use sift_store::{DocumentStatus, ExtractionJob, Store};

use super::{
    Confidence, EvidenceStatus, FieldEvidence, PageWords, ValueOrigin, locate_values,
    locate_values_in_pages, needed_correction, page_words_of, search_pages,
};
use crate::error::CoreError;
use crate::evidence::preview::is_job_document;
use crate::workspace::Workspace;

/// How a document is read to find values in it: with its words' boxes,
/// OCR on (as an extraction reads it), and no image rendered for a model.
pub(crate) fn locating_read_options(base: &ReadOptions) -> ReadOptions {
    let mut options = base.clone();
    options.word_boxes = true;
    options.ocr.mode = OcrMode::Always;
    options.model_takes_images = false;
    options
}

/// The problem of an e-invoice value the page does not show.
pub(crate) const EINVOICE_NOT_ON_PAGE: &str =
    "the page does not show this value of the e-invoice XML";

/// Where a job's values came from, for their evidence: each field's
/// origin, the notes the review queue shows on it, and whether the
/// document's e-invoice is a credit note (told by the one reading of its
/// XML, see `sift_einvoice::EinvoiceFields`).
pub(crate) struct ValueSources<'a> {
    pub origins: &'a HashMap<String, ValueOrigin>,
    pub notes: &'a HashMap<String, Vec<String>>,
    pub credit_note: bool,
}

/// The evidence of `values` in a job's one file, `(document, pages)`:
/// the file as read and its pages as [`super::search_pages`] built them
/// (for the locator, when it ran), searched as they are. Returns it as
/// stored with a result, and the fingerprint of what it was found in
/// (the file as read with `options`); `None` when the file no longer
/// reads. Each field is marked with where its value came from; each
/// with notes gets them among its problems (and so low confidence).
pub(crate) fn evidence_value(
    (document, pages): (&Document, &[SearchPage]),
    options: &ReadOptions,
    schema: &Value,
    values: &Value,
    corrected: bool,
    sources: &ValueSources<'_>,
) -> Option<(Value, String)> {
    let bytes = std::fs::read(&document.path).ok()?;
    let mut found = locate_values_in_pages(pages, schema, values, &HashMap::new(), corrected);
    apply_sources(&mut found, (pages, schema, values, corrected), sources);
    let evidence = serde_json::to_value(found).ok()?;
    Some((evidence, read_fingerprint(&bytes, options)))
}

/// What the values' sources add to the evidence `found` of `values` in
/// `pages`: a credit note's amounts found by their magnitude, then each
/// field marked with where its value came from and given its notes (and
/// so low confidence); an e-invoice value the page does not show says so.
fn apply_sources(
    found: &mut [FieldEvidence],
    (pages, schema, values, corrected): (&[SearchPage], &Value, &Value, bool),
    sources: &ValueSources<'_>,
) {
    let (origins, notes) = (sources.origins, sources.notes);
    if sources.credit_note {
        find_credit_note_amounts(pages, schema, values, corrected, origins, found);
    }
    for field in found {
        field.origin = origins.get(&field.key).copied();
        if let Some(notes) = notes.get(&field.key) {
            field.problems.extend(notes.iter().cloned());
            field.confidence = Some(Confidence::Low);
        } else if field.origin == Some(ValueOrigin::EInvoice)
            && field.status == EvidenceStatus::NotFound
        {
            // The XML and the page disagree, or the page is a picture
            // OCR misread: either way a user should compare them.
            field.problems.push(EINVOICE_NOT_ON_PAGE.to_owned());
        }
    }
}

/// The evidence of a job's values found again in its file, read anew
/// (the file or its reading changed): found as when the document was
/// answered, each field keeping where its value came from and the notes
/// it had (an e-invoice's, a failed model's), as `before` (the evidence
/// stored then) has them. A note is a problem of `before` the values'
/// own checks do not give again; whether the page shows an e-invoice's
/// value is asked again. Whether the document is a credit note is read
/// from the file as it is now.
fn evidence_found_again(
    (document, pages): (&Document, &[SearchPage]),
    schema: &Value,
    values: &Value,
    corrected: bool,
    before: Option<Value>,
) -> Vec<FieldEvidence> {
    let before: Vec<FieldEvidence> = before
        .and_then(|b| serde_json::from_value(b).ok())
        .unwrap_or_default();
    let mut found = locate_values_in_pages(pages, schema, values, &HashMap::new(), corrected);
    let origins: HashMap<String, ValueOrigin> = before
        .iter()
        .filter_map(|field| Some((field.key.clone(), field.origin?)))
        .collect();
    let notes: HashMap<String, Vec<String>> = before
        .into_iter()
        .filter_map(|field| {
            let again = found.iter().find(|f| f.key == field.key);
            let kept: Vec<String> = field
                .problems
                .into_iter()
                .filter(|problem| {
                    problem != EINVOICE_NOT_ON_PAGE
                        && !again.is_some_and(|f| f.problems.contains(problem))
                })
                .collect();
            (!kept.is_empty()).then_some((field.key, kept))
        })
        .collect();
    let sources = ValueSources {
        origins: &origins,
        notes: &notes,
        credit_note: sift_einvoice::einvoice_xml(document)
            .and_then(|(_, xml)| sift_einvoice::einvoice_fields(xml, schema).ok())
            .is_some_and(|read| read.credit_note),
    };
    apply_sources(&mut found, (pages, schema, values, corrected), &sources);
    found
}

/// A credit note's amounts come from its e-invoice XML negative, as they
/// are booked, while its page mostly prints them without the sign: each
/// such amount not found as it is is looked for as its magnitude, and
/// where that is on the page it is found there, `normalised` (the page
/// says the figure, the document type its sign). Only a credit note's
/// e-invoice values: a negative amount a model or the locator gave, or an
/// invoice's XML states, must be on the page as it is. The pages are the
/// ones already searched (built once a document).
fn find_credit_note_amounts(
    pages: &[SearchPage],
    schema: &Value,
    values: &Value,
    corrected: bool,
    origins: &HashMap<String, ValueOrigin>,
    found: &mut [FieldEvidence],
) {
    let mut unsigned = values.clone();
    let mut keys = Vec::new();
    for field in found.iter() {
        if origins.get(&field.key) != Some(&ValueOrigin::EInvoice)
            || field.status != EvidenceStatus::NotFound
        {
            continue;
        }
        let value = field.key.split('.').try_fold(values, |v, name| v.get(name));
        let Some(amount) = value.and_then(Value::as_f64).filter(|a| *a < 0.0) else {
            continue;
        };
        if let (Some(object), Some(magnitude)) = (
            unsigned.as_object_mut(),
            serde_json::Number::from_f64(-amount),
        ) {
            sift_locate::set_path(object, &field.key, Value::Number(magnitude));
            keys.push(field.key.clone());
        }
    }
    if keys.is_empty() {
        return;
    }
    for again in locate_values_in_pages(pages, schema, &unsigned, &HashMap::new(), corrected) {
        if again.status == EvidenceStatus::NotFound || !keys.contains(&again.key) {
            continue;
        }
        if let Some(field) = found.iter_mut().find(|f| f.key == again.key) {
            *field = FieldEvidence {
                status: EvidenceStatus::Normalised,
                ..again
            };
        }
    }
}

/// Finds again the values of a job's completed documents whose file (or
/// the OCR settings it is read with) changed since their evidence was
/// found: the model's values and the latest revision's. A file that no
/// longer reads keeps what was found. Returns how many were found again.
pub(crate) async fn refresh_evidence(
    store: &Store,
    job: &ExtractionJob,
    read_options: &ReadOptions,
) -> Result<usize, CoreError> {
    let mut refreshed = 0;
    // A page of documents at a time: a large job is not held whole.
    for document in store.extraction_document_pages(&job.id) {
        let document = document?;
        let Some(values) = document.values.clone() else {
            continue;
        };
        if document.status != DocumentStatus::Completed {
            continue;
        }
        let revised = store
            .extraction_revisions(&job.id, document.position)?
            .pop();
        // Whether the model's first answer had to be corrected, as when
        // its evidence was first found.
        let corrected = match &document.call_id {
            Some(id) => store
                .get_call(id)?
                .is_some_and(|call| needed_correction(call.transcript.as_ref())),
            None => false,
        };
        let mut options = locating_read_options(read_options);
        // Its e-invoice XML too: whether it is a credit note says how its
        // amounts are found (a job run with nothing left to answer reads
        // with the caller's options, which may not ask for it).
        options.invoice_xml = true;
        let (path, schema, stored) = (
            PathBuf::from(&document.path),
            job.schema.clone(),
            document.evidence_source.clone(),
        );
        let before = document.evidence.clone();
        let found = tokio::task::spawn_blocking(move || {
            let bytes = std::fs::read(&path).ok()?;
            let fingerprint = read_fingerprint(&bytes, &options);
            if stored.as_deref() == Some(fingerprint.as_str()) {
                return None;
            }
            let documents = read_documents(&[path], &options).ok()?;
            let file = documents.files.first()?;
            let pages = search_pages(file);
            let model = evidence_found_again((file, &pages), &schema, &values, corrected, before);
            let revision = revised.map(|r| locate_values(file, &schema, &r.values, false));
            Some((model, revision, fingerprint))
        })
        .await
        .map_err(|e| CoreError::Internal(format!("finding the values stopped: {e}")))?;
        let Some((model, revision, fingerprint)) = found else {
            continue;
        };
        let as_json = |e: &[FieldEvidence]| {
            serde_json::to_value(e)
                .map_err(|e| CoreError::Internal(format!("evidence cannot be written: {e}")))
        };
        let revision = revision.as_deref().map(as_json).transpose()?;
        store.set_evidence(
            &job.id,
            document.position,
            &as_json(&model)?,
            &fingerprint,
            revision.as_ref(),
        )?;
        refreshed += 1;
    }
    Ok(refreshed)
}

/// Reads `path` (off the async threads: PDFs and OCR are CPU work) and
/// finds `values` in it.
pub(crate) async fn locate_in_file(
    read_options: &ReadOptions,
    path: &str,
    schema: &Value,
    values: &Value,
) -> Result<Vec<FieldEvidence>, CoreError> {
    let options = locating_read_options(read_options);
    let (path, schema, values) = (PathBuf::from(path), schema.clone(), values.clone());
    tokio::task::spawn_blocking(move || {
        let documents = read_documents(&[path], &options)?;
        Ok(documents
            .files
            .first()
            .map(|d| locate_values(d, &schema, &values, false))
            .unwrap_or_default())
    })
    .await
    .map_err(|e| CoreError::Internal(format!("finding the values stopped: {e}")))?
}

/// The words with boxes on page `page` (0-based) of a document of an
/// extraction job, for the user to click one; any other path is refused,
/// unread.
pub async fn page_words(ws: &Workspace, path: &str, page: u32) -> Result<PageWords, CoreError> {
    if !is_job_document(&ws.store()?, path)? {
        return Err(CoreError::NotFound(format!(
            "{path} is not a document of any extraction job"
        )));
    }
    let options = locating_read_options(&ws.read_options());
    let shown = path.to_owned();
    let path = PathBuf::from(path);
    tokio::task::spawn_blocking(move || {
        let documents = read_documents(&[path], &options)?;
        documents
            .files
            .first()
            .and_then(|d| page_words_of(d, page))
            .ok_or_else(|| CoreError::NotFound(format!("{shown} has no page {}", page + 1)))
    })
    .await
    .map_err(|e| CoreError::Internal(format!("reading the page stopped: {e}")))?
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::json;
    use sift_documents::{Content, Document, Kind, ReadOptions};

    use super::{ValueSources, evidence_value};
    use crate::evidence::{EvidenceStatus, PAGES_BUILT, ValueOrigin, search_pages};

    /// A credit note's total, booked negative from its XML and printed
    /// without the sign, is found by its magnitude in the pages already
    /// built for the document: once a document, not again.
    #[test]
    fn a_credit_notes_amounts_are_found_in_the_pages_already_built() {
        let dir =
            std::env::temp_dir().join(format!("sift-core-credit-note-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("credit-note.xml");
        let xml = "<CreditNote>\n<LegalMonetaryTotal>\n<TaxInclusiveAmount currencyID=\"EUR\"> 5.00 </TaxInclusiveAmount>\n</LegalMonetaryTotal>\n</CreditNote>\n";
        std::fs::write(&path, xml).unwrap();
        let document = Document {
            path,
            name: "credit-note.xml".into(),
            kind: Kind::Text,
            content: Content::Text(xml.into()),
            ocr: None,
            invoice_xml: None,
        };
        let schema = json!({"type": "object", "properties": {"total": {"type": "number"}}});
        let values = json!({"total": -5.0});
        let origins = HashMap::from([("total".to_owned(), ValueOrigin::EInvoice)]);
        PAGES_BUILT.with(|built| built.set(0));
        let pages = search_pages(&document);
        // The job's one reading of the XML tells it is a credit note.
        let read = sift_einvoice::einvoice_fields(xml.as_bytes(), &schema).unwrap();
        assert_eq!(read.values, [("total".to_owned(), json!(-5.0))]);
        let notes = HashMap::new();
        let evidence_of = |credit_note| {
            let sources = ValueSources {
                origins: &origins,
                notes: &notes,
                credit_note,
            };
            let (evidence, _) = evidence_value(
                (&document, &pages),
                &ReadOptions::default(),
                &schema,
                &values,
                false,
                &sources,
            )
            .unwrap();
            evidence
        };
        let evidence = evidence_of(read.credit_note);
        assert_eq!(PAGES_BUILT.with(std::cell::Cell::get), 1);
        assert_eq!(evidence[0]["key"], "total");
        assert_eq!(evidence[0]["status"], json!(EvidenceStatus::Normalised));
        assert_eq!(
            evidence[0]["places"][0]["quote"],
            "<TaxInclusiveAmount currencyID=\"EUR\"> 5.00 </TaxInclusiveAmount>"
        );
        // An invoice's negative amount must be on the page as it is.
        let evidence = evidence_of(false);
        assert_eq!(evidence[0]["status"], json!(EvidenceStatus::NotFound));
        std::fs::remove_dir_all(&dir).ok();
    }
}
