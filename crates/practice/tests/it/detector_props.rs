//! Property tests for the detectors besides the leak scan (which has its own): the code rules,
//! the pasteable-line check and the rung marker.

use devcoach_practice::{Verdict, classify_code, pasteable_line, rung};
use proptest::prelude::*;

/// Everyday words (no code keywords that would start a statement).
const WORDS: [&str; 24] = [
    "maybe", "values", "order", "largest", "smallest", "example", "second", "think", "should", "list", "answer",
    "problem", "about", "first", "there", "could", "numbers", "input", "output", "sum", "again", "careful", "length",
    "middle",
];

fn sentence() -> impl Strategy<Value = String> {
    (proptest::collection::vec(proptest::sample::select(WORDS.to_vec()), 4..14), prop_oneof![Just("."), Just("?")])
        .prop_map(|(words, end)| {
            let mut s = words.join(" ");
            if let Some(first) = s.get_mut(0..1) {
                first.make_ascii_uppercase();
            }
            s.push_str(end);
            s
        })
}

fn ident() -> impl Strategy<Value = String> {
    "[a-z][a-z_]{1,8}[0-9]?".prop_filter("not an English word", |s| !WORDS.contains(&s.as_str()))
}

/// A statement of code: an assignment from a call, an index or arithmetic, ending like code.
fn statement() -> impl Strategy<Value = String> {
    (ident(), ident(), ident(), 0u32..1000, prop_oneof![Just(";"), Just("")])
        .prop_map(|(a, b, c, n, end)| format!("{a} = {b}({c}[{n}]) + {n}{end}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The rules answer for any text, and never call plain sentences code.
    #[test]
    fn sentences_are_not_code(lines in proptest::collection::vec(sentence(), 1..5)) {
        let text = lines.join("\n");
        prop_assert_ne!(classify_code(&text), Verdict::Code, "{}", text);
    }

    #[test]
    fn statements_are_code(lines in proptest::collection::vec(statement(), 1..6), fence in any::<bool>()) {
        let body = lines.join("\n");
        let text = if fence { format!("```\n{body}\n```") } else { body };
        prop_assert_eq!(classify_code(&text), Verdict::Code, "{}", text);
    }

    /// Whatever is inside, a block fenced and tagged with a language is code, and the same text
    /// alone never reads as more than code.
    #[test]
    fn a_fence_tagged_with_a_language_is_code(text in "[^`]{0,400}") {
        prop_assert_eq!(classify_code(&format!("```rust\n{text}\n```")), Verdict::Code, "{}", text);
        prop_assert!(matches!(classify_code(&text), Verdict::Code | Verdict::NotCode | Verdict::Undecided));
    }

    /// A line of code in a reply is caught, fenced or inline; the same line typed by the
    /// learner first is theirs to discuss.
    #[test]
    fn pasteable_lines_are_caught_unless_the_learner_wrote_them(
        line in statement(),
        before in sentence(),
        inline in any::<bool>(),
    ) {
        let reply = if inline { format!("{before} Try `{line}` next.") } else { format!("{before}\n```\n{line}\n```") };
        prop_assert_eq!(pasteable_line(&reply, &[]), Some(line.clone()), "{}", reply);
        let learner = format!("my attempt:\n{line}\n");
        prop_assert_eq!(pasteable_line(&reply, &[&learner]), None);
        prop_assert_eq!(pasteable_line(&before, &[]), None);
    }

    /// Markers anywhere come out, the highest rung wins, and stripping twice changes nothing.
    #[test]
    fn rung_markers_are_read_and_removed(
        lines in proptest::collection::vec(sentence(), 1..6),
        rungs in proptest::collection::vec((1u8..=9, any::<prop::sample::Index>(), any::<bool>()), 0..3),
    ) {
        let mut text: Vec<String> = lines.clone();
        for (n, at, spaced) in &rungs {
            let marker = if *spaced { format!("<!-- rung:H{n} -->") } else { format!("<!--rung:h{n}-->") };
            text.insert(at.index(text.len() + 1), marker);
        }
        let (found, clean) = rung::strip(&text.join("\n"));
        prop_assert_eq!(found, rungs.iter().map(|(n, _, _)| *n).max());
        prop_assert!(!clean.to_ascii_lowercase().contains("rung:h"));
        prop_assert_eq!(clean.clone(), lines.join("\n"));
        prop_assert_eq!(rung::strip(&clean), (None, clean.clone()));
    }
}
