//! Evidence on real corpus files: where each value of an answer is found,
//! read as an extraction reads them (PDFium's character boxes on text
//! pages, real Tesseract on scans and photos).

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_core::evidence::{EvidenceStatus, FieldEvidence, PageBox, locate_values};
use sift_documents::{OcrMode, OcrOptions, ReadOptions, read_documents};

/// A corpus file (read in place, never copied into the repository).
fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name)
}

fn locate(file: &str, schema: &Value, values: &Value) -> Vec<FieldEvidence> {
    let options = ReadOptions {
        word_boxes: true,
        model_takes_images: false,
        ocr: OcrOptions {
            mode: OcrMode::Always,
            languages: vec!["eng".into(), "deu".into()],
            ..OcrOptions::default()
        },
        ..ReadOptions::default()
    };
    let documents = read_documents(&[corpus(file)], &options).unwrap();
    locate_values(&documents.files[0], schema, values, false)
}

fn get<'a>(evidence: &'a [FieldEvidence], key: &str) -> &'a FieldEvidence {
    evidence.iter().find(|e| e.key == key).unwrap()
}

fn invoice_schema() -> Value {
    json!({"type": "object", "properties": {
        "invoice_number": {"type": "string"},
        "date": {"type": "string", "description": "The invoice date"},
        "total": {"type": "number", "description": "The total amount due"},
    }})
}

fn summary(evidence: &FieldEvidence) -> (EvidenceStatus, Vec<(u32, &str, bool)>) {
    let places = evidence
        .places
        .iter()
        .map(|p| (p.page, p.quote.as_str(), p.labelled))
        .collect();
    (evidence.status, places)
}

/// `i2d_AmazonWebServices.pdf`, a text PDF: the total on page 1 with
/// PDFium's box around `$4.11` (checked by eye against the corpus's
/// rendering of the same invoice, `i2d_AmazonWebServices.png`), the
/// four places of `4.11` ranked by their labels, and an invoice number
/// the local model invented, not found.
#[test]
fn a_text_pdfs_total_is_found_on_its_page_with_its_box() {
    let values = json!({"invoice_number": "1234567890", "date": "2014-08-03", "total": 4.11});
    let evidence = locate("i2d_AmazonWebServices.pdf", &invoice_schema(), &values);
    let total = get(&evidence, "total");
    assert_eq!(
        summary(total),
        (
            EvidenceStatus::Exact,
            vec![
                (1, "TOTAL AMOUNT DUE ON August 3 , 2014 $4.11", true),
                (1, "Total for this invoice $4.11", true),
                (1, "AWS Service Charges $4.11", false),
                (1, "Charges $4.11", false),
            ]
        )
    );
    assert_eq!(
        total.places[0].bbox,
        Some(PageBox {
            x: 0.8921,
            y: 0.1827,
            width: 0.0409,
            height: 0.0126
        })
    );
    let number = get(&evidence, "invoice_number");
    assert_eq!(summary(number), (EvidenceStatus::NotFound, vec![]));
    let date = get(&evidence, "date");
    assert_eq!(
        summary(date),
        (
            EvidenceStatus::Normalised,
            vec![
                (1, "Invoice Date: August 3 , 2014", true),
                // Below the "Invoice Date" line: labelled from above.
                (1, "TOTAL AMOUNT DUE ON August 3 , 2014 $4.11", true),
            ]
        )
    );
}

/// `mustang_EN16931_Einfach.pdf`, a German invoice over two pages: its
/// date `15.11.2024` and its total `529,87` (page 2), and the fields of
/// its two line items, each found on its item's row.
#[test]
fn german_dates_amounts_and_line_items_are_found() {
    let schema = json!({"type": "object", "properties": {
        "date": {"type": "string"},
        "total": {"type": "number"},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "description": {"type": "string"},
            "unit_price": {"type": "number"},
            "quantity": {"type": "integer"},
            "amount": {"type": "number"}
        }}}
    }});
    let values = json!({
        "date": "2024-11-15",
        "total": 529.87,
        "items": [
            {"description": "Trennblätter A4", "unit_price": 9.9, "quantity": 20, "amount": 198.0},
            {"description": "Joghurt Banane", "unit_price": 5.5, "quantity": 50, "amount": 275}
        ]
    });
    let evidence = locate("mustang_EN16931_Einfach.pdf", &schema, &values);
    let first = |key: &str| {
        let e = get(&evidence, key);
        (
            e.status,
            e.places.first().map(|p| (p.page, p.quote.clone())),
        )
    };
    let row1 = "Trennblätter A4 9,9000 20 Stk 19% 198,00".to_owned();
    let row2 = "Joghurt Banane 5,5000 50 Stk 7% 275,00".to_owned();
    use EvidenceStatus::{Exact, Normalised};
    assert_eq!(
        first("date"),
        (
            Normalised,
            Some((1, "Handelsrechnung (380) Nr. 471102 vom 15.11.2024".into()))
        )
    );
    assert_eq!(
        first("total"),
        (Normalised, Some((2, "Bruttosumme 529,87".into())))
    );
    assert_eq!(
        first("items[0].description"),
        (Exact, Some((1, row1.clone())))
    );
    assert_eq!(
        first("items[0].unit_price"),
        (Normalised, Some((1, row1.clone())))
    );
    assert_eq!(first("items[0].quantity"), (Exact, Some((1, row1.clone()))));
    assert_eq!(first("items[0].amount"), (Normalised, Some((1, row1))));
    assert_eq!(
        first("items[1].description"),
        (Exact, Some((1, row2.clone())))
    );
    assert_eq!(first("items[1].quantity"), (Exact, Some((1, row2.clone()))));
    assert_eq!(first("items[1].amount"), (Normalised, Some((1, row2))));
}

/// `sroie_000.jpg`, a photographed receipt: its date found through
/// Tesseract's words, with their box on the photo.
#[test]
fn a_scans_value_is_found_through_its_ocr_words() {
    let values = json!({"date": "2018-12-25", "total": 9.0});
    let evidence = locate("sroie_000.jpg", &invoice_schema(), &values);
    let date = get(&evidence, "date");
    assert_eq!(
        summary(date),
        (
            EvidenceStatus::Normalised,
            // The first reading's line, then the second reading's.
            vec![
                (1, "Date 25/12/2018 8:13:39 PM", true),
                (1, "Date 25/12/2018 B: 13:39 PM", true)
            ]
        )
    );
    assert_eq!(
        date.places[0].bbox,
        Some(PageBox {
            x: 0.358,
            y: 0.3683,
            width: 0.1825,
            height: 0.0154
        })
    );
    // OCR read the total as `9.00)` and `9.00` on the item's line (and
    // the printed total as `91.00`); the second reading's item line too.
    let total = get(&evidence, "total");
    assert_eq!(
        summary(total),
        (
            EvidenceStatus::Normalised,
            vec![
                (1, "1 PC * 9.00) 6,00 9.00", false),
                (1, "1 PC * 9.00) 6,00 9.00", false),
                (1, "1 PC # 9.000 0,00 9.00", false),
                (1, "1 PC # 9.000 0,00 9.00", false)
            ]
        )
    );
}
