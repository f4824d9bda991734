//! A `chat.completion` step's settings, read from its `with` (or the DAG's
//! `llm` block) and checked with dagu's messages. `validate` checks the
//! file as written; the runner checks again after `${...}` is resolved.

use serde_json::{Map, Value};
use sift_documents::OcrMode;
use sift_llm::Role;

use crate::connector::ModelEndpoint;
use crate::params::scalar_text;

/// The fields that configure the model. A step whose `with` sets any of
/// them does not inherit the DAG's `llm` block: nothing is merged.
pub(crate) const LLM_KEYS: &[&str] = &[
    "provider",
    "model",
    "system",
    "temperature",
    "max_tokens",
    "top_p",
    "base_url",
    "api_key_name",
    "stream",
    "thinking",
    "tools",
    "max_tool_iterations",
    "web_search",
];

pub(crate) const PROVIDERS: &[&str] = &["local", "openai", "anthropic"];

pub(crate) const DEFAULT_MAX_TOOL_ITERATIONS: u32 = 10;

/// One model to try, with its own overrides of the shared sampling fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ModelEntry {
    pub provider: String,
    pub name: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub top_p: Option<f64>,
    pub base_url: Option<String>,
    pub api_key_name: Option<String>,
}

impl ModelEntry {
    /// Where the model is served.
    pub fn endpoint(&self) -> ModelEndpoint {
        ModelEndpoint {
            provider: self.provider.clone(),
            base_url: self.base_url.clone(),
            api_key_name: self.api_key_name.clone(),
        }
    }

    /// `provider/model`, as errors name a model.
    pub fn label(&self) -> String {
        format!("{}/{}", self.provider, self.name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChatConfig {
    pub models: Vec<ModelEntry>,
    pub system: Option<String>,
    pub stream: bool,
    pub tools: Vec<String>,
    pub max_tool_iterations: u32,
    /// The step's own messages: the prompt as one user message, else `with.messages`.
    pub messages: Vec<(Role, String)>,
    /// `with.files`: paths or patterns, one a line or a list.
    pub files: Vec<String>,
    /// `with.ocr`: when the files' scans and photos are read with OCR;
    /// the runtime's setting when the step does not say.
    pub ocr: Option<OcrMode>,
    pub output_schema: Option<Value>,
}

/// What reading a step's settings found: the settings when there are any
/// and they are sound, and every problem.
#[derive(Debug, Default)]
pub(crate) struct ConfigReport {
    pub config: Option<ChatConfig>,
    pub problems: Vec<String>,
}

/// The model settings a step uses: its `with` when that sets any model
/// field, else the DAG's `llm` block.
pub(crate) fn llm_block<'a>(
    with: &'a Map<String, Value>,
    dag_llm: Option<&'a Map<String, Value>>,
) -> Option<&'a Map<String, Value>> {
    if LLM_KEYS.iter().any(|k| with.contains_key(*k)) {
        Some(with)
    } else {
        dag_llm
    }
}

/// `${...}` is resolved at run time: such a value cannot be checked yet.
fn deferred(value: &Value) -> bool {
    value.as_str().is_some_and(|s| s.contains('$'))
}

pub(crate) fn read_config(
    with: &Map<String, Value>,
    output_schema: Option<&Value>,
    dag_llm: Option<&Map<String, Value>>,
) -> ConfigReport {
    let mut problems = Vec::new();
    let messages = read_messages(with, &mut problems);
    let llm = llm_block(with, dag_llm);
    let files = match with.get("files") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(text)) => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        Some(Value::Array(items)) => items.iter().map(scalar_text).collect(),
        Some(_) => {
            problems.push("with.files must be a path, a pattern or a list of them".to_owned());
            Vec::new()
        }
    };
    let ocr = read_ocr(with, &mut problems);
    let schema_problems = output_schema
        .map(|s| schema_rules(s, llm))
        .unwrap_or_default();
    problems.extend(schema_problems);
    let Some(llm) = llm else {
        return ConfigReport {
            config: None,
            problems,
        };
    };
    let shared = Sampling::read(llm, "", &mut problems);
    let default_provider = llm.get("provider").map(scalar_text);
    if let Some(provider) = llm.get("provider") {
        check_provider(provider, &mut problems);
    }
    let models = read_models(llm, default_provider.as_deref(), &shared, &mut problems);
    let max_tool_iterations = match llm.get("max_tool_iterations") {
        None | Some(Value::Null) => DEFAULT_MAX_TOOL_ITERATIONS,
        Some(v) if deferred(v) => DEFAULT_MAX_TOOL_ITERATIONS,
        Some(v) => match v.as_u64().filter(|n| *n >= 1) {
            Some(n) => u32::try_from(n).unwrap_or(u32::MAX),
            None => {
                problems.push("max_tool_iterations must be at least 1".to_owned());
                DEFAULT_MAX_TOOL_ITERATIONS
            }
        },
    };
    let stream = match llm.get("stream") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            problems.push("stream must be true or false".to_owned());
            true
        }
    };
    let tools = match llm.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(many)) => many.iter().map(scalar_text).collect(),
        Some(_) => {
            problems.push("tools must be a DAG name or a list of them".to_owned());
            Vec::new()
        }
    };
    if llm
        .get("web_search")
        .is_some_and(|v| v != &Value::Bool(false))
        && output_schema.is_none()
    {
        problems.push("web search is not supported by Sift".to_owned());
    }
    let config = problems.is_empty().then(|| ChatConfig {
        models,
        system: llm.get("system").map(scalar_text),
        stream,
        tools,
        max_tool_iterations,
        messages,
        files,
        ocr,
        output_schema: output_schema.cloned(),
    });
    ConfigReport { config, problems }
}

