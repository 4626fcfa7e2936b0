//! Backups: a ZIP the TypeScript devcoach reads and writes too. Restoring merges and never
//! destroys: existing rows win, nothing outside the known entry names is read, and every entry is
//! size-capped while it is inflated.

use std::io::{Cursor, Read, Write};

use chrono::{DateTime, Utc};
use devcoach_core::course::{CourseId, MAX_COURSE_DOCUMENT_BYTES, prerequisites_to_column};
use devcoach_core::evidence::EvidenceCause;
use devcoach_core::highlighter;
use devcoach_core::knowledge::{self, GroupTarget, OTHER_GROUP};
use devcoach_core::query::LessonQuery;
use devcoach_core::settings::{SettingKey, SettingUpdate};
use rusqlite::{Connection, params};
use serde_json::{Value, json};

use crate::courses::{CourseFilter, HIGHLIGHTER};
use crate::error::StoreError;
use crate::knowledge::{Because, write_confidence};
use crate::lessons::insert_if_absent;
use crate::{Result, Store};

pub const SETTINGS_ENTRY: &str = "settings.json";
pub const LESSONS_ENTRY: &str = "lessons.json";
pub const KNOWLEDGE_ENTRY: &str = "knowledge.json";
pub const NOTEBOOK_ENTRY: &str = "learning-state.md";
pub const COURSES_ENTRY: &str = "courses.json";

/// The most bytes a backup file may have.
pub const MAX_BACKUP_BYTES: u64 = 128 * 1024 * 1024;
/// The most a whole backup may inflate to.
const MAX_TOTAL_INFLATED: u64 = 256 * 1024 * 1024;
const MAX_ENTRIES: usize = 20_000;

