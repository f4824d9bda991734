//! The record of a running local server (its port, its process id and its
//! key), which lets another Sift process share it: the CLI while the app
//! runs, or the app while a long `sift extract` runs.
//!
//! Why a file, and why there:
//!
//! - The port is random at each start and the key is fresh at each start
//!   ([`super::LocalServer::start`]), so nothing fixed can say where the
//!   server is; the one that started it has to tell the others.
//! - It lives in the runtime directory (`$XDG_RUNTIME_DIR/sift`), which
//!   the system makes the user's alone and empties at log-out, so a
//!   record never outlives the session by much. Without one, it lives in
//!   a `run` folder in the data directory. Either folder is made 0700 and
//!   the file 0600: the key is the only thing between the server and
//!   every other user and web page on the machine.
//! - One record per data directory (its path hashed into the name in the
//!   shared runtime directory): the server serves the model chosen in that
//!   data directory, so two data directories (a test's and the user's) do
//!   not share one.
//!
//! A record is a claim, not a proof: [`super::adopt`] checks it before any
//! request is sent to the server it names.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::secret::ApiKey;

/// The most a record may be: a few dozen bytes are written, so anything
/// larger is not one of Sift's.
const MAX_RECORD_BYTES: u64 = 4096;

/// A running server, as its starter recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerRecord {
    /// The loopback port it listens on.
    pub port: u16,
    /// Its process id.
    pub pid: u32,
    /// The key it asks of every request but `/health`.
    pub key: ApiKey,
    /// The model file it serves: a process that wants another model (the
    /// user chose one since, or a command names its own) starts a server
    /// of its own rather than have its documents read by the wrong model.
    pub model: PathBuf,
}

/// The record as a file holds it; the key is read into an [`ApiKey`] at
/// once, so that it is never printed.
#[derive(Serialize, Deserialize)]
struct OnDisk {
    port: u16,
    pid: u32,
    key: String,
    model: PathBuf,
}

impl ServerRecord {
    /// The OpenAI-compatible base URL, `/v1` included.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

/// A fresh key: 32 bytes from the operating system's CSPRNG, as 64 hex
/// digits (a header-safe text, and more than anyone can guess).
pub fn fresh_key() -> Result<ApiKey, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(ApiKey::new(hex))
}

/// Where the record of the server for `data_dir` lives.
pub fn record_path(data_dir: &Path) -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
    {
        Some(runtime) => runtime.join("sift").join(format!(
            "local-server-{:016x}.json",
            fnv1a(data_dir.as_os_str().as_encoded_bytes())
        )),
        None => data_dir.join("run").join("local-server.json"),
    }
}

/// FNV-1a, 64 bits: a stable name for a path (not a secret, and not a
/// defence: the folder is the user's alone).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Writes `record` at `path`: a 0600 file in a 0700 folder, whole or not
/// at all (written beside it, then renamed over it), so a reader never
/// sees half a record.
pub fn write(path: &Path, record: &ServerRecord) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    private_dir(dir)?;
    let text = serde_json::to_vec(&OnDisk {
        port: record.port,
        pid: record.pid,
        key: record.key.expose().to_owned(),
        model: record.model.clone(),
    })?;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let scratch = dir.join(name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&scratch).and_then(|mut file| {
        file.write_all(&text)?;
        file.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&scratch, path)) {
        Ok(()) => Ok(()),
        Err(error) => {
            let _ = std::fs::remove_file(&scratch);
            Err(error)
        }
    }
}

/// The folder, made if missing, and the user's alone (0700) on Unix: a
/// folder whose mode cannot be set (someone else's) is refused.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    #[cfg(unix)]
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
    Ok(())
}

/// The record at `path`, if there is one that reads as a record: a file
/// that others can read or write (not one Sift wrote) is ignored.
pub fn read(path: &Path) -> Option<ServerRecord> {
    let metadata = std::fs::symlink_metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_RECORD_BYTES {
        return None;
    }
    #[cfg(unix)]
    if std::os::unix::fs::PermissionsExt::mode(&metadata.permissions()) & 0o077 != 0 {
        return None;
    }
    let on_disk: OnDisk = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    Some(ServerRecord {
        port: on_disk.port,
        pid: on_disk.pid,
        key: ApiKey::new(on_disk.key),
        model: on_disk.model,
    })
}

/// Removes the record at `path` if it still names `pid`: a later server
/// (started after this one was given up for dead) keeps its own.
pub fn remove_if_names(path: &Path, pid: u32) {
    if read(path).is_some_and(|record| record.pid == pid) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fresh_hex() {
        let (a, b) = (fresh_key().unwrap(), fresh_key().unwrap());
        assert_eq!(a.expose().len(), 64);
        assert!(a.expose().bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn a_record_is_written_0600_and_read_back() {
        let dir = std::env::temp_dir().join(format!("sift-record-{}", std::process::id()));
        let path = dir.join("run/local-server.json");
        let record = ServerRecord {
            port: 4242,
            pid: 7,
            key: fresh_key().unwrap(),
            model: PathBuf::from("/models/a model.gguf"),
        };
        write(&path, &record).unwrap();
        assert_eq!(read(&path), Some(record.clone()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(&dir.join("run")), 0o700);
            // One that others may read is not Sift's: ignored.
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(read(&path), None);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        // Another server's record stays; this one's goes.
        remove_if_names(&path, 8);
        assert!(path.exists());
        remove_if_names(&path, 7);
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn each_data_directory_has_its_own_record() {
        assert_ne!(fnv1a(b"/home/a/.local/share/sift"), fnv1a(b"/tmp/test"));
        assert_eq!(record_path(Path::new("/d")), record_path(Path::new("/d")));
    }
}
