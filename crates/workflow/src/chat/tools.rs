//! Other DAGs of the file offered to the model as tools: each call runs
//! the DAG as a sub-run with the call's arguments as params, and its
//! outputs go back as the tool result.
//!
//! A tool runs once for a step: when a model fails after its calls ran and
//! the step falls back to the next model, a call that an earlier model
//! already made with the same arguments gets the result it got then, and
//! the DAG does not run again ([`RanTools`]).

use std::sync::{Mutex, PoisonError};

use serde_json::{Map, Value};
use sift_llm::{ToolCall, ToolSpec};

use super::ChatContext;
use crate::params::{ParamDef, argument_text, tool_schema};
use crate::record::{RunStatus, run_error, run_outputs};
use crate::spec::Workflow;
use sift_llm::canonical_json;

/// The tool definitions, in the order the step names them.
pub(crate) fn specs(workflow: &Workflow, names: &[String]) -> Vec<ToolSpec> {
    names
        .iter()
        .filter_map(|name| workflow.dag(name).map(|dag| (name, dag)))
        .map(|(name, dag)| ToolSpec {
            name: name.clone(),
            description: dag
                .description
                .clone()
                .unwrap_or_else(|| format!("Runs the workflow {name}.")),
            parameters: tool_schema(&dag.params),
        })
        .collect()
}

#[derive(Clone)]
pub(crate) struct ToolOutcome {
    pub content: String,
    pub is_error: bool,
}

/// The tool calls a step's models have run: by attempt (the model's place
/// in the step's list), tool and params.
#[derive(Default)]
pub(crate) struct RanTools {
    ran: Mutex<Vec<Ran>>,
}

struct Ran {
    attempt: usize,
    tool: String,
    params: Vec<(String, String)>,
    outcome: ToolOutcome,
}

impl RanTools {
    /// What an earlier attempt's identical call gave. Within one attempt a
    /// call runs every time it is made: a model may ask again on purpose.
    fn earlier(
        &self,
        attempt: usize,
        tool: &str,
        params: &[(String, String)],
    ) -> Option<ToolOutcome> {
        self.ran
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|r| r.attempt < attempt && r.tool == tool && r.params == params)
            .map(|r| r.outcome.clone())
    }

    fn record(
        &self,
        attempt: usize,
        tool: &str,
        params: Vec<(String, String)>,
        outcome: &ToolOutcome,
    ) {
        self.ran
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Ran {
                attempt,
                tool: tool.to_owned(),
                params,
                outcome: outcome.clone(),
            });
    }
}

fn error(text: String) -> ToolOutcome {
    ToolOutcome {
        content: format!("Error: {text}"),
        is_error: true,
    }
}

/// Runs one call. Nothing here fails the step: every problem is told to
/// the model, which may try again.
pub(crate) async fn call(
    context: &ChatContext<'_>,
    allowed: &[String],
    call: &ToolCall,
    ran: &RanTools,
    attempt: usize,
) -> ToolOutcome {
    let dag = match context.runtime.workflow.dag(&call.name) {
        Some(dag) if allowed.contains(&call.name) => dag,
        _ => return error(format!("tool {:?} not found", call.name)),
    };
    let arguments = match call.parsed_arguments() {
        Ok(Value::Object(map)) => map,
        Ok(other) => {
            return error(format!(
                "failed to parse arguments: expected a JSON object, got {other}"
            ));
        }
        Err(e) => return error(format!("failed to parse arguments: {e}")),
    };
    if let Some(refused) = undeclared(&dag.params, &arguments) {
        return error(format!("failed to parse arguments: {refused}"));
    }
    let mut params: Vec<(String, String)> = arguments
        .iter()
        .map(|(k, v)| (k.clone(), argument_text(v)))
        .collect();
    params.sort();
    if let Some(outcome) = ran.earlier(attempt, &call.name, &params) {
        return outcome;
    }
    let outcome = run_dag(context, call, params.clone()).await;
    ran.record(attempt, &call.name, params, &outcome);
    outcome
}

/// The arguments a tool DAG does not declare, as the model is told of
/// them, or `None` when every one is a declared param.
///
/// A sub-run takes any param it is given, and an undeclared one still
/// becomes a variable of its commands' environment, so an argument such
/// as `LD_PRELOAD` or `PATH` (a model steered by a hostile document can
/// send it) would reach every process of the tool. The call is refused
/// rather than run without them: the schema the model was offered lists
/// the params, so an extra argument is the model's mistake, and a model
/// told which name is wrong can call again, while one whose argument was
/// dropped silently would take the result for an answer to what it
/// asked. The message follows dagu's `failed to parse arguments: …`.
fn undeclared(params: &[ParamDef], arguments: &Map<String, Value>) -> Option<String> {
    let mut unknown: Vec<String> = arguments
        .keys()
        .filter(|name| !params.iter().any(|p| &p.name == *name))
        .map(|name| format!("{name:?}"))
        .collect();
    // Sorted, as dagu sorts a call's params: the message does not depend
    // on the order the model wrote them in.
    unknown.sort();
    let declared = if params.is_empty() {
        "it takes no arguments".to_owned()
    } else {
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        format!("it takes {}", names.join(", "))
    };
    match unknown.as_slice() {
        [] => None,
        [one] => Some(format!("unknown argument {one} ({declared})")),
        many => Some(format!(
            "unknown arguments {} ({declared})",
            many.join(", ")
        )),
    }
}

async fn run_dag(
    context: &ChatContext<'_>,
    call: &ToolCall,
    params: Vec<(String, String)>,
) -> ToolOutcome {
    let run = context
        .runner
        .run_named(
            context.runtime.clone(),
            call.name.clone(),
            params,
            context.cancel.clone(),
        )
        .await;
    match run {
        Err(e) => error(format!("execution failed: {e}")),
        Ok(record) if record.status == RunStatus::Succeeded => {
            let outputs = run_outputs(&record);
            ToolOutcome {
                content: if outputs.is_empty() {
                    "Tool execution completed successfully".to_owned()
                } else {
                    canonical_json(&Value::Object(outputs))
                },
                is_error: false,
            }
        }
        Ok(record) if record.status == RunStatus::Failed => {
            error(format!("execution failed: {}", run_error(&record).message))
        }
        Ok(record) => ToolOutcome {
            content: format!(
                "Tool execution failed with status: {}",
                record.status.as_str()
            ),
            is_error: true,
        },
    }
}
