//! Writing a backup: every entry from one read transaction, arrays streamed.

use std::io::{Cursor, Seek, Write};

use chrono::Utc;
use devcoach_core::course::CourseId;
use devcoach_core::highlighter;
use devcoach_core::knowledge::OTHER_GROUP;
use devcoach_core::limits;
use devcoach_core::query::LessonQuery;
use devcoach_files::Links;
use serde_json::{Value, json};

use super::tables::TABLES;
use super::{
    BackupSummary, COURSES_ENTRY, EXT_FORMAT, EXT_KNOWLEDGE_ENTRY, EXT_SETTINGS_ENTRY, KNOWLEDGE_ENTRY, LESSONS_ENTRY,
    MANIFEST_ENTRY, NOTEBOOK_ENTRY, SETTINGS_ENTRY, practice_files, tables,
};
use crate::courses::{CourseFilter, HIGHLIGHTER};
use crate::error::StoreError;
use crate::{Fields, Result, Store};

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
}