/// `with.ocr`: `auto`, `always` or `off` (quoted or not). A `${...}` value is checked
/// once it is resolved.
fn read_ocr(with: &Map<String, Value>, problems: &mut Vec<String>) -> Option<OcrMode> {
    let value = with.get("ocr").filter(|v| !v.is_null() && !deferred(v))?;
    match value.as_str().map(str::parse::<OcrMode>) {
        Some(Ok(mode)) => Some(mode),
        // YAML 1.1 reads an unquoted `off` (and `no`) as false.
        None if value == &Value::Bool(false) => Some(OcrMode::Off),
        _ => {
            problems.push(format!(
                "invalid ocr {:?}: must be one of: auto, always, off",
                scalar_text(value)
            ));
            None
        }
    }
}

fn check_provider(provider: &Value, problems: &mut Vec<String>) {
    if deferred(provider) {
        return;
    }
    let name = scalar_text(provider);
    if !PROVIDERS.contains(&name.as_str()) {
        problems.push(format!("invalid provider {name:?}"));
    }
}

#[derive(Debug, Default, Clone)]
struct Sampling {
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    top_p: Option<f64>,
}

impl Sampling {
    fn read(map: &Map<String, Value>, prefix: &str, problems: &mut Vec<String>) -> Self {
        let mut sampling = Self::default();
        if let Some(v) = map
            .get("temperature")
            .filter(|v| !v.is_null() && !deferred(v))
        {
            match v.as_f64().filter(|t| (0.0..=2.0).contains(t)) {
                Some(t) => sampling.temperature = Some(t),
                None => problems.push(format!("{prefix}temperature must be between 0.0 and 2.0")),
            }
        }
        if let Some(v) = map
            .get("max_tokens")
            .filter(|v| !v.is_null() && !deferred(v))
        {
            match v.as_u64().filter(|n| *n >= 1) {
                Some(n) => sampling.max_tokens = Some(u32::try_from(n).unwrap_or(u32::MAX)),
                None => problems.push(format!("{prefix}max_tokens must be at least 1")),
            }
        }
        if let Some(v) = map.get("top_p").filter(|v| !v.is_null() && !deferred(v)) {
            match v.as_f64().filter(|p| (0.0..=1.0).contains(p)) {
                Some(p) => sampling.top_p = Some(p),
                None => problems.push(format!("{prefix}top_p must be between 0.0 and 1.0")),
            }
        }
        sampling
    }
}

