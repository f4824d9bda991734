//! The exact text and images a model receives.

use sift_documents::{Content, DocumentError, attach, block_name, render_text};
use sift_llm::message::{Image, Message, Part, Role};

use crate::fixtures::{PdfPage, pdf, pdf_with_font_map, png};
use crate::{TempDir, read};

#[test]
fn each_file_in_its_block_pages_marked_and_images_numbered_in_order() {
    let dir = TempDir::new();
    let notes = dir.write("notes.txt", "Pay by Friday.\r\nThanks\n");
    let invoice = dir.write(
        "invoice.pdf",
        pdf(&[
            PdfPage::text(300, 150, &["Invoice 42", "Total 12.50"]),
            PdfPage::scan(300, 150),
            PdfPage::text(300, 150, &["Page three"]),
        ]),
    );
    let receipt = dir.write("receipt.png", png(40, 20, [200, 10, 10]));
    let documents = read(&[notes, invoice, receipt]).unwrap();
    assert_eq!(
        render_text(&documents),
        "<file name=\"notes.txt\">\nPay by Friday.\nThanks\n</file>\n\n\
         <file name=\"invoice.pdf\">\n--- page 1 ---\nInvoice 42\nTotal 12.50\n--- page 2: image 1 ---\n--- page 3 ---\nPage three\n</file>\n\n\
         <file name=\"receipt.png\">\n[Image 2 is receipt.png.]\n</file>"
    );
    let images: Vec<(&str, u32, u32)> = documents
        .images()
        .iter()
        .map(|i| (i.name.as_str(), i.width, i.height))
        .collect();
    // A 300x150 pt page is rendered at 300 dpi (1250 px), under the 1568 px edge.
    assert_eq!(
        images,
        vec![("invoice.pdf page 2", 1250, 625), ("receipt.png", 40, 20)]
    );
}

#[test]
fn a_character_mapped_to_half_a_surrogate_pair_costs_that_character_not_the_page() {
    // The font maps `@` to U+D83D alone, the first half of an emoji's pair
    // (as some Factur-X samples' phone icons are): the rest of the page is
    // read, the broken character as U+FFFD.
    let dir = TempDir::new();
    let map = "2 beginbfrange <20> <3F> <0020> <41> <7E> <0041> endbfrange\n\
               1 beginbfchar <40> <D83D> endbfchar";
    let invoice = dir.write(
        "phone.pdf",
        pdf_with_font_map(
            &[PdfPage::text(
                300,
                150,
                &["@ +33 4 50 44 68 99", "Facture FA-2017-0010"],
            )],
            Some(map),
        ),
    );
    let documents = read(&[invoice]).unwrap();
    assert_eq!(
        render_text(&documents),
        "<file name=\"phone.pdf\">\n--- page 1 ---\n\u{fffd} +33 4 50 44 68 99\nFacture FA-2017-0010\n</file>"
    );
}

#[test]
fn attach_puts_the_files_ahead_of_the_last_user_message_and_the_images_after_it() {
    let dir = TempDir::new();
    let a = dir.write("a.txt", "alpha");
    let scan = dir.write("scan.pdf", pdf(&[PdfPage::scan(612, 792)]));
    let photo = dir.write("photo.png", png(10, 10, [0, 128, 255]));
    let documents = read(&[a, scan, photo]).unwrap();
    let mut messages = vec![
        Message::system("Be exact."),
        Message::user("first question"),
        Message::assistant("an answer"),
        Message::user("Read the invoice."),
    ];
    attach(&mut messages, &documents).unwrap();
    let images = documents.images();
    assert_eq!((images[0].width, images[0].height), (1212, 1568));
    assert_eq!(
        messages[..3],
        [
            Message::system("Be exact."),
            Message::user("first question"),
            Message::assistant("an answer")
        ]
    );
    assert_eq!(messages[3].role, Role::User);
    assert_eq!(
        messages[3].parts,
        vec![
            Part::Text {
                text: "<file name=\"a.txt\">\nalpha\n</file>\n\n<file name=\"scan.pdf\">\n--- page 1: image 1 ---\n</file>\n\n\
                       <file name=\"photo.png\">\n[Image 2 is photo.png.]\n</file>\n\nRead the invoice."
                    .into()
            },
            Part::Image(Image { mime: images[0].mime.clone(), data: images[0].data.clone() }),
            Part::Image(Image { mime: images[1].mime.clone(), data: images[1].data.clone() }),
        ]
    );
}

#[test]
fn attach_without_a_user_message_is_refused_and_without_files_changes_nothing() {
    let dir = TempDir::new();
    let documents = read(&[dir.write("a.txt", "alpha")]).unwrap();
    let mut messages = vec![Message::system("only a system message")];
    assert!(matches!(
        attach(&mut messages, &documents),
        Err(DocumentError::NoUserMessage)
    ));
    let mut messages = vec![Message::user("hi")];
    attach(&mut messages, &read(&[]).unwrap()).unwrap();
    assert_eq!(messages, vec![Message::user("hi")]);
}

#[test]
fn names_are_escaped_in_the_block_and_empty_files_have_empty_blocks() {
    assert_eq!(
        block_name("a&b \"c\" <d>.txt"),
        "a&amp;b &quot;c&quot; &lt;d&gt;.txt"
    );
    let dir = TempDir::new();
    let documents = read(&[
        dir.write("R&D \"plan\".txt", ""),
        dir.write("blank.pdf", pdf(&[PdfPage::blank(200, 200)])),
    ])
    .unwrap();
    assert_eq!(
        render_text(&documents),
        "<file name=\"R&amp;D &quot;plan&quot;.txt\">\n</file>\n\n<file name=\"blank.pdf\">\n--- page 1 ---\n</file>"
    );
}

#[test]
fn a_scan_with_an_ocr_layer_is_rendered_and_keeps_its_invisible_text() {
    let dir = TempDir::new();
    let mut page = PdfPage::scan(300, 150);
    page.invisible = Some("OCR words");
    let mut visible = PdfPage::scan(300, 150);
    visible.lines = vec!["Printed words"];
    let documents = read(&[dir.write("ocr.pdf", pdf(&[page, visible]))]).unwrap();
    assert_eq!(
        render_text(&documents),
        "<file name=\"ocr.pdf\">\n--- page 1: image 1 ---\nOCR words\n--- page 2 ---\nPrinted words\n</file>"
    );
    let Content::Pages(pages) = &documents.files[0].content else {
        panic!("not pages")
    };
    assert!(pages[1].image.is_none());
}
