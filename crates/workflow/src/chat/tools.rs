//! Other DAGs of the file offered to the model as tools: each call runs
//! the DAG as a sub-run with the call's arguments as params, and its
//! outputs go back as the tool result.

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

pub(crate) struct ToolOutcome {
    pub content: String,
    pub is_error: bool,
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
