//! Courses: a lesson grown into a step-by-step document the agent writes and devcoach tracks.

use std::fmt;

use thiserror::Error;

use crate::share::slug::slugify;

/// The document's file name inside its course folder.
pub const COURSE_DOCUMENT_NAME: &str = "index.html";

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CourseError {
    #[error("Invalid course id {0:?}: course ids are lowercase letters, digits and dashes")]
    InvalidId(String),
    #[error("course '{0}' not found — call get_courses")]
    NotFound(String),
    #[error("course '{0}' step {1} not found — call get_courses")]
    StepNotFound(String, i64),
    #[error("lesson '{0}' not found — call get_lessons to pick one")]
    LessonNotFound(String),
    #[error("'after' must be between 0 and {0} (the course has {0} steps)")]
    AfterOutOfRange(i64),
    #[error("course '{id}' has no document yet — write {path} first")]
    NoDocument { id: String, path: String },
    #[error("the course document must be a regular file of at most 2 MiB (not a link): {0}")]
    BadDocument(String),
    #[error("the document has no element with id=\"{0}\" — add that section to the document first")]
    AnchorMissing(String),
    #[error("anchor '{0}' is already a step of this course")]
    AnchorTaken(String),
    #[error(
        "anchors are lowercase letters, digits and dashes, starting with a letter or digit (like step-1), got {0:?}"
    )]
    BadAnchor(String),
    #[error("{what} must be one of {allowed}, got {got:?}")]
    BadValue { what: &'static str, allowed: &'static str, got: String },
    #[error("{0} must not be empty")]
    Empty(&'static str),
}

/// A course id: lowercase letters, digits and dashes only, checked before any file is touched.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CourseId(String);

impl CourseId {
    pub fn parse(raw: &str) -> Result<Self, CourseError> {
        if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            Ok(Self(raw.to_owned()))
        } else {
            Err(CourseError::InvalidId(raw.to_owned()))
        }
    }

    /// The id a title suggests (before making it unique).
    pub fn from_title(title: &str) -> Self {
        Self(slugify(title, "course"))
    }

    /// The `n`th alternative (`-2`, `-3`, …).
    #[must_use]
    pub fn with_suffix(&self, n: u32) -> Self {
        Self(format!("{}-{n}", self.0))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CourseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

macro_rules! word_enum {
    ($name:ident, $what:literal, $allowed:literal { $($variant:ident = $text:literal),+ }) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub fn parse(raw: &str) -> Result<Self, CourseError> {
                match raw {
                    $($text => Ok(Self::$variant),)+
                    other => Err(CourseError::BadValue { what: $what, allowed: $allowed, got: other.to_owned() }),
                }
            }

            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),+ }
            }
        }
    };
}

word_enum!(CourseStatus, "course status", "active, completed, abandoned" { Active = "active", Completed = "completed", Abandoned = "abandoned" });
word_enum!(StepStatus, "step status", "todo, done, skipped" { Todo = "todo", Done = "done", Skipped = "skipped" });
word_enum!(StepKind, "kind", "concept, example, practice, check" { Concept = "concept", Example = "example", Practice = "practice", Check = "check" });

/// Checks an anchor: `^[a-z0-9][a-z0-9-]*$`.
pub fn check_anchor(anchor: &str) -> Result<(), CourseError> {
    let mut bytes = anchor.bytes();
    let ok = bytes.next().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok { Ok(()) } else { Err(CourseError::BadAnchor(anchor.to_owned())) }
}

