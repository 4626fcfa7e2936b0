//! A pasteable line of solution code in a coach reply: a line (or an inline code span) that is a
//! statement of code, unless the learner wrote it first.

use super::code::{Verdict, classify};

/// The first line of `reply` a learner could paste into a solution, if any. Lines the learner
/// already wrote (whitespace ignored) are theirs to discuss.
pub fn pasteable_line(reply: &str, learner_texts: &[&str]) -> Option<String> {
    let learner: Vec<String> =
        learner_texts.iter().flat_map(|t| t.lines()).map(squash).filter(|l| !l.is_empty()).collect();
    let theirs = |line: &str| {
        let line = squash(line);
        learner.iter().any(|l| l.contains(&line))
    };
    let mut in_fence = false;
    for line in reply.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            // Inside a fence any line of code counts, punctuation or not (`return best`).
            if t.len() >= 6 && classify(t) == Verdict::Code && !theirs(t) {
                return Some(t.to_owned());
            }
            continue;
        }
        if is_statement(t) && !theirs(t) {
            return Some(t.to_owned());
        }
        for span in inline_spans(t) {
            if is_statement(span) && !theirs(span) {
                return Some(span.to_owned());
            }
        }
    }
    None
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A line that the code rules call code by itself, and long enough to be a step of a solution
/// rather than a name (`nums[i]`, `left`).
fn is_statement(t: &str) -> bool {
    t.len() >= 8 && t.chars().any(|c| "=();{}:".contains(c)) && classify(t) == Verdict::Code
}

fn inline_spans(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_lines_are_found_and_prose_is_not() {
        assert_eq!(pasteable_line("Try this:\n```\nwhile left < right:\n```", &[]), Some("while left < right:".into()));
        assert_eq!(
            pasteable_line("Maybe `return sorted(nums)[-k]` works?", &[]),
            Some("return sorted(nums)[-k]".into())
        );
        assert_eq!(pasteable_line("What happens to `nums[mid]` when the target is larger?", &[]), None);
        assert_eq!(pasteable_line("What should happen when the input is empty?", &[]), None);
        // Their own line, quoted back.
        assert_eq!(
            pasteable_line(
                "In `if nums[mid] == target:` you compare values.",
                &["if nums[mid] == target:\n  return mid"]
            ),
            None
        );
    }
}
