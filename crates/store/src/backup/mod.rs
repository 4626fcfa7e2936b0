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
pub mod safety;
mod tables;

use std::cell::Cell;
use std::collections::HashMap;
use std::io::{self, Cursor, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use chrono::{DateTime, Utc};
use devcoach_core::course::{CourseId, prerequisites_to_column};
use devcoach_core::evidence::EvidenceCause;
use devcoach_core::highlighter;
use devcoach_core::knowledge::{self, GroupTarget, OTHER_GROUP};
use devcoach_core::limits;
use devcoach_core::query::LessonQuery;
use devcoach_core::review::ReviewMix;
use devcoach_core::settings::{SettingKey, SettingUpdate};
use devcoach_core::time::iso_ms;
use devcoach_files::{Links, Overwrite};
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Value, json};

use self::archive::{Metered, Over, Shape, Stop};
use self::tables::{Restored, TABLES};
use crate::courses::{CourseFilter, HIGHLIGHTER};
use crate::error::StoreError;
use crate::knowledge::{Because, write_confidence};
use crate::lessons::insert_if_absent;
use crate::{DataDir, Fields, Result, Store};

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

/// Why a backup could not be restored. Nothing was changed.
#[derive(Debug, thiserror::Error)]
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

fn pretty(v: &impl serde::Serialize) -> Vec<u8> {
    serde_json::to_vec_pretty(v).unwrap_or_default()
}

fn course_row_json(c: &devcoach_core::course::Course) -> Value {
    json!({
        "id": c.id, "lesson_id": c.lesson_id, "topic_id": c.topic_id, "title": c.title, "goal": c.goal,
        "prerequisites": c.prerequisites.iter().map(|p| json!({"concept": p.concept, "known": p.known})).collect::<Vec<_>>(),
        "status": c.status.as_str(), "created_at": c.created_at, "updated_at": c.updated_at, "completed_at": c.completed_at,
    })
}

fn step_json(s: &devcoach_core::course::CourseStep) -> Value {
    json!({
        "course_id": s.course_id, "position": s.position, "title": s.title, "kind": s.kind.as_str(),
        "anchor": s.anchor, "status": s.status.as_str(), "done_at": s.done_at,
    })
}

fn write_error(name: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::io("cannot write the backup entry", name, std::io::Error::other(e.to_string()))
}

/// A ZIP being written entry by entry.
struct Writer<W: Write + Seek> {
    zip: zip::ZipWriter<W>,
}

impl<W: Write + Seek> Writer<W> {
    fn start(&mut self, name: &str) -> Result<()> {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(false);
        self.zip.start_file(name, options).map_err(|e| write_error(name, e))
    }

    fn entry(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        self.start(name)?;
        self.zip.write_all(bytes).map_err(|e| write_error(name, e))
    }

