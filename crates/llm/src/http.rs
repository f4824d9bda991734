//! The rules every request to a model server keeps, whoever sends it (the
//! client, the capability probe, core's model list):
//!
//! - **No redirects.** reqwest drops `Authorization` on a redirect to
//!   another host but keeps every other header, Anthropic's `x-api-key`
//!   among them, so a server (or whoever answers for it) could send a key
//!   and the request's documents anywhere. A redirect is an error that
//!   says where it pointed; the user can make that the base URL.
//! - **Bounded replies.** A reply is read up to a cap, never whole
//!   whatever its size: a broken or hostile server cannot make Sift
//!   allocate without end.

use reqwest::Response;
use reqwest::header::LOCATION;

use crate::error::{ErrorCategory, LlmError};

/// The most a non-streamed reply (or a server's model list or
/// capabilities) may be. A model's whole answer at 128k output tokens is
/// about 0.5 MB of text, and a few MB with JSON's escapes; 16 MiB leaves
/// room for any real answer and stops a server that never ends its body.
pub const MAX_REPLY_BYTES: usize = 16 << 20;

/// The most a streamed reply may be, all its events together. A stream
/// sends one event of about 250 bytes per token (OpenAI's and llama.cpp's
/// chunks repeat the id, the model and the choice around each token), so
/// 64 MiB is a quarter of a million tokens, more than any model's output
/// limit.
pub const MAX_STREAM_BYTES: usize = 64 << 20;

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

/// A reply's body as read up to a cap.
#[derive(Debug)]
pub struct Capped {
    /// The body; when `cut`, at most its first `limit` bytes (none when
    /// its `Content-Length` already said it was too large).
    pub bytes: Vec<u8>,
    /// Whether the body went on past the cap (and was not read further).
    pub cut: bool,
}

/// Reads `response`'s body up to `limit` bytes: no more is read or held,
/// whatever the server sends or its `Content-Length` says.
pub async fn read_capped(mut response: Response, limit: usize) -> Result<Capped, reqwest::Error> {
    let declared = response
        .content_length()
        .and_then(|n| usize::try_from(n).ok());
    if declared.is_some_and(|n| n > limit) {
        return Ok(Capped {
            bytes: Vec::new(),
            cut: true,
        });
    }
    let mut bytes = Vec::with_capacity(declared.unwrap_or(0));
    while let Some(chunk) = response.chunk().await? {
        let room = limit - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Capped { bytes, cut: true });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Capped { bytes, cut: false })
}

/// The error for a reply larger than its cap. Not retried: the same
/// request gets the same reply.
pub fn too_large(what: &str, limit: usize) -> LlmError {
    LlmError::new(
        ErrorCategory::Other,
        format!(
            "the model server's {what} is larger than {}, the most Sift reads",
            size_text(limit)
        ),
    )
}

/// `16 MiB`, `4 KiB`, `100 bytes`: a cap as people read it.
fn size_text(bytes: usize) -> String {
    const KIB: usize = 1 << 10;
    const MIB: usize = 1 << 20;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_read_as_people_write_them() {
        assert_eq!(size_text(MAX_REPLY_BYTES), "16 MiB");
        assert_eq!(size_text(MAX_STREAM_BYTES), "64 MiB");
        assert_eq!(size_text(4096), "4 KiB");
        assert_eq!(size_text(1000), "1000 bytes");
    }
}
