//! The leak guard over a generated corpus: every run of the hidden body's words the learner
//! cannot see is caught wherever it stands in a reply, however it is spaced or quoted; and
//! the learner's own visible code never is.

use devcoach_handson::leak::{LeakGuard, RUN};
use proptest::prelude::*;

/// A made-up body: identifiers unlike any English word, numbers and operators.
fn body() -> impl Strategy<Value = Vec<String>> {
    let word = "[a-z]{2,6}_[a-z]{2,6}|q[a-z]{3,8}[0-9]|[0-9]{2,4}";
    let mark = prop::sample::select(vec!["(", ")", "+", "-", "*", ".", ",", ";", "{", "}", "<", "=="]);
    prop::collection::vec(prop_oneof![word.prop_map(String::from), mark.prop_map(String::from)], RUN * 2..60)
}

/// Prose around a leak: plain lowercase words.
fn prose() -> impl Strategy<Value = String> {
    prop::collection::vec("[a-z]{1,7}", 0..12).prop_map(|w| w.join(" "))
}

proptest! {
    #[test]
    fn any_run_of_the_hidden_body_is_caught_in_any_reply(
        tokens in body(),
        at in any::<prop::sample::Index>(),
        before in prose(),
        after in prose(),
        spaced in any::<bool>(),
        quoted in any::<bool>(),
    ) {
        let hidden = tokens.join(" ");
        let guard = LeakGuard::new(&hidden, "fn visible(a: u32) -> u32 { todo!() }");
        // A stretch of the body holding RUN of its words, from one of its words on.
        let is_word = |t: &String| t.chars().next().is_some_and(char::is_alphanumeric);
        let starts: Vec<usize> = (0..tokens.len()).filter(|&i| is_word(&tokens[i])).collect();
        prop_assume!(starts.len() >= RUN);
        let start = starts[at.index(starts.len() - RUN + 1)];
        let end = starts[starts.iter().position(|&i| i == start).unwrap_or(0) + RUN - 1] + 1;
        let window = &tokens[start..end];
        let run = if spaced { window.join("  ") } else { window.concat() };
        // Concatenated, two words may merge into one: then it is no longer the same run.
        prop_assume!(spaced || window.windows(2).all(|p| !(is_word(&p[0]) && is_word(&p[1]))));
        let run = if quoted { format!("`{run}`") } else { run };
        let reply = format!("{before} {run} {after}");
        prop_assert!(guard.check(&reply).is_some(), "not caught: {reply:?} from {hidden:?}");
    }

    #[test]
    fn the_learner_s_visible_code_is_never_a_leak(tokens in body(), cut in any::<prop::sample::Index>()) {
        // The visible part is a prefix of the body (the learner wrote it, or the tests hold it).
        let split = cut.index(tokens.len());
        let visible = tokens[..split].join(" ");
        let guard = LeakGuard::new(&tokens.join(" "), &visible);
        prop_assert!(guard.check(&visible).is_none(), "{visible:?}");
    }
}
