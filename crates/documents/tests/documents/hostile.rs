//! Small hostile files that would take the machine (issue 40, items
//! 9–13): each is generated here, a few kilobytes to a few megabytes, and
//! each is refused with a message naming the file and the limit, or read
//! within the limits, instead of growing into gigabytes or running for
//! minutes.

use crate::fixtures::docx;
use crate::{TempDir, read_one};

/// One cell of 10,000 characters, 64 grid columns wide, merged down
/// 10,000 rows: 6.4 billion characters once every copy is made.
#[test]
fn a_docx_cell_merged_across_and_down_is_refused_as_it_grows() {
    let text = "x".repeat(10_000);
    let mut body = format!(
        r#"<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="64"/><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc></w:tr>"#
    );
    for _ in 0..10_000 {
        body.push_str(
            r#"<w:tr><w:tc><w:tcPr><w:gridSpan w:val="64"/><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr>"#,
        );
    }
    body.push_str("</w:tbl>");
    let dir = TempDir::new();
    let path = dir.write("merged.docx", docx(&body));
    assert_eq!(
        read_one(&path).unwrap_err().to_string(),
        format!(
            "{}: the files together hold more than 1000000 characters of text (the limit), counting this one",
            path.display()
        )
    );
}
