//! A PDF page's text as the model reads it, in either order: laid out in
//! visual rows, or as PDFium gives it.

use sift_documents::{Content, Documents, ReadOptions, TextOrder, read_documents};

use crate::corpus;

fn page_text(name: &str, order: TextOrder) -> String {
    let options = ReadOptions {
        text_order: order,
        ..ReadOptions::default()
    };
    let documents: Documents = read_documents(&[corpus(name)], &options).expect("the PDF reads");
    match &documents.files[0].content {
        Content::Pages(pages) => pages[0].text.clone(),
        other => panic!("not pages: {other:?}"),
    }
}

#[test]
fn laid_out_a_line_items_description_and_its_amounts_share_a_line() {
    let text = page_text("mustang_103767-Invoice.pdf", TextOrder::Layout);
    let lines: Vec<&str> = text.lines().collect();
    // The table's header (two rows, as printed), then the item's row:
    // number, description, date, quantity, price, rate and amount.
    let item = lines
        .iter()
        .position(|l| l.starts_with("1908-S"))
        .expect("the item's row");
    assert_eq!(
        lines[item - 2..=item + 1],
        [
            "Shipment        Unit Price Excl.",
            "No.       Description        Date        Quantity        VAT        VAT % Line Amount Excl. VAT",
            "1908-S     LONDON Schreibtischstuhl,   02/17/26        3 Piece        191.00        19        573.00",
            "blau",
        ]
    );
    // Columns far apart are in one row: the invoice's own label and value.
    assert!(lines.contains(&"Total € Incl. VAT        681.87"), "{text}");
}

#[test]
fn in_pdfiums_order_the_description_and_its_amounts_are_lines_apart() {
    let text = page_text("mustang_103767-Invoice.pdf", TextOrder::Pdfium);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.contains(&"1908-S LONDON Schreibtischstuhl,"),
        "{text}"
    );
    assert!(
        lines.contains(&"02/17/26 3 Piece 191.00 19 573.00"),
        "{text}"
    );
}

#[test]
fn laid_out_a_value_drawn_far_from_its_label_joins_its_row() {
    // PDFium gives this invoice's number and date at the page's end,
    // thirty lines after their labels.
    let text = page_text("mustang_Facture_F20180027.pdf", TextOrder::Layout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "FACTURE N° :        F20180027",
            "LOGO Vendeur",
            "Date :        31/12/2018"
        ]
    );
    let pdfium = page_text("mustang_Facture_F20180027.pdf", TextOrder::Pdfium);
    assert_eq!(pdfium.lines().next(), Some("FACTURE N° :"));
}
