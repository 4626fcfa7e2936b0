//! The leak guard of a hands-on exercise: no coach reply or hint may carry the hidden body.
//!
//! What counts as carrying it: an identifier only the hidden body has that reads as code (a
//! call, a field, `snake_case` or `camelCase`), or a run of [`RUN`] words of the body in a row
//! (identifiers and numbers, whatever stands between them) that the learner's visible code (the
//! stubbed file, the tests) does not already hold. Spacing, punctuation and quoting do not
//! matter: words are compared, not text. A short line of the body is caught too: [`CODE`]
//! tokens in a row, words and operators both (`gross = sum(prices`), as the body writes them.

use std::collections::BTreeSet;
use std::collections::HashSet;

/// How many of the body's words in a row make a leak.
pub const RUN: usize = 4;
/// How many of the body's tokens in a row, operators counted, make a leak of code.
pub const CODE: usize = 5;

/// Words of the languages themselves: never a leak on their own.
const KEYWORDS: [&str; 59] = [
    "fn",
    "let",
    "mut",
    "for",
    "while",
    "loop",
    "if",
    "else",
    "match",
    "return",
    "in",
    "as",
    "pub",
    "impl",
    "self",
    "Self",
    "struct",
    "enum",
    "use",
    "mod",
    "const",
    "static",
    "def",
    "class",
    "lambda",
    "yield",
    "not",
    "and",
    "or",
    "is",
    "None",
    "True",
    "False",
    "pass",
    "raise",
    "try",
    "except",
    "with",
    "function",
    "var",
    "new",
    "this",
    "typeof",
    "null",
    "undefined",
    "true",
    "false",
    "throw",
    "catch",
    "func",
    "range",
    "nil",
    "go",
    "defer",
    "type",
    "break",
    "continue",
    "some",
    "ok",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Mark(char),
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(Token::Word(std::mem::take(&mut word)));
        }
        // Quotes and backticks are how prose wraps code: they are not the code.
        if !c.is_whitespace() && !matches!(c, '`' | '"' | '\'') {
            out.push(Token::Mark(c));
        }
    }
    if !word.is_empty() {
        out.push(Token::Word(word));
    }
    out
}

/// The words of `tokens`, in order.
fn words(tokens: &[Token]) -> Vec<&str> {
    tokens
        .iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.as_str()),
            Token::Mark(_) => None,
        })
        .collect()
}

