//! `action: chat.completion`: one step's model call, in one of three
//! shapes: a plain answer (streamed unless told or falling back), a tool
//! loop over other DAGs, or a structured answer through `respond`. Each
//! model of `with.model` is tried in order until one succeeds.

pub(crate) mod config;
mod files;
mod structured;
mod tools;

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};
use sift_llm::{
    ApiKey, ChatRequest, ChatResponse, Client, ClientConfig, Message, Part, ProviderKind, Role,
    ServerFlavor, StreamDelta, ToolChoice, Usage, canonical_json,
};
use tokio_util::sync::CancellationToken;

use crate::interpolate::Scope;
use crate::run::Runtime;
use crate::spec::{ChatStep, Dag};
use crate::step::{StepOutput, report_unknown, resolve_with};
use config::{ChatConfig, ModelEntry, read_config};
pub(crate) use structured::RESPOND;

/// Where a model is served, as a step names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelEndpoint {
    /// `local`, `openai` or `anthropic`.
    pub provider: String,
    pub base_url: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_name: Option<String>,
}

/// Turns an endpoint into a client. The app and the CLI give one that
/// starts Sift's local model server on demand and reads the keychain;
/// [`DirectConnector`] needs everything spelled out.
pub trait ModelConnector: Send + Sync + fmt::Debug {
    fn connect<'a>(
        &'a self,
        endpoint: &'a ModelEndpoint,
    ) -> Pin<Box<dyn Future<Output = Result<Client, String>> + Send + 'a>>;
}

/// Connects to exactly the URL a step names (`local` needs `base_url`);
/// the key comes from `api_key_name`, else `OPENAI_API_KEY` or
/// `ANTHROPIC_API_KEY`.
#[derive(Debug, Clone, Copy, Default)]
pub struct DirectConnector;

impl DirectConnector {
    pub fn client(endpoint: &ModelEndpoint) -> Result<Client, String> {
        let (kind, flavor, default_url, default_key) = match endpoint.provider.as_str() {
            // Some OpenAI-compatible server on this machine, of a kind
            // not known: assume only what they all do.
            "local" => (ProviderKind::OpenAi, ServerFlavor::Generic, None, None),
            "openai" => (
                ProviderKind::OpenAi,
                ServerFlavor::OpenAi,
                Some("https://api.openai.com/v1"),
                Some("OPENAI_API_KEY"),
            ),
            "anthropic" => (
                ProviderKind::Anthropic,
                ServerFlavor::Anthropic,
                Some("https://api.anthropic.com"),
                Some("ANTHROPIC_API_KEY"),
            ),
            other => return Err(format!("invalid provider {other:?}")),
        };
        let base_url = endpoint
            .base_url
            .clone()
            .or(default_url.map(str::to_owned))
            .ok_or("provider local needs base_url here")?;
        let mut config = ClientConfig::new(kind, base_url);
        config.flavor = flavor;
        config.api_key = match &endpoint.api_key_name {
            Some(var) => Some(
                ApiKey::from_env(var)
                    .ok_or_else(|| format!("the environment variable {var} holds no API key"))?,
            ),
            None => default_key.and_then(ApiKey::from_env),
        };
        Client::new(config).map_err(|e| e.to_string())
    }
}

impl ModelConnector for DirectConnector {
    fn connect<'a>(
        &'a self,
        endpoint: &'a ModelEndpoint,
    ) -> Pin<Box<dyn Future<Output = Result<Client, String>> + Send + 'a>> {
        Box::pin(async move { Self::client(endpoint) })
    }
}

pub(crate) struct ChatContext<'a> {
    pub runtime: Arc<Runtime>,
    pub dag: &'a Dag,
    pub scope: &'a Scope,
    pub dir: &'a Path,
    /// The conversations of the step's direct dependencies, in order.
    pub inherited: Vec<Message>,
    pub cancel: CancellationToken,
    pub output: &'a StepOutput,
}

pub(crate) struct ChatDone {
    pub outputs: Map<String, Value>,
    /// Properties the schema lists that the answer left out.
    pub absent_outputs: Vec<String>,
    pub messages: Vec<Message>,
    pub usage: Usage,
}

pub(crate) struct ChatFailure {
    pub error: String,
    pub usage: Usage,
}

