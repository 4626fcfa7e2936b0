//! The agent hooks: run on every agent stop and prompt, so they are dispatched before anything
//! else (no clap, no async runtime, no logging setup), open one connection, run one write
//! transaction for the stop (a second, short one only to take over an onboarding note written
//! before the database existed), print one JSON object or nothing, and always exit 0.

pub mod practice;
pub mod reasons;
pub mod texts;

use std::io::{IsTerminal, Read, Write};

use chrono::{DateTime, Utc};
use devcoach_core::SessionId;
pub use devcoach_core::hook_payload::Payload;
use devcoach_core::limits;
use devcoach_store::{DataDir, Store, StoreError};
use serde_json::Value;

use devcoach_agents::{Agent, answer};

/// The hidden subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// `<agent>-stop-hook` (Claude Code's unprefixed): each agent's names are in its row.
    Stop(Agent),
    Prompt(Agent),
    /// The old two-entry layout: the onboarding half.
    Onboard,
    /// The old two-entry layout: the lesson half.
    LessonReady,
}

impl Hook {
    pub fn parse(arg: &str) -> Option<Self> {
        match arg {
            "onboard-hook" => Some(Self::Onboard),
            "lesson-ready" => Some(Self::LessonReady),
            _ => {
                Agent::by_hook_name(arg).map(|(agent, stop)| if stop { Self::Stop(agent) } else { Self::Prompt(agent) })
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Onboard => "onboard-hook",
            Self::LessonReady => "lesson-ready",
            Self::Stop(agent) => agent.spec().hook_names.map_or("hook", |(stop, _)| stop),
            Self::Prompt(agent) => agent.spec().hook_names.map_or("hook", |(_, prompt)| prompt),
        }
    }
}

/// The most input read from stdin (a Stop payload carries the last reply, which can be long).
const MAX_INPUT: u64 = limits::HOOK_PAYLOAD_BYTES as u64;

/// Reads the payload from stdin unless it is a terminal (a hook run by hand must never wait).
/// `None` for a payload larger than the limit: read in part, it could lose the re-entry flag,
/// so it is not acted on at all.
fn payload_from_stdin() -> Option<(Payload, Vec<u8>)> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Some((Payload::default(), Vec::new()));
    }
    let mut buf = Vec::new();
    let _ = stdin.lock().take(MAX_INPUT + 1).read_to_end(&mut buf);
    (buf.len() as u64 <= MAX_INPUT).then(|| (Payload::parse(&buf), buf))
}

/// What a hook prints.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Silent(String),
    Block { agent: Agent, reason: String, status: bool, why: String },
    Prime { agent: Agent, context: String, why: String },
}

impl Outcome {
    fn json(&self) -> Option<Value> {
        match self {
            Self::Silent(_) => None,
            Self::Block { agent, reason, status, .. } => {
                Some(answer::block(*agent, reason, status.then_some(texts::CUE_STATUS)))
            }
            Self::Prime { agent, context, .. } => Some(answer::prime(*agent, context)),
        }
    }

    fn why(&self) -> &str {
        match self {
            Self::Silent(why) | Self::Block { why, .. } | Self::Prime { why, .. } => why,
        }
    }
}

fn onboarding(agent: Agent) -> Outcome {
    Outcome::Block { agent, reason: texts::onboarding_cue(agent), status: false, why: "onboarding cue".into() }
}

