//! The leak guard's scan: toolbox names in a coach reply that the learner has not typed yet.

use std::collections::HashSet;

use crate::toolbox::Toolbox;

/// One name the reply gave away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeakHit {
    /// The toolbox entry's id.
    pub id: String,
    /// The words as they appear in the reply.
    pub text: String,
    /// The problem statement names it too (it still counts: the statement's tags and hints
    /// name the answer, so they are not the learner's words).
    pub in_statement: bool,
}

/// Names in `reply` from the toolbox, minus every entry the learner named in any of
/// `learner_texts` (by its name or any alias). `statement` only marks hits; it exempts nothing.
pub fn scan(toolbox: &Toolbox, reply: &str, learner_texts: &[&str], statement: Option<&str>) -> Vec<LeakHit> {
    let matcher = toolbox.matcher();
    let found = matcher.find(reply);
    if found.is_empty() {
        return Vec::new();
    }
    let learner: HashSet<usize> = learner_texts.iter().flat_map(|t| matcher.find(t)).map(|f| f.entry).collect();
    let stated: HashSet<usize> =
        statement.map(|s| matcher.find(s).into_iter().map(|f| f.entry).collect()).unwrap_or_default();
    found
        .into_iter()
        .filter(|f| !learner.contains(&f.entry))
        .map(|f| LeakHit {
            id: toolbox.entries()[f.entry].id.clone(),
            text: reply[f.start..f.end].to_owned(),
            in_statement: stated.contains(&f.entry),
        })
        .collect()
}

/// The entries named anywhere in `text` (ids, in order of first mention, no repeats).
pub fn named(toolbox: &Toolbox, text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    toolbox
        .matcher()
        .find(text)
        .into_iter()
        .filter(|f| seen.insert(f.entry))
        .map(|f| toolbox.entries()[f.entry].id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_learner_typed_are_exempt_and_the_statement_is_not() {
        let toolbox = Toolbox::builtin();
        let reply = "Have you thought about a sliding window, or maybe Two Pointers?";
        let hits = scan(toolbox, reply, &[], None);
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["sliding-window", "two-pointers"]);
        assert_eq!(hits[1].text, "Two Pointers");
        // The learner said "two-pointer technique" (another spelling): that entry is theirs now.
        let hits = scan(toolbox, reply, &["maybe a two-pointer approach?"], None);
        assert_eq!(hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["sliding-window"]);
        // A statement naming it exempts nothing, but is noted.
        let hits = scan(toolbox, reply, &[], Some("Tags: sliding window"));
        assert!(hits.iter().any(|h| h.id == "sliding-window" && h.in_statement));
        assert!(
            scan(toolbox, "What does the output look like for an empty list?", &[], None)
                .iter()
                .all(|h| h.id != "two-pointers")
        );
    }
}
