//! Hands-on practice on the learner's own code: from what their agent just changed, pick a
//! function worth rebuilding (`pick`, with a parser per language in `pieces`), set up an
//! exercise worktree with that body replaced by a stub (`exercise`), and judge a rebuild with
//! the project's own tests (`check`). The coaching itself is the practice coach's.
//!
//! Nothing here writes into the learner's working tree, index, branches, stash or hooks: git
//! runs without hooks or opportunistic locks (`git`), and the worktree lives under devcoach's
//! data folder.

pub mod change;
pub mod check;
pub mod coach;
pub mod exercise;
mod git;
pub mod lang;
pub mod leak;
pub mod pick;
pub mod pieces;
pub mod tally;

use std::path::PathBuf;

use devcoach_core::error_kind::{ErrorKind, Kinded};

pub use change::Change;
pub use check::{Checked, Runner};
pub use exercise::Exercise;
pub use lang::Lang;
pub use pick::{Candidate, Offer};

/// Why a hands-on step did not happen; nothing in the learner's repository was changed.
#[derive(Debug, thiserror::Error)]
pub enum HandsOnError {
    #[error("git is not installed (or not on PATH); hands-on practice needs it")]
    NoGit,
    #[error(transparent)]
    GitRun(devcoach_probe::child::ChildError),
    #[error("git {step} failed: {said}")]
    GitFailed { step: String, said: String },
    #[error("{} is not in a git repository: run devcoach where your project is", dir.display())]
    NotARepository { dir: PathBuf },
    #[error("this repository has no commit yet: commit once, then practise on what changes after it")]
    NoCommitYet,
    #[error("no commit {rev} in this repository")]
    NoSuchRevision { rev: String },
    #[error("{what}: nothing changed. To practise on what a commit did, name it: `devcoach handson HEAD`")]
    NoChange { what: String },
    #[error("{what} changed no function in a language devcoach reads ({})", lang::Lang::names())]
    NothingToRebuild { what: String },
    #[error(
        "the change is in files devcoach cannot rebuild yet (.{}); hands-on reads {}",
        endings.join(", ."),
        lang::Lang::names()
    )]
    Unsupported { endings: Vec<String> },
    #[error(
        "the change added or rewrote {} ({}), but no test calls any of them by name: a rebuild needs a test to judge it",
        if names.len() == 1 { "one function" } else { "these functions" },
        names.join(", ")
    )]
    NothingTested { names: Vec<String> },
    #[error("another hands-on exercise is open for this data folder; finish it first")]
    Busy,
    #[error(
        "devcoach's data folder ({}) is inside this repository: an exercise would sit in your own working tree; set DEVCOACH_DIR elsewhere",
        data.display()
    )]
    InsideRepository { data: PathBuf },
    #[error("{name} is not where it was in the change; pick again")]
    Moved { name: String },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    File(devcoach_files::FileError),
    #[error("the tests could not run: `{command}` needs {program} ({source}); give the command with --test-command")]
    NoRunner { command: String, program: String, source: std::io::Error },
    #[error(transparent)]
    TestRun(devcoach_probe::child::ChildError),
}

impl Kinded for HandsOnError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::File(e) if e.is_not_found() => ErrorKind::NotFound,
            Self::NoGit
            | Self::GitRun(_)
            | Self::GitFailed { .. }
            | Self::Io { .. }
            | Self::TestRun(_)
            | Self::File(_) => ErrorKind::Io,
            Self::NotARepository { .. } | Self::NoSuchRevision { .. } | Self::NoChange { .. } => ErrorKind::NotFound,
            Self::NoCommitYet
            | Self::NothingToRebuild { .. }
            | Self::Unsupported { .. }
            | Self::NothingTested { .. }
            | Self::NoRunner { .. } => ErrorKind::InvalidInput,
            Self::Busy => ErrorKind::Busy,
            Self::Moved { .. } | Self::InsideRepository { .. } => ErrorKind::Conflict,
        }
    }
}