    /// A pretty-printed JSON array, written one element at a time; the bytes are those of
    /// `serde_json::to_vec_pretty` of the whole array.
    fn array<E>(
        &mut self,
        name: &str,
        visit: impl FnOnce(&mut dyn FnMut(Value) -> Result<()>) -> Result<(), E>,
    ) -> Result<usize>
    where
        StoreError: From<E>,
    {
        self.start(name)?;
        let mut n = 0usize;
        let zip = &mut self.zip;
        let mut push = |v: Value| -> Result<()> {
            let text = serde_json::to_string_pretty(&v).map_err(|e| write_error(name, e))?;
            let mut chunk = String::with_capacity(text.len() + 16);
            chunk.push_str(if n == 0 { "[\n" } else { ",\n" });
            // JSON strings never hold a raw newline, so every line of an element gets its indent.
            for (i, line) in text.lines().enumerate() {
                if i > 0 {
                    chunk.push('\n');
                }
                chunk.push_str("  ");
                chunk.push_str(line);
            }
            zip.write_all(chunk.as_bytes()).map_err(|e| write_error(name, e))?;
            n += 1;
            Ok(())
        };
        visit(&mut push)?;
        let end: &[u8] = if n == 0 { b"[]" } else { b"\n]" };
        self.zip.write_all(end).map_err(|e| write_error(name, e))?;
        Ok(n)
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

impl Store {
    /// Writes a backup of everything devcoach keeps into `out` (a file being written, or memory);
    /// one read transaction, so every part comes from the same moment.
    pub fn write_backup<W: Write + Seek>(&self, out: W) -> Result<(W, BackupSummary)> {
        let tx = self.conn().unchecked_transaction()?;
        let dir = self.data_dir().clone();
        let mut w = Writer { zip: zip::ZipWriter::new(out) };
        let mut summary = BackupSummary::default();
        w.entry(SETTINGS_ENTRY, &pretty(&crate::settings::read(&tx)?))?;
        summary.lessons = w.array(LESSONS_ENTRY, |push| {
            self.visit_lessons(&LessonQuery::default(), Utc::now(), Fields::Full, |l| {
                push(serde_json::to_value(&l).map_err(|e| write_error(LESSONS_ENTRY, e))?)
            })
        })?;
        let profile = crate::knowledge::read_profile(&tx)?;
        let knowledge = json!({
            "groups": profile.groups.iter().map(|g| g.name.clone()).collect::<Vec<_>>(),
            "topics": profile.knowledge.iter().map(|e| {
                let group = profile.group_of(&e.topic);
                json!({"topic": e.topic, "confidence": e.confidence, "group": (group != OTHER_GROUP).then_some(group)})
            }).collect::<Vec<_>>(),
        });
        w.entry(KNOWLEDGE_ENTRY, &pretty(&knowledge))?;
        (summary.topics, summary.groups) = (profile.knowledge.len(), profile.groups.len());
        if let Some(text) = devcoach_files::read_optional(&dir.notebook_path(), limits::NOTEBOOK_BYTES, Links::Follow)?
        {
            w.entry(NOTEBOOK_ENTRY, &text)?;
            summary.notebook = true;
        }
        let courses = self.courses(&CourseFilter::default())?;
        if !courses.is_empty() {
            let rows: Vec<Value> = courses.iter().map(course_row_json).collect();
            let steps: Vec<Value> = courses.iter().flat_map(|c| c.steps.iter().map(step_json)).collect();
            w.entry(COURSES_ENTRY, &pretty(&json!({"courses": rows, "steps": steps})))?;
            summary.courses = courses.len();
            for c in &courses {
                let Ok(id) = CourseId::parse(&c.id) else { continue };
                if let Ok(Some(html)) = dir.read_course_document(&id) {
                    w.entry(&format!("courses/{id}/index.html"), highlighter::strip(&html, HIGHLIGHTER).as_bytes())?;
                    summary.documents += 1;
                }
            }
        }
        // Ours, which the original ignores.
        w.entry(MANIFEST_ENTRY, &pretty(&json!({"format": EXT_FORMAT, "devcoach": devcoach_core::APP_VERSION})))?;
        let review = crate::reviews::read_review_settings(&tx)?;
        let mut ext_settings = json!({"review_retention": review.retention, "review_mix": review.mix.as_str()});
        if let Some(p) = &review.parameters {
            ext_settings["review_parameters"] = json!(p.values().to_vec());
        }
        if let Some(base) = crate::settings::read_setting(&tx, crate::settings::LINK_BASE_KEY)? {
            ext_settings[crate::settings::LINK_BASE_KEY] = json!(base);
        }
        w.entry(EXT_SETTINGS_ENTRY, &pretty(&ext_settings))?;
        let times: Vec<Value> = tx
            .prepare("SELECT topic, updated_at FROM knowledge ORDER BY topic")?
            .query_map([], |r| Ok(json!({"topic": r.get::<_, String>(0)?, "updated_at": r.get::<_, String>(1)?})))?
            .collect::<rusqlite::Result<_>>()?;
        w.entry(EXT_KNOWLEDGE_ENTRY, &pretty(&times))?;
        for table in TABLES {
            let n = w.array(table.entry, |push| tables::visit(&tx, table, push))?;
            summary.rows.push((table.name, n));
        }
        for (name, path) in practice_files(&dir) {
            let bytes = devcoach_files::read(&path, limits::BACKUP_PRACTICE_FILE_BYTES, Links::Refuse)?;
            w.entry(&name, &bytes)?;
            summary.practice_files += 1;
        }
        tx.commit()?;
        let out = w.zip.finish().map_err(|e| write_error("the archive", e))?;
        Ok((out, summary))
    }

    /// A backup in memory (the dashboard's download).
    pub fn backup_zip(&self) -> Result<(Vec<u8>, BackupSummary)> {
        let (cursor, summary) = self.write_backup(Cursor::new(Vec::new()))?;
        Ok((cursor.into_inner(), summary))
    }

    /// Restores a backup held in memory.
    pub fn restore_zip(&mut self, bytes: &[u8], now: DateTime<Utc>) -> Result<RestoreOutcome> {
        self.restore(Cursor::new(bytes), now)
    }

    /// Restores a backup by merging it into this database (and the data folder's files).
    pub fn restore<R: Read + Seek>(&mut self, source: R, now: DateTime<Utc>) -> Result<RestoreOutcome> {
        self.restore_scoped(source, now, Scope::All)
    }

    /// Restores everything (`Scope::All`), or only one lesson with the rows that belong to it
    /// (its review card and log, its kind, its evidence): the undo of a delete, which must not
    /// take back the settings, the map or the notebook changed since.
    pub fn restore_scoped<R: Read + Seek>(
        &mut self,
        mut source: R,
        now: DateTime<Utc>,
        scope: Scope<'_>,
    ) -> Result<RestoreOutcome> {
        let not_a_zip = |e: &dyn std::fmt::Display| BackupError::NotAZip(e.to_string());
        let declared = archive::declared_entries(&mut source).map_err(|e| not_a_zip(&e))?;
        if declared.is_some_and(|n| n > limits::BACKUP_ENTRIES) {
            return Err(BackupError::TooLarge.into());
        }
        let zip = zip::ZipArchive::new(source).map_err(|e| not_a_zip(&e))?;
        // A name listed twice is refused (which copy wins is up to each reader): the ZIP reader
        // sees it among the headers its end record declares; a directory holding more headers
        // than that record says (a forged record in the comment) is refused the same way.
        if zip.has_duplicate_names() {
            return Err(BackupError::Duplicate("an entry name".into()).into());
        }
        let (start, parsed) = (zip.central_directory_start(), zip.len() as u64);
        let mut source = zip.into_inner();
        let stored =
            archive::central_headers(&mut source, start, limits::BACKUP_ENTRIES + 1).map_err(|e| not_a_zip(&e))?;
        if stored > parsed {
            return Err(BackupError::Duplicate("an entry name".into()).into());
        }
        // A backup holds a dozen entries: reading the directory again costs nothing.
        let mut zip = zip::ZipArchive::new(source).map_err(|e| not_a_zip(&e))?;
        let mut index: HashMap<String, usize> = HashMap::new();
        for i in 0..zip.len() {
            let entry = zip.by_index_raw(i).map_err(|e| not_a_zip(&e))?;
            // A link is never followed or recreated: only plain files are data.
            if entry.is_dir() || entry.is_symlink() {
                continue;
            }
            let Ok(name) = entry.name().map(std::borrow::Cow::into_owned) else { continue };
            if known_entry(&name) && index.insert(name.clone(), i).is_some() {
                return Err(BackupError::Duplicate(name).into());
            }
        }
        // Files are written once the database has committed, so every entry is inflated once
        // first (its cap, the backup's total and its checksum checked): a damaged or oversized
        // entry refuses the backup before anything changes.
        let mut check = EntryReader { zip: &mut zip, index: &index, total: Rc::new(Cell::new(0)) };
        for name in index.keys() {
            check.drain(name)?;
        }
        let total = Rc::new(Cell::new(0u64));
        let mut reader = EntryReader { zip: &mut zip, index: &index, total: Rc::clone(&total) };
        let manifest = reader.object(MANIFEST_ENTRY)?;
        let format = manifest.as_ref().and_then(|m| m.get("format")).and_then(Value::as_i64).unwrap_or(EXT_FORMAT);
        if format > EXT_FORMAT {
            return Err(BackupError::NewerFormat(format).into());
        }
        let settings = reader.object(SETTINGS_ENTRY)?;
        let knowledge = reader.object(KNOWLEDGE_ENTRY)?;
        let courses = reader.object(COURSES_ENTRY)?;
        let ext_settings = reader.object(EXT_SETTINGS_ENTRY)?;
        let ext_knowledge = reader.object(EXT_KNOWLEDGE_ENTRY)?;
        let notebook = reader.bytes(NOTEBOOK_ENTRY, limits::NOTEBOOK_BYTES)?;
        if settings.is_none()
            && !index.contains_key(LESSONS_ENTRY)
            && knowledge.is_none()
            && courses.is_none()
            && notebook.is_none()
        {
            return Err(BackupError::Empty.into());
        }
        let mut out = RestoreOutcome::default();
        let only: Option<&[String]> = match scope {
            Scope::All | Scope::Profile => None,
            Scope::Lessons(ids) => Some(ids),
        };
        let profile = scope == Scope::Profile;
        // A lessons restore reads only the lessons and the tables keyed by lesson; a profile
        // restore only the map and the pacing chosen with it.
        let (settings, ext_settings, knowledge, courses, notebook) = match scope {
            Scope::All => (settings, ext_settings, knowledge, courses, notebook),
            Scope::Lessons(_) => (None, None, None, None, None),
            Scope::Profile => (settings, None, knowledge, None, None),
        };
        if profile && knowledge.is_none() {
            return Err(BackupError::Empty.into());
        }
        let named = |id: Option<&str>| only.is_none_or(|ids| id.is_some_and(|id| ids.iter().any(|i| i == id)));
        let belongs = |row: &Value| named(row.get("lesson_id").and_then(Value::as_str));
        let restored_courses = self.write(|tx| {
            if profile {
                tx.execute_batch(
                    "DELETE FROM knowledge; DELETE FROM knowledge_groups; DELETE FROM knowledge_group_names;",
                )?;
                if let Some(s) = &settings {
                    restore_pacing(tx, s)?;
                    out.settings = 1;
                }
            } else if let Some(s) = &settings {
                restore_settings(tx, s)?;
                out.settings = 1;
            }
            if let Some(s) = &ext_settings {
                restore_review_settings(tx, s)?;
            }
            if !profile
                && reader.array(LESSONS_ENTRY, |record| {
                    if !named(record.get("id").and_then(Value::as_str)) {
                        return Ok(());
                    }
                    match devcoach_core::Lesson::from_record(&record, now) {
                        Ok(l) if insert_if_absent(tx, &l)? => out.lessons += 1,
                        Ok(_) => out.skipped += 1,
                        Err(_) => out.invalid += 1,
                    }
                    Ok(())
                })? == Some(Shape::NotArray)
            {
                out.invalid += 1;
            }
            for table in TABLES.iter().filter(|_| !profile) {
                let mut n = 0;
                reader.array(table.entry, |row| {
                    if !belongs(&row) {
                        return Ok(());
                    }
                    match tables::restore_row(tx, table, &row)? {
                        Restored::Added | Restored::Replaced => n += 1,
                        Restored::Kept => {}
                        Restored::Invalid => out.invalid += 1,
                    }
                    Ok(())
                })?;
                out.rows.push((table.name, n));
            }
            if let Some(k) = &knowledge {
                let times = knowledge_times(ext_knowledge.as_ref());
                restore_knowledge(tx, k, &times, now, &mut out)?;
            }
            match &courses {
                Some(c) => restore_courses(tx, c, &mut out),
                None => Ok(Vec::new()),
            }
        })?;
        let dir = self.data_dir().clone();
        if let Some(bytes) = notebook {
            out.previous_notebook = replace_notebook(&dir, &String::from_utf8_lossy(&bytes), now)?;
            out.learning_state = 1;
        }
        let names: Vec<String> = if only.is_some() { Vec::new() } else { index.keys().cloned().collect() };
        for name in &names {
            if let Some(id) = name.strip_prefix("courses/").and_then(|r| r.strip_suffix("/index.html")) {
                let Ok(id) = CourseId::parse(id) else { continue };
                let known = restored_courses.contains(&id.to_string()) || self.course(&id)?.is_some();
                let target = dir.course_document_path(&id);
                if !known || std::fs::symlink_metadata(&target).is_ok() {
                    continue;
                }
                let Some(bytes) = reader.bytes(name, limits::COURSE_DOCUMENT_BYTES)? else { continue };
                let html = String::from_utf8_lossy(&bytes).into_owned();
                let html = highlighter::fill(&html, HIGHLIGHTER)
                    .filter(|f| f.len() as u64 <= limits::COURSE_DOCUMENT_BYTES)
                    .unwrap_or(html);
                let folder = dir.course_dir(&id);
                std::fs::create_dir_all(&folder)
                    .map_err(|e| StoreError::io("cannot create the course folder", &folder, e))?;
                devcoach_files::write(&target, html.as_bytes(), Overwrite::Never)?;
            } else if name.starts_with("practice/") {
                let Some(bytes) = reader.bytes(name, limits::BACKUP_PRACTICE_FILE_BYTES)? else {
                    continue;
                };
                if restore_practice_file(&dir, name, &bytes)? {
                    out.practice_files += 1;
                }
            }
        }
        Ok(out)
    }
}

/// Whether a restore reads an entry of this name at all.
fn known_entry(name: &str) -> bool {
    entry_cap(name).is_some()
}

/// Accepted entry names, and the most each may inflate to.
fn entry_cap(name: &str) -> Option<u64> {
    if TABLES.iter().any(|t| t.entry == name) {
        return Some(64 * 1024 * 1024);
    }
    match name {
        SETTINGS_ENTRY | MANIFEST_ENTRY | EXT_SETTINGS_ENTRY => Some(64 * 1024),
        KNOWLEDGE_ENTRY | COURSES_ENTRY | EXT_KNOWLEDGE_ENTRY => Some(limits::BACKUP_OBJECT_BYTES),
        LESSONS_ENTRY => Some(limits::BACKUP_LESSONS_BYTES),
        NOTEBOOK_ENTRY => Some(limits::NOTEBOOK_BYTES),
        HISTORY_ENTRY => Some(limits::BACKUP_PRACTICE_FILE_BYTES),
        _ => {
            if let Some(file) = name.strip_prefix(SESSIONS_PREFIX) {
                return practice_name_ok(file, ".jsonl").then_some(limits::BACKUP_PRACTICE_FILE_BYTES);
            }
            if let Some(file) = name.strip_prefix(PROBLEMS_PREFIX) {
                return practice_name_ok(file, ".md").then_some(limits::BACKUP_PRACTICE_FILE_BYTES);
            }
            let id = name.strip_prefix("courses/")?.strip_suffix("/index.html")?;
            CourseId::parse(id).ok().map(|_| limits::COURSE_DOCUMENT_BYTES)
        }
    }
}

/// Reads entries by name, each under its cap and the whole backup's.
struct EntryReader<'a, R: Read + Seek> {
    zip: &'a mut zip::ZipArchive<R>,
    index: &'a HashMap<String, usize>,
    total: Rc<Cell<u64>>,
}

impl<R: Read + Seek> EntryReader<'_, R> {
    fn metered(&mut self, name: &str, element_cap: u64) -> Result<Option<Metered<zip::read::ZipFile<'_, R>>>> {
        let Some(&i) = self.index.get(name) else { return Ok(None) };
        let cap = entry_cap(name).unwrap_or(0);
        let entry = self.zip.by_index(i).map_err(|e| BackupError::NotAZip(e.to_string()))?;
        Ok(Some(Metered::new(entry, cap, element_cap, Rc::clone(&self.total), limits::BACKUP_INFLATED_BYTES)))
    }

    fn over(name: &str, over: Option<Over>) -> Option<StoreError> {
        let cap = entry_cap(name).unwrap_or(0);
        over.map(|o| match o {
            Over::Entry => BackupError::EntryTooLarge(name.to_owned(), cap).into(),
            Over::Element => BackupError::ItemTooLarge(name.to_owned(), limits::BACKUP_ELEMENT_BYTES).into(),
            Over::Total => BackupError::TooLarge.into(),
        })
    }

    /// An entry's bytes, whole.
    fn bytes(&mut self, name: &str, limit: u64) -> Result<Option<Vec<u8>>> {
        let Some(mut reader) = self.metered(name, u64::MAX)? else { return Ok(None) };
        let over = Rc::clone(&reader.over);
        let mut buf = Vec::new();
        let read = (&mut reader).take(limit.saturating_add(1)).read_to_end(&mut buf);
        if let Some(e) = Self::over(name, over.get()) {
            return Err(e);
        }
        read.map_err(|e| BackupError::NotAZip(e.to_string()))?;
        if buf.len() as u64 > limit {
            return Err(BackupError::EntryTooLarge(name.to_owned(), limit).into());
        }
        Ok(Some(buf))
    }

    /// Inflates an entry to nowhere, under its cap and the backup's total, checking its checksum.
    fn drain(&mut self, name: &str) -> Result<()> {
        let Some(mut reader) = self.metered(name, u64::MAX)? else { return Ok(()) };
        let over = Rc::clone(&reader.over);
        let read = io::copy(&mut reader, &mut io::sink());
        if let Some(e) = Self::over(name, over.get()) {
            return Err(e);
        }
        read.map(drop).map_err(|e| BackupError::Damaged(name.to_owned(), e.to_string()).into())
    }

    /// A small JSON entry, parsed whole.
    fn object(&mut self, name: &str) -> Result<Option<Value>> {
        let Some(bytes) = self.bytes(name, entry_cap(name).unwrap_or(0))? else { return Ok(None) };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| BackupError::BadJson(name.to_owned(), e.to_string()).into())
    }

    /// Hands each element of a JSON array entry to `f`; `None` when the entry is absent.
    fn array(&mut self, name: &str, f: impl FnMut(Value) -> Result<()>) -> Result<Option<Shape>> {
        let Some(reader) = self.metered(name, limits::BACKUP_ELEMENT_BYTES)? else { return Ok(None) };
        let over = Rc::clone(&reader.over);
        match archive::each_element(reader, f) {
            Ok(shape) => Ok(Some(shape)),
            Err(Stop::Callback(e)) => Err(e),
            Err(Stop::Json(e)) => Err(Self::over(name, over.get())
                .unwrap_or_else(|| BackupError::BadJson(name.to_owned(), e.to_string()).into())),
        }
    }
}

