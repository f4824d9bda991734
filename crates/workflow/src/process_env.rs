//! The process variables a value must not set.
//!
//! A shell step's environment holds the DAG's `env:` and the step's
//! `env:` (written by the workflow's author to set up the process), and
//! the params and `output:` variables (values: typed by the user, read
//! from a document, or sent by a model as a tool call's arguments). A
//! value may hold anything, so a value must not steer what the process
//! runs or loads: a param named `PATH` or `LD_PRELOAD` whose value came
//! from a model would choose which `mkdir` runs or load a library into
//! every program of the command.
//!
//! So a param or an `output:` variable whose name is in the list below
//! never enters the process environment under that name, whoever gave
//! the value (a user's `--param PATH=…` too: the rule is by name, not by
//! source, because a value passed on by `dag.run` may have come from a
//! document two levels up). The value stays reachable as a value:
//! `${params.PATH}` in a command becomes a `SIFT_REF_n` variable holding
//! it, as every reference does. The author's `env:` may still set any of
//! these names: that is the workflow's own setup, not a value.
//!
//! The list is of the variables that change which program or code a
//! process runs, or how `sh` reads its command, rather than carrying
//! data a program was asked to read:
//! - command lookup and the shell: `PATH`, `CDPATH`, `IFS`, `ENV`,
//!   `BASH_ENV`, `SHELLOPTS`, `BASHOPTS`, `PS4` (expanded, with its
//!   command substitutions, by `set -x`), `PROMPT_COMMAND`, `GLOBIGNORE`,
//!   `SHELL`, and bash's exported functions (`BASH_FUNC_*`);
//! - the dynamic loader: `LD_*` (glibc, musl) and `DYLD_*` (macOS),
//!   `GCONV_PATH` and `LOCPATH` (glibc loads code from these);
//! - `HOME`: git, ssh, npm, pip and most tools read their configuration
//!   under it, and a configuration can name a program to run
//!   (`core.sshCommand`, `core.fsmonitor`), so choosing `HOME` chooses code;
//! - interpreters' own start-up hooks: `PYTHONPATH`, `PYTHONSTARTUP`,
//!   `PYTHONHOME`, `PERL5LIB`, `PERL5OPT`, `PERLLIB`, `RUBYOPT`, `RUBYLIB`,
//!   `NODE_OPTIONS`, `NODE_PATH`, and git's `GIT_*` (`GIT_SSH_COMMAND`,
//!   `GIT_EXEC_PATH`, `GIT_CONFIG_*`).
//!
//! Names are compared as written: Sift runs `sh`, whose variables are
//! case-sensitive, so a param `path` is data and stays in the environment.

/// Exact names (see the module's comment for why each one).
const NAMES: &[&str] = &[
    "PATH",
    "CDPATH",
    "IFS",
    "ENV",
    "BASH_ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "GLOBIGNORE",
    "SHELL",
    "GCONV_PATH",
    "LOCPATH",
    "HOME",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PERL5LIB",
    "PERL5OPT",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "NODE_OPTIONS",
    "NODE_PATH",
];

/// Families: every name that starts with one of these.
const PREFIXES: &[&str] = &["LD_", "DYLD_", "BASH_FUNC_", "GIT_"];

/// Whether a variable of this name steers what a process runs or loads,
/// so that a param or an output of this name must not set it.
pub fn steers_process(name: &str) -> bool {
    NAMES.contains(&name) || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::steers_process;

    #[test]
    fn loader_shell_and_lookup_variables_steer_and_data_names_do_not() {
        for name in [
            "PATH",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "DYLD_INSERT_LIBRARIES",
            "BASH_ENV",
            "ENV",
            "IFS",
            "SHELLOPTS",
            "PS4",
            "HOME",
            "BASH_FUNC_ls%%",
            "GIT_SSH_COMMAND",
        ] {
            assert!(steers_process(name), "{name}");
        }
        for name in ["path", "q", "CITY", "TEXT", "LD", "ENVIRONMENT", "HOMEPAGE"] {
            assert!(!steers_process(name), "{name}");
        }
    }
}
