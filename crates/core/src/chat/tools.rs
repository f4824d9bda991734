//! The tools a chat in the app may call. Each reads or acts on the user's
//! machine, so each asks the user first: the turn suspends until the call
//! is approved or denied (also across a restart, since tools are code and
//! the suspended turn is stored).

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_documents::{DocumentError, ReadOptions, expand_path, read_documents, render_text};
use sift_engine::{FnTool, ToolError, ToolOutput, Toolkit};
use sift_llm::ToolSpec;

/// The name of the tool that reads a document.
pub const READ_DOCUMENT: &str = "read_document";

/// The most text one call hands back: a model's context is finite, and
/// the rest of a long file would crowd out the conversation.
pub const READ_LIMIT_CHARS: usize = 20_000;

/// The chat tools of the app, in the order the model sees them; files
/// are read with `options` (`Workspace::read_options`).
pub fn chat_toolkit(options: ReadOptions) -> Toolkit {
    Toolkit::new().with(read_document_tool(options))
}

fn read_document_tool(options: ReadOptions) -> FnTool {
    let spec = ToolSpec {
        name: READ_DOCUMENT.to_owned(),
        description: "Read a document on the user's computer (text, Word, Excel, PDF or an image) and return its text. The user approves each call.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The file's absolute path"}
            },
            "required": ["path"],
        }),
    };
    FnTool::new(spec, move |arguments: Value| {
        let options = options.clone();
        async move {
            let path = arguments
                .get("path")
                .and_then(Value::as_str)
                .filter(|p| !p.trim().is_empty())
                .ok_or_else(|| ToolError("give the file's path as \"path\"".to_owned()))?
                .to_owned();
            tokio::task::spawn_blocking(move || read_text(&path, &options))
                .await
                .map_err(|e| ToolError(format!("reading stopped unexpectedly: {e}")))?
        }
    })
    .needing_approval()
}

/// The file a call of `tool` with `arguments` (JSON text as the model
/// produced it) would read, when it reads one: what the approval prompt
/// shows, so that the user approves the exact file (a model may write
/// `~/.ssh/id_rsa` or `../../x`, which the user should not have to
/// expand in their head).
pub fn file_to_read(tool: &str, arguments: &str) -> Option<PathBuf> {
    if tool != READ_DOCUMENT {
        return None;
    }
    let arguments: Value = serde_json::from_str(arguments).ok()?;
    let path = arguments.get("path")?.as_str()?;
    (!path.trim().is_empty()).then(|| expand_path(path, &working_dir()))
}

fn working_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// The document's text as the model reads files elsewhere in Sift (the
/// documents crate's blocks), cut at [`READ_LIMIT_CHARS`] with a note.
/// A tool's result is text, so the files are read as for a model that
/// cannot take images: with OCR `auto`, scans and photos give their text.
/// `path` names one file, taken literally as [`file_to_read`] shows it:
/// a pattern would read files the approval never named.
pub fn read_text(path: &str, options: &ReadOptions) -> Result<ToolOutput, ToolError> {
    let path = expand_path(path, &working_dir());
    let refused = match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => Some(DocumentError::IsDirectory { path: path.clone() }),
        Ok(_) => None,
        Err(_) => Some(DocumentError::NotFound { path: path.clone() }),
    };
    if let Some(error) = refused {
        return Err(ToolError(error.to_string()));
    }
    let paths = vec![path];
    let options = ReadOptions {
        model_takes_images: false,
        ..options.clone()
    };
    let documents = read_documents(&paths, &options).map_err(|e| ToolError(e.to_string()))?;
    let text = render_text(&documents);
    let total = text.chars().count();
    if total <= READ_LIMIT_CHARS {
        return Ok(ToolOutput::text(text));
    }
    let cut: String = text.chars().take(READ_LIMIT_CHARS).collect();
    Ok(ToolOutput::text(format!(
        "{cut}\n[cut at {READ_LIMIT_CHARS} of {total} characters]"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_asks_first_and_reads_through_the_documents_crate() {
        let toolkit = chat_toolkit(ReadOptions::default());
        let tool = toolkit.find(READ_DOCUMENT).map(|t| t.needs_approval());
        assert_eq!(tool, Some(true));
        let dir = std::env::temp_dir().join(format!("sift-chat-tools-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let file = dir.join("note.txt");
        std::fs::write(&file, "pay by Friday").ok();
        let output =
            read_text(&file.display().to_string(), &ReadOptions::default()).map(|o| o.content);
        assert_eq!(
            output,
            Ok("<file name=\"note.txt\">\npay by Friday\n</file>".to_owned())
        );
        let long = dir.join("long.txt");
        std::fs::write(&long, "x".repeat(READ_LIMIT_CHARS + 10)).ok();
        let output = read_text(&long.display().to_string(), &ReadOptions::default())
            .map(|o| o.content)
            .unwrap_or_default();
        assert!(
            output.ends_with(&format!(
                "\n[cut at {READ_LIMIT_CHARS} of {} characters]",
                READ_LIMIT_CHARS + 10 + 31
            )),
            "{}",
            &output[output.len() - 60..]
        );
        let missing = read_text(
            &dir.join("nope.txt").display().to_string(),
            &ReadOptions::default(),
        )
        .map_err(|e| e.0);
        assert_eq!(
            missing,
            Err(format!("{}: no such file", dir.join("nope.txt").display()))
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
