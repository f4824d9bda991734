//! `action: chat.completion`: one step's model call, in one of three
//! shapes: a plain answer (streamed unless told or falling back), a tool
//! loop over other DAGs, or a structured answer through `respond`. Each
//! model of `with.model` is tried in order until one succeeds.

pub(crate) mod config;
mod files;
mod structured;
mod tools;

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};
use sift_llm::{
    ChatRequest, ChatResponse, Client, JsonAnswerFormat, LlmError, Message, Part, Role,
    StreamDelta, ToolChoice, Usage, canonical_json,
};
use tokio_util::sync::CancellationToken;

use crate::interpolate::{Scope, interpolate_value};
use crate::output::{StepOutput, report_unknown};
use crate::record::{ServedModel, StepError};
use crate::runtime::{Runtime, SubRunner};
use crate::spec::{ChatStep, Dag};
use config::{ChatConfig, ModelEntry, read_config};
pub(crate) use structured::RESPOND;

pub(crate) struct ChatContext<'a> {
    pub runtime: Arc<Runtime>,
    /// Runs the DAGs the step offers as tools.
    pub runner: &'a dyn SubRunner,
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
    pub served: Option<ServedModel>,
}

pub(crate) struct ChatFailure {
    pub error: StepError,
    pub usage: Usage,
    pub served: Option<ServedModel>,
}

fn served(model: &ModelEntry) -> ServedModel {
    ServedModel {
        provider: model.provider.clone(),
        host: model.base_url.as_deref().map(sift_llm::server_host),
        model: model.name.clone(),
    }
}

pub(crate) async fn run_chat(
    step: &ChatStep,
    context: ChatContext<'_>,
) -> Result<ChatDone, ChatFailure> {
    let mut usage = Usage::default();
    let fail = |error: StepError, usage: Usage| ChatFailure {
        error,
        usage,
        served: None,
    };
    let mut unknown = Vec::new();
    let with = resolve_with(&step.with, context.scope, &mut unknown);
    report_unknown(context.output, &mut unknown);
    let report = read_config(&with, step.output_schema.as_ref(), context.dag.llm.as_ref());
    if let Some(problem) = report.problems.first() {
        return Err(fail(StepError::new(problem.clone()), usage));
    }
    let Some(config) = report.config else {
        return Err(fail(
            StepError::new("llm configuration is required for chat step"),
            usage,
        ));
    };
    let base = base_messages(&config, context.inherited.clone());
    let takes_images = models_take_images(&config, &context.runtime).await;
    // The files are read once for the models that take images and once
    // for those that do not, as the models need; every refusal comes
    // before any request.
    let mut conversations: Vec<(bool, Vec<Message>)> = Vec::new();
    for &takes in &takes_images {
        if conversations.iter().any(|(t, _)| *t == takes) {
            continue;
        }
        let mut options = context.runtime.read_options.clone();
        options.ocr.mode = config.ocr.unwrap_or(options.ocr.mode);
        options.model_takes_images = takes;
        let mut conversation = base.clone();
        let documents = files::read(
            &config.files,
            context.dir,
            &options,
            &context.runtime.file_gate,
        )
        .await
        .map_err(|e| fail(StepError::new(e), Usage::default()))?;
        if let Some(documents) = &documents {
            sift_documents::attach(&mut conversation, documents)
                .map_err(|e| fail(StepError::new(e.to_string()), Usage::default()))?;
        }
        conversations.push((takes, conversation));
    }
    let fallback = config.models.len() > 1;
    let mut last_error = StepError::new(String::new());
    let ran = tools::RanTools::default();
    for (index, (model, takes)) in config.models.iter().zip(&takes_images).enumerate() {
        let conversation = conversations
            .iter()
            .find(|(t, _)| t == takes)
            .map_or_else(|| base.clone(), |(_, c)| c.clone());
        let attempt = Attempt {
            context: &context,
            config: &config,
            ran: &ran,
            index,
            model,
            stream: config.stream && !fallback,
            usage: &mut usage,
        };
        match attempt.run(conversation).await {
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
                    served: Some(served(model)),
                });
            }
            Err(error) => {
                if context.cancel.is_cancelled() {
                    return Err(ChatFailure {
                        served: Some(served(model)),
                        ..fail(StepError::new("cancelled"), usage)
                    });
                }
                last_error = error;
            }
        }
    }
    let error = if fallback {
        StepError {
            message: format!(
                "all {} models exhausted: {}",
                config.models.len(),
                last_error.message
            ),
            ..last_error
        }
    } else {
        last_error
    };
    Err(ChatFailure {
        served: config.models.last().map(served),
        ..fail(error, usage)
    })
}

/// Whether each model of the step takes images, asked of the connector
/// only when the step has files (without them it does not matter).
async fn models_take_images(config: &ChatConfig, runtime: &Runtime) -> Vec<bool> {
    let mut takes = Vec::with_capacity(config.models.len());
    for model in &config.models {
        takes.push(
            config.files.is_empty()
                || runtime
                    .connector
                    .features(&model.endpoint(), &model.name)
                    .await
                    .images,
        );
    }
    takes
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
    /// The tool calls of this step's attempts so far (see `tools`).
    ran: &'a tools::RanTools,
    /// This attempt's model's place in the step's list.
    index: usize,
    model: &'a ModelEntry,
    stream: bool,
    usage: &'a mut Usage,
}

