//! Sharing a lesson: one payload, several ways to carry it (a compact code, a text card, a link,
//! a `.devcoach.md` file), and one parser that accepts any of them (plus legacy JSON exports).
//!
//! Every format is interchangeable with the TypeScript devcoach: a code either build writes, the
//! other reads. Decoding is hostile-input safe: length and inflated size are capped before any
//! allocation can grow past them.

pub mod code;
pub mod file;
pub mod input;
pub mod payload;
pub mod slug;
pub mod text;

pub use code::{decode_code, encode_code};
pub use input::{SharedInput, parse_shared_input, url_to_fetch};
pub use payload::{SharedBy, SharedLesson};

use thiserror::Error;

/// Why something pasted could not be read as a lesson. The texts are what a person reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShareError {
    #[error("That is not a devcoach lesson code.")]
    NotACode,
    #[error("This lesson was shared by a newer devcoach (format {0}) — upgrade to import it.")]
    NewerFormat(String),
    #[error("This lesson code is too large to be a lesson.")]
    TooLarge,
    #[error("This lesson code is damaged or incomplete — copy it again.")]
    Damaged,
    #[error("This is not a valid devcoach lesson.")]
    InvalidLesson,
    #[error("nothing to import — paste a lesson code, link or file")]
    Empty,
    #[error("This looks like JSON but does not parse — copy it again.")]
    BadJson,
    #[error(
        "Not a devcoach lesson: expected a devcoach:lesson code, a share link, a .devcoach.md file or a lessons JSON export."
    )]
    NotALesson,
    #[error(transparent)]
    BadFile(#[from] FileProblem),
}

/// Why a `.devcoach.md` file does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileProblem {
    #[error("Missing frontmatter (--- … ---).")]
    NoFrontmatter,
    #[error("Frontmatter never closes (missing ---).")]
    Unclosed,
    #[error("Cannot read frontmatter line: {0}")]
    BadLine(String),
    #[error("This file is not a valid devcoach lesson.")]
    NotALesson,
}

impl crate::error_kind::Kinded for ShareError {
    fn kind(&self) -> crate::error_kind::ErrorKind {
        match self {
            // Made by a newer devcoach: this one cannot read it.
            Self::NewerFormat(_) => crate::error_kind::ErrorKind::ReadOnly,
            Self::NotACode
            | Self::TooLarge
            | Self::Damaged
            | Self::InvalidLesson
            | Self::Empty
            | Self::BadJson
            | Self::NotALesson
            | Self::BadFile(_) => crate::error_kind::ErrorKind::InvalidInput,
        }
    }
}
