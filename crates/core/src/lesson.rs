//! Lessons: the record the agent writes after a task, in the 19-key shape every surface shares
//! (MCP results, `--json`, backups, legacy JSON exports).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use crate::git::GitContext;
use crate::ids::LessonId;
use crate::time::{self, TimestampError};

/// Why a lesson record was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LessonError {
    #[error("`{0}` is required")]
    Missing(&'static str),
    #[error("`{field}` must be {expected}")]
    WrongType { field: &'static str, expected: &'static str },
    #[error("`{field}` must be one of {allowed}, got {got:?}")]
    NotAllowed { field: &'static str, allowed: &'static str, got: String },
    #[error(transparent)]
    Timestamp(#[from] TimestampError),
    #[error("a lesson must be a JSON object")]
    NotAnObject,
}

macro_rules! text_enum {
    ($(#[$meta:meta])* $name:ident, $field:literal { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(inline))]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// Parses the stored/wire spelling.
            pub fn parse(raw: &str) -> Result<Self, LessonError> {
                match raw {
                    $($text => Ok($name::$variant),)+
                    other => Err(LessonError::NotAllowed {
                        field: $field,
                        allowed: concat!($($text, " "),+).trim_ascii_end(),
                        got: other.to_owned(),
                    }),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

text_enum!(
    /// How deep a lesson goes.
    Level, "level" { Junior = "junior", Mid = "mid", Senior = "senior" }
);
text_enum!(
    /// What the learner said after reading a lesson.
    Feedback, "feedback" { Know = "know", Understood = "understood", DontKnow = "dont_know" }
);
text_enum!(
    /// Where the repository lives; `local` means its `repository` is a path or an unknown host.
    Platform, "repository_platform" { Github = "github", Gitlab = "gitlab", Bitbucket = "bitbucket", Local = "local" }
);

impl Level {
    /// `Junior`, `Mid`, `Senior`: how the card's title line spells it.
    pub fn capitalized(self) -> &'static str {
        match self {
            Self::Junior => "Junior",
            Self::Mid => "Mid",
            Self::Senior => "Senior",
        }
    }
}

/// Where a lesson happened: the task in a sentence, then where in git (see [`GitContext`]). Every
/// field is optional; `folder` is a local path and never leaves the machine. Flattened into a
/// lesson's JSON, its keys sit between `body` and `starred`, in this order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LessonContext {
    pub task_context: Option<String>,
    #[serde(flatten)]
    pub git: GitContext,
}

/// A lesson as stored, in the column and JSON key order of the shared schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Lesson {
    pub id: String,
    /// When it was taught, UTC (`2026-05-01T14:30:00Z`).
    pub timestamp: String,
    pub topic_id: String,
    pub categories: Vec<String>,
    pub title: String,
    pub level: Level,
    pub summary: String,
    pub body: Option<String>,
    #[serde(flatten)]
    pub context: LessonContext,
    pub starred: bool,
    pub feedback: Option<Feedback>,
    /// True for a lesson someone shared with the learner.
    pub imported: bool,
    pub shared_by: Option<String>,
}

/// What the agent gives `log_lesson`; the store stamps the time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLesson {
    pub id: LessonId,
    pub topic_id: String,
    pub categories: Vec<String>,
    pub title: String,
    pub level: Level,
    pub summary: String,
    pub body: String,
    pub context: LessonContext,
}

impl NewLesson {
    /// The stored lesson, stamped at `now`: own lesson, not starred, no feedback yet.
    pub fn into_lesson(self, now: DateTime<Utc>) -> Lesson {
        Lesson {
            id: self.id.into_string(),
            timestamp: time::lesson_stamp(now),
            topic_id: self.topic_id,
            categories: self.categories,
            title: self.title,
            level: self.level,
            summary: self.summary,
            body: Some(self.body),
            context: self.context,
            starred: false,
            feedback: None,
            imported: false,
            shared_by: None,
        }
    }
}

/// A valid lesson to start a test or benchmark from, so each one names only the fields it is
/// about: `Lesson { starred: true, ..Lesson::example("a") }`, or the setters below.
#[cfg(any(test, feature = "testing"))]
impl Lesson {
    /// An own lesson `id` on topic `rust`, taught 2026-05-01, with a body; no context, not
    /// starred, no feedback.
    #[must_use]
    pub fn example(id: &str) -> Self {
        Self {
            id: id.to_owned(),
            timestamp: "2026-05-01T10:00:00Z".to_owned(),
            topic_id: "rust".to_owned(),
            categories: vec!["rust".to_owned()],
            title: format!("Lesson {id}"),
            level: Level::Mid,
            summary: "Shared or unique, never both.".to_owned(),
            body: Some("A reference is shared or unique.".to_owned()),
            context: LessonContext::default(),
            starred: false,
            feedback: None,
            imported: false,
            shared_by: None,
        }
    }

    /// Stamped at `at` (the stored form, `2026-05-01T10:00:00Z`).
    #[must_use]
    pub fn at(self, at: DateTime<Utc>) -> Self {
        Self { timestamp: time::lesson_stamp(at), ..self }
    }

    #[must_use]
    pub fn on_topic(self, topic_id: &str) -> Self {
        Self { topic_id: topic_id.to_owned(), categories: vec![topic_id.to_owned()], ..self }
    }

    /// Where it happened in git.
    #[must_use]
    pub fn in_git(mut self, git: GitContext) -> Self {
        self.context.git = git;
        self
    }
}

impl Lesson {
    /// Validates a lesson record from outside (a backup's `lessons.json`, a legacy JSON export):
    /// the same rules as the original's lesson schema. Optional text fields may be missing or
    /// null; `starred`/`imported` default to false; the timestamp is normalised.
    pub fn from_record(value: &Value, now: DateTime<Utc>) -> Result<Self, LessonError> {
        let obj = value.as_object().ok_or(LessonError::NotAnObject)?;
        let id = required_str(obj, "id")?;
        if id.trim().is_empty() {
            return Err(LessonError::Missing("id"));
        }
        let timestamp = time::normalize_lesson_timestamp(&required_str(obj, "timestamp")?, now)?;
        let categories = match obj.get("categories") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or(LessonError::WrongType { field: "categories", expected: "an array of strings" })?,
            Some(_) => {
                return Err(LessonError::WrongType { field: "categories", expected: "an array of strings" });
            }
            None => return Err(LessonError::Missing("categories")),
        };
        Ok(Self {
            id,
            timestamp,
            topic_id: required_str(obj, "topic_id")?,
            categories,
            title: required_str(obj, "title")?,
            level: Level::parse(&required_str(obj, "level")?)?,
            summary: required_str(obj, "summary")?,
            body: optional_str(obj, "body")?,
            context: LessonContext {
                task_context: optional_str(obj, "task_context")?,
                git: GitContext {
                    project: optional_str(obj, "project")?,
                    repository: optional_str(obj, "repository")?,
                    branch: optional_str(obj, "branch")?,
                    commit_hash: optional_str(obj, "commit_hash")?,
                    folder: optional_str(obj, "folder")?,
                    repository_platform: optional_str(obj, "repository_platform")?
                        .as_deref()
                        .map(Platform::parse)
                        .transpose()?,
                },
            },
            starred: optional_bool(obj, "starred")?,
            feedback: optional_str(obj, "feedback")?.as_deref().map(Feedback::parse).transpose()?,
            imported: optional_bool(obj, "imported")?,
            shared_by: optional_str(obj, "shared_by")?,
        })
    }
}

fn required_str(obj: &Map<String, Value>, field: &'static str) -> Result<String, LessonError> {
    match obj.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Null) | None => Err(LessonError::Missing(field)),
        Some(_) => Err(LessonError::WrongType { field, expected: "a string" }),
    }
}