fn read_models(
    llm: &Map<String, Value>,
    default_provider: Option<&str>,
    shared: &Sampling,
    problems: &mut Vec<String>,
) -> Vec<ModelEntry> {
    let shared_base_url = llm.get("base_url").map(scalar_text);
    let shared_key = llm.get("api_key_name").map(scalar_text);
    let entry = |provider: Option<String>,
                 name: String,
                 own: Sampling,
                 base_url: Option<String>,
                 key: Option<String>| ModelEntry {
        provider: provider
            .or_else(|| default_provider.map(str::to_owned))
            .unwrap_or_else(|| "local".to_owned()),
        name,
        temperature: own.temperature.or(shared.temperature),
        max_tokens: own.max_tokens.or(shared.max_tokens),
        top_p: own.top_p.or(shared.top_p),
        base_url: base_url.or_else(|| shared_base_url.clone()),
        api_key_name: key.or_else(|| shared_key.clone()),
    };
    match llm.get("model") {
        None | Some(Value::Null) => {
            problems.push("model must be specified when llm config is provided".to_owned());
            Vec::new()
        }
        Some(Value::String(name)) if name.trim().is_empty() => {
            problems.push("model must be specified when llm config is provided".to_owned());
            Vec::new()
        }
        Some(Value::String(name)) => {
            vec![entry(None, name.clone(), Sampling::default(), None, None)]
        }
        Some(Value::Array(list)) if list.is_empty() => {
            problems.push("model must have at least one entry".to_owned());
            Vec::new()
        }
        Some(Value::Array(list)) => {
            let mut models = Vec::new();
            for (i, item) in list.iter().enumerate() {
                match item {
                    Value::String(name) => {
                        models.push(entry(None, name.clone(), Sampling::default(), None, None));
                    }
                    Value::Object(map) => {
                        let prefix = format!("model[{i}].");
                        let Some(name) = map.get("name").map(scalar_text).filter(|n| !n.is_empty())
                        else {
                            problems.push(format!("{prefix}name: required"));
                            continue;
                        };
                        if let Some(provider) = map.get("provider") {
                            check_provider(provider, problems);
                        }
                        let own = Sampling::read(map, &prefix, problems);
                        models.push(entry(
                            map.get("provider").map(scalar_text),
                            name,
                            own,
                            map.get("base_url").map(scalar_text),
                            map.get("api_key_name").map(scalar_text),
                        ));
                    }
                    _ => problems.push(format!("model[{i}] must be a name or a mapping")),
                }
            }
            models
        }
        Some(_) => {
            problems.push("model must be string or array".to_owned());
            Vec::new()
        }
    }
}

fn read_messages(with: &Map<String, Value>, problems: &mut Vec<String>) -> Vec<(Role, String)> {
    // The prompt wins when both are given, as in dagu.
    if let Some(prompt) = with.get("prompt") {
        return match prompt.as_str().filter(|p| !p.trim().is_empty()) {
            Some(prompt) => vec![(Role::User, prompt.to_owned())],
            None => {
                problems.push("with.prompt must be a non-empty string".to_owned());
                Vec::new()
            }
        };
    }
    let Some(messages) = with.get("messages") else {
        problems.push("chat.completion requires with.prompt or with.messages".to_owned());
        return Vec::new();
    };
    let Some(list) = messages.as_array().filter(|l| !l.is_empty()) else {
        problems.push("with.messages must be a non-empty array".to_owned());
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, message) in list.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str);
        let content = message.get("content").map(scalar_text);
        let role = match role {
            None => {
                problems.push(format!("messages[{i}].role: role is required"));
                continue;
            }
            Some("system") => Role::System,
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("tool") => Role::Tool,
            Some(other) => {
                problems.push(format!(
                    "messages[{i}].role: invalid role {other:?}: must be one of: system, user, assistant, tool"
                ));
                continue;
            }
        };
        match content.filter(|c| !c.is_empty()) {
            Some(content) => out.push((role, content)),
            None => problems.push(format!("messages[{i}].content: content is required")),
        }
    }
    out
}

/// dagu's rules for `output_schema`, with its messages.
fn schema_rules(schema: &Value, llm: Option<&Map<String, Value>>) -> Vec<String> {
    let mut problems = Vec::new();
    // One problem at a time, as dagu reports them: the rest follow from the first.
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return vec!["a chat step's output_schema must declare type: object".to_owned()];
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    if properties.is_none_or(Map::is_empty) {
        return vec!["a chat step's output_schema must list at least one property".to_owned()];
    }
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = scalar_text(name);
        if !properties.is_some_and(|p| p.contains_key(&name)) {
            problems.push(format!(
                "a required property must be listed in properties: {name}"
            ));
        }
    }
    if let Some(llm) = llm {
        if llm
            .get("web_search")
            .is_some_and(|v| v != &Value::Bool(false))
        {
            problems.push("web search cannot be combined with output_schema".to_owned());
        }
        let tools: Vec<String> = match llm.get("tools") {
            Some(Value::String(one)) => vec![one.clone()],
            Some(Value::Array(many)) => many.iter().map(scalar_text).collect(),
            _ => Vec::new(),
        };
        if tools.iter().any(|t| t == super::RESPOND) {
            problems.push(format!(
                "the tool name \"{}\" is reserved for the output_schema answer",
                super::RESPOND
            ));
        }
    }
    if problems.is_empty()
        && let Err(e) = jsonschema::validator_for(schema)
    {
        problems.push(format!("output_schema is not valid JSON Schema: {e}"));
    }
    problems
}
