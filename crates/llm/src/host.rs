//! A server's host, as Sift keeps it beside the tokens spent there: the
//! host and port of a base URL, never its path, query or user info,
//! which can hold a key.

/// `api.openai.com`, `127.0.0.1:8080`, `[::1]:11434`; empty for a URL
/// that does not parse.
pub fn server_host(base_url: &str) -> String {
    let Ok(url) = reqwest::Url::parse(base_url) else {
        return String::new();
    };
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        (None, _) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::server_host;

    #[test]
    fn only_the_host_and_port_are_kept() {
        assert_eq!(server_host("https://api.openai.com/v1"), "api.openai.com");
        assert_eq!(
            server_host("http://127.0.0.1:8080/v1?key=abc"),
            "127.0.0.1:8080"
        );
        assert_eq!(
            server_host("https://user:secret@llm.example.com/v1"),
            "llm.example.com"
        );
        assert_eq!(server_host("http://[::1]:11434"), "[::1]:11434");
        assert_eq!(server_host("not a url"), "");
    }
}