fn optional_str(obj: &Map<String, Value>, field: &'static str) -> Result<Option<String>, LessonError> {
    match obj.get(field) {
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Null) | None => Ok(None),
        Some(_) => Err(LessonError::WrongType { field, expected: "a string or null" }),
    }
}

fn optional_bool(obj: &Map<String, Value>, field: &'static str) -> Result<bool, LessonError> {
    match obj.get(field) {
        Some(Value::Bool(b)) => Ok(*b),
        None => Ok(false),
        Some(_) => Err(LessonError::WrongType { field, expected: "true or false" }),
    }
}

/// Reads the stored `categories` column: a JSON array of strings; anything else reads as empty
/// (a damaged row must not hide the lesson).
pub fn categories_from_column(raw: &str) -> Vec<String> {
    if let Some(list) = plain_string_array(raw) {
        return list;
    }
    // An array of strings parses without building a JSON tree.
    if let Ok(list) = serde_json::from_str::<Vec<String>>(raw) {
        return list;
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Array(items)) => items.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect(),
        _ => Vec::new(),
    }
}

/// Appends the stored `categories` column's names to `out`, `sep` between them: what
/// `categories_from_column(raw).join(sep)` gives, without a list or a copy of each name when
/// the column is plain (a table writes one per row).
pub fn push_categories_joined(raw: &str, sep: &str, out: &mut String) {
    let start = out.len();
    let mut first = true;
    let plain = visit_plain_strings(raw, |name| {
        if !first {
            out.push_str(sep);
        }
        first = false;
        out.push_str(name);
    });
    if !plain {
        out.truncate(start);
        out.push_str(&categories_from_column(raw).join(sep));
    }
}

