//! The HTTP client: one provider at one base URL or several (spread and
//! failed over in `endpoints.rs`), with retries.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use serde_json::Value;

use crate::anthropic::{self, AnthropicStream};
use crate::capabilities::{Capabilities, ProviderKind, ServerFlavor};
use crate::endpoints::{AttemptError, Endpoints};
use crate::error::{ErrorCategory, LlmError, is_transient_status};
use crate::http::{self, MAX_REPLY_BYTES, MAX_STREAM_BYTES};
use crate::message::{ChatRequest, ChatResponse, StopReason, StreamDelta};
use crate::openai::{self, OpenAiStream};
use crate::retry::{RetryPolicy, parse_retry_after};
use crate::secret::ApiKey;
use crate::sse::SseDecoder;
use crate::stream::StreamDecoder;

pub const DEFAULT_ANTHROPIC_VERSION: &str = "2023-06-01";

/// How long an endpoint whose request failed is passed over by default:
/// long enough not to send every request of a job to a host that is off,
/// short enough that one restarted is used again within the job.
pub const DEFAULT_ENDPOINT_COOLDOWN: Duration = Duration::from_secs(30);

#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub kind: ProviderKind,
    pub flavor: ServerFlavor,
    /// For OpenAI-compatible servers, up to and including `/v1`
    /// (`http://127.0.0.1:8080/v1`); for Anthropic, the host
    /// (`https://api.anthropic.com`).
    pub base_url: String,
    /// More base URLs serving the same models (other hosts); with them,
    /// each request goes to the endpoint with the most free capacity, and
    /// fails over to the next one when it fails. Empty: `base_url` alone.
    pub extra_base_urls: Vec<String>,
    /// How many requests each endpoint takes at once (`base_url` first,
    /// then `extra_base_urls`), such as a llama-server's slots; 1 for an
    /// endpoint not listed.
    pub endpoint_capacity: Vec<u32>,
    /// How long an endpoint whose request failed with a network-category
    /// error is passed over while another is up.
    pub endpoint_cooldown: Duration,
    pub api_key: Option<ApiKey>,
    pub anthropic_version: String,
    pub retry: RetryPolicy,
    pub connect_timeout: Duration,
    /// The whole of a non-streamed request.
    pub request_timeout: Duration,
    /// The longest silence between two pieces of a stream.
    pub stream_idle_timeout: Duration,
    /// The most a non-streamed reply may be, in bytes; a larger one is
    /// an error ([`MAX_REPLY_BYTES`] by default).
    pub max_reply_bytes: usize,
    /// The most a streamed reply may be, all its events together, in
    /// bytes ([`MAX_STREAM_BYTES`] by default).
    pub max_stream_bytes: usize,
}

impl ClientConfig {
    pub fn new(kind: ProviderKind, base_url: impl Into<String>) -> Self {
        Self {
            kind,
            flavor: match kind {
                ProviderKind::OpenAi => ServerFlavor::Generic,
                ProviderKind::Anthropic => ServerFlavor::Anthropic,
            },
            base_url: base_url.into(),
            extra_base_urls: Vec::new(),
            endpoint_capacity: Vec::new(),
            endpoint_cooldown: DEFAULT_ENDPOINT_COOLDOWN,
            api_key: None,
            anthropic_version: DEFAULT_ANTHROPIC_VERSION.to_owned(),
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(10),
            // Local models on two cores can take minutes for a long answer.
            request_timeout: Duration::from_secs(600),
            stream_idle_timeout: Duration::from_secs(120),
            max_reply_bytes: MAX_REPLY_BYTES,
            max_stream_bytes: MAX_STREAM_BYTES,
        }
    }

    /// Every endpoint's base URL, in order: `base_url`, then the extra ones.
    pub fn base_urls(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.base_url.as_str())
            .chain(self.extra_base_urls.iter().map(String::as_str))
    }
}

/// Told about each retry before its wait: for progress displays and tests.
#[derive(Debug)]
pub struct RetryNotice<'a> {
    /// 1 for the first retry.
    pub retry: u32,
    pub delay: Duration,
    pub error: &'a LlmError,
}

