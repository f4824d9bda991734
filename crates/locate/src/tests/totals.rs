//! A receipt's total among its other sums: the tax included in it, the
//! summary lines of a tax table, the payment lines, and what OCR leaves of
//! a label.

use serde_json::{Value, json};

use super::{best, four_fields, scanned_document, text_document};
use crate::locate_fields;

fn total(text: &str) -> Value {
    best(
        &locate_fields(&scanned_document(text), &four_fields()),
        "total",
    )
}

#[test]
fn the_tax_included_in_an_amount_is_never_the_total() {
    // `(Inclusive) GST` reads as a total's label; 33.57 is 6% of 593.10
    // included in it.
    assert_eq!(
        total("Sub-total: 593.10\n(Inclusive) GST 6% 33.57\nThank you\n"),
        json!(593.1)
    );
    // Charged on it: 6% of 100.00.
    assert_eq!(
        total("Net 100.00\nTotal incl. GST 6% 6.00\n106.00\n"),
        json!(106.0)
    );
}

#[test]
fn a_tax_word_after_inc_or_a_total_to_be_paid_labels_the_total() {
    assert_eq!(
        total("Sub Total: 48.90\nTotal Due (GST inc): 18.90\nPaid: 0.00\n"),
        json!(18.9)
    );
    assert_eq!(
        total("Sub Total 25.44\nRounding Adjustment: 0.01\nAmount To Be Paid : 25.45\n"),
        json!(25.45)
    );
}

#[test]
fn a_tax_tables_supplies_are_no_total() {
    assert_eq!(
        total(
            "Total 6% supplies (Inc. GST): 30.01\nTotal 0% supplies: 7.43\nTotal Payable: 22.58\n"
        ),
        json!(22.58)
    );
}

#[test]
fn a_label_governs_the_amount_with_cents_after_a_bare_number() {
    assert_eq!(
        total("Subtotal 70.00\nTotal Pays. 9: 73.55\n"),
        json!(73.55)
    );
}

#[test]
fn of_two_amounts_tendered_the_one_whose_change_leaves_a_printed_amount_pays() {
    // 71.00 is what `Cash Received 101.00` less `Change 30.00` leaves; the
    // first `Cash` line is the total itself.
    assert_eq!(
        total("1 Item 71.00\nCash 71.00\nCash Received 101.00\nChange 30.00\n"),
        json!(71.0)
    );
}

#[test]
fn with_no_total_label_the_subtotal_plus_its_tax_where_the_page_prints_it() {
    assert_eq!(
        total("SUB-TOTAL 6.60\nTAX TOTAL: 0.40\nTHANK YOU\n2 3.50 7.00\n"),
        json!(7.0)
    );
    // The sum printed nowhere: the subtotal.
    assert_eq!(
        total("SUB-TOTAL 6.60\nTAX TOTAL: 0.40\nTHANK YOU\n"),
        json!(6.6)
    );
}

#[test]
fn a_header_with_its_unit_in_brackets_ends_there() {
    // `GST(RM) Total(RM)` is two columns' headers, not `GST Total`.
    let doc = text_document("Amt(RM) GST(RM) Total(RM)\n100.00 6.00 106.00\n");
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(106.0)
    );
}

#[test]
fn a_scans_total_read_a_last_digit_off_the_cash_step_is_the_amount_printed_on_it() {
    // A till's 0 read as 6: `11.46` beside the cash paid, `11.40`.
    assert_eq!(
        total("Total Sales (Inclusive GST) RM 11.46\nCASH RM 11.40\n"),
        json!(11.4)
    );
    // A total on the step stays, and a text PDF is not misread.
    assert_eq!(total("Total 11.45\nCASH 11.40\n"), json!(11.45));
    let doc = text_document("Total 11.46\nPaid 11.40\n");
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(11.46)
    );
}

#[test]
fn two_labels_joined_by_a_slash_label_as_the_first() {
    // `GST/TAX` labels the tax, and the subtotal plus it is printed where
    // OCR lost the total's label.
    assert_eq!(
        total("Sub Total : RM 68.87\nGST/TAX 6% : RM 4.13\nTOR: RM 73.00\nCA. RM 73.00\n"),
        json!(73.0)
    );
}

