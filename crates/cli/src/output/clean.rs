//! The one sanitiser between text that came from outside (lessons, topics, groups, courses,
//! share names, problem statements, model replies) and a terminal.
//!
//! A terminal acts on more than it shows: escape sequences clear the screen, set the window
//! title, write the clipboard (OSC 52) or draw links (OSC 8); a carriage return or backspace
//! overwrites what was printed; bidirectional overrides reorder it. Everything of the kind is
//! removed whole (an escape sequence with its parameters, not just its first byte): C0 controls
//! but newline and tab, DEL, C1 controls (which some terminals read as escapes), and the
//! bidirectional formatting characters. The output module's door runs it on everything it prints;
//! with colours on, it keeps only the sequences the module writes itself (the few SGR styles and
//! OSC 8 links to this machine's dashboard).

use std::borrow::Cow;

/// Whether `c` is a bidirectional formatting character (it reorders the text around it).
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// Whether `c` must not reach a terminal as it is.
fn is_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi(c)
}

/// The SGR parameter strings the style module writes.
const OWN_SGR: [&str; 9] = ["0", "1", "2", "3", "31", "32", "33", "36", "1;36"];

/// What kind of sequence of ours an escape is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Own {
    No,
    Style,
    /// An OSC 8 link to this machine's dashboard.
    LinkOpen,
    /// The end of a link (kept only after one of ours opened).
    LinkClose,
}

/// Where an escape sequence that starts at `chars[i]` ends (exclusive), and whether it is one of
/// ours (only looked for when `own` is true).
fn sequence(chars: &[char], i: usize, own: bool) -> (usize, Own) {
    let c = chars[i];
    // The introducer: ESC and the next character, or a C1 control standing for both.
    let (kind, mut j) = match c {
        '\u{1b}' => match chars.get(i + 1) {
            Some(&next) => (next, i + 2),
            None => return (i + 1, Own::No),
        },
        '\u{9b}' => ('[', i + 1),
        '\u{9d}' => (']', i + 1),
        '\u{90}' => ('P', i + 1),
        '\u{98}' => ('X', i + 1),
        '\u{9e}' => ('^', i + 1),
        '\u{9f}' => ('_', i + 1),
        _ => return (i + 1, Own::No),
    };
    match kind {
        // CSI: parameters, intermediates, one final byte.
        '[' => {
            let start = j;
            while chars.get(j).is_some_and(|c| ('\u{30}'..='\u{3f}').contains(c)) {
                j += 1;
            }
            let params: String = chars[start..j].iter().collect();
            while chars.get(j).is_some_and(|c| ('\u{20}'..='\u{2f}').contains(c)) {
                j += 1;
            }
            match chars.get(j) {
                Some(f) if ('\u{40}'..='\u{7e}').contains(f) => {
                    let ours = own && c == '\u{1b}' && *f == 'm' && OWN_SGR.contains(&params.as_str());
                    (j + 1, if ours { Own::Style } else { Own::No })
                }
                _ => (j, Own::No),
            }
        }
        // OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \ or the C1 ST), or the line's end.
        ']' | 'P' | 'X' | '^' | '_' => {
            let start = j;
            let (end, closed) = loop {
                match chars.get(j) {
                    None | Some('\n') => break (j, false),
                    Some('\u{7}' | '\u{9c}') => break (j + 1, true),
                    Some('\u{1b}') if chars.get(j + 1) == Some(&'\\') => break (j + 2, true),
                    Some(_) => j += 1,
                }
            };
            let body: String = chars[start..j.min(chars.len())].iter().collect();
            // Only a closed link is ours: an open one would leave the terminal inside the string,
            // taking what follows into it.
            let ours = if own && closed && kind == ']' && c == '\u{1b}' { own_link(&body) } else { Own::No };
            (end, ours)
        }
        // nF escapes: ESC, intermediates, a final byte (`ESC ( 0` switches the character set).
        _ if ('\u{20}'..='\u{2f}').contains(&kind) => {
            while chars.get(j).is_some_and(|c| ('\u{20}'..='\u{2f}').contains(c)) {
                j += 1;
            }
            if chars.get(j).is_some_and(|c| ('\u{30}'..='\u{7e}').contains(c)) {
                j += 1;
            }
            (j, Own::No)
        }
        // Two-character escapes (`ESC c` resets the terminal, `ESC 7` saves the cursor).
        _ if ('\u{30}'..='\u{7e}').contains(&kind) => (j, Own::No),
        // A lone ESC before anything else: only the ESC goes (a newline after it stays).
        _ => (i + 1, Own::No),
    }
}

/// An OSC 8 hyperlink this module writes (to the dashboard on this machine), or a link's end.
fn own_link(body: &str) -> Own {
    match body.strip_prefix("8;;") {
        Some("") => Own::LinkClose,
        Some(url) if is_dashboard_url(url) => Own::LinkOpen,
        _ => Own::No,
    }
}

