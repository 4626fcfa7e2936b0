//! The one place that maps failures to exit codes and words.
//!
//! 0 ok · 1 not found, invalid value or any other error · 2 usage · 3 a write refused because a
//! newer devcoach owns the database.

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
    if let Some(StoreError::SchemaTooNew(_)) = err.downcast_ref::<StoreError>() {
        return 3;
    }
    1
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
    crate::output::note(&format!("{} {err:#}", term.err(Style::Red, "error:")));
    ExitCode::from(exit_code(err))
}
