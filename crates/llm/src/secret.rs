//! API keys. A key is only ever read from where the configuration says (an
//! environment variable, or a value the host fetched from the OS keychain)
//! and only ever leaves the process in a request header.

use std::fmt;

/// An API key. It has no `Display`, and its `Debug` hides the value, so it
/// cannot end up in a log line or an error message by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// Reads the key from an environment variable. Empty counts as unset.
    pub fn from_env(var: &str) -> Option<Self> {
        std::env::var(var)
            .ok()
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .map(Self)
    }

    /// The value, for the one place that needs it: the request header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Replaces every occurrence of the key in `text`. Servers echo keys in
    /// their error bodies ("Incorrect API key provided: sk-..."), and those
    /// bodies are kept on errors and shown to users.
    pub fn scrub(&self, text: &str) -> String {
        if self.0.len() < 4 {
            // A key this short would turn ordinary words into stars.
            return text.to_owned();
        }
        text.replace(&self.0, "[redacted]")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}
