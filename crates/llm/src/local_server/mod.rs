//! The local model server: llama.cpp's OpenAI-compatible server (from the
//! `llama-cpp-python` package), started as a child process on loopback and
//! stopped when its handle is dropped. This is Sift's default provider, so
//! nothing leaves the machine unless the user picks a cloud provider.

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::process::{Child, ChildStdin, Command};

/// Runs the server with a watchdog thread that exits the process when its
/// standard input closes. Sift holds the other end of that pipe, so the
/// server goes away with Sift however Sift ends, a crash or `kill -9`
/// included; `kill_on_drop` alone covers only an orderly exit.
const LAUNCHER: &str = "\
import os, runpy, sys, threading
def watch():
    sys.stdin.buffer.read()
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
sys.argv = ['llama_cpp.server'] + sys.argv[1:]
runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)
";

/// The name the local model is served under.
pub const DEFAULT_MODEL_ALIAS: &str = "smollm2";
/// The model file the set-up installs.
pub const DEFAULT_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

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
}

#[derive(Debug, Clone)]
pub struct LocalServerConfig {
    /// The Python of the environment that has `llama-cpp-python[server]`.
    pub python: PathBuf,
    pub model_path: PathBuf,
    pub model_alias: String,
    /// 0 picks a free port.
    pub port: u16,
    pub context_tokens: u32,
    /// Threads for generation and prompt processing. One keeps the other
    /// core free for the app on a two-core machine.
    pub threads: u32,
    pub startup_timeout: Duration,
    /// The server's output goes here, for diagnosing a failed start.
    pub log_path: PathBuf,
}

impl LocalServerConfig {
    /// Where `scripts/setup.sh` installs things, under Sift's data directory.
    /// `SIFT_LLAMA_PYTHON` and `SIFT_LOCAL_MODEL` override the two paths.
    pub fn in_data_dir(data_dir: &Path) -> Self {
        let python = std::env::var_os("SIFT_LLAMA_PYTHON")
            .map_or_else(|| data_dir.join("llama-server/bin/python"), PathBuf::from);
        let model_path = std::env::var_os("SIFT_LOCAL_MODEL").map_or_else(
            || data_dir.join("models").join(DEFAULT_MODEL_FILE),
            PathBuf::from,
        );
        Self {
            python,
            model_path,
            model_alias: DEFAULT_MODEL_ALIAS.to_owned(),
            port: 0,
            context_tokens: 2048,
            threads: 1,
            startup_timeout: Duration::from_secs(120),
            log_path: data_dir.join("logs/llama-server.log"),
        }
    }
}

/// A running local server. Dropping it kills the process.
#[derive(Debug)]
pub struct LocalServer {
    child: Child,
    /// Held only to be closed: see [`LAUNCHER`].
    _lifeline: Option<ChildStdin>,
    port: u16,
    model_alias: String,
}

impl LocalServer {
    pub async fn start(config: &LocalServerConfig) -> Result<Self, LocalServerError> {
        if !config.python.exists() {
            return Err(LocalServerError::NotInstalled {
                path: config.python.clone(),
                var: "SIFT_LLAMA_PYTHON",
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
        if let Some(dir) = config.log_path.parent() {
            std::fs::create_dir_all(dir).map_err(LocalServerError::Spawn)?;
        }
        let log = std::fs::File::create(&config.log_path).map_err(LocalServerError::Spawn)?;
        let log_err = log.try_clone().map_err(LocalServerError::Spawn)?;
        let mut child = Command::new(&config.python)
            .args(["-c", LAUNCHER, "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .arg("--model")
            .arg(&config.model_path)
            .args(["--model_alias", &config.model_alias])
            .args(["--n_ctx", &config.context_tokens.to_string()])
            .args(["--n_threads", &config.threads.to_string()])
            .args(["--n_threads_batch", &config.threads.to_string()])
            // By default a new request (even `GET /v1/models`) ends the
            // answer being streamed with an empty `[DONE]`; Sift sends
            // requests concurrently, so they must queue instead.
            .args(["--interrupt_requests", "False"])
            .stdin(Stdio::piped())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log_err))
            .kill_on_drop(true)
            .spawn()
            .map_err(LocalServerError::Spawn)?;
        let lifeline = child.stdin.take();
        let mut server = Self {
            child,
            _lifeline: lifeline,
            port,
            model_alias: config.model_alias.clone(),
        };
        server.wait_until_ready(config).await?;
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

    /// Stops the server and waits for it to exit.
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }

    async fn wait_until_ready(
        &mut self,
        config: &LocalServerConfig,
    ) -> Result<(), LocalServerError> {
        let started = Instant::now();
        let http = reqwest::Client::new();
        let url = format!("{}/models", self.base_url());
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(LocalServerError::Exited {
                    status: status.to_string(),
                    log_tail: log_tail(&config.log_path, 20),
                });
            }
            let probe = http.get(&url).timeout(Duration::from_secs(2)).send().await;
            if probe.is_ok_and(|r| r.status().is_success()) {
                return Ok(());
            }
            if started.elapsed() > config.startup_timeout {
                return Err(LocalServerError::Timeout(config.startup_timeout.as_secs()));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// Whether an OpenAI-compatible server answers `GET {base_url}/models`.
pub async fn is_serving(base_url: &str) -> bool {
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let probe = reqwest::Client::new()
        .get(url)
        .timeout(Duration::from_secs(2))
        .send()
        .await;
    probe.is_ok_and(|r| r.status().is_success())
}

fn free_port() -> std::io::Result<u16> {
    // The port is free when asked; the small race before the server binds
    // it is acceptable on a desktop.
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    Ok(listener.local_addr()?.port())
}

fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
