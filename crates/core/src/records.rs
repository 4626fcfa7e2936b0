//! What a stored record must be, column by column: one rule set for every door that writes rows
//! it did not make itself. A restore checks our own tables' rows with these columns, and sync
//! checks every record another device sends (`check`), so a hostile folder cannot store what the
//! CLI, the MCP server or the dashboard would refuse: an out-of-range setting, a 70,000-character
//! topic, a timestamp that is not one, a grade of 9.

use serde_json::Value;

use crate::limits::{
    CATEGORIES, CATEGORY_CHARS, CONTEXT_CHARS, GROUP_CHARS, LESSON_ID_CHARS, SHARE_NAME_CHARS, SUMMARY_CHARS,
    TITLE_CHARS, TOPIC_CHARS,
};
use crate::sync::Row;
use crate::time::{iso_ms, parse_timestamp};

/// What a column holds, and what a value from outside must be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Column {
    /// Text of 1 to `max` bytes.
    Text {
        max: usize,
    },
    /// Text of at most `max` bytes, possibly empty (a setting cleared, a lesson field another
    /// build left blank).
    Blank {
        max: usize,
    },
    Int {
        min: i64,
        max: i64,
    },
    Real {
        min: f64,
        max: f64,
    },
    /// A timestamp (normalised to milliseconds where a value is rewritten).
    Stamp,
    /// A topic id, by the topic rule every front end applies.
    Topic,
}

