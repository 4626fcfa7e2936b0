//! The one place that maps failures to exit codes and words.
//!
//! One rule (ARCHITECTURE.md, "Exit codes"): 0 ok · 1 a valid command that failed or found
//! nothing (no such lesson, a damaged share code, a doctor that found a problem) · 2 the command
//! line itself is wrong (an unknown flag or setting, a value a flag does not take, named in the
//! flag's own words) · 3 a write refused because a newer devcoach owns the database.
//!
//! With `--json` on the command line, an error is one JSON object on stderr
//! (`{"error": {"message": …, "exit": …}}`) so stdout only ever holds the result's shape.

use std::process::ExitCode;

use devcoach_store::StoreError;

use crate::output::{Style, Term};

/// A failure the user can fix; its message says how.
#[derive(Debug, thiserror::Error)]
pub enum UserError {
    /// Exit 1: something named does not exist, or a value is not accepted.
    #[error("{0}")]
    Invalid(String),
    /// Exit 2: the command was used wrongly.
    #[error("{0}")]
    Usage(String),
}

pub fn invalid(message: impl Into<String>) -> anyhow::Error {
    UserError::Invalid(message.into()).into()
}

pub fn usage(message: impl Into<String>) -> anyhow::Error {
    UserError::Usage(message.into()).into()
}

/// Exit 1 without another message: the output already said why (a rejected `practice eval`).
#[derive(Debug, thiserror::Error)]
#[error("rejected")]
pub struct Said;

pub fn rejected() -> anyhow::Error {
    Said.into()
}

pub fn exit_code(err: &anyhow::Error) -> u8 {
    if let Some(UserError::Usage(_)) = err.downcast_ref::<UserError>() {
        return 2;
    }
    if let Some(devcoach_sync::SyncError::Store(StoreError::SchemaTooNew(_))) =
        err.downcast_ref::<devcoach_sync::SyncError>()
    {
        return 3;
    }
    if let Some(StoreError::SchemaTooNew(_)) = err.downcast_ref::<StoreError>() {
        return 3;
    }
    1
}

/// Whether `--json` was asked for (before any `--`): errors are then JSON too.
pub fn json_requested() -> bool {
    std::env::args_os().skip(1).take_while(|a| a != "--").any(|a| a == "--json")
}

/// The one shape of an error under `--json`, as a single line for stderr.
pub fn json_error(message: &str, exit: u8) -> String {
    serde_json::json!({ "error": { "message": message, "exit": exit } }).to_string()
}

/// Prints the error chain and returns the exit code. A closed pipe (`devcoach lessons | head`)
/// is not an error.
pub fn report(term: Term, err: &anyhow::Error) -> ExitCode {
    if err
        .chain()
        .any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
    {
        return ExitCode::SUCCESS;
    }
    if err.downcast_ref::<Said>().is_some() {
        return ExitCode::from(1);
    }
    let code = exit_code(err);
    if json_requested() {
        crate::output::note_verbatim(&json_error(&format!("{err:#}"), code));
    } else {
        crate::output::note(&format!("{} {err:#}", term.err(Style::Red, "error:")));
    }
    ExitCode::from(code)
}
