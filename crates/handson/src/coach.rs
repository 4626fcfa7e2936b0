//! A model as the exercise's coach: what it is told, how its answers are read, and the guard
//! every answer passes before the learner sees it. No model is called here: the caller hands in
//! a function that asks one, so the same rules hold on the cloud and on a local backend.
//!
//! The model knows the hidden body (it cannot coach toward what it does not know); the learner
//! only ever sees what [`LeakGuard`] lets through. A judge's "missing" items are questions about
//! behaviour and are dropped one by one when they carry the body; a coach reply that carries it
//! is drafted again once with the reason, then withheld.

use crate::exercise::Exercise;
use crate::leak::LeakGuard;

/// At most this many gaps are shown for one list: the most important first.
pub const MISSING_SHOWN: usize = 3;
/// A reply is drafted at most this many times before it is withheld.
pub const DRAFTS: u32 = 2;

/// What the learner is shown instead of a reply that gave the body away twice.
pub const WITHHELD: &str = "(The coach's answer named your agent's code, so it is not shown. Ask it another way, \
                            run `check`, or `hint`.)";

fn exercise_facts(ex: &Exercise) -> String {
    let piece = &ex.candidate.piece;
    format!(
        "The function: {} in {} ({}).\nIts signature:\n<signature>\n{}\n</signature>\n\
         The tests that judge a rebuild: {}.\n\
         The body the learner must rebuild (hidden from them; never quote it):\n<hidden>\n{}\n</hidden>\n",
        piece.qualified,
        piece.path.display(),
        piece.lang.name(),
        piece.signature,
        ex.candidate.tests.join(", "),
        ex.hidden,
    )
}

/// The judge's instructions for a requirement list: a verdict, and what the list leaves out as
/// questions about behaviour, never as code or names from the body.
pub fn judge_prompt(ex: &Exercise, list: &[String]) -> String {
    let items: String = list.iter().flat_map(|l| ["- ", l.as_str(), "\n"]).collect();
    format!(
        "A learner is about to rebuild a function from their own project, and first lists what it must do. \
         Compare their list with what the hidden body and its tests actually require: inputs it must handle, \
         edge cases, what it returns or changes, errors. A list passes when nothing the tests depend on is \
         missing. Do not solve it, do not describe how the body works, and never use a name, expression or \
         line of the body.\n\n\
         Answer with exactly one JSON object and nothing else:\n\
         {{\"verdict\": \"passed\"}} or {{\"verdict\": \"incomplete\", \"missing\": [\"<question>\", ...]}}\n\
         where each <question> is one short question about behaviour the list does not cover \
         (at most {MISSING_SHOWN}, the most important first), such as \"What should it return for an empty input?\"\n\n\
         {}\nThe learner's list:\n<list>\n{items}</list>\n",
        exercise_facts(ex)
    )
}

/// A requirement list once judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    pub passed: bool,
    /// The gaps the learner may see (questions that passed the guard).
    pub missing: Vec<String>,
    /// Gaps dropped: they carried the body, or were not a short question.
    pub dropped: u32,
}

/// Reads a judge's reply; `None` when it holds no verdict (then the next judge is asked).
pub fn read_judgement(reply: &str, guard: &LeakGuard) -> Option<Judged> {
    let start = reply.find('{')?;
    let end = reply.rfind('}')?;
    let value: serde_json::Value = serde_json::from_str(reply.get(start..=end)?).ok()?;
    let passed = match value.get("verdict")?.as_str()?.trim().to_ascii_lowercase().as_str() {
        "passed" | "pass" => true,
        "incomplete" => false,
        _ => return None,
    };
    let mut missing: Vec<String> = Vec::new();
    let mut dropped = 0u32;
    if !passed {
        for item in value.get("missing").and_then(serde_json::Value::as_array).into_iter().flatten() {
            let Some(text) = item.as_str().map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")) else {
                dropped += 1;
                continue;
            };
            let fits = !text.is_empty()
                && text.chars().count() <= devcoach_core::limits::HANDSON_GAP_CHARS
                && !text.contains('`');
            // Shown together, the gaps must not carry the body between them either.
            let together = format!("{}\n{text}", missing.join("\n"));
            let fresh = !missing.contains(&text);
            if fits && fresh && missing.len() < MISSING_SHOWN && guard.check(&together).is_none() {
                missing.push(text);
            } else if fresh {
                dropped += 1;
            }
        }
    }
    Some(Judged { passed, missing, dropped })
}

/// The coach's standing instructions for one exercise.
pub fn system_prompt(ex: &Exercise) -> String {
    format!(
        "You coach a developer who is rebuilding, by hand, a function their AI agent wrote in their own project. \
         They write the code; you never do. Answer their questions in at most four short sentences: ask a question \
         back, point at a test or at what the last check said, or name a property of the input they have not \
         thought about. Never write code for the function, never use a name, expression or line of the hidden \
         body, and never describe its steps. If they ask for the answer, tell them `reveal` shows their agent's \
         version.\n\n{}",
        exercise_facts(ex)
    )
}

/// Where a question's copy of the learner's file begins (an older question's is cut there).
pub const ATTEMPT_MARK: &str = "\n\n[devcoach: the learner's file as it is now]";

