//! References in a shell step's command, passed to `sh -c` as shell
//! variables rather than as text.
//!
//! A value (a param, an earlier step's output, a model's answer, a tool
//! call's argument) is data that may come from a document or a model.
//! Pasted into the command, `sh` would read its quotes and semicolons as
//! the command's own: an invoice whose vendor is
//! `ACME"; touch pwned; echo "`, used in `mkdir "out/${...vendor}"`, would
//! run `touch`. So each reference becomes a variable of the step's
//! process, and the command's text only names it.
//!
//! **Names.** `SIFT_REF_1`, `SIFT_REF_2`, ... numbered in the order the
//! references first appear in the command; the same reference written
//! twice is one variable. Numbers, not names made from the reference:
//! `steps.read.outputs.vendor` is no shell name, and names mangled from
//! two references could meet. The variables are set after the DAG's env,
//! the params, the outputs and the step's `env:`, so that none of those
//! can replace one (a model's tool call chooses its params' names).
//!
//! **Forms.** Where the reference stands decides how the command names
//! the variable, so that the value arrives as the author wrote it:
//! - unquoted or in double quotes: `${SIFT_REF_1}`. In double quotes it is
//!   one word holding the value exactly (`"out/${params.X}"`); unquoted it
//!   is split into words and globbed like any unquoted variable, and each
//!   word stays text;
//! - in single quotes: `'"${SIFT_REF_1}"'`, which ends the quote, gives
//!   the value as one word and opens the quote again, so that
//!   `jq '.[] | select(.name == "${params.X}")'` gets the value inside its
//!   program as before;
//! - in a here-document with a quoted delimiter (`<<'EOF'`) nothing
//!   expands, so no variable can carry the value there: the step fails
//!   and says so ([`LiteralHeredocReference`]).

use super::quoting::{Quoting, dollar_braces};
use super::{Scope, Target, expand};

/// The prefix of the variables that carry a command's references.
const VARIABLE_PREFIX: &str = "SIFT_REF_";

/// A command ready for `sh -c`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShellCommand {
    /// The command, each resolved reference replaced by its variable.
    pub text: String,
    /// The variables and their values, to set last in the process's
    /// environment.
    pub variables: Vec<(String, String)>,
}

/// A reference where no shell variable can carry its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0} is in a here-document whose delimiter is quoted (<<'EOF'), where the shell expands nothing: leave the delimiter unquoted (<<EOF) to use the value"
)]
pub(crate) struct LiteralHeredocReference(pub String);

