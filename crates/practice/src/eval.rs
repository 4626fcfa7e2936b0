//! `devcoach practice eval`: replays shipped learner transcripts against a model and scores the
//! coach as the rules see it — how often its drafts leak, whether the gate held every block it
//! should, how often the judge named things outside the vocabulary, and which hint rungs it
//! used. This is how a local model is accepted as a coach.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::gate::INCOMPLETE_LIMIT;
use crate::log::{Event, ReqVerdict, Stamped};

/// A scripted learner.
#[derive(Debug, Clone, Deserialize)]
pub struct Transcript {
    pub schema: u32,
    pub name: String,
    #[serde(default)]
    pub about: String,
    pub problem: String,
    pub turns: Vec<Say>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Say {
    pub say: String,
}

#[derive(Debug, thiserror::Error)]
#[error("eval transcript {name}: {reason}")]
pub struct TranscriptError {
    pub name: String,
    pub reason: String,
}

/// The transcripts devcoach ships.
pub fn shipped() -> Result<Vec<Transcript>, TranscriptError> {
    devcoach_assets::PRACTICE_EVAL
        .iter()
        .map(|(name, text)| {
            let t: Transcript = serde_json::from_str(text)
                .map_err(|e| TranscriptError { name: (*name).to_owned(), reason: e.to_string() })?;
            if t.schema != 1 || t.turns.is_empty() {
                return Err(TranscriptError {
                    name: (*name).to_owned(),
                    reason: "schema 1 with turns expected".into(),
                });
            }
            Ok(t)
        })
        .collect()
}

/// The figures over every replayed session.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EvalReport {
    pub transcripts: usize,
    pub learner_messages: usize,
    /// Coach replies shown, and drafts asked for in all.
    pub replies: u32,
    pub drafts: u32,
    /// Drafts the guard sent back, over all drafts.
    pub leaky_drafts: u32,
    pub leak_rate: f64,
    /// Replies withheld after three leaky drafts.
    pub withheld: u32,
    /// Code blocks checked against the gate's rule, and how many the gate handled by it.
    pub gate_checks: u32,
    pub gate_ok: u32,
    pub gate_compliance: f64,
    pub judged: u32,
    /// Names the judge used outside the vocabulary (dropped before the learner saw them).
    pub vocabulary_violations: u32,
    /// Replies per rung (`H1`… or `none` for a reply without a marker).
    pub rungs: BTreeMap<String, u32>,
    pub errors: Vec<String>,
}

#[allow(clippy::cast_precision_loss)]
fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 { 0.0 } else { ((f64::from(a) / f64::from(b)) * 1000.0).round() / 1000.0 }
}

/// Scores the logs of the replayed sessions.
pub fn score(sessions: &[Vec<Stamped>]) -> EvalReport {
    let mut r = EvalReport { transcripts: sessions.len(), ..EvalReport::default() };
    for events in sessions {
        let (mut passed, mut incomplete) = (false, 0u32);
        let mut pending_code = false;
        for e in events {
            match &e.event {
                Event::Learner { kind, .. } => {
                    r.learner_messages += 1;
                    pending_code = *kind == crate::log::MessageKind::Code;
                }
                Event::ReqCheck { verdict, dropped, .. } => {
                    r.judged += 1;
                    r.vocabulary_violations += dropped;
                    match verdict {
                        ReqVerdict::Passed | ReqVerdict::Unverified => passed = true,
                        ReqVerdict::Incomplete => incomplete += 1,
                    }
                }
                Event::Held { .. } if pending_code => {
                    r.gate_checks += 1;
                    r.gate_ok += u32::from(!passed && incomplete < INCOMPLETE_LIMIT);
                    pending_code = false;
                }
                Event::Code { req_incomplete } if pending_code => {
                    r.gate_checks += 1;
                    let allowed = passed || incomplete >= INCOMPLETE_LIMIT;
                    let marked_right = *req_incomplete == (!passed && incomplete >= INCOMPLETE_LIMIT);
                    r.gate_ok += u32::from(allowed && marked_right);
                    pending_code = false;
                }
                Event::Bounce { .. } => r.leaky_drafts += 1,
                Event::Coach { rung, drafts, text, .. } => {
                    r.drafts += drafts;
                    if text.is_some() {
                        r.replies += 1;
                        let key = rung.map_or_else(|| "none".to_owned(), |n| format!("H{n}"));
                        *r.rungs.entry(key).or_default() += 1;
                    } else {
                        r.withheld += 1;
                    }
                }
                _ => {}
            }
        }
    }
    r.leak_rate = ratio(r.leaky_drafts, r.drafts);
    r.gate_compliance = if r.gate_checks == 0 { 1.0 } else { ratio(r.gate_ok, r.gate_checks) };
    r
}

/// The report as text.
pub fn render(r: &EvalReport) -> String {
    let rungs: Vec<String> = r.rungs.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let mut out = format!(
        "transcripts: {}, learner messages: {}\n\
         leak rate: {:.1}% of drafts ({} of {}), {} replies withheld\n\
         gate compliance: {:.1}% ({} of {} code blocks handled by the rule)\n\
         judge vocabulary violations: {} (over {} judged lists)\n\
         rungs: {}\n",
        r.transcripts,
        r.learner_messages,
        r.leak_rate * 100.0,
        r.leaky_drafts,
        r.drafts,
        r.withheld,
        r.gate_compliance * 100.0,
        r.gate_ok,
        r.gate_checks,
        r.vocabulary_violations,
        r.judged,
        if rungs.is_empty() { "none".to_owned() } else { rungs.join(", ") },
    );
    for e in &r.errors {
        out.push_str(&format!("error: {e}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_transcripts_read_and_name_shipped_problems() {
        let all = shipped().expect("transcripts");
        assert!(all.len() >= 3);
        for t in &all {
            assert!(crate::problem::Problem::shipped(&t.problem).is_ok(), "{}", t.name);
        }
    }
}
