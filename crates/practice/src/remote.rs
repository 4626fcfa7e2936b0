//! A practice session driven from outside, one call at a time (the MCP tools): the agent in
//! front of the learner is the coach and the judge, and devcoach keeps the rules. Every call
//! rebuilds the session's state from its log, so the server holds nothing between calls and a
//! session survives a restart.

use std::path::{Path, PathBuf};

use crate::detect::reply::{Giveaway, giveaway};
use crate::gate::{self, CodeDecision, Gate};
use crate::judge;
use crate::log::{self, Event, Judge, LogError, MessageKind, ReqVerdict, SCHEMA, Stamped, Writer};
use crate::problem::Problem;
use crate::rung;
use crate::session::{MAX_DRAFTS, system_prompt};
use crate::toolbox::Toolbox;

#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("no practice session {0:?}: start one with practice_start")]
    Unknown(String),
    #[error("practice session {0:?} has ended; start a new one")]
    Ended(String),
    #[error(
        "practice session {0:?} has no requirement list waiting for a verdict; pass the learner's `req:` message to practice_submit first"
    )]
    NothingToJudge(String),
    #[error(transparent)]
    Log(#[from] LogError),
}

/// Where session `id` keeps its log. Ids are the log's file stem: `[a-z0-9-]` only, so an id
/// never reaches outside the sessions folder.
pub fn path_of(data_dir: &Path, id: &str) -> Option<PathBuf> {
    let valid = !id.is_empty()
        && id.len() <= 120
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    valid.then(|| devcoach_core::layout::practice_sessions(data_dir).join(format!("{id}.jsonl")))
}

/// What the agent needs to coach.
#[derive(Debug, Clone)]
pub struct Started {
    pub id: String,
    pub log: PathBuf,
    pub instructions: String,
}

/// Starts a session: writes its `start` line under a fresh id.
pub fn start(data_dir: &Path, problem: &Problem, date: &str, ts: &str, client: &str) -> Result<Started, RemoteError> {
    let (path, id) = log::new_session_path(data_dir, date, &problem.slug);
    Writer::new(path.clone()).append(
        ts,
        &Event::Start {
            schema: SCHEMA,
            problem: problem.slug.clone(),
            title: Some(problem.title.clone()),
            tags: problem.tags.clone(),
            backend: client.to_owned(),
            model: "agent".into(),
            // A problem devcoach does not ship keeps its statement in the log.
            statement: Problem::shipped(&problem.slug).is_err().then(|| problem.statement.clone()),
        },
    )?;
    Ok(Started { id, log: path, instructions: system_prompt(problem, true) })
}

/// The session so far, replayed from its log (shared with the Stop hook's guard).
pub(crate) struct State {
    pub gate: Gate,
    /// What the learner typed, and the names the gate itself told them.
    pub learner_words: Vec<String>,
    pub revealed: bool,
    pub ended: bool,
    /// Drafts bounced since the last reply shown.
    pub bounced: u32,
    pub awaiting_judgement: Option<String>,
}

pub(crate) fn replay(events: &[Stamped], toolbox: &Toolbox) -> State {
    let mut s = State {
        gate: Gate::new(),
        learner_words: Vec::new(),
        revealed: false,
        ended: false,
        bounced: 0,
        awaiting_judgement: None,
    };
    for e in events {
        match &e.event {
            Event::Learner { text, kind } => {
                s.learner_words.push(text.clone());
                s.awaiting_judgement = (*kind == MessageKind::Req).then(|| gate::requirement_text(text).to_owned());
            }
            Event::ReqCheck { verdict, missing, .. } => {
                s.gate.record(*verdict, missing);
                s.learner_words.extend(missing.iter().filter_map(|id| toolbox.get(id)).map(|e| e.name.clone()));
                s.awaiting_judgement = None;
            }
            Event::Code { .. } => s.gate.mark_code_seen(),
            Event::Reveal {} => s.revealed = true,
            Event::Bounce { .. } => s.bounced += 1,
            Event::Coach { .. } => s.bounced = 0,
            Event::End { .. } => s.ended = true,
            Event::Resume {} => s.ended = false,
            _ => {}
        }
    }
    s
}

fn load(path: &Path, id: &str, toolbox: &Toolbox) -> Result<(State, Vec<Stamped>), RemoteError> {
    if !path.is_file() {
        return Err(RemoteError::Unknown(id.to_owned()));
    }
    let events = log::read(path)?;
    let state = replay(&events, toolbox);
    if state.ended {
        return Err(RemoteError::Ended(id.to_owned()));
    }
    Ok((state, events))
}

/// What happened to a learner message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submitted {
    /// A requirement list: judge it with this prompt, then call `judge`.
    Requirements { judge_prompt: String },
    /// Code the gate let through (`req_incomplete` after three incomplete lists).
    CodePassed { req_incomplete: bool },
    /// Code held back: tell the learner why, and do not discuss the code.
    CodeHeld { why: String },
    /// Anything else: coach as usual.
    Prose,
}

