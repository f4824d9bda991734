use std::path::PathBuf;

use serde_json::{Value, json};
use sift_documents::{Content, Document, Kind, OcrPage, PageWord};

use super::*;

/// A plain-text document of `text`.
pub(super) fn text_document(text: &str) -> Document {
    Document {
        path: PathBuf::from("invoice.txt"),
        name: "invoice.txt".into(),
        kind: Kind::Text,
        content: Content::Text(text.into()),
        ocr: None,
        invoice_xml: None,
    }
}

/// A photo whose words OCR read as `text`, each word with a box, a
/// column apart from the last; two spaces leave a column empty (a wide
/// gap between two words).
fn scanned_document(text: &str) -> Document {
    let mut words = Vec::new();
    for (l, line) in text.lines().enumerate() {
        for (w, word) in line.split(' ').enumerate().filter(|(_, w)| !w.is_empty()) {
            words.push(PageWord {
                text: word.into(),
                left: 100.0 * w as f32,
                top: 20.0 * l as f32,
                width: 90.0,
                height: 15.0,
                confidence: 90.0,
            });
        }
    }
    Document {
        path: PathBuf::from("receipt.jpg"),
        name: "receipt.jpg".into(),
        kind: Kind::Image,
        content: Content::Text(text.into()),
        ocr: Some(OcrPage {
            text: text.into(),
            words,
            width: 1000.0,
            height: 20.0 * text.lines().count() as f32,
            rotation: 0,
        }),
        invoice_xml: None,
    }
}

fn four_fields() -> Value {
    json!({"type": "object", "properties": {
        "invoice_number": {"type": "string", "description": "The invoice's number"},
        "date": {"type": "string", "description": "The invoice's date"},
        "total": {"type": "number", "description": "The total amount due"},
        "currency": {"type": "string", "description": "The currency of the total, as an ISO 4217 code"}
    }})
}

fn best(located: &[FieldCandidates], key: &str) -> Value {
    located
        .iter()
        .find(|f| f.key == key)
        .and_then(|f| f.best().cloned())
        .unwrap_or(Value::Null)
}

fn sure(located: &[FieldCandidates], key: &str) -> bool {
    located
        .iter()
        .find(|f| f.key == key)
        .is_some_and(|f| f.sure)
}

#[test]
fn an_english_invoice_is_located_by_its_labels() {
    let doc = text_document(
        "ACME Ltd\nInvoice Number: INV-2024-0042\nOrder No: 5561\nInvoice Date: March 3, 2024\n\
         Due Date: 2024-04-02\nSubtotal $1,000.00\nTax (20%) $200.00\nTotal $1,200.00\n",
    );
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "invoice_number"), json!("INV-2024-0042"));
    assert_eq!(best(&located, "date"), json!("2024-03-03"));
    assert_eq!(best(&located, "total"), json!(1200.0));
    assert_eq!(best(&located, "currency"), json!("USD"));
    for key in ["invoice_number", "date", "total", "currency"] {
        assert!(sure(&located, key), "{key}");
    }
}

#[test]
fn a_german_invoice_with_values_under_their_column_headers() {
    let doc = text_document(
        "Muster GmbH\nRechnungsnummer Rechnungsdatum Kundennummer\n471102 15.11.2024 K-88\n\
         Nettobetrag 445,27 EUR\nMwSt 19% 84,60 EUR\nGesamtbetrag 529,87 EUR\n",
    );
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "invoice_number"), json!("471102"));
    assert_eq!(best(&located, "date"), json!("2024-11-15"));
    assert_eq!(best(&located, "total"), json!(529.87));
    assert_eq!(best(&located, "currency"), json!("EUR"));
}

#[test]
fn a_french_total_ttc_wins_over_the_total_ht() {
    let doc = text_document(
        "Facture N° F20180027\nDate : 31/12/2018\nTotal HT 100,00 €\nTVA 20% 10,00 €\nTotal TTC 110,00 €\n",
    );
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "invoice_number"), json!("F20180027"));
    assert_eq!(best(&located, "date"), json!("2018-12-31"));
    assert_eq!(best(&located, "total"), json!(110.0));
    assert_eq!(best(&located, "currency"), json!("EUR"));
}

