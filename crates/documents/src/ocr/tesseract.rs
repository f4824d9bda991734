//! The `tesseract` program: one process a recognition, fed a PNG on its
//! standard input, its TSV read from its standard output. At most one
//! process a core runs at once, across every read in the process.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex, OnceLock};

use super::OcrOptions;
use super::error::OcrError;

/// Tesseract, checked: the program runs and has every language asked for.
#[derive(Debug, Clone)]
pub(crate) struct Tesseract {
    program: PathBuf,
    languages: String,
}

/// The page segmentation Tesseract is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Automatic (`--psm 3`): pages with columns, tables, blocks.
    Page,
    /// One column of lines of varying size (`--psm 4`): receipts.
    Column,
    /// One uniform block of text (`--psm 6`): the second reading of every
    /// page (see `recognize`).
    Block,
}

/// Where Tesseract's orientation detection found the page's top.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Orientation {
    /// Degrees clockwise to turn the image to make it upright.
    pub rotate: u16,
    pub confidence: f32,
}

impl Tesseract {
    /// Checks the program and the languages (once per program).
    pub fn new(options: &OcrOptions) -> Result<Self, OcrError> {
        let program = options
            .tesseract
            .clone()
            .unwrap_or_else(|| PathBuf::from("tesseract"));
        let installed = installed_languages(&program)?;
        for language in &options.languages {
            if !installed.iter().any(|l| l == language) {
                return Err(OcrError::LanguageMissing {
                    language: language.clone(),
                    package: format!(
                        "tesseract-ocr-{}",
                        language.to_ascii_lowercase().replace('_', "-")
                    ),
                });
            }
        }
        Ok(Self {
            program,
            languages: options.language_arg(),
        })
    }

    /// The words of a PNG, as Tesseract's TSV, with page segmentation
    /// mode `psm` and Tesseract's default (Otsu) thresholding: on the
    /// corpus, its adaptive ones (`thresholding_method=1` and `2`) lost
    /// whole receipts.
    pub fn tsv(&self, png: &[u8], psm: Layout) -> Result<String, OcrError> {
        let psm = match psm {
            Layout::Page => "3",
            Layout::Column => "4",
            Layout::Block => "6",
        };
        let output = self.run(png, &["-l", &self.languages, "--psm", psm, "tsv"])?;
        if !output.status.success() {
            return Err(OcrError::Failed {
                reason: format!(
                    "tesseract exited with {}: {}",
                    output.status,
                    String::from_utf8_lossy(&output.stderr).trim()
                ),
            });
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// The page's orientation (`--psm 0`), or `None` when Tesseract cannot
    /// tell (too few characters, say).
    pub fn orientation(&self, png: &[u8]) -> Result<Option<Orientation>, OcrError> {
        let output = self.run(png, &["--psm", "0"])?;
        Ok(parse_orientation(&String::from_utf8_lossy(&output.stdout)))
    }

    fn run(&self, input: &[u8], args: &[&str]) -> Result<std::process::Output, OcrError> {
        let _slot = ProcessSlot::take();
        run_program(&self.program, input, args)
    }
}

/// Tesseract's orientation report (`--psm 0`): `Rotate:` and
/// `Orientation confidence:`; `None` when either is missing.
pub(crate) fn parse_orientation(text: &str) -> Option<Orientation> {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse::<f32>().ok())
    };
    match (field("Rotate:"), field("Orientation confidence:")) {
        (Some(rotate), Some(confidence)) => Some(Orientation {
            rotate: (rotate.round() as i32).rem_euclid(360) as u16,
            confidence,
        }),
        _ => None,
    }
}

fn run_program(
    program: &Path,
    input: &[u8],
    args: &[&str],
) -> Result<std::process::Output, OcrError> {
    let mut child = Command::new(program)
        .args(["stdin", "stdout"])
        .args(args)
        // One thread a process: pages run in parallel instead, which is
        // faster than Tesseract's own threads on a page.
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| not_installed(program, &source))?;
    let mut stdin = child.stdin.take();
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    // Written and read side by side: a large image fills the pipe before
    // Tesseract has read it, and its TSV can fill the other one.
    let (out, err) = std::thread::scope(|scope| {
        scope.spawn(move || {
            if let Some(stdin) = stdin.as_mut() {
                // A Tesseract that stops reading early reports why on stderr.
                let _ = stdin.write_all(input);
            }
            drop(stdin);
        });
        let err = scope.spawn(move || {
            let mut buffer = Vec::new();
            if let Some(stderr) = stderr.as_mut() {
                let _ = stderr.read_to_end(&mut buffer);
            }
            buffer
        });
        let mut out = Vec::new();
        if let Some(stdout) = stdout.as_mut() {
            let _ = stdout.read_to_end(&mut out);
        }
        (out, err.join().unwrap_or_default())
    });
    let status = child.wait().map_err(|e| OcrError::Failed {
        reason: format!("waiting for tesseract: {e}"),
    })?;
    Ok(std::process::Output {
        status,
        stdout: out,
        stderr: err,
    })
}

fn not_installed(program: &Path, source: &std::io::Error) -> OcrError {
    OcrError::NotInstalled {
        program: program.to_path_buf(),
        reason: source.to_string(),
    }
}

/// The languages the program has (`tesseract --list-langs`), asked once
/// per program.
pub(crate) fn installed_languages(program: &Path) -> Result<Vec<String>, OcrError> {
    static KNOWN: OnceLock<Mutex<HashMap<PathBuf, Vec<String>>>> = OnceLock::new();
    let known = KNOWN.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(languages) = known
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(program)
    {
        return Ok(languages.clone());
    }
    let output = Command::new(program)
        .arg("--list-langs")
        .stdin(Stdio::null())
        .output()
        .map_err(|source| not_installed(program, &source))?;
    if !output.status.success() {
        return Err(OcrError::NotInstalled {
            program: program.to_path_buf(),
            reason: format!(
                "`{} --list-langs` exited with {}",
                program.display(),
                output.status
            ),
        });
    }
    // The first line says where the packs are; a line a language follows.
    let languages: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    known
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(program.to_path_buf(), languages.clone());
    Ok(languages)
}

/// One of the process slots: as many as the machine has cores.
struct ProcessSlot;

static RUNNING: Mutex<usize> = Mutex::new(0);
static FREED: Condvar = Condvar::new();

impl ProcessSlot {
    fn take() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut running = RUNNING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while *running >= cores {
            running = FREED
                .wait(running)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *running += 1;
        Self
    }
}

impl Drop for ProcessSlot {
    fn drop(&mut self) {
        let mut running = RUNNING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *running = running.saturating_sub(1);
        FREED.notify_one();
    }
}
