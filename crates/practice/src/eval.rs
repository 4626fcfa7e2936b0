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

/// What a coach model must reach to be accepted. The defaults are documented in
/// docs/practice-log.md ("Accepting a coach model"); each can be set on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    /// The most drafts that may leak (the guard sends them back, but a leaky model coaches badly).
    pub max_leak_rate: f64,
    /// The least share of code blocks the gate must handle by its rule (it is rules: all of them).
    pub min_gate_compliance: f64,
    /// The most names outside the vocabulary per judged list.
    pub max_vocabulary_rate: f64,
    /// The least share of replies that carry a hint-rung marker.
    pub min_marked_rate: f64,
    /// The most replies withheld after three leaky drafts, as a share of replies.
    pub max_withheld_rate: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            max_leak_rate: 0.15,
            min_gate_compliance: 1.0,
            max_vocabulary_rate: 0.2,
            min_marked_rate: 0.8,
            max_withheld_rate: 0.1,
        }
    }
}

/// Accept or reject, and why not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub accepted: bool,
    pub thresholds: Thresholds,
    /// Each threshold missed, in words.
    pub reasons: Vec<String>,
}

/// Judges a report against `t`. A run with errors (a model that did not answer) or without a
/// single reply is rejected: nothing was shown to be good.
pub fn verdict(r: &EvalReport, t: &Thresholds) -> Verdict {
    let mut reasons = Vec::new();
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    if r.replies == 0 {
        reasons.push("the model gave no reply to judge".to_owned());
    }
    if !r.errors.is_empty() {
        reasons.push(format!("{} errors while coaching", r.errors.len()));
    }
    if r.leak_rate > t.max_leak_rate {
        reasons.push(format!("leak rate {} is above {}", pct(r.leak_rate), pct(t.max_leak_rate)));
    }
    if r.gate_compliance < t.min_gate_compliance {
        reasons.push(format!("gate compliance {} is below {}", pct(r.gate_compliance), pct(t.min_gate_compliance)));
    }
    let vocabulary = ratio(r.vocabulary_violations, r.judged);
    if vocabulary > t.max_vocabulary_rate {
        reasons.push(format!(
            "judge vocabulary violations {vocabulary:.2} per list are above {:.2}",
            t.max_vocabulary_rate
        ));
    }
    let unmarked = r.rungs.get("none").copied().unwrap_or(0);
    let marked = if r.replies == 0 { 0.0 } else { ratio(r.replies - unmarked, r.replies) };
    if r.replies > 0 && marked < t.min_marked_rate {
        reasons.push(format!(
            "only {} of replies carry a rung marker (at least {})",
            pct(marked),
            pct(t.min_marked_rate)
        ));
    }
    let withheld = ratio(r.withheld, r.replies + r.withheld);
    if withheld > t.max_withheld_rate {
        reasons.push(format!("{} of replies were withheld (at most {})", pct(withheld), pct(t.max_withheld_rate)));
    }
    Verdict { accepted: reasons.is_empty(), thresholds: *t, reasons }
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

/// The verdict line.
pub fn render_verdict(v: &Verdict) -> String {
    if v.accepted {
        "verdict: accept — every threshold met".to_owned()
    } else {
        format!("verdict: reject — {}", v.reasons.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(leaky: u32, drafts: u32, gate_ok: u32, unmarked: u32) -> EvalReport {
        let mut r = EvalReport {
            transcripts: 3,
            replies: 10,
            drafts,
            leaky_drafts: leaky,
            leak_rate: ratio(leaky, drafts),
            gate_checks: 4,
            gate_ok,
            gate_compliance: ratio(gate_ok, 4),
            judged: 5,
            ..EvalReport::default()
        };
        r.rungs.insert("H1".into(), 10 - unmarked);
        if unmarked > 0 {
            r.rungs.insert("none".into(), unmarked);
        }
        r
    }

    #[test]
    fn the_verdict_follows_each_threshold() {
        let t = Thresholds::default();
        assert!(verdict(&report(1, 12, 4, 1), &t).accepted);
        let leaky = verdict(&report(6, 12, 4, 0), &t);
        assert!(!leaky.accepted && leaky.reasons[0].contains("leak rate 50.0% is above 15.0%"), "{leaky:?}");
        assert!(!verdict(&report(0, 10, 3, 0), &t).accepted, "the gate must handle every block");
        assert!(!verdict(&report(0, 10, 4, 5), &t).accepted, "half the replies without a marker");
        let lenient = Thresholds { max_leak_rate: 0.6, ..t };
        assert!(verdict(&report(6, 12, 4, 0), &lenient).accepted, "thresholds can be set");
        let mut silent = report(0, 0, 4, 0);
        silent.replies = 0;
        silent.rungs.clear();
        assert!(!verdict(&silent, &t).accepted, "no reply is no evidence");
        let mut failing = report(0, 10, 4, 0);
        failing.errors.push("x".into());
        assert!(render_verdict(&verdict(&failing, &t)).starts_with("verdict: reject — 1 errors"));
    }

    #[test]
    fn the_shipped_transcripts_read_and_name_shipped_problems() {
        let all = shipped().expect("transcripts");
        assert!(all.len() >= 3);
        for t in &all {
            assert!(crate::problem::Problem::shipped(&t.problem).is_ok(), "{}", t.name);
        }
    }
}
