//! YAML text to [`Workflow`]. Parsing is lenient: a value of the wrong
//! shape is recorded as a problem on its DAG (reported by `validate` with
//! the rest) rather than ending the parse, so that an editor can show every
//! problem at once. Only text that is not YAML at all is an error here.

use serde_json::{Map, Value};

use crate::params::{parse_params, scalar_text, split_assignments};
use crate::spec::{ChatStep, Dag, Step, StepAction, Workflow};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("invalid YAML: {0}")]
    Yaml(String),
    #[error("the file holds no workflow")]
    Empty,
    #[error("DAG at index {0} must be a mapping")]
    NotMapping(usize),
}

/// Parses every `---` document: the first is the main DAG, the rest are
/// named DAGs. Empty documents are skipped.
pub fn parse(text: &str) -> Result<Workflow, ParseError> {
    let documents: Vec<Value> =
        serde_saphyr::from_multiple(text).map_err(|e| ParseError::Yaml(e.to_string()))?;
    let mut dags = Vec::new();
    for (index, document) in documents.into_iter().filter(|d| !d.is_null()).enumerate() {
        match document {
            Value::Object(map) => dags.push(parse_dag(&map)),
            _ => return Err(ParseError::NotMapping(index)),
        }
    }
    if dags.is_empty() {
        return Err(ParseError::Empty);
    }
    Ok(Workflow { dags })
}

fn parse_dag(map: &Map<String, Value>) -> Dag {
    let mut dag = Dag {
        name: map.get("name").map(scalar_text),
        description: map.get("description").map(scalar_text),
        ..Dag::default()
    };
    if let Some(params) = map.get("params") {
        match parse_params(params) {
            Ok(params) => dag.params = params,
            Err(problem) => dag.problems.push(problem),
        }
    }
    if let Some(env) = map.get("env") {
        match parse_env(env) {
            Ok(env) => dag.env = env,
            Err(problem) => dag.problems.push(problem),
        }
    }
    match map.get("llm") {
        None | Some(Value::Null) => {}
        Some(Value::Object(llm)) => dag.llm = Some(llm.clone()),
        Some(_) => dag.problems.push("llm must be a mapping".to_owned()),
    }
    if let Some(limit) = map.get("max_active_steps") {
        match limit.as_u64().filter(|n| *n > 0) {
            Some(n) => dag.max_active_steps = Some(usize::try_from(n).unwrap_or(usize::MAX)),
            None => dag
                .problems
                .push("max_active_steps must be a positive integer".to_owned()),
        }
    }
    match map.get("steps") {
        None | Some(Value::Null) => {}
        Some(Value::Array(steps)) => {
            for (index, step) in steps.iter().enumerate() {
                match step {
                    Value::Object(step) => {
                        dag.steps.push(parse_step(step, index, &mut dag.problems));
                    }
                    _ => dag
                        .problems
                        .push(format!("steps[{index}] must be a mapping")),
                }
            }
        }
        Some(_) => dag.problems.push("steps must be a list".to_owned()),
    }
    dag
}

/// `env:` as a list of `KEY: value` mappings or `KEY=value` strings, or one mapping.
pub(crate) fn parse_env(value: &Value) -> Result<Vec<(String, String)>, String> {
    let mut env = Vec::new();
    match value {
        Value::Null => {}
        Value::Object(map) => {
            env.extend(map.iter().map(|(k, v)| (k.clone(), scalar_text(v))));
        }
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Object(map) => {
                        env.extend(map.iter().map(|(k, v)| (k.clone(), scalar_text(v))));
                    }
                    Value::String(text) => match text.split_once('=') {
                        Some((k, v)) => env.push((k.trim().to_owned(), v.to_owned())),
                        None => return Err(format!("env entry {text:?} must be KEY=value")),
                    },
                    _ => return Err("each env entry must be KEY: value".to_owned()),
                }
            }
        }
        _ => return Err("env must be a list or a mapping".to_owned()),
    }
    Ok(env)
}

fn parse_step(map: &Map<String, Value>, index: usize, problems: &mut Vec<String>) -> Step {
    let id = map.get("id").map(scalar_text);
    let name = map
        .get("name")
        .map(scalar_text)
        .or_else(|| id.clone())
        .unwrap_or_else(|| format!("step_{}", index + 1));
    let depends = match map.get("depends") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(many)) => many.iter().map(scalar_text).collect(),
        Some(_) => {
            problems.push(format!(
                "step '{name}': depends must be a step name or a list of them"
            ));
            Vec::new()
        }
    };
    let output = match map.get("output") {
        None | Some(Value::Null) => None,
        Some(Value::String(var)) => Some(var.trim_start_matches('$').to_owned()),
        Some(_) => {
            problems.push(format!("step '{name}': output must be a variable name"));
            None
        }
    };
    let env = match map.get("env").map(parse_env) {
        None => Vec::new(),
        Some(Ok(env)) => env,
        Some(Err(problem)) => {
            problems.push(format!("step '{name}': {problem}"));
            Vec::new()
        }
    };
    let action = parse_action(map, &name, problems);
    Step {
        id,
        name,
        depends,
        action,
        output,
        dir: map
            .get("dir")
            .or_else(|| map.get("working_dir"))
            .map(scalar_text),
        env,
    }
}

