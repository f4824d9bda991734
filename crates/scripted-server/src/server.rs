//! The loopback server: accepts connections, answers from the script,
//! records every model request.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::http::{self, Request};
use crate::model_info;
use crate::script::{Reply, Script, ScriptedUsage};
use crate::wire::{self, Answer};

/// A model request as the server received it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Names in lower case, in the order sent.
    pub headers: Vec<(String, String)>,
    /// The JSON body; a string when it was not JSON.
    pub body: Value,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Default)]
struct State {
    script: Script,
    requests: Vec<RecordedRequest>,
    /// The requests to the routes that describe models, kept apart so
    /// that a caller's lookups do not shift the model requests' count.
    model_info_requests: Vec<RecordedRequest>,
    next_call_id: u64,
    /// The gates released so far (see `Reply::hold`).
    released: HashSet<String>,
}

/// A running server on 127.0.0.1. Dropping it stops it.
#[derive(Debug)]
pub struct ScriptedServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    gates: Arc<Notify>,
    task: JoinHandle<()>,
}

/// A named gate of a [`ScriptedServer`]: the replies held on it
/// (`Reply::held`) wait until it is released. Released, it stays open.
#[derive(Debug, Clone)]
pub struct Gate {
    name: String,
    state: Arc<Mutex<State>>,
    gates: Arc<Notify>,
}

impl Gate {
    /// Lets every reply held on this gate go, now and from now on.
    pub fn release(&self) {
        lock(&self.state).released.insert(self.name.clone());
        self.gates.notify_waiters();
    }
}

#[derive(Debug, Deserialize)]
struct AppendReplies {
    model: String,
    replies: Vec<Reply>,
}

impl ScriptedServer {
    /// Starts on a free port.
    pub async fn start(script: Script) -> std::io::Result<Self> {
        Self::start_on(SocketAddr::from(([127, 0, 0, 1], 0)), script).await
    }

