//! The store's errors. Messages say what went wrong and what to do about it.

use std::fmt;
use std::path::PathBuf;

use devcoach_core::course::CourseError;
pub use devcoach_core::error_kind::{ErrorKind, Kinded};
use devcoach_core::knowledge::KnowledgeError;
use devcoach_core::lesson::LessonError;
use devcoach_core::query::QueryError;
use devcoach_core::settings::SettingError;
use thiserror::Error;

/// A write was refused because a newer devcoach upgraded the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaTooNew {
    /// The schema stamp found in the file.
    pub db_schema: i64,
    /// The schema this build writes.
    pub app_schema: i64,
    /// The version that upgraded the file, when it said.
    pub upgraded_by: Option<String>,
    /// The oldest version allowed to write it, when the file says.
    pub min_app: Option<String>,
}

impl fmt::Display for SchemaTooNew {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by = self.upgraded_by.as_deref().map_or_else(|| "a newer devcoach".to_owned(), |v| format!("devcoach {v}"));
        let needs =
            self.min_app.as_deref().map_or_else(|| "a newer devcoach".to_owned(), |v| format!("devcoach ≥ {v}"));
        write!(
            f,
            "The coaching database was upgraded by {by} (schema v{}); this is devcoach {} (schema v{}). \
             Reads work; writes need {needs} — update this install, or use the newer channel.",
            self.db_schema,
            devcoach_core::APP_VERSION,
            self.app_schema,
        )
    }
}

impl std::error::Error for SchemaTooNew {}

#[derive(Debug, Error)]
pub enum StoreError {
    #[error(transparent)]
    SchemaTooNew(#[from] SchemaTooNew),
    #[error(
        "{path} is not a devcoach database or is damaged ({reason}); it was left untouched — restore a backup or move it aside"
    )]
    Corrupt { path: PathBuf, reason: String },
    #[error("cannot find a home directory; set DEVCOACH_DIR to choose where devcoach keeps its data")]
    NoHome,
    #[error("this database was opened for reading only; nothing was changed")]
    ReadOnly,
    #[error("{action} {path}: {source}")]
    Io { action: &'static str, path: PathBuf, source: std::io::Error },
    #[error("the disk is full; nothing was saved — free some space and try again")]
    DiskFull,
    #[error(
        "writing the database failed (the disk may be full, over a size limit, or failing); nothing was saved — free some space or check the disk and try again"
    )]
    WriteFailed,
    #[error(
        "the database cannot be written (a read-only file, folder or disk, or no permission); nothing was saved — check the permissions of the devcoach data folder"
    )]
    NotWritable,
    /// Another process held the database longer than this caller waits (a sync, most likely).
    #[error(
        "the database is busy with another devcoach (a sync, most likely); nothing was changed — try again in a moment"
    )]
    Busy,
    /// Rows moved under a read that spans statements (another program rebuilt the file).
    #[error("another program rewrote the database while it was being read; nothing was changed — run it again")]
    Changed,
    #[error("database error: {0}")]
    Sqlite(rusqlite::Error),
    #[error(transparent)]
    Setting(#[from] SettingError),
    #[error(transparent)]
    Knowledge(#[from] KnowledgeError),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Lesson(#[from] LessonError),
    #[error(transparent)]
    Course(#[from] CourseError),
    #[error(transparent)]
    Backup(#[from] BackupError),
    /// This device's changes could not be written out for the other devices, so nothing of the
    /// round was applied either.
    #[error("this device's changes could not be written for the other devices ({0}); nothing was applied")]
    SyncLog(String),
    #[error(transparent)]
    File(#[from] devcoach_files::FileError),
    /// The demo data built into this binary does not read (a build defect, caught by tests).
    #[error("the built-in demo data is damaged ({0}); please report this")]
    DemoData(String),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        match e.sqlite_error_code() {
            Some(ErrorCode::DiskFull) => Self::DiskFull,
            Some(ErrorCode::SystemIoFailure) => Self::WriteFailed,
            Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => Self::NotWritable,
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Self::Busy,
            _ => Self::Sqlite(e),
        }
    }
}

impl StoreError {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io { action, path: path.into(), source }
    }
}

impl Kinded for StoreError {
    /// Every variant is named: a new one does not build until it says its kind.
    fn kind(&self) -> ErrorKind {
        use devcoach_files::FileError;
        match self {
            Self::SchemaTooNew(_) | Self::ReadOnly => ErrorKind::ReadOnly,
            Self::Corrupt { .. } | Self::Sqlite(_) | Self::DemoData(_) => ErrorKind::Damaged,
            Self::NoHome => ErrorKind::NotFound,
            Self::Io { .. } | Self::DiskFull | Self::WriteFailed | Self::NotWritable | Self::SyncLog(_) => {
                ErrorKind::Io
            }
            Self::Busy => ErrorKind::Busy,
            Self::Changed => ErrorKind::Conflict,
            Self::Setting(e) => e.kind(),
            Self::Knowledge(e) => e.kind(),
            Self::Query(e) => e.kind(),
            Self::Lesson(e) => e.kind(),
            Self::Course(e) => e.kind(),
            // A backup is a file the person chose: its faults are theirs to fix (another copy).
            Self::Backup(_) => ErrorKind::InvalidInput,
            Self::File(e) => match e {
                FileError::NotFound { .. } => ErrorKind::NotFound,
                FileError::Exists { .. } => ErrorKind::Conflict,
                FileError::Io { .. } => ErrorKind::Io,
                FileError::NotRegular { .. } | FileError::TooLarge { .. } | FileError::NotText { .. } => {
                    ErrorKind::InvalidInput
                }
            },
        }
    }
}

/// Why a backup could not be restored. Nothing was changed.
#[derive(Debug, Error)]
pub enum BackupError {
    #[error("this is not a devcoach backup (not a readable ZIP file: {0})")]
    NotAZip(String),
    #[error("the backup's {0} is larger than devcoach accepts ({1} bytes at most); nothing was restored")]
    EntryTooLarge(String, u64),
    #[error("one item in the backup's {0} is larger than devcoach accepts ({1} bytes at most); nothing was restored")]
    ItemTooLarge(String, u64),
    #[error("the backup holds more data or entries than devcoach accepts; nothing was restored")]
    TooLarge,
    #[error("the backup's {0} is not valid JSON ({1}); nothing was restored")]
    BadJson(String, String),
    #[error("the backup holds none of settings.json, lessons.json or knowledge.json; nothing was restored")]
    Empty,
    #[error("the backup lists {0} more than once, so it cannot be trusted; nothing was restored")]
    Duplicate(String),
    #[error("the backup is damaged: its {0} cannot be read ({1}); nothing was restored — try another copy")]
    Damaged(String, String),
    #[error(
        "the backup was written by a newer devcoach (format {0} of its own data); update devcoach to restore it — nothing was restored"
    )]
    NewerFormat(i64),
}
