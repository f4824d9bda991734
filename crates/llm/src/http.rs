//! The rules every request to a model server keeps, whoever sends it (the
//! client, the capability probe, core's model list):
//!
//! - **No redirects.** reqwest drops `Authorization` on a redirect to
//!   another host but keeps every other header, Anthropic's `x-api-key`
//!   among them, so a server (or whoever answers for it) could send a key
//!   and the request's documents anywhere. A redirect is an error that
//!   says where it pointed; the user can make that the base URL.

use reqwest::Response;
use reqwest::header::LOCATION;

use crate::error::{ErrorCategory, LlmError};

/// An HTTP client builder that follows no redirect: every client that
/// talks to a model server starts from it.
pub fn client_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none())
}

/// The error for a redirect (a 3xx reply), naming where it pointed: the
/// `Location` resolved against the request's URL. Not retried: asking
/// again gets the same redirect.
pub fn redirect_error(response: &Response) -> LlmError {
    let status = response.status().as_u16();
    let location = response
        .headers()
        .get(LOCATION)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
    let message = match location {
        Some(location) => {
            let target = response
                .url()
                .join(&location)
                .map_or(location, |url| url.to_string());
            format!(
                "HTTP {status}: the model server redirected to {target}; redirects are not followed, so that a key goes only where it was set up (if that address is right, make it the base URL)"
            )
        }
        None => format!("HTTP {status}: the model server redirected without saying where"),
    };
    let mut error = LlmError::new(ErrorCategory::Other, message);
    error.status = Some(status);
    error
}
