use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Value, json};
use sift_documents::{Content, Document, Kind, Page, PageWord, WordLines};

use super::*;

/// A plain-text document of `text`.
pub(crate) fn text_document(text: &str) -> Document {
    Document {
        path: PathBuf::from("invoice.txt"),
        name: "invoice.txt".into(),
        kind: Kind::Text,
        content: Content::Text(text.into()),
        ocr: None,
        invoice_xml: None,
    }
}

/// A one-page PDF whose words sit on a grid: word `w` of line `l` at
/// x = 10 + 50·w, y = 20 + 10·l, 40 × 8 points, on a 500 × 800 page.
fn pdf_document(lines: &[&str]) -> Document {
    let words = lines
        .iter()
        .enumerate()
        .map(|(l, line)| {
            line.split(' ')
                .enumerate()
                .map(|(w, text)| PageWord {
                    text: text.into(),
                    left: 10.0 + 50.0 * w as f32,
                    top: 20.0 + 10.0 * l as f32,
                    width: 40.0,
                    height: 8.0,
                    confidence: 100.0,
                })
                .collect()
        })
        .collect();
    one_page_pdf(lines.join("\n"), words)
}

/// A one-page PDF of `text` whose words are `lines`, on a 500 × 800 page.
pub(crate) fn one_page_pdf(text: String, lines: Vec<Vec<PageWord>>) -> Document {
    Document {
        path: PathBuf::from("invoice.pdf"),
        name: "invoice.pdf".into(),
        kind: Kind::Pdf,
        content: Content::Pages(vec![Page {
            number: 1,
            text,
            image: None,
            image_omitted: false,
            ocr: None,
            text_words: Some(WordLines {
                width: 500.0,
                height: 800.0,
                lines,
            }),
        }]),
        ocr: None,
        invoice_xml: None,
    }
}

