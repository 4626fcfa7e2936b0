//! Backups: a ZIP the TypeScript devcoach reads and writes too, carrying everything devcoach
//! keeps. The original's entries (`settings.json`, `lessons.json`, `knowledge.json`,
//! `learning-state.md`, `courses.json`, `courses/<id>/index.html`) keep their names and shapes;
//! ours sit beside them and the original ignores them: `ext/<table>.json` for our tables
//! ([`tables`]), `ext/settings.json` and `ext/knowledge.json`, and the practice coach's files under
//! `practice/`.
//!
//! Restoring merges and never destroys: rows already here stay (a review card or a model state
//! is replaced only by one with later history), logs gain the rows they lack, the notebook is
//! replaced as the original does but the previous one is kept beside it, and restoring the same
//! backup twice adds nothing. Only known entry names are read, each inflated under a cap while
//! it is read, and JSON arrays are read one element at a time (see `archive`), so a restore's
//! memory stays flat whatever the backup holds.

mod archive;
mod merge;
mod read;
pub mod safety;
mod tables;
mod write;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use devcoach_core::limits;
use devcoach_files::{Links, Overwrite};

use crate::error::StoreError;
use crate::{DataDir, Result, Store};

pub const SETTINGS_ENTRY: &str = "settings.json";
pub const LESSONS_ENTRY: &str = "lessons.json";
pub const KNOWLEDGE_ENTRY: &str = "knowledge.json";
pub const NOTEBOOK_ENTRY: &str = "learning-state.md";
pub const COURSES_ENTRY: &str = "courses.json";
/// Which build wrote the backup, and the format of our own entries.
pub const MANIFEST_ENTRY: &str = "ext/manifest.json";
/// The review settings (retention, mix, fitted FSRS parameters).
pub const EXT_SETTINGS_ENTRY: &str = "ext/settings.json";
/// When each topic's confidence was last set (the original's knowledge entry has no times).
pub const EXT_KNOWLEDGE_ENTRY: &str = "ext/knowledge.json";
const SESSIONS_PREFIX: &str = "practice/sessions/";
const PROBLEMS_PREFIX: &str = "practice/problems/";
const HISTORY_ENTRY: &str = "practice/history.txt";

/// The format of our entries this build writes and reads.
const EXT_FORMAT: i64 = 1;

pub use crate::error::BackupError;

/// What a backup holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BackupSummary {
    pub lessons: usize,
    pub topics: usize,
    pub groups: usize,
    pub notebook: bool,
    pub courses: usize,
    pub documents: usize,
    /// Rows of each of our tables, by table name.
    pub rows: Vec<(&'static str, usize)>,
    pub practice_files: usize,
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreOutcome {
    pub settings: usize,
    pub topics: usize,
    pub groups: usize,
    pub lessons: usize,
    /// Lessons already present (kept as they are).
    pub skipped: usize,
    pub invalid: usize,
    pub learning_state: usize,
    pub courses: usize,
    /// Rows of our tables added or replaced, by table name.
    pub rows: Vec<(&'static str, usize)>,
    pub practice_files: usize,
    /// Where the notebook that the restore replaced was kept.
    pub previous_notebook: Option<PathBuf>,
    /// Topics restored under another name by the topic rule (`Python` as `python`): as written
    /// in the backup, and as stored.
    pub renamed: Vec<(String, String)>,
    /// Topics listed twice under names the topic rule makes one: only the first was restored.
    pub duplicate_topics: usize,
    /// Topics whose value here was set after the backup's: the value here was kept.
    pub newer_kept: usize,
}

impl RestoreOutcome {
    /// Rows restored into one of our tables.
    pub fn rows_of(&self, table: &str) -> usize {
        self.rows.iter().find(|(t, _)| *t == table).map_or(0, |(_, n)| *n)
    }
}

/// The practice coach's files worth keeping: session logs, cached problems, the line history.
fn practice_files(dir: &DataDir) -> Vec<(String, PathBuf)> {
    let root = devcoach_core::layout::practice(dir.root());
    let mut out = Vec::new();
    for (prefix, folder, ext) in [(SESSIONS_PREFIX, "sessions", ".jsonl"), (PROBLEMS_PREFIX, "problems", ".md")] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else { continue };
        let mut names: Vec<String> = entries
            .filter_map(|e| {
                let e = e.ok()?;
                // Regular files only: a link or anything else in there is not ours to copy.
                e.file_type().ok()?.is_file().then_some(())?;
                e.file_name().into_string().ok()
            })
            .filter(|n| practice_name_ok(n, ext))
            .collect();
        names.sort();
        out.extend(names.into_iter().map(|n| (format!("{prefix}{n}"), root.join(folder).join(&n))));
    }
    let history = root.join("history.txt");
    if std::fs::symlink_metadata(&history).is_ok_and(|m| m.file_type().is_file()) {
        out.push((HISTORY_ENTRY.to_owned(), history));
    }
    out
}

/// A practice file name devcoach makes: letters, digits, `.`, `_`, `-`, and the right ending.
fn practice_name_ok(name: &str, ext: &str) -> bool {
    name.len() <= 200
        && name.ends_with(ext)
        && !name.starts_with('.')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// A backup written by this build to `path`, atomically: the file appears only when complete.
pub fn write_backup_file(store: &Store, path: &Path, overwrite: Overwrite) -> Result<BackupSummary> {
    let file = devcoach_files::AtomicFile::create(path, overwrite)?;
    let (file, summary) = store.write_backup(file)?;
    file.commit()?;
    Ok(summary)
}

/// What a restore takes from a backup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    All,
    /// These lessons and the rows keyed by them (the undo of a delete).
    Lessons(&'a [String]),
    /// The knowledge map, put back as it was (topics and groups added since are removed), and
    /// the pacing chosen with it (the undo of a replaced profile).
    Profile,
}

/// Restores the backup file at `path` (a regular file, at most [`limits::BACKUP_BYTES`]).
pub fn restore_file(store: &mut Store, path: &Path, now: DateTime<Utc>) -> Result<RestoreOutcome> {
    restore_file_scoped(store, path, now, Scope::All)
}

/// Like [`restore_file`], taking only what `scope` names.
pub fn restore_file_scoped(
    store: &mut Store,
    path: &Path,
    now: DateTime<Utc>,
    scope: Scope<'_>,
) -> Result<RestoreOutcome> {
    let file = devcoach_files::open(path, Links::Follow)?;
    let len = file.metadata().map_err(|e| StoreError::io("cannot read", path, e))?.len();
    if len > limits::BACKUP_BYTES {
        return Err(devcoach_files::FileError::TooLarge { path: path.to_owned(), limit: limits::BACKUP_BYTES }.into());
    }
    store.restore_scoped(file, now, scope)
}
