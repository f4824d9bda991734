//! `with.files`: the files a chat step reads, through the documents crate
//! (the seed's Files section; dagu has no such field). The text goes in
//! blocks ahead of the last user message, images after it as image parts;
//! any refused file fails the step before a request is made.
//!
//! The expected text of corpus files is what `sift read` prints for them:
//! it is the documents crate's assembly, which the README promises is
//! "exactly what a model would receive".

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_scripted_server::{Reply, Script, ServerIdentity};

use crate::workflow_support::{Scratch, assert_exit, bodies, server, step};
use crate::{run, sift, stderr};

/// A corpus file, by its canonical path.
fn corpus(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    std::fs::canonicalize(dir)
        .unwrap()
        .join(name)
        .display()
        .to_string()
}

/// What `sift read --json --ocr off` gives for these files, read in
/// `scratch` (a workflow's files without OCR turned on).
async fn read(scratch: &Scratch, files: &[&str]) -> Value {
    read_with(scratch, &["--ocr", "off"], files).await
}

/// What `sift read --json OPTIONS FILES...` gives, read in `scratch`.
async fn read_with(scratch: &Scratch, options: &[&str], files: &[&str]) -> Value {
    let output = run(sift()
        .current_dir(&scratch.dir)
        .args(["read", "--json"])
        .args(options)
        .args(files))
    .await;
    assert_exit(&output, 0);
    serde_json::from_str(&crate::stdout(&output)).unwrap()
}

/// A scripted server that says, as llama.cpp's `/props` does, that its
/// model takes images: the files' images go to it as they always have.
async fn vision_server(script: Script) -> sift_scripted_server::ScriptedServer {
    server(script.answering_as(ServerIdentity::LlamaCpp {
        vision: true,
        supports_tools: None,
        n_ctx: 4096,
        total_slots: 1,
    }))
    .await
}

/// A one-step workflow: chat step `ask` with `files` (YAML lines, indented
/// for `with`) and a prompt.
fn ask_files(files: &str, prompt: &str) -> String {
    format!(
        "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      stream: false
      prompt: \"{prompt}\"
{files}"
    )
}

/// The decoded size of a `data:MIME;base64,...` URL, and its MIME type.
fn data_url(url: &str) -> (String, usize) {
    let rest = url.strip_prefix("data:").expect("not a data URL");
    let (mime, data) = rest.split_once(";base64,").expect("not base64");
    let padding = data.chars().rev().take_while(|c| *c == '=').count();
    (mime.to_owned(), data.len() / 4 * 3 - padding)
}

#[tokio::test]
async fn a_text_file_goes_in_a_block_ahead_of_the_prompt() {
    let server = server(Script::new().with("test-model", [Reply::text("12.50")])).await;
    let scratch = Scratch::new("files-text");
    scratch.write("note.txt", "Total: 12.50\r\n");
    let file = scratch.flow(
        &ask_files("      files: note.txt\n", "What is the total?"),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(crate::stdout(&output), "12.50\n");
    assert_eq!(
        bodies(&server),
        vec![json!({"model": "test-model", "messages": [{
            "role": "user",
            "content": "<file name=\"note.txt\">\nTotal: 12.50\n</file>\n\nWhat is the total?",
        }]})]
    );
}

/// A list of a path, a glob and a corpus file by absolute path: each read
/// once, in the order named (a glob's matches sorted).
#[tokio::test]
async fn a_list_of_paths_and_globs_in_the_order_named() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("files-list");
    scratch.write("b.md", "# B\n");
    scratch.write("a.md", "# A\n");
    scratch.write("note.txt", "first\n");
    let orlen = corpus("i2d_Orlen.txt");
    let files = format!(
        "      files:\n        - note.txt\n        - \"*.md\"\n        - {orlen}\n        - a.md\n"
    );
    let file = scratch.flow(&ask_files(&files, "Summarise."), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    let expected = read(&scratch, &["note.txt", "a.md", "b.md", &orlen]).await;
    let text = expected["text"].as_str().unwrap();
    assert!(
        text.starts_with("<file name=\"note.txt\">\nfirst\n</file>\n\n<file name=\"a.md\">\n# A\n</file>\n\n<file name=\"b.md\">\n# B\n</file>\n\n<file name=\"i2d_Orlen.txt\">\nFaktura nr: F 1234K20/1234/12"),
        "{text}"
    );
    assert_eq!(
        bodies(&server)[0]["messages"],
        json!([{"role": "user", "content": format!("{text}\n\nSummarise.")}])
    );
}

/// Several files as one string, one a line.
#[tokio::test]
async fn one_file_a_line() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("files-lines");
    scratch.write("one.txt", "1\n");
    scratch.write("two.txt", "2\n");
    let file = scratch.flow(
        &ask_files("      files: |\n        two.txt\n        one.txt\n", "Add."),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        bodies(&server)[0]["messages"][0]["content"],
        "<file name=\"two.txt\">\n2\n</file>\n\n<file name=\"one.txt\">\n1\n</file>\n\nAdd."
    );
}