pub(crate) async fn run_chat(
    step: &ChatStep,
    context: ChatContext<'_>,
) -> Result<ChatDone, ChatFailure> {
    let mut usage = Usage::default();
    let fail = |error: String, usage: Usage| ChatFailure { error, usage };
    let mut unknown = Vec::new();
    let with = resolve_with(&step.with, context.scope, &mut unknown);
    report_unknown(context.output, &mut unknown);
    let report = read_config(&with, step.output_schema.as_ref(), context.dag.llm.as_ref());
    if let Some(problem) = report.problems.first() {
        return Err(fail(problem.clone(), usage));
    }
    let Some(config) = report.config else {
        return Err(fail(
            "llm configuration is required for chat step".to_owned(),
            usage,
        ));
    };
    let mut conversation = base_messages(&config, context.inherited.clone());
    let documents = files::read(&config.files, context.dir, &context.runtime.read_options)
        .await
        .map_err(|e| fail(e, Usage::default()))?;
    if let Some(documents) = &documents {
        sift_documents::attach(&mut conversation, documents)
            .map_err(|e| fail(e.to_string(), Usage::default()))?;
    }
    let fallback = config.models.len() > 1;
    let mut last_error = String::new();
    for model in &config.models {
        let attempt = Attempt {
            context: &context,
            config: &config,
            model,
            stream: config.stream && !fallback,
            usage: &mut usage,
        };
        match attempt.run(conversation.clone()).await {
            Ok((outputs, mut messages)) => {
                strip_images(&mut messages);
                let absent_outputs = config
                    .output_schema
                    .as_ref()
                    .and_then(|s| s.get("properties"))
                    .and_then(Value::as_object)
                    .map(|p| {
                        p.keys()
                            .filter(|k| !outputs.contains_key(*k))
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                return Ok(ChatDone {
                    outputs,
                    absent_outputs,
                    messages,
                    usage,
                });
            }
            Err(error) => {
                if context.cancel.is_cancelled() {
                    return Err(fail("cancelled".to_owned(), usage));
                }
                last_error = error;
            }
        }
    }
    let error = if fallback {
        format!("all {} models exhausted: {last_error}", config.models.len())
    } else {
        last_error
    };
    Err(fail(error, usage))
}

/// The step's system message first (the last one the step gives wins:
/// a system entry in `with.messages` beats `with.system`), then the
/// inherited conversation, then the step's other messages; repeated
/// system messages are dropped, the first kept.
fn base_messages(config: &ChatConfig, inherited: Vec<Message>) -> Vec<Message> {
    let mut own_system = config.system.clone();
    for (role, content) in &config.messages {
        if *role == Role::System {
            own_system = Some(content.clone());
        }
    }
    let mut messages = Vec::new();
    messages.extend(own_system.map(Message::system));
    messages.extend(inherited);
    messages.extend(
        config
            .messages
            .iter()
            .filter(|(role, _)| *role != Role::System)
            .map(|(role, content)| Message::text(*role, content.clone())),
    );
    let mut seen_system = false;
    messages.retain(|m| {
        if m.role != Role::System {
            return true;
        }
        let keep = !seen_system;
        seen_system = true;
        keep
    });
    messages
}

/// Images go with the requests of one step only; the kept conversation has their labels.
fn strip_images(messages: &mut [Message]) {
    for message in messages {
        message.parts.retain(|p| !matches!(p, Part::Image(_)));
    }
}

/// One model's try at the step.
struct Attempt<'a, 'c> {
    context: &'a ChatContext<'c>,
    config: &'a ChatConfig,
    model: &'a ModelEntry,
    stream: bool,
    usage: &'a mut Usage,
}

type AttemptResult = Result<(Map<String, Value>, Vec<Message>), String>;

impl Attempt<'_, '_> {
    async fn run(self, conversation: Vec<Message>) -> AttemptResult {
        let label = self.model.label();
        let endpoint = ModelEndpoint {
            provider: self.model.provider.clone(),
            base_url: self.model.base_url.clone(),
            api_key_name: self.model.api_key_name.clone(),
        };
        let client = self
            .context
            .runtime
            .connector
            .connect(&endpoint)
            .await
            .map_err(|e| format!("{label}: {e}"))?;
        if let Some(schema) = &self.config.output_schema {
            structured_loop(self, &client, schema, conversation).await
        } else if !self.config.tools.is_empty() {
            tool_loop(self, &client, conversation).await
        } else {
            plain_answer(self, &client, conversation).await
        }
    }

    fn request(&self, messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            temperature: self.model.temperature,
            max_tokens: self.model.max_tokens,
            top_p: self.model.top_p,
            ..ChatRequest::new(self.model.name.clone(), messages)
        }
    }

    /// One non-streamed request, abandoned when the run is cancelled.
    async fn complete(
        &mut self,
        client: &Client,
        request: &ChatRequest,
    ) -> Result<ChatResponse, String> {
        let label = self.model.label();
        let response = tokio::select! {
            r = client.complete(request) => r.map_err(|e| format!("{label}: {e}"))?,
            () = self.context.cancel.cancelled() => return Err("cancelled".to_owned()),
        };
        *self.usage += response.usage;
        Ok(response)
    }
}

async fn plain_answer(
    mut attempt: Attempt<'_, '_>,
    client: &Client,
    mut conversation: Vec<Message>,
) -> AttemptResult {
    let request = attempt.request(conversation.clone());
    let output = attempt.context.output;
    let response = if attempt.stream {
        let label = attempt.model.label();
        let mut on_delta = |delta: StreamDelta| {
            if let StreamDelta::Text(text) = delta {
                output.stdout(&text);
            }
        };
        let response = tokio::select! {
            r = client.stream(&request, &mut on_delta) => r.map_err(|e| format!("{label}: {e}"))?,
            () = attempt.context.cancel.cancelled() => return Err("cancelled".to_owned()),
        };
        *attempt.usage += response.usage;
        output.stdout("\n");
        response
    } else {
        let response = attempt.complete(client, &request).await?;
        output.stdout(&format!("{}\n", response.message.text_content()));
        response
    };
    conversation.push(Message::assistant(response.message.text_content()));
    Ok((Map::new(), conversation))
}

async fn tool_loop(
    mut attempt: Attempt<'_, '_>,
    client: &Client,
    mut conversation: Vec<Message>,
) -> AttemptResult {
    let tools = tools::specs(&attempt.context.runtime.workflow, &attempt.config.tools);
    let limit = attempt.config.max_tool_iterations;
    let mut last_content = String::new();
    for _ in 0..limit {
        let mut request = attempt.request(conversation.clone());
        request.tools = tools.clone();
        request.tool_choice = Some(ToolChoice::Auto);
        let response = attempt.complete(client, &request).await?;
        let text = response.message.text_content();
        let calls: Vec<_> = response.message.tool_calls().cloned().collect();
        if calls.is_empty() {
            if !text.is_empty() {
                attempt.context.output.stdout(&format!("{text}\n"));
            }
            conversation.push(Message::assistant(text));
            return Ok((Map::new(), conversation));
        }
        last_content = text;
        conversation.push(response.message.clone());
        for call in &calls {
            let result = tools::call(attempt.context, &attempt.config.tools, call).await;
            conversation.push(Message::tool_result(
                call.id.clone(),
                result.content,
                result.is_error,
            ));
        }
    }
    let text = if last_content.is_empty() {
        format!(
            "[Max tool iterations ({limit}) reached. The LLM may not have provided a complete response.]"
        )
    } else {
        last_content
    };
    attempt.context.output.stdout(&format!("{text}\n"));
    Ok((Map::new(), conversation))
}

async fn structured_loop(
    mut attempt: Attempt<'_, '_>,
    client: &Client,
    schema: &Value,
    mut conversation: Vec<Message>,
) -> AttemptResult {
    let label = attempt.model.label();
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| format!("output_schema is not valid JSON Schema: {e}"))?;
    let mut offered = tools::specs(&attempt.context.runtime.workflow, &attempt.config.tools);
    offered.push(structured::respond_tool(schema));
    // With `respond` alone, force it the way this server honours; beside
    // other tools, any call is required and `respond` ends the loop.
    let choice = if offered.len() == 1 {
        client.capabilities().force_tool(RESPOND)
    } else {
        ToolChoice::Required
    };
    let limit = attempt.config.max_tool_iterations;
    let mut corrected = false;
    for _ in 0..limit {
        let mut request = attempt.request(structured::with_instruction(&conversation));
        request.tools = offered.clone();
        request.tool_choice = Some(choice.clone());
        let response = attempt.complete(client, &request).await?;
        let calls: Vec<_> = response.message.tool_calls().cloned().collect();
        let answered = calls.iter().any(|c| c.name == RESPOND);
        if !answered && !calls.is_empty() && !attempt.config.tools.is_empty() {
            conversation.push(response.message.clone());
            for call in &calls {
                let result = tools::call(attempt.context, &attempt.config.tools, call).await;
                conversation.push(Message::tool_result(
                    call.id.clone(),
                    result.content,
                    result.is_error,
                ));
            }
            continue;
        }
        let candidate = structured::candidate(&response);
        match structured::accept(candidate.value, schema, &validator) {
            Ok(answer) => {
                let line = canonical_json(&Value::Object(answer.clone()));
                attempt.context.output.stdout(&format!("{line}\n"));
                conversation.push(Message::assistant(line));
                return Ok((answer, conversation));
            }
            Err(reason) => {
                attempt.context.output.stderr(&format!(
                    "{label} answer rejected: {reason}\n{}\n",
                    candidate.shown
                ));
                if corrected {
                    return Err(format!(
                        "{label}: the model gave no answer that matches output_schema"
                    ));
                }
                corrected = true;
                conversation.push(Message::assistant(candidate.shown));
                conversation.push(Message::user(structured::correction(&reason)));
            }
        }
    }
    Err(format!(
        "{label}: max tool iterations ({limit}) reached without a respond answer"
    ))
}