/// Records a learner message and applies the gate. `is_code` is the agent's own reading for a
/// block the rules cannot classify (`None`: treated as prose).
pub fn submit(path: &Path, id: &str, message: &str, is_code: Option<bool>, ts: &str) -> Result<Submitted, RemoteError> {
    let toolbox = Toolbox::builtin();
    let (mut state, events) = load(path, id, toolbox)?;
    let kind = gate::message_kind(message).unwrap_or(if is_code == Some(true) {
        MessageKind::Code
    } else {
        MessageKind::Prose
    });
    let writer = Writer::new(path.to_owned());
    writer.append(ts, &Event::Learner { text: message.trim().to_owned(), kind })?;
    Ok(match kind {
        MessageKind::Req => {
            let statement = problem_statement(&events);
            Submitted::Requirements {
                judge_prompt: judge::prompt(toolbox, &statement, gate::requirement_text(message)),
            }
        }
        MessageKind::Code => {
            match state.gate.on_code(|id| toolbox.get(id).map_or_else(|| id.to_owned(), |e| e.name.clone())) {
                CodeDecision::Pass { req_incomplete } => {
                    writer.append(ts, &Event::Code { req_incomplete })?;
                    Submitted::CodePassed { req_incomplete }
                }
                CodeDecision::Hold { why } => {
                    writer.append(ts, &Event::Held { why: why.clone() })?;
                    Submitted::CodeHeld { why }
                }
            }
        }
        MessageKind::Prose => Submitted::Prose,
    })
}

/// The session's problem, rebuilt from its `start` line: a shipped problem by slug, else the
/// statement the line carries.
pub fn problem_of(events: &[Stamped]) -> Option<Problem> {
    events.iter().find_map(|e| match &e.event {
        Event::Start { problem, title, tags, statement, .. } => Some(match statement {
            Some(text) => Problem {
                slug: problem.clone(),
                title: title.clone().unwrap_or_else(|| problem.clone()),
                difficulty: String::new(),
                tags: tags.clone(),
                hints: Vec::new(),
                statement: text.clone(),
            },
            None => Problem::shipped(problem).ok()?,
        }),
        _ => None,
    })
}

fn problem_statement(events: &[Stamped]) -> String {
    problem_of(events).map(|p| p.statement).unwrap_or_default()
}

/// The agent's judgement of the last requirement list, in the judge's JSON (or `None`: it could
/// not judge, and the gate fails open). Only toolbox property ids survive. Returns the verdict,
/// the missing ids, and whether code now goes through.
pub fn judge(
    path: &Path,
    id: &str,
    reply: Option<&str>,
    ts: &str,
) -> Result<(ReqVerdict, Vec<String>, bool), RemoteError> {
    let toolbox = Toolbox::builtin();
    let (mut state, _) = load(path, id, toolbox)?;
    if state.awaiting_judgement.is_none() {
        return Err(RemoteError::NothingToJudge(id.to_owned()));
    }
    let judgement = reply.and_then(|r| judge::read(toolbox, r));
    let (verdict, missing, dropped, judge) = match judgement {
        Some(j) => (j.verdict, j.missing, u32::try_from(j.dropped.len()).unwrap_or(u32::MAX), Judge::Agent),
        None => (ReqVerdict::Unverified, Vec::new(), 0, Judge::None),
    };
    Writer::new(path.to_owned()).append(ts, &Event::ReqCheck { verdict, missing: missing.clone(), judge, dropped })?;
    state.gate.record(verdict, &missing);
    Ok((verdict, missing, state.gate.release().is_some()))
}

/// What to do with a draft reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// Show `text` (the marker removed).
    Show { text: String, rung: Option<u8> },
    /// Rewrite it: `why` says what gave too much away.
    Rewrite { entry: String, why: String },
    /// Third leaky draft: show the learner nothing but a neutral line.
    Withhold,
}

pub fn check_reply(path: &Path, id: &str, draft: &str, ts: &str) -> Result<Checked, RemoteError> {
    let toolbox = Toolbox::builtin();
    let (state, _) = load(path, id, toolbox)?;
    let (rung, clean) = rung::strip(draft);
    let words: Vec<&str> = state.learner_words.iter().map(String::as_str).collect();
    let leak = giveaway(toolbox, &clean, &words, state.revealed);
    let writer = Writer::new(path.to_owned());
    let drafts = state.bounced + 1;
    Ok(match leak {
        None => {
            writer.append(ts, &Event::Coach { rung, leaked: state.bounced > 0, drafts, text: Some(clean.clone()) })?;
            Checked::Show { text: clean, rung }
        }
        Some(Giveaway { entry, why }) => {
            writer.append(ts, &Event::Bounce { entry: entry.clone(), source: "mcp".into() })?;
            if drafts >= MAX_DRAFTS {
                writer.append(ts, &Event::Coach { rung: None, leaked: true, drafts, text: None })?;
                Checked::Withhold
            } else {
                Checked::Rewrite { entry, why }
            }
        }
    })
}

/// The learner asked for the answer.
pub fn reveal(path: &Path, id: &str, ts: &str) -> Result<(), RemoteError> {
    load(path, id, Toolbox::builtin())?;
    Ok(Writer::new(path.to_owned()).append(ts, &Event::Reveal {})?)
}

/// Ends the session (`solved` when the learner says they solved it); returns its log for the
/// postmortem.
pub fn end(path: &Path, id: &str, solved: bool, ts: &str) -> Result<Vec<Stamped>, RemoteError> {
    load(path, id, Toolbox::builtin())?;
    let reason = if solved { log::SOLVED } else { "practice_end" };
    Writer::new(path.to_owned()).append(ts, &Event::End { reason: Some(reason.into()) })?;
    Ok(log::read(path)?)
}
