//! Asking a model server what one of its models can take, where the server
//! can tell:
//!
//! - llama.cpp's server: `GET /props`, its `modalities.vision` (and
//!   `chat_template_caps.supports_tools` where the build reports it);
//! - Ollama: `POST /api/show` with `{"model": NAME}`, its `capabilities`
//!   (`"vision"`, `"tools"`);
//! - LM Studio: `GET /api/v0/models`, the entry of that id: its `type`
//!   (`vlm` takes images; `llm` and `embeddings` do not) and, where
//!   listed, its `capabilities` (`"tool_use"`).
//!
//! These routes sit at the server's root, beside the OpenAI-compatible
//! `/v1`. A server of a known flavor is asked its own route only; a
//! generic OpenAI-compatible address is asked each in that order until one
//! answers. OpenAI's, Anthropic's and vLLM's APIs have no such route, so
//! they are not asked.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::capabilities::ServerFlavor;
use crate::secret::ApiKey;

/// Long enough for a loaded local server, short enough that a server
/// without the route never holds up a job for long.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// What the server said about the model; a field its answer does not
/// cover is `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerReport {
    pub images: Option<bool>,
    pub tools: Option<bool>,
    /// The request that answered, such as `GET /props`.
    pub route: &'static str,
}

/// The outcome of asking a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeOutcome {
    Told(ServerReport),
    /// It answered, but none of the routes it was asked describes the model
    /// (404, another kind of server, an unknown model): a settled answer.
    CannotTell,
    /// It could not be reached: worth asking again later.
    Unreachable(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    LlamaCppProps,
    OllamaShow,
    LmStudioModels,
}

impl Route {
    fn label(self) -> &'static str {
        match self {
            Self::LlamaCppProps => "GET /props",
            Self::OllamaShow => "POST /api/show",
            Self::LmStudioModels => "GET /api/v0/models",
        }
    }

    fn for_flavor(flavor: ServerFlavor) -> &'static [Route] {
        match flavor {
            ServerFlavor::LlamaCpp => &[Self::LlamaCppProps],
            ServerFlavor::Ollama => &[Self::OllamaShow],
            ServerFlavor::LmStudio => &[Self::LmStudioModels],
            ServerFlavor::Generic => &[Self::LlamaCppProps, Self::OllamaShow, Self::LmStudioModels],
            ServerFlavor::OpenAi | ServerFlavor::Anthropic | ServerFlavor::Vllm => &[],
        }
    }
}

/// The server's root: the base URL without its trailing `/v1`.
pub fn server_root(base_url: &str) -> &str {
    let base = base_url.trim_end_matches('/');
    base.strip_suffix("/v1").unwrap_or(base)
}

/// Asks the server at `base_url` (an OpenAI-compatible base, up to `/v1`)
/// what `model` takes. `api_key`, when given, goes as a bearer token, as
/// it does to the server's chat route.
pub async fn ask_server(
    base_url: &str,
    flavor: ServerFlavor,
    api_key: Option<&ApiKey>,
    model: &str,
) -> ProbeOutcome {
    let routes = Route::for_flavor(flavor);
    if routes.is_empty() {
        return ProbeOutcome::CannotTell;
    }
    let http = match crate::http::client_builder().timeout(PROBE_TIMEOUT).build() {
        Ok(http) => http,
        Err(e) => return ProbeOutcome::Unreachable(e.to_string()),
    };
    let root = server_root(base_url);
    for &route in routes {
        let mut request = match route {
            Route::LlamaCppProps => http.get(format!("{root}/props")),
            Route::OllamaShow => http
                .post(format!("{root}/api/show"))
                .json(&json!({ "model": model })),
            Route::LmStudioModels => http.get(format!("{root}/api/v0/models")),
        };
        if let Some(key) = api_key {
            request = request.bearer_auth(key.expose());
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(e) => {
                let reason = e.to_string();
                return ProbeOutcome::Unreachable(match api_key {
                    Some(key) => key.scrub(&reason),
                    None => reason,
                });
            }
        };
        // A redirect is not a success either: it is never followed.
        if !response.status().is_success() {
            continue;
        }
        let body = match crate::http::read_capped(response, crate::http::MAX_REPLY_BYTES).await {
            Ok(capped) if !capped.cut => serde_json::from_slice::<Value>(&capped.bytes).ok(),
            _ => None,
        };
        let Some(body) = body else {
            continue;
        };
        let report = match route {
            Route::LlamaCppProps => read_props(&body),
            Route::OllamaShow => read_ollama_show(&body),
            Route::LmStudioModels => read_lm_studio_models(&body, model),
        };
        if let Some((images, tools)) = report {
            return ProbeOutcome::Told(ServerReport {
                images: Some(images),
                tools,
                route: route.label(),
            });
        }
    }
    ProbeOutcome::CannotTell
}

/// llama.cpp's `/props`: `{"modalities": {"vision": bool, ...},
/// "chat_template_caps": {"supports_tools": bool, ...}, ...}`.
fn read_props(body: &Value) -> Option<(bool, Option<bool>)> {
    let vision = body.pointer("/modalities/vision")?.as_bool()?;
    let tools = body
        .pointer("/chat_template_caps/supports_tools")
        .and_then(Value::as_bool);
    Some((vision, tools))
}

/// Ollama's `/api/show`: `{"capabilities": ["completion", "vision", "tools"], ...}`.
fn read_ollama_show(body: &Value) -> Option<(bool, Option<bool>)> {
    let capabilities: Vec<&str> = body
        .get("capabilities")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    Some((
        capabilities.contains(&"vision"),
        Some(capabilities.contains(&"tools")),
    ))
}

#[derive(Debug, Deserialize)]
struct LmStudioList {
    data: Vec<LmStudioModel>,
}

#[derive(Debug, Deserialize)]
struct LmStudioModel {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    capabilities: Option<Vec<String>>,
}

/// LM Studio's `/api/v0/models`: `{"data": [{"id", "type": "llm" | "vlm" |
/// "embeddings", "capabilities"?: ["tool_use"]}, ...]}`.
fn read_lm_studio_models(body: &Value, model: &str) -> Option<(bool, Option<bool>)> {
    let list = LmStudioList::deserialize(body).ok()?;
    let entry = list.data.into_iter().find(|m| m.id == model)?;
    let tools = match (&entry.capabilities, entry.kind.as_str()) {
        (_, "embeddings") => Some(false),
        (Some(caps), _) => Some(caps.iter().any(|c| c == "tool_use")),
        (None, _) => None,
    };
    Some((entry.kind == "vlm", tools))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_base_url_without_v1() {
        assert_eq!(
            server_root("http://127.0.0.1:39281/v1"),
            "http://127.0.0.1:39281"
        );
        assert_eq!(
            server_root("http://127.0.0.1:11434/v1/"),
            "http://127.0.0.1:11434"
        );
        assert_eq!(server_root("http://host:1234"), "http://host:1234");
    }

    #[test]
    fn answers_without_the_fields_say_nothing() {
        assert_eq!(read_props(&json!({"total_slots": 1})), None);
        assert_eq!(
            read_props(&json!({"modalities": {"vision": true}})),
            Some((true, None))
        );
        assert_eq!(read_ollama_show(&json!({"modelfile": ""})), None);
        assert_eq!(
            read_lm_studio_models(&json!({"data": [{"id": "a", "type": "llm"}]}), "b"),
            None
        );
        assert_eq!(
            read_lm_studio_models(&json!({"data": [{"id": "e", "type": "embeddings"}]}), "e"),
            Some((false, Some(false)))
        );
    }
}
