//! Using a local server another Sift process started, and only such a
//! one: whatever else listens on loopback (another user's program that
//! took a stale record's port, say) must never receive a document.
//!
//! A record ([`super::record`]) names the server; it is believed only
//! when all of these hold:
//!
//! 1. **The process it names holds the listening socket** (Linux): the
//!    socket's inode at that port, from `/proc/net/tcp`, is among the
//!    process's open files. Another user's process's files cannot be
//!    listed at all, so a squatter, or a stale record whose process id
//!    now belongs to something else, fails here. Elsewhere this check is
//!    skipped, and the two below stand alone.
//! 2. **It refuses a request without the key** (`GET /props` answers
//!    401): a server that answers anyone is not Sift's.
//! 3. **It answers the key** (`GET /props` with it answers 200 with the
//!    server's properties).
//!
//! And it must serve the model the caller wants (the record names its
//! file): the user may have chosen another since it started, or a command
//! may name its own (`SIFT_LOCAL_MODEL`).
//!
//! A failed check is not an error: the record is taken for stale, and the
//! caller starts a server of its own (on another random port, so the two
//! never fight over one), whose record replaces it.

use std::path::Path;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use super::ServerProps;
use super::record::{self, ServerRecord};
use crate::secret::ApiKey;

/// Long enough for a server busy with requests to answer `/props` (its
/// HTTP threads answer it beside the model's slots), short enough that a
/// dead record does not hold a command up.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// A server another Sift process started, checked; this process does not
/// stop it.
#[derive(Debug, Clone)]
pub struct AdoptedServer {
    record: ServerRecord,
    props: Option<ServerProps>,
}

impl AdoptedServer {
    /// The OpenAI-compatible base URL, `/v1` included.
    pub fn base_url(&self) -> String {
        self.record.base_url()
    }

    /// The key its requests carry.
    pub fn api_key(&self) -> &ApiKey {
        &self.record.key
    }

    pub fn port(&self) -> u16 {
        self.record.port
    }

    pub fn pid(&self) -> u32 {
        self.record.pid
    }

    /// Whether the record at `record_path` still names this server: when
    /// it does not, its starter has stopped it (or given it up).
    pub fn still_recorded(&self, record_path: &Path) -> bool {
        record::read(record_path).is_some_and(|entry| entry == self.record)
    }

    /// What the server said of itself when it was checked.
    pub fn props(&self) -> Option<&ServerProps> {
        self.props.as_ref()
    }
}

/// The server the record at `record_path` names, if it serves `model` and
/// passes every check (see the module comment); `None` for no record, a
/// record not to be believed, or a server of another model.
pub async fn adopt(record_path: &Path, model: &Path) -> Option<AdoptedServer> {
    let record = record::read(record_path)?;
    if !same_file(&record.model, model) {
        return None;
    }
    if !holds_listening_socket(record.pid, record.port) {
        return None;
    }
    let http = crate::http::client_builder()
        .timeout(CHECK_TIMEOUT)
        .build()
        .ok()?;
    let props_url = format!("http://127.0.0.1:{}/props", record.port);
    let anonymous = http.get(&props_url).send().await.ok()?;
    if anonymous.status() != StatusCode::UNAUTHORIZED {
        return None;
    }
    let keyed = http
        .get(&props_url)
        .bearer_auth(record.key.expose())
        .send()
        .await
        .ok()?;
    if !keyed.status().is_success() {
        return None;
    }
    let body = crate::http::read_capped(keyed, crate::http::MAX_REPLY_BYTES)
        .await
        .ok()
        .filter(|capped| !capped.cut)?;
    let props = ServerProps::from_json(&serde_json::from_slice::<Value>(&body.bytes).ok()?);
    Some(AdoptedServer { record, props })
}

/// Whether two paths name one file (through links), or are the same text.
fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Whether process `pid` holds the socket listening on loopback `port`.
#[cfg(target_os = "linux")]
pub(crate) fn holds_listening_socket(pid: u32, port: u16) -> bool {
    let Ok(table) = std::fs::read_to_string("/proc/net/tcp") else {
        return false;
    };
    let inodes = listening_inodes(&table, port);
    if inodes.is_empty() {
        return false;
    }
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|target| {
            let target = target.to_string_lossy();
            inodes
                .iter()
                .any(|inode| target == format!("socket:[{inode}]"))
        })
    })
}

/// Elsewhere the operating system's tables are not read (see the module
/// comment): the key checks stand alone.
#[cfg(not(target_os = "linux"))]
pub(crate) fn holds_listening_socket(_pid: u32, _port: u16) -> bool {
    true
}

/// The inodes of the IPv4 sockets listening (state `0A`) on `port` of
/// 127.0.0.1 or of every address, from `/proc/net/tcp`'s text: `sl
/// local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode`,
/// an address as `0100007F:1F90` (the IPv4 address in the host's byte
/// order, the port in hex).
#[cfg(any(target_os = "linux", test))]
fn listening_inodes(table: &str, port: u16) -> Vec<String> {
    let wanted_port = format!("{port:04X}");
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (address, state, inode) = (fields.get(1)?, fields.get(3)?, fields.get(9)?);
            let (host, port) = address.split_once(':')?;
            let loopback = matches!(host, "0100007F" | "7F000001" | "00000000");
            (loopback && port == wanted_port && *state == "0A" && *inode != "0")
                .then(|| (*inode).to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_the_listening_sockets_of_a_port() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0\n\
   1: 0100007F:1F90 0100007F:A000 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0000000000000000 100 0 0 10 0\n\
   2: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4444 1 0000000000000000 100 0 0 10 0\n";
        assert_eq!(listening_inodes(table, 0x1F90), vec!["4242".to_owned()]);
        assert!(listening_inodes(table, 1).is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn only_the_listening_process_holds_its_socket() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(holds_listening_socket(std::process::id(), port));
        // Process 1 is not this test, and its files are not this user's.
        assert!(!holds_listening_socket(1, port));
        drop(listener);
        assert!(!holds_listening_socket(std::process::id(), port));
    }
}
