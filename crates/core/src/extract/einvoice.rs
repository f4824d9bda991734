//! A document's e-invoice data, when it has some: the invoice XML a
//! hybrid PDF carries (Factur-X, ZUGFeRD, through PDFium), or a dropped
//! XRechnung or UBL `.xml` itself. Its values are exact, so a job that
//! locates fields takes them first and asks nobody for them. An XML that
//! is broken or not an invoice leaves the page to be read as before, and
//! says so on every field it would have given: a user who sent an
//! e-invoice expects its data, and should know when it was not used.

use std::collections::HashMap;

use serde_json::Value;
use sift_documents::Document;
use sift_einvoice::{XmlSource, einvoice_field_keys, einvoice_fields, einvoice_xml};
use sift_locate::FieldCandidates;
use sift_locate::normalise::alphanumeric_key;

/// What a document's e-invoice gave.
#[derive(Debug, Default)]
pub(super) struct EInvoiceRead {
    /// The values its XML gives the schema's fields, by key.
    pub values: Vec<(String, Value)>,
    /// Notes for the review queue, by field key: the XML that was not
    /// read, or the page that shows another value than the XML.
    pub notes: HashMap<String, Vec<String>>,
    /// The XML is a credit note (its amounts booked negative).
    pub credit_note: bool,
}

/// What `document`'s e-invoice gives `schema`'s fields: nothing for a
/// document without one.
pub(super) fn einvoice_values(document: &Document, schema: &Value) -> EInvoiceRead {
    // A PDF's is read with the pages, by the file's reader process (a
    // job's reading asks for it: `ReadOptions::invoice_xml`).
    let Some((source, bytes)) = einvoice_xml(document) else {
        return EInvoiceRead::default();
    };
    match einvoice_fields(bytes, schema) {
        Ok(read) => EInvoiceRead {
            values: read.values,
            notes: HashMap::new(),
            credit_note: read.credit_note,
        },
        Err(reason) => {
            let note = match source {
                XmlSource::Attachment(name) => format!(
                    "the PDF's e-invoice XML ({name}) was not read: {reason}; \
                     this value was read from the page"
                ),
                XmlSource::File => format!(
                    "this file was not read as an e-invoice: {reason}; \
                     this value was read from its text"
                ),
            };
            let notes = einvoice_field_keys(schema)
                .into_iter()
                .map(|key| (key, vec![note.clone()]))
                .collect();
            EInvoiceRead {
                values: Vec::new(),
                notes,
                credit_note: false,
            }
        }
    }
}

impl EInvoiceRead {
    /// Notes each e-invoice value the printed page contradicts: the
    /// locator is sure of the field on the page (a labelled value well
    /// ahead of any other) and none of its candidates is the XML's value.
    /// The XML's value is kept (it is the invoice's legal data), but a
    /// user should look before trusting either. A field the locator is
    /// unsure of says too little to contradict anything: on the corpus's
    /// e-invoices its best guesses for a tax or a due date were other
    /// numbers of the page (a company number, the issue date).
    pub(super) fn note_disagreements(&mut self, located: &[FieldCandidates]) {
        for (key, value) in &self.values {
            let Some(field) = located.iter().find(|f| f.key == *key && f.sure) else {
                continue;
            };
            let Some(best) = field.best() else {
                continue;
            };
            if field.candidates.iter().any(|c| agree(&c.value, value)) {
                continue;
            }
            self.notes.entry(key.clone()).or_default().push(format!(
                "the e-invoice XML says {} but the page shows {}",
                shown(value),
                shown(best)
            ));
        }
    }
}

/// The same value as read from the XML and from the page: numbers to the
/// cent whatever their sign (a credit note's amounts are booked negative,
/// and its page prints them either way), text with case, spaces and
/// punctuation ignored (`DE 123 456 789` is `DE123456789`).
fn agree(page: &Value, xml: &Value) -> bool {
    let number = |v: &Value| match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    if let (Some(a), Some(b)) = (number(page), number(xml)) {
        return (a.abs() - b.abs()).abs() < 0.005;
    }
    alphanumeric_key(&shown(page)) == alphanumeric_key(&shown(xml))
}

/// A value as a note shows it: text as it is, a whole amount without
/// decimals (`520`, not `520.0`).
fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn located(key: &str, values: &[Value]) -> FieldCandidates {
        super::super::answers::labelled_candidates(key, values, true)
    }

    #[test]
    fn a_page_that_shows_another_value_than_the_xml_is_noted() {
        let mut read = EInvoiceRead {
            values: vec![
                ("total".into(), json!(529.87)),
                ("invoice_number".into(), json!("471102")),
                ("seller_tax_id".into(), json!("DE123456789")),
                ("currency".into(), json!("EUR")),
                ("tax".into(), json!(56.87)),
                // A credit note's net, booked negative, printed positive.
                ("net".into(), json!(-473.0)),
            ],
            notes: HashMap::new(),
            credit_note: true,
        };
        read.note_disagreements(&[
            located("total", &[json!(520.0), json!(56.87)]),
            // Among the page's candidates, though not the best: agreed.
            located("invoice_number", &[json!("2024-11"), json!("471102")]),
            located("seller_tax_id", &[json!("DE 123 456 789")]),
            // Nothing on the page: nothing to contradict.
            located("currency", &[]),
            // A guess the locator is unsure of contradicts nothing.
            FieldCandidates {
                sure: false,
                ..located("tax", &[json!(275007)])
            },
            located("net", &[json!(473.0)]),
        ]);
        assert_eq!(
            read.notes,
            HashMap::from([(
                "total".to_owned(),
                vec!["the e-invoice XML says 529.87 but the page shows 520".to_owned()]
            )])
        );
    }
}
