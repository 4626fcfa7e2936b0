//! Finding toolbox names in text: whole words, any case, with or without hyphens, underscores,
//! slashes or apostrophes, and with the usual English endings (`pointers`, `memoizing`,
//! `queries`, `dijkstra's`). One Aho-Corasick pass covers the whole vocabulary.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

/// Text folded for matching. Where folding dropped or merged bytes, `shifts` records the
/// folded offset and the original offset it came from; between shifts the two advance together
/// (a list of shifts, not an offset per byte: folding runs on every coach reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    pub text: String,
    shifts: Vec<(usize, usize)>,
}

impl Folded {
    fn origin(&self, folded: usize) -> usize {
        let i = self.shifts.partition_point(|(f, _)| *f <= folded);
        match i.checked_sub(1).map(|i| self.shifts[i]) {
            Some((f, o)) => o + (folded - f),
            None => folded,
        }
    }

    /// The original byte range of folded bytes `start..end`.
    fn original(&self, start: usize, end: usize) -> (usize, usize) {
        let from = self.origin(start);
        let to = if end == 0 { from } else { self.origin(end - 1) + 1 };
        (from, to)
    }
}

/// ASCII lowercase; apostrophes dropped; every run of whitespace, `-`, `_` or `/` becomes one
/// space. Other characters stay as they are, so offsets map back exactly.
pub fn fold(text: &str) -> Folded {
    let bytes = text.as_bytes();
    // Lowercase everything at once, then compact in place: most bytes stay where they are.
    let mut out = bytes.to_ascii_lowercase();
    let mut shifts: Vec<(usize, usize)> = Vec::new();
    // Set once a byte was dropped or merged: the next byte written starts a new shift.
    let mut shifted = false;
    let mut gap = false;
    let (mut w, mut r) = (0, 0);
    while r < bytes.len() {
        let b = out[r];
        if b < 0x80 {
            if b.is_ascii_whitespace() || matches!(b, b'-' | b'_' | b'/') {
                if !gap && w > 0 {
                    if shifted {
                        shifts.push((w, r));
                        shifted = false;
                    }
                    out[w] = b' ';
                    w += 1;
                } else {
                    shifted = true;
                }
                gap = true;
            } else if b == b'\'' {
                shifted = true;
            } else {
                if shifted {
                    shifts.push((w, r));
                    shifted = false;
                }
                out[w] = b;
                w += 1;
                gap = false;
            }
            r += 1;
            continue;
        }
        let c = text[r..].chars().next().unwrap_or('\u{fffd}');
        let len = c.len_utf8();
        if c.is_whitespace() {
            if !gap && w > 0 {
                if shifted {
                    shifts.push((w, r));
                }
                out[w] = b' ';
                w += 1;
            }
            // One space for a multi-byte character (or nothing): what follows has moved.
            shifted = true;
            gap = true;
        } else if c == '\u{2019}' {
            shifted = true;
        } else {
            if shifted {
                shifts.push((w, r));
                shifted = false;
            }
            out.copy_within(r..r + len, w);
            w += len;
            gap = false;
        }
        r += len;
    }
    out.truncate(w);
    // A trailing separator carries no meaning.
    if out.last() == Some(&b' ') {
        out.pop();
        shifts.retain(|(f, _)| *f < out.len());
    }
    // Whole characters and ASCII only were kept, so this is UTF-8.
    let text = String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Folded { text, shifts }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// A word character right before byte `at` (decoded, so an em dash or a curly quote is not one).
fn word_before(text: &str, at: usize) -> bool {
    text.get(..at).and_then(|t| t.chars().next_back()).is_some_and(char::is_alphanumeric)
}

/// No word character starts at byte `at`.
fn boundary_at(text: &str, at: usize) -> bool {
    text.get(at..).is_none_or(|t| t.chars().next().is_none_or(|c| !c.is_alphanumeric()))
}

/// Inflected forms that are everyday English first (`tried` is not a trie).
pub const ORDINARY_WORDS: [&str; 6] = ["tried", "tries", "primed", "prims", "stacked", "heaped"];

/// Endings accepted after a whole name, and after a name whose final `e` or `y` was dropped.
const ENDINGS: [&str; 5] = ["s", "es", "ed", "d", "ing"];
const AFTER_E: [&str; 2] = ["ing", "ed"];
const AFTER_Y: [&str; 2] = ["ies", "ied"];

#[derive(Debug, Clone, Copy)]
enum Stem {
    Whole,
    DroppedE,
    DroppedY,
}

#[derive(Debug, Clone, Copy)]
struct Pattern {
    entry: usize,
    stem: Stem,
    /// Whether the pattern starts and ends with a word character (then boundaries apply).
    word_start: bool,
    word_end: bool,
}

/// One place a name was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub entry: usize,
    /// Byte range in the original text (`end` exclusive).
    pub start: usize,
    pub end: usize,
}

pub struct NameMatcher {
    automaton: Option<AhoCorasick>,
    patterns: Vec<Pattern>,
}

