//! Naming files.

use sift_documents::resolve_files;

use crate::TempDir;

fn specs(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn paths_globs_and_lines_in_the_order_named_each_once() {
    let dir = TempDir::new();
    let b = dir.write("in/b.pdf", "");
    let a = dir.write("in/a.pdf", "");
    let note = dir.write("note.txt", "");
    let deep = dir.write("in/sub/c.pdf", "");
    dir.write("in/skip.txt", "");
    let found = resolve_files(
        &specs(&[
            "note.txt",
            "in/*.pdf",
            &format!("{}\n\n  in/b.pdf  \nnote.txt", note.display()),
        ]),
        dir.path(),
    )
    .unwrap();
    assert_eq!(found, vec![note.clone(), a.clone(), b.clone()]);
    let found = resolve_files(&specs(&["in/**/*.pdf"]), dir.path()).unwrap();
    assert_eq!(found, vec![a.clone(), b.clone(), deep.clone()]);
    let found = resolve_files(&specs(&["./in/../in/{b,a}.pdf"]), dir.path()).unwrap();
    assert_eq!(found, vec![a, b]);
}

#[test]
fn missing_files_patterns_matching_nothing_and_directories_are_refused() {
    let dir = TempDir::new();
    dir.write("in/a.pdf", "");
    let error = resolve_files(&specs(&["in/missing.pdf"]), dir.path()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: no such file",
            dir.path().join("in/missing.pdf").display()
        )
    );
    let error = resolve_files(&specs(&["in/*.docx"]), dir.path()).unwrap_err();
    assert_eq!(error.to_string(), "in/*.docx: no file matches this pattern");
    let error = resolve_files(&specs(&["in"]), dir.path()).unwrap_err();
    let in_dir = dir.path().join("in");
    assert_eq!(
        error.to_string(),
        format!(
            "{}: is a directory, not a file (name its files, e.g. {}/*.pdf)",
            in_dir.display(),
            in_dir.display()
        )
    );
}

#[test]
fn tilde_is_the_home_directory() {
    let home = std::path::PathBuf::from(std::env::var("HOME").unwrap());
    let error = resolve_files(
        &specs(&["~/sift-no-such-file-4d1c.pdf"]),
        std::path::Path::new("/"),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: no such file",
            home.join("sift-no-such-file-4d1c.pdf").display()
        )
    );
}
