//! A hybrid e-invoice whose XML cannot be trusted blindly: a page that
//! shows another value than its XML, and an XML that does not read. Each
//! is a real PDF with a real attachment, read through PDFium.

use serde_json::{Value, json};
use sift_core::extract::{AnswerMode, JobState, NewJob, job_view, start_job};
use sift_scripted_server::{Script, ScriptedServer};

use crate::TempDir;
use crate::answers::{job, run_again, workspace};

/// A one-page PDF with `lines` of text that carries `xml` as its
/// attachment `factur-x.xml`, the way a Factur-X invoice does.
fn pdf_with_invoice_xml(lines: &[&str], xml: &str) -> Vec<u8> {
    let mut content = String::new();
    for (n, line) in lines.iter().enumerate() {
        content.push_str(&format!(
            "BT /F1 12 Tf 40 {} Td ({line}) Tj ET\n",
            750 - n * 18
        ));
    }
    let stream = |dict: &str, body: &str| {
        format!(
            "<< {dict} /Length {} >>\nstream\n{body}\nendstream",
            body.len()
        )
    };
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(factur-x.xml) 5 0 R] >> >> >>".to_owned(),
        "<< /Type /Pages /Kids [4 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 6 0 R >>".to_owned(),
        "<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /EF << /F 7 0 R >> >>".to_owned(),
        stream("", &content),
        stream("/Type /EmbeddedFile /Subtype /text#2Fxml", xml),
    ];
    let mut out = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::new();
    for (n, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", n + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

const PAGE: [&str; 5] = [
    "Muster Werkzeuge GmbH",
    "Rechnungsnummer: 471102",
    "Rechnungsdatum: 15.11.2024",
    "Netto 445,26 EUR",
    "Gesamtbetrag 520,00 EUR",
];

/// The CII invoice of the page, but with another grand total.
const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
 <rsm:ExchangedDocument><ram:ID>471102</ram:ID>
  <ram:IssueDateTime><udt:DateTimeString format="102">20241115</udt:DateTimeString></ram:IssueDateTime>
 </rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>Muster Werkzeuge GmbH</ram:Name></ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement>
  <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    <ram:GrandTotalAmount>529.87</ram:GrandTotalAmount>
   </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement>
 </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"#;

/// Each field's (key, confidence, problems, origin) as stored.
fn reviewed(evidence: &Value) -> Vec<(Value, Value, Value, Value)> {
    let field = |e: &Value, name: &str| e.get(name).cloned().unwrap_or(Value::Null);
    evidence
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["key"].clone(),
                e["confidence"].clone(),
                field(e, "problems"),
                field(e, "origin"),
            )
        })
        .collect()
}

async fn located_job(dir: &TempDir, name: &str, bytes: &[u8]) -> (Value, Value, u32) {
    let ws = workspace(dir);
    // Nothing scripted: a request would fail the job.
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let path = dir.0.join(name);
    std::fs::write(&path, bytes).unwrap();
    let new_job = NewJob {
        files: vec![path],
        ..job(dir, &server, Some(AnswerMode::Located))
    };
    let (view, run) = start_job(&ws, new_job, |_| {}).unwrap();
    assert_eq!(run.await.unwrap().status, JobState::Completed);
    assert_eq!(server.requests().len(), 0);
    let store = ws.store().unwrap();
    let document = &store.extraction_documents(&view.job_id).unwrap()[0];
    (
        document.values.clone().unwrap(),
        document.evidence.clone().unwrap(),
        job_view(&store, &view.job_id).unwrap().needs_review,
    )
}

#[tokio::test]
async fn a_page_that_shows_another_total_than_its_xml_is_sent_to_review() {
    let dir = TempDir::new("einvoice-disagrees");
    let (values, evidence, needs_review) =
        located_job(&dir, "hybrid.pdf", &pdf_with_invoice_xml(&PAGE, XML)).await;
    // The XML's values stand: it is the invoice's legal data.
    assert_eq!(
        values,
        json!({"invoice_number": "471102", "date": "2024-11-15", "total": 529.87,
               "currency": "EUR", "seller_name": "Muster Werkzeuge GmbH"})
    );
    let einvoice = json!("e_invoice");
    assert_eq!(
        reviewed(&evidence),
        [
            (
                json!("invoice_number"),
                json!("high"),
                Value::Null,
                einvoice.clone()
            ),
            (
                json!("date"),
                json!("medium"),
                Value::Null,
                einvoice.clone()
            ),
            (
                json!("total"),
                json!("low"),
                json!(["the e-invoice XML says 529.87 but the page shows 520"]),
                einvoice.clone()
            ),
            (
                json!("currency"),
                json!("high"),
                Value::Null,
                einvoice.clone()
            ),
            (json!("seller_name"), json!("high"), Value::Null, einvoice),
        ]
    );
    assert_eq!(needs_review, 1);
}

#[tokio::test]
async fn an_e_invoice_xml_that_does_not_read_leaves_the_page_with_a_note() {
    let dir = TempDir::new("einvoice-broken");
    // Cut off in the middle, as a failed export leaves it.
    let broken = &XML[..XML.find("<ram:GrandTotalAmount>").unwrap()];
    let (values, evidence, needs_review) =
        located_job(&dir, "hybrid.pdf", &pdf_with_invoice_xml(&PAGE, broken)).await;
    // The page's values, found by the locator.
    assert_eq!(
        values,
        json!({"invoice_number": "471102", "date": "2024-11-15", "total": 520.0,
               "currency": "EUR", "seller_name": "Muster Werkzeuge GmbH"})
    );
    let note = json!([
        "the PDF's e-invoice XML (factur-x.xml) was not read: the XML is not well formed \
         (it ends inside an element); this value was read from the page"
    ]);
    let located = json!("located");
    let rows = reviewed(&evidence);
    let keys: Vec<Value> = rows.iter().map(|r| r.0.clone()).collect();
    assert_eq!(
        keys,
        [
            json!("invoice_number"),
            json!("date"),
            json!("total"),
            json!("currency"),
            json!("seller_name")
        ]
    );
    for (key, confidence, problems, origin) in rows {
        assert_eq!(
            (confidence, problems, origin),
            (json!("low"), note.clone(), located.clone()),
            "{key}"
        );
    }
    assert_eq!(needs_review, 5);
}