/// `http://localhost:PORT` or `http://127.0.0.1:PORT`, then nothing or a path of visible ASCII:
/// no user part (`localhost:1@evil`), no other host, nothing a terminal would act on.
fn is_dashboard_url(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://localhost:").or_else(|| url.strip_prefix("http://127.0.0.1:")) else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (port, path) = rest.split_at(digits);
    (1..=5).contains(&port.len())
        && port.parse::<u16>().is_ok_and(|p| p > 0)
        && (path.is_empty() || path.starts_with('/'))
        && path.bytes().all(|b| b.is_ascii_graphic())
}

/// Whether `text` holds any character [`is_control`] names, read byte by byte: nearly every
/// line printed holds none, and this is the whole cost of printing it.
/// The bytes that can begin something [`filter`] removes: one lookup per byte passes the rest.
const MAYBE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b != b'\n' as usize && b != b'\t' as usize;
        b += 1;
    }
    table[0x7f] = true;
    table[0xc2] = true;
    table[0xd8] = true;
    table[0xe2] = true;
    table
};

/// Whether all eight bytes of `x` are printable ASCII (0x20–0x7e).
fn printable_word(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let low = x.wrapping_sub(ONES * 0x20) & !x;
    let del = (x ^ (ONES * 0x7f)).wrapping_sub(ONES) & !(x ^ (ONES * 0x7f));
    (low | del | x) & HIGH == 0
}

/// Whether every byte of `text` is printable ASCII: then it needs no cleaning, holds no
/// newline or tab, and is as many columns wide as it is long (a table's cells nearly always).
pub fn printable_ascii(text: &str) -> bool {
    let mut words = text.as_bytes().chunks_exact(8);
    words.by_ref().all(|w| <[u8; 8]>::try_from(w).is_ok_and(|w| printable_word(u64::from_le_bytes(w))))
        && words.remainder().iter().all(|b| (0x20..0x7f).contains(b))
}

fn has_control(text: &str) -> bool {
    // Eight bytes at a time while they are printable ASCII (most text); a word holding a byte
    // below 0x20, DEL or a byte with the high bit set is looked at byte by byte.
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let end = (i + 8).min(bytes.len());
        if let Ok(word) = <[u8; 8]>::try_from(&bytes[i..end])
            && printable_word(u64::from_le_bytes(word))
        {
            i = end;
            continue;
        }
        if (i..end).any(|j| MAYBE[usize::from(bytes[j])] && starts_control(bytes, j)) {
            return true;
        }
        i = end;
    }
    false
}

/// Whether the byte at `i` (one [`MAYBE`] lets through) begins a character [`is_control`] names.
fn starts_control(bytes: &[u8], i: usize) -> bool {
    match bytes[i] {
        b'\n' | b'\t' => false,
        0x00..=0x1f | 0x7f => true,
        // C1 controls (U+0080–U+009F).
        0xc2 => bytes.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)),
        // U+061C.
        0xd8 => bytes.get(i + 1) == Some(&0x9c),
        // U+200E, U+200F, U+202A–U+202E; U+2066–U+2069.
        0xe2 => match (bytes.get(i + 1), bytes.get(i + 2)) {
            (Some(0x80), Some(t)) => matches!(t, 0x8e | 0x8f | 0xaa..=0xae),
            (Some(0x81), Some(t)) => (0xa6..=0xa9).contains(t),
            _ => false,
        },
        _ => false,
    }
}

fn filter(text: &str, own: bool) -> Cow<'_, str> {
    if !has_control(text) {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut link_open = false;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '\u{1b}' | '\u{9b}' | '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}') {
            let (end, kind) = sequence(&chars, i, own);
            let keep = match kind {
                Own::No => false,
                Own::Style => true,
                Own::LinkOpen => !std::mem::replace(&mut link_open, true),
                Own::LinkClose => std::mem::replace(&mut link_open, false),
            };
            if keep {
                out.extend(&chars[i..end]);
            }
            i = end.max(i + 1);
            continue;
        }
        if !is_control(c) {
            out.push(c);
        }
        i += 1;
    }
    Cow::Owned(out)
}

/// Outside text made safe to show: every control sequence and control character removed.
pub fn clean(text: &str) -> Cow<'_, str> {
    filter(text, false)
}

/// What the output module writes: like [`clean`], but with `own_styles` the module's own
/// styles and dashboard links stay.
pub(crate) fn door(text: &str, own_styles: bool) -> Cow<'_, str> {
    filter(text, own_styles)
}

