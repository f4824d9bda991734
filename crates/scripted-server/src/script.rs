//! What the server answers: a queue of replies per model.

use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model_info::ServerIdentity;

/// Replies per model name, consumed in order. The model `*` answers for
/// any model that has no queue of its own (or whose queue is empty).
///
/// As JSON (the binary's `--script` file):
/// `{"models": {"m": [{"text": "hi"}, {"fault": {"status": 429}}]}}`
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Script {
    #[serde(default)]
    pub models: HashMap<String, VecDeque<Reply>>,
    /// Which real server it describes its models as (`/props`,
    /// `/api/show`, `/api/v0/models`); by default none.
    #[serde(default)]
    pub server: ServerIdentity,
    /// The key every request but `/health` and the `/_scripted` routes must
    /// carry as `Authorization: Bearer KEY`, as Sift's local llama-server
    /// asks (else 401, as it answers); `None` asks none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
}

impl Script {
    pub fn new() -> Self {
        Self::default()
    }

    /// Describes its models as `server` does.
    pub fn answering_as(mut self, server: ServerIdentity) -> Self {
        self.server = server;
        self
    }

    /// Asks every request for `key`, as llama-server with `LLAMA_API_KEY` does.
    pub fn requiring_key(mut self, key: &str) -> Self {
        self.api_key = Some(key.to_owned());
        self
    }

    /// Adds replies to the end of `model`'s queue.
    pub fn with(mut self, model: &str, replies: impl IntoIterator<Item = Reply>) -> Self {
        self.models
            .entry(model.to_owned())
            .or_default()
            .extend(replies);
        self
    }

    pub(crate) fn next_reply(&mut self, model: &str) -> Option<Reply> {
        let queue = match self.models.get_mut(model) {
            Some(queue) if !queue.is_empty() => queue,
            _ => self.models.get_mut("*")?,
        };
        if queue.front()?.repeat {
            return queue.front().cloned();
        }
        queue.pop_front()
    }

    pub(crate) fn model_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.models.keys().filter(|m| *m != "*").cloned().collect();
        names.sort();
        names
    }
}

/// One answer, or one failure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reply {
    pub text: Option<String>,
    pub tool_calls: Vec<ScriptedToolCall>,
    /// `stop`, `tool_calls`, `length` or `refusal`; by default `tool_calls`
    /// when there are tool calls, else `stop`.
    pub finish: Option<Finish>,
    /// Anthropic's refusal category (`stop_details.category`).
    pub refusal_category: Option<String>,
    /// By default estimated from the characters in and out, four to a token.
    pub usage: Option<ScriptedUsage>,
    /// Wait this long before answering (or before failing).
    pub delay_ms: u64,
    /// Before anything else (and before `delay_ms`), wait until the gate
    /// of this name is released (`ScriptedServer::gate(name).release()`):
    /// a test that must act while a request is in flight holds it for as
    /// long as it needs instead of racing a delay.
    pub hold: Option<String>,
    /// Streamed, with `hold`: the hold comes after this many SSE events
    /// instead of before answering (a stream that stops mid-way until the
    /// test lets it go on).
    pub hold_after_events: Option<usize>,
    /// Streamed text goes out in pieces of this many characters (default 4).
    pub chunk_chars: Option<usize>,
    /// Wait this long between streamed pieces.
    pub chunk_delay_ms: u64,
    /// Streamed: close the connection after this many SSE events, without
    /// ending the body properly.
    pub cut_after_events: Option<usize>,
    /// Streamed (OpenAI API): after this many SSE events, send `[DONE]` and
    /// end the body properly, with no finish reason: what llama.cpp's
    /// Python server does to an answer that another request interrupts.
    pub done_after_events: Option<usize>,
    /// Answer with this status, headers and body instead.
    pub fault: Option<Fault>,
    /// Close the connection without answering at all.
    pub drop_connection: bool,
    /// Stays at the head of its queue and answers every later request too.
    pub repeat: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScriptedToolCall {
    /// By default `call_N`, N counting from 1 across the server's life.
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    /// A JSON value, sent as its text; or, when a string, sent as it is
    /// (which allows invalid JSON).
    pub arguments: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    Stop,
    ToolCalls,
    Length,
    Refusal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptedUsage {
    pub input: u64,
    pub output: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Fault {
    pub status: u16,
    pub body: String,
    pub headers: Vec<(String, String)>,
}

impl Reply {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    pub fn tool_call(name: impl Into<String>, arguments: Value) -> Self {
        Self::default().and_tool_call(name, arguments)
    }

    pub fn and_tool_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.tool_calls.push(ScriptedToolCall {
            id: None,
            name: name.into(),
            arguments,
        });
        self
    }

    /// A tool call whose arguments text is sent exactly as given.
    pub fn raw_tool_call(name: impl Into<String>, arguments_text: impl Into<String>) -> Self {
        Self::tool_call(name, Value::String(arguments_text.into()))
    }

    pub fn refusal(category: Option<&str>) -> Self {
        Self {
            finish: Some(Finish::Refusal),
            refusal_category: category.map(str::to_owned),
            ..Self::default()
        }
    }

    pub fn fault(status: u16, body: impl Into<String>) -> Self {
        Self {
            fault: Some(Fault {
                status,
                body: body.into(),
                headers: Vec::new(),
            }),
            ..Self::default()
        }
    }

    pub fn dropped_connection() -> Self {
        Self {
            drop_connection: true,
            ..Self::default()
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Some(fault) = &mut self.fault {
            fault.headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }

    pub fn finish(mut self, finish: Finish) -> Self {
        self.finish = Some(finish);
        self
    }

    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = Some(ScriptedUsage { input, output });
        self
    }

    pub fn repeated(mut self) -> Self {
        self.repeat = true;
        self
    }

    pub fn delay_ms(mut self, ms: u64) -> Self {
        self.delay_ms = ms;
        self
    }

    /// Held until the gate `gate` is released (see [`Reply::hold`]).
    pub fn held(mut self, gate: &str) -> Self {
        self.hold = Some(gate.to_owned());
        self
    }

    /// Streamed: held on the gate `gate` after `events` SSE events.
    pub fn held_after_events(mut self, gate: &str, events: usize) -> Self {
        self.hold = Some(gate.to_owned());
        self.hold_after_events = Some(events);
        self
    }

    pub fn chunk_chars(mut self, n: usize) -> Self {
        self.chunk_chars = Some(n.max(1));
        self
    }

    pub fn chunk_delay_ms(mut self, ms: u64) -> Self {
        self.chunk_delay_ms = ms;
        self
    }

    pub fn done_after_events(mut self, n: usize) -> Self {
        self.done_after_events = Some(n);
        self
    }

    pub fn cut_after_events(mut self, n: usize) -> Self {
        self.cut_after_events = Some(n);
        self
    }

    pub(crate) fn finish_or_default(&self) -> Finish {
        self.finish.unwrap_or(if self.tool_calls.is_empty() {
            Finish::Stop
        } else {
            Finish::ToolCalls
        })
    }
}

impl ScriptedToolCall {
    pub(crate) fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }
}