/// `topic → updated_at` from our knowledge entry.
fn knowledge_times(v: Option<&Value>) -> HashMap<String, String> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|row| {
            // Keyed like the topics they time: by the topic rule's id.
            let topic = knowledge::topic_id(row.get("topic")?.as_str()?).ok()?;
            let at = devcoach_core::time::parse_timestamp(row.get("updated_at")?.as_str()?).ok()?;
            Some((topic, iso_ms(at)))
        })
        .collect()
}

fn restore_review_settings(conn: &Connection, s: &Value) -> Result<()> {
    let mut settings = crate::reviews::read_review_settings(conn)?;
    if let Some(r) = s.get("review_retention").and_then(Value::as_f64)
        && devcoach_core::fsrs::Scheduler::with_retention(r).is_ok()
    {
        settings.retention = r;
    }
    if let Some(mix) = s.get("review_mix").and_then(Value::as_str).and_then(ReviewMix::parse) {
        settings.mix = mix;
    }
    if let Some(values) = s.get("review_parameters").and_then(Value::as_array) {
        let values: Option<Vec<f64>> = values.iter().map(Value::as_f64).collect();
        if let Some(p) = values.and_then(|v| devcoach_core::fsrs::Parameters::new(&v).ok()) {
            settings.parameters = Some(p);
        }
    }
    crate::reviews::write_review_settings(conn, &settings)?;
    // The share page, when the backup names one that still reads as one.
    if let Some(base) = s
        .get(crate::settings::LINK_BASE_KEY)
        .and_then(Value::as_str)
        .and_then(|b| devcoach_core::share::text::parse_link_base(b).ok().flatten())
    {
        crate::settings::write_setting(conn, crate::settings::LINK_BASE_KEY, &base)?;
    }
    Ok(())
}