/// Why a backup could not be restored. Nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("this is not a devcoach backup (not a readable ZIP file: {0})")]
    NotAZip(String),
    #[error("the backup's {0} is larger than devcoach accepts ({1} bytes at most); nothing was restored")]
    EntryTooLarge(String, u64),
    #[error("the backup holds more data or entries than devcoach accepts; nothing was restored")]
    TooLarge,
    #[error("the backup's {0} is not valid JSON ({1}); nothing was restored")]
    BadJson(&'static str, String),
    #[error("the backup holds none of settings.json, lessons.json or knowledge.json; nothing was restored")]
    Empty,
    #[error("the backup lists {0} more than once, so it cannot be trusted; nothing was restored")]
    Duplicate(String),
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

impl Store {
    /// Writes a backup ZIP of settings, lessons, knowledge, the notebook and courses (with their
    /// documents, highlighter stripped back to its placeholder).
    pub fn backup_zip(&self) -> Result<(Vec<u8>, BackupSummary)> {
        // One read transaction: every section comes from the same moment.
        let tx = self.conn().unchecked_transaction()?;
        let settings = crate::settings::read(&tx)?;
        let lessons = self.lessons(&LessonQuery::default(), Utc::now())?;
        let profile = crate::knowledge::read_profile(&tx)?;
        let courses = self.courses(&CourseFilter::default())?;
        tx.commit()?;
        let dir = self.data_dir();
        let knowledge = json!({
            "groups": profile.groups.iter().map(|g| g.name.clone()).collect::<Vec<_>>(),
            "topics": profile.knowledge.iter().map(|e| {
                let group = profile.group_of(&e.topic);
                json!({"topic": e.topic, "confidence": e.confidence, "group": (group != OTHER_GROUP).then_some(group)})
            }).collect::<Vec<_>>(),
        });
        let mut entries: Vec<(String, Vec<u8>)> = vec![
            (SETTINGS_ENTRY.into(), pretty(&settings)),
            (LESSONS_ENTRY.into(), pretty(&lessons)),
            (KNOWLEDGE_ENTRY.into(), pretty(&knowledge)),
        ];
        let notebook = std::fs::read(dir.notebook_path()).ok();
        if let Some(text) = &notebook {
            entries.push((NOTEBOOK_ENTRY.into(), text.clone()));
        }
        let mut documents = 0;
        if !courses.is_empty() {
            let rows: Vec<Value> = courses.iter().map(course_row_json).collect();
            let steps: Vec<Value> = courses.iter().flat_map(|c| c.steps.iter().map(step_json)).collect();
            entries.push((COURSES_ENTRY.into(), pretty(&json!({"courses": rows, "steps": steps}))));
            for c in &courses {
                let Ok(id) = CourseId::parse(&c.id) else { continue };
                if let Ok(Some(html)) = dir.read_course_document(&id) {
                    entries.push((
                        format!("courses/{id}/index.html"),
                        highlighter::strip(&html, HIGHLIGHTER).into_bytes(),
                    ));
                    documents += 1;
                }
            }
        }
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in &entries {
            zip.start_file(name.as_str(), options)
                .map_err(|e| StoreError::io("cannot write the backup", name, std::io::Error::other(e)))?;
            zip.write_all(bytes).map_err(|e| StoreError::io("cannot write the backup", name, e))?;
        }
        let bytes = zip
            .finish()
            .map_err(|e| StoreError::io("cannot write the backup", "zip", std::io::Error::other(e)))?
            .into_inner();
        Ok((
            bytes,
            BackupSummary {
                lessons: lessons.len(),
                topics: profile.knowledge.len(),
                groups: profile.groups.len(),
                notebook: notebook.is_some(),
                courses: courses.len(),
                documents,
            },
        ))
    }

    /// Restores a backup by merging it into this database.
    pub fn restore_zip(&mut self, bytes: &[u8], now: DateTime<Utc>) -> Result<RestoreOutcome> {
        let entries = read_entries(bytes)?;
        let json_of = |name: &'static str| -> Result<Option<Value>> {
            entries
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, b)| {
                    serde_json::from_slice::<Value>(b).map_err(|e| BackupError::BadJson(name, e.to_string()).into())
                })
                .transpose()
        };
        let settings = json_of(SETTINGS_ENTRY)?;
        let lessons = json_of(LESSONS_ENTRY)?;
        let knowledge = json_of(KNOWLEDGE_ENTRY)?;
        let courses = json_of(COURSES_ENTRY)?;
        let notebook =
            entries.iter().find(|(n, _)| n == NOTEBOOK_ENTRY).map(|(_, b)| String::from_utf8_lossy(b).into_owned());
        if settings.is_none() && lessons.is_none() && knowledge.is_none() && courses.is_none() && notebook.is_none() {
            return Err(BackupError::Empty.into());
        }
        let mut out = RestoreOutcome::default();
        let restored_courses = self.write(|tx| {
            if let Some(s) = &settings {
                restore_settings(tx, s)?;
                out.settings = 1;
            }
            if let Some(k) = &knowledge {
                restore_knowledge(tx, k, now, &mut out)?;
            }
            if let Some(Value::Array(records)) = &lessons {
                for record in records {
                    match devcoach_core::Lesson::from_record(record, now) {
                        Ok(l) if insert_if_absent(tx, &l)? => out.lessons += 1,
                        Ok(_) => out.skipped += 1,
                        Err(_) => out.invalid += 1,
                    }
                }
            } else if lessons.is_some() {
                out.invalid += 1;
            }
            match &courses {
                Some(c) => restore_courses(tx, c, &mut out),
                None => Ok(Vec::new()),
            }
        })?;
        let dir = self.data_dir().clone();
        if let Some(text) = notebook {
            dir.write_notebook(&text)?;
            out.learning_state = 1;
        }
        for (name, bytes) in &entries {
            let Some(id) = name.strip_prefix("courses/").and_then(|r| r.strip_suffix("/index.html")) else { continue };
            let Ok(id) = CourseId::parse(id) else { continue };
            let known = restored_courses.contains(&id.to_string()) || self.course(&id)?.is_some();
            let target = dir.course_document_path(&id);
            if !known || std::fs::symlink_metadata(&target).is_ok() || bytes.len() as u64 > MAX_COURSE_DOCUMENT_BYTES {
                continue;
            }
            let html = String::from_utf8_lossy(bytes).into_owned();
            let html = highlighter::fill(&html, HIGHLIGHTER)
                .filter(|f| f.len() as u64 <= MAX_COURSE_DOCUMENT_BYTES)
                .unwrap_or(html);
            let folder = dir.course_dir(&id);
            std::fs::create_dir_all(&folder)
                .map_err(|e| StoreError::io("cannot create the course folder", &folder, e))?;
            std::fs::write(&target, html)
                .map_err(|e| StoreError::io("cannot write the course document", &target, e))?;
        }
        Ok(out)
    }
}

/// Accepted entry names, and the most each may inflate to.
fn entry_cap(name: &str) -> Option<u64> {
    match name {
        SETTINGS_ENTRY | KNOWLEDGE_ENTRY => Some(4 * 1024 * 1024),
        LESSONS_ENTRY => Some(96 * 1024 * 1024),
        NOTEBOOK_ENTRY => Some(8 * 1024 * 1024),
        COURSES_ENTRY => Some(16 * 1024 * 1024),
        _ => {
            let id = name.strip_prefix("courses/")?.strip_suffix("/index.html")?;
            CourseId::parse(id).ok().map(|_| MAX_COURSE_DOCUMENT_BYTES)
        }
    }
}

