//! `devcoach hook practice-stop`: the practice guard for an agent's own interface. Runs on
//! every Stop of the agent it is installed in, so it returns at once unless a practice session
//! exported `DEVCOACH_PRACTICE_LOG`; it never opens the database.

use std::io::{IsTerminal, Read, Write};

use chrono::{SecondsFormat, Utc};
use devcoach_practice::Toolbox;
use devcoach_practice::guard::{GuardDecision, check};
use devcoach_practice::log::{self, Event, Writer};
use serde_json::{Value, json};

const MAX_INPUT: u64 = 16 * 1024 * 1024;

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

pub fn run() {
    std::panic::set_hook(Box::new(|_| {}));
    let _ = std::panic::catch_unwind(|| {
        let Some(path) = std::env::var_os(log::LOG_VAR).filter(|p| !p.is_empty()) else { return };
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            return;
        }
        let mut buf = Vec::new();
        let _ = stdin.lock().take(MAX_INPUT).read_to_end(&mut buf);
        let Ok(payload) = serde_json::from_slice::<Value>(&buf) else { return };
        let ts = std::env::var(crate::context::NOW_ENV)
            .ok()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(&t).ok())
            .map_or_else(Utc::now, |t| t.with_timezone(&Utc))
            .to_rfc3339_opts(SecondsFormat::Millis, true);
        if let Some(v) = decide(std::path::Path::new(&path), &payload, &ts) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{v}");
            let _ = out.flush();
        }
    });
}