/// An array of plain strings (`["a","b"]` as both builds write it, `["a", "b"]` as Python's
/// json writes it; nothing escaped), read without a JSON parser: every list reads one per row.
/// Anything else is left to serde.
fn plain_string_array(raw: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    visit_plain_strings(raw, |name| out.push(name.to_owned())).then_some(out)
}

/// Calls `f` with each name of a plain string array (see [`plain_string_array`]), and says
/// whether `raw` was one. On `false`, `f` may have seen a start of it: callers undo that.
fn visit_plain_strings<'a>(raw: &'a str, mut f: impl FnMut(&'a str)) -> bool {
    let bytes = raw.as_bytes();
    if bytes.iter().any(|&b| b == b'\\' || b < 0x20) {
        return false;
    }
    let skip = |mut i: usize| {
        while bytes.get(i) == Some(&b' ') {
            i += 1;
        }
        i
    };
    let mut i = skip(0);
    if bytes.get(i) != Some(&b'[') {
        return false;
    }
    i = skip(i + 1);
    if bytes.get(i) == Some(&b']') {
        return skip(i + 1) == bytes.len();
    }
    loop {
        if bytes.get(i) != Some(&b'"') {
            return false;
        }
        let Some(len) = bytes[i + 1..].iter().position(|&b| b == b'"') else { return false };
        let Some(name) = raw.get(i + 1..i + 1 + len) else { return false };
        f(name);
        i = skip(i + 2 + len);
        match bytes.get(i) {
            Some(b',') => i = skip(i + 1),
            Some(b']') => return skip(i + 1) == bytes.len(),
            _ => return false,
        }
    }
}