#[test]
fn the_due_date_field_takes_the_due_date_and_the_invoice_date_the_other() {
    let schema = json!({"type": "object", "properties": {
        "invoice_date": {"type": "string", "format": "date"},
        "due_date": {"type": ["string", "null"], "format": "date"}
    }});
    let doc = text_document("Due date: 02/04/2024\nInvoice date: 03/03/2024\n");
    let located = locate_fields(&doc, &schema);
    assert_eq!(best(&located, "invoice_date"), json!("2024-03-03"));
    assert_eq!(best(&located, "due_date"), json!("2024-04-02"));
}

#[test]
fn without_a_label_nothing_is_sure_and_no_identifier_is_guessed() {
    let doc = text_document("Thank you\n12.50\n3.20\n2018-03-01 998877\n");
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "invoice_number"), Value::Null);
    assert_eq!(best(&located, "total"), json!(12.5));
    assert_eq!(best(&located, "date"), json!("2018-03-01"));
    for key in ["invoice_number", "date", "total", "currency"] {
        assert!(!sure(&located, key), "{key}");
    }
}

#[test]
fn the_located_answer_fills_nested_fields_and_leaves_arrays_out() {
    let schema = json!({"type": "object", "properties": {
        "seller": {"type": "object", "properties": {"name": {"type": "string", "description": "The seller's company name"}}},
        "total": {"type": "number"},
        "line_items": {"type": "array", "items": {"type": "object"}}
    }});
    let doc = text_document("Seller: Muster GmbH\nTotal 12,00\n");
    let located = locate_fields(&doc, &schema);
    let keys: Vec<&str> = located.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(keys, ["seller.name", "total"]);
    assert_eq!(
        located_answer(&located),
        json!({"seller": {"name": "Muster GmbH"}, "total": 12.0})
    );
    assert!(located[0].free_text);
}

/// A field is located as what its name says, not as something its
/// description happens to mention: the buyer "billed" is the buyer, not
/// the bill's number.
#[test]
fn a_buyer_described_as_billed_is_the_buyer_not_the_invoice_number() {
    let schema = json!({"type": "object", "properties": {
        "invoice_number": {"type": "string"},
        "buyer_name": {"type": ["string", "null"],
                       "description": "The company or person billed (\"Bill to\"); null when absent."}
    }});
    let doc = text_document("Invoice Number: INV-7\nBill to: Example Corp\n");
    let located = locate_fields(&doc, &schema);
    assert_eq!(
        located.iter().map(|f| f.key.as_str()).collect::<Vec<_>>(),
        ["invoice_number", "buyer_name"]
    );
    assert_eq!(best(&located, "invoice_number"), json!("INV-7"));
    assert_eq!(best(&located, "buyer_name"), json!("Example Corp"));
}

#[test]
fn a_receipt_gives_its_rounded_total_and_the_currency_on_the_total_line() {
    // A stray `$` in the address and a `¥` misread for `x` are no match for
    // the `RM` beside the total; of two totals labelled alike, the one under
    // the rounding line is paid (without that rule, the larger would win).
    let doc = text_document(
        "KEDAI RUNCIT SENANG\nNo $117, Jalan Besar\nTEA 2 ¥ 1.50 3.00\nRICE 1 ¥ 9.91 9.91\n\
         Total RM 12.91\nRounding -0.01\nTotal RM 12.90\nCash 20.00\n",
    );
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "total"), json!(12.9));
    assert_eq!(best(&located, "currency"), json!("MYR"));
}

