//! Every rule a workflow file must follow before it runs, with dagu's
//! messages where dagu has the rule. Step problems are led by
//! `step '<name>': `.

use std::collections::HashMap;

use crate::chat::config::read_config;
use crate::plan::{cycle, dag_run_cycle, find_step};
use crate::spec::{Dag, StepAction, Workflow};

const RESERVED_IDS: &[&str] = &[
    "env", "params", "args", "stdout", "stderr", "output", "outputs",
];

/// Every problem of the file, in file order; empty when it may run.
pub fn validate(workflow: &Workflow) -> Vec<String> {
    let mut problems = Vec::new();
    let mut dag_names: HashMap<&str, usize> = HashMap::new();
    for (index, dag) in workflow.dags.iter().enumerate() {
        match &dag.name {
            None if index > 0 => problems.push(format!(
                "DAG at index {index} must have a name in multi-DAG file"
            )),
            Some(name) => {
                let seen = dag_names.entry(name).or_default();
                *seen += 1;
                if *seen == 2 {
                    problems.push(format!("duplicate DAG name {name:?} found"));
                }
            }
            None => {}
        }
        problems.extend(dag.problems.iter().cloned());
        problems.extend(dag_problems(workflow, dag));
    }
    // Worded as dagu words a cycle of steps (`cyclic plan detected`): a
    // DAG that runs itself, directly or through others, would never end.
    if let Some(names) = dag_run_cycle(workflow) {
        problems.push(format!("cyclic dag.run detected: {}", names.join(" -> ")));
    }
    problems
}

fn dag_problems(workflow: &Workflow, dag: &Dag) -> Vec<String> {
    let mut problems = Vec::new();
    if dag
        .llm
        .as_ref()
        .is_some_and(|llm| llm.contains_key("files"))
    {
        problems.push("files is not allowed in a DAG-level llm block".to_owned());
    }
    if dag.llm.as_ref().is_some_and(|llm| llm.contains_key("ocr")) {
        problems.push("ocr is not allowed in a DAG-level llm block".to_owned());
    }
    let mut id_counts: HashMap<&str, usize> = HashMap::new();
    let mut name_counts: HashMap<&str, usize> = HashMap::new();
    for step in &dag.steps {
        *name_counts.entry(&step.name).or_default() += 1;
    }
    for (i, step) in dag.steps.iter().enumerate() {
        let name = &step.name;
        if let Some(id) = &step.id {
            if !valid_id(id) {
                problems.push(format!(
                    "step '{name}': invalid step ID format: must match ^[a-zA-Z][a-zA-Z0-9_]*$ (use '_' instead of '-')"
                ));
            } else if RESERVED_IDS.contains(&id.as_str()) {
                problems.push(format!("step '{name}': step ID '{id}' is a reserved word"));
            }
            let count = id_counts.entry(id).or_default();
            *count += 1;
            if *count == 2 {
                problems.push(format!("duplicate step ID: {id}"));
            }
            let clash =
                dag.steps.iter().enumerate().any(|(j, other)| {
                    j != i && other.name == *id && other.id.as_deref() != Some(id)
                });
            if clash {
                problems.push(format!("step ID '{id}' conflicts with another step's name"));
            }
        }
        if name_counts.get(name.as_str()).copied().unwrap_or(0) > 1 {
            let first = dag.steps.iter().position(|s| s.name == *name) == Some(i);
            let from_ids = dag
                .steps
                .iter()
                .filter(|s| s.name == *name)
                .all(|s| s.id.as_deref() == Some(name.as_str()));
            if first && !from_ids {
                problems.push(format!("step name must be unique: {name}"));
            }
        }
        for dep in &step.depends {
            if find_step(dag, dep).is_none() {
                problems.push(format!("step {name} depends on non-existent step {dep}"));
            }
        }
        match &step.action {
            StepAction::Command(_) => {}
            StepAction::Unsupported(what) if what.is_empty() => problems.push(format!(
                "step '{name}': nothing to run: give it run:, command: or action:"
            )),
            StepAction::Unsupported(what) if what.starts_with("action ") => {
                problems.push(format!(
                    "step '{name}': unknown {what} (Sift has chat.completion and dag.run)"
                ));
            }
            StepAction::Unsupported(what) => {
                problems.push(format!("step '{name}': {what} is not supported"));
            }
            StepAction::DagRun { dag: target, .. } => {
                if workflow.dag(target).is_none() {
                    problems.push(format!(
                        "step '{name}': dag.run names {target:?}, which is not a DAG of this file"
                    ));
                }
            }
            StepAction::Chat(chat) => {
                let report = read_config(&chat.with, chat.output_schema.as_ref(), dag.llm.as_ref());
                problems.extend(
                    report
                        .problems
                        .iter()
                        .map(|p| format!("step '{name}': {p}")),
                );
                for tool in report.config.iter().flat_map(|c| &c.tools) {
                    if workflow.dag(tool).is_none() {
                        problems.push(format!(
                            "step '{name}': tool {tool:?} is not a DAG of this file"
                        ));
                    }
                }
            }
        }
    }
    if let Some(names) = cycle(dag) {
        problems.push(format!("cyclic plan detected: {}", names.join(" -> ")));
    }
    problems
}

fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && id.len() <= 40
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn problems(yaml: &str) -> Vec<String> {
        validate(&parse(yaml).unwrap())
    }

    #[test]
    fn step_ids_and_names() {
        assert_eq!(
            problems(
                "steps:\n  - {id: my-step, run: 'true'}\n  - {id: env, run: 'true'}\n  - {id: a, run: 'true'}\n  - {id: a, run: 'true'}\n  - {id: b, name: a, run: 'true'}\n  - {name: x, run: 'true'}\n  - {name: x, run: 'true', depends: zzz}\n"
            ),
            [
                "step 'my-step': invalid step ID format: must match ^[a-zA-Z][a-zA-Z0-9_]*$ (use '_' instead of '-')",
                "step 'env': step ID 'env' is a reserved word",
                "step ID 'a' conflicts with another step's name",
                "step name must be unique: a",
                "duplicate step ID: a",
                "step ID 'a' conflicts with another step's name",
                "step name must be unique: x",
                "step x depends on non-existent step zzz",
            ]
        );
    }

    #[test]
    fn chat_settings() {
        let chat = |with: &str| {
            problems(&format!(
                "steps:\n  - id: ask\n    action: chat.completion\n    with: {with}\n"
            ))
        };
        assert_eq!(
            chat("{provider: bogus, model: m, prompt: hi}"),
            ["step 'ask': invalid provider \"bogus\""]
        );
        assert_eq!(
            chat("{provider: local, prompt: hi}"),
            ["step 'ask': model must be specified when llm config is provided"]
        );
        assert_eq!(
            chat("{model: m, prompt: hi, temperature: 3, max_tokens: 0, top_p: 1.5}"),
            [
                "step 'ask': temperature must be between 0.0 and 2.0",
                "step 'ask': max_tokens must be at least 1",
                "step 'ask': top_p must be between 0.0 and 1.0",
            ]
        );
        assert_eq!(
            chat("{model: m}"),
            ["step 'ask': chat.completion requires with.prompt or with.messages"]
        );
        assert_eq!(
            chat("{model: m, prompt: ''}"),
            ["step 'ask': with.prompt must be a non-empty string"]
        );
        assert_eq!(
            chat("{model: m, messages: []}"),
            ["step 'ask': with.messages must be a non-empty array"]
        );
        assert!(
            chat("{prompt: hi}").is_empty(),
            "no model at all fails only when the step runs"
        );
        assert!(chat("{model: '${params.M}', provider: '${params.P}', prompt: hi}").is_empty());
        assert_eq!(
            chat("{model: m, prompt: hi, ocr: 3}"),
            ["step 'ask': invalid ocr \"3\": must be one of: auto, always, off"]
        );
        for mode in ["auto", "always", "off", "'off'", "'${params.OCR}'"] {
            assert!(
                chat(&format!("{{model: m, prompt: hi, ocr: {mode}}}")).is_empty(),
                "{mode}"
            );
        }
    }

    #[test]
    fn output_schema_rules() {
        let chat = |extra: &str| {
            problems(&format!(
                "steps:\n  - id: ask\n    action: chat.completion\n    with: {{model: m, prompt: hi{extra}}}\n"
            ))
        };
        assert_eq!(
            chat(", output_schema: {type: array}"),
            ["step 'ask': a chat step's output_schema must declare type: object"]
        );
        assert_eq!(
            chat(", output_schema: {type: object, properties: {a: {}}, required: [b]}"),
            ["step 'ask': a required property must be listed in properties: b"]
        );
        assert_eq!(
            chat(", web_search: true, output_schema: {type: object, properties: {a: {}}}"),
            ["step 'ask': web search cannot be combined with output_schema"]
        );
    }

    #[test]
    fn a_dag_run_cycle_is_refused_and_a_chain_is_not() {
        let call =
            |target: &str| format!("  - {{id: call, action: dag.run, with: {{dag: {target}}}}}\n");
        assert_eq!(
            problems(&format!("name: loop\nsteps:\n{}", call("loop"))),
            ["cyclic dag.run detected: loop -> loop"]
        );
        assert_eq!(
            problems(&format!(
                "steps:\n{}---\nname: a\nsteps:\n{}---\nname: b\nsteps:\n{}",
                call("a"),
                call("b"),
                call("a")
            )),
            ["cyclic dag.run detected: a -> b -> a"]
        );
        assert!(
            problems(&format!(
                "steps:\n{}---\nname: a\nsteps:\n{}---\nname: b\nsteps:\n  - run: 'true'\n",
                call("a"),
                call("b")
            ))
            .is_empty()
        );
        // A DAG that offers itself as a tool is left to the depth limit.
        assert!(
            problems(
                "steps:\n  - {id: s, run: 'true'}\n---\nname: t\nsteps:\n  - {id: ask, action: chat.completion, with: {model: m, prompt: hi, tools: [t]}}\n"
            )
            .is_empty()
        );
    }

    #[test]
    fn files_in_the_dag_llm_block_and_cycles_and_dag_names() {
        assert_eq!(
            problems(
                "llm: {model: m, files: a.txt}\nsteps:\n  - {id: a, run: 'true', depends: b}\n  - {id: b, run: 'true', depends: a}\n---\nsteps: []\n---\nname: t\n---\nname: t\n"
            ),
            [
                "files is not allowed in a DAG-level llm block",
                "cyclic plan detected: a -> b -> a",
                "DAG at index 1 must have a name in multi-DAG file",
                "duplicate DAG name \"t\" found",
            ]
        );
    }
}
