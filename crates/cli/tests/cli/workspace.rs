//! `sift` opens the same workspace as the app: the database follows the
//! configuration file's `[defaults] data_dir`, and a failure's exit code
//! follows its kind.

use std::path::PathBuf;

use sift_store::Store;
use tokio::process::Command;

use crate::{run, sift, stderr, stdout};

/// A folder with a configuration file whose data folder is `data/`.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-cli-ws-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("config.toml"),
            format!(
                "[defaults]\ndata_dir = \"{}\"\n",
                dir.join("data").display()
            ),
        )
        .unwrap();
        std::fs::write(
            dir.join("invoice.json"),
            r#"{"type": "object", "properties": {"number": {"type": "string"}}}"#,
        )
        .unwrap();
        Self { dir }
    }

    /// `sift` with this configuration file and no `SIFT_DB`; the data
    /// directory elsewhere, so that only the settings can name `data/`.
    fn sift(&self) -> Command {
        let mut command = sift();
        command
            .env("SIFT_CONFIG", self.dir.join("config.toml"))
            .env("SIFT_DATA_DIR", self.dir.join("data-directory"))
            .env_remove("SIFT_DB");
        command
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[tokio::test]
async fn the_database_is_sift_db_in_the_data_dir_of_the_configuration_file() {
    let scratch = Scratch::new("data-dir");
    let schema = scratch.dir.join("invoice.json");
    let output = run(scratch.sift().args(["schema", "import"]).arg(&schema)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Version 1 is the starter invoice the new library was given.
    assert_eq!(stdout(&output), "invoice 2\n");
    let db = scratch.dir.join("data").join("sift.db");
    let store = Store::open(&db).unwrap();
    let names: Vec<String> = store
        .list_schemas()
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(
        names,
        ["bank_statement", "invoice", "purchase_order", "receipt"]
    );
    assert!(
        !scratch.dir.join("data-directory").join("sift.db").exists(),
        "the data directory's database is not used"
    );
    // `--db` still wins over the settings.
    let other = scratch.dir.join("other.db");
    let output = run(scratch.sift().args(["schema", "list", "--db"]).arg(&other)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // A new library: the starters alone (its invoice is still version 1).
    assert_eq!(
        stdout(&output),
        "bank_statement 1\ninvoice 1\npurchase_order 1\nreceipt 1\n"
    );
    let output = run(scratch.sift().args(["schema", "list"])).await;
    assert_eq!(
        stdout(&output),
        "bank_statement 1\ninvoice 2\npurchase_order 1\nreceipt 1\n"
    );
}

#[tokio::test]
async fn a_broken_configuration_file_fails_with_exit_1_not_as_a_usage_error() {
    let scratch = Scratch::new("broken-config");
    let config = scratch.dir.join("config.toml");
    std::fs::write(&config, "[defaults]\nmodle = \"x\"\n").unwrap();
    let output = run(scratch.sift().args(["schema", "list"])).await;
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(
        message.starts_with(&format!(
            "error (other): configuration: {}: ",
            config.display()
        )),
        "{message}"
    );
    assert!(message.contains("unknown field `modle`"), "{message}");
}

#[tokio::test]
async fn a_database_that_cannot_be_opened_fails_with_exit_1() {
    let scratch = Scratch::new("bad-db");
    // A folder where the database file should be.
    let output = run(scratch
        .sift()
        .args(["schema", "list", "--db"])
        .arg(&scratch.dir))
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("error (other): storage: "),
        "{}",
        stderr(&output)
    );
}
