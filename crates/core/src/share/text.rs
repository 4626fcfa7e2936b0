//! The text transport (a card, a hint, and the code as the last line) and the link.

use super::code::encode_code;
use super::payload::SharedLesson;
use crate::card::{self, CardView};

/// The page that opens share links by default: this project's copy of `assets/site/lesson.html`.
/// The code travels in the fragment, which never reaches a server, and its format is the
/// TypeScript devcoach's, so a link from either build imports in both (only the page differs).
/// The `share_link_base` setting points links at another copy (a self-hosted one).
pub const DEFAULT_LINK_BASE: &str = "https://devcoach-rs.github.io/devcoach/lesson";

/// The TypeScript devcoach's page, whose links this build still recognises and whose origin may
/// still ask a dashboard whether it is running.
pub const ORIGINAL_LINK_BASE: &str = "https://ultimaphoenix.github.io/dev-coach/lesson";

/// Why a page address was refused as `share_link_base`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkBaseError {
    #[error(
        "share_link_base must be an https:// address of a page (or http:// on this machine), without ? or #, at most {} characters",
        crate::limits::LINK_BASE_CHARS
    )]
    Invalid,
}

/// A page address for share links; blank means the default (`None`).
pub fn parse_link_base(raw: &str) -> Result<Option<String>, LinkBaseError> {
    let t = raw.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let lower = t.to_ascii_lowercase();
    let local = ["http://localhost", "http://127.0.0.1", "http://[::1]"]
        .iter()
        .any(|p| lower.strip_prefix(p).is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '/'])));
    let host_ok = lower.strip_prefix("https://").is_some_and(|rest| {
        let host = rest.split('/').next().unwrap_or("");
        !host.is_empty() && !host.contains('@')
    });
    let clean =
        !t.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '?' | '#' | '"' | '<' | '>' | '\\'));
    if (host_ok || local) && clean && t.chars().count() <= crate::limits::LINK_BASE_CHARS {
        Ok(Some(t.trim_end_matches('/').to_owned()))
    } else {
        Err(LinkBaseError::Invalid)
    }
}

/// The origin (scheme, host, port) of a page address, for the dashboard's answer to the page.
pub fn origin_of(url: &str) -> Option<&str> {
    let after = url.find("://")? + 3;
    let end = url[after..].find('/').map_or(url.len(), |i| after + i);
    Some(&url[..end])
}

/// Codes longer than this are better sent as a file.
pub const LONG_CODE_CHARS: usize = 16_000;

pub fn card(p: &SharedLesson) -> String {
    card::render(CardView {
        title: &p.title,
        categories: &p.categories,
        level: p.level,
        topic_id: &p.topic_id,
        summary: &p.summary,
        body: p.body.as_deref(),
    })
}

/// The line between the card and the code, saying what to do with it.
pub fn hint(shared_by: Option<&str>) -> String {
    match shared_by {
        Some(name) => {
            format!("Shared by {name} with devcoach — to keep it, paste this to your agent or run: devcoach import")
        }
        None => "Shared with devcoach — to keep it, paste this to your agent or run: devcoach import".to_owned(),
    }
}

/// Card, blank line, hint, code (the code is the last line, with no newline after it).
pub fn render_text(p: &SharedLesson, code: &str) -> String {
    format!("{}\n\n{}\n{code}", card(p), hint(p.shared_by.as_deref()))
}

/// A share link to the default page.
pub fn link(code: &str) -> String {
    link_at(DEFAULT_LINK_BASE, code)
}

/// A share link to the page at `base`.
pub fn link_at(base: &str, code: &str) -> String {
    format!("{base}#{code}")
}

/// The text and its code in one go.
pub fn share_text(p: &SharedLesson) -> (String, String) {
    let code = encode_code(p);
    (render_text(p, &code), code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_bases_are_https_pages_or_this_machine() {
        assert_eq!(parse_link_base("  "), Ok(None));
        assert_eq!(parse_link_base("https://lessons.example.org/p/"), Ok(Some("https://lessons.example.org/p".into())));
        assert_eq!(parse_link_base("http://localhost:8080/lesson"), Ok(Some("http://localhost:8080/lesson".into())));
        for bad in [
            "http://example.org/lesson",
            "javascript:alert(1)",
            "https://",
            "https://user@evil.example/",
            "https://a.example/x?y",
            "https://a.example/#x",
            "https://a.example/\u{1b}[2J",
            "http://localhost.evil.example/",
            "ftp://a.example/",
        ] {
            assert_eq!(parse_link_base(bad), Err(LinkBaseError::Invalid), "{bad:?}");
        }
        assert_eq!(parse_link_base(&format!("https://a.example/{}", "x".repeat(400))), Err(LinkBaseError::Invalid));
        assert_eq!(origin_of("https://a.example:8443/p/lesson"), Some("https://a.example:8443"));
        assert_eq!(origin_of(DEFAULT_LINK_BASE), Some("https://devcoach-rs.github.io"));
    }
    use crate::share::code::decode_code;
    use crate::share::input::{SharedInput, parse_shared_input};

    #[test]
    fn the_code_is_the_last_line_and_the_text_imports() {
        let p = crate::share::code::tests_support::sample();
        let (text, code) = share_text(&p);
        assert_eq!(text.lines().last(), Some(code.as_str()));
        assert!(text.contains("Shared by Ada with devcoach"));
        assert!(text.starts_with("### "));
        match parse_shared_input(&text) {
            Ok(SharedInput::Shared(got)) => assert_eq!(got, p),
            other => panic!("{other:?}"),
        }
        assert_eq!(link(&code), format!("https://devcoach-rs.github.io/devcoach/lesson#{code}"));
        // Links to either build's page, or a self-hosted one, import the same lesson.
        for base in [DEFAULT_LINK_BASE, ORIGINAL_LINK_BASE, "https://lessons.example.org/x/lesson"] {
            assert!(matches!(parse_shared_input(&link_at(base, &code)), Ok(SharedInput::Shared(_))), "{base}");
        }
        assert_eq!(decode_code(&code), Ok(p));
    }
}