fn parse_action(map: &Map<String, Value>, name: &str, problems: &mut Vec<String>) -> StepAction {
    let with = match map.get("with") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(with)) => with.clone(),
        Some(_) => {
            problems.push(format!("step '{name}': with must be a mapping"));
            Map::new()
        }
    };
    if let Some(action) = map.get("action") {
        return match action.as_str() {
            Some("chat.completion") => {
                let mut with = with;
                let nested = with.remove("output_schema");
                StepAction::Chat(ChatStep {
                    output_schema: map.get("output_schema").cloned().or(nested),
                    with,
                })
            }
            Some("dag.run") => StepAction::DagRun {
                dag: with.get("dag").map(scalar_text).unwrap_or_default(),
                params: run_params(with.get("params")),
            },
            _ => StepAction::Unsupported(format!("action {}", scalar_text(action))),
        };
    }
    if let Some(call) = map.get("call") {
        return StepAction::DagRun {
            dag: scalar_text(call),
            params: run_params(map.get("params")),
        };
    }
    for key in ["run", "command", "script"] {
        match map.get(key) {
            Some(Value::String(command)) => return StepAction::Command(command.clone()),
            Some(Value::Array(words)) => {
                let words: Vec<String> = words.iter().map(scalar_text).collect();
                return StepAction::Command(words.join(" "));
            }
            // `run: true` is YAML's boolean, but meant as the command.
            Some(scalar @ (Value::Bool(_) | Value::Number(_))) => {
                return StepAction::Command(scalar_text(scalar));
            }
            _ => {}
        }
    }
    if map.get("type").and_then(Value::as_str) == Some("chat") {
        return StepAction::Unsupported(
            "type: chat (write action: chat.completion with its fields under with)".to_owned(),
        );
    }
    StepAction::Unsupported(String::new())
}

fn run_params(value: Option<&Value>) -> Vec<(String, String)> {
    match value {
        Some(Value::String(text)) => split_assignments(text)
            .into_iter()
            .map(|(k, v)| (k, v.unwrap_or_default()))
            .collect(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| (k.clone(), scalar_text(v)))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_become_the_main_dag_then_named_dags() {
        let workflow = parse(
            "steps:\n  - id: a\n    run: echo hi\n    output: GREETING\n---\n---\nname: tool\nparams: CITY\nsteps:\n  - command: echo $CITY\n",
        )
        .unwrap();
        assert_eq!(workflow.dags.len(), 2);
        let step = &workflow.main().steps[0];
        assert_eq!(step.name, "a");
        assert_eq!(step.action, StepAction::Command("echo hi".into()));
        assert_eq!(step.output.as_deref(), Some("GREETING"));
        let tool = workflow.dag("tool").unwrap();
        assert_eq!(tool.params[0].name, "CITY");
        assert_eq!(tool.steps[0].name, "step_1");
    }

    #[test]
    fn output_schema_is_read_beside_with_or_inside_it() {
        let workflow = parse(
            "steps:\n  - action: chat.completion\n    with:\n      prompt: hi\n      output_schema: {type: object}\n",
        )
        .unwrap();
        let StepAction::Chat(chat) = &workflow.main().steps[0].action else {
            panic!("not a chat step");
        };
        assert_eq!(
            chat.output_schema,
            Some(serde_json::json!({"type": "object"}))
        );
        assert!(!chat.with.contains_key("output_schema"));
    }

    #[test]
    fn shapes_that_are_wrong_are_problems_not_errors() {
        let workflow =
            parse("steps:\n  - 3\n  - id: b\n    depends: {x: 1}\n    run: true\n").unwrap();
        assert_eq!(
            workflow.main().problems,
            vec![
                "steps[0] must be a mapping".to_owned(),
                "step 'b': depends must be a step name or a list of them".to_owned()
            ]
        );
        assert!(matches!(
            parse("steps: [").unwrap_err(),
            ParseError::Yaml(_)
        ));
        assert_eq!(parse("").unwrap_err(), ParseError::Empty);
        assert_eq!(parse("- a\n").unwrap_err(), ParseError::NotMapping(0));
    }
}