/// Decides a hook from its payload and the data directory.
pub fn decide(hook: Hook, p: &Payload, raw: &[u8], dir: &DataDir, now: DateTime<Utc>) -> Outcome {
    let session = SessionId::from_payload(p.session_id.as_deref());
    let silent = |why: &str| Outcome::Silent(why.to_owned());
    if let Hook::Prompt(client) = hook {
        if client == Agent::ClaudeCode && p.via_cursor && cursor_has_its_own() {
            return silent("Cursor running Claude Code's hooks: devcoach's Cursor hook answers it instead");
        }
        // The prompt hook never bumps a counter: it carries an unanswered cue, or forecasts.
        if p.prompt_from_hook {
            return silent("the prompt is a hook's own continuation (the cue coming back): nothing to add");
        }
        if p.plan_mode {
            return silent("plan mode");
        }
        let mut store = match open(dir) {
            Ok(store) => store,
            Err(Unopened::Busy) => return silent(BUSY),
            Err(Unopened::Quiet(why)) => return Outcome::Silent(why),
        };
        match store.take_held_cue(&session, now) {
            Ok(Some(held)) => {
                return Outcome::Prime {
                    agent: client,
                    context: texts::held_cue(client, held),
                    why: "the last stop's cue was never answered: carried to this prompt".into(),
                };
            }
            Ok(None) => {}
            Err(e) => return silent(&format!("cue check failed: {e}")),
        }
        return match store.explain_cue(&session, now) {
            Ok(f) => {
                let why = f.reasons.iter().map(reasons::outlook).collect::<Vec<_>>().join("; ");
                // While a cue waits unanswered, the carried cue is the reminder: no prime on top.
                if f.would_cue && f.streak == 0 {
                    Outcome::Prime { agent: client, context: texts::prime(client), why }
                } else {
                    Outcome::Silent(why)
                }
            }
            Err(e) => silent(&format!("forecast failed: {e}")),
        };
    }
    let client = if let Hook::Stop(c) = hook { c } else { Agent::ClaudeCode };
    if hook == Hook::Stop(Agent::ClaudeCode) && p.via_cursor && cursor_has_its_own() {
        return silent("Cursor running Claude Code's hooks: devcoach's Cursor hook answers it instead");
    }
    if p.aborted {
        return silent("the turn was stopped or failed: no finished work to count");
    }
    if p.stop_hook_active {
        return silent("stop_hook_active: the agent is already answering a hook");
    }
    // An open hands-on exercise: the reply must not carry the code the learner is rebuilding.
    // Read only then (one failed `readdir` otherwise): a long reply is never copied for nothing.
    if let Hook::Stop(agent) = hook
        && let open = devcoach_handson::exercise::open_exercises(&devcoach_core::layout::handson(dir.root()))
        && !open.is_empty()
        && let Some(reply) = devcoach_core::hook_payload::reply_of(raw)
        && let Some(function) = devcoach_handson::exercise::leaked_in(
            &open,
            &reply,
            devcoach_core::hook_payload::cwd_of(raw).as_deref().map(std::path::Path::new),
        )
    {
        return Outcome::Block {
            agent,
            reason: texts::handson_leak(&function),
            status: false,
            why: "hands-on: the reply carries the exercise's hidden code".into(),
        };
    }
    match dir.has_database() {
        Ok(true) => {}
        // A folder or a pipe where the database should be is not "no database yet".
        Err(e) => return silent(&format!("database unusable: {e}")),
        // Asking for onboarding must not create the database (the profile does that); a small
        // note beside it keeps the ask to once a session.
        Ok(false) => {
            return match hook {
                Hook::LessonReady => silent("no database"),
                _ if p.plan_mode => silent("plan mode (not counted)"),
                _ if asked_before_a_database(dir).iter().any(|s| s == session.as_str()) => {
                    silent("onboarding asked in this session already (no database yet)")
                }
                _ => {
                    note_ask_before_a_database(dir, &session, now);
                    onboarding(client)
                }
            };
        }
    }
    let mut store = match open(dir) {
        Ok(store) => store,
        Err(Unopened::Busy) if matches!(hook, Hook::Stop(_) | Hook::LessonReady) => {
            return leave(dir, &session, p.plan_mode, now);
        }
        Err(Unopened::Busy) => return silent(BUSY),
        Err(Unopened::Quiet(why)) => return Outcome::Silent(why),
    };
    // An ask noted before the database existed: the database remembers it from now on.
    if let Ok(Some(noted)) = devcoach_files::read_optional(
        &dir.onboarding_asked_path(),
        limits::ONBOARDING_NOTE_BYTES,
        devcoach_files::Links::Refuse,
    ) && store.adopt_onboarding_ask(&String::from_utf8_lossy(&noted)).is_ok()
    {
        let _ = std::fs::remove_file(dir.onboarding_asked_path());
    }
    if hook == Hook::Onboard {
        // The legacy onboarding half never looks at pacing.
        return match store.is_onboarded() {
            Ok(true) => silent("onboarding complete"),
            Ok(false) if p.plan_mode => silent("plan mode (not counted)"),
            // The same rule as the stop: once a session, and a "not now" waits.
            Ok(false) => match store.evaluate_stop(&session, false, None, now) {
                Ok(d) if d.needs_onboarding => onboarding(client),
                Ok(d) => Outcome::Silent(reasons::decision(&d.reason)),
                Err(e) => silent(&format!("cue check failed: {e}")),
            },
            Err(e) => silent(&format!("database unusable: {e}")),
        };
    }
    // The legacy lesson half never shows the onboarding ask, so it must not spend it either.
    if hook == Hook::LessonReady && !store.is_onboarded().unwrap_or(true) {
        return silent("onboarding not complete (the onboarding half asks)");
    }
    // With work_insights off (the default) the transcript is never opened.
    let work = match (store.work_insights(), p.transcript_path.as_deref()) {
        (Ok(true), Some(path)) => devcoach_probe::transcript::work_signals(std::path::Path::new(path)),
        _ => None,
    };
    let agent = client.spec().slug;
    let work = work.map(|signals| devcoach_store::WorkSession { agent, session_id: session.as_str(), signals });
    match store.evaluate_stop(&session, p.plan_mode, work.as_ref(), now) {
        Ok(d) if d.cue => Outcome::Block {
            agent: client,
            reason: match d.review_due {
                Some(due) => texts::review_cue(client, due),
                None => texts::lesson_cue(client, d.next_lesson_number),
            },
            status: true,
            why: match d.review_due {
                Some(due) => format!("{}; offering a review ({due} due)", reasons::decision(&d.reason)),
                None => reasons::decision(&d.reason),
            },
        },
        Ok(d) if d.needs_onboarding && hook != Hook::LessonReady => onboarding(client),
        Ok(d) => Outcome::Silent(reasons::decision(&d.reason)),
        Err(StoreError::Busy) if matches!(hook, Hook::Stop(_) | Hook::LessonReady) => {
            leave(dir, &session, p.plan_mode, now)
        }
        Err(e) => silent(&format!("cue check failed: {e}")),
    }
}