/// Replaces the notebook with the restored text, keeping the previous one beside it (when there
/// was one and it differs) as `learning-state.<time>.md`. Returns where it was kept.
fn replace_notebook(dir: &DataDir, text: &str, now: DateTime<Utc>) -> Result<Option<PathBuf>> {
    let path = dir.notebook_path();
    let previous = devcoach_files::read_optional(&path, limits::NOTEBOOK_BYTES, Links::Follow)?;
    let kept = match previous {
        Some(old) if old != text.as_bytes() && !old.is_empty() => {
            let stamp = now.format("%Y%m%dT%H%M%SZ");
            let mut copy = dir.root().join(format!("learning-state.{stamp}.md"));
            let mut n = 2;
            while devcoach_files::check_target(&copy)? != devcoach_files::Target::Absent {
                copy = dir.root().join(format!("learning-state.{stamp}-{n}.md"));
                n += 1;
            }
            devcoach_files::write(&copy, &old, Overwrite::Never)?;
            Some(copy)
        }
        _ => None,
    };
    dir.write_notebook(text)?;
    Ok(kept)
}

/// Writes one practice file from a backup; true when something was written. A session log that
/// exists with other content is kept, and the restored one goes beside it; a cached problem
/// already here stays; the line history gains the lines it lacks.
fn restore_practice_file(dir: &DataDir, name: &str, bytes: &[u8]) -> Result<bool> {
    let Some(relative) = name.strip_prefix("practice/") else { return Ok(false) };
    let path = devcoach_core::layout::practice(dir.root()).join(relative);
    let Some(folder) = path.parent() else { return Ok(false) };
    std::fs::create_dir_all(folder).map_err(|e| StoreError::io("cannot create the practice folder", folder, e))?;
    let existing = devcoach_files::read_optional(&path, limits::BACKUP_PRACTICE_FILE_BYTES, Links::Refuse)?;
    match existing {
        None => {
            devcoach_files::write(&path, bytes, Overwrite::Never)?;
            Ok(true)
        }
        Some(ours) if ours == bytes => Ok(false),
        Some(ours) if name == HISTORY_ENTRY => {
            let ours_text = String::from_utf8_lossy(&ours).into_owned();
            let have: std::collections::HashSet<&str> = ours_text.lines().collect();
            let missing: Vec<&str> =
                std::str::from_utf8(bytes).unwrap_or("").lines().filter(|l| !have.contains(l)).collect();
            if missing.is_empty() {
                return Ok(false);
            }
            let mut merged = ours_text.clone();
            if !merged.is_empty() && !merged.ends_with('\n') {
                merged.push('\n');
            }
            for line in missing {
                merged.push_str(line);
                merged.push('\n');
            }
            devcoach_files::write(&path, merged.as_bytes(), Overwrite::Replace)?;
            Ok(true)
        }
        Some(_) if name.starts_with(SESSIONS_PREFIX) => {
            let stem = relative.trim_start_matches("sessions/").trim_end_matches(".jsonl");
            for n in 1..1000 {
                let suffix = if n == 1 { String::new() } else { format!("-{n}") };
                let beside = folder.join(format!("{stem}.restored{suffix}.jsonl"));
                match devcoach_files::read_optional(&beside, limits::BACKUP_PRACTICE_FILE_BYTES, Links::Refuse)? {
                    Some(same) if same == bytes => return Ok(false),
                    Some(_) => {}
                    None => {
                        devcoach_files::write(&beside, bytes, Overwrite::Never)?;
                        return Ok(true);
                    }
                }
            }
            Ok(false)
        }
        Some(_) => Ok(false),
    }
}

