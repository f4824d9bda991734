//! What the workflow tests share: a scratch folder per test (the workflow
//! file, scripts and the database live there, and `sift` runs in it), the
//! two commands, and readers for the `--json` run summary and the requests
//! the scripted server recorded.
//!
//! Workflow files are written with the placeholder `BASE_URL`, replaced by
//! the scripted server's OpenAI-compatible base URL, so each file reads as
//! the YAML a user would write.

use std::path::PathBuf;
use std::process::Output;

use serde_json::{Value, json};
use sift_scripted_server::{Script, ScriptedServer};

use crate::{run, sift, stderr, stdout};

/// A folder of its own for one test, removed when dropped.
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-cli-wf-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Writes `text` to `name` in the folder.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Writes an executable shell script.
    pub fn script(&self, name: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.write(name, text);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// Writes the workflow as `flow.yaml`, with `BASE_URL` replaced when a
    /// server is given.
    pub fn flow(&self, yaml: &str, server: Option<&ScriptedServer>) -> &'static str {
        let text = match server {
            Some(server) => yaml.replace("BASE_URL", &server.openai_base_url()),
            None => yaml.to_owned(),
        };
        self.write("flow.yaml", &text);
        "flow.yaml"
    }

    fn db(&self) -> String {
        self.path("sift.db").display().to_string()
    }

    /// `sift validate FILE`, run in the folder.
    pub async fn validate(&self, file: &str) -> Output {
        run(sift().current_dir(&self.dir).args(["validate", file])).await
    }

    /// `sift --db <folder>/sift.db run FILE ARGS...`, run in the folder.
    pub async fn run(&self, file: &str, args: &[&str]) -> Output {
        run(&mut self.run_command(file, args)).await
    }

    /// The same command, not started: for a test that sets more of its
    /// environment or reads its output as it comes.
    pub fn run_command(&self, file: &str, args: &[&str]) -> tokio::process::Command {
        let mut command = sift();
        command
            .current_dir(&self.dir)
            .args(["--db", &self.db(), "run", file])
            .args(args);
        command
    }

    /// `sift run FILE ARGS... --json`, and the summary it printed.
    pub async fn run_json(&self, file: &str, args: &[&str]) -> (Output, Value) {
        let mut all = args.to_vec();
        all.push("--json");
        let output = self.run(file, &all).await;
        let summary = summary(&output);
        (output, summary)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub async fn server(script: Script) -> ScriptedServer {
    ScriptedServer::start(script).await.unwrap()
}

/// The `--json` summary: stdout must be exactly one JSON object and a
/// newline, with `run_id`, `status` and `steps` and nothing else.
pub fn summary(output: &Output) -> Value {
    let text = stdout(output);
    assert!(
        text.ends_with('\n') && text.matches('\n').count() == 1,
        "stdout is not one line of JSON: {text:?}\nstderr: {}",
        stderr(output)
    );
    let value: Value = serde_json::from_str(&text).unwrap();
    let object = value.as_object().expect("the summary is not an object");
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["run_id", "status", "steps"], "{value}");
    assert!(
        value["run_id"].as_str().is_some_and(|id| !id.is_empty()),
        "{value}"
    );
    value
}

/// One step of a `--json` summary, by name.
pub fn step<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {summary}"))
}

/// A step as the summary must show it.
pub fn step_json(
    id: Option<&str>,
    name: &str,
    status: &str,
    stdout: &str,
    outputs: Value,
    error: Option<&str>,
) -> Value {
    json!({
        "id": id,
        "name": name,
        "status": status,
        "stdout": stdout,
        "stderr": "",
        "outputs": outputs,
        "error": error,
    })
}

/// The body of every model request so far.
pub fn bodies(server: &ScriptedServer) -> Vec<Value> {
    server.requests().into_iter().map(|r| r.body).collect()
}

/// The exit code, with stderr in the message when it is not `expected`.
pub fn assert_exit(output: &Output, expected: i32) {
    assert_eq!(
        output.status.code(),
        Some(expected),
        "stdout: {}\nstderr: {}",
        stdout(output),
        stderr(output)
    );
}
