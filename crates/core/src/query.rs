//! What a lessons list asks for. The store turns a [`LessonQuery`] into SQL; this module owns
//! the meaning of every filter so the CLI, MCP and dashboard agree.

use chrono::{DateTime, Utc};
use thiserror::Error;

use crate::lesson::{Feedback, Level};
use crate::time::{self, Period};

/// The feedback filter: a given answer, or none recorded yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedbackFilter {
    Is(Feedback),
    Missing,
}

impl FeedbackFilter {
    pub const NAMES: [&'static str; 4] = ["know", "understood", "dont_know", "none"];

    pub fn parse(raw: &str) -> Option<Self> {
        if raw == "none" {
            return Some(Self::Missing);
        }
        Feedback::parse(raw).ok().map(Self::Is)
    }
}

/// The columns a list may be sorted by; anything else sorts by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortColumn {
    #[default]
    Timestamp,
    Level,
    TopicId,
    Title,
    Feedback,
}

impl SortColumn {
    /// Reads a requested sort column, falling back to time for anything not on the whitelist.
    pub fn parse_or_default(raw: &str) -> Self {
        match raw {
            "level" => Self::Level,
            "topic_id" => Self::TopicId,
            "title" => Self::Title,
            "feedback" => Self::Feedback,
            _ => Self::Timestamp,
        }
    }