/// The confidence a restored topic gets: when the topic is new here and the restored evidence
/// log already ends at the backup's value, the history explains it and it is stored as it was;
/// otherwise it is a rating from the restore, logged as such.
fn restore_confidence(
    conn: &Connection,
    topic: &str,
    conf: i64,
    times: &HashMap<String, String>,
    now: DateTime<Utc>,
) -> rusqlite::Result<Kept> {
    let conf = knowledge::clamp_confidence(conf);
    let current = crate::knowledge::confidence(conn, topic)?;
    if current == Some(conf) {
        return Ok(Kept::Same);
    }
    // A value set here after the backup was taken is newer knowledge: it stays. (A backup
    // without times, like the original's, wins as it always did.)
    if current.is_some()
        && let Some(backup_at) = times.get(topic).and_then(|t| devcoach_core::time::parse_timestamp(t).ok())
    {
        let local_at: Option<String> = conn
            .prepare_cached("SELECT updated_at FROM knowledge WHERE topic = ?1")?
            .query_row([topic], |r| r.get(0))
            .optional()?
            .flatten();
        if local_at.and_then(|t| devcoach_core::time::parse_timestamp(&t).ok()).is_some_and(|l| l > backup_at) {
            return Ok(Kept::Newer);
        }
    }
    if current.is_none() {
        let last: Option<Option<i64>> = conn
            .prepare_cached("SELECT value_after FROM ext_evidence WHERE topic = ?1 ORDER BY at DESC, id DESC LIMIT 1")?
            .query_row([topic], |r| r.get(0))
            .optional()?;
        if last == Some(Some(conf)) {
            let at = times.get(topic).cloned().unwrap_or_else(|| iso_ms(now));
            conn.prepare_cached("INSERT INTO knowledge (topic, confidence, updated_at) VALUES (?1, ?2, ?3)")?
                .execute(params![topic, conf, at])?;
            return Ok(Kept::Restored);
        }
    }
    write_confidence(conn, topic, conf, &Because::plain(EvidenceCause::Restore), now)?;
    Ok(Kept::Restored)
}