#[tokio::test]
async fn a_pdf_goes_page_by_page() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("files-pdf");
    let pdf = corpus("i2d_QualityHosting.pdf");
    let file = scratch.flow(
        &ask_files(&format!("      files: {pdf}\n"), "Read the invoice."),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    let expected = read(&scratch, &[&pdf]).await;
    let text = expected["text"].as_str().unwrap();
    assert!(text.contains("\n--- page 2 ---\n"), "{text}");
    assert_eq!(expected["images"], json!([]));
    assert_eq!(
        bodies(&server)[0]["messages"],
        json!([{"role": "user", "content": format!("{text}\n\nRead the invoice.")}])
    );
}

/// An image is named in the text and attached after it; a scanned PDF
/// page is rendered to an image and numbered after it.
#[tokio::test]
async fn images_go_with_the_message_as_image_parts() {
    let server = vision_server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("files-images");
    scratch.write("note.txt", "Receipt below.\n");
    let (jpg, scan) = (corpus("sroie_000.jpg"), corpus("docling_ocr_test.pdf"));
    let files = format!("      files:\n        - note.txt\n        - {jpg}\n        - {scan}\n");
    let file = scratch.flow(&ask_files(&files, "What is the total?"), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    let expected = read(&scratch, &["note.txt", &jpg, &scan]).await;
    assert_eq!(
        expected["text"],
        "<file name=\"note.txt\">\nReceipt below.\n</file>\n\n<file name=\"sroie_000.jpg\">\n[Image 1 is sroie_000.jpg.]\n</file>\n\n<file name=\"docling_ocr_test.pdf\">\n--- page 1: image 2 ---\n</file>"
    );
    let content = &bodies(&server)[0]["messages"][0]["content"];
    let parts = content.as_array().expect("content parts");
    assert_eq!(parts.len(), 3, "{content}");
    assert_eq!(
        parts[0],
        json!({"type": "text", "text": format!("{}\n\nWhat is the total?", expected["text"].as_str().unwrap())})
    );
    for (part, image) in parts[1..]
        .iter()
        .zip(expected["images"].as_array().unwrap())
    {
        assert_eq!(part["type"], "image_url");
        let (mime, bytes) = data_url(part["image_url"]["url"].as_str().unwrap());
        assert_eq!(
            (json!(mime), json!(bytes)),
            (image["mime"].clone(), image["bytes"].clone())
        );
    }
}

/// With `messages`, the files go ahead of the last user message only.
#[tokio::test]
async fn files_go_with_the_last_user_message() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("files-messages");
    scratch.write("note.txt", "Total: 12.50\n");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      stream: false
      files: note.txt
      messages:
        - role: user
          content: Hello.
        - role: assistant
          content: Hi.
        - role: user
          content: What is the total?
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        bodies(&server)[0]["messages"],
        json!([
            {"role": "user", "content": "Hello."},
            {"role": "assistant", "content": "Hi."},
            {"role": "user", "content": "<file name=\"note.txt\">\nTotal: 12.50\n</file>\n\nWhat is the total?"},
        ])
    );
}

/// A refused file fails the step before any request; the error is the
/// documents crate's, naming the file; dependents are skipped.
async fn assert_refused_before_any_request(name: &str, files: &str, error: &str) {
    let server = server(Script::new().with("test-model", [Reply::text("never").repeated()])).await;
    let scratch = Scratch::new(name);
    scratch.write("note.txt", "Total: 12.50\n");
    scratch.write("data.bin", "\u{0}\u{1}\u{2}");
    let dir = std::fs::canonicalize(&scratch.dir).unwrap();
    let files = files.replace("DIR", &dir.display().to_string());
    let yaml =
        ask_files(&files, "Read it.") + "  - id: after\n    depends: ask\n    run: echo never\n";
    let file = scratch.flow(&yaml, Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 1);
    assert!(server.requests().is_empty(), "a request was made");
    let ask = step(&summary, "ask");
    assert_eq!(ask["status"], "failed", "{summary}");
    assert_eq!(
        ask["error"],
        error.replace("DIR", &dir.display().to_string()),
        "{}",
        stderr(&output)
    );
    assert_eq!(step(&summary, "after")["status"], "skipped");
}

#[tokio::test]
async fn a_missing_file_fails_the_step_before_any_request() {
    assert_refused_before_any_request(
        "files-missing",
        "      files:\n        - note.txt\n        - missing.txt\n",
        "DIR/missing.txt: no such file",
    )
    .await;
}