/// The sessions stops asked for onboarding in, before any database existed.
fn asked_before_a_database(dir: &DataDir) -> Vec<String> {
    let Ok(Some(bytes)) = devcoach_files::read_optional(
        &dir.onboarding_asked_path(),
        limits::ONBOARDING_NOTE_BYTES,
        devcoach_files::Links::Refuse,
    ) else {
        return Vec::new();
    };
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| l.trim().split_once(' ').map(|(_, s)| s.to_owned()))
        .collect()
}

/// Notes this ask (a failure to is not a failure of the hook: it only asks again).
fn note_ask_before_a_database(dir: &DataDir, session: &SessionId, now: DateTime<Utc>) {
    let kept = devcoach_files::read_optional(
        &dir.onboarding_asked_path(),
        limits::ONBOARDING_NOTE_BYTES,
        devcoach_files::Links::Refuse,
    )
    .ok()
    .flatten()
    .map(|b| String::from_utf8_lossy(&b).into_owned())
    .unwrap_or_default();
    let text = devcoach_store::with_ask(&kept, &format!("{} {}", devcoach_core::time::iso_ms(now), session.as_str()));
    if std::fs::create_dir_all(dir.root()).is_ok() {
        let _ =
            devcoach_files::write(&dir.onboarding_asked_path(), text.as_bytes(), devcoach_files::Overwrite::Replace);
    }
}

/// Whether Cursor's own hooks file runs devcoach (then a Claude hook Cursor also runs must stay
/// quiet, or the stop would count twice). Read only for a payload from Cursor.
fn cursor_has_its_own() -> bool {
    devcoach_agents::Places::from_env().is_ok_and(|places| devcoach_agents::hooks_wired(&places, Agent::Cursor))
}

/// How long a hook waits for another process's hold on the database (a sync writes in rounds
/// that can hold it for seconds): past this, a stop is left to be counted later and the hook
/// stays quiet, so an agent's stop never waits behind a sync.
const PATIENCE: std::time::Duration = std::time::Duration::from_millis(3);

/// The database was held by another process for longer than [`PATIENCE`].
const BUSY: &str = "database busy (another devcoach is writing, a sync most likely)";

/// Why a hook has no database to work with.
enum Unopened {
    /// Held by another process past [`PATIENCE`].
    Busy,
    Quiet(String),
}

/// Opens an existing, writable-schema database, or says why the hook stays quiet.
///
/// The connection is never closed: the hook's process ends right after [`decide`], when no
/// transaction is open (each has committed or rolled back; were a rollback itself to fail, the
/// next open replays the journal, as after a crash), and the kernel releases the file and its
/// locks at exit. Closing would spend a twentieth of a stop freeing the schema SQLite has just
/// parsed (docs/PERFORMANCE.md, "Hooks").
fn open(dir: &DataDir) -> Result<std::mem::ManuallyDrop<Store>, Unopened> {
    match Store::open_existing_briefly(dir, PATIENCE) {
        Ok(Some(store)) if store.compat().is_some() => {
            Err(Unopened::Quiet("database belongs to a newer devcoach (read-only): staying quiet".into()))
        }
        Ok(Some(store)) => Ok(std::mem::ManuallyDrop::new(store)),
        Ok(None) => Err(Unopened::Quiet("no database".into())),
        Err(StoreError::Busy) => Err(Unopened::Busy),
        Err(e) => Err(Unopened::Quiet(format!("database unusable: {e}"))),
    }
}