/// What a restore did with one topic's confidence.
#[derive(Debug, PartialEq, Eq)]
enum Kept {
    /// Already the backup's value.
    Same,
    Restored,
    /// The value here is newer than the backup's.
    Newer,
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

fn set_raw(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )
    .map(drop)
}

fn restore_settings(conn: &Connection, s: &Value) -> Result<()> {
    let Some(obj) = s.as_object() else { return Ok(()) };
    restore_keys(
        conn,
        obj,
        &[
            SettingKey::MaxPerDay,
            SettingKey::MinGapMinutes,
            SettingKey::NudgeEvery,
            SettingKey::NudgeScope,
            SettingKey::UiTheme,
            SettingKey::UiHome,
        ],
    )?;
    if let Some(Value::String(name)) = obj.get("share_name") {
        set_raw(conn, "share_name", &devcoach_core::settings::normalize_share_name(name).unwrap_or_default())?;
    }
    Ok(())
}

/// The two settings an onboarding chooses, as the backup holds them.
fn restore_pacing(conn: &Connection, s: &Value) -> Result<()> {
    let Some(obj) = s.as_object() else { return Ok(()) };
    restore_keys(conn, obj, &[SettingKey::MaxPerDay, SettingKey::MinGapMinutes])
}

/// Sets each of `keys` the backup holds; a value this build would refuse is skipped (the rest of
/// the backup still restores).
fn restore_keys(conn: &Connection, obj: &serde_json::Map<String, Value>, keys: &[SettingKey]) -> Result<()> {
    for &key in keys {
        let raw = match obj.get(key.as_str()) {
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.clone(),
            _ => continue,
        };
        if let Ok(update) = SettingUpdate::new(key, &raw) {
            set_raw(conn, key.as_str(), &update.stored)?;
        }
    }
    Ok(())
}