/// Resolves the references in a shell step's command into variables;
/// `unknown` collects those that name nothing (kept as written, as in a
/// value: the shell expands a plain `${NAME}` itself).
pub(crate) fn interpolate_command(
    command: &str,
    scope: &Scope,
    unknown: &mut Vec<String>,
) -> Result<ShellCommand, LiteralHeredocReference> {
    let quoting = dollar_braces(command);
    // The references as written, in the order of their variables.
    let mut written: Vec<String> = Vec::new();
    let mut variables: Vec<(String, String)> = Vec::new();
    let mut refused: Option<LiteralHeredocReference> = None;
    let text = expand(
        command,
        scope,
        Target::Command,
        unknown,
        &mut |offset, whole, value| {
            // Not found: a `$` the reader saw as escaped or inside another
            // `${...}`; the plain form is right wherever `$` expands.
            let place = quoting
                .binary_search_by_key(&offset, |&(at, _)| at)
                .map_or(Quoting::Expands, |i| quoting[i].1);
            if place == Quoting::LiteralHeredoc {
                refused.get_or_insert_with(|| LiteralHeredocReference(whole.to_owned()));
                return whole.to_owned();
            }
            let number = match written.iter().position(|w| w == whole) {
                Some(i) => i + 1,
                None => {
                    written.push(whole.to_owned());
                    variables.push((format!("{VARIABLE_PREFIX}{}", written.len()), value));
                    written.len()
                }
            };
            match place {
                Quoting::SingleQuoted => format!("'\"${{{VARIABLE_PREFIX}{number}}}\"'"),
                Quoting::Expands | Quoting::LiteralHeredoc => {
                    format!("${{{VARIABLE_PREFIX}{number}}}")
                }
            }
        },
    );
    match refused {
        Some(refused) => Err(refused),
        None => Ok(ShellCommand { text, variables }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::scope;
    use super::*;

    fn command(text: &str) -> ShellCommand {
        let mut unknown = Vec::new();
        let command = interpolate_command(text, &scope(), &mut unknown).unwrap();
        assert!(unknown.is_empty(), "{unknown:?}");
        command
    }

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn references_become_variables_and_plain_shell_variables_stay() {
        let command = command(
            "echo \"${steps.classify.outputs.category}\" $CITY ${HOME} ${CITY} ${steps.classify.outputs.amount} \"${CITY}\"",
        );
        assert_eq!(
            command.text,
            "echo \"${SIFT_REF_1}\" $CITY ${HOME} ${SIFT_REF_2} ${SIFT_REF_3} \"${SIFT_REF_2}\""
        );
        assert_eq!(
            command.variables,
            vars(&[
                ("SIFT_REF_1", "refund"),
                ("SIFT_REF_2", "Paris"),
                ("SIFT_REF_3", "12.5")
            ])
        );
    }

    #[test]
    fn in_single_quotes_the_variable_steps_out_of_them() {
        let command = command(
            "jq '.[] | select(.c == \"${steps.classify.outputs.category}\")' \"it's ${CITY}\" 'a'\\''${CITY}'",
        );
        assert_eq!(
            command.text,
            "jq '.[] | select(.c == \"'\"${SIFT_REF_1}\"'\")' \"it's ${SIFT_REF_2}\" 'a'\\'''\"${SIFT_REF_2}\"''"
        );
    }

    #[test]
    fn comments_substitutions_and_unquoted_here_documents_expand() {
        let command = command(
            "# don't\necho \"$(echo '${CITY}')\" `echo ${CITY}` $(( 1 + $(echo ${CITY} | wc -c) ))\ncat <<EOF\nit's ${CITY}\nEOF\necho '${CITY}'",
        );
        assert_eq!(
            command.text,
            "# don't\necho \"$(echo ''\"${SIFT_REF_1}\"'')\" `echo ${SIFT_REF_1}` $(( 1 + $(echo ${SIFT_REF_1} | wc -c) ))\ncat <<EOF\nit's ${SIFT_REF_1}\nEOF\necho ''\"${SIFT_REF_1}\"''"
        );
    }

    #[test]
    fn a_reference_in_a_quoted_here_document_is_refused() {
        let mut unknown = Vec::new();
        for text in [
            "cat <<'EOF'\n${CITY}\nEOF",
            "cat <<-\"EOF\" > out\n\t${CITY}\n\tEOF",
            "cat <<\\EOF\n${CITY}\nEOF",
        ] {
            assert_eq!(
                interpolate_command(text, &scope(), &mut unknown),
                Err(LiteralHeredocReference("${CITY}".to_owned())),
                "{text}"
            );
        }
        // After the delimiter line, the command expands again.
        assert_eq!(
            command("cat <<'EOF'\n$x\nEOF\necho \"${CITY}\"").text,
            "cat <<'EOF'\n$x\nEOF\necho \"${SIFT_REF_1}\""
        );
    }

    #[test]
    fn escaped_and_unknown_references_stay_as_written() {
        let mut unknown = Vec::new();
        let command = interpolate_command(
            "echo \\${CITY} ${steps.classify.outputs.note} ${HOME}",
            &scope(),
            &mut unknown,
        )
        .unwrap();
        assert_eq!(
            command.text,
            "echo ${CITY} ${steps.classify.outputs.note} ${HOME}"
        );
        assert!(command.variables.is_empty());
        assert_eq!(unknown, ["${steps.classify.outputs.note}"]);
    }
}
