//! The structured call's loop: one request a turn, the tools it calls
//! run, and its answer validated or corrected, until an answer is
//! accepted, the call fails, or its turns run out.

use serde_json::{Map, Value, json};
use sift_llm::{
    ChatRequest, ErrorCategory, JsonAnswerFormat, Message, Part, Role, StopReason, ToolCall,
    ToolChoice, ToolResult, ToolSpec, Usage,
};

use super::{
    ANSWER_TOOL, AnswerChannel, CallOutcome, CallStatus, Engine, StructuredCallSpec,
    empty_reply_correction, held_answer_max_tokens, invalid_output_message,
    parse_failure_correction, parse_json_text, plain_text_correction, schema_instruction,
};
use crate::context::build_context;

/// Runs the tool loop from `transcript` until an answer is accepted, the
/// call fails, or `max_turns` requests have been sent.
pub async fn run_structured_call(
    engine: &Engine,
    spec: &StructuredCallSpec,
    transcript: Vec<Message>,
) -> CallOutcome {
    let mut run = Run {
        engine,
        spec,
        transcript,
        usage: Usage::default(),
        metadata: Map::new(),
        turns: 0,
        answered_in_text: false,
        held_to_format: false,
    };
    run.go().await
}

struct Run<'a> {
    engine: &'a Engine,
    spec: &'a StructuredCallSpec,
    transcript: Vec<Message>,
    usage: Usage,
    metadata: Map<String, Value>,
    turns: u32,
    /// The model answered in plain text where the answer tool was wanted.
    answered_in_text: bool,
    /// This turn's reply is held to the answer's schema (`response_format`).
    held_to_format: bool,
}

/// What one model reply led to.
enum Step {
    Done(Value),
    Failed(ErrorCategory, String),
    Continue,
}

