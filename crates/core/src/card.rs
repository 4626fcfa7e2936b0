//! The lesson card: the block of markdown a learner actually sees.
//!
//! ```text
//! ### ─────────── 🎓 devcoach ───────────
//! **Title** · category · other · Mid
//!
//! body (or the summary when there is no body)
//!
//! ### ─────────── rust · mid ───────────
//! ```
//! The band layout is shared with the original build (and with shared lesson texts), so it is
//! computed exactly: dashes fill a 34-character line around the band's title.

use crate::lesson::{Lesson, Level};

/// The title of the top band.
pub const CARD_BRAND: &str = "🎓 devcoach";
const BAND_WIDTH: usize = 34;
const DASH: char = '─';

/// The fields a card needs (a stored lesson, or a shared one not yet imported).
#[derive(Debug, Clone, Copy)]
pub struct CardView<'a> {
    pub title: &'a str,
    pub categories: &'a [String],
    pub level: Level,
    pub topic_id: &'a str,
    pub summary: &'a str,
    pub body: Option<&'a str>,
}

impl<'a> From<&'a Lesson> for CardView<'a> {
    fn from(l: &'a Lesson) -> Self {
        Self {
            title: &l.title,
            categories: &l.categories,
            level: l.level,
            topic_id: &l.topic_id,
            summary: &l.summary,
            body: l.body.as_deref(),
        }
    }
}

/// One band heading: `### ` then dashes around the title.
pub fn band(title: &str) -> String {
    let pad = BAND_WIDTH.saturating_sub(title.chars().count() + 2).max(2);
    let left = pad / 2;
    let right = pad - left;
    let mut out = String::with_capacity(4 + (pad + 2) * 3 + title.len());
    out.push_str("### ");
    out.extend(std::iter::repeat_n(DASH, left));
    out.push(' ');
    out.push_str(title);
    out.push(' ');
    out.extend(std::iter::repeat_n(DASH, right));
    out
}

/// The card's lines, without a trailing newline.
pub fn render(card: CardView<'_>) -> String {
    let mut head = format!("**{}**", card.title);
    for c in card.categories {
        head.push_str(" · ");
        head.push_str(c);
    }
    head.push_str(" · ");
    head.push_str(card.level.capitalized());
    let body = card.body.map(str::trim).filter(|b| !b.is_empty()).unwrap_or(card.summary);
    [
        band(CARD_BRAND),
        head,
        String::new(),
        body.to_owned(),
        String::new(),
        band(&format!("{} · {}", card.topic_id, card.level)),
    ]
    .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_widths() {
        // 10 code points in the brand: (34 - 10 - 2) = 22 dashes, 11 on each side.
        assert_eq!(band(CARD_BRAND), format!("### {} 🎓 devcoach {}", "─".repeat(11), "─".repeat(11)));
        assert_eq!(band("ab"), format!("### {} ab {}", "─".repeat(15), "─".repeat(15)));
        assert_eq!(band("abc"), format!("### {} abc {}", "─".repeat(14), "─".repeat(15)));
        assert_eq!(band("rust · mid"), format!("### {} rust · mid {}", "─".repeat(11), "─".repeat(11)));
        // Long titles keep at least one dash on each side.
        let long = "x".repeat(60);
        assert_eq!(band(&long), format!("### ─ {long} ─"));
    }

    #[test]
    fn card_layout() {
        let categories = vec!["rust".to_owned(), "memory".to_owned()];
        let card = CardView {
            title: "Borrowing",
            categories: &categories,
            level: Level::Mid,
            topic_id: "rust",
            summary: "short",
            body: Some("\n  Body text.\n\n💡 *Senior tip:* read the error.  \n"),
        };
        let text = render(card);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "**Borrowing** · rust · memory · Mid");
        assert_eq!(lines[2], "");
        assert_eq!(lines[3], "Body text.");
        assert_eq!(lines[5], "💡 *Senior tip:* read the error.");
        assert_eq!(lines[7], band("rust · mid"));
        assert!(!text.ends_with('\n'));
    }

    #[test]
    fn summary_stands_in_for_a_missing_body() {
        let card = CardView {
            title: "T",
            categories: &[],
            level: Level::Junior,
            topic_id: "git",
            summary: "The summary.",
            body: Some("   "),
        };
        let text = render(card);
        assert!(text.contains("\n**T** · Junior\n\nThe summary.\n\n"));
    }
}