fn runs<'a>(words: &'a [&'a str]) -> impl Iterator<Item = String> + 'a {
    words.windows(RUN).map(|run| run.join(" "))
}

/// Windows of [`CODE`] tokens that read as code: two words at least, joined by an operator.
fn fragments(tokens: &[Token]) -> impl Iterator<Item = String> + '_ {
    tokens.windows(CODE).filter_map(|window| {
        let words = window.iter().filter(|t| matches!(t, Token::Word(_))).count();
        let marks =
            window.iter().filter(|t| matches!(t, Token::Mark(m) if !matches!(m, ',' | ';' | ':' | '!' | '?'))).count();
        (words >= 2 && marks >= 1).then(|| {
            window
                .iter()
                .map(|t| match t {
                    Token::Word(w) => w.clone(),
                    Token::Mark(m) => m.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
    })
}

/// What was found in a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leak {
    /// An identifier only the hidden body has.
    Name(String),
    /// A run of the hidden body's tokens.
    Run(String),
    /// A fragment of the body's code, operators and all.
    Code(String),
    /// A control character, which a terminal drops or acts on.
    Unprintable(char),
}

/// Whether a terminal draws nothing for `c`: Unicode's invisible format characters.
fn invisible(c: char) -> bool {
    matches!(c,
            '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}' | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{ffa0}' | '\u{fff0}'..='\u{fff8}' | '\u{e0000}'..='\u{e0fff}')
}

/// Built once per exercise from the hidden body and what the learner can see.
#[derive(Debug, Clone)]
pub struct LeakGuard {
    names: BTreeSet<String>,
    runs: HashSet<String>,
    code: HashSet<String>,
}

impl LeakGuard {
    pub fn new(hidden: &str, visible: &str) -> Self {
        let hidden_tokens = tokens(hidden);
        let visible_tokens = tokens(visible);
        let visible_list = words(&visible_tokens);
        let visible_words: HashSet<&str> = visible_list.iter().copied().collect();
        let visible_runs: HashSet<String> = runs(&visible_list).collect();
        let mut names = BTreeSet::new();
        for (i, t) in hidden_tokens.iter().enumerate() {
            let Token::Word(w) = t else { continue };
            if w.len() < 3 || visible_words.contains(w.as_str()) || KEYWORDS.contains(&w.as_str()) {
                continue;
            }
            if w.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let called = hidden_tokens.get(i + 1) == Some(&Token::Mark('('));
            let member = i > 0 && hidden_tokens.get(i - 1) == Some(&Token::Mark('.'));
            let codeish = w.contains('_') || w.chars().skip(1).any(char::is_uppercase);
            // A short call or field (`sum`, `len`, `map`) is also a plain word of any reply.
            if codeish || ((called || member) && w.chars().count() >= 4) {
                names.insert(w.clone());
            }
        }
        let hidden_list = words(&hidden_tokens);
        let runs = runs(&hidden_list).filter(|k| !visible_runs.contains(k)).collect();
        let visible_code: HashSet<String> = fragments(&visible_tokens).collect();
        let code = fragments(&hidden_tokens).filter(|k| !visible_code.contains(k)).collect();
        Self { names, runs, code }
    }

    /// The first leak in `reply`, if it carries any.
    pub fn check(&self, reply: &str) -> Option<Leak> {
        // What a terminal drops (escape sequences, controls) could split a name for this check
        // and join it again on the screen: a reply that holds any is not shown. What it draws as
        // nothing (zero-width and other format characters, an emoji's joiners too) is read as
        // the eye reads it: without them.
        if let Some(c) = reply.chars().find(|&c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')) {
            return Some(Leak::Unprintable(c));
        }
        let seen: String = reply.chars().filter(|&c| !invisible(c)).collect();
        let reply_tokens = tokens(&seen);
        for t in &reply_tokens {
            if let Token::Word(w) = t {
                if self.names.contains(w) {
                    return Some(Leak::Name(w.clone()));
                }
                // A name spelled with a look-alike letter (`аpply_total`, a Cyrillic а).
                if let Some(name) = self.looks_like_a_name(w) {
                    return Some(Leak::Name(name));
                }
            }
        }
        let reply_words = words(&reply_tokens);
        if let Some(run) = runs(&reply_words).find(|k| self.runs.contains(k)) {
            return Some(Leak::Run(run));
        }
        fragments(&reply_tokens).find(|k| self.code.contains(k)).map(Leak::Code)
    }

    /// The name `word` reads as when its letters outside ASCII are look-alikes: same length,
    /// every ASCII letter in its place, and mostly ASCII.
    fn looks_like_a_name(&self, word: &str) -> Option<String> {
        if word.is_ascii() {
            return None;
        }
        let chars: Vec<char> = word.chars().collect();
        let ascii = chars.iter().filter(|c| c.is_ascii()).count();
        if chars.len() < 4 || ascii * 2 < chars.len() {
            return None;
        }
        self.names
            .iter()
            .find(|name| {
                name.chars().count() == chars.len() && name.chars().zip(&chars).all(|(n, w)| !w.is_ascii() || n == *w)
            })
            .cloned()
    }

    /// The names the guard watches for (for the session log's count, never shown).
    pub fn watched(&self) -> usize {
        self.names.len() + self.runs.len() + self.code.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HIDDEN: &str = "{\n    text.bytes().fold(0u8, |sum, b| sum.wrapping_add(b))\n}";
    const VISIBLE: &str = "pub fn checksum(text: &str) -> u8 {\n    todo!()\n}\n#[test]\nfn checksum_of_known_text() { assert_eq!(checksum(\"ab\"), 195); }";

    #[test]
    fn a_name_or_a_run_only_the_body_has_is_a_leak() {
        let guard = LeakGuard::new(HIDDEN, VISIBLE);
        assert_eq!(guard.check("Try `wrapping_add` on each byte."), Some(Leak::Name("wrapping_add".into())));
        assert_eq!(guard.check("Have you looked at fold?"), Some(Leak::Name("fold".into())));
        let plain =
            LeakGuard::new("{ let total = a * rate + fee; total }", "fn price(a: u32, rate: u32, fee: u32) -> u32");
        assert_eq!(plain.check("so total = a * rate + fee?"), Some(Leak::Run("total a rate fee".into())));
        assert_eq!(plain.check("what is the total?"), None, "one plain word is not a leak");
        assert_eq!(guard.check("What should the checksum of an empty text be?"), None);
        assert_eq!(LeakGuard::new("{ sum(xs) }", "fn f(xs: &[u8])").check("add up the sum of them"), None);
        assert_eq!(guard.check("Which test fails, and what does it expect for \"ab\"?"), None);
        assert!(guard.watched() > 3);
        // A short line of the body: too few words for a run, but code as the body writes it.
        let short = LeakGuard::new(
            "{\n    gross = sum(prices)\n    return round(gross * (100 - discount) / 100, 2)\n}",
            "def total(prices, discount=0):\n    \"\"\"The sum of the prices.\"\"\"\n    raise NotImplementedError()",
        );
        assert_eq!(short.check("Try: gross = sum(prices) first."), Some(Leak::Code("gross = sum ( prices".into())));
        assert_eq!(short.check("What is the gross sum of the prices?"), None, "the same words as prose are not code");
        assert_eq!(short.check("What does total(prices, discount=0) give for no prices?"), None);
    }

    #[test]
    fn a_name_split_by_what_a_terminal_hides_or_spelled_with_look_alikes_is_a_leak() {
        let guard = LeakGuard::new(HIDDEN, VISIBLE);
        for split in ["wrapping\u{1}_add", "wrapping\x1b[0m_add"] {
            assert!(matches!(guard.check(&format!("Try {split}.")), Some(Leak::Unprintable(_))), "{split:?}");
        }
        for split in ["wrapping\u{200b}_add", "wrap\u{ad}ping_add", "wrapping\u{200d}_add"] {
            assert_eq!(guard.check(&format!("Try {split}.")), Some(Leak::Name("wrapping_add".into())), "{split:?}");
        }
        assert_eq!(guard.check("Done ✔\u{fe0f} — which test fails? 👨\u{200d}💻"), None, "emoji are not leaks");
        assert_eq!(guard.check("Try wrаpping_add."), Some(Leak::Name("wrapping_add".into())), "a Cyrillic а");
        assert_eq!(guard.check("Für jedes Byte: was erwartet der Test?"), None, "prose in another language");
        assert_eq!(guard.check("Line one.\n\tLine two.\r\n"), None);
    }

    #[test]
    fn what_the_learner_already_sees_is_not_a_leak() {
        let guard = LeakGuard::new("{ let total = checksum(text); total }", VISIBLE);
        assert_eq!(guard.check("checksum(text) is what the test calls"), None);
    }
}