/// Whether the document has an element with `id="anchor"` (a real attribute: preceded by
/// whitespace, either quote).
pub fn document_has_anchor(html: &str, anchor: &str) -> bool {
    ['"', '\''].iter().any(|q| {
        let needle = format!("id={q}{anchor}{q}");
        html.match_indices(&needle).any(|(i, _)| html[..i].chars().next_back().is_some_and(char::is_whitespace))
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prerequisite {
    pub concept: String,
    pub known: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CourseStep {
    pub course_id: String,
    /// 1-based.
    pub position: i64,
    pub title: String,
    pub kind: StepKind,
    pub anchor: String,
    pub status: StepStatus,
    pub done_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Course {
    pub id: String,
    pub lesson_id: Option<String>,
    pub topic_id: String,
    pub title: String,
    pub goal: Option<String>,
    pub prerequisites: Vec<Prerequisite>,
    pub status: CourseStatus,
    pub created_at: String,
    pub updated_at: String,
    pub completed_at: Option<String>,
    pub steps: Vec<CourseStep>,
}

impl Course {
    /// Steps finished or skipped, and all steps.
    pub fn progress(&self) -> (usize, usize) {
        (self.steps.iter().filter(|s| s.status != StepStatus::Todo).count(), self.steps.len())
    }

    /// The status a course should have after its steps changed: every step settled completes an
    /// active course; a step reopened reactivates a completed one.
    pub fn settled_status(&self) -> CourseStatus {
        let (done, total) = self.progress();
        match self.status {
            CourseStatus::Active if total > 0 && done == total => CourseStatus::Completed,
            CourseStatus::Completed if done < total => CourseStatus::Active,
            other => other,
        }
    }
}

/// Reads the stored `prerequisites` JSON (damaged → empty).
pub fn prerequisites_from_column(raw: &str) -> Vec<Prerequisite> {
    let Ok(serde_json::Value::Array(items)) = serde_json::from_str(raw) else { return Vec::new() };
    items
        .iter()
        .filter_map(|i| {
            Some(Prerequisite { concept: i.get("concept")?.as_str()?.to_owned(), known: i.get("known")?.as_bool()? })
        })
        .collect()
}

pub fn prerequisites_to_column(p: &[Prerequisite]) -> String {
    serde_json::Value::Array(p.iter().map(|p| serde_json::json!({ "concept": p.concept, "known": p.known })).collect())
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        assert!(CourseId::parse("rust-ownership-2").is_ok());
        for bad in ["", "../etc", "Rust", "a/b", "a b", "ü"] {
            assert!(CourseId::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(CourseId::from_title("Ownership, borrowing & you!").as_str(), "ownership-borrowing-you");
        assert_eq!(CourseId::from_title("!!!").as_str(), "course");
        assert_eq!(CourseId::from_title("x").with_suffix(3).as_str(), "x-3");
    }

    #[test]
    fn anchors() {
        assert!(check_anchor("step-1").is_ok());
        assert!(check_anchor("-x").is_err() && check_anchor("Step").is_err() && check_anchor("").is_err());
        let html = r#"<section id="step-1"></section><div data-id="step-2"></div><p id='step-3'>"#;
        assert!(document_has_anchor(html, "step-1"));
        assert!(!document_has_anchor(html, "step-2"), "data-id is not id");
        assert!(document_has_anchor(html, "step-3"));
        assert!(!document_has_anchor(html, "step-4"));
        assert!(!document_has_anchor(r##"<a href="#x">id="step-9"</a>"##, "step-9"), "text, not an attribute");
    }

    #[test]
    fn status_follows_steps() {
        let step = |status| CourseStep {
            course_id: "c".into(),
            position: 1,
            title: "t".into(),
            kind: StepKind::Concept,
            anchor: "a".into(),
            status,
            done_at: None,
        };
        let mut c = Course {
            id: "c".into(),
            lesson_id: None,
            topic_id: "t".into(),
            title: "T".into(),
            goal: None,
            prerequisites: vec![],
            status: CourseStatus::Active,
            created_at: String::new(),
            updated_at: String::new(),
            completed_at: None,
            steps: vec![],
        };
        assert_eq!(c.settled_status(), CourseStatus::Active, "no steps never completes");
        c.steps = vec![step(StepStatus::Done), step(StepStatus::Skipped)];
        assert_eq!(c.settled_status(), CourseStatus::Completed);
        c.status = CourseStatus::Completed;
        c.steps.push(step(StepStatus::Todo));
        assert_eq!(c.settled_status(), CourseStatus::Active);
        c.status = CourseStatus::Abandoned;
        assert_eq!(c.settled_status(), CourseStatus::Abandoned);
        assert_eq!(c.progress(), (2, 3));
    }

    #[test]
    fn prerequisites_column() {
        let p = vec![Prerequisite { concept: "traits".into(), known: true }];
        assert_eq!(prerequisites_from_column(&prerequisites_to_column(&p)), p);
        assert!(prerequisites_from_column("nonsense").is_empty());
    }
}
