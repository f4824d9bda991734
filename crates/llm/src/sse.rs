//! A server-sent events decoder that takes the body as it arrives, in chunks
//! that may split a line or a UTF-8 character anywhere.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `None` means the default type, "message".
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the current, unfinished line. Kept as bytes so that a UTF-8
    /// character split between two chunks is decoded whole.
    line: Vec<u8>,
    /// The previous chunk ended on `\r`: a `\n` starting the next one belongs to it.
    after_cr: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk and appends every event it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) {
        let mut rest = chunk;
        if self.after_cr {
            self.after_cr = false;
            if let Some(stripped) = rest.strip_prefix(b"\n") {
                rest = stripped;
            }
        }
        while let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&rest[..end]);
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out);
            let terminator = rest[end];
            rest = &rest[end + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(rest);
    }

    /// Ends the stream: an event still pending without its blank line is
    /// dispatched, as some servers close right after the last `data:`.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out);
        }
        self.dispatch(out);
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return; // a comment, used as a keep-alive
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.find(':') {
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            _ => {} // id, retry and unknown fields do not matter to a model stream
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if !self.has_data {
            return;
        }
        self.has_data = false;
        out.push(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(body: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        for chunk in body.chunks(piece) {
            decoder.feed(chunk, &mut out);
        }
        decoder.finish(&mut out);
        out
    }

    fn data(text: &str) -> SseEvent {
        SseEvent {
            event: None,
            data: text.to_owned(),
        }
    }

    #[test]
    fn every_split_gives_the_same_events() {
        let body = ": keep-alive\n\ndata: {\"a\":\"héllo 日本\"}\n\nevent: ping\ndata: x\r\n\r\ndata: one\ndata: two\n\ndata: [DONE]\n\n";
        let expected = vec![
            data("{\"a\":\"héllo 日本\"}"),
            SseEvent {
                event: Some("ping".into()),
                data: "x".into(),
            },
            data("one\ntwo"),
            data("[DONE]"),
        ];
        for piece in 1..body.len() {
            assert_eq!(
                decode_in_pieces(body.as_bytes(), piece),
                expected,
                "piece size {piece}"
            );
        }
    }

    #[test]
    fn bare_cr_line_endings_and_missing_space() {
        let events = decode_in_pieces(b"data:a\r\rdata:b\r\r", 1);
        assert_eq!(events, vec![data("a"), data("b")]);
    }

    #[test]
    fn event_without_data_is_not_dispatched() {
        let events = decode_in_pieces(b"event: ping\n\n: comment\n\n", 3);
        assert!(events.is_empty());
    }

    #[test]
    fn last_event_without_blank_line_is_dispatched_at_finish() {
        let events = decode_in_pieces(b"data: tail", 4);
        assert_eq!(events, vec![data("tail")]);
    }
}