#[tokio::test]
async fn a_pattern_matching_nothing_fails_the_step_before_any_request() {
    assert_refused_before_any_request(
        "files-no-match",
        "      files: \"DIR/*.pdf\"\n",
        "DIR/*.pdf: no file matches this pattern",
    )
    .await;
}

#[tokio::test]
async fn another_kind_of_file_fails_the_step_before_any_request() {
    assert_refused_before_any_request(
        "files-kind",
        "      files: data.bin\n",
        "DIR/data.bin: Sift does not read this kind of file (.bin); it reads text (.txt .md .csv .tsv .json .jsonl .yaml .yml .xml .html .htm .log), Word (.docx), Excel (.xlsx .xlsm), PDF and images (.png .jpg .jpeg .gif .webp)",
    )
    .await;
}

/// The session keeps the file text, so a later step reads it; the images
/// went with the one request and are not kept.
#[tokio::test]
async fn a_later_step_of_the_session_keeps_the_text_but_not_the_images() {
    let server = vision_server(Script::new().with(
        "test-model",
        [Reply::text("It says 12.50."), Reply::text("12.50")],
    ))
    .await;
    let scratch = Scratch::new("files-session");
    scratch.write("note.txt", "Total: 12.50\n");
    let jpg = corpus("sroie_000.jpg");
    let yaml = format!(
        "{}  - id: again
    depends: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      stream: false
      prompt: Just the number.
",
        ask_files(
            &format!("      files:\n        - note.txt\n        - {jpg}\n"),
            "What is the total?"
        )
    );
    let file = scratch.flow(&yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(crate::stdout(&output), "It says 12.50.\n12.50\n");
    let requests = bodies(&server);
    assert_eq!(requests.len(), 2);
    let text = "<file name=\"note.txt\">\nTotal: 12.50\n</file>\n\n<file name=\"sroie_000.jpg\">\n[Image 1 is sroie_000.jpg.]\n</file>\n\nWhat is the total?";
    assert_eq!(requests[0]["messages"][0]["content"][0]["text"], text);
    assert_eq!(
        requests[1]["messages"],
        json!([
            {"role": "user", "content": text},
            {"role": "assistant", "content": "It says 12.50."},
            {"role": "user", "content": "Just the number."},
        ])
    );
}

/// The seed's invoice example: files with `output_schema`.
#[tokio::test]
async fn files_with_output_schema() {
    let server = server(Script::new().with(
        "test-model",
        [Reply::tool_call(
            "respond",
            json!({"number": "INV-7", "total": 12.5}),
        )],
    ))
    .await;
    let scratch = Scratch::new("files-schema");
    scratch.write("invoice-7.txt", "Invoice INV-7\nTotal 12.50\n");
    let yaml = "steps:
  - id: read
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: Read the invoice and give its number, date, and total.
      files: invoice-*.txt
    output_schema:
      type: object
      properties:
        number: {type: string}
        date: {type: string}
        total: {type: number}
      required: [number]
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        crate::stdout(&output),
        "{\"number\":\"INV-7\",\"total\":12.5}\n"
    );
    assert_eq!(
        bodies(&server)[0]["messages"][1],
        json!({"role": "user", "content": "<file name=\"invoice-7.txt\">\nInvoice INV-7\nTotal 12.50\n</file>\n\nRead the invoice and give its number, date, and total."})
    );
}

/// Word, Excel and Shift_JIS text are given as text, as `sift read` shows.
#[tokio::test]
async fn office_files_and_shift_jis_text_are_read_as_text() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("files-kinds");
    let names = [
        corpus("docling_word_tables.docx"),
        corpus("calamine_date.xlsx"),
        corpus("cpython_shift_jis.txt"),
    ];
    let files: String = names.iter().map(|n| format!("        - {n}\n")).collect();
    let file = scratch.flow(
        &ask_files(&format!("      files:\n{files}"), "Summarise."),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let expected = read(&scratch, &names).await;
    let text = expected["text"].as_str().unwrap();
    assert!(
        text.contains("</file>\n\n<file name=\"calamine_date.xlsx\">\n--- sheet "),
        "{text}"
    );
    assert_eq!(
        bodies(&server)[0]["messages"],
        json!([{"role": "user", "content": format!("{text}\n\nSummarise.")}])
    );
}

