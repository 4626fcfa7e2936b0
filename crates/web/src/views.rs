//! The pages: one askama template per page (checked when the crate compiles), and the
//! shared page chrome.

use askama::Template;
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
pub(crate) fn enc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

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
