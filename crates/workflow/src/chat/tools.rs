//! Other DAGs of the file offered to the model as tools: each call runs
//! the DAG as a sub-run with the call's arguments as params, and its
//! outputs go back as the tool result.
//!
//! A tool runs once for a step: when a model fails after its calls ran and
//! the step falls back to the next model, a call that an earlier model
//! already made with the same arguments gets the result it got then, and
//! the DAG does not run again ([`RanTools`]).

use std::sync::{Mutex, PoisonError};

use sift_llm::{ToolCall, ToolSpec};

use super::ChatContext;
use crate::params::{argument_text, tool_schema};
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
    if !allowed.contains(&call.name) || context.runtime.workflow.dag(&call.name).is_none() {
        return error(format!("tool {:?} not found", call.name));
    }
    let arguments = match call.parsed_arguments() {
        Ok(serde_json::Value::Object(map)) => map,
        Ok(other) => {
            return error(format!(
                "failed to parse arguments: expected a JSON object, got {other}"
            ));
        }
        Err(e) => return error(format!("failed to parse arguments: {e}")),
    };
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
                    canonical_json(&serde_json::Value::Object(outputs))
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