fn add_group(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    Ok(conn.execute("INSERT OR IGNORE INTO knowledge_group_names (group_name) VALUES (?1)", [name])? > 0)
}

fn restore_knowledge(
    conn: &Connection,
    k: &Value,
    times: &HashMap<String, String>,
    now: DateTime<Utc>,
    out: &mut RestoreOutcome,
) -> Result<()> {
    // Confidences are small; a fractional or huge value is clamped later anyway.
    #[allow(clippy::cast_possible_truncation)]
    let confidence_of = |v: &Value| v.as_i64().or_else(|| v.as_f64().map(|f| f.round().clamp(-1000.0, 1000.0) as i64));
    // Either format as (name, confidence, group): `{groups, topics: [...]}`, or the oldest,
    // `{topic: confidence}`.
    let entries: Vec<(&str, Option<i64>, Option<&str>)> = match k.get("topics") {
        Some(Value::Array(topics)) => {
            for g in k.get("groups").and_then(Value::as_array).into_iter().flatten() {
                if let Some(name) = g.as_str().and_then(|n| knowledge::new_group_name(n).ok())
                    && add_group(conn, &name)?
                {
                    out.groups += 1;
                }
            }
            topics
                .iter()
                .map(|item| {
                    let text = |key: &str| item.get(key).and_then(Value::as_str);
                    (text("topic").unwrap_or_default(), item.get("confidence").and_then(confidence_of), text("group"))
                })
                .collect()
        }
        _ => k.as_object().into_iter().flatten().map(|(t, c)| (t.as_str(), confidence_of(c), None)).collect(),
    };
    let mut seen = std::collections::HashSet::new();
    for (raw, conf, group) in entries {
        // Names go through the same rules as every other front end's.
        let (Ok(topic), Some(conf)) = (knowledge::topic_id(raw), conf) else {
            out.invalid += 1;
            continue;
        };
        if topic != raw.trim() {
            out.renamed.push((raw.to_owned(), topic.clone()));
        }
        // Two names of one topic ("Git" and "git"): the first listed is restored.
        if !seen.insert(topic.clone()) {
            out.duplicate_topics += 1;
            continue;
        }
        if restore_confidence(conn, &topic, conf, times, now)? == Kept::Newer {
            out.newer_kept += 1;
        }
        if let Some(group) = group {
            match GroupTarget::parse(group) {
                Ok(GroupTarget::Group(g)) => {
                    if add_group(conn, &g)? {
                        out.groups += 1;
                    }
                    conn.execute("DELETE FROM knowledge_groups WHERE topic = ?1", [&topic])?;
                    conn.execute(
                        "INSERT OR IGNORE INTO knowledge_groups (group_name, topic) VALUES (?1, ?2)",
                        [&g, &topic],
                    )?;
                }
                Ok(GroupTarget::Ungrouped) => {}
                Err(_) => out.invalid += 1,
            }
        }
        out.topics += 1;
    }
    Ok(())
}

