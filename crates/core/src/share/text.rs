//! The text transport (a card, a hint, and the code as the last line) and the link.

use super::code::encode_code;
use super::payload::SharedLesson;
use crate::card::{self, CardView};

/// The page that opens share links; the code travels in the fragment, which never reaches a
/// server. Shared with the TypeScript devcoach, so links work for either build.
pub const SHARE_PAGE_URL: &str = "https://ultimaphoenix.github.io/dev-coach/lesson";

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

pub fn link(code: &str) -> String {
    format!("{SHARE_PAGE_URL}#{code}")
}

/// The text and its code in one go.
pub fn share_text(p: &SharedLesson) -> (String, String) {
    let code = encode_code(p);
    (render_text(p, &code), code)
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert_eq!(link(&code), format!("https://ultimaphoenix.github.io/dev-coach/lesson#{code}"));
        assert_eq!(decode_code(&code), Ok(p));
    }
}
