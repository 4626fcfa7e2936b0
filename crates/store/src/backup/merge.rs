//! How each part of a backup is merged into what is here: settings, pacing, knowledge and
//! confidence, the notebook, courses, practice files.

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use devcoach_core::course::{CourseId, prerequisites_to_column};
use devcoach_core::evidence::EvidenceCause;
use devcoach_core::knowledge::{self, GroupTarget};
use devcoach_core::limits;
use devcoach_core::review::ReviewMix;
use devcoach_core::settings::{SettingKey, SettingUpdate};
use devcoach_core::time::iso_ms;
use devcoach_files::{Links, Overwrite};
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use super::{HISTORY_ENTRY, RestoreOutcome, SESSIONS_PREFIX};
use crate::error::StoreError;
use crate::knowledge::{Because, write_confidence};
use crate::{DataDir, Result};

/// `topic → updated_at` from our knowledge entry.
pub(super) fn knowledge_times(v: Option<&Value>) -> HashMap<String, String> {
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

pub(super) fn restore_review_settings(conn: &Connection, s: &Value) -> Result<()> {
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
pub(super) fn replace_notebook(dir: &DataDir, text: &str, now: DateTime<Utc>) -> Result<Option<PathBuf>> {
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
pub(super) fn restore_practice_file(dir: &DataDir, name: &str, bytes: &[u8]) -> Result<bool> {
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

fn set_raw(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )
    .map(drop)
}

pub(super) fn restore_settings(conn: &Connection, s: &Value) -> Result<()> {
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
pub(super) fn restore_pacing(conn: &Connection, s: &Value) -> Result<()> {
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

pub(super) fn restore_knowledge(
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
pub(super) fn restore_courses(conn: &Connection, c: &Value, out: &mut RestoreOutcome) -> Result<Vec<String>> {
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