#[tokio::test]
async fn a_dropped_xml_that_is_not_an_invoice_is_read_as_text_with_a_note() {
    let dir = TempDir::new("einvoice-foreign");
    let order = "<order>\n<note>\nInvoice Number: INV-9\nTotal 12.50 EUR\n</note>\n</order>\n";
    let (values, evidence, _) = located_job(&dir, "order.xml", order.as_bytes()).await;
    assert_eq!(values["invoice_number"], json!("INV-9"));
    assert_eq!(values["total"], json!(12.5));
    let note = json!([
        "this file was not read as an e-invoice: the XML is not an EN 16931 invoice \
         (its root element is order); this value was read from its text"
    ]);
    for (key, _, problems, _) in reviewed(&evidence) {
        assert_eq!(problems, note, "{key}");
    }
}

#[tokio::test]
async fn an_e_invoice_value_the_page_does_not_show_is_sent_to_review() {
    let dir = TempDir::new("einvoice-not-on-page");
    // The page without its date line (and with the XML's total).
    let page = [PAGE[0], PAGE[1], PAGE[3], "Gesamtbetrag 529,87 EUR"];
    let (values, evidence, needs_review) =
        located_job(&dir, "hybrid.pdf", &pdf_with_invoice_xml(&page, XML)).await;
    assert_eq!(values["date"], json!("2024-11-15"));
    let rows = reviewed(&evidence);
    let date = rows.iter().find(|r| r.0 == "date").unwrap();
    assert_eq!(
        (&date.1, &date.2),
        (
            &json!("low"),
            &json!(["the page does not show this value of the e-invoice XML"])
        )
    );
    assert_eq!(needs_review, 1);
}

/// The invoice as a credit note (type code 381) of 520.00, its page
/// printing the total as a positive figure.
fn credit_note_pdf() -> Vec<u8> {
    let xml = XML
        .replace(
            "<ram:ID>471102</ram:ID>",
            "<ram:ID>471102</ram:ID><ram:TypeCode>381</ram:TypeCode>",
        )
        .replace("529.87", "520.00");
    let page = [
        PAGE[0],
        "Gutschriftsnummer: 471102",
        PAGE[2],
        PAGE[3],
        PAGE[4],
    ];
    pdf_with_invoice_xml(&page, &xml)
}

/// A Factur-X credit note (type code 381) whose page prints its total as
/// a positive figure, as credit notes mostly do: the XML's total is booked
/// negative, found on the page as its figure (`normalised`: the page
/// says the figure, the type code its sign) with no note, and its number,
/// date, currency and seller are as on an invoice.
#[tokio::test]
async fn a_credit_notes_total_is_negative_and_found_as_the_page_prints_it() {
    let dir = TempDir::new("einvoice-credit-note");
    let (values, evidence, needs_review) =
        located_job(&dir, "credit-note.pdf", &credit_note_pdf()).await;
    assert_eq!(
        values,
        json!({"invoice_number": "471102", "date": "2024-11-15", "total": -520.0,
               "currency": "EUR", "seller_name": "Muster Werkzeuge GmbH"})
    );
    let total = evidence
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "total")
        .unwrap();
    assert_eq!(
        (
            &total["status"],
            &total["origin"],
            &total["places"][0]["quote"]
        ),
        (
            &json!("normalised"),
            &json!("e_invoice"),
            &json!("Gesamtbetrag 520,00 EUR")
        )
    );
    assert!(total.get("problems").is_none(), "{total}");
    assert_eq!(needs_review, 0);
}

/// A credit note's evidence found again after its file changed (a byte
/// after its end, its pages and XML the same): the total is still its
/// XML's, found as the page prints it, as when it was first answered.
#[tokio::test]
async fn a_credit_notes_evidence_found_again_is_as_found_first() {
    let dir = TempDir::new("einvoice-credit-note-again");
    let ws = workspace(&dir);
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let path = dir.0.join("credit-note.pdf");
    let mut bytes = credit_note_pdf();
    std::fs::write(&path, &bytes).unwrap();
    let new_job = NewJob {
        files: vec![path.clone()],
        ..job(&dir, &server, Some(AnswerMode::Located))
    };
    let (view, run) = start_job(&ws, new_job, |_| {}).unwrap();
    assert_eq!(run.await.unwrap().status, JobState::Completed);
    let store = ws.store().unwrap();
    let first = store.extraction_documents(&view.job_id).unwrap()[0].clone();

    bytes.push(b'\n');
    std::fs::write(&path, &bytes).unwrap();
    run_again(&store, &server, &view.job_id).await.unwrap();
    let again = &store.extraction_documents(&view.job_id).unwrap()[0];
    assert_ne!(again.evidence_source, first.evidence_source);
    let total = |evidence: &Value| {
        evidence
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["key"] == "total")
            .cloned()
            .unwrap()
    };
    assert_eq!(
        total(again.evidence.as_ref().unwrap())["status"],
        json!("normalised")
    );
    assert_eq!(again.evidence, first.evidence);
    assert_eq!(server.requests().len(), 0);
}
