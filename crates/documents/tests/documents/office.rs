//! Word and Excel files generated here, read exactly.

use sift_documents::render_text;

use crate::fixtures::{docx, xlsx};
use crate::{TempDir, read_one};

#[test]
fn word_paragraphs_a_line_and_table_rows_a_line_with_cells_apart() {
    let body = r#"
<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>Invoice</w:t></w:r><w:r><w:tab/><w:t xml:space="preserve">No. 42 &amp; more </w:t></w:r></w:p>
<w:p/>
<w:p></w:p>
<w:p><w:r><w:t>Line one</w:t><w:br/><w:t>Line two</w:t></w:r></w:p>
<w:p><w:r><w:delText>deleted</w:delText><w:instrText>PAGE</w:instrText><w:t>kept</w:t></w:r></w:p>
<w:tbl>
 <w:tr><w:tc><w:p><w:r><w:t>Item</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Qty</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Price</w:t></w:r></w:p></w:tc></w:tr>
 <w:tr><w:tc><w:tcPr><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>Widget</w:t></w:r></w:p></w:tc><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>1 at 2.50</w:t></w:r></w:p><w:p><w:r><w:t>(line</w:t><w:br/><w:t>two)</w:t></w:r></w:p></w:tc></w:tr>
 <w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc><w:tc><w:p><w:r><w:t>2</w:t></w:r></w:p></w:tc><w:tc><w:p/></w:tc></w:tr>
 <w:tr><w:trPr><w:gridBefore w:val="1"/></w:trPr><w:tc><w:p><w:r><w:t>late</w:t></w:r></w:p></w:tc></w:tr>
</w:tbl>
<w:p><w:r><w:t>Total: 5.00</w:t></w:r></w:p>
"#;
    let dir = TempDir::new();
    let documents = read_one(&dir.write("invoice.docx", docx(body))).unwrap();
    assert_eq!(
        render_text(&documents),
        "<file name=\"invoice.docx\">\n\
         Invoice\tNo. 42 & more\n\
         \n\
         Line one\n\
         Line two\n\
         kept\n\
         Item | Qty | Price\n\
         Widget | 1 at 2.50 (line two) | 1 at 2.50 (line two)\n\
         Widget | 2\n\
         \x20| late\n\
         Total: 5.00\n\
         </file>"
    );
}

#[test]
fn excel_sheets_named_rows_a_line_dates_iso_numbers_as_shown_errors_marked_merges_repeated() {
    let invoice = r#"
<row r="1"><c r="A1" t="inlineStr"><is><t>Item</t></is></c><c r="B1" t="inlineStr"><is><t>Amount</t></is></c><c r="C1" t="inlineStr"><is><t>Date</t></is></c></row>
<row r="2"><c r="A2" t="inlineStr"><is><t>Widget</t></is></c><c r="B2" s="1"><v>1234.5</v></c><c r="C2" s="2"><v>45292</v></c></row>
<row r="3"><c r="A3" t="inlineStr"><is><t>Tax rate</t></is></c><c r="B3" s="3"><v>0.2</v></c><c r="C3" s="4"><v>45292.5</v></c></row>
<row r="4"><c r="A4" t="e"><v>#DIV/0!</v></c><c r="B4" t="b"><v>1</v></c><c r="C4" s="5"><v>0.5</v></c></row>
<row r="6"><c r="A6" t="inlineStr"><is><t>Merged</t></is></c></row>
<row r="8"><c r="B8"><v>3</v></c><c r="C8" s="6"><v>-1500</v></c></row>
"#;
    let merges = r#"<mergeCells count="1"><mergeCell ref="A6:B7"/></mergeCells>"#;
    let workbook = xlsx(
        &[("Invoice", invoice, merges), ("Empty", "", "")],
        &[
            (164, "yyyy-mm-dd hh:mm"),
            (165, "\"$\"#,##0.00;(\"$\"#,##0.00)"),
        ],
        &[0, 4, 14, 9, 164, 21, 165],
    );
    let dir = TempDir::new();
    let documents = read_one(&dir.write("book.xlsx", workbook)).unwrap();
    assert_eq!(
        render_text(&documents),
        "<file name=\"book.xlsx\">\n\
         --- sheet Invoice ---\n\
         Item | Amount | Date\n\
         Widget | 1,234.50 | 2024-01-01\n\
         Tax rate | 20% | 2024-01-01T12:00:00\n\
         #DIV/0! | TRUE | 12:00:00\n\
         \n\
         Merged | Merged\n\
         Merged | Merged\n\
         \x20| 3 | ($1,500.00)\n\
         \n\
         --- sheet Empty ---\n\
         </file>"
    );
}