/// Inserts absent courses and their absent steps; returns the ids of courses inserted.
fn restore_courses(conn: &Connection, c: &Value, out: &mut RestoreOutcome) -> Result<Vec<String>> {
    let mut inserted = Vec::new();
    let empty = Vec::new();
    for row in c.get("courses").and_then(Value::as_array).unwrap_or(&empty) {
        let text = |k: &str| row.get(k).and_then(Value::as_str).map(str::to_owned);
        let (Some(id), Some(topic_id), Some(title), Some(created_at)) =
            (text("id"), text("topic_id"), text("title"), text("created_at"))
        else {
            out.invalid += 1;
            continue;
        };
        if CourseId::parse(&id).is_err() {
            out.invalid += 1;
            continue;
        }
        let status = text("status")
            .filter(|s| devcoach_core::course::CourseStatus::parse(s).is_ok())
            .unwrap_or_else(|| "active".into());
        let prerequisites = prerequisites_to_column(&devcoach_core::course::prerequisites_from_column(
            &row.get("prerequisites").map(Value::to_string).unwrap_or_default(),
        ));
        let n = conn.execute(
            "INSERT OR IGNORE INTO courses (id, lesson_id, topic_id, title, goal, prerequisites, status, created_at, updated_at, completed_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![id, text("lesson_id"), topic_id, title, text("goal"), prerequisites, status, created_at, text("updated_at").unwrap_or_else(|| created_at.clone()), text("completed_at")],
        )?;
        if n > 0 {
            out.courses += 1;
            inserted.push(id);
        }
    }
    for step in c.get("steps").and_then(Value::as_array).unwrap_or(&empty) {
        let text = |k: &str| step.get(k).and_then(Value::as_str).map(str::to_owned);
        let (Some(course_id), Some(position), Some(title), Some(kind), Some(anchor)) = (
            text("course_id"),
            step.get("position").and_then(Value::as_i64),
            text("title"),
            text("kind"),
            text("anchor"),
        ) else {
            out.invalid += 1;
            continue;
        };
        let known: bool =
            conn.query_row("SELECT EXISTS (SELECT 1 FROM courses WHERE id = ?1)", [&course_id], |r| r.get(0))?;
        if !known || devcoach_core::course::check_anchor(&anchor).is_err() {
            continue;
        }
        conn.execute(
            "INSERT OR IGNORE INTO course_steps (course_id, position, title, kind, anchor, status, done_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![course_id, position, title, kind, anchor, text("status").unwrap_or_else(|| "todo".into()), text("done_at")],
        )?;
    }
    Ok(inserted)
}