#[tokio::test]
async fn a_file_over_50_mb_fails_the_step_before_any_request() {
    let server = server(Script::new().with("test-model", [Reply::text("never")])).await;
    let scratch = Scratch::new("files-big");
    // Sparse: the size is what counts, not the bytes written.
    std::fs::File::create(scratch.path("big.txt"))
        .unwrap()
        .set_len(50_000_001)
        .unwrap();
    let file = scratch.flow(
        &ask_files("      files: big.txt\n", "Read it."),
        Some(&server),
    );
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 1);
    assert!(server.requests().is_empty(), "a request was made");
    let dir = std::fs::canonicalize(&scratch.dir).unwrap();
    assert_eq!(
        step(&summary, "ask")["error"],
        format!(
            "{}/big.txt: the file is 50000001 bytes, over the limit of 50000000 bytes (50 MB)",
            dir.display()
        )
    );
}

/// A leading `~` is the home directory.
#[tokio::test]
async fn a_leading_tilde_is_the_home_directory() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("files-home");
    std::fs::create_dir_all(scratch.path("home")).unwrap();
    std::fs::write(scratch.path("home/note.txt"), "at home\n").unwrap();
    let file = scratch.flow(
        &ask_files("      files: ~/note.txt\n", "Where?"),
        Some(&server),
    );
    let output = run(scratch
        .run_command(file, &[])
        .env("HOME", scratch.path("home")))
    .await;
    assert_exit(&output, 0);
    assert_eq!(
        bodies(&server)[0]["messages"][0]["content"],
        "<file name=\"note.txt\">\nat home\n</file>\n\nWhere?"
    );
}

/// `ocr: always` for a model that takes images: the receipt's OCR text
/// follows its line, and the image is still attached, exactly as `sift
/// read --ocr always` shows.
#[tokio::test]
async fn ocr_always_sends_the_text_of_an_image_with_the_image() {
    let server = vision_server(Script::new().with("test-model", [Reply::text("9.00")])).await;
    let scratch = Scratch::new("files-ocr-always");
    let jpg = corpus("sroie_000.jpg");
    let files = format!("      ocr: always\n      files: {jpg}\n");
    let file = scratch.flow(&ask_files(&files, "What is the total?"), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    let expected = read_with(&scratch, &["--ocr", "always"], &[&jpg]).await;
    let text = expected["text"].as_str().unwrap();
    assert!(
        text.starts_with("<file name=\"sroie_000.jpg\">\n[Image 1 is sroie_000.jpg.]\n")
            && text.contains("25/12/2018 8:13:39 PM")
            && text.contains(" 9.00"),
        "{text}"
    );
    let content = &bodies(&server)[0]["messages"][0]["content"];
    let parts = content.as_array().expect("content parts");
    assert_eq!(parts.len(), 2, "{content}");
    assert_eq!(
        parts[0],
        json!({"type": "text", "text": format!("{text}\n\nWhat is the total?")})
    );
    assert_eq!(parts[1]["type"], "image_url");
    let (mime, bytes) = data_url(parts[1]["image_url"]["url"].as_str().unwrap());
    assert_eq!(
        (json!(mime), json!(bytes)),
        (
            expected["images"][0]["mime"].clone(),
            expected["images"][0]["bytes"].clone()
        )
    );
}

/// A model that cannot take images (a server that cannot tell, a model
/// no known family names), with the default `ocr: auto`: the receipt's
/// text and no image, exactly as `sift read --text-only` shows.
#[tokio::test]
async fn a_text_only_model_gets_the_ocr_text_and_no_image() {
    let server = server(Script::new().with("test-model", [Reply::text("9.00")])).await;
    let scratch = Scratch::new("files-ocr-auto");
    let jpg = corpus("sroie_000.jpg");
    let file = scratch.flow(
        &ask_files(&format!("      files: {jpg}\n"), "What is the total?"),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    let expected = read_with(&scratch, &["--text-only"], &[&jpg]).await;
    let text = expected["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "<file name=\"sroie_000.jpg\">\n[Image omitted: sroie_000.jpg; the model reads its text.]\n"
        ) && text.contains("25/12/2018 8:13:39 PM")
            && text.contains(" 9.00"),
        "{text}"
    );
    assert_eq!(expected["images"], json!([]));
    assert_eq!(
        bodies(&server)[0]["messages"],
        json!([{"role": "user", "content": format!("{text}\n\nWhat is the total?")}])
    );
}

/// `ocr: off` for a model that cannot take images: the image is left out
/// and only its line says so.
#[tokio::test]
async fn ocr_off_for_a_text_only_model_sends_the_omitted_line_only() {
    let server = server(Script::new().with("test-model", [Reply::text("?")])).await;
    let scratch = Scratch::new("files-ocr-off");
    let jpg = corpus("sroie_000.jpg");
    let files = format!("      ocr: off\n      files: {jpg}\n");
    let file = scratch.flow(&ask_files(&files, "What is the total?"), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        bodies(&server)[0]["messages"],
        json!([{"role": "user", "content": "<file name=\"sroie_000.jpg\">\n[Image omitted: sroie_000.jpg.]\n</file>\n\nWhat is the total?"}])
    );
}