/// What the learner asked, with what the coach needs to see of their attempt.
pub fn question_turn(question: &str, attempt: &str, last_check: Option<&str>) -> String {
    let check = last_check.map(|t| format!("\nThe last check said:\n<check>\n{t}\n</check>\n")).unwrap_or_default();
    format!("{question}{ATTEMPT_MARK}\n<attempt>\n{attempt}\n</attempt>\n{check}")
}

/// Said to the model when its draft carried the body.
pub fn redraft_turn() -> &'static str {
    "[devcoach: your answer used a name or a run of words from the hidden body, so the learner did not see it. \
     Answer again without any of the body's names or code: a question or a pointer at a test.]"
}

/// A coach's answer once guarded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guarded {
    /// What the learner sees: the answer, or [`WITHHELD`].
    pub text: String,
    /// Some draft carried the body.
    pub leaked: bool,
    pub drafts: u32,
    /// No draft could be shown.
    pub withheld: bool,
}

/// Asks for an answer through `ask` (given `None` for the first draft, then the redraft
/// instruction) and lets through only a draft the guard passes. `Err` is the model's failure,
/// passed on.
pub fn guarded<E>(guard: &LeakGuard, mut ask: impl FnMut(Option<&str>) -> Result<String, E>) -> Result<Guarded, E> {
    let mut leaked = false;
    for draft in 1..=DRAFTS {
        let text = ask((draft > 1).then(redraft_turn))?;
        let text = text.trim().to_owned();
        if guard.check(&text).is_none() && !text.is_empty() {
            return Ok(Guarded { text, leaked, drafts: draft, withheld: false });
        }
        leaked |= !text.is_empty();
    }
    Ok(Guarded { text: WITHHELD.to_owned(), leaked, drafts: DRAFTS, withheld: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HIDDEN: &str = "{\n    let total = line_items.iter().map(|item| item.price_cents * item.quantity).sum();\n    apply_discount(total, code)\n}";
    const VISIBLE: &str = "pub fn order_total(line_items: &[Item], code: &str) -> u64 {\n    todo!()\n}";

    fn guard() -> LeakGuard {
        LeakGuard::new(HIDDEN, VISIBLE)
    }

    #[test]
    fn gaps_that_carry_the_body_are_dropped_one_by_one() {
        let reply = "Here you go: {\"verdict\": \"incomplete\", \"missing\": [\
            \"What should it return when there are no items?\", \
            \"Did you think about apply_discount?\", \
            \"What happens with the price cents times the quantity?\", \
            \"`x`\", 7, \
            \"What should it return when there are no items?\", \
            \"Does a discount code change the total?\", \
            \"Is an unknown code an error?\", \
            \"One too many\"]}";
        let j = read_judgement(reply, &guard()).expect("a verdict");
        assert!(!j.passed);
        assert_eq!(
            j.missing,
            [
                "What should it return when there are no items?",
                "Does a discount code change the total?",
                "Is an unknown code an error?"
            ]
        );
        assert_eq!(j.dropped, 5, "the body's name, its run of words, the code span, the number and one too many");
        assert_eq!(
            read_judgement("{\"verdict\": \"passed\", \"missing\": [\"x\"]}", &guard()).map(|j| j.passed),
            Some(true)
        );
        assert_eq!(read_judgement("looks fine to me", &guard()), None);
        assert_eq!(read_judgement("{\"verdict\": \"maybe\"}", &guard()), None);
    }

    #[test]
    fn gaps_that_carry_the_body_only_together_are_not_all_shown() {
        let guard =
            LeakGuard::new("{ let total = a * rate + fee; total }", "fn price(a: u32, rate: u32, fee: u32) -> u32");
        // Each half of the run `total a rate fee` passes alone; the two read in a row do not.
        let reply = r#"{"verdict": "incomplete", "missing": ["What is the total a", "rate fee gives?"]}"#;
        assert!(guard.check("What is the total a").is_none() && guard.check("rate fee gives?").is_none());
        let j = read_judgement(reply, &guard).expect("a verdict");
        assert_eq!((j.missing.as_slice(), j.dropped), (&["What is the total a".to_owned()][..], 1));
    }

    #[test]
    fn a_leaking_draft_is_redrafted_once_then_withheld() {
        let g = guard();
        let mut asked = Vec::new();
        let mut drafts = ["Call apply_discount on the sum.", "Which test covers a discount code?"].into_iter();
        let out = guarded::<()>(&g, |nudge| {
            asked.push(nudge.map(str::to_owned));
            Ok(drafts.next().unwrap_or_default().to_owned())
        })
        .expect("answered");
        assert_eq!(
            out,
            Guarded { text: "Which test covers a discount code?".into(), leaked: true, drafts: 2, withheld: false }
        );
        assert_eq!(asked, [None, Some(redraft_turn().to_owned())]);

        let out = guarded::<()>(&g, |_| Ok("item.price_cents * item.quantity".to_owned())).expect("answered");
        assert!(out.withheld && out.leaked && out.text == WITHHELD);
        let out = guarded::<()>(&g, |_| Ok("What does the empty order return?".to_owned())).expect("answered");
        assert_eq!((out.drafts, out.leaked, out.withheld), (1, false, false));
        assert_eq!(guarded(&g, |_| Err("down")), Err("down"));
        assert!(g.check(WITHHELD).is_none() && g.check(redraft_turn()).is_none());
    }
}