type AttemptResult = Result<(Map<String, Value>, Vec<Message>), StepError>;

/// A model's failure as the step records it: named by the model's label,
/// keeping its category.
fn model_failure(label: &str, error: &LlmError) -> StepError {
    StepError::categorised(format!("{label}: {error}"), error.category)
}

impl Attempt<'_, '_> {
    async fn run(self, conversation: Vec<Message>) -> AttemptResult {
        let label = self.model.label();
        let endpoint = self.model.endpoint();
        let client = self
            .context
            .runtime
            .connector
            .connect(&endpoint)
            .await
            .map_err(|e| StepError::categorised(format!("{label}: {e}"), e.category()))?;
        if let Some(schema) = &self.config.output_schema {
            structured_loop(self, &client, schema, conversation).await
        } else if !self.config.tools.is_empty() {
            tool_loop(self, &client, conversation).await
        } else {
            plain_answer(self, &client, conversation).await
        }
    }

    /// Runs one of the model's tool calls (see `tools`).
    async fn call_tool(&self, call: &sift_llm::ToolCall) -> tools::ToolOutcome {
        tools::call(self.context, &self.config.tools, call, self.ran, self.index).await
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
    ) -> Result<ChatResponse, StepError> {
        let label = self.model.label();
        let response = tokio::select! {
            r = client.complete(request) => r.map_err(|e| model_failure(&label, &e))?,
            () = self.context.cancel.cancelled() => return Err(StepError::new("cancelled")),
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
            r = client.stream(&request, &mut on_delta) => r.map_err(|e| model_failure(&label, &e))?,
            () = attempt.context.cancel.cancelled() => return Err(StepError::new("cancelled")),
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
            let result = attempt.call_tool(call).await;
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
        .map_err(|e| StepError::new(format!("output_schema is not valid JSON Schema: {e}")))?;
    let mut offered = tools::specs(&attempt.context.runtime.workflow, &attempt.config.tools);
    offered.push(structured::respond_tool(schema));
    // With `respond` alone, force it the way this server honours; beside
    // other tools, any call is required and `respond` ends the loop.
    let choice = if offered.len() == 1 {
        client.capabilities().force_tool(RESPOND)
    } else {
        ToolChoice::Required
    };
    // Held to the schema: the reply is the answer (see `answers_by_format`).
    let format = (offered.len() == 1 && answers_by_format(&attempt, client).await).then(|| {
        JsonAnswerFormat {
            name: RESPOND.to_owned(),
            schema: structured::respond_tool(schema).parameters,
        }
    });
    let instruction = format.as_ref().map_or_else(
        || structured::INSTRUCTION.to_owned(),
        JsonAnswerFormat::instruction,
    );
    let limit = attempt.config.max_tool_iterations;
    let mut corrected = false;
    for _ in 0..limit {
        let mut request =
            attempt.request(structured::with_instruction(&conversation, &instruction));
        if let Some(format) = &format {
            request.response_format = Some(format.clone());
            request.max_tokens = request.max_tokens.or(Some(JSON_FORMAT_MAX_TOKENS));
        } else {
            request.tools = offered.clone();
            request.tool_choice = Some(choice.clone());
        }
        let response = attempt.complete(client, &request).await?;
        let calls: Vec<_> = response.message.tool_calls().cloned().collect();
        let answered = calls.iter().any(|c| c.name == RESPOND);
        if !answered && !calls.is_empty() && !attempt.config.tools.is_empty() {
            conversation.push(response.message.clone());
            for call in &calls {
                let result = attempt.call_tool(call).await;
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
                    return Err(StepError::new(format!(
                        "{label}: the model gave no answer that matches output_schema"
                    )));
                }
                corrected = true;
                conversation.push(Message::assistant(candidate.shown));
                conversation.push(Message::user(structured::correction(&reason)));
            }
        }
    }
    Err(StepError::new(format!(
        "{label}: max tool iterations ({limit}) reached without a respond answer"
    )))
}

/// The bound on an answer held to the schema when the step sets no
/// `max_tokens`: a weak model under a grammar can write one string until
/// its context is full (see `sift_engine::AnswerChannel::JsonFormat`).
const JSON_FORMAT_MAX_TOKENS: u32 = 1024;

/// Whether the answer comes as the reply held to the schema by the
/// server's `response_format`, not as a `respond` call: for a model that
/// takes no tools (llama.cpp's `/props` says so of its chat template, and
/// then ignores a forced tool) on a server that holds replies to a schema.
async fn answers_by_format(attempt: &Attempt<'_, '_>, client: &Client) -> bool {
    client.capabilities().json_schema_response_format
        && !attempt
            .context
            .runtime
            .connector
            .features(&attempt.model.endpoint(), &attempt.model.name)
            .await
            .tools
}

/// Resolves the references in a chat step's `with`.
fn resolve_with(
    with: &Map<String, Value>,
    scope: &Scope,
    unknown: &mut Vec<String>,
) -> Map<String, Value> {
    match interpolate_value(
        &Value::Object(with.clone()),
        scope,
        &["api_key_name", "tools"],
        unknown,
    ) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