    pub async fn start_on(addr: SocketAddr, script: Script) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            script,
            ..State::default()
        }));
        let gates = Arc::new(Notify::new());
        let task_state = Arc::clone(&state);
        let task_gates = Arc::clone(&gates);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = Arc::clone(&task_state);
                let gates = Arc::clone(&task_gates);
                tokio::spawn(async move {
                    // A client hanging up mid-answer is routine in fault tests.
                    let _ = handle(stream, state, gates).await;
                });
            }
        });
        Ok(Self {
            addr,
            state,
            gates,
            task,
        })
    }

    /// The gate of this name, for the replies held on it.
    pub fn gate(&self, name: &str) -> Gate {
        Gate {
            name: name.to_owned(),
            state: Arc::clone(&self.state),
            gates: Arc::clone(&self.gates),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`: the base URL for Anthropic clients.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL for OpenAI-compatible clients.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every model request so far, in order of arrival.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Every request to `/props`, `/api/show` or `/api/v0/models` so far,
    /// in order of arrival.
    pub fn model_info_requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).model_info_requests.clone()
    }

    pub fn push(&self, model: &str, reply: Reply) {
        lock(&self.state)
            .script
            .models
            .entry(model.to_owned())
            .or_default()
            .push_back(reply);
    }

    pub fn set_script(&self, script: Script) {
        lock(&self.state).script = script;
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic elsewhere must not take the recorded requests with it.
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn handle(
    mut stream: TcpStream,
    state: Arc<Mutex<State>>,
    gates: Arc<Notify>,
) -> std::io::Result<()> {
    let request = match http::read_request(&mut stream).await {
        Ok(Some(request)) => request,
        Ok(None) => return Ok(()),
        Err(e) => {
            let body = json!({"error": {"message": e.to_string()}}).to_string();
            return http::write_response(&mut stream, 400, &json_type(), body.as_bytes()).await;
        }
    };
    let path = request
        .path
        .split('?')
        .next()
        .unwrap_or_default()
        .to_owned();
    let refused = {
        let state = lock(&state);
        state.script.api_key.as_ref().is_some_and(|key| {
            path != "/health"
                && !path.starts_with("/_scripted/")
                && request.header("authorization") != Some(format!("Bearer {key}").as_str())
        })
    };
    if refused {
        // llama-server's own answer to a request without its key.
        let body = json!({"error": {"message": "Invalid API Key", "type": "authentication_error", "code": 401}})
            .to_string();
        return http::write_response(&mut stream, 401, &json_type(), body.as_bytes()).await;
    }
    match (request.method.as_str(), path.as_str()) {
        ("POST", "/v1/chat/completions" | "/chat/completions") => {
            answer(stream, &state, &gates, request, Api::OpenAi).await
        }
        ("POST", "/v1/messages") => answer(stream, &state, &gates, request, Api::Anthropic).await,
        ("GET", "/v1/models" | "/models") => {
            let names = lock(&state).script.model_names();
            let data: Vec<Value> = names
                .iter()
                .map(|n| json!({"id": n, "object": "model", "owned_by": "scripted"}))
                .collect();
            let body = json!({"object": "list", "data": data}).to_string();
            http::write_response(&mut stream, 200, &json_type(), body.as_bytes()).await
        }
        (method, route) if model_info::is_model_info_route(method, route) => {
            let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            let (status, answer) = {
                let mut state = lock(&state);
                state.model_info_requests.push(RecordedRequest {
                    method: request.method.clone(),
                    path: request.path.clone(),
                    headers: request.headers.clone(),
                    body: body.clone(),
                });
                model_info::answer(&state.script.server, method, route, &body)
            };
            http::write_response(
                &mut stream,
                status,
                &json_type(),
                answer.to_string().as_bytes(),
            )
            .await
        }
        ("GET", "/_scripted/model_info_requests") => {
            let body = serde_json::to_string(&lock(&state).model_info_requests).unwrap_or_default();
            http::write_response(&mut stream, 200, &json_type(), body.as_bytes()).await
        }
        ("GET", "/_scripted/requests") => {
            let body = serde_json::to_string(&lock(&state).requests).unwrap_or_default();
            http::write_response(&mut stream, 200, &json_type(), body.as_bytes()).await
        }
        ("DELETE", "/_scripted/requests") => {
            {
                let mut state = lock(&state);
                state.requests.clear();
                state.model_info_requests.clear();
            }
            http::write_response(&mut stream, 204, &[], b"").await
        }
        ("PUT", "/_scripted/script") => match serde_json::from_slice::<Script>(&request.body) {
            Ok(script) => {
                lock(&state).script = script;
                http::write_response(&mut stream, 204, &[], b"").await
            }
            Err(e) => bad_request(&mut stream, &format!("invalid script: {e}")).await,
        },
        ("POST", "/_scripted/replies") => {
            match serde_json::from_slice::<AppendReplies>(&request.body) {
                Ok(append) => {
                    lock(&state)
                        .script
                        .models
                        .entry(append.model)
                        .or_default()
                        .extend(append.replies);
                    http::write_response(&mut stream, 204, &[], b"").await
                }
                Err(e) => bad_request(&mut stream, &format!("invalid replies: {e}")).await,
            }
        }
        _ => {
            let body =
                json!({"error": {"message": format!("no route for {} {path}", request.method)}})
                    .to_string();
            http::write_response(&mut stream, 404, &json_type(), body.as_bytes()).await
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    OpenAi,
    Anthropic,
}

fn json_type() -> Vec<(String, String)> {
    vec![("content-type".into(), "application/json".into())]
}

async fn bad_request(stream: &mut TcpStream, message: &str) -> std::io::Result<()> {
    let body = json!({"error": {"message": message, "type": "invalid_request_error"}}).to_string();
    http::write_response(stream, 400, &json_type(), body.as_bytes()).await
}

async fn answer(
    mut stream: TcpStream,
    state: &Mutex<State>,
    gates: &Notify,
    request: Request,
    api: Api,
) -> std::io::Result<()> {
    let body: Value = serde_json::from_slice(&request.body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&request.body).into_owned()));
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let streamed = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let include_usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let (reply, call_ids) = {
        let mut state = lock(state);
        state.requests.push(RecordedRequest {
            method: request.method.clone(),
            path: request.path.clone(),
            headers: request.headers.clone(),
            body: body.clone(),
        });
        let reply = state.script.next_reply(&model);
        let count = reply.as_ref().map_or(0, |r| r.tool_calls.len());
        let mut ids = Vec::with_capacity(count);
        for call in reply.iter().flat_map(|r| &r.tool_calls) {
            state.next_call_id += 1;
            ids.push(
                call.id
                    .clone()
                    .unwrap_or_else(|| format!("call_{}", state.next_call_id)),
            );
        }
        (reply, ids)
    };
    let Some(reply) = reply else {
        return bad_request(
            &mut stream,
            &format!("scripted server: no reply left for model \"{model}\""),
        )
        .await;
    };
    if reply.hold_after_events.is_none() {
        hold(state, gates, reply.hold.as_deref()).await;
    }
    if reply.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(reply.delay_ms)).await;
    }
    if reply.drop_connection {
        return Ok(()); // the stream is dropped here, closing the connection unanswered
    }
    if let Some(fault) = &reply.fault {
        let mut headers = fault.headers.clone();
        if !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        {
            headers.push(("content-type".into(), "application/json".into()));
        }
        return http::write_response(&mut stream, fault.status, &headers, fault.body.as_bytes())
            .await;
    }
    let answer = Answer {
        reply: &reply,
        model: &model,
        call_ids,
        usage: reply.usage.unwrap_or_else(|| estimate_usage(&body, &reply)),
    };
    if !streamed {
        let body = match api {
            Api::OpenAi => wire::openai::body(&answer),
            Api::Anthropic => wire::anthropic::body(&answer),
        };
        return http::write_response(&mut stream, 200, &json_type(), body.to_string().as_bytes())
            .await;
    }
    let mut events = match api {
        Api::OpenAi => wire::openai::events(&answer, include_usage),
        Api::Anthropic => wire::anthropic::events(&answer),
    };
    if let Some(n) = reply.done_after_events {
        events.truncate(n);
        events.push("data: [DONE]\n\n".to_owned());
    }
    http::start_chunked(&mut stream, "text/event-stream").await?;
    for (sent, event) in events.iter().enumerate() {
        if reply.hold_after_events == Some(sent) {
            hold(state, gates, reply.hold.as_deref()).await;
        }
        if reply.cut_after_events == Some(sent) {
            return Ok(()); // closes without the final chunk: a cut body
        }
        http::write_chunk(&mut stream, event.as_bytes()).await?;
        if reply.chunk_delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(reply.chunk_delay_ms)).await;
        }
    }
    http::end_chunked(&mut stream).await
}

/// Waits until the gate is released (see `Reply::hold`); no gate, no wait.
async fn hold(state: &Mutex<State>, gates: &Notify, gate: Option<&str>) {
    let Some(gate) = gate else { return };
    loop {
        // Registered before the check, so a release in between is seen.
        let released = gates.notified();
        tokio::pin!(released);
        released.as_mut().enable();
        if lock(state).released.contains(gate) {
            return;
        }
        released.await;
    }
}

/// Four characters to a token, at least one each way: plausible numbers
/// that tests can predict.
fn estimate_usage(body: &Value, reply: &Reply) -> ScriptedUsage {
    let input_chars = body
        .get("messages")
        .map_or(0, |m| m.to_string().chars().count()) as u64;
    let output_chars = reply.text.as_deref().map_or(0, |t| t.chars().count())
        + reply
            .tool_calls
            .iter()
            .map(|c| c.arguments_text().chars().count())
            .sum::<usize>();
    ScriptedUsage {
        input: input_chars.div_ceil(4).max(1),
        output: (output_chars as u64).div_ceil(4).max(1),
    }
}
