//! The local server's log, and the folder Sift makes for it, are the
//! user's alone: a stand-in for llama-server that writes a line and exits.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sift_llm::local_server::{LocalServer, LocalServerConfig, LocalServerError};

/// The permission bits in octal, as `ls` and `chmod` write them.
fn mode(path: &Path) -> String {
    let mode = std::fs::metadata(path).unwrap().permissions().mode();
    format!("{:o}", mode & 0o777)
}

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn the_log_is_0600_in_a_folder_made_0700() {
    let dir = TempDir(std::env::temp_dir().join(format!(
        "sift-llm-log-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )));
    std::fs::create_dir_all(&dir.0).unwrap();
    let program = dir.0.join("llama-server");
    std::fs::write(&program, "#!/bin/sh\necho 'loading the model'\nexit 3\n").unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let model = dir.0.join("m.gguf");
    std::fs::write(&model, b"GGUF").unwrap();
    let mut config = LocalServerConfig::in_data_dir(&dir.0);
    config.program = program;
    config.model_path = model;

    let error = LocalServer::start(&config).await.unwrap_err();

    let LocalServerError::Exited { status, log_tail } = error else {
        panic!("{error}");
    };
    assert_eq!(
        (status.as_str(), log_tail.as_str()),
        ("exit status: 3", "loading the model")
    );
    assert_eq!(config.log_path, dir.0.join("logs/llama-server.log"));
    assert_eq!(mode(&dir.0.join("logs")), "700");
    assert_eq!(mode(&config.log_path), "600");
}
