//! Shell steps: `sh -c COMMAND`, stdout and stderr captured and passed on
//! as they arrive, the process killed when the run is cancelled.

use std::path::Path;
use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

/// Which stream a piece of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// How a command ended.
#[derive(Debug)]
pub(crate) enum ShellEnd {
    Succeeded,
    /// `exit status N`, `killed by signal N`, or why it could not start.
    Failed(String),
    Cancelled,
}

pub(crate) async fn run_shell(
    command: &str,
    dir: &Path,
    env: &[(String, String)],
    cancel: &CancellationToken,
    on_output: &(dyn Fn(Stream, &str) + Send + Sync),
) -> ShellEnd {
    let mut child = match Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(child) => child,
        Err(e) => return ShellEnd::Failed(format!("cannot start sh in {}: {e}", dir.display())),
    };
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return ShellEnd::Failed("the command's output could not be captured".to_owned());
    };
    let outputs = async {
        tokio::join!(
            pump(stdout, Stream::Stdout, on_output),
            pump(stderr, Stream::Stderr, on_output)
        )
    };
    let waited = async {
        let (_, _) = outputs.await;
        child.wait().await
    };
    tokio::select! {
        status = waited => match status {
            Ok(status) if status.success() => ShellEnd::Succeeded,
            Ok(status) => ShellEnd::Failed(describe_exit(status)),
            Err(e) => ShellEnd::Failed(format!("waiting for the command failed: {e}")),
        },
        () = cancel.cancelled() => ShellEnd::Cancelled,
    }
}

/// Passes on output as it arrives, split at UTF-8 boundaries so that a
/// character cut between two reads is not garbled.
async fn pump(
    mut reader: impl AsyncRead + Unpin,
    stream: Stream,
    on_output: &(dyn Fn(Stream, &str) + Send + Sync),
) {
    let mut buffer = vec![0u8; 8192];
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let n = match reader.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buffer[..n]);
        let valid = match std::str::from_utf8(&pending) {
            Ok(_) => pending.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            // Not UTF-8 at all: pass it on lossily rather than hold it forever.
            Err(_) => pending.len(),
        };
        if valid > 0 {
            let text = String::from_utf8_lossy(&pending[..valid]).into_owned();
            pending.drain(..valid);
            on_output(stream, &text);
        }
    }
    if !pending.is_empty() {
        on_output(stream, &String::from_utf8_lossy(&pending));
    }
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    "ended without an exit status".to_owned()
}