impl NameMatcher {
    pub fn new<'a>(names: impl IntoIterator<Item = (usize, &'a str)>) -> Self {
        let mut texts = Vec::new();
        let mut patterns = Vec::new();
        for (entry, name) in names {
            let folded = fold(name).text;
            let Some(&first) = folded.as_bytes().first() else { continue };
            let last = folded.as_bytes()[folded.len() - 1];
            let (word_start, word_end) = (is_word_byte(first), is_word_byte(last));
            texts.push(folded.clone());
            patterns.push(Pattern { entry, stem: Stem::Whole, word_start, word_end });
            // A plural name also matches in the singular (`two pointers`, `two-pointer`).
            if let Some(singular) = singular(&folded) {
                texts.push(singular);
                patterns.push(Pattern { entry, stem: Stem::Whole, word_start, word_end });
            }
            let stem = match last {
                b'e' if folded.len() > 3 => Some(Stem::DroppedE),
                b'y' if folded.len() > 3 => Some(Stem::DroppedY),
                _ => None,
            };
            if let Some(stem) = stem {
                texts.push(folded[..folded.len() - 1].to_owned());
                patterns.push(Pattern { entry, stem, word_start, word_end: true });
            }
        }
        let automaton = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&texts)
            .ok();
        Self { automaton, patterns }
    }

    /// Every name found in `text`: whole words only; where names overlap, the longest wins
    /// (`binary search tree` is not also `binary search`).
    pub fn find(&self, text: &str) -> Vec<Found> {
        let Some(automaton) = &self.automaton else { return Vec::new() };
        let folded = fold(text);
        let mut hits: Vec<(usize, usize, usize)> = Vec::new();
        for m in automaton.find_overlapping_iter(folded.text.as_str()) {
            let pattern = self.patterns[m.pattern().as_usize()];
            if pattern.word_start && word_before(&folded.text, m.start()) {
                continue;
            }
            let Some(end) = ending(&folded.text, m.end(), pattern) else { continue };
            if end != m.end() {
                let word_start = folded.text[..end].rfind(' ').map_or(0, |i| i + 1);
                if ORDINARY_WORDS.contains(&&folded.text[word_start..end]) {
                    continue;
                }
            }
            hits.push((m.start(), end, pattern.entry));
        }
        // Leftmost, then longest; drop anything inside a kept match.
        hits.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut kept: Vec<Found> = Vec::new();
        let mut covered = 0;
        for (start, end, entry) in hits {
            if end <= covered && !kept.is_empty() {
                continue;
            }
            covered = covered.max(end);
            let (start, end) = folded.original(start, end);
            kept.push(Found { entry, start, end });
        }
        kept
    }
}

/// `two pointers` → `two pointer`, `multiple queries` → `multiple query`; short last words
/// (`bfs`) and words that only look plural (`bipartiteness`, `analysis`) stay as they are.
fn singular(folded: &str) -> Option<String> {
    let last = folded.rsplit(' ').next()?;
    if last.len() <= 3 || !last.ends_with('s') || ["ss", "us", "is"].iter().any(|e| last.ends_with(e)) {
        return None;
    }
    let stem = &folded[..folded.len() - 1];
    Some(match stem.strip_suffix("ie") {
        Some(base) => format!("{base}y"),
        None => stem.to_owned(),
    })
}

/// Where a match that ends at `end` really ends once an accepted ending is added, if it ends on
/// a word boundary at all.
fn ending(text: &str, end: usize, pattern: Pattern) -> Option<usize> {
    if !pattern.word_end {
        return Some(end);
    }
    let endings: &[&str] = match pattern.stem {
        Stem::Whole => {
            if boundary_at(text, end) {
                return Some(end);
            }
            &ENDINGS
        }
        Stem::DroppedE => &AFTER_E,
        Stem::DroppedY => &AFTER_Y,
    };
    let bytes = text.as_bytes();
    endings
        .iter()
        .find(|e| bytes[end..].starts_with(e.as_bytes()) && boundary_at(text, end + e.len()))
        .map(|e| end + e.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(names: &[&str]) -> NameMatcher {
        NameMatcher::new(names.iter().enumerate().map(|(i, n)| (i, *n)))
    }

    fn found(m: &NameMatcher, text: &str) -> Vec<(usize, String)> {
        m.find(text).into_iter().map(|f| (f.entry, text[f.start..f.end].to_owned())).collect()
    }

    #[test]
    fn folding_maps_back_to_the_original() {
        let folded = fold("  Two--Pointers_and  Kadane’s ");
        assert_eq!(folded.text, "two pointers and kadanes");
        let (s, e) = folded.original(0, 12);
        assert_eq!(&"  Two--Pointers_and  Kadane’s "[s..e], "Two--Pointers");
    }

    #[test]
    fn whole_words_any_case_and_endings() {
        let m =
            matcher(&["two pointers", "memoize", "query", "heap", "dijkstra", "binary search", "binary search tree"]);
        assert_eq!(found(&m, "Use TWO-POINTERS here"), vec![(0, "TWO-POINTERS".into())]);
        assert_eq!(found(&m, "memoizing helps; memoized"), vec![(1, "memoizing".into()), (1, "memoized".into())]);
        assert_eq!(found(&m, "many queries"), vec![(2, "queries".into())]);
        assert_eq!(found(&m, "heaps, heaped"), vec![(3, "heaps".into())], "heaped is ordinary English");
        assert_eq!(found(&m, "Dijkstra's idea"), vec![(4, "Dijkstra's".into())]);
        assert!(found(&m, "cheap heapify theheap").is_empty(), "{:?}", found(&m, "cheap heapify theheap"));
        assert_eq!(found(&m, "a binary search tree"), vec![(6, "binary search tree".into())]);
        assert_eq!(found(&m, "binary searching"), vec![(5, "binary searching".into())]);
        // Non-ASCII punctuation is not part of a word.
        assert_eq!(found(&m, "a heap\u{2014}then"), vec![(3, "heap".into())]);
        assert_eq!(found(&m, "\u{201c}two pointers\u{201d}\u{2026}"), vec![(0, "two pointers".into())]);
        assert!(found(&m, "h\u{e9}ap heap\u{e9}").is_empty(), "letters are letters in any script");
        let trie = matcher(&["trie"]);
        assert!(found(&trie, "I tried that; she tries again").is_empty());
        assert_eq!(found(&trie, "a trie"), vec![(0, "trie".into())]);
    }
}
