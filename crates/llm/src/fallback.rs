//! Trying a list of models in order until one answers.

use crate::client::Client;
use crate::error::LlmError;
use crate::message::{ChatRequest, ChatResponse};

/// One model on one server.
#[derive(Debug, Clone, Copy)]
pub struct ModelRoute<'a> {
    pub client: &'a Client,
    pub model: &'a str,
}

/// Sends `req` to each route in turn (its `model` replaced by the route's),
/// never streamed, and returns the first answer with the index of the route
/// that gave it. Each route's own retries happen first. When every route
/// fails, the error is the last one, prefixed `all N models exhausted: `
/// (the wording of dagu, whose workflows ours stay compatible with).
pub async fn complete_first(
    routes: &[ModelRoute<'_>],
    req: &ChatRequest,
    mut on_failure: impl FnMut(usize, &LlmError),
) -> Result<(usize, ChatResponse), LlmError> {
    let mut last = None;
    for (index, route) in routes.iter().enumerate() {
        let mut attempt = req.clone();
        route.model.clone_into(&mut attempt.model);
        match route.client.complete(&attempt).await {
            Ok(response) => return Ok((index, response)),
            Err(error) => {
                on_failure(index, &error);
                last = Some(error);
            }
        }
    }
    let mut error =
        last.unwrap_or_else(|| LlmError::new(crate::ErrorCategory::Other, "no model to try"));
    if routes.len() > 1 {
        error.message = format!("all {} models exhausted: {}", routes.len(), error.message);
    }
    Err(error)
}
