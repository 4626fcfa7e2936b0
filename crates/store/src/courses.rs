//! Courses: rows in `courses`/`course_steps`, and each course's document on disk
//! (`<data>/courses/<id>/index.html`, written by the agent with its own file tools).

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use devcoach_core::course::{
    COURSE_DOCUMENT_NAME, Course, CourseError, CourseId, CourseStatus, CourseStep, Prerequisite, StepKind, StepStatus,
    check_anchor, document_has_anchor, prerequisites_from_column, prerequisites_to_column,
};
use devcoach_core::highlighter::{self, Bundle};
use devcoach_core::limits;
use devcoach_core::time::iso_ms;
use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::StoreError;
use crate::{DataDir, Result, Store};

/// The vendored highlighter that fills course documents.
pub const HIGHLIGHTER: Bundle<'static> =
    Bundle { library: devcoach_assets::HIGHLIGHT_JS, licence: devcoach_assets::HIGHLIGHT_LICENSE };

/// A course to create.
#[derive(Debug, Clone)]
pub struct NewCourse {
    pub title: String,
    pub topic_id: String,
    pub goal: Option<String>,
    pub lesson_id: Option<String>,
    pub prerequisites: Vec<Prerequisite>,
}

/// Which courses to list.
#[derive(Debug, Clone, Default)]
pub struct CourseFilter {
    pub course_id: Option<String>,
    pub lesson_id: Option<String>,
    pub status: Option<CourseStatus>,
}

impl DataDir {
    pub fn course_dir(&self, id: &CourseId) -> PathBuf {
        self.courses_dir().join(id.as_str())
    }

    pub fn course_document_path(&self, id: &CourseId) -> PathBuf {
        self.course_dir(id).join(COURSE_DOCUMENT_NAME)
    }

    /// The course's document when it is there and safe to read: a regular file (not a link) of at
    /// most 2 MiB, in a real folder. Checked again on every read.
    pub fn course_document(&self, id: &CourseId) -> Result<Option<PathBuf>> {
        let dir = self.course_dir(id);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_dir() => {}
            Ok(_) => return Err(CourseError::BadDocument(dir.display().to_string()).into()),
            Err(_) => return Ok(None),
        }
        let path = self.course_document_path(id);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_file() && m.len() <= limits::COURSE_DOCUMENT_BYTES => Ok(Some(path)),
            Ok(_) => Err(CourseError::BadDocument(path.display().to_string()).into()),
            Err(_) => Ok(None),
        }
    }

    /// Reads the document (`None` when it is not written yet).
    pub fn read_course_document(&self, id: &CourseId) -> Result<Option<String>> {
        let Some(path) = self.course_document(id)? else { return Ok(None) };
        // Checked again while opening (a link swapped in since is refused) and read bounded.
        let bytes = devcoach_files::read(&path, limits::COURSE_DOCUMENT_BYTES, devcoach_files::Links::Refuse)?;
        Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// Fills the document's highlighter placeholder when it has code; true when it wrote.
    pub fn ensure_highlighter(&self, id: &CourseId) -> Result<bool> {
        let Some(html) = self.read_course_document(id)? else { return Ok(false) };
        let Some(filled) = highlighter::fill(&html, HIGHLIGHTER) else { return Ok(false) };
        if filled.len() as u64 > limits::COURSE_DOCUMENT_BYTES {
            return Ok(false);
        }
        let path = self.course_document_path(id);
        devcoach_files::write(&path, filled.as_bytes(), devcoach_files::Overwrite::Replace)?;
        Ok(true)
    }
}

const COURSE_COLUMNS: &str =
    "id, lesson_id, topic_id, title, goal, prerequisites, status, created_at, updated_at, completed_at";

fn row_to_course(row: &Row<'_>) -> rusqlite::Result<Course> {
    let status: String = row.get(6)?;
    let prerequisites: String = row.get(5)?;
    Ok(Course {
        id: row.get(0)?,
        lesson_id: row.get(1)?,
        topic_id: row.get(2)?,
        title: row.get(3)?,
        goal: row.get(4)?,
        prerequisites: prerequisites_from_column(&prerequisites),
        status: CourseStatus::parse(&status).unwrap_or(CourseStatus::Active),
        created_at: row.get(7)?,
        updated_at: row.get(8)?,
        completed_at: row.get(9)?,
        steps: Vec::new(),
    })
}

fn steps_of(conn: &Connection, id: &str) -> rusqlite::Result<Vec<CourseStep>> {
    let mut stmt = conn.prepare_cached(
        "SELECT course_id, position, title, kind, anchor, status, done_at FROM course_steps WHERE course_id = ?1 ORDER BY position",
    )?;
    let rows = stmt.query_map([id], |r| {
        let kind: String = r.get(3)?;
        let status: String = r.get(5)?;
        Ok(CourseStep {
            course_id: r.get(0)?,
            position: r.get(1)?,
            title: r.get(2)?,
            kind: StepKind::parse(&kind).unwrap_or(StepKind::Concept),
            anchor: r.get(4)?,
            status: StepStatus::parse(&status).unwrap_or(StepStatus::Todo),
            done_at: r.get(6)?,
        })
    })?;
    rows.collect()
}