fn schema(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

fn one(evidence: &[FieldEvidence], key: &str) -> FieldEvidence {
    evidence
        .iter()
        .find(|e| e.key == key)
        .unwrap_or_else(|| panic!("no evidence for {key} in {evidence:?}"))
        .clone()
}

#[test]
fn an_exact_value_has_its_page_quote_and_box() {
    let doc = pdf_document(&["Invoice INV-7 dated", "Total due: 12.00"]);
    let s = schema(json!({"total": {"type": "number"}, "number": {"type": "string"}}));
    let evidence = locate_values(&doc, &s, &json!({"number": "INV-7", "total": 12.0}), false);
    assert_eq!(
        one(&evidence, "number"),
        FieldEvidence {
            key: "number".into(),
            status: EvidenceStatus::Exact,
            confidence: Some(Confidence::High),
            places: vec![EvidencePlace {
                page: 1,
                quote: "Invoice INV-7 dated".into(),
                bbox: Some(PageBox {
                    x: 0.12,
                    y: 0.025,
                    width: 0.08,
                    height: 0.01,
                }),
                labelled: false,
            }],
            origin: None,
            problems: Vec::new(),
        }
    );
    // The JSON number 12.0 is written `12.0`: the page's `12.00` is the
    // same amount, in another form.
    let total = one(&evidence, "total");
    assert_eq!(total.status, EvidenceStatus::Normalised);
    assert_eq!(total.confidence, Some(Confidence::Medium));
    assert_eq!(total.places[0].quote, "Total due: 12.00");
    assert!(total.places[0].labelled);
    assert_eq!(
        total.places[0].bbox,
        Some(PageBox {
            x: 0.22,
            y: 0.0375,
            width: 0.08,
            height: 0.01,
        })
    );
}

#[test]
fn german_dates_and_amounts_are_found_in_normalised_form() {
    let doc = text_document("Rechnungsdatum: 28.11.2022\nGesamtbetrag: 1.234,56 EUR");
    let s = schema(json!({"date": {"type": "string"}, "total": {"type": "number"}}));
    let evidence = locate_values(
        &doc,
        &s,
        &json!({"date": "2022-11-28", "total": 1234.56}),
        false,
    );
    let date = one(&evidence, "date");
    assert_eq!(date.status, EvidenceStatus::Normalised);
    assert_eq!(date.places[0].quote, "Rechnungsdatum: 28.11.2022");
    assert_eq!(date.places[0].bbox, None);
    let total = one(&evidence, "total");
    assert_eq!(total.status, EvidenceStatus::Normalised);
    assert_eq!(total.places[0].quote, "Gesamtbetrag: 1.234,56 EUR");
}

#[test]
fn month_names_and_month_first_dates_are_dates() {
    let doc = text_document("Issued 3 August 2014\nDue 11/03/2014");
    let s = schema(json!({"issued": {}, "due": {}}));
    let evidence = locate_values(
        &doc,
        &s,
        &json!({"issued": "2014-08-03", "due": "2014-11-03"}),
        false,
    );
    assert_eq!(
        one(&evidence, "issued").places[0].quote,
        "Issued 3 August 2014"
    );
    // Day first reads 11 March; month first, 3 November: both are kept.
    assert_eq!(one(&evidence, "due").places[0].quote, "Due 11/03/2014");
}

#[test]
fn an_invented_value_is_not_found() {
    let doc = text_document("Invoice number: 42183017\nTotal: $4.11");
    let s = schema(json!({"invoice_number": {"type": "string"}}));
    let evidence = locate_values(&doc, &s, &json!({"invoice_number": "1234567890"}), false);
    assert_eq!(
        evidence,
        vec![FieldEvidence {
            key: "invoice_number".into(),
            status: EvidenceStatus::NotFound,
            confidence: Some(Confidence::Low),
            places: vec![],
            origin: None,
            problems: Vec::new(),
        }]
    );
    assert_eq!(not_found_count(&evidence), 1);
}

#[test]
fn a_repeated_value_is_ranked_by_its_label() {
    let doc = text_document("Subtotal 12.00\nShipping 12.00\nTotal 12.00\nPaid 12.00");
    let s = schema(json!({"total": {"type": "number"}}));
    let evidence = locate_values(&doc, &s, &json!({"total": 12}), false);
    let total = one(&evidence, "total");
    let quotes: Vec<&str> = total.places.iter().map(|p| p.quote.as_str()).collect();
    // The label on its line first; then below a "Total" line (a label
    // above its value, as in a column); then the others in order.
    assert_eq!(
        quotes,
        [
            "Total 12.00",
            "Paid 12.00",
            "Subtotal 12.00",
            "Shipping 12.00"
        ]
    );
    let labelled: Vec<bool> = total.places.iter().map(|p| p.labelled).collect();
    assert_eq!(labelled, [true, true, false, false]);
}

#[test]
fn a_label_from_the_description_or_the_line_above_counts() {
    let doc = text_document("Reference 889\nAmount payable\n889\n");
    let s = schema(json!({"due": {"type": "number", "description": "The amount payable"}}));
    let due = one(&locate_values(&doc, &s, &json!({"due": 889}), false), "due");
    assert_eq!(due.status, EvidenceStatus::Exact);
    assert_eq!(due.places[0].quote, "889");
    assert_eq!(due.places[1].quote, "Reference 889");
}

#[test]
fn line_items_get_evidence_per_item_and_field() {
    let doc = pdf_document(&["Widget 2 5.00", "Gadget 1 7.50"]);
    let s = schema(
        json!({"items": {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "price": {"type": "number"}}}}}),
    );
    let values =
        json!({"items": [{"name": "Widget", "price": 5}, {"name": "Gadget", "price": 7.5}]});
    let evidence = locate_values(&doc, &s, &values, false);
    let keys: Vec<(&str, EvidenceStatus, u32)> = evidence
        .iter()
        .map(|e| (e.key.as_str(), e.status, e.places.len() as u32))
        .collect();
    assert_eq!(
        keys,
        [
            ("items[0].name", EvidenceStatus::Exact, 1),
            ("items[0].price", EvidenceStatus::Normalised, 1),
            ("items[1].name", EvidenceStatus::Exact, 1),
            ("items[1].price", EvidenceStatus::Normalised, 1),
        ]
    );
    assert_eq!(
        one(&evidence, "items[1].price").places[0].quote,
        "Gadget 1 7.50"
    );
}

