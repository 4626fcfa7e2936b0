//! The pages: one askama template per page (checked when the crate compiles), and the
//! shared page chrome.

use askama::Template;
use devcoach_core::Lesson;
use devcoach_core::lesson::Feedback;
use devcoach_store::Store;

/// What every page shows around its content.
#[derive(Debug, Clone)]
pub(crate) struct Chrome {
    pub theme: &'static str,
    pub active: &'static str,
    /// Set when a newer devcoach owns the database.
    pub readonly: Option<String>,
    pub version: String,
}

impl Chrome {
    pub fn new(store: Option<&Store>, active: &'static str) -> Self {
        let settings = store.and_then(|s| s.settings().ok()).unwrap_or_default();
        Self {
            theme: settings.ui_theme.as_str(),
            active,
            readonly: store
                .and_then(Store::compat)
                .map(|c| format!("{c} Pages still show your data; changes are refused.")),
            version: devcoach_core::APP_VERSION.to_owned(),
        }
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    c: Chrome,
    heading: &'a str,
    detail: Option<&'a str>,
}

pub(crate) fn error_page(heading: &str, detail: Option<&str>) -> String {
    let page = ErrorPage { c: Chrome::new(None, ""), heading, detail };
    page.render().unwrap_or_else(|_| format!("<h1>{heading}</h1>"))
}

/// Percent-encodes a path segment or query value (everything but unreserved characters).
pub(crate) use devcoach_core::encoding::percent_encode as enc;

/// `2026-11-30T12:00:00Z` → `30 Nov 2026`.
pub(crate) fn short_date(stamp: &str) -> String {
    devcoach_core::time::parse_timestamp(stamp)
        .map_or_else(|_| stamp.chars().take(10).collect(), |t| t.format("%-d %b %Y").to_string())
}

/// `2026-11-30T12:00:00Z` → `30 Nov 2026, 12:00 UTC`.
pub(crate) fn full_date(stamp: &str) -> String {
    devcoach_core::time::parse_timestamp(stamp)
        .map_or_else(|_| stamp.to_owned(), |t| t.format("%-d %b %Y, %H:%M UTC").to_string())
}

/// A lesson as the lessons list shows it (built once per lesson, kept by the answer cache).
pub(crate) struct Row {
    pub id: String,
    pub id_path: String,
    pub when: String,
    pub when_full: String,
    pub topic: String,
    pub title: String,
    pub level: &'static str,
    pub feedback: Option<(&'static str, &'static str, &'static str)>,
    pub categories: String,
    pub starred: bool,
    pub shared_by: Option<String>,
}

impl Row {
    pub(crate) fn from(l: Lesson) -> Self {
        Self {
            id_path: enc(&l.id),
            when: short_date(&l.timestamp),
            when_full: full_date(&l.timestamp),
            level: l.level.as_str(),
            feedback: feedback_badge(l.feedback),
            categories: l.categories.join(", "),
            id: l.id,
            topic: l.topic_id,
            title: l.title,
            starred: l.starred,
            shared_by: l.shared_by,
        }
    }
}

/// A feedback value as the mark, the words and the class of its badge.
pub(crate) fn feedback_badge(f: Option<Feedback>) -> Option<(&'static str, &'static str, &'static str)> {
    use devcoach_core::feedback::{label, mark};
    f.map(|f| {
        let class = match f {
            Feedback::Know => "fb-know",
            Feedback::Understood => "fb-understood",
            Feedback::DontKnow => "fb-dont_know",
        };
        (mark(Some(f)), label(Some(f)), class)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_and_dates() {
        assert_eq!(enc("a b/c?d&é"), "a%20b%2Fc%3Fd%26%C3%A9");
        assert_eq!(short_date("2026-11-30T12:00:00Z"), "30 Nov 2026");
        assert_eq!(full_date("2026-11-03T08:05:00.123Z"), "3 Nov 2026, 08:05 UTC");
        assert_eq!(short_date("garbage"), "garbage");
    }
}