pub(crate) fn load_course(conn: &Connection, id: &str) -> rusqlite::Result<Option<Course>> {
    let Some(mut course) = conn
        .query_row(&format!("SELECT {COURSE_COLUMNS} FROM courses WHERE id = ?1"), [id], row_to_course)
        .optional()?
    else {
        return Ok(None);
    };
    course.steps = steps_of(conn, id)?;
    Ok(Some(course))
}

/// Applies the course status its steps imply, stamping `updated_at` either way.
fn settle(conn: &Connection, id: &str, now: &str) -> rusqlite::Result<()> {
    let Some(course) = load_course(conn, id)? else { return Ok(()) };
    let next = course.settled_status();
    if next == course.status {
        conn.execute("UPDATE courses SET updated_at = ?1 WHERE id = ?2", params![now, id])?;
    } else {
        let completed_at = (next == CourseStatus::Completed).then_some(now);
        conn.execute(
            "UPDATE courses SET status = ?1, completed_at = ?2, updated_at = ?3 WHERE id = ?4",
            params![next.as_str(), completed_at, now, id],
        )?;
    }
    Ok(())
}

impl Store {
    /// Creates a course (status active) and its folder. The id comes from the title, made unique
    /// against existing rows and folders.
    pub fn create_course(&mut self, new: &NewCourse, now: DateTime<Utc>) -> Result<Course> {
        if new.title.trim().is_empty() {
            return Err(CourseError::Empty("title").into());
        }
        if new.topic_id.trim().is_empty() {
            return Err(CourseError::Empty("topic_id").into());
        }
        let dir = self.data_dir().clone();
        let at = iso_ms(now);
        let course = self.write(|tx| {
            if let Some(lesson) = &new.lesson_id
                && crate::lessons::lesson_by_id(tx, lesson)?.is_none()
            {
                return Err(CourseError::LessonNotFound(lesson.clone()).into());
            }
            let base = CourseId::from_title(&new.title);
            let mut id = base.clone();
            let mut n = 1;
            while tx.query_row("SELECT EXISTS (SELECT 1 FROM courses WHERE id = ?1)", [id.as_str()], |r| {
                r.get::<_, bool>(0)
            })? || dir.course_dir(&id).exists()
            {
                n += 1;
                id = base.with_suffix(n);
            }
            tx.execute(
                &format!(
                    "INSERT INTO courses ({COURSE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'active', ?7, ?7, NULL)"
                ),
                params![
                    id.as_str(),
                    new.lesson_id,
                    new.topic_id.trim(),
                    new.title.trim(),
                    new.goal,
                    prerequisites_to_column(&new.prerequisites),
                    at
                ],
            )?;
            load_course(tx, id.as_str())?.ok_or_else(|| CourseError::NotFound(id.to_string()).into())
        })?;
        let id = CourseId::parse(&course.id)?;
        let path = dir.course_dir(&id);
        std::fs::create_dir_all(&path).map_err(|e| StoreError::io("cannot create the course folder", &path, e))?;
        Ok(course)
    }

