//! Reading a backup: only known entries, each under its cap while it is inflated, and the
//! restore that merges them in one transaction.

use std::cell::Cell;
use std::collections::HashMap;
use std::io::{self, Cursor, Read, Seek};
use std::rc::Rc;

use chrono::{DateTime, Utc};
use devcoach_core::course::CourseId;
use devcoach_core::highlighter;
use devcoach_core::limits;
use devcoach_files::Overwrite;
use serde_json::Value;

use super::archive::{Metered, Over, Shape, Stop};
use super::merge::{
    knowledge_times, replace_notebook, restore_courses, restore_knowledge, restore_pacing, restore_practice_file,
    restore_review_settings, restore_settings,
};
use super::tables::{Restored, TABLES};
use super::{
    BackupError, COURSES_ENTRY, EXT_FORMAT, EXT_KNOWLEDGE_ENTRY, EXT_SETTINGS_ENTRY, HISTORY_ENTRY, KNOWLEDGE_ENTRY,
    LESSONS_ENTRY, MANIFEST_ENTRY, NOTEBOOK_ENTRY, PROBLEMS_PREFIX, RestoreOutcome, SESSIONS_PREFIX, SETTINGS_ENTRY,
    Scope, archive, practice_name_ok, tables,
};
use crate::courses::HIGHLIGHTER;
use crate::error::StoreError;
use crate::lessons::insert_if_absent;
use crate::{Result, Store};

impl Store {
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