/// The hostile strings the tests feed every front end: each kind of sequence a terminal acts on.
#[cfg(test)]
pub(crate) const CORPUS: &[&str] = &[
    "\u{1b}]52;c;cHduZWQ=\u{7}",
    "\u{1b}[2J\u{1b}[H",
    "\u{1b}]8;;https://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\",
    "\u{1b}]0;pwned title\u{7}",
    "\u{1b}P+q544e\u{1b}\\",
    "\u{1b}",
    "\u{7}",
    "abc\u{8}\u{8}\u{8}xyz",
    "safe\rEVIL",
    "\u{202e}txt.exe",
    "\u{2066}isolate\u{2069}",
    "\u{9b}2J",
    "\u{9d}52;c;eA==\u{9c}",
    "\u{1b}[31mred\u{1b}[0m",
    "\u{1b}c",
    "\u{1b}(0lqk",
    "\u{1b}]52;c;unterminated",
    "\u{7f}del",
    "\u{0}nul",
    "\u{1b}]8;;http://localhost:1@evil.example/\u{7}click\u{1b}]8;;\u{7}",
    "\u{1b}]8;;http://localhost:7860/\u{1b}]52;c;eA==\u{7}x",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// No character a terminal acts on is left.
    fn inert(s: &str) -> bool {
        !s.chars().any(is_control)
    }

    #[test]
    fn every_kind_of_sequence_goes_whole() {
        for hostile in CORPUS {
            let cleaned = clean(hostile);
            assert!(inert(&cleaned), "{hostile:?} -> {cleaned:?}");
        }
        assert_eq!(clean("\u{1b}]52;c;cHduZWQ=\u{7}title"), "title", "the parameters go with the escape");
        assert_eq!(clean("a\u{1b}[2Jb"), "ab");
        assert_eq!(clean("\u{1b}]8;;https://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\"), "click");
        assert_eq!(clean("safe\rEVIL"), "safeEVIL");
        assert_eq!(clean("line\nnext\ttab"), "line\nnext\ttab", "newlines and tabs are text");
        assert_eq!(clean("\u{1b}]52;c;unterminated\nnext line"), "\nnext line", "an open string ends with its line");
        assert_eq!(clean("plain ünïcode 🎓"), "plain ünïcode 🎓");
    }

    #[test]
    fn the_door_keeps_only_our_own_styles_and_links() {
        let ours = "\u{1b}[1;36mtitle\u{1b}[0m \u{1b}]8;;http://localhost:7860\u{7}open\u{1b}]8;;\u{7}";
        assert_eq!(door(ours, true), ours);
        assert_eq!(door(ours, false), "title open", "without colours nothing of it stays");
        let path = "\u{1b}]8;;http://127.0.0.1:7860/lessons/12?x=1\u{1b}\\open\u{1b}]8;;\u{1b}\\";
        assert_eq!(door(path, true), path, "a dashboard path stays");
        for hostile in [
            "\u{1b}[2J",
            "\u{1b}]52;c;eA==\u{7}",
            "\u{1b}]8;;https://evil.example\u{7}x",
            "\u{1b}]8;;https://evil.example\u{1b}\\x\u{1b}]8;;\u{1b}\\",
            "\u{1b}[38;5;196m",
            "\u{9b}31m",
            "\u{1b}]8;;http://localhost:1@evil.example/\u{7}x",
            "\u{1b}]8;;http://localhost:7860.evil.example\u{7}x",
            "\u{1b}]8;;http://127.0.0.1:7860/\u{1b}]52;c;eA==\u{7}x",
            "\u{1b}]8;;http://localhost:7860/\u{1b}[2J\u{7}x",
            "\u{1b}]8;;http://localhost:7860/\u{9b}2J\u{7}x",
            "\u{1b}]8;;http://localhost:99999\u{7}x",
            "\u{1b}]8;;http://localhost:\u{7}x",
            "\u{1b}]8;;http://localhost:7860\n",
            "\u{1b}]8;;http://localhost:7860/lessons",
        ] {
            assert!(!door(hostile, true).contains(['\u{1b}', '\u{9b}']), "{hostile:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_byte_check_finds_what_the_character_check_finds(
            // The last: one character of any kind at any offset of the eight-byte words.
            s in "\\PC*|[\\x00-\\x1f\\x7f-\\u{a0}\\u{61b}-\\u{61d}\\u{200d}-\\u{2010}\\u{2029}-\\u{202f}\\u{2065}-\\u{206a}a\\n\\t]{0,40}|.{0,40}|[ -~]{0,27}[\\x00-\\x1f\\x7f-\\u{a0}\\u{61c}\\u{200e}\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}é│]?[ -~]{0,27}",
        ) {
            proptest::prop_assert_eq!(has_control(&s), s.chars().any(is_control), "{:?}", s);
            proptest::prop_assert_eq!(printable_ascii(&s), s.bytes().all(|b| (0x20..0x7f).contains(&b)), "{:?}", s);
        }

        #[test]
        fn nothing_a_terminal_acts_on_survives(s in "\\PC*|[\\x00-\\x1f\\x7f-\\u{9f}\\u{202a}-\\u{202e}a\\[\\];]{0,40}") {
            let cleaned = clean(&s);
            proptest::prop_assert!(inert(&cleaned), "{:?} -> {:?}", s, cleaned);
            let kept = door(&s, true);
            proptest::prop_assert!(!kept.contains(['\u{7}', '\u{9b}', '\u{9d}', '\u{202e}', '\r', '\u{8}']), "{:?}", kept);
            let again = clean(&cleaned);
            proptest::prop_assert_eq!(again.as_ref(), cleaned.as_ref(), "cleaning twice changes nothing");
        }
    }
}