#[test]
fn numbers_never_match_inside_other_numbers_or_by_likeness() {
    let doc = text_document("VAT 6%\nQty 123 at 12.50\n");
    let s = schema(json!({"rate": {"type": "string"}, "qty": {"type": "integer"}}));
    let evidence = locate_values(&doc, &s, &json!({"rate": "5%", "qty": 12}), false);
    assert_eq!(one(&evidence, "rate").status, EvidenceStatus::NotFound);
    assert_eq!(one(&evidence, "qty").status, EvidenceStatus::NotFound);
    let evidence = locate_values(&doc, &s, &json!({"rate": "6%", "qty": 123}), false);
    assert_eq!(one(&evidence, "rate").status, EvidenceStatus::Exact);
    assert_eq!(one(&evidence, "qty").status, EvidenceStatus::Exact);
}

#[test]
fn thousands_separators_and_currency_signs_are_normalised() {
    let doc = text_document("Total: $1,234.50\nNet EUR 1 000,00\nSumme 2.000");
    let s =
        schema(json!({"a": {"type": "number"}, "b": {"type": "number"}, "c": {"type": "number"}}));
    let evidence = locate_values(&doc, &s, &json!({"a": 1234.5, "b": 1000, "c": 2000}), false);
    assert_eq!(one(&evidence, "a").places[0].quote, "Total: $1,234.50");
    assert_eq!(one(&evidence, "b").places[0].quote, "Net EUR 1 000,00");
    assert_eq!(one(&evidence, "c").places[0].quote, "Summe 2.000");
}

#[test]
fn identifiers_ignore_case_and_spacing_even_across_lines() {
    let doc = text_document("Invoice inv 001\nShip to: 12 Long\nRoad, Springfield");
    let s = schema(json!({"number": {"type": "string"}, "address": {"type": "string"}}));
    let values = json!({"number": "INV001", "address": "12 long road, springfield"});
    let evidence = locate_values(&doc, &s, &values, false);
    let number = one(&evidence, "number");
    assert_eq!(number.status, EvidenceStatus::Normalised);
    assert_eq!(number.places[0].quote, "Invoice inv 001");
    let address = one(&evidence, "address");
    assert_eq!(address.status, EvidenceStatus::Normalised);
    assert_eq!(
        address.places[0].quote,
        "Ship to: 12 Long Road, Springfield"
    );
    // Not inside a word: `AB` is not in `CAB`.
    let s = schema(json!({"code": {"type": "string"}}));
    let code = locate_values(&text_document("CAB 1"), &s, &json!({"code": "ab"}), false);
    assert_eq!(code[0].status, EvidenceStatus::NotFound);
}

#[test]
fn booleans_enums_nulls_and_empty_strings_are_not_applicable() {
    let doc = text_document("Paid in EUR");
    let s = schema(json!({
        "paid": {"type": "boolean"},
        "currency": {"type": "string", "enum": ["EUR", "USD"]},
        "po": {"type": ["string", "null"]},
        "note": {"type": "string"}
    }));
    let values = json!({"paid": true, "currency": "EUR", "po": null, "note": " "});
    let evidence = locate_values(&doc, &s, &values, false);
    assert!(
        evidence
            .iter()
            .all(|e| e.status == EvidenceStatus::NotApplicable && e.confidence.is_none()),
        "{evidence:?}"
    );
    assert_eq!(evidence.len(), 4);
}

#[test]
fn a_corrected_answer_lowers_each_confidence_a_step() {
    let doc = text_document("Total 5.00\nRef X1");
    let s = schema(json!({"total": {}, "ref": {}, "other": {}}));
    let values = json!({"total": 5, "ref": "X1", "other": "nope"});
    let confidences: Vec<Option<Confidence>> = locate_values(&doc, &s, &values, true)
        .into_iter()
        .map(|e| e.confidence)
        .collect();
    assert_eq!(
        confidences,
        [
            Some(Confidence::Low),
            Some(Confidence::Medium),
            Some(Confidence::Low)
        ]
    );
}