#[test]
fn a_card_charge_is_the_total_where_no_label_or_a_misread_total_disagrees() {
    // No total's label: the subtotal before a discount, and the card's.
    assert_eq!(
        total("SUB-TOTAL 74.04\nDISCOUNT 0.00\nDEBIT CARD 78.10\n"),
        json!(78.1)
    );
    // The total off the cash step, the charge on it (its currency between).
    assert_eq!(
        total("Total Sales (Inclusive GST) RM 48.34\nCREDIT RM = 45.35\n"),
        json!(45.35)
    );
    // On a typed page, the labelled total stays.
    let doc = text_document("Total 48.34\nCREDIT 45.35\n");
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(48.34)
    );
    // A labelled total on the step stays: the charge may be misread too.
    assert_eq!(
        total("Total Sales (Inclusive GST) RH 61.65\nCREDIT RM 61.45\n"),
        json!(61.65)
    );
}

#[test]
fn a_five_read_as_a_letter_is_an_amount() {
    assert_eq!(
        total("Total Sales (Inclusive of GST) : §.30\nCASH : §.30\n"),
        json!(5.3)
    );
}

#[test]
fn the_gst_a_total_included_is_no_total() {
    assert_eq!(
        total("2 SCONE 19.20\n(Total Included GST : 1.09)\n"),
        json!(19.2)
    );
}

#[test]
fn cash_paid_exactly_confirms_the_total_whatever_the_change_was_read_as() {
    assert_eq!(
        total("107636 3 78.00 82.68 248.04\nTotal : 248.05\nCASH : 248.05\nChange : 0.01)\n"),
        json!(248.05)
    );
}

#[test]
fn a_currency_between_a_payment_label_and_its_amount_is_the_amounts() {
    // The total's line garbled; the cash less the change is the total.
    assert_eq!(
        total("Tote ] Tac ik RM 119./\nCASH RM 120.06\nCHANGE RM 0.36\n"),
        json!(119.7)
    );
}

#[test]
fn on_a_scan_a_label_above_governs_no_bare_whole_number() {
    // OCR lost the total's amount; the `2` below its label is a day's.
    assert_eq!(
        total("2x 95.00 190.00 SR\nTOTAL: ©\nClosed: 2 11-03-2018\n"),
        json!(190.0)
    );
}

#[test]
fn a_bill_amount_is_the_total_over_a_line_items_total_column() {
    // A Swiss QR bill: `Total` heads the items' column; the bill's amount
    // is labelled below them (as `Rechnungsbetrag` is in German).
    let doc = text_document(
        "Item Description Amount Total\n\
         1 Garden work CHF 120.00 CHF 3360.00\n\
         2 Disposal CHF 307.35 CHF 307.35\n\
         VAT amount CHF 282.40\n\
         Bill amount CHF 3'949.75\n",
    );
    assert_eq!(
        best(&locate_fields(&doc, &four_fields()), "total"),
        json!(3949.75)
    );
}

/// An invoice of two tax rates prints a row of its amounts for each rate
/// under the headings, then their sums: the sum is the invoice's. A
/// labelled subtotal over a labelled tax and total is no column.
#[test]
fn a_columns_sum_takes_its_heading() {
    let schema = json!({"type": "object", "properties": {
        "total": {"type": "number", "description": "The total amount due"},
        "tax": {"type": "number", "description": "The tax amount"},
        "subtotal": {"type": "number", "description": "The net amount before tax"}
    }});
    let doc = text_document(
        "Rechnung 4711\n\
         Nettobetrag MwSt-Betrag MwSt-% Endbetrag\n\
         321,40 61,07 19,0 382,47\n\
         127,59 8,93 7,0 136,52\n\
         448,99 70,00 EUR 518,99\n",
    );
    let located = locate_fields(&doc, &schema);
    assert_eq!(best(&located, "total"), json!(518.99));
    assert_eq!(best(&located, "tax"), json!(70.0));
    assert_eq!(best(&located, "subtotal"), json!(448.99));
    // One rate's row and no sum below it: the heading's row stands.
    let doc = text_document("Nettobetrag MwSt-Betrag Endbetrag\n321,40 61,07 382,47\n");
    assert_eq!(best(&locate_fields(&doc, &schema), "total"), json!(382.47));
    let doc = text_document("Subtotal 100.00\nTax 19.00\nTotal 119.00\n");
    let located = locate_fields(&doc, &schema);
    assert_eq!(best(&located, "subtotal"), json!(100.0));
    assert_eq!(best(&located, "tax"), json!(19.0));
}