/// A column of a table: name, rule, whether it may be null.
pub type ColumnRule = (&'static str, Column, bool);

const TEXT: Column = Column::Text { max: 4096 };
const LONG_TEXT: Column = Column::Text { max: 16 * 1024 };
const WORD: Column = Column::Text { max: 32 };
const COUNT: Column = Column::Int { min: 0, max: 1_000_000_000 };
const STABILITY: Column = Column::Real { min: 0.001, max: 1.0e7 };
const DIFFICULTY: Column = Column::Real { min: 1.0, max: 10.0 };
const PROBABILITY: Column = Column::Real { min: 0.0, max: 1.0 };
const CONFIDENCE: Column = Column::Int { min: 0, max: 10 };

pub const EVIDENCE: &[ColumnRule] = &[
    ("topic", Column::Topic, false),
    ("delta", Column::Int { min: -10, max: 10 }, true),
    ("value_after", CONFIDENCE, true),
    ("cause", WORD, false),
    ("lesson_id", TEXT, true),
    ("detail", TEXT, true),
    ("at", Column::Stamp, false),
];

pub const TOPIC_MODEL: &[ColumnRule] = &[
    ("topic", Column::Topic, false),
    ("learned", PROBABILITY, false),
    ("stability", STABILITY, false),
    ("difficulty", DIFFICULTY, false),
    ("last_at", Column::Stamp, false),
    ("evidence", COUNT, false),
];

pub const REVIEW_CARDS: &[ColumnRule] = &[
    ("lesson_id", TEXT, false),
    ("question", LONG_TEXT, false),
    ("answer", LONG_TEXT, false),
    ("source", WORD, false),
    ("stability", STABILITY, true),
    ("difficulty", DIFFICULTY, true),
    ("due", Column::Stamp, false),
    ("last_review", Column::Stamp, true),
    ("reps", COUNT, false),
    ("lapses", COUNT, false),
    ("created_at", Column::Stamp, false),
];

pub const LESSON_KINDS: &[ColumnRule] = &[("lesson_id", TEXT, false), ("kind", WORD, false)];

pub const HANDSON: &[ColumnRule] = &[
    ("lesson_id", TEXT, false),
    ("language", WORD, false),
    ("result", WORD, false),
    ("checks", COUNT, false),
    ("hints", Column::Int { min: 0, max: 100 }, false),
    ("at", Column::Stamp, false),
];

pub const REVIEW_LOG: &[ColumnRule] = &[
    ("lesson_id", TEXT, false),
    ("grade", Column::Int { min: 1, max: 4 }, false),
    ("reviewed_at", Column::Stamp, false),
    ("elapsed_days", COUNT, false),
    ("interval_days", COUNT, false),
    ("retrievability", PROBABILITY, true),
    ("stability", STABILITY, false),
    ("difficulty", DIFFICULTY, false),
];

pub const CHECKED_ANSWERS: &[ColumnRule] = &[
    ("lesson_id", TEXT, false),
    ("topic", Column::Topic, false),
    ("kind", WORD, false),
    ("grade", WORD, false),
    ("answer", TEXT, false),
    ("missing", TEXT, true),
    ("at", Column::Stamp, false),
];

pub const WORK_SESSIONS: &[ColumnRule] = &[
    ("agent", WORD, false),
    ("session_id", TEXT, false),
    ("first_at", Column::Stamp, false),
    ("last_at", Column::Stamp, false),
    ("prompts", COUNT, false),
    ("questions", COUNT, false),
    ("questions_after_edit", COUNT, false),
    ("error_reports", COUNT, false),
    ("combined", COUNT, false),
    ("own_code", COUNT, false),
    ("agent_edits", COUNT, false),
    ("pattern", WORD, true),
];

const LESSONS: &[ColumnRule] = &[
    ("id", Column::Text { max: LESSON_ID_CHARS * 4 }, false),
    ("timestamp", Column::Stamp, false),
    ("topic_id", Column::Text { max: TOPIC_CHARS * 4 }, false),
    ("categories", Column::Text { max: CATEGORIES * (CATEGORY_CHARS * 4 + 4) + 2 }, false),
    ("title", Column::Text { max: TITLE_CHARS * 4 }, false),
    ("level", WORD, false),
    ("summary", Column::Blank { max: SUMMARY_CHARS * 4 }, false),
    ("body", Column::Blank { max: crate::limits::BODY_CHARS * 4 }, true),
    ("task_context", Column::Blank { max: CONTEXT_CHARS * 4 }, true),
    ("project", Column::Blank { max: CONTEXT_CHARS * 4 }, true),
    ("repository", Column::Blank { max: CONTEXT_CHARS * 4 }, true),
    ("branch", Column::Blank { max: CONTEXT_CHARS * 4 }, true),
    ("commit_hash", Column::Blank { max: CONTEXT_CHARS * 4 }, true),
    ("folder", Column::Blank { max: CONTEXT_CHARS * 4 }, true),
    ("feedback", WORD, true),
    ("repository_platform", WORD, true),
    ("starred", Column::Int { min: 0, max: 1 }, false),
    ("imported", Column::Int { min: 0, max: 1 }, false),
    ("shared_by", Column::Blank { max: SHARE_NAME_CHARS * 4 }, true),
];

const KNOWLEDGE: &[ColumnRule] =
    &[("topic", Column::Topic, false), ("confidence", CONFIDENCE, false), ("updated_at", Column::Stamp, false)];

const COURSES: &[ColumnRule] = &[
    ("id", TEXT, false),
    ("lesson_id", Column::Text { max: LESSON_ID_CHARS * 4 }, true),
    ("topic_id", Column::Text { max: TOPIC_CHARS * 4 }, false),
    ("title", Column::Text { max: TITLE_CHARS * 4 }, false),
    ("goal", Column::Blank { max: SUMMARY_CHARS * 4 }, true),
    ("prerequisites", LONG_TEXT, false),
    ("status", WORD, false),
    ("created_at", Column::Stamp, false),
    ("updated_at", Column::Stamp, false),
    ("completed_at", Column::Stamp, true),
];

const COURSE_STEPS: &[ColumnRule] = &[
    ("course_id", TEXT, false),
    ("position", Column::Int { min: 1, max: 10_000 }, false),
    ("title", Column::Text { max: TITLE_CHARS * 4 }, false),
    ("kind", WORD, false),
    ("anchor", Column::Text { max: 200 }, false),
    ("status", WORD, false),
    ("done_at", Column::Stamp, true),
];

const SETTING: &[ColumnRule] =
    &[("key", Column::Text { max: 64 }, false), ("value", Column::Blank { max: 4096 }, false)];

/// The value a column stores for `v`, or `None` when it does not fit: texts as given, stamps in
/// milliseconds, topics by the topic rule.
pub fn checked(column: Column, nullable: bool, v: Option<&Value>) -> Option<Value> {
    let v = match v {
        None | Some(Value::Null) => return nullable.then_some(Value::Null),
        Some(v) => v,
    };
    match column {
        Column::Text { max } => {
            let s = v.as_str()?;
            (s.len() <= max && !s.is_empty()).then(|| Value::from(s))
        }
        Column::Blank { max } => {
            let s = v.as_str()?;
            (s.len() <= max).then(|| Value::from(s))
        }
        Column::Int { min, max } => v.as_i64().filter(|n| (min..=max).contains(n)).map(Value::from),
        Column::Real { min, max } => v
            .as_f64()
            .filter(|f| f.is_finite() && (min..=max).contains(f))
            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number)),
        Column::Stamp => parse_timestamp(v.as_str()?).ok().map(|t| Value::from(iso_ms(t))),
        Column::Topic => crate::knowledge::topic_id(v.as_str()?).ok().map(Value::from),
    }
}