/// Reads the whitelisted entries, refusing any that inflates past its cap (a zip bomb stops at
/// the cap; the declared size is not trusted).
fn read_entries(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| BackupError::NotAZip(e.to_string()))?;
    if archive.len() > MAX_ENTRIES {
        return Err(BackupError::TooLarge.into());
    }
    // The ZIP reader keeps one entry per name; the directory's own count tells when a name was
    // listed twice (which one would win is up to each reader, so such an archive is refused).
    if declared_entries(bytes).is_some_and(|n| n != archive.len()) {
        return Err(BackupError::Duplicate("an entry name".into()).into());
    }
    let mut total = 0u64;
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| BackupError::NotAZip(e.to_string()))?;
        let Ok(name) = entry.name().map(std::borrow::Cow::into_owned) else { continue };
        let Some(cap) = entry_cap(&name) else { continue };
        // A link is never followed or recreated: only plain files are data.
        if entry.is_dir() || entry.is_symlink() {
            continue;
        }
        if out.iter().any(|(n, _)| *n == name) {
            return Err(BackupError::Duplicate(name).into());
        }
        let mut buf = Vec::new();
        (&mut entry).take(cap + 1).read_to_end(&mut buf).map_err(|e| BackupError::NotAZip(e.to_string()))?;
        if buf.len() as u64 > cap {
            return Err(BackupError::EntryTooLarge(name, cap).into());
        }
        total += buf.len() as u64;
        if total > MAX_TOTAL_INFLATED {
            return Err(BackupError::TooLarge.into());
        }
        out.push((name, buf));
    }
    Ok(out)
}

/// The entry count the end-of-central-directory record declares (`None` for ZIP64 or when it
/// cannot be found).
fn declared_entries(bytes: &[u8]) -> Option<usize> {
    const EOCD: [u8; 4] = [0x50, 0x4b, 0x05, 0x06];
    let search_from = bytes.len().saturating_sub(22 + usize::from(u16::MAX));
    let at = bytes[search_from..].windows(4).rposition(|w| w == EOCD)? + search_from;
    let total = bytes.get(at + 10..at + 12)?;
    let total = u16::from_le_bytes([total[0], total[1]]);
    (total != u16::MAX).then_some(usize::from(total))
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
    for key in [
        SettingKey::MaxPerDay,
        SettingKey::MinGapMinutes,
        SettingKey::NudgeEvery,
        SettingKey::NudgeScope,
        SettingKey::UiTheme,
        SettingKey::UiHome,
    ] {
        let raw = match obj.get(key.as_str()) {
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.clone(),
            _ => continue,
        };
        // Values this build would refuse are skipped; the rest of the backup still restores.
        if let Ok(update) = SettingUpdate::new(key, &raw) {
            set_raw(conn, key.as_str(), &update.stored)?;
        }
    }
    if let Some(Value::String(name)) = obj.get("share_name") {
        set_raw(conn, "share_name", &devcoach_core::settings::normalize_share_name(name).unwrap_or_default())?;
    }
    Ok(())
}

fn add_group(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    Ok(conn.execute("INSERT OR IGNORE INTO knowledge_group_names (group_name) VALUES (?1)", [name])? > 0)
}

fn restore_knowledge(conn: &Connection, k: &Value, now: DateTime<Utc>, out: &mut RestoreOutcome) -> Result<()> {
    let why = Because::plain(EvidenceCause::Restore);
    // Confidences are small; a fractional or huge value is clamped later anyway.
    #[allow(clippy::cast_possible_truncation)]
    let confidence_of = |v: &Value| v.as_i64().or_else(|| v.as_f64().map(|f| f.round().clamp(-1000.0, 1000.0) as i64));
    match k.get("topics") {
        Some(Value::Array(topics)) => {
            for g in k.get("groups").and_then(Value::as_array).into_iter().flatten() {
                if let Some(name) = g.as_str().and_then(|n| knowledge::new_group_name(n).ok())
                    && add_group(conn, &name)?
                {
                    out.groups += 1;
                }
            }
            for item in topics {
                let (Some(topic), Some(conf)) =
                    (item.get("topic").and_then(Value::as_str), item.get("confidence").and_then(confidence_of))
                else {
                    out.invalid += 1;
                    continue;
                };
                let Ok(topic) = knowledge::topic_name(topic) else { continue };
                write_confidence(conn, &topic, conf, &why, now)?;
                if let Some(group) = item
                    .get("group")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|g| !g.is_empty() && *g != OTHER_GROUP)
                {
                    if add_group(conn, group)? {
                        out.groups += 1;
                    }
                    if let GroupTarget::Group(g) = GroupTarget::parse(group) {
                        conn.execute("DELETE FROM knowledge_groups WHERE topic = ?1", [&topic])?;
                        conn.execute(
                            "INSERT OR IGNORE INTO knowledge_groups (group_name, topic) VALUES (?1, ?2)",
                            [&g, &topic],
                        )?;
                    }
                }
                out.topics += 1;
            }
        }
        _ => {
            // The oldest format: {topic: confidence}.
            for (topic, conf) in k.as_object().into_iter().flatten() {
                if let (Ok(topic), Some(conf)) = (knowledge::topic_name(topic), confidence_of(conf)) {
                    write_confidence(conn, &topic, conf, &why, now)?;
                    out.topics += 1;
                }
            }
        }
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