#[test]
fn a_correction_is_a_later_user_message_in_the_transcript() {
    let first =
        json!([{"role": "system"}, {"role": "user"}, {"role": "assistant"}, {"role": "tool"}]);
    assert!(!needed_correction(Some(&first)));
    let corrected = json!([{"role": "user"}, {"role": "assistant"}, {"role": "user"}]);
    assert!(needed_correction(Some(&corrected)));
    assert!(!needed_correction(None));
}

#[test]
fn the_words_of_a_page_are_given_with_their_boxes() {
    let doc = pdf_document(&["Total 5.00"]);
    let words = page_words_of(&doc, 0).unwrap();
    assert_eq!(words.page_count, 1);
    assert_eq!(
        words
            .words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>(),
        ["Total", "5.00"]
    );
    assert_eq!(words.words[1].bbox.x, 0.12);
    assert!(page_words_of(&doc, 1).is_none());
    // A text file's words have no boxes.
    assert!(
        page_words_of(&text_document("a b"), 0)
            .unwrap()
            .words
            .is_empty()
    );
}

#[test]
fn a_currency_code_is_found_as_its_sign_and_short_values_without_a_label_rank_lower() {
    let doc = text_document("Total $4.11\nQty 1\nItems 2 shipped");
    let s =
        schema(json!({"currency": {}, "qty": {"type": "integer"}, "count": {"type": "integer"}}));
    let evidence = locate_values(
        &doc,
        &s,
        &json!({"currency": "USD", "qty": 1, "count": 2}),
        false,
    );
    let currency = one(&evidence, "currency");
    assert_eq!(currency.status, EvidenceStatus::Normalised);
    assert_eq!(currency.places[0].quote, "Total $4.11");
    // `1` beside its label "Qty": as sure as any exact match.
    assert_eq!(one(&evidence, "qty").confidence, Some(Confidence::High));
    // `2` with no label naming "count": found, but it says little.
    let count = one(&evidence, "count");
    assert_eq!(
        (count.status, count.confidence),
        (EvidenceStatus::Exact, Some(Confidence::Medium))
    );
    // Another dollar needs its prefix.
    let cad = locate_values(&doc, &s, &json!({"currency": "CAD"}), false);
    assert_eq!(cad[0].status, EvidenceStatus::NotFound);
    let cad = locate_values(
        &text_document("Total C$4.11"),
        &s,
        &json!({"currency": "CAD"}),
        false,
    );
    assert_eq!(cad[0].status, EvidenceStatus::Normalised);
    let usd = locate_values(
        &text_document("Total C$4.11"),
        &s,
        &json!({"currency": "USD"}),
        false,
    );
    assert_eq!(usd[0].status, EvidenceStatus::NotFound);
}

#[test]
fn a_currency_the_page_does_not_print_is_found_where_the_page_names_its_country() {
    let s = schema(json!({"currency": {}}));
    let doc = text_document("KEDAI ABC SDN BHD\nTotal 12.90");
    let evidence = locate_values(&doc, &s, &json!({"currency": "MYR"}), false);
    let currency = one(&evidence, "currency");
    assert_eq!(currency.status, EvidenceStatus::Normalised);
    assert_eq!(currency.places[0].quote, "KEDAI ABC SDN BHD");
    // Another country's money is not found there.
    let evidence = locate_values(&doc, &s, &json!({"currency": "EUR"}), false);
    assert_eq!(one(&evidence, "currency").status, EvidenceStatus::NotFound);
    // `RM` is the ringgit's sign.
    let doc = text_document("Total RM12.90");
    let evidence = locate_values(&doc, &s, &json!({"currency": "MYR"}), false);
    assert_eq!(one(&evidence, "currency").places[0].quote, "Total RM12.90");
}

