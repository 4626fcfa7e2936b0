//! The one rule every front end applies to a coach's draft (the REPL, the Stop hook, the MCP
//! tools): what in it gives the answer away, if anything.

use super::leak::scan;
use super::solution::pasteable_line;
use crate::toolbox::Toolbox;

/// Why a draft may not be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Giveaway {
    /// The toolbox id named, or `code-line`.
    pub entry: String,
    /// For the model that wrote it: what to leave out next time.
    pub why: String,
}

/// Until the answer is revealed, for the whole session (code from the learner changes nothing:
/// a hint after a stub still must not name the technique): a toolbox name the learner has not
/// used (the statement does not count as theirs), or a pasteable line of solution code.
pub fn giveaway(toolbox: &Toolbox, draft: &str, learner_words: &[&str], revealed: bool) -> Option<Giveaway> {
    if revealed {
        return None;
    }
    if let Some(hit) = scan(toolbox, draft, learner_words, None).into_iter().next() {
        return Some(Giveaway {
            entry: hit.id,
            why: format!("it names \"{}\", which the learner has not named yet", hit.text),
        });
    }
    pasteable_line(draft, learner_words)
        .map(|line| Giveaway { entry: "code-line".into(), why: format!("it holds the line of solution code `{line}`") })
}
