//! A model's tool call sets only the params its tool DAG declares, and no
//! param, whoever sets it, replaces a process variable such as `PATH` or
//! `LD_PRELOAD` in the tool's commands: a model steered by a hostile
//! document cannot choose which programs the tool runs or what they load.

use serde_json::json;
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_workflow::{RunOptions, RunStatus};

use crate::{Scratch, run_with};

/// The main DAG: one chat step offering `tool`.
fn asking(server: &ScriptedServer, tool: &str) -> String {
    format!(
        "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: {}
      stream: false
      prompt: Look around.
      tools: [{tool}]
---
",
        server.openai_base_url()
    )
}

/// A variable of this test's own process, as `"$NAME"` prints it.
fn own(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

#[tokio::test]
async fn an_argument_the_tool_does_not_declare_is_refused_and_never_reaches_its_commands() {
    let server = ScriptedServer::start(Script::new().with(
        "test-model",
        [
            Reply::tool_call(
                "show-env",
                json!({"q": "hi", "PATH": "/nowhere", "LD_PRELOAD": "/nowhere/evil.so"}),
            ),
            Reply::tool_call("show-env", json!({"q": "hi"})),
            Reply::text("Done."),
        ],
    ))
    .await
    .unwrap();
    let scratch = Scratch::new("tool-undeclared");
    let yaml = format!(
        "{}name: show-env
params: q
steps:
  - run: echo ran >> runs.txt && echo \"q=${{params.q}}\" && echo \"PATH=$PATH\" && echo \"LD_PRELOAD=[$LD_PRELOAD]\"
    output: SEEN
",
        asking(&server, "show-env")
    );
    let (record, _) = run_with(&yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(record.status, RunStatus::Succeeded, "{record:?}");
    assert_eq!(record.steps[0].stdout, "Done.\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    // The refused call is told to the model, naming what it may send.
    assert_eq!(
        requests[1].body["messages"][2]["content"],
        r#"Error: failed to parse arguments: unknown arguments "LD_PRELOAD", "PATH" (it takes q)"#
    );
    // The call with the declared param alone runs, in the process's own
    // environment.
    assert_eq!(
        requests[2].body["messages"][4]["content"],
        json!({"SEEN": format!(
            "q=hi\nPATH={}\nLD_PRELOAD=[{}]",
            own("PATH"),
            own("LD_PRELOAD")
        )})
        .to_string()
    );
    // The refused call ran nothing.
    assert_eq!(
        std::fs::read_to_string(scratch.0.join("runs.txt")).unwrap(),
        "ran\n"
    );
}

#[tokio::test]
async fn a_tool_without_params_refuses_any_argument() {
    let server = ScriptedServer::start(Script::new().with(
        "test-model",
        [
            Reply::tool_call("peek", json!({"BASH_ENV": "/nowhere/evil.sh"})),
            Reply::text("Done."),
        ],
    ))
    .await
    .unwrap();
    let scratch = Scratch::new("tool-no-params");
    let yaml = format!(
        "{}name: peek
steps:
  - run: echo ran >> runs.txt
",
        asking(&server, "peek")
    );
    let (record, _) = run_with(&yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(record.status, RunStatus::Succeeded, "{record:?}");
    let requests = server.requests();
    assert_eq!(
        requests[1].body["messages"][2]["content"],
        r#"Error: failed to parse arguments: unknown argument "BASH_ENV" (it takes no arguments)"#
    );
    assert!(!scratch.0.join("runs.txt").exists());
}

#[tokio::test]
async fn a_declared_param_named_like_a_process_variable_is_a_value_not_the_variable() {
    // The tool's author named its params PATH, LD_PRELOAD and HOME; the
    // model's values reach the command through `${params.X}` only.
    let server = ScriptedServer::start(Script::new().with(
        "test-model",
        [
            Reply::tool_call(
                "locate",
                json!({"PATH": "/nowhere", "LD_PRELOAD": "/nowhere/evil.so", "HOME": "/nowhere/home"}),
            ),
            Reply::text("Done."),
        ],
    ))
    .await
    .unwrap();
    let scratch = Scratch::new("tool-process-names");
    let yaml = format!(
        "{}name: locate
params: PATH LD_PRELOAD HOME
steps:
  - run: mkdir -p found && echo \"asked=${{params.PATH}} ${{params.LD_PRELOAD}} ${{params.HOME}}\" && echo \"PATH=$PATH\" && echo \"LD_PRELOAD=[$LD_PRELOAD]\" && echo \"HOME=$HOME\"
    output: SEEN
",
        asking(&server, "locate")
    );
    let (record, _) = run_with(&yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(record.status, RunStatus::Succeeded, "{record:?}");
    assert_eq!(record.steps[0].stdout, "Done.\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].body["messages"][2]["content"],
        json!({"SEEN": format!(
            "asked=/nowhere /nowhere/evil.so /nowhere/home\nPATH={}\nLD_PRELOAD=[{}]\nHOME={}",
            own("PATH"),
            own("LD_PRELOAD"),
            own("HOME")
        )})
        .to_string()
    );
    // `mkdir` was found on the process's own PATH.
    assert!(scratch.0.join("found").is_dir());
}