/// Why a record of `table`, as another device sent it, is not one this build would store;
/// `Ok` when it is. Values must already be in their stored form (a topic as the topic rule
/// writes it), so a record is never rewritten on the way in, only refused.
pub fn check(table: &str, row: &Row) -> Result<(), String> {
    let columns: &[ColumnRule] = match table {
        "lessons" => LESSONS,
        "knowledge" => KNOWLEDGE,
        "settings" | "ext_settings" => SETTING,
        "knowledge_group_names" => &[("group_name", Column::Text { max: GROUP_CHARS * 4 }, false)],
        "knowledge_groups" => {
            &[("group_name", Column::Text { max: GROUP_CHARS * 4 }, false), ("topic", Column::Topic, false)]
        }
        "courses" => COURSES,
        "course_steps" => COURSE_STEPS,
        "ext_evidence" => EVIDENCE,
        "ext_topic_model" => TOPIC_MODEL,
        "ext_review_cards" => REVIEW_CARDS,
        "ext_lesson_kinds" => LESSON_KINDS,
        "ext_handson" => HANDSON,
        "ext_review_log" => REVIEW_LOG,
        "ext_checked_answers" => CHECKED_ANSWERS,
        "ext_work_sessions" => WORK_SESSIONS,
        _ => &[],
    };
    for (name, column, nullable) in columns {
        let given = row.get(*name);
        // A column this device's build lacks is not there to check (an older file).
        if given.is_none() {
            continue;
        }
        let Some(stored) = checked(*column, *nullable, given) else {
            return Err(format!("{name} is not a valid value"));
        };
        // Stamps may be written with or without milliseconds; any other rewrite means the value
        // is not in its stored form (a topic the topic rule would change).
        if *column == Column::Topic && given != Some(&stored) {
            return Err(format!("{name} is not a topic as devcoach writes one"));
        }
    }
    let text = |name: &str| row.get(name).and_then(Value::as_str);
    let bad = |what: &str| Err(format!("{what} is not a valid value"));
    match table {
        "lessons" => {
            let chars = |name: &str, max: usize| text(name).is_none_or(|t| t.chars().count() <= max);
            let fits = chars("id", LESSON_ID_CHARS)
                && text("id").is_none_or(|t| !t.trim().is_empty())
                && chars("topic_id", TOPIC_CHARS)
                && chars("title", TITLE_CHARS)
                && chars("summary", SUMMARY_CHARS)
                && chars("body", crate::limits::BODY_CHARS);
            if !fits {
                return Err("a field is longer than a lesson's field may be".into());
            }
            if text("level").is_some_and(|l| crate::lesson::Level::parse(l).is_err()) {
                return bad("level");
            }
            if text("feedback").is_some_and(|f| crate::lesson::Feedback::parse(f).is_err()) {
                return bad("feedback");
            }
            if text("repository_platform").is_some_and(|p| crate::lesson::Platform::parse(p).is_err()) {
                return bad("repository_platform");
            }
            if let Some(raw) = text("categories") {
                let ok = serde_json::from_str::<Vec<String>>(raw)
                    .is_ok_and(|c| c.len() <= CATEGORIES && c.iter().all(|c| c.chars().count() <= CATEGORY_CHARS));
                if !ok {
                    return bad("categories");
                }
            }
        }
        "settings" => {
            let (Some(key), Some(value)) = (text("key"), text("value")) else { return bad("setting") };
            // A key this build does not know (an older devcoach's, a newer one's) is read by
            // nothing here: it is kept as text, within the column's size.
            let Some(key) = crate::settings::SettingKey::parse(key) else { return Ok(()) };
            match crate::settings::SettingUpdate::new(key, value) {
                Ok(update) if update.stored == value => {}
                _ => return Err(format!("{} = {value:?} is not a valid value", key.as_str())),
            }
        }
        "ext_settings" => {
            let (Some(key), Some(value)) = (text("key"), text("value")) else { return bad("setting") };
            let ok = match key {
                "review_retention" => {
                    value.parse::<f64>().is_ok_and(|r| crate::fsrs::Scheduler::with_retention(r).is_ok())
                }
                "review_mix" => crate::review::ReviewMix::parse(value).is_some(),
                "review_parameters" => value
                    .split(',')
                    .map(|v| v.trim().parse::<f64>().ok())
                    .collect::<Option<Vec<f64>>>()
                    .is_some_and(|v| crate::fsrs::Parameters::new(&v).is_ok()),
                "share_link_base" => {
                    crate::share::text::parse_link_base(value).is_ok_and(|b| b.as_deref() == Some(value))
                }
                _ => true,
            };
            if !ok {
                return Err(format!("{key} = {value:?} is not a valid value"));
            }
        }
        "knowledge_group_names" | "knowledge_groups" => {
            let name = text("group_name").unwrap_or_default();
            if crate::knowledge::new_group_name(name).ok().as_deref() != Some(name) {
                return bad("group_name");
            }
        }
        "courses" => {
            if text("id").is_some_and(|id| crate::course::CourseId::parse(id).is_err()) {
                return bad("id");
            }
            if text("status").is_some_and(|s| crate::course::CourseStatus::parse(s).is_err()) {
                return bad("status");
            }
        }
        "course_steps" => {
            if text("course_id").is_some_and(|id| crate::course::CourseId::parse(id).is_err()) {
                return bad("course_id");
            }
            if text("kind").is_some_and(|k| crate::course::StepKind::parse(k).is_err()) {
                return bad("kind");
            }
            if text("status").is_some_and(|s| crate::course::StepStatus::parse(s).is_err()) {
                return bad("status");
            }
            if text("anchor").is_some_and(|a| crate::course::check_anchor(a).is_err()) {
                return bad("anchor");
            }
        }
        "ext_evidence" if text("cause").is_some_and(|c| crate::evidence::EvidenceCause::parse(c).is_none()) => {
            return bad("cause");
        }
        "ext_handson" if text("result").is_some_and(|r| !crate::handson::RESULTS.contains(&r)) => {
            return bad("result");
        }
        "ext_checked_answers" => {
            if text("kind").is_some_and(|k| crate::checked::CheckKind::parse(k).is_none()) {
                return bad("kind");
            }
            if text("grade").is_some_and(|g| crate::checked::CheckGrade::parse(g).is_none()) {
                return bad("grade");
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pairs: &[(&str, Value)]) -> Row {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
    }

    #[test]
    fn what_every_other_door_refuses_is_refused_here_too() {
        let refused = [
            ("settings", row(&[("key", "max_per_day".into()), ("value", "-7".into())])),
            ("settings", row(&[("key", "nudge_scope".into()), ("value", "planet".into())])),
            (
                "knowledge",
                row(&[
                    ("topic", "t".repeat(70_000).into()),
                    ("confidence", 5.into()),
                    ("updated_at", "2026-12-01T00:00:00.000Z".into()),
                ]),
            ),
            (
                "knowledge",
                row(&[
                    ("topic", "Rust".into()),
                    ("confidence", 5.into()),
                    ("updated_at", "2026-12-01T00:00:00.000Z".into()),
                ]),
            ),
            (
                "knowledge",
                row(&[("topic", "rust".into()), ("confidence", 5.into()), ("updated_at", "not a date".into())]),
            ),
            ("ext_review_log", row(&[("lesson_id", "a".into()), ("grade", 9.into())])),
            ("ext_review_cards", row(&[("lesson_id", "a".into()), ("reps", (-3).into())])),
            ("lessons", row(&[("id", "x".repeat(201).into())])),
            ("lessons", row(&[("id", "ok".into()), ("level", "wizard".into())])),
            ("lessons", row(&[("id", "ok".into()), ("categories", "not json".into())])),
            ("knowledge_groups", row(&[("group_name", "Other".into()), ("topic", "rust".into())])),
            ("course_steps", row(&[("course_id", "../../etc".into())])),
            ("ext_settings", row(&[("key", "share_link_base".into()), ("value", "javascript:alert(1)".into())])),
            ("ext_checked_answers", row(&[("grade", "perfect".into())])),
            ("ext_handson", row(&[("result", "flawless".into())])),
            ("ext_handson", row(&[("hints", 7000.into())])),
            ("ext_handson", row(&[("checks", (-1).into())])),
        ];
        for (table, r) in &refused {
            assert!(check(table, r).is_err(), "{table} {r:?}");
        }
        let stored = [
            ("settings", row(&[("key", "max_per_day".into()), ("value", "3".into())])),
            (
                "knowledge",
                row(&[
                    ("topic", "rust".into()),
                    ("confidence", 5.into()),
                    ("updated_at", "2026-12-01T00:00:00Z".into()),
                ]),
            ),
            (
                "lessons",
                row(&[
                    ("id", "../../etc/evil".into()),
                    ("level", "mid".into()),
                    ("categories", "[\"rust\"]".into()),
                    ("starred", 1.into()),
                ]),
            ),
            ("ext_settings", row(&[("key", "review_mix".into()), ("value", "reviews_first".into())])),
            ("settings", row(&[("key", "min_hours_between".into()), ("value", "2".into())])),
        ];
        for (table, r) in &stored {
            assert_eq!(check(table, r), Ok(()), "{table} {r:?}");
        }
        // What every fresh database holds (a blank share name included), and blank free text.
        for (key, value) in crate::settings::DEFAULTS {
            let r = row(&[("key", key.into()), ("value", value.into())]);
            assert_eq!(check("settings", &r), Ok(()), "{key}");
        }
        let blank = row(&[("id", "a".into()), ("summary", "".into()), ("body", "".into()), ("shared_by", "".into())]);
        assert_eq!(check("lessons", &blank), Ok(()));
    }
}
