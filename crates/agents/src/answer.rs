//! What a hook prints for each agent: the shapes come from the agent's row ([`Block`],
//! [`Prime`]); the words from the binary.

use serde_json::{Value, json};

use crate::table::{Agent, Block, Prime};

/// The stop hook's answer asking for a lesson (`reason`), with `status` (when given) shown as a
/// status line where the agent has one.
pub fn block(agent: Agent, reason: &str, status: Option<&str>) -> Value {
    match agent.spec().block {
        Block::Followup => json!({ "followup_message": reason }),
        Block::Decision { word, status_line } => {
            let mut v = json!({ "decision": word, "reason": reason });
            if let (true, Some(status)) = (status_line, status) {
                v["systemMessage"] = Value::String(status.to_owned());
            }
            v
        }
    }
}

/// The prompt hook's answer adding `context` to the turn.
pub fn prime(agent: Agent, context: &str) -> Value {
    match agent.spec().prime {
        Prime::Nested { event } => {
            json!({ "hookSpecificOutput": { "hookEventName": event, "additionalContext": context } })
        }
        Prime::Flat => json!({ "additionalContext": context }),
        Prime::Cursor => json!({ "continue": true, "additional_context": context }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_gets_the_answer_shape_it_reads() {
        assert_eq!(
            block(Agent::ClaudeCode, "R", Some("S")),
            json!({"decision": "block", "reason": "R", "systemMessage": "S"})
        );
        assert_eq!(block(Agent::ClaudeCode, "R", None), json!({"decision": "block", "reason": "R"}));
        assert_eq!(block(Agent::Gemini, "R", Some("S"))["decision"], "deny");
        assert_eq!(block(Agent::Codex, "R", Some("S"))["systemMessage"], "S");
        for agent in [Agent::Copilot, Agent::Qwen, Agent::Droid, Agent::OpenCode, Agent::Kilo] {
            assert_eq!(block(agent, "R", Some("S")), json!({"decision": "block", "reason": "R"}), "{agent:?}");
        }
        assert_eq!(block(Agent::Cursor, "R", Some("S")), json!({"followup_message": "R"}));
        assert_eq!(
            prime(Agent::Qwen, "C"),
            json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "C"}})
        );
        assert_eq!(prime(Agent::Gemini, "C")["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
        assert_eq!(prime(Agent::Copilot, "C"), json!({"additionalContext": "C"}));
        assert_eq!(prime(Agent::Cursor, "C"), json!({"continue": true, "additional_context": "C"}));
    }
}
