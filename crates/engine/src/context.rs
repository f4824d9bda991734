//! What of a conversation goes into the next request. Only the request
//! changes: transcripts and stored messages keep every result whole, and
//! tool call ids stay paired.
//!
//! Large tool results (over [`LARGE_RESULT_CHARS`] characters) are the
//! ones that crowd a context window. The newest `TOOL_RESULTS_IN_CONTEXT`
//! of them go whole; older ones go whole too while all the whole ones fit
//! the budget, and the rest as a one-line stub. Errors and short results
//! always go as they are. Images have their own window,
//! `IMAGES_IN_CONTEXT`: older images become a one-line note.

use std::collections::HashMap;

use sift_llm::{Message, Part, Role, ToolResult};

/// A result longer than this many characters is "large".
pub const LARGE_RESULT_CHARS: usize = 500;

/// The settings, under the names of Sift's configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextSettings {
    /// `TOOL_RESULTS_IN_CONTEXT`: how many of the newest large results
    /// always go whole. `None` sends every result whole.
    pub tool_results_in_context: Option<usize>,
    /// `TOOL_RESULTS_TOKENS`: the budget for whole large results.
    pub tool_results_tokens: Option<usize>,
    /// `TOOL_RESULTS_CHARS_IN_CONTEXT`: the budget in characters, used when
    /// no token budget is set; 0 keeps only the newest ones.
    pub tool_results_chars_in_context: Option<usize>,
    /// `IMAGES_IN_CONTEXT`: how many of the newest images go; `None`, all.
    pub images_in_context: Option<usize>,
}

impl Default for ContextSettings {
    fn default() -> Self {
        Self {
            tool_results_in_context: Some(6),
            tool_results_tokens: None,
            tool_results_chars_in_context: None,
            images_in_context: Some(20),
        }
    }
}

/// What an engine (a model on a server) says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineContext {
    /// The model's context window in tokens.
    pub context_window: usize,
    /// Overrides `TOOL_RESULTS_IN_CONTEXT` when set (`Some(None)`: all whole).
    pub tool_results_in_context: Option<Option<usize>>,
    /// Overrides the budget settings when set.
    pub tool_results_tokens: Option<usize>,
}

impl EngineContext {
    pub fn new(context_window: usize) -> Self {
        Self {
            context_window,
            tool_results_in_context: None,
            tool_results_tokens: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Budget {
    Tokens(usize),
    Chars(usize),
}

impl Budget {
    fn cost(self, chars: usize) -> usize {
        match self {
            // Four characters to a token: an estimate, but the same one for
            // every result, which is what a budget between them needs.
            Self::Tokens(_) => chars.div_ceil(4),
            Self::Chars(_) => chars,
        }
    }

    fn limit(self) -> usize {
        match self {
            Self::Tokens(n) | Self::Chars(n) => n,
        }
    }
}

fn budget(settings: &ContextSettings, engine: &EngineContext) -> Budget {
    if let Some(tokens) = engine.tool_results_tokens.or(settings.tool_results_tokens) {
        return Budget::Tokens(tokens);
    }
    if let Some(chars) = settings.tool_results_chars_in_context {
        return Budget::Chars(chars);
    }
    Budget::Tokens(engine.context_window / 5)
}

/// The stub that stands in for a result left out of the context.
pub fn stub(tool_name: &str, content: &str) -> String {
    let lines = content.lines().count();
    let chars = content.chars().count();
    format!(
        "[{tool_name} result, {} {}, {} chars; trimmed from context to save space. Note what you need; call the tool again only if you still need detail.]",
        thousands(lines),
        if lines == 1 { "line" } else { "lines" },
        thousands(chars),
    )
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The messages to send, from the messages kept. The plan (what to stub,
/// which images to leave out) is made on the messages as they are, and only
/// what is sent is copied, so a long session costs one pass each way and no
/// copy of the results it leaves out.
pub fn build_context(
    messages: &[Message],
    settings: &ContextSettings,
    engine: &EngineContext,
) -> Vec<Message> {
    let mut replacements = Vec::new();
    let keep_newest = engine
        .tool_results_in_context
        .unwrap_or(settings.tool_results_in_context);
    if let Some(keep_newest) = keep_newest {
        plan_tool_results(
            messages,
            keep_newest,
            budget(settings, engine),
            &mut replacements,
        );
    }
    if let Some(images) = settings.images_in_context {
        plan_images(messages, images, &mut replacements);
    }
    // Both plans walk newest first; the copy below walks oldest first.
    replacements.sort_unstable_by_key(|(at, _)| *at);
    let mut pending = replacements.into_iter().peekable();
    messages
        .iter()
        .enumerate()
        .map(|(i, message)| Message {
            role: message.role,
            parts: message
                .parts
                .iter()
                .enumerate()
                .map(|(j, part)| match pending.next_if(|(at, _)| *at == (i, j)) {
                    Some((_, replacement)) => replacement,
                    None => part.clone(),
                })
                .collect(),
        })
        .collect()
}

/// A part to send in place of the one at (message, part).
type Replacement = ((usize, usize), Part);

fn plan_tool_results(
    messages: &[Message],
    keep_newest: usize,
    budget: Budget,
    out: &mut Vec<Replacement>,
) {
    let mut names: HashMap<&str, &str> = HashMap::new();
    for message in messages.iter().filter(|m| m.role == Role::Assistant) {
        for call in message.tool_calls() {
            names.insert(&call.id, &call.name);
        }
    }
    let mut kept = 0usize;
    let mut spent = 0usize;
    let mut over_budget = false;
    for (i, message) in messages.iter().enumerate().rev() {
        for (j, part) in message.parts.iter().enumerate().rev() {
            let Part::ToolResult(result) = part else {
                continue;
            };
            if result.is_error {
                continue;
            }
            let chars = result.content.chars().count();
            if chars <= LARGE_RESULT_CHARS {
                continue;
            }
            let cost = budget.cost(chars);
            if kept < keep_newest || (!over_budget && spent + cost <= budget.limit()) {
                kept += 1;
                spent += cost;
                continue;
            }
            // Once one does not fit, older ones do not go whole either:
            // the model sees an unbroken recent stretch.
            over_budget = true;
            let name = names
                .get(result.call_id.as_str())
                .copied()
                .unwrap_or("tool");
            let stubbed = ToolResult {
                call_id: result.call_id.clone(),
                content: stub(name, &result.content),
                is_error: false,
            };
            out.push(((i, j), Part::ToolResult(stubbed)));
        }
    }
}

fn plan_images(messages: &[Message], keep: usize, out: &mut Vec<Replacement>) {
    let mut seen = 0usize;
    for (i, message) in messages.iter().enumerate().rev() {
        for (j, part) in message.parts.iter().enumerate().rev() {
            if let Part::Image(image) = part {
                seen += 1;
                if seen > keep {
                    let text = format!("[an earlier image ({}) left out of context]", image.mime);
                    out.push(((i, j), Part::Text { text }));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(9412), "9,412");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn the_stub_text() {
        let content = format!("{}\n", "x".repeat(52)).repeat(180);
        assert_eq!(
            stub("penpot_tree", &content),
            "[penpot_tree result, 180 lines, 9,540 chars; trimmed from context to save space. Note what you need; call the tool again only if you still need detail.]"
        );
    }
}