    /// Registers the next section of the document as a step (after step `after`, or at the end).
    /// The document must exist and contain an element with `id="<anchor>"`.
    pub fn add_course_step(
        &mut self,
        id: &CourseId,
        title: &str,
        kind: StepKind,
        anchor: &str,
        after: Option<i64>,
        now: DateTime<Utc>,
    ) -> Result<(Course, CourseStep)> {
        check_anchor(anchor)?;
        if title.trim().is_empty() {
            return Err(CourseError::Empty("title").into());
        }
        let dir = self.data_dir().clone();
        let at = iso_ms(now);
        let result = self.write(|tx| {
            if load_course(tx, id.as_str())?.is_none() {
                return Err(CourseError::NotFound(id.to_string()).into());
            }
            let count: i64 = tx.query_row("SELECT COUNT(*) FROM course_steps WHERE course_id = ?1", [id.as_str()], |r| r.get(0))?;
            let after = after.unwrap_or(count);
            if !(0..=count).contains(&after) {
                return Err(CourseError::AfterOutOfRange(count).into());
            }
            let Some(html) = dir.read_course_document(id)? else {
                return Err(CourseError::NoDocument { id: id.to_string(), path: dir.course_document_path(id).display().to_string() }.into());
            };
            if !document_has_anchor(&html, anchor) {
                return Err(CourseError::AnchorMissing(anchor.to_owned()).into());
            }
            let taken: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM course_steps WHERE course_id = ?1 AND anchor = ?2)",
                params![id.as_str(), anchor],
                |r| r.get(0),
            )?;
            if taken {
                return Err(CourseError::AnchorTaken(anchor.to_owned()).into());
            }
            let position = after + 1;
            if position <= count {
                // Two hops keep (course_id, position) unique while shifting.
                tx.execute("UPDATE course_steps SET position = position + 100000 WHERE course_id = ?1 AND position >= ?2", params![id.as_str(), position])?;
                tx.execute("UPDATE course_steps SET position = position - 99999 WHERE course_id = ?1 AND position >= ?2", params![id.as_str(), position + 100_000])?;
            }
            tx.execute(
                "INSERT INTO course_steps (course_id, position, title, kind, anchor, status, done_at) VALUES (?1, ?2, ?3, ?4, ?5, 'todo', NULL)",
                params![id.as_str(), position, title.trim(), kind.as_str(), anchor],
            )?;
            settle(tx, id.as_str(), &at)?;
            let course = load_course(tx, id.as_str())?.ok_or_else(|| StoreError::from(CourseError::NotFound(id.to_string())))?;
            let step = course.steps.iter().find(|s| s.position == position).cloned().ok_or_else(|| StoreError::from(CourseError::StepNotFound(id.to_string(), position)))?;
            Ok((course, step))
        })?;
        dir.ensure_highlighter(id)?;
        Ok(result)
    }

    /// Marks a step; the course completes when every step is settled and reopens when one is
    /// back to `todo`. `None` when there is no such step.
    pub fn set_step_status(
        &mut self,
        id: &CourseId,
        position: i64,
        status: StepStatus,
        now: DateTime<Utc>,
    ) -> Result<Option<Course>> {
        let at = iso_ms(now);
        let course = self.write(|tx| {
            let done_at = (status == StepStatus::Done).then_some(at.as_str());
            let step: Option<(String, String, String)> = tx
                .query_row(
                    "SELECT c.topic_id, s.kind, s.status FROM course_steps s JOIN courses c ON c.id = s.course_id \
                     WHERE s.course_id = ?1 AND s.position = ?2",
                    params![id.as_str(), position],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            // A check step settled for the first time is evidence on the course's topic.
            if let Some((topic, kind, was)) = &step
                && kind == StepKind::Check.as_str()
                && was == StepStatus::Todo.as_str()
                && status != StepStatus::Todo
            {
                crate::topic_model::observe_item(
                    tx,
                    topic,
                    &format!("course:{}:{position}", id.as_str()),
                    devcoach_core::knowledge_model::Observation::CourseCheck(status == StepStatus::Done),
                    Some(&crate::knowledge::Because {
                        cause: devcoach_core::evidence::EvidenceCause::Course,
                        lesson_id: None,
                        detail: Some(id.as_str()),
                    }),
                    now,
                )?;
            }
            let n = tx.execute(
                "UPDATE course_steps SET status = ?1, done_at = ?2 WHERE course_id = ?3 AND position = ?4",
                params![status.as_str(), done_at, id.as_str(), position],
            )?;
            if n == 0 {
                return Ok(None);
            }
            settle(tx, id.as_str(), &at)?;
            Ok(load_course(tx, id.as_str())?)
        })?;
        if course.is_some() {
            self.data_dir().ensure_highlighter(id)?;
        }
        Ok(course)
    }

    /// Sets a course's own status. `None` when there is no such course.
    pub fn set_course_status(
        &mut self,
        id: &CourseId,
        status: CourseStatus,
        now: DateTime<Utc>,
    ) -> Result<Option<Course>> {
        let at = iso_ms(now);
        self.write(|tx| {
            let completed_at = (status == CourseStatus::Completed).then_some(at.as_str());
            let n = tx.execute(
                "UPDATE courses SET status = ?1, updated_at = ?2, completed_at = ?3 WHERE id = ?4",
                params![status.as_str(), at, completed_at, id.as_str()],
            )?;
            if n == 0 { Ok(None) } else { Ok(load_course(tx, id.as_str())?) }
        })
    }

    /// Deletes a course, its steps and its folder. True when it existed.
    pub fn delete_course(&mut self, id: &CourseId) -> Result<bool> {
        let existed = self.write(|tx| {
            tx.execute("DELETE FROM course_steps WHERE course_id = ?1", [id.as_str()])?;
            Ok(tx.execute("DELETE FROM courses WHERE id = ?1", [id.as_str()])? > 0)
        })?;
        let dir = self.data_dir().course_dir(id);
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_dir()) {
            std::fs::remove_dir_all(&dir).map_err(|e| StoreError::io("cannot remove the course folder", &dir, e))?;
        }
        Ok(existed)
    }

    pub fn course(&self, id: &CourseId) -> Result<Option<Course>> {
        Ok(load_course(self.conn(), id.as_str())?)
    }

    /// Courses, most recently updated first.
    pub fn courses(&self, filter: &CourseFilter) -> Result<Vec<Course>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {COURSE_COLUMNS} FROM courses WHERE (?1 IS NULL OR id = ?1) AND (?2 IS NULL OR lesson_id = ?2) \
             AND (?3 IS NULL OR status = ?3) ORDER BY updated_at DESC, id"
        ))?;
        let rows = stmt.query_map(
            params![filter.course_id, filter.lesson_id, filter.status.map(CourseStatus::as_str)],
            row_to_course,
        )?;
        let mut out = rows.collect::<rusqlite::Result<Vec<_>>>()?;
        for c in &mut out {
            c.steps = steps_of(self.conn(), &c.id)?;
        }
        Ok(out)
    }
}
