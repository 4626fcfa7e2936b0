//! Reading whatever a person pasted: a bare code, a whole shared card, a share link, a code
//! wrapped by an e-mail client, a `.devcoach.md` file, a payload JSON object, or a legacy
//! lessons export (a JSON array, or one lesson object).

use serde_json::Value;

use super::ShareError;
use super::code::{PREFIX, decode_code, is_code_byte};
use super::file::parse_file;
use super::payload::{FORMAT, SharedLesson};

/// The URL to download first, when the whole paste is one http(s) URL that is not a share link
/// (share links carry their code in the fragment and are decoded locally, never fetched).
pub fn url_to_fetch(text: &str) -> Option<&str> {
    let t = text.trim();
    let lower = t.get(..8).unwrap_or(t).to_ascii_lowercase();
    let is_url = lower.starts_with("http://") || lower.starts_with("https://");
    (is_url && !t.chars().any(char::is_whitespace) && !t.contains("#devcoach:lesson:")).then_some(t)
}

/// What a paste turned out to be.
// Made once per import and consumed at once: boxing the lesson would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum SharedInput {
    /// One shared lesson.
    Shared(SharedLesson),
    /// Legacy lesson records, each still to be validated.
    Lessons(Vec<Value>),
}

/// Reads a paste, trying the forms in a fixed order.
pub fn parse_shared_input(text: &str) -> Result<SharedInput, ShareError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ShareError::Empty);
    }
    if t.starts_with('[') {
        return match serde_json::from_str::<Value>(t) {
            Ok(Value::Array(records)) => Ok(SharedInput::Lessons(records)),
            _ => Err(ShareError::BadJson),
        };
    }
    if t.starts_with('{') {
        let value: Value = serde_json::from_str(t).map_err(|_| ShareError::BadJson)?;
        return if value.get("format").and_then(Value::as_str) == Some(FORMAT) {
            SharedLesson::from_json(&value).map(SharedInput::Shared)
        } else {
            Ok(SharedInput::Lessons(vec![value]))
        };
    }
    if t.starts_with("---") {
        return parse_file(t).map(SharedInput::Shared);
    }
    decode_embedded(t).map(SharedInput::Shared)
}

/// A code found in `text` at `start..end`.
struct Found {
    start: usize,
    end: usize,
}

/// Every well-formed `devcoach:lesson:<n>:<payload>` in the text.
fn find_codes(text: &str) -> Vec<Found> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = text[from..].find(PREFIX) {
        let start = from + pos;
        let mut i = start + PREFIX.len();
        let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        i += digits;
        if digits > 0 && bytes.get(i) == Some(&b':') {
            let payload = bytes[i + 1..].iter().take_while(|b| is_code_byte(**b)).count();
            if payload > 0 {
                out.push(Found { start, end: i + 1 + payload });
            }
        }
        from = start + PREFIX.len();
    }
    out
}

/// The code, with the lines after it appended while they look like more of the same code (an
/// e-mail client wrapped it).
fn rejoined(text: &str, found: &Found) -> Option<String> {
    let rest = &text[found.end..];
    let rest = rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n'))?;
    let mut code = text[found.start..found.end].to_owned();
    let mut grew = false;
    for line in rest.lines() {
        let line = line.trim();
        if line.is_empty() || !line.bytes().all(is_code_byte) {
            break;
        }
        code.push_str(line);
        grew = true;
    }
    grew.then_some(code)
}

/// Tries every code in the text, the last first (a card that quotes an example code still imports
/// its own, final code).
fn decode_embedded(text: &str) -> Result<SharedLesson, ShareError> {
    let found = find_codes(text);
    let mut last_error = ShareError::NotALesson;
    for f in found.iter().rev() {
        for candidate in std::iter::once(text[f.start..f.end].to_owned()).chain(rejoined(text, f)) {
            match decode_code(&candidate) {
                Ok(p) => return Ok(p),
                Err(e) => last_error = e,
            }
        }
    }
    Err(last_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::share::code::encode_code;
    use crate::share::code::tests_support::sample;
    use crate::share::file::render_file;
    use crate::share::text::{link, render_text};

    fn shared(text: &str) -> SharedLesson {
        match parse_shared_input(text) {
            Ok(SharedInput::Shared(p)) => p,
            other => panic!("expected a shared lesson, got {other:?}"),
        }
    }

    #[test]
    fn every_form_of_a_share() {
        let p = sample();
        let code = encode_code(&p);
        assert_eq!(shared(&code), p);
        assert_eq!(shared(&render_text(&p, &code)), p);
        assert_eq!(shared(&format!("Look: {}\nthanks", link(&code))), p);
        assert_eq!(shared(&render_file(&p)), p);
        assert_eq!(shared(&p.to_json().to_string()), p);
    }

    #[test]
    fn wrapped_codes_are_rejoined() {
        let p = sample();
        let code = encode_code(&p);
        let wrapped: Vec<String> =
            code.as_bytes().chunks(60).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
        assert_eq!(shared(&format!("Hi,\n\n{}\n\nBest,\nAda", wrapped.join("\n  "))), p);
        assert_eq!(shared(&wrapped.join("\r\n")), p);
    }

    #[test]
    fn the_last_code_wins() {
        let mut example = sample();
        example.title = "An example inside the body".into();
        let mut p = sample();
        p.body = Some(format!("A code looks like this: {}", encode_code(&example)));
        let code = encode_code(&p);
        assert_eq!(shared(&render_text(&p, &code)), p);
    }

    #[test]
    fn legacy_exports() {
        let records = json_records();
        match parse_shared_input(&records) {
            Ok(SharedInput::Lessons(r)) => assert_eq!(r.len(), 2),
            other => panic!("{other:?}"),
        }
        match parse_shared_input(r#"{"id": "one", "title": "x"}"#) {
            Ok(SharedInput::Lessons(r)) => assert_eq!(r.len(), 1),
            other => panic!("{other:?}"),
        }
    }

    fn json_records() -> String {
        r#"[{"id": "a"}, {"id": "b"}]"#.into()
    }

    #[test]
    fn which_urls_are_fetched() {
        assert_eq!(url_to_fetch(" https://gist.example/raw/x \n"), Some("https://gist.example/raw/x"));
        assert_eq!(url_to_fetch("HTTP://x.example"), Some("HTTP://x.example"));
        assert_eq!(url_to_fetch("https://ultimaphoenix.github.io/dev-coach/lesson#devcoach:lesson:1:abc"), None);
        assert_eq!(url_to_fetch("see https://x.example"), None);
        assert_eq!(url_to_fetch("devcoach:lesson:1:abc"), None);
        assert_eq!(url_to_fetch("ftp://x.example"), None);
    }

    #[test]
    fn errors() {
        assert_eq!(parse_shared_input("  \n "), Err(ShareError::Empty));
        assert_eq!(parse_shared_input("[1, 2"), Err(ShareError::BadJson));
        assert_eq!(parse_shared_input("{nope"), Err(ShareError::BadJson));
        assert_eq!(parse_shared_input("hello there"), Err(ShareError::NotALesson));
        assert_eq!(parse_shared_input("devcoach:lesson:7:abc"), Err(ShareError::NewerFormat("7".into())));
        assert_eq!(parse_shared_input("see devcoach:lesson:1:AAAA ok"), Err(ShareError::Damaged));
        assert_eq!(
            parse_shared_input(r#"{"format": "devcoach.lesson", "version": 1}"#),
            Err(ShareError::InvalidLesson)
        );
    }
}