type RetryObserver = Arc<dyn Fn(&RetryNotice<'_>) + Send + Sync>;

#[derive(Clone)]
pub struct Client {
    config: ClientConfig,
    endpoints: Endpoints,
    http: reqwest::Client,
    on_retry: Option<RetryObserver>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Client {
    pub fn new(config: ClientConfig) -> Result<Self, LlmError> {
        let http = http::client_builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| {
                LlmError::new(
                    ErrorCategory::Other,
                    format!("cannot set up the HTTP client: {e}"),
                )
            })?;
        Ok(Self {
            endpoints: Endpoints::new(
                config.base_urls(),
                &config.endpoint_capacity,
                config.endpoint_cooldown,
            ),
            config,
            http,
            on_retry: None,
        })
    }

    pub fn with_retry_observer(
        mut self,
        observer: impl Fn(&RetryNotice<'_>) + Send + Sync + 'static,
    ) -> Self {
        self.on_retry = Some(Arc::new(observer));
        self
    }

    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    pub fn capabilities(&self) -> Capabilities {
        Capabilities::for_server(self.config.kind, self.config.flavor)
    }

    /// One answer, whole. Transient failures are retried; a refusal is an
    /// error of category `refusal`.
    pub async fn complete(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = self.request_body(req, false);
        let result = self
            .with_retries(|| self.complete_once(&body, &req.model))
            .await;
        self.finish(result)
    }

    /// One attempt: sent to an endpoint, and failed over to the others.
    async fn complete_once(&self, body: &Value, model: &str) -> Result<ChatResponse, AttemptError> {
        let mut round = self.endpoints.round();
        loop {
            let Some(lease) = round.next() else {
                return Err(round.failure());
            };
            let result = async {
                let text = self.send_for_text(lease.base_url(), body).await?;
                Ok(self.parse_response(&text, model)?)
            }
            .await;
            if let Some(outcome) = round.settle(lease, result) {
                return outcome;
            }
        }
    }

    /// One answer, streamed: `on_delta` sees each piece as it arrives, and
    /// the whole answer is returned at the end. A failure before the first
    /// piece is retried like any other; after it, retrying would show the
    /// user the same text twice, so the error is final.
    pub async fn stream(
        &self,
        req: &ChatRequest,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<ChatResponse, LlmError> {
        let body = self.request_body(req, true);
        let (mut retry, mut sent) = (0, 0);
        let result = loop {
            let mut emitted = false;
            let mut round = self.endpoints.round();
            let attempt = loop {
                let Some(lease) = round.next() else {
                    break Err(round.failure());
                };
                let result = self
                    .stream_at(lease.base_url(), &body, &req.model, on_delta, &mut emitted)
                    .await;
                if let Some(outcome) = round.settle(lease, result) {
                    break outcome;
                }
                // Another endpoint would show the user the same text twice.
                if emitted {
                    break Err(round.failure());
                }
            };
            match attempt {
                Ok(response) => break Ok(response),
                Err(failure) if !emitted => {
                    sent += failure.sent;
                    match self.wait_before_retry(retry, sent, failure).await {
                        Ok(()) => retry += 1,
                        Err(error) => break Err(error),
                    }
                }
                Err(mut failure) => {
                    failure.error.attempts = sent + failure.sent;
                    break Err(failure.error);
                }
            }
        };
        self.finish(result)
    }

    async fn stream_at(
        &self,
        base_url: &str,
        body: &Value,
        model: &str,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
        emitted: &mut bool,
    ) -> Result<ChatResponse, AttemptError> {
        match self.config.kind {
            ProviderKind::OpenAi => {
                self.stream_once(base_url, body, OpenAiStream::new(model), on_delta, emitted)
                    .await
            }
            ProviderKind::Anthropic => {
                self.stream_once(
                    base_url,
                    body,
                    AnthropicStream::new(model),
                    on_delta,
                    emitted,
                )
                .await
            }
        }
    }

    fn request_body(&self, req: &ChatRequest, stream: bool) -> Value {
        match self.config.kind {
            ProviderKind::OpenAi => openai::request_body(req, stream, &self.capabilities()),
            ProviderKind::Anthropic => anthropic::request_body(req, stream),
        }
    }

    fn parse_response(&self, text: &str, model: &str) -> Result<ChatResponse, LlmError> {
        match self.config.kind {
            ProviderKind::OpenAi => openai::parse_response(text, model),
            ProviderKind::Anthropic => anthropic::parse_response(text, model),
        }
    }

    fn url(&self, base_url: &str) -> String {
        let base = base_url.trim_end_matches('/');
        match self.config.kind {
            ProviderKind::OpenAi => format!("{base}/chat/completions"),
            ProviderKind::Anthropic => format!("{base}/v1/messages"),
        }
    }

    fn headers(&self) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let invalid_key = || {
            // The value itself must not be in the message.
            LlmError::new(
                ErrorCategory::Auth,
                "the API key contains characters a header cannot hold",
            )
        };
        match self.config.kind {
            ProviderKind::OpenAi => {
                if let Some(key) = &self.config.api_key {
                    let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
                        .map_err(|_| invalid_key())?;
                    value.set_sensitive(true);
                    headers.insert(reqwest::header::AUTHORIZATION, value);
                }
            }
            ProviderKind::Anthropic => {
                if let Some(key) = &self.config.api_key {
                    let mut value =
                        HeaderValue::from_str(key.expose()).map_err(|_| invalid_key())?;
                    value.set_sensitive(true);
                    headers.insert("x-api-key", value);
                }
                let version =
                    HeaderValue::from_str(&self.config.anthropic_version).map_err(|_| {
                        LlmError::new(
                            ErrorCategory::Other,
                            "the anthropic-version setting is not a valid header",
                        )
                    })?;
                headers.insert("anthropic-version", version);
            }
        }
        Ok(headers)
    }

    async fn send(
        &self,
        base_url: &str,
        body: &Value,
        timeout: Option<Duration>,
    ) -> Result<reqwest::Response, AttemptError> {
        let mut request = self
            .http
            .post(self.url(base_url))
            .headers(self.headers()?)
            .json(body);
        if let Some(timeout) = timeout {
            request = request.timeout(timeout);
        }
        let response = request.send().await.map_err(|e| transport_error(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        if status.is_redirection() {
            return Err(http::redirect_error(&response).into());
        }
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        // An error's body past the cap is only more of the same message.
        let text = match http::read_capped(response, self.config.max_reply_bytes).await {
            Ok(capped) => String::from_utf8_lossy(&capped.bytes).into_owned(),
            Err(_) => String::new(),
        };
        Err(AttemptError {
            error: LlmError::from_status(status.as_u16(), text),
            retry_after,
            sent: 1,
        })
    }

    async fn send_for_text(&self, base_url: &str, body: &Value) -> Result<String, AttemptError> {
        let response = self
            .send(base_url, body, Some(self.config.request_timeout))
            .await?;
        let limit = self.config.max_reply_bytes;
        let capped = http::read_capped(response, limit)
            .await
            .map_err(|e| transport_error(&e))?;
        if capped.cut {
            return Err(http::too_large("reply", limit).into());
        }
        Ok(String::from_utf8_lossy(&capped.bytes).into_owned())
    }

    async fn stream_once<D: StreamDecoder>(
        &self,
        base_url: &str,
        body: &Value,
        mut decoder: D,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
        emitted: &mut bool,
    ) -> Result<ChatResponse, AttemptError> {
        let mut response = self.send(base_url, body, None).await?;
        let mut received = 0usize;
        let mut sse = SseDecoder::new();
        let mut events = Vec::new();
        let mut emit = |delta: StreamDelta| {
            *emitted = true;
            on_delta(delta);
        };
        loop {
            let chunk =
                tokio::time::timeout(self.config.stream_idle_timeout, response.chunk()).await;
            let chunk = match chunk {
                Err(_) => {
                    let idle = self.config.stream_idle_timeout.as_millis();
                    return Err(LlmError::new(
                        ErrorCategory::Network,
                        format!("the stream went silent for {idle} ms"),
                    )
                    .into());
                }
                Ok(Err(e)) => return Err(cut_stream_error(&e).into()),
                Ok(Ok(chunk)) => chunk,
            };
            let at_end = chunk.is_none();
            // Counted before decoding: the decoder never holds more.
            received += chunk.as_ref().map_or(0, |bytes| bytes.len());
            if received > self.config.max_stream_bytes {
                return Err(http::too_large("stream", self.config.max_stream_bytes).into());
            }
            match chunk {
                Some(bytes) => sse.feed(&bytes, &mut events),
                None => sse.finish(&mut events),
            }
            let mut finished = at_end;
            for event in events.drain(..) {
                decoder.on_event(&event, &mut emit)?;
                if decoder.is_finished() {
                    finished = true;
                    break;
                }
            }
            if finished {
                return if decoder.is_whole() {
                    Ok(decoder.into_response())
                } else {
                    Err(LlmError::new(
                        ErrorCategory::Network,
                        "the stream ended before the answer was complete",
                    )
                    .into())
                };
            }
        }
    }

    async fn with_retries<F, Fut>(&self, mut attempt: F) -> Result<ChatResponse, LlmError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<ChatResponse, AttemptError>>,
    {
        let (mut retry, mut sent) = (0, 0);
        loop {
            match attempt().await {
                Ok(response) => return Ok(response),
                Err(failure) => {
                    sent += failure.sent;
                    match self.wait_before_retry(retry, sent, failure).await {
                        Ok(()) => retry += 1,
                        Err(error) => return Err(error),
                    }
                }
            }
        }
    }

    /// Waits before retry number `done + 1`, or gives the final error when
    /// the failure is not transient or retries are used up. `sent`: the
    /// requests sent so far, failovers included.
    async fn wait_before_retry(
        &self,
        done: u32,
        sent: u32,
        failure: AttemptError,
    ) -> Result<(), LlmError> {
        let AttemptError {
            mut error,
            retry_after,
            ..
        } = failure;
        error.attempts = sent;
        if !error.is_transient() || done >= self.config.retry.max_retries {
            return Err(error);
        }
        let Some(delay) = self.config.retry.delay_for(done, retry_after) else {
            error.message = format!(
                "{} (the server asked to wait longer than {} s)",
                error.message,
                self.config.retry.max_retry_after.as_secs()
            );
            return Err(error);
        };
        if let Some(observer) = &self.on_retry {
            // A progress display shows this error too.
            self.scrub(&mut error);
            observer(&RetryNotice {
                retry: done + 1,
                delay,
                error: &error,
            });
        }
        tokio::time::sleep(delay).await;
        Ok(())
    }

    /// Turns a refusal into an error, and scrubs the key from every error.
    fn finish(&self, result: Result<ChatResponse, LlmError>) -> Result<ChatResponse, LlmError> {
        let result = result.and_then(|response| match &response.stop {
            StopReason::Refusal { category } => {
                let mut error = LlmError::refusal(category, None);
                error.usage = response.usage;
                let text = response.message.text_content();
                if !text.is_empty() {
                    error.body = Some(text);
                }
                Err(error)
            }
            _ => Ok(response),
        });
        result.map_err(|mut error| {
            self.scrub(&mut error);
            error
        })
    }

    fn scrub(&self, error: &mut LlmError) {
        if let Some(key) = &self.config.api_key {
            error.message = key.scrub(&error.message);
            error.body = error.body.take().map(|b| key.scrub(&b));
        }
    }
}

fn transport_error(error: &reqwest::Error) -> AttemptError {
    let what = if error.is_timeout() {
        "the request timed out"
    } else if error.is_connect() {
        "cannot connect to the model server"
    } else {
        "the connection failed"
    };
    LlmError::new(
        ErrorCategory::Network,
        format!("{what}: {}", describe(error)),
    )
    .into()
}

fn cut_stream_error(error: &reqwest::Error) -> LlmError {
    LlmError::new(
        ErrorCategory::Network,
        format!("the stream was cut: {}", describe(error)),
    )
}

/// reqwest's own message plus its causes ("error sending request" alone
/// does not say that the connection was refused).
fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Whether an HTTP status is one the client retries.
pub fn is_retried_status(status: u16) -> bool {
    is_transient_status(status)
}