#[test]
fn a_document_that_prints_no_currency_or_a_bare_dollar_is_in_its_home_countrys_money() {
    let currency = |text: &str| {
        let located = locate_fields(&text_document(text), &four_fields());
        let field = located
            .iter()
            .find(|f| f.key == "currency")
            .unwrap()
            .clone();
        let best = &field.candidates[0];
        (best.value.clone(), best.place.quote.clone(), field.sure)
    };
    // No currency printed: the legal form and the state say Malaysia.
    assert_eq!(
        currency("KEDAI ABC SDN BHD\nNo 3, Jalan 1, Kajang, Selangor\nTotal 12.90\n"),
        (json!("MYR"), "KEDAI ABC SDN BHD".to_owned(), true)
    );
    // A bare `$` at home is the home country's dollar ...
    assert_eq!(
        currency("KEDAI ABC SDN BHD\nTotal Amount: $8.20\n").0,
        json!("MYR")
    );
    assert_eq!(currency("Acme Pty Ltd\nTotal $8.20\n").0, json!("AUD"));
    // ... but not a dollar that says whose it is, nor a code in letters.
    assert_eq!(
        currency("KEDAI ABC SDN BHD\nTotal US$8.20\n").0,
        json!("USD")
    );
    assert_eq!(
        currency("Muster GmbH, Berlin\nTotal USD 8.20\n").0,
        json!("USD")
    );
    // Where the country is not one of the dollar's, `$` stays the US dollar.
    assert_eq!(currency("Muster GmbH\nTotal $8.20\n").0, json!("USD"));
    // Nothing says where the document is from: no currency.
    let located = locate_fields(&text_document("Total 12.90\n"), &four_fields());
    assert_eq!(best(&located, "currency"), Value::Null);
}

#[test]
fn a_currency_in_a_labels_brackets_counts_and_a_sign_inside_a_word_does_not() {
    let doc = text_document("Amount(RM) Tax(RM)\nBill No: €1-0170778\nTotal Amt 15.90\n");
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "currency"), json!("MYR"));
    // `Amt` is "amount": `Total Amt` labels the total.
    assert_eq!(best(&located, "total"), json!(15.9));
}

#[test]
fn a_date_in_a_year_the_checks_find_implausible_is_not_proposed() {
    // OCR reads 2018 as 2078; the real date is printed once more.
    let doc = text_document("Date: 17/03/2078\nPrinted 17-03-2018 10:02\nTotal 5.00\n");
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "date"), json!("2018-03-17"));
}

#[test]
fn a_total_label_ocr_misread_still_labels_the_total_of_a_scan() {
    // Read as they are, `Tota!` and `Sub-tota]` label nothing, and the
    // larger unlabelled amount (the cakes' 20.00) would be the total.
    let text = "CAKE 2 10.00 20.00\nSub-tota] 15.00\nTax 0.90\nTota! 15.90\n";
    let located = locate_fields(&scanned_document(text), &four_fields());
    assert_eq!(best(&located, "total"), json!(15.9));
    assert!(sure(&located, "total"));
    // A typed text's marks are the writer's: no misreading is undone.
    let typed = locate_fields(&text_document(text), &four_fields());
    assert_eq!(best(&typed, "total"), json!(20.0));
}

#[test]
fn a_tax_word_after_a_total_label_qualifies_it_and_total_gst_is_the_tax() {
    let doc = text_document("Sub Total 50.00\nTotal GST 3.00\nTotal with GST @ 6% 53.00\n");
    let located = locate_fields(&doc, &four_fields());
    let total = located.iter().find(|f| f.key == "total").unwrap();
    let values: Vec<&Value> = total.candidates.iter().map(|c| &c.value).collect();
    assert_eq!(values, [&json!(53.0)]);
}

#[test]
fn a_total_on_its_own_rounding_line_is_the_rounded_one() {
    let doc = text_document("Total Sales Incl GST 17.76\nTotal Rounded 17.75\nCash 20.00\n");
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "total"), json!(17.75));
}

#[test]
fn a_lone_mark_between_a_label_and_its_value_is_no_word() {
    let scores = |text: &str| {
        let located = locate_fields(&text_document(text), &four_fields());
        located
            .iter()
            .find(|f| f.key == "total")
            .unwrap()
            .candidates[0]
            .score
    };
    assert_eq!(scores("Total | 8.20\n"), scores("Total 8.20\n"));
    assert!(scores("Total due now 8.20\n") < scores("Total due 8.20\n"));
}