#[test]
fn a_quote_from_the_model_puts_its_place_first_even_when_only_alike() {
    let doc = text_document("Subtotal 12.00\nShipping 12.00\nTotal 12.00");
    let s = schema(json!({"total": {"type": "number"}}));
    let quotes = |q: &str| HashMap::from([("total".to_owned(), q.to_owned())]);
    let first = |q: &str| {
        locate_quoted_values(&doc, &s, &json!({"total": 12}), &quotes(q), false)[0].places[0]
            .quote
            .clone()
    };
    assert_eq!(first("Shipping 12.00"), "Shipping 12.00");
    // One letter off, case and spacing aside: still that line.
    assert_eq!(first("shiping  12.00"), "Shipping 12.00");
    // Not on the page: the label decides, as without a quote.
    assert_eq!(first("Handling fee 12.00 EUR"), "Total 12.00");
    // A quote never makes another number match.
    let other = locate_quoted_values(
        &doc,
        &s,
        &json!({"total": 13}),
        &quotes("Total 12.00"),
        false,
    );
    assert_eq!(other[0].status, EvidenceStatus::NotFound);
}

/// Issue 40: one line of the same amount 200,000 times. Each exact
/// match looked up its word by scanning the line, each run was compared
/// with every match before it, and each place's label was counted over
/// the words before it: about n²/2 steps each, 2·10¹⁰ in all, minutes.
/// Now a binary search, a set of the words taken and a running count per
/// line: n log n, well under a second.
#[test]
fn one_long_line_of_the_same_amount_is_searched_in_linear_time() {
    const TIMES: usize = 200_000;
    let line = vec!["12.50"; TIMES].join(" ");
    let doc = text_document(&line);
    let s = schema(json!({"total": {"type": "number"}, "reference": {"type": "string"}}));
    let evidence = locate_values(
        &doc,
        &s,
        &json!({"total": 12.5, "reference": "12.50"}),
        false,
    );
    let every_place = |status, confidence| FieldEvidence {
        key: String::new(),
        status,
        confidence: Some(confidence),
        places: vec![
            EvidencePlace {
                page: 1,
                quote: line.clone(),
                bbox: None,
                labelled: false,
            };
            MAX_PLACES
        ],
        origin: None,
        problems: Vec::new(),
    };
    // `12.5` is not inside `12.50` as it is: every word is the amount in
    // another form.
    assert_eq!(
        one(&evidence, "total"),
        FieldEvidence {
            key: "total".into(),
            ..every_place(EvidenceStatus::Normalised, Confidence::Medium)
        }
    );
    assert_eq!(
        one(&evidence, "reference"),
        FieldEvidence {
            key: "reference".into(),
            ..every_place(EvidenceStatus::Exact, Confidence::High)
        }
    );
}

/// Issue 40: a value of 50,001 letters, found with case and spacing
/// aside on a page of 1,000,000 `a`s that ends in it. Comparing the value
/// at each of the page's places took about 10¹⁰ steps there, minutes;
/// Knuth–Morris–Pratt takes one pass over the page.
#[test]
fn a_long_value_on_a_page_of_one_letter_is_folded_in_linear_time() {
    const WORDS: usize = 200_000;
    let mut line = vec!["aaaaa"; WORDS].join(" ");
    line.push_str(" b");
    // Ten thousand words of five `a`s, then `b`: it starts on a word.
    let value = format!("{}b", "a".repeat(50_000));
    let doc = text_document(&line);
    let s = schema(json!({"code": {"type": "string"}}));
    let evidence = locate_values(&doc, &s, &json!({"code": value}), false);
    assert_eq!(
        one(&evidence, "code"),
        FieldEvidence {
            key: "code".into(),
            status: EvidenceStatus::Normalised,
            confidence: Some(Confidence::Medium),
            places: vec![EvidencePlace {
                page: 1,
                quote: line,
                bbox: None,
                labelled: false,
            }],
            origin: None,
            problems: Vec::new(),
        }
    );
}
