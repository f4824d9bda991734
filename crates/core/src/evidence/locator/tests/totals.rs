//! A receipt's total among its other sums: the tax included in it, the
//! summary lines of a tax table, the payment lines, and what OCR leaves of
//! a label.

use serde_json::{Value, json};

use super::{best, four_fields, scanned_document, text_document};
use crate::evidence::locator::locate_fields;

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
