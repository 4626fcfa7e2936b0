//! Judging a requirement list: the prompt the judge model gets, and reading its answer so that
//! only toolbox ids reach the learner.

use crate::log::ReqVerdict;
use crate::toolbox::{Kind, Toolbox};

/// The judge's instructions: answer in one JSON object, naming missing properties by toolbox id.
pub fn prompt(toolbox: &Toolbox, statement: &str, list: &str) -> String {
    let mut ids = String::new();
    for entry in toolbox.entries().iter().filter(|e| e.kind == Kind::Property) {
        ids.push_str(&format!("- {}: {}\n", entry.id, entry.name));
    }
    format!(
        "You check a learner's requirement list for an algorithm problem before they may write code. \
         A list passes when it pins down what the solution depends on: guarantees of the input, edge cases, \
         what to return, and the complexity the constraints allow. Do not solve the problem and do not name \
         any technique.\n\n\
         Answer with exactly one JSON object and nothing else:\n\
         {{\"verdict\": \"passed\"}} or {{\"verdict\": \"incomplete\", \"missing\": [\"<id>\", ...]}}\n\
         where every <id> is one of these property ids (at most three, the most important first):\n{ids}\n\
         The problem:\n<problem>\n{statement}\n</problem>\n\n\
         The learner's list:\n<list>\n{list}\n</list>\n"
    )
}

/// A judge's answer once read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub verdict: ReqVerdict,
    /// Missing properties, toolbox ids only.
    pub missing: Vec<String>,
    /// What the judge said outside the vocabulary (dropped; counted by `practice eval`).
    pub dropped: Vec<String>,
}

/// Reads the judge's reply. `None` when it holds no usable verdict (then the next judge is
/// asked, and with none left the gate fails open).
pub fn read(toolbox: &Toolbox, reply: &str) -> Option<Judgement> {
    let start = reply.find('{')?;
    let end = reply.rfind('}')?;
    let value: serde_json::Value = serde_json::from_str(reply.get(start..=end)?).ok()?;
    let verdict = match value.get("verdict")?.as_str()?.trim().to_ascii_lowercase().as_str() {
        "passed" | "pass" => ReqVerdict::Passed,
        "incomplete" => ReqVerdict::Incomplete,
        _ => return None,
    };
    let mut missing = Vec::new();
    let mut dropped = Vec::new();
    if verdict == ReqVerdict::Incomplete {
        for item in value.get("missing").and_then(serde_json::Value::as_array).into_iter().flatten() {
            let Some(text) = item.as_str() else { continue };
            let id = text.trim().to_ascii_lowercase();
            // Only properties: a technique named here would tell the learner the answer.
            if toolbox.get(&id).is_some_and(|e| e.kind == Kind::Property) {
                if !missing.contains(&id) {
                    missing.push(id);
                }
            } else {
                dropped.push(text.to_owned());
            }
        }
    }
    Some(Judgement { verdict, missing, dropped })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_toolbox_ids_get_through() {
        let toolbox = Toolbox::builtin();
        let j = read(
            toolbox,
            "Sure! {\"verdict\": \"incomplete\", \"missing\": [\"empty-input\", \"use a hash map\", \"empty-input\", \"Sorted-Input\", \"two-pointers\"]}",
        )
        .expect("judgement");
        assert_eq!(j.verdict, ReqVerdict::Incomplete);
        assert_eq!(j.missing, ["empty-input", "sorted-input"]);
        assert_eq!(j.dropped, ["use a hash map", "two-pointers"], "techniques are never passed on");
        assert_eq!(read(toolbox, "{\"verdict\":\"passed\"}").map(|j| j.verdict), Some(ReqVerdict::Passed));
        assert_eq!(read(toolbox, "I think it is fine"), None);
        assert_eq!(read(toolbox, "{\"verdict\": \"maybe\"}"), None);
        let p = prompt(toolbox, "Find two numbers.", "sorted, may be empty");
        assert!(p.contains("- empty-input: empty input") && p.contains("<list>\nsorted, may be empty\n</list>"));
        assert!(!p.contains("two-pointers"), "the judge never sees technique names");
    }
}
