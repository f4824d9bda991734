//! What a model server offers: its `/models` list, and a connection test
//! built on it (the cheapest request that proves the address, the key and
//! the API all work, and costs no tokens).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sift_llm::{ApiKey, DEFAULT_ANTHROPIC_VERSION, ErrorCategory, LlmError};

use crate::error::CoreError;
use crate::models::provider::{ProviderKind, ProviderSettings};

const TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, Deserialize)]
struct ModelList {
    data: Vec<ModelEntry>,
}

#[derive(Debug, Deserialize)]
struct ModelEntry {
    id: String,
}

// A failure is an outcome, not an error: the message says what went
// wrong, for the settings screen.
/// The outcome of a connection test; a failure is an outcome too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ConnectionReport {
    /// Whether the server answered with a model list.
    pub ok: bool,
    /// The `/models` URL asked.
    pub url: String,
    /// For the user: how many models were listed, or what went wrong.
    pub message: String,
    /// The error's code when it failed (`auth`, `network`, ...).
    pub code: Option<String>,
    /// The model ids the server lists, sorted; empty when the test failed.
    pub models: Vec<String>,
    /// How long the test took, in milliseconds.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub elapsed_ms: u64,
}

/// The model ids the provider's server lists, sorted.
pub async fn list_models(provider: &ProviderSettings) -> Result<Vec<String>, CoreError> {
    let url = models_url(provider);
    let key = provider.api_key();
    // No redirects: `x-api-key` would go along to wherever one points.
    let http = sift_llm::http::client_builder()
        .build()
        .map_err(|e| CoreError::Internal(format!("cannot set up the HTTP client: {e}")))?;
    let mut request = http.get(&url).timeout(TIMEOUT);
    if let Some(key) = &key {
        request = match provider.choice() {
            ProviderKind::Anthropic => request
                .header("x-api-key", key.expose())
                .header("anthropic-version", DEFAULT_ANTHROPIC_VERSION),
            ProviderKind::OpenAi | ProviderKind::Local => request.bearer_auth(key.expose()),
        };
    } else if provider.choice() == ProviderKind::Anthropic {
        request = request.header("anthropic-version", DEFAULT_ANTHROPIC_VERSION);
    }
    let response = request.send().await.map_err(|e| {
        CoreError::Llm(LlmError::new(
            ErrorCategory::Network,
            format!(
                "cannot reach {url}: {}",
                scrub(&e.to_string(), key.as_ref())
            ),
        ))
    })?;
    let status = response.status();
    if status.is_redirection() {
        let mut error = sift_llm::http::redirect_error(&response);
        error.message = format!("{url}: {}", scrub(&error.message, key.as_ref()));
        return Err(CoreError::Llm(error));
    }
    let limit = sift_llm::http::MAX_REPLY_BYTES;
    let body = match sift_llm::http::read_capped(response, limit).await {
        Ok(capped) if capped.cut && status.is_success() => {
            let mut error = sift_llm::http::too_large("model list", limit);
            error.message = format!("{url}: {}", error.message);
            return Err(CoreError::Llm(error));
        }
        Ok(capped) => String::from_utf8_lossy(&capped.bytes).into_owned(),
        Err(_) => String::new(),
    };
    if !status.is_success() {
        let mut error = LlmError::from_status(status.as_u16(), scrub(&body, key.as_ref()));
        error.message = format!("{url}: {}", error.message);
        return Err(CoreError::Llm(error));
    }
    let list: ModelList = serde_json::from_str(&body).map_err(|e| {
        CoreError::Usage(format!(
            "{url} did not answer with a model list ({{\"data\": [{{\"id\": ...}}]}}): {e}"
        ))
    })?;
    let mut ids: Vec<String> = list.data.into_iter().map(|m| m.id).collect();
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// Asks the provider's `/models` and reports how it went.
pub async fn test_connection(provider: &ProviderSettings) -> ConnectionReport {
    let url = models_url(provider);
    let started = Instant::now();
    let outcome = list_models(provider).await;
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match outcome {
        Ok(models) => ConnectionReport {
            ok: true,
            message: format!(
                "connected: {} model{} listed",
                models.len(),
                if models.len() == 1 { "" } else { "s" }
            ),
            url,
            code: None,
            models,
            elapsed_ms,
        },
        Err(error) => ConnectionReport {
            ok: false,
            url,
            message: error.to_string(),
            code: Some(error.code().to_owned()),
            models: Vec::new(),
            elapsed_ms,
        },
    }
}

/// `{base}/models`; Anthropic's base URL stops before `/v1`.
pub fn models_url(provider: &ProviderSettings) -> String {
    let base = provider.effective_base_url();
    let base = base.trim_end_matches('/');
    match provider.choice() {
        ProviderKind::Anthropic if !base.ends_with("/v1") => format!("{base}/v1/models"),
        _ => format!("{base}/models"),
    }
}

fn scrub(text: &str, key: Option<&ApiKey>) -> String {
    match key {
        Some(key) => key.scrub(text),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(choice: ProviderKind, base_url: Option<&str>) -> ProviderSettings {
        ProviderSettings {
            provider: Some(choice),
            base_url: base_url.map(str::to_owned),
            extra_base_urls: Vec::new(),
            api_key_env: Some("SIFT_CORE_TESTS_NO_KEY".into()),
            api_key_account: None,
            key_scope: Default::default(),
        }
    }

    #[test]
    fn the_models_url_of_each_kind() {
        assert_eq!(
            models_url(&provider(ProviderKind::OpenAi, None)),
            "https://api.openai.com/v1/models"
        );
        assert_eq!(
            models_url(&provider(ProviderKind::Anthropic, None)),
            "https://api.anthropic.com/v1/models"
        );
        assert_eq!(
            models_url(&provider(
                ProviderKind::Anthropic,
                Some("https://proxy/v1/")
            )),
            "https://proxy/v1/models"
        );
        assert_eq!(
            models_url(&provider(
                ProviderKind::OpenAi,
                Some("http://127.0.0.1:8080/v1/")
            )),
            "http://127.0.0.1:8080/v1/models"
        );
    }
}