#[test]
fn a_dash_alone_between_a_label_and_its_amount_is_no_minus_sign() {
    let doc = text_document("Total Amt Payable - 159.00\nDiscount -5.00\n");
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "total"), json!(159.0));
}

#[test]
fn an_amount_ocr_split_at_its_decimal_mark_is_one_amount() {
    let total = |document: Document| best(&locate_fields(&document, &four_fields()), "total");
    // The mark, then a space before the decimals: on any page.
    assert_eq!(
        total(text_document("Cash 60.00\nTotal : RM 51. 00\n")),
        json!(51.0)
    );
    assert_eq!(
        total(scanned_document("Total RM 49, 40\nCash 50.00\n")),
        json!(49.4)
    );
    // The mark lost: only where OCR read the page, for a text layer prints
    // what it means (`2 10` is a quantity and an amount).
    assert_eq!(
        total(scanned_document("Grand Total 92 80\nCash 100.00\n")),
        json!(92.8)
    );
    assert_eq!(
        total(text_document("Grand Total 92 80\nCash 100.00\n")),
        json!(92.0)
    );
}

#[test]
fn the_total_below_a_rounding_line_beats_a_longer_label_above_it() {
    // `Total RM Incl. of GST` is a longer label than `Total RM`, but the
    // rounding between them says which one is paid.
    let doc = scanned_document(
        "Total RM Incl. of GST 20.98\nRounding Adj 0.02\nTotal RM 21.00\nCash 50.00\n",
    );
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(21.0)
    );
}

#[test]
fn a_net_total_below_the_rounding_is_paid_and_a_net_total_above_the_tax_is_not() {
    let total = |text: &str| {
        best(
            &locate_fields(&scanned_document(text), &four_fields()),
            "total",
        )
    };
    assert_eq!(
        total("SUB TOTAL 7.00\nGST 6% 0.42\nROUNDING ADJ -0.02\nNET TOTAL 7.40\nCash 10.00\n"),
        json!(7.4)
    );
    assert_eq!(
        total("Net total 100.00\nVAT 19% 19.00\nTotal 119.00\n"),
        json!(119.0)
    );
}

#[test]
fn a_value_between_two_labels_is_the_first_ones() {
    // `Total Saving` governs 0.00; the second `Total` alone governs 77.20.
    let doc = scanned_document("Total Saving 0.00 Total 77.20\nCash 100.00\n");
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(77.2)
    );
}

/// A code in brackets between two labels (`Handelsrechnung (380) Nr.`)
/// does not part them: together they outweigh a bare `Nummer:` printed
/// three times.
#[test]
fn a_code_in_brackets_does_not_part_two_labels() {
    let doc = text_document(
        "Handelsrechnung (380) Nr. 6069999999 vom 02.05.2026\n\
         Nummer: 21212121\nNummer: 21212121\nNummer: 21212121\n",
    );
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "invoice_number"),
        json!("6069999999")
    );
}

#[test]
fn a_page_with_no_total_label_gives_its_subtotal_first_but_never_sure() {
    let located = locate_fields(
        &scanned_document("1 RICE 7.00\nSUBTOTAL: 28.60\nCASH 100.00\nCHANGE 71.40\n"),
        &four_fields(),
    );
    let total = located.iter().find(|f| f.key == "total").unwrap();
    assert_eq!(total.candidates[0].value, json!(28.6));
    assert_eq!(total.candidates[0].place.quote, "SUBTOTAL: 28.60");
    assert!(!total.sure);
    // With a total's label, the subtotal is no candidate.
    let located = locate_fields(
        &scanned_document("SUBTOTAL: 28.60\nTOTAL: 30.30\n"),
        &four_fields(),
    );
    let total = located.iter().find(|f| f.key == "total").unwrap();
    assert_eq!(total.candidates[0].value, json!(30.3));
    assert!(total.candidates.iter().all(|c| c.value != json!(28.6)));
}