/// Writes `categories` the way the original does (`JSON.stringify`, compact).
pub fn categories_to_column(categories: &[String]) -> String {
    serde_json::to_string(categories).unwrap_or_else(|_| "[]".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    proptest::proptest! {
        /// The plain reader gives what serde gives, whenever it reads anything at all.
        #[test]
        fn plain_categories_read_as_serde_reads_them(
            list in proptest::collection::vec("[a-z ,\"\\\\\u{1}é]{0,6}", 0..4),
            raw in "[\\[\\]\",a-z\\\\ \t]{0,16}",
        ) {
            let written = categories_to_column(&list);
            proptest::prop_assert_eq!(categories_from_column(&written), list);
            for text in [written.as_str(), raw.as_str()] {
                if let Some(plain) = plain_string_array(text) {
                    proptest::prop_assert_eq!(Some(plain), serde_json::from_str::<Vec<String>>(text).ok(), "{}", text);
                }
            }
        }

        /// The joined names a table shows are the names the column reads as, whatever its form,
        /// and what was in the buffer before stays.
        #[test]
        fn joined_categories_are_the_read_ones_joined(
            list in proptest::collection::vec("[a-z ,\"\\\\\u{1}é]{0,6}", 0..4),
            raw in "[\\[\\]\",a-z\\\\ \t]{0,16}",
            python in proptest::bool::ANY,
        ) {
            let mut written = categories_to_column(&list);
            if python {
                written = written.replace("\",\"", "\", \"");
            }
            for text in [written.as_str(), raw.as_str()] {
                let mut out = String::from("before|");
                push_categories_joined(text, ", ", &mut out);
                proptest::prop_assert_eq!(out, format!("before|{}", categories_from_column(text).join(", ")), "{}", text);
            }
        }
    }

    fn now() -> DateTime<Utc> {
        time::parse_timestamp("2026-11-30T12:00:00Z").expect("fixed now")
    }

    fn record() -> Value {
        json!({
            "id": "borrow-checker", "timestamp": "2026-05-01 10:00:00", "topic_id": "rust",
            "categories": ["rust", "memory"], "title": "Borrowing", "level": "mid",
            "summary": "Shared or unique, never both."
        })
    }

    #[test]
    fn a_minimal_record_gets_defaults() {
        let lesson = Lesson::from_record(&record(), now()).expect("valid");
        assert_eq!(lesson.timestamp, "2026-05-01T10:00:00Z");
        assert!(!lesson.starred && !lesson.imported);
        assert_eq!((lesson.body, lesson.feedback, lesson.context.git.folder), (None, None, None));
    }

    #[test]
    fn json_has_the_19_keys_in_order() {
        let lesson = Lesson::from_record(&record(), now()).expect("valid");
        let text = serde_json::to_string(&lesson).expect("serialises");
        let keys: Vec<String> =
            serde_json::from_str::<serde_json::Map<String, Value>>(&text).expect("object").keys().cloned().collect();
        // serde_json's Map keeps insertion order only with preserve_order, so check the text.
        let order = [
            "id",
            "timestamp",
            "topic_id",
            "categories",
            "title",
            "level",
            "summary",
            "body",
            "task_context",
            "project",
            "repository",
            "branch",
            "commit_hash",
            "folder",
            "repository_platform",
            "starred",
            "feedback",
            "imported",
            "shared_by",
        ];
        assert_eq!(keys.len(), 19);
        let mut last = 0;
        for key in order {
            let at = text.find(&format!("\"{key}\":")).expect("key present");
            assert!(at >= last, "{key} out of order");
            last = at;
        }
    }

    #[test]
    fn bad_records_say_why() {
        let mut r = record();
        r["level"] = json!("expert");
        assert!(matches!(Lesson::from_record(&r, now()), Err(LessonError::NotAllowed { field: "level", .. })));
        let mut r = record();
        r["starred"] = json!(null);
        assert!(matches!(Lesson::from_record(&r, now()), Err(LessonError::WrongType { field: "starred", .. })));
        let mut r = record();
        r["categories"] = json!("rust");
        assert!(Lesson::from_record(&r, now()).is_err());
        let mut r = record();
        r["timestamp"] = json!("soon");
        assert!(matches!(Lesson::from_record(&r, now()), Err(LessonError::Timestamp(_))));
        assert_eq!(Lesson::from_record(&json!([1]), now()), Err(LessonError::NotAnObject));
        let mut r = record();
        r.as_object_mut().expect("object").remove("summary");
        assert_eq!(Lesson::from_record(&r, now()), Err(LessonError::Missing("summary")));
    }

    #[test]
    fn categories_column_is_forgiving() {
        assert_eq!(categories_from_column(r#"["a","b"]"#), vec!["a", "b"]);
        assert!(categories_from_column("not json").is_empty());
        assert!(categories_from_column(r#"{"a":1}"#).is_empty());
        assert_eq!(categories_to_column(&["a".into(), "b\"c".into()]), r#"["a","b\"c"]"#);
    }

    #[test]
    fn enums_round_trip() {
        for (v, name) in Feedback::ALL.iter().zip(Feedback::NAMES) {
            assert_eq!(Feedback::parse(name), Ok(*v));
        }
        assert_eq!(Level::Mid.capitalized(), "Mid");
        assert!(Platform::parse("sourcehut").is_err());
    }
}
