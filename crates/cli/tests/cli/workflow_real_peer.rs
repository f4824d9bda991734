//! The seed's classify example against the real llama.cpp server (the
//! local model `scripts/setup.sh` installs): the structured step must end
//! with an answer that matches its schema. `scripts/test.sh` runs it.

use std::path::PathBuf;

use serde_json::Value;
use sift_llm::local_server::{LocalServer, LocalServerConfig};

use crate::stderr;
use crate::workflow_support::{Scratch, assert_exit, step};

fn data_dir() -> PathBuf {
    std::env::var_os("SIFT_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            std::env::var_os("XDG_DATA_HOME")
                .map_or_else(|| home.join(".local/share"), PathBuf::from)
                .join("sift")
        })
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local model server (scripts/setup.sh)"]
async fn the_classify_example_gives_a_schema_valid_answer() {
    let mut config = LocalServerConfig::in_data_dir(&data_dir());
    // SmolLM2, the fast real model: this test is of the server, not of the default model.
    config.model_path = data_dir()
        .join("models")
        .join("SmolLM2-135M-Instruct.Q4_1.gguf");
    config.log_path =
        std::env::temp_dir().join(format!("sift-cli-wf-peer-{}.log", std::process::id()));
    let server = LocalServer::start(&config)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let scratch = Scratch::new("real-peer");
    let yaml = format!(
        "steps:
  - id: classify
    action: chat.completion
    with:
      provider: local
      model: {model}
      base_url: {base_url}
      prompt: \"Classify this note and extract the amount: please refund my 12.50\"
    output_schema:
      type: object
      properties:
        category:
          type: string
          enum: [refund, complaint, question]
        amount:
          type: number
      required: [category]
  - id: record
    depends: classify
    run: echo \"${{steps.classify.outputs.category}}\"
",
        model = server.model_alias(),
        base_url = server.base_url(),
    );
    let file = scratch.flow(&yaml, None);
    let (output, summary) = scratch.run_json(file, &[]).await;
    server.stop().await;
    assert_exit(&output, 0);
    let classify = step(&summary, "classify");
    assert_eq!(classify["status"], "succeeded", "{summary}");
    let stdout = classify["stdout"].as_str().unwrap();
    assert!(
        stdout.ends_with('\n') && stdout.matches('\n').count() == 1,
        "{stdout:?}"
    );
    let answer: Value = serde_json::from_str(stdout).unwrap();
    let object = answer.as_object().expect("the answer is an object");
    // Schema-valid: only listed properties, the required enum, a number.
    assert!(
        object.keys().all(|k| k == "category" || k == "amount"),
        "{answer}"
    );
    let category = answer["category"].as_str().expect("category is a string");
    assert!(
        ["refund", "complaint", "question"].contains(&category),
        "{answer}"
    );
    assert!(
        answer.get("amount").is_none_or(Value::is_number),
        "{answer}"
    );
    // Published as outputs, and used by the next step.
    assert_eq!(classify["outputs"], answer, "{}", stderr(&output));
    assert_eq!(step(&summary, "record")["stdout"], format!("{category}\n"));
}