#[test]
fn a_scans_label_and_amount_read_as_two_blocks_are_one_row() {
    // Tesseract gave the label and the amount, far apart, as two lines:
    // read in the text's order, the amount has no label and the larger
    // unlabelled amount wins.
    let mut doc = scanned_document("TOTAL\nCAKE 2 10.00 20.00\n15.90\n");
    let Some(ocr) = doc.ocr.as_mut() else {
        unreachable!()
    };
    // `15.90` is on the row of `TOTAL`, at its right.
    ocr.words[5].top = 0.0;
    ocr.words[5].left = 800.0;
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(15.9)
    );
}

#[test]
fn a_stray_sign_on_a_scans_total_row_does_not_outweigh_the_currency_in_letters() {
    // OCR read a smudge as `£`: on a typed page a sign on the total's line
    // would be the total's currency, on a scan only a code in letters is.
    let doc = scanned_document("Tax Code Amt(RM)\nSR 6 5.37\nTotal £9487 94.87\n");
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "currency"),
        json!("MYR")
    );
    let typed = text_document("Tax Code Amt(RM)\nSR 6 5.37\nTotal £ 94.87\n");
    assert_eq!(
        best(&locate_fields(&typed, &four_fields()), "currency"),
        json!("GBP")
    );
}

#[test]
fn another_countrys_code_on_a_scan_off_the_total_line_does_not_outweigh_the_home_country() {
    // A fuel grade (`RON95`) reads as Romania's leu; the legal form says Malaysia.
    let text = "KEDAI MINYAK SDN BHD\nDiesel & Petrol RON95\nTotal 50.00\n";
    let currency = |doc: &Document| best(&locate_fields(doc, &four_fields()), "currency");
    assert_eq!(currency(&scanned_document(text)), json!("MYR"));
    // On the total's line, a scan's code in letters is the total's.
    let paid = "KEDAI MINYAK SDN BHD\nTotal SGD 50.00\n";
    assert_eq!(currency(&scanned_document(paid)), json!("SGD"));
    // A typed page's codes are the writer's.
    assert_eq!(currency(&text_document(text)), json!("RON"));
}

#[test]
fn the_date_after_the_documents_number_is_its_date_and_a_deadline_is_not() {
    let doc = text_document(
        "Facture n°562044387 du 02 Juillet 2015\nDate limite de paiement le 05 Juillet 2015 29.99 € TTC\n",
    );
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "date"), json!("2015-07-02"));
    assert_eq!(best(&located, "invoice_number"), json!("562044387"));
}

#[test]
fn a_short_number_right_after_its_label_and_no_register_or_bracketed_code() {
    let doc = text_document(
        "Acme GmbH HRB Nr. 372876\nGutschrift zur Rechnung (389) Nr. 47110818 vom 31.10.2018\nRechnung Nr. 42\n",
    );
    let located = locate_fields(&doc, &four_fields());
    let number = located.iter().find(|f| f.key == "invoice_number").unwrap();
    let values: Vec<&Value> = number.candidates.iter().map(|c| &c.value).collect();
    // `42` right after `Rechnung Nr.` is a candidate; the register's
    // number is none. The credit note's own title labels `47110818`
    // (its type code in brackets parts no labels), so it comes first.
    assert_eq!(values, [&json!("47110818"), &json!("42"), &json!("389")]);
    assert_eq!(best(&located, "date"), json!("2018-10-31"));
    // A short number with a word between it and its label is no candidate.
    let loose = locate_fields(&text_document("Invoice No. page 42\n"), &four_fields());
    assert_eq!(best(&loose, "invoice_number"), Value::Null);
}

#[test]
fn a_due_payable_amount_is_the_total_and_a_space_does_not_join_two_amounts() {
    let doc = text_document("Net total: 496.00 €\nVAT total: 75.04 €\nDue payable: 571.04 €\n");
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(571.04)
    );
    let doc = text_document("2 Transport 120,00 120,00\nRechnungsbetrag 1.589,80\n");
    let located = locate_fields(&doc, &four_fields());
    let total = located.iter().find(|f| f.key == "total").unwrap();
    assert!(
        total
            .candidates
            .iter()
            .all(|c| c.value != json!(1200012000.0))
    );
}

