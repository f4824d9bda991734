//! The parsed form of a workflow file. Values the runner interpolates at
//! run time (`with`, commands) stay as written.

use serde_json::{Map, Value};

use crate::params::ParamDef;

/// A workflow file: the main DAG first, then the named DAGs that follow it
/// after `---` (usable as tools and by `dag.run`).
#[derive(Debug, Clone, PartialEq)]
pub struct Workflow {
    pub dags: Vec<Dag>,
}

impl Workflow {
    pub fn main(&self) -> &Dag {
        &self.dags[0]
    }

    /// A named DAG of this file (the main one included, when it has a name).
    pub fn dag(&self, name: &str) -> Option<&Dag> {
        self.dags.iter().find(|d| d.name.as_deref() == Some(name))
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dag {
    pub name: Option<String>,
    pub description: Option<String>,
    pub params: Vec<ParamDef>,
    /// `env:` in order; later entries may refer to earlier ones.
    pub env: Vec<(String, String)>,
    /// The DAG-level `llm:` block, inherited by chat steps whose `with`
    /// sets no model field.
    pub llm: Option<Map<String, Value>>,
    /// How many steps run at once (`max_active_steps`).
    pub max_active_steps: Option<usize>,
    pub steps: Vec<Step>,
    /// Structural problems found while parsing (a step that is not a
    /// mapping, `depends` of the wrong type...), reported by `validate`.
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The explicit `id`, when the step has one.
    pub id: Option<String>,
    /// The explicit `name`, else the id, else `step_N` (1-based position).
    pub name: String,
    pub depends: Vec<String>,
    pub action: StepAction,
    /// `output: VAR`: the trimmed stdout becomes `${VAR}`.
    pub output: Option<String>,
    /// The working directory; relative to the workflow file's directory.
    pub dir: Option<String>,
    pub env: Vec<(String, String)>,
}

impl Step {
    /// The key other steps use for it in `${steps.KEY.outputs.NAME}`: its id, else its name.
    pub fn key(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum StepAction {
    /// A shell command, run with `sh -c`.
    Command(String),
    Chat(ChatStep),
    /// `action: dag.run`: a named DAG of the same file, as a sub-run.
    DagRun {
        dag: String,
        params: Vec<(String, String)>,
    },
    /// A step with nothing to do, or an action Sift does not have
    /// (reported by `validate`).
    Unsupported(String),
}

/// `action: chat.completion`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatStep {
    pub with: Map<String, Value>,
    /// Step-level `output_schema` (dagu), or `with.output_schema`.
    pub output_schema: Option<Value>,
}