    pub fn column(self) -> &'static str {
        match self {
            Self::Timestamp => "timestamp",
            Self::Level => "level",
            Self::TopicId => "topic_id",
            Self::Title => "title",
            Self::Feedback => "feedback",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortOrder {
    Asc,
    #[default]
    Desc,
}

impl SortOrder {
    /// `asc` (any case) sorts ascending; everything else newest/greatest first.
    pub fn parse_or_default(raw: &str) -> Self {
        if raw.eq_ignore_ascii_case("asc") { Self::Asc } else { Self::Desc }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QueryError {
    #[error("{field} must be a date like 2026-05-01 or a timestamp like 2026-05-01T14:30:00Z, got {got:?}")]
    BadDate { field: &'static str, got: String },
}

/// An inclusive date range, stored as lesson-timestamp strings. Built only through its
/// validating setters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DateRange {
    from: Option<String>,
    to: Option<String>,
}

impl DateRange {
    /// Lower bound, inclusive. A date means its first second.
    pub fn set_from(&mut self, raw: &str) -> Result<(), QueryError> {
        let at =
            time::parse_timestamp(raw).map_err(|_| QueryError::BadDate { field: "date_from", got: raw.to_owned() })?;
        self.from = Some(time::lesson_stamp(at));
        Ok(())
    }

    /// Upper bound, inclusive. A date without a time means its last second.
    pub fn set_to(&mut self, raw: &str) -> Result<(), QueryError> {
        let bad = || QueryError::BadDate { field: "date_to", got: raw.to_owned() };
        let trimmed = raw.trim();
        let at = time::parse_timestamp(trimmed).map_err(|_| bad())?;
        let stamp = time::lesson_stamp(at);
        self.to = Some(if trimmed.contains(['T', 't', ' ']) { stamp } else { format!("{}T23:59:59Z", &stamp[..10]) });
        Ok(())
    }

    pub fn from(&self) -> Option<&str> {
        self.from.as_deref()
    }

    pub fn to(&self) -> Option<&str> {
        self.to.as_deref()
    }
}

/// A lessons list request. `Default` is "every lesson, newest first".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LessonQuery {
    pub period: Option<Period>,
    /// An explicit range; when set it wins over `period`.
    pub dates: DateRange,
    /// Exact category name (lessons can have several).
    pub category: Option<String>,
    pub level: Option<Level>,
    /// Substring filters on the git metadata.
    pub project: Option<String>,
    pub repository: Option<String>,
    pub branch: Option<String>,
    pub commit: Option<String>,
    pub starred: Option<bool>,
    /// `Some(true)`: shared to me only; `Some(false)`: my own only.
    pub imported: Option<bool>,
    /// Exact sender; implies `imported`.
    pub shared_by: Option<String>,
    pub feedback: Option<FeedbackFilter>,
    /// Every word must appear in the title, topic, summary, body or sender.
    pub search: Vec<String>,
    pub sort: SortColumn,
    pub order: SortOrder,
    /// `None` returns every match.
    pub limit: Option<u32>,
    pub offset: u64,
}

impl LessonQuery {
    /// Whether every lesson matches, whatever the clock says: no filter, no search, no page.
    /// Only the order may differ from the default.
    pub fn selects_everything(&self) -> bool {
        let period = match self.period {
            Some(Period::All) => None,
            other => other,
        };
        Self { period, ..self.clone() } == Self { sort: self.sort, order: self.order, ..Self::default() }
    }

    /// Reads a requested page size where 0 (or less) means "every match".
    pub fn limit_from_request(n: i64) -> Option<u32> {
        (n > 0).then(|| u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// Splits a search box into the words that must all match.
    pub fn set_search(&mut self, raw: &str) {
        self.search = raw.split_whitespace().map(str::to_owned).collect();
    }

    /// The inclusive time window as stored-timestamp strings: an explicit date range wins over
    /// the period.
    pub fn time_bounds(&self, now: DateTime<Utc>) -> (Option<String>, Option<String>) {
        if self.dates.from.is_some() || self.dates.to.is_some() {
            return (self.dates.from.clone(), self.dates.to.clone());
        }
        let from = self.period.and_then(|p| p.cutoff(now)).map(time::lesson_stamp);
        (from, None)
    }

    /// Whether only shared-to-me lessons match.
    pub fn imported_filter(&self) -> Option<bool> {
        if self.shared_by.is_some() { Some(true) } else { self.imported }
    }

    /// True when the request narrows the list in any way (for "no match" vs "nothing yet").
    pub fn is_filtered(&self) -> bool {
        let narrowing = Self {
            period: self.period.filter(|p| *p != Period::All),
            sort: SortColumn::default(),
            order: SortOrder::default(),
            limit: None,
            offset: 0,
            ..self.clone()
        };
        narrowing != Self::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        time::parse_timestamp("2026-11-30T12:00:00Z").expect("fixed now")
    }

    #[test]
    fn explicit_dates_override_the_period() {
        let mut q = LessonQuery { period: Some(Period::Week), ..LessonQuery::default() };
        assert_eq!(q.time_bounds(now()), (Some("2026-11-23T12:00:00Z".into()), None));
        q.dates.set_to("2026-05-01").expect("date");
        assert_eq!(q.time_bounds(now()), (None, Some("2026-05-01T23:59:59Z".into())));
        q.dates.set_to("2026-05-01T08:00:00").expect("timestamp");
        q.dates.set_from("2026-04-01").expect("date");
        assert_eq!(q.time_bounds(now()), (Some("2026-04-01T00:00:00Z".into()), Some("2026-05-01T08:00:00Z".into())));
        assert!(q.dates.set_from("last tuesday").is_err());
    }

    #[test]
    fn everything_is_no_filter_no_search_and_no_page() {
        let everything = [
            LessonQuery::default(),
            LessonQuery { period: Some(Period::All), ..LessonQuery::default() },
            LessonQuery { sort: SortColumn::Title, order: SortOrder::Asc, ..LessonQuery::default() },
        ];
        assert!(everything.iter().all(LessonQuery::selects_everything));
        let mut searched = LessonQuery::default();
        searched.set_search("borrow");
        let mut dated = LessonQuery::default();
        dated.dates.set_from("2026-04-01").expect("date");
        let some = [
            searched,
            dated,
            LessonQuery { period: Some(Period::Week), ..LessonQuery::default() },
            LessonQuery { limit: Some(10), ..LessonQuery::default() },
            LessonQuery { offset: 1, ..LessonQuery::default() },
            LessonQuery { starred: Some(false), ..LessonQuery::default() },
            LessonQuery { imported: Some(false), ..LessonQuery::default() },
            LessonQuery { category: Some("rust".into()), ..LessonQuery::default() },
            LessonQuery { feedback: Some(FeedbackFilter::Missing), ..LessonQuery::default() },
        ];
        assert!(some.iter().all(|q| !q.selects_everything()));
    }

    #[test]
    fn all_period_has_no_bound() {
        let q = LessonQuery { period: Some(Period::All), ..LessonQuery::default() };
        assert_eq!(q.time_bounds(now()), (None, None));
        assert!(!q.is_filtered());
        assert!(!LessonQuery::default().is_filtered());
        assert!(LessonQuery { starred: Some(true), ..LessonQuery::default() }.is_filtered());
        assert!(LessonQuery { period: Some(Period::Today), ..LessonQuery::default() }.is_filtered());
        assert!(
            LessonQuery { period: Some(Period::All), level: Some(Level::Mid), ..LessonQuery::default() }.is_filtered()
        );
    }

    #[test]
    fn search_is_split_into_words() {
        let mut q = LessonQuery::default();
        q.set_search("  borrow   checker ");
        assert_eq!(q.search, ["borrow", "checker"]);
        q.set_search("   ");
        assert!(q.search.is_empty());
    }

    #[test]
    fn zero_limit_means_all() {
        assert_eq!(LessonQuery::limit_from_request(0), None);
        assert_eq!(LessonQuery::limit_from_request(-3), None);
        assert_eq!(LessonQuery::limit_from_request(10), Some(10));
        assert_eq!(LessonQuery::limit_from_request(i64::MAX), Some(u32::MAX));
    }

    #[test]
    fn sender_implies_imported() {
        let q = LessonQuery { shared_by: Some("Ada".into()), imported: Some(false), ..LessonQuery::default() };
        assert_eq!(q.imported_filter(), Some(true));
    }

    #[test]
    fn sort_whitelist() {
        assert_eq!(SortColumn::parse_or_default("title"), SortColumn::Title);
        assert_eq!(SortColumn::parse_or_default("id; DROP TABLE lessons"), SortColumn::Timestamp);
        assert_eq!(SortOrder::parse_or_default("ASC"), SortOrder::Asc);
        assert_eq!(SortOrder::parse_or_default("sideways"), SortOrder::Desc);
        assert_eq!(FeedbackFilter::parse("none"), Some(FeedbackFilter::Missing));
        assert_eq!(FeedbackFilter::parse("know"), Some(FeedbackFilter::Is(Feedback::Know)));
        assert_eq!(FeedbackFilter::parse("meh"), None);
    }
}