#[test]
fn a_receipts_cash_less_its_change_is_the_total_its_label_does_not_give() {
    let total = |text: &str| {
        let located = locate_fields(&scanned_document(text), &four_fields());
        let field = located.iter().find(|f| f.key == "total").unwrap().clone();
        (field.best().cloned().unwrap_or(Value::Null), field.sure)
    };
    // The total's label misread: the subtotal would be first.
    assert_eq!(
        total("SUB TOTAL 68.87\nGST 6% 4.13\nTOR: 73.00\nCASH 73.00\nCHANGE 0.00\n"),
        (json!(73.0), false)
    );
    // No total printed at all: the difference itself.
    assert_eq!(
        total("SOUP 9.00\nRICE 9.00\nCASH 50.00\nCHANGE 32.00\n"),
        (json!(18.0), false)
    );
    // `CASH 6` is a till, not money; a labelled total stays.
    assert_eq!(
        total("CASH 6\nTotal 12.72\nCASH 12.72\nChange 0.00\n"),
        (json!(12.72), true)
    );
}

#[test]
fn with_a_rounding_line_the_total_rounded_to_five_cents_is_paid() {
    let total = |text: &str| {
        best(
            &locate_fields(&scanned_document(text), &four_fields()),
            "total",
        )
    };
    assert_eq!(
        total("Total (Inclusive of GST): 31.02\nRounding Adj: -0.02\nServer: 3\nCASH : 31.00\n"),
        json!(31.0)
    );
    // No rounding line: the total as printed.
    assert_eq!(
        total("Total (Inclusive of GST): 31.02\nCASH : 31.00\n"),
        json!(31.02)
    );
}

#[test]
fn a_series_letter_is_part_of_the_number_and_faktura_labels_it() {
    let doc = text_document(
        "Stacja Paliw Nr 4445\nFaktura nr: F 1234K20/1234/12 Data wystawienia: 2021-01-01\n",
    );
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "invoice_number"), json!("F 1234K20/1234/12"));
    assert_eq!(best(&located, "date"), json!("2021-01-01"));
}

#[test]
fn a_bills_number_after_payable_is_no_total() {
    let doc = text_document("Payable by Bill No. 3139\nBill amount CHF 3'949.75\n");
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(3949.75)
    );
}

#[test]
fn a_rate_is_no_amount_and_a_doubled_decimal_mark_is_one() {
    // `16.00 %` is a rate; OCR doubled the mark of `RM7.00`.
    let doc = scanned_document("GST Rate 16.00 %\nParking Fee RM7..00\n");
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(7.0)
    );
}

#[test]
fn a_date_either_way_round_is_read_the_way_the_documents_other_dates_are() {
    let date = |text: &str| best(&locate_fields(&text_document(text), &four_fields()), "date");
    // `11/17/2017` can only be month first: so is `11/03/2017`.
    assert_eq!(
        date("Invoice Date 11/03/2017\nSEPA transfer 11/17/2017 623.00\n"),
        json!("2017-11-03")
    );
    // Day first where the others are, or where none says.
    assert_eq!(
        date("Invoice Date 11/03/2017\nSEPA transfer 17/11/2017 623.00\n"),
        json!("2017-03-11")
    );
    assert_eq!(date("Invoice Date 11/03/2017\n"), json!("2017-03-11"));
}

mod dates;
mod many_values;
mod parties;
mod payment_fields;
mod portuguese_polish;
mod totals;

#[test]
fn a_german_commercial_invoices_number_beats_a_party_number_printed_twice() {
    let doc = text_document(
        "Handelsrechnung Nr. KR87654321012 vom 06.10.2018\nNummer : 339420\nNummer : 339420\n",
    );
    let located = locate_fields(&doc, &four_fields());
    assert_eq!(best(&located, "invoice_number"), json!("KR87654321012"));
}