impl Run<'_> {
    async fn go(&mut self) -> CallOutcome {
        let tools = self.tool_specs();
        let mut tool_choice = self.tool_choice(&tools);
        while self.turns < self.spec.max_turns {
            self.turns += 1;
            if self.answered_in_text && self.capabilities().forced_tool.honours_a_named_tool() {
                // The server let the model answer in text (some ignore
                // `required`): name the answer tool, which they honour.
                tool_choice = Some(ToolChoice::Tool(ANSWER_TOOL.to_owned()));
            }
            let mut request = ChatRequest {
                model: self.engine.model.clone(),
                messages: build_context(
                    &self.transcript,
                    &self.engine.settings,
                    &self.engine.context,
                ),
                tools: tools.clone(),
                tool_choice: tool_choice.clone(),
                ..ChatRequest::default()
            };
            let format = self.answer_format(&tools);
            if self.answers_by_format() || format.is_some() {
                with_schema_instruction(&mut request.messages, &tools);
            }
            self.held_to_format = false;
            if let Some(format) = format {
                // The answer turn: no tools, the reply held to the schema.
                request.tools.clear();
                request.tool_choice = None;
                request.response_format = Some(format);
                request.max_tokens = Some(self.answer_max_tokens());
                request.temperature = Some(0.0);
                self.held_to_format = true;
            }
            let step = match self.engine.client.complete(&request).await {
                Err(error) => {
                    self.usage += error.usage;
                    Step::Failed(error.category, error.message)
                }
                Ok(response) => {
                    self.usage += response.usage;
                    self.transcript.push(response.message.clone());
                    if response.stop == StopReason::MaxTokens {
                        Step::Failed(
                            ErrorCategory::Model,
                            "the model reached its max_tokens limit before finishing".to_owned(),
                        )
                    } else {
                        self.on_reply(&response.message).await
                    }
                }
            };
            match step {
                Step::Done(output) => {
                    return self.outcome(CallStatus::Completed, Some(output), None);
                }
                Step::Failed(category, message) => {
                    return self.outcome(CallStatus::Failed, None, Some((category, message)));
                }
                Step::Continue => {}
            }
        }
        let message = format!("no valid output within {} turns", self.spec.max_turns);
        self.outcome(
            CallStatus::TurnLimited,
            None,
            Some((ErrorCategory::Other, message)),
        )
    }

    fn capabilities(&self) -> sift_llm::Capabilities {
        self.engine.client.capabilities()
    }

    /// The spec's tools, the answer tool's parameters in the form this
    /// server is sent ([`Self::answer_schema`]).
    fn tool_specs(&self) -> Vec<ToolSpec> {
        let mut tools = self.spec.tool_specs();
        if let Some(schema) = self.answer_schema()
            && let Some(answer) = tools.iter_mut().find(|t| t.name == ANSWER_TOOL)
        {
            answer.parameters = schema;
        }
        tools
    }

    /// The answer's schema as this server is sent it: with every key
    /// required where the server holds answers by grammar
    /// ([`sift_llm::Capabilities::grammar_held_answers`]), else as written.
    fn answer_schema(&self) -> Option<Value> {
        let schema = self.spec.response_schema.as_ref()?;
        Some(if self.capabilities().grammar_held_answers {
            schema.with_every_key()
        } else {
            schema.schema().clone()
        })
    }

    /// Whether the answer comes through the reply held to the schema:
    /// see [`AnswerChannel::JsonFormat`].
    fn answers_by_format(&self) -> bool {
        matches!(self.engine.answer, AnswerChannel::JsonFormat { .. }) && self.answer_may_be_held()
    }

    /// Whether a reply could be the answer held to a schema: there is a
    /// schema, and no mapping of plain text to the answer takes its place.
    fn answer_may_be_held(&self) -> bool {
        self.spec.response_schema.is_some() && self.spec.text_output.is_none()
    }

    /// Whether, after a reply in prose, the next turn is held to the
    /// schema: on a server that takes `json_schema` but not a named tool
    /// (llama.cpp), where naming the answer tool would change nothing. So
    /// a model that answers in prose gets one correction, and its next
    /// reply is the answer by grammar, not nine more turns of prose.
    fn corrects_prose_by_format(&self) -> bool {
        let capabilities = self.capabilities();
        self.answered_in_text
            && capabilities.json_schema_response_format
            && !capabilities.forced_tool.honours_a_named_tool()
            && self.answer_may_be_held()
    }

    /// The `response_format` of this turn, when it is an answer turn: under
    /// [`AnswerChannel::JsonFormat`] every turn when the answer is the
    /// only tool, else once the model has answered in text; under the
    /// answer tool, the turn after a reply in prose where
    /// [`Self::corrects_prose_by_format`].
    fn answer_format(&self, tools: &[ToolSpec]) -> Option<JsonAnswerFormat> {
        if self.answers_by_format() {
            let only_answer = tools.iter().all(|t| t.name == ANSWER_TOOL);
            if !only_answer && !self.answered_in_text {
                return None;
            }
        } else if !self.corrects_prose_by_format() {
            return None;
        }
        Some(JsonAnswerFormat {
            name: ANSWER_TOOL.to_owned(),
            schema: self.answer_schema()?,
        })
    }

    /// The bound of an answer turn held to the schema: the channel's, else
    /// the one [`AnswerChannel::held`] would give this context.
    fn answer_max_tokens(&self) -> u32 {
        match self.engine.answer {
            AnswerChannel::JsonFormat { max_tokens } => max_tokens,
            AnswerChannel::Tool => held_answer_max_tokens(self.engine.context.context_window),
        }
    }

    fn tool_choice(&self, tools: &[ToolSpec]) -> Option<ToolChoice> {
        if self.spec.response_schema.is_none() {
            return (!tools.is_empty()).then_some(ToolChoice::Auto);
        }
        if tools.len() == 1 {
            // Only the answer tool: force it the way this server honours.
            return Some(self.engine.client.capabilities().force_tool(ANSWER_TOOL));
        }
        Some(ToolChoice::Required)
    }

    async fn on_reply(&mut self, reply: &Message) -> Step {
        let calls: Vec<ToolCall> = reply.tool_calls().cloned().collect();
        if calls.is_empty() {
            return self.on_text(&reply.text_content());
        }
        let mut results = Vec::with_capacity(calls.len());
        let answer = calls
            .iter()
            .find(|c| c.name == ANSWER_TOOL && self.spec.response_schema.is_some());
        if let Some(answer) = answer {
            match self.check_answer(&answer.arguments) {
                Ok(output) => {
                    // Pair every call of the reply so the transcript stays valid;
                    // the other calls do not run once the answer is in.
                    for call in &calls {
                        let (content, is_error) = if call.id == answer.id {
                            ("Output accepted.".to_owned(), false)
                        } else {
                            (
                                "Not run: the answer was submitted in the same reply.".to_owned(),
                                true,
                            )
                        };
                        results.push(tool_result(&call.id, content, is_error));
                    }
                    self.transcript.push(Message {
                        role: Role::Tool,
                        parts: results,
                    });
                    return Step::Done(output);
                }
                Err(errors) => results.push(tool_result(
                    &answer.id,
                    invalid_output_message(&errors),
                    true,
                )),
            }
        }
        for call in calls
            .iter()
            .filter(|c| Some(c.id.as_str()) != answer.map(|a| a.id.as_str()))
        {
            let (content, is_error) = self.run_tool(call).await;
            results.push(tool_result(&call.id, content, is_error));
        }
        self.transcript.push(Message {
            role: Role::Tool,
            parts: results,
        });
        Step::Continue
    }

    fn on_text(&mut self, text: &str) -> Step {
        let schema = self.spec.response_schema.is_some();
        if text.trim().is_empty() {
            self.transcript
                .push(Message::user(empty_reply_correction(schema)));
            return Step::Continue;
        }
        if schema {
            if let Some(map) = &self.spec.text_output {
                return self.accept_text_answer(map(text));
            }
            if self.answers_by_format() || self.held_to_format {
                return self.on_format_answer(text);
            }
            self.answered_in_text = true;
            self.transcript
                .push(Message::user(plain_text_correction(text)));
            return Step::Continue;
        }
        let parsed = match &self.spec.output_parser {
            Some(parse) => parse(text),
            None => parse_json_text(text),
        };
        match parsed {
            Ok(output) => Step::Done(output),
            Err(error) => {
                self.transcript
                    .push(Message::user(parse_failure_correction(&error.0)));
                Step::Continue
            }
        }
    }

    /// A reply under [`AnswerChannel::JsonFormat`]: JSON is the answer; a
    /// reply that is not JSON (a tool turn, where no format held it) is
    /// corrected, and the next turn is held to the schema.
    fn on_format_answer(&mut self, text: &str) -> Step {
        match parse_json_text(text) {
            Ok(arguments) => {
                self.metadata
                    .insert("answer_channel".into(), Value::from("json_format"));
                self.accept_text_answer(arguments)
            }
            Err(error) => {
                self.answered_in_text = true;
                self.transcript
                    .push(Message::user(parse_failure_correction(&error.0)));
                Step::Continue
            }
        }
    }

    /// A text answer taken as the output: stored as the answer tool's call
    /// and its result, in place of the text, with no second model call.
    fn accept_text_answer(&mut self, arguments: Value) -> Step {
        let call = ToolCall::new("text_answer", ANSWER_TOOL, &arguments);
        let checked = self.check_answer(&call.arguments);
        if let Some(last) = self.transcript.last_mut() {
            *last = Message {
                role: Role::Assistant,
                parts: vec![Part::ToolCall(call.clone())],
            };
        }
        match checked {
            Ok(output) => {
                self.transcript
                    .push(Message::tool_result(&call.id, "Output accepted.", false));
                self.metadata
                    .insert("text_answer".into(), Value::Bool(true));
                Step::Done(output)
            }
            Err(errors) => {
                self.transcript.push(Message::tool_result(
                    &call.id,
                    invalid_output_message(&errors),
                    true,
                ));
                Step::Continue
            }
        }
    }

    fn check_answer(&self, arguments: &str) -> Result<Value, Vec<String>> {
        let value: Value = if arguments.trim().is_empty() {
            json!({})
        } else {
            serde_json::from_str(arguments).map_err(|e| vec![format!("/: not valid JSON ({e})")])?
        };
        let Some(schema) = &self.spec.response_schema else {
            return Ok(value);
        };
        let value = if self.capabilities().grammar_held_answers {
            schema.without_added_nulls(value)
        } else {
            value
        };
        let errors = schema.errors(&value);
        if errors.is_empty() {
            Ok(value)
        } else {
            Err(errors)
        }
    }

    async fn run_tool(&self, call: &ToolCall) -> (String, bool) {
        let Some(tool) = self
            .spec
            .toolkits
            .iter()
            .find_map(|kit| kit.find(&call.name))
        else {
            return (format!("unknown tool \"{}\"", call.name), true);
        };
        if tool.needs_approval() {
            return (
                format!(
                    "tool \"{}\" needs the user's approval, and this call runs unattended",
                    call.name
                ),
                true,
            );
        }
        let arguments = match call.parsed_arguments() {
            Ok(arguments) => arguments,
            Err(e) => return (format!("the arguments are not valid JSON: {e}"), true),
        };
        match tool.call(arguments).await {
            Ok(output) => (output.content, false),
            Err(error) => (error.0, true),
        }
    }

    fn outcome(
        &mut self,
        status: CallStatus,
        output: Option<Value>,
        error: Option<(ErrorCategory, String)>,
    ) -> CallOutcome {
        let (error_category, error) = error.map_or((None, None), |(c, m)| (Some(c), Some(m)));
        CallOutcome {
            status,
            output,
            error,
            error_category,
            usage: self.usage,
            transcript: std::mem::take(&mut self.transcript),
            metadata: std::mem::take(&mut self.metadata),
            turns: self.turns,
        }
    }
}

/// The schema, told to the model under [`AnswerChannel::JsonFormat`] at
/// the end of the system message ([`JsonAnswerFormat::instruction`]). It is
/// part of the request, not of the transcript, as `tools` are, and it is
/// the same for every document of a job, so the server's prompt cache
/// reuses it.
fn with_schema_instruction(messages: &mut Vec<Message>, tools: &[ToolSpec]) {
    let Some(answer) = tools.iter().find(|t| t.name == ANSWER_TOOL) else {
        return;
    };
    let instruction = schema_instruction(&answer.parameters);
    match messages.first_mut() {
        Some(first) if first.role == Role::System => {
            let text = first.text_content();
            *first = Message::system(format!("{text}\n\n{instruction}"));
        }
        _ => messages.insert(0, Message::system(instruction)),
    }
}

fn tool_result(call_id: &str, content: String, is_error: bool) -> Part {
    Part::ToolResult(ToolResult {
        call_id: call_id.to_owned(),
        content,
        is_error,
    })
}
