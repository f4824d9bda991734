//! Naming files: paths and glob patterns, `~`, relative paths, one per line.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use globset::GlobBuilder;

use crate::DocumentError;

/// The files that `specs` name, in the order named, each once.
///
/// Each spec is a path or a glob pattern (`*`, `?`, `[...]`, `{a,b}`, `**`);
/// a spec holding several lines names one file or pattern per line (blank
/// lines are skipped). A leading `~` is the home directory; a relative path
/// is under `working_dir`. A pattern's matches are sorted by path. A path
/// that exists is taken literally even when it holds pattern characters.
///
/// Refused: a path that names no file or names a directory, and a pattern
/// that matches no file.
pub fn resolve_files(specs: &[String], working_dir: &Path) -> Result<Vec<PathBuf>, DocumentError> {
    let mut seen = HashSet::new();
    let mut files = Vec::new();
    for spec in specs {
        for line in spec.lines() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            for path in resolve_one(line, working_dir)? {
                if seen.insert(path.clone()) {
                    files.push(path);
                }
            }
        }
    }
    Ok(files)
}

/// The file `spec` names, taken literally (no pattern): a leading `~` is
/// the home directory, a relative path is under `working_dir`, and `.`
/// and `..` are resolved. What a prompt shows before a file is read, so
/// that the path approved is the path read.
pub fn expand_path(spec: &str, working_dir: &Path) -> PathBuf {
    normalize(&expand(spec.trim(), working_dir))
}

fn expand(spec: &str, working_dir: &Path) -> PathBuf {
    let expanded = if spec == "~" {
        dirs::home_dir().unwrap_or_else(|| PathBuf::from(spec))
    } else if let Some(rest) = spec.strip_prefix("~/") {
        match dirs::home_dir() {
            Some(home) => home.join(rest),
            None => PathBuf::from(spec),
        }
    } else {
        PathBuf::from(spec)
    };
    if expanded.is_absolute() {
        expanded
    } else {
        working_dir.join(expanded)
    }
}

fn is_pattern(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

fn resolve_one(spec: &str, working_dir: &Path) -> Result<Vec<PathBuf>, DocumentError> {
    let path = normalize(&expand(spec, working_dir));
    if !is_pattern(spec) || path.exists() {
        return match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => Err(DocumentError::IsDirectory { path }),
            Ok(_) => Ok(vec![path]),
            Err(_) => Err(DocumentError::NotFound { path }),
        };
    }
    // The directory to walk: the components before the first one with a
    // pattern character.
    let mut base = PathBuf::new();
    let mut rest = Vec::new();
    for component in path.components() {
        let text = component.as_os_str().to_string_lossy();
        if rest.is_empty() && !is_pattern(&text) {
            base.push(component);
        } else {
            rest.push(text.into_owned());
        }
    }
    let recursive = rest.iter().any(|c| c.contains("**"));
    let depth = rest.len();
    let pattern = path.to_string_lossy().into_owned();
    let glob = GlobBuilder::new(&pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| DocumentError::BadPattern {
            pattern: spec.to_string(),
            reason: e.kind().to_string(),
        })?
        .compile_matcher();
    let mut matches = Vec::new();
    walk(
        &base,
        1,
        if recursive { usize::MAX } else { depth },
        recursive,
        &mut |file| {
            if glob.is_match(file) {
                matches.push(file.to_path_buf());
            }
        },
    );
    if matches.is_empty() {
        return Err(DocumentError::NoMatch {
            pattern: spec.to_string(),
        });
    }
    matches.sort();
    Ok(matches)
}

/// Calls `found` with every file under `dir` down to `max_depth` levels.
/// A `**` walk (`recursive`) does not enter a symbolic link to a
/// directory, as bash's `globstar` does not: a link to a folder above it
/// would make the walk endless. A pattern of fixed depth follows them,
/// like a shell's glob, its depth bounding the walk.
fn walk(dir: &Path, depth: usize, max_depth: usize, recursive: bool, found: &mut dyn FnMut(&Path)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            let link = entry.file_type().is_ok_and(|t| t.is_symlink());
            if depth < max_depth && !(recursive && link) {
                walk(&path, depth + 1, max_depth, recursive, found);
            }
        } else if depth <= max_depth {
            found(&path);
        }
    }
}

/// Removes `.` components and resolves `..` lexically, so that a pattern
/// such as `../in/*.pdf` matches the paths the walk produces.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}
