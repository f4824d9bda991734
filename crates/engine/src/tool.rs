//! Tools a model may call. Built-in Rust tools and workflow DAGs (a later
//! issue) both implement [`Tool`]: a spec, an approval flag, and a handler.

use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;
use sift_llm::ToolSpec;

/// What a tool returns to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub content: String,
}

impl ToolOutput {
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
        }
    }
}

/// A tool failure; its message goes back to the model as an error result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

pub trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;

    /// A tool that acts on the world (sends mail, deletes files) asks the
    /// user first. Chat turns suspend for it; structured calls, which run
    /// unattended, refuse it.
    fn needs_approval(&self) -> bool {
        false
    }

    fn call(&self, arguments: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>>;
}

/// A named group of tools.
#[derive(Clone, Default)]
pub struct Toolkit {
    tools: Vec<Arc<dyn Tool>>,
}

impl fmt::Debug for Toolkit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.tools.iter().map(|t| t.spec().name).collect();
        f.debug_struct("Toolkit").field("tools", &names).finish()
    }
}

impl Toolkit {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with(mut self, tool: impl Tool + 'static) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }

    pub fn find(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.spec().name == name)
    }
}

type Handler = dyn Fn(Value) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync;

/// A tool made from a closure: for built-ins and tests.
pub struct FnTool {
    spec: ToolSpec,
    needs_approval: bool,
    handler: Box<Handler>,
}

impl fmt::Debug for FnTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.spec.name)
            .finish_non_exhaustive()
    }
}

impl FnTool {
    pub fn new<F, Fut>(spec: ToolSpec, handler: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        Self {
            spec,
            needs_approval: false,
            handler: Box::new(move |args| Box::pin(handler(args))),
        }
    }

    pub fn needing_approval(mut self) -> Self {
        self.needs_approval = true;
        self
    }
}

impl Tool for FnTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn needs_approval(&self) -> bool {
        self.needs_approval
    }

    fn call(&self, arguments: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        (self.handler)(arguments)
    }
}

type Loader = dyn Fn(&Value) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync;

/// A tool call made before the model's first turn, so that the model starts
/// with its result in view (the ticket it is about, say).
pub struct PreSeedCall {
    pub name: String,
    pub arguments: Value,
    pub loader: Box<Loader>,
}

impl fmt::Debug for PreSeedCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreSeedCall")
            .field("name", &self.name)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}
