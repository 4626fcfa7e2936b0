//! A handful of ANSI styles; nothing else in the binary writes escape codes.

use unicode_width::UnicodeWidthStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    Bold,
    Dim,
    Italic,
    Red,
    Green,
    Yellow,
    Cyan,
    BoldCyan,
}

impl Style {
    fn code(self) -> Option<&'static str> {
        match self {
            Self::Plain => None,
            Self::Bold => Some("1"),
            Self::Dim => Some("2"),
            Self::Italic => Some("3"),
            Self::Red => Some("31"),
            Self::Green => Some("32"),
            Self::Yellow => Some("33"),
            Self::Cyan => Some("36"),
            Self::BoldCyan => Some("1;36"),
        }
    }

    pub fn paint(self, text: &str, enabled: bool) -> String {
        let mut out = String::with_capacity(text.len() + 10);
        self.paint_into(&mut out, text, enabled);
        out
    }

    /// Appends `text`, styled when `enabled`, to `out`. The text is cleaned first: a style is
    /// only ever ours, around text that carries none of its own.
    pub fn paint_into(self, out: &mut String, text: &str, enabled: bool) {
        self.paint_cleaned_into(out, &super::clean::clean(text), enabled);
    }

    /// As [`Self::paint_into`], for text already cleaned (a table cell is cleaned once, before
    /// it is measured).
    pub fn paint_cleaned_into(self, out: &mut String, text: &str, enabled: bool) {
        match self.code() {
            Some(code) if enabled && !text.is_empty() => {
                out.push_str("\x1b[");
                out.push_str(code);
                out.push('m');
                out.push_str(text);
                out.push_str("\x1b[0m");
            }
            _ => out.push_str(text),
        }
    }
}

/// The colour for a confidence: strong green, middling yellow, weak red.
pub fn confidence_style(confidence: i64) -> Style {
    match confidence {
        7.. => Style::Green,
        4..=6 => Style::Yellow,
        _ => Style::Red,
    }
}

/// Display width of text without escape codes.
pub fn width(text: &str) -> usize {
    if text.is_ascii() { text.len() } else { UnicodeWidthStr::width(text) }
}

/// Cuts text to at most `max` columns, ending in `…` when cut.
pub fn truncate(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if width(text) <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(cut(text, max).0)
}

/// Cuts text wider than `max` columns to fewer, ending in `…`, and says how wide the cut is as
/// [`width`] measures it (a table cuts a title a row: printable ASCII is not measured again).
pub fn cut(text: &str, max: usize) -> (String, usize) {
    debug_assert!(width(text) > max, "only text wider than {max} is cut");
    if super::clean::printable_ascii(text) {
        // One column a byte. Not for a tab (code lines keep theirs), which the loop counts as none.
        let keep = max.saturating_sub(1).min(text.len());
        let mut out = String::with_capacity(keep + '…'.len_utf8());
        out.push_str(&text[..keep]);
        out.push('…');
        return (out, keep + 1);
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > max.saturating_sub(1) {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    // Measured as every other text is (a joined emoji counts once, not as its parts).
    let used = width(&out);
    (out, used)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn painting_only_when_enabled() {
        assert_eq!(Style::Red.paint("x", false), "x");
        assert_eq!(Style::Red.paint("x", true), "\x1b[31mx\x1b[0m");
        assert_eq!(Style::Plain.paint("x", true), "x");
    }

    #[test]
    fn a_tab_is_cut_as_before() {
        // Tabs count for no column, printable ASCII for one: the same cut either way.
        assert_eq!(truncate("\t\t\treturn someFunctionW(x)", 20), "\t\t\treturn someFunction…");
        assert_eq!(truncate("return someFunctionW(x)", 20), "return someFunction…");
    }

    #[test]
    fn a_cut_says_how_wide_it_is() {
        for (text, max) in
            [("abcdefghij", 5), ("🎓🎓🎓", 4), ("🎓🎓🎓", 3), ("\t\tcode line here", 6), ("é-é-é-é", 3), ("abc", 0)]
        {
            let (cut, used) = cut(text, max);
            assert_eq!(used, width(&cut), "{text:?} at {max}");
            assert!(cut.ends_with('…'));
            assert_eq!(truncate(text, max), cut.as_str());
        }
    }

    #[test]
    fn truncation_counts_columns() {
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(truncate("abcdefghij", 5), "abcd…");
        assert_eq!(width("🎓"), 2);
        assert_eq!(truncate("🎓🎓🎓", 4), "🎓…");
    }
}
