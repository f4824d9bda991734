//! `${...}` references in commands and in a chat step's `with`.
//!
//! - `${params.X}`, `${env.X}`, `${steps.ID.outputs.NAME}`;
//! - `${X}` for a param, an `output:` variable or a DAG env variable;
//! - in `with` (not in commands, where the shell does it), also `$X` and
//!   the process environment;
//! - `\${...}` stays as written, without the backslash.
//!
//! A reference to nothing stays as written (as in dagu) and is reported
//! as a notice on the step's stderr.
//!
//! In a value the reference is replaced by its text, as dagu does. In a
//! command it is not: the command names a shell variable that holds the
//! value ([`command`]), so that no value is ever read as shell syntax.

mod command;
mod quoting;

use std::collections::HashMap;

use serde_json::{Map, Value};

pub(crate) use command::interpolate_command;

use crate::process_env::steers_process;

/// What references can name while a step runs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    pub params: Vec<(String, String)>,
    pub env: Vec<(String, String)>,
    /// `output:` variables of the steps that have finished.
    pub vars: HashMap<String, String>,
    /// Published outputs by step id and by name.
    pub steps: HashMap<String, Map<String, Value>>,
}

/// Where the text goes: a shell command leaves `$X` and unknown names to
/// the shell, which sees every variable in its environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Command,
    Value,
}

impl Scope {
    fn lookup(&self, name: &str, target: Target) -> Option<String> {
        if let Some(rest) = name.strip_prefix("params.") {
            return find(&self.params, rest);
        }
        if let Some(rest) = name.strip_prefix("env.") {
            return find(&self.env, rest).or_else(|| std::env::var(rest).ok());
        }
        if let Some(rest) = name.strip_prefix("steps.") {
            let mut parts = rest.split('.');
            let (Some(step), Some("outputs"), Some(output), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return None;
            };
            return self.steps.get(step)?.get(output).map(output_text);
        }
        find(&self.params, name)
            .or_else(|| self.vars.get(name).cloned())
            .or_else(|| find(&self.env, name))
            .or_else(|| match target {
                Target::Value => std::env::var(name).ok(),
                Target::Command => None,
            })
    }

    /// The variables a shell step sees beyond the process environment:
    /// the DAG's env, then params, then earlier `output:` variables. A
    /// param or output named like `PATH` or `LD_PRELOAD` is left out: its
    /// value may come from a document or a model, and must not choose
    /// what the process runs (see `process_env`); `${params.PATH}` still
    /// reaches it as a reference.
    pub fn shell_env(&self) -> Vec<(String, String)> {
        let mut env = self.env.clone();
        env.extend(
            self.params
                .iter()
                .filter(|(k, _)| !steers_process(k))
                .cloned(),
        );
        let mut vars: Vec<_> = self
            .vars
            .iter()
            .filter(|(k, _)| !steers_process(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        vars.sort();
        env.extend(vars);
        env
    }
}

fn find(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// A published output as text: strings as they are, scalars unquoted,
/// arrays and objects as JSON.
pub(crate) fn output_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Resolves the references in a value (`with`, `env`, `dir`, params of a
/// `dag.run`) to their text; `unknown` collects those that name nothing.
pub(crate) fn interpolate(text: &str, scope: &Scope, unknown: &mut Vec<String>) -> String {
    expand(text, scope, Target::Value, unknown, &mut |_, _, value| {
        value
    })
}

/// Walks the references in `text`. Each one that resolves is replaced by
/// what `place` makes of it: given the byte offset of its `$` in `text`,
/// the reference as written, and its value.
fn expand(
    text: &str,
    scope: &Scope,
    target: Target,
    unknown: &mut Vec<String>,
    place: &mut dyn FnMut(usize, &str, String) -> String,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        let (before, from) = rest.split_at(at);
        if let Some(kept) = before.strip_suffix('\\')
            && from.starts_with("${")
        {
            out.push_str(kept);
            out.push('$');
            rest = &from[1..];
            continue;
        }
        out.push_str(before);
        if let Some(body) = from.strip_prefix("${")
            && let Some(end) = body.find('}')
        {
            let name = &body[..end];
            let whole = &from[..end + 3];
            match scope.lookup(name, target) {
                Some(value) => out.push_str(&place(text.len() - from.len(), whole, value)),
                None => {
                    let shell_var = target == Target::Command && is_plain_name(name);
                    if !shell_var {
                        unknown.push(whole.to_owned());
                    }
                    out.push_str(whole);
                }
            }
            rest = &from[end + 3..];
            continue;
        }
        let name_len = from[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(from.len() - 1);
        let name = &from[1..1 + name_len];
        if target == Target::Value
            && is_plain_name(name)
            && let Some(value) = scope.lookup(name, target)
        {
            out.push_str(&value);
        } else {
            out.push_str(&from[..1 + name_len]);
        }
        rest = &from[1 + name_len..];
    }
    out.push_str(rest);
    out
}

fn is_plain_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Resolves every string in `value`, except under the keys in `skip`
/// (dagu leaves `api_key_name` and `tools` as written).
pub(crate) fn interpolate_value(
    value: &Value,
    scope: &Scope,
    skip: &[&str],
    unknown: &mut Vec<String>,
) -> Value {
    match value {
        Value::String(s) => Value::String(interpolate(s, scope, unknown)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| interpolate_value(v, scope, &[], unknown))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if skip.contains(&k.as_str()) {
                        v.clone()
                    } else {
                        interpolate_value(v, scope, &[], unknown)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A scope with a param, an env entry, an output variable and a
    /// step's published outputs (also used by the command tests).
    pub(super) fn scope() -> Scope {
        let mut scope = Scope {
            params: vec![("CITY".into(), "Paris".into())],
            env: vec![("BASE".into(), "http://x".into())],
            ..Scope::default()
        };
        scope.vars.insert("GREETING".into(), "hi".into());
        scope.steps.insert(
            "classify".into(),
            json!({"category": "refund", "amount": 12.5})
                .as_object()
                .unwrap()
                .clone(),
        );
        scope
    }

    #[test]
    fn references_in_values() {
        let mut unknown = Vec::new();
        let text = interpolate(
            "${params.CITY} ${CITY} $CITY ${GREETING} $BASE/v1 ${steps.classify.outputs.category} ${steps.classify.outputs.amount} \\${CITY} ${steps.classify.outputs.note} $nope",
            &scope(),
            &mut unknown,
        );
        assert_eq!(
            text,
            "Paris Paris Paris hi http://x/v1 refund 12.5 ${CITY} ${steps.classify.outputs.note} $nope"
        );
        assert_eq!(unknown, ["${steps.classify.outputs.note}"]);
    }
}
