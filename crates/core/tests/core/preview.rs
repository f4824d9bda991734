//! Previews of corpus documents: a PDF page and an image as pictures of
//! the expected size, a spreadsheet as its text, and a page that is not
//! there refused with its count.

use std::path::PathBuf;

use sift_core::evidence::preview::{PREVIEW_EDGE, PreviewContent, preview};

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name)
}

fn picture(content: &PreviewContent) -> (&str, &[u8], u32, u32) {
    match content {
        PreviewContent::Image {
            mime,
            data,
            width,
            height,
        } => (mime, data, *width, *height),
        PreviewContent::Text(text) => panic!("expected a picture, got text {text:?}"),
    }
}

#[test]
fn a_text_pdf_page_is_rendered_as_a_picture() {
    let shown = preview(&corpus("i2d_AmazonWebServices.pdf"), 0).unwrap();
    assert_eq!((shown.page, shown.page_count), (0, 1));
    let (mime, data, width, height) = picture(&shown.content);
    // A4/Letter portrait: the long edge is the height, at the preview's size.
    assert_eq!(height, PREVIEW_EDGE);
    assert!(
        width < height && width > PREVIEW_EDGE / 2,
        "{width}x{height}"
    );
    match mime {
        "image/png" => assert!(data.starts_with(b"\x89PNG")),
        "image/jpeg" => assert!(data.starts_with(&[0xFF, 0xD8])),
        other => panic!("unexpected type {other}"),
    }
}

#[test]
fn a_page_past_the_end_is_refused_with_the_count() {
    let error = preview(&corpus("i2d_AmazonWebServices.pdf"), 3).unwrap_err();
    assert_eq!(error.code(), "document");
    assert!(
        error.to_string().contains("has no page 4 (1 pages)"),
        "{error}"
    );
}

#[test]
fn an_image_is_scaled_like_the_models_copy() {
    // 789x557: below the model's 1568 px edge, so kept at its size.
    let shown = preview(&corpus("i2d_FlipkartInvoice.png"), 0).unwrap();
    let (_, _, width, height) = picture(&shown.content);
    assert_eq!((width, height), (789, 557));
    assert_eq!(shown.page_count, 1);
}

#[test]
fn a_spreadsheet_is_shown_as_its_text() {
    let shown = preview(&corpus("calamine_date.xlsx"), 0).unwrap();
    match shown.content {
        PreviewContent::Text(text) => {
            assert!(text.starts_with("--- sheet "), "{text}");
        }
        PreviewContent::Image { .. } => panic!("a spreadsheet has no picture"),
    }
}
