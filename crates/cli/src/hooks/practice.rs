//! `devcoach hook practice-stop` and `practice-prompt`: the practice guard and gate for an
//! agent's own interface. They run on every Stop and prompt of the agent they are installed in,
//! so they return at once unless a practice session exported `DEVCOACH_PRACTICE_LOG`; they never
//! open the database.

use std::io::{IsTerminal, Read};

use chrono::{SecondsFormat, Utc};
use devcoach_core::limits;
use devcoach_practice::Toolbox;
use devcoach_practice::guard::{GuardDecision, PromptDecision, check, on_prompt};
use devcoach_practice::log::{self, Event, Writer};
use serde_json::{Value, json};

/// The finished reply in a Stop payload: Claude Code and Codex send `last_assistant_message`,
/// Gemini CLI `prompt_response`.
fn reply_of(payload: &Value) -> Option<String> {
    ["last_assistant_message", "prompt_response"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

/// What the hook prints, if anything (one JSON object).
pub fn decide(log_path: &std::path::Path, payload: &Value, ts: &str) -> Option<Value> {
    let reply = reply_of(payload)?;
    let events = log::read(log_path).ok()?;
    let writer = Writer::new(log_path.to_owned());
    match check(Toolbox::builtin(), &events, &reply) {
        GuardDecision::NotPractice => None,
        GuardDecision::Pass { rung, leaked, drafts, text } => {
            let _ = writer.append(ts, &Event::Coach { rung, leaked, drafts, text: Some(text) });
            None
        }
        GuardDecision::Bounce { entry, reason } => {
            // The bounce must be on record before blocking: the count in the log is what stops
            // a loop of rewrites, so an unwritable log never blocks.
            writer.append(ts, &Event::Bounce { entry, source: "stop-hook".into() }).ok()?;
            Some(json!({ "decision": "block", "reason": reason }))
        }
    }
}

/// What the prompt hook prints, if anything: a block with the reason when code comes before
/// the requirements.
pub fn decide_prompt(log_path: &std::path::Path, payload: &Value, ts: &str) -> Option<Value> {
    let prompt = payload.get("prompt").and_then(Value::as_str)?;
    let events = log::read(log_path).ok()?;
    let writer = Writer::new(log_path.to_owned());
    match on_prompt(Toolbox::builtin(), &events, prompt) {
        PromptDecision::NotPractice => None,
        PromptDecision::Record(events) => {
            for e in &events {
                let _ = writer.append(ts, e);
            }
            None
        }
        PromptDecision::Hold { events, why } => {
            for e in &events {
                writer.append(ts, e).ok()?;
            }
            Some(json!({ "decision": "block", "reason": format!("devcoach practice: {why}") }))
        }
    }
}

/// Which of the two practice hooks runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PracticeHook {
    Stop,
    Prompt,
}

impl PracticeHook {
    pub fn parse(arg: &str) -> Option<Self> {
        match arg {
            "practice-stop" => Some(Self::Stop),
            "practice-prompt" => Some(Self::Prompt),
            _ => None,
        }
    }
}

pub fn run(hook: PracticeHook) {
    std::panic::set_hook(Box::new(|_| {}));
    let _ = std::panic::catch_unwind(|| {
        let Some(path) = std::env::var_os(log::LOG_VAR).filter(|p| !p.is_empty()) else { return };
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            return;
        }
        let mut buf = Vec::new();
        let _ = stdin.lock().take(limits::HOOK_PAYLOAD_BYTES as u64).read_to_end(&mut buf);
        let Ok(payload) = serde_json::from_slice::<Value>(&buf) else { return };
        let ts = crate::context::pinned_now()
            .and_then(Result::ok)
            .unwrap_or_else(Utc::now)
            .to_rfc3339_opts(SecondsFormat::Millis, true);
        let path = std::path::Path::new(&path);
        let decided = match hook {
            PracticeHook::Stop => decide(path, &payload, &ts),
            PracticeHook::Prompt => decide_prompt(path, &payload, &ts),
        };
        if let Some(v) = decided {
            crate::output::hook_answer(&v);
        }
    });
}