/// A stop that could not have the database: left to be counted by the next stop or when the
/// sync ends, and no cue this time.
fn leave(dir: &DataDir, session: &SessionId, plan_mode: bool, now: DateTime<Utc>) -> Outcome {
    Outcome::Silent(match devcoach_store::leave_stop(dir, session, plan_mode, now) {
        Ok(true) => format!("{BUSY}: this stop is counted when it is free, no cue this time"),
        Ok(false) => format!("{BUSY}: too many stops wait already, this one is not counted"),
        Err(e) => format!("{BUSY}: the stop could not be kept for later ({e})"),
    })
}

/// The clock: `DEVCOACH_NOW` pins it (tests, demos), otherwise the system time.
fn now() -> DateTime<Utc> {
    crate::context::pinned_now().and_then(Result::ok).unwrap_or_else(Utc::now)
}

/// The hook trace (`DEVCOACH_HOOK_DEBUG=1`), kept under 256 KB.
fn trace(dir: &DataDir, hook: Hook, session: Option<&str>, message: &str, now: DateTime<Utc>) {
    const MAX_LOG: u64 = 256 * 1024;
    if std::env::var_os("DEVCOACH_HOOK_DEBUG").is_none_or(|v| v != "1") || !dir.root().is_dir() {
        return;
    }
    let path = dir.hook_log_path();
    let too_big = std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG);
    if too_big {
        let _ = devcoach_files::write(&path, b"", devcoach_files::Overwrite::Replace);
    }
    // A regular file only: a pipe or device named hook.log must never block the hook.
    if let Ok(mut f) = devcoach_files::open_append(&path) {
        let short: String = session.map_or_else(|| "-".to_owned(), |s| s.chars().take(8).collect());
        // One write of the whole line: hooks of several agents append at the same moment.
        let line = format!("{} {} {short} {message}\n", devcoach_core::time::iso_ms(now), hook.name());
        let _ = f.write_all(line.as_bytes());
    }
}

/// Runs a hook to completion. Never panics outward, never fails: the exit code is always 0.
pub fn run(hook: Hook) {
    // A panic must not put a backtrace in front of the agent.
    std::panic::set_hook(Box::new(|_| {}));
    let _ = std::panic::catch_unwind(|| {
        let Ok(dir) = DataDir::from_env() else { return };
        let now = now();
        let Some((payload, raw)) = payload_from_stdin() else {
            trace(&dir, hook, None, "payload over 16 MiB: not read whole, so not acted on", now);
            return;
        };
        let outcome = decide(hook, &payload, &raw, &dir, now);
        trace(&dir, hook, payload.session_id.as_deref(), outcome.why(), now);
        if let Some(v) = outcome.json() {
            crate::output::hook_answer(&v);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_are_read_leniently() {
        let p = Payload::parse(br#"{"session_id":"abc","permission_mode":"plan","stop_hook_active":true,"extra":[1]}"#);
        assert_eq!(
            p,
            Payload { stop_hook_active: true, plan_mode: true, session_id: Some("abc".into()), ..Payload::default() }
        );
        assert_eq!(Payload::parse(br#"{"stop_hook_active":"true","session_id":5}"#), Payload::default());
        assert_eq!(Payload::parse(b"garbage"), Payload::default());
        assert_eq!(Payload::parse(b""), Payload::default());
        assert_eq!(Payload::parse(b"[]"), Payload::default());
        // A field of the wrong type is absent; the others still count.
        let p = Payload::parse(br#"{"stop_hook_active":{"x":[1,{}]},"permission_mode":null,"session_id":"s","n":1.5}"#);
        assert_eq!(p, Payload { session_id: Some("s".into()), ..Payload::default() });
        let p = Payload::parse(br#"{"session_id":"a\u00e9b","stop_hook_active":true,"permission_mode":["plan"]}"#);
        assert_eq!(p, Payload { stop_hook_active: true, session_id: Some("aéb".into()), ..Payload::default() });
    }

    #[test]
    fn names_round_trip() {
        for &agent in Agent::ALL {
            let Some((stop, prompt)) = agent.spec().hook_names else { continue };
            assert_eq!(Hook::parse(stop), Some(Hook::Stop(agent)));
            assert_eq!(Hook::parse(prompt), Some(Hook::Prompt(agent)));
            assert_eq!(Hook::Stop(agent).name(), stop);
            assert_eq!(Hook::Prompt(agent).name(), prompt);
        }
        for legacy in ["onboard-hook", "lesson-ready"] {
            assert_eq!(Hook::parse(legacy).map(Hook::name), Some(legacy));
        }
        assert_eq!(Hook::parse("stop-hook"), Some(Hook::Stop(Agent::ClaudeCode)));
        assert_eq!(Hook::parse("gemini-prompt-hook"), Some(Hook::Prompt(Agent::Gemini)));
        assert_eq!(Hook::parse("lessons"), None);
    }
}
