//! `devcoach practice report`: what each session log says about the learner's habits, then
//! totals across sessions and per knowledge-map topic.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::log::{Event, MessageKind, Stamped};
use crate::toolbox::Toolbox;

/// One judged requirement list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerdictLine {
    pub verdict: &'static str,
    pub missing: Vec<String>,
    pub judge: String,
}

/// One session, summed up.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionReport {
    pub file: String,
    pub problem: String,
    pub started: String,
    pub backend: String,
    pub model: String,
    /// `true` when a requirement list came before the first code, `false` when code came first,
    /// `null` when the learner sent no code.
    pub req_before_code: Option<bool>,
    pub highest_rung: Option<u8>,
    pub revealed: bool,
    pub verdicts: Vec<VerdictLine>,
    pub code_held: usize,
    pub req_incomplete_code: bool,
    pub bounces: usize,
    pub switches: usize,
    pub topics: Vec<String>,
    pub ended: bool,
    /// The learner said they solved it (and did not take it up again since).
    pub solved: bool,
    /// A hands-on exercise: how often its tests ran, and whether the last run passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<Checks>,
}

/// The test runs of a hands-on exercise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Checks {
    pub runs: usize,
    pub last_passed: bool,
}

impl SessionReport {
    /// Solved, or the answer was shown: nothing is left to resume.
    pub fn finished(&self) -> bool {
        self.revealed || (self.ended && self.solved)
    }
}

pub fn session(file: &str, events: &[Stamped], toolbox: &Toolbox) -> SessionReport {
    let mut r = SessionReport {
        file: file.to_owned(),
        problem: String::new(),
        started: events.first().map(|e| e.ts.clone()).unwrap_or_default(),
        backend: String::new(),
        model: String::new(),
        req_before_code: None,
        highest_rung: None,
        revealed: false,
        verdicts: Vec::new(),
        code_held: 0,
        req_incomplete_code: false,
        bounces: 0,
        switches: 0,
        topics: Vec::new(),
        ended: false,
        solved: false,
        checks: None,
    };
    let mut seen_req = false;
    for stamped in events {
        match &stamped.event {
            Event::Start { problem, tags, backend, model, .. } => {
                r.problem.clone_from(problem);
                r.backend.clone_from(backend);
                r.model.clone_from(model);
                r.started.clone_from(&stamped.ts);
                for tag in tags {
                    if let Some(entry) = toolbox.get(tag)
                        && !r.topics.contains(&entry.topic)
                    {
                        r.topics.push(entry.topic.clone());
                    }
                }
            }
            Event::Learner { kind: MessageKind::Req, .. } => seen_req = true,
            Event::Learner { kind: MessageKind::Code, .. } => {
                if r.req_before_code.is_none() {
                    r.req_before_code = Some(seen_req);
                }
            }
            Event::Learner { .. } => {}
            Event::ReqCheck { verdict, missing, judge, .. } => r.verdicts.push(VerdictLine {
                verdict: verdict.as_str(),
                missing: missing.clone(),
                judge: serde_json::to_value(judge).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            }),
            Event::Code { req_incomplete } => r.req_incomplete_code |= req_incomplete,
            Event::Held { .. } => r.code_held += 1,
            Event::Coach { rung, .. } => {
                if let Some(rung) = rung {
                    r.highest_rung = Some(r.highest_rung.map_or(*rung, |h| h.max(*rung)));
                }
            }
            Event::Bounce { .. } => r.bounces += 1,
            Event::Switch { .. } => r.switches += 1,
            Event::Reveal {} => r.revealed = true,
            Event::Check { passed, .. } => {
                let checks = r.checks.get_or_insert_with(Checks::default);
                checks.runs += 1;
                checks.last_passed = *passed;
            }
            Event::End { reason } => {
                r.ended = true;
                r.solved = reason.as_deref() == Some(crate::log::SOLVED);
            }
            Event::Resume {} => {
                r.ended = false;
                r.solved = false;
            }
        }
    }
    r
}

/// Figures over a set of sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    pub sessions: usize,
    /// Sessions in which the learner sent code, and of those, how many had requirements first.
    pub with_code: usize,
    pub req_first: usize,
    pub revealed: usize,
    /// Mean of each session's highest rung, over sessions with a rung.
    pub mean_highest_rung: Option<f64>,
    pub passed: usize,
    pub incomplete: usize,
    pub unverified: usize,
    pub bounces: usize,
    /// Hands-on exercises among them, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handson: Option<HandsOnTotals>,
}

/// Hands-on exercises summed up: how many, how many the project's tests passed, how many of
/// those without the agent's code and with at most two hints, and the hints in all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct HandsOnTotals {
    pub sessions: usize,
    pub passed: usize,
    pub unaided: usize,
    pub hints: usize,
}

fn sum_up<'a>(sessions: impl IntoIterator<Item = &'a SessionReport>) -> Totals {
    let mut t = Totals::default();
    let mut rungs = Vec::new();
    for s in sessions {
        t.sessions += 1;
        if let Some(first) = s.req_before_code {
            t.with_code += 1;
            t.req_first += usize::from(first);
        }
        t.revealed += usize::from(s.revealed);
        if let Some(r) = s.highest_rung {
            rungs.push(f64::from(r));
        }
        for v in &s.verdicts {
            match v.verdict {
                "passed" => t.passed += 1,
                "incomplete" => t.incomplete += 1,
                _ => t.unverified += 1,
            }
        }
        t.bounces += s.bounces;
        if let Some(checks) = s.checks {
            let h = t.handson.get_or_insert_with(HandsOnTotals::default);
            h.sessions += 1;
            h.passed += usize::from(checks.last_passed);
            h.unaided += usize::from(checks.last_passed && !s.revealed && s.highest_rung.is_none_or(|r| r <= 2));
            h.hints += usize::from(s.highest_rung.unwrap_or(0));
        }
    }
    if !rungs.is_empty() {
        #[allow(clippy::cast_precision_loss)]
        let mean = rungs.iter().sum::<f64>() / rungs.len() as f64;
        t.mean_highest_rung = Some((mean * 100.0).round() / 100.0);
    }
    t
}

/// The whole report: each session, the totals, and the totals per topic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub sessions: Vec<SessionReport>,
    pub totals: Totals,
    pub topics: BTreeMap<String, Totals>,
}

pub fn build(sessions: Vec<SessionReport>) -> Report {
    let totals = sum_up(&sessions);
    let mut names: Vec<&String> = sessions.iter().flat_map(|s| &s.topics).collect();
    names.sort();
    names.dedup();
    let topics = names
        .into_iter()
        .map(|topic| (topic.clone(), sum_up(sessions.iter().filter(|s| s.topics.contains(topic)))))
        .collect();
    Report { sessions, totals, topics }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The report as text (format documented in docs/practice-log.md).
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for (i, s) in report.sessions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{} ({})\n", s.file, if s.problem.is_empty() { "unknown problem" } else { &s.problem }));
        let req = match s.req_before_code {
            Some(true) => "yes",
            Some(false) => "no",
            None => "no code sent",
        };
        out.push_str(&format!("  requirements before code: {req}\n"));
        out.push_str(&format!(
            "  highest rung: {}\n",
            s.highest_rung.map_or_else(|| "none".to_owned(), |r| format!("H{r}"))
        ));
        out.push_str(&format!("  answer revealed: {}\n", yes_no(s.revealed)));
        if s.verdicts.is_empty() {
            out.push_str("  requirement checks: none\n");
        } else {
            out.push_str("  requirement checks:\n");
            for (i, v) in s.verdicts.iter().enumerate() {
                let missing =
                    if v.missing.is_empty() { String::new() } else { format!(" (missing: {})", v.missing.join(", ")) };
                out.push_str(&format!("    {}. {}{missing} [{}]\n", i + 1, v.verdict, v.judge));
            }
        }
        if let Some(checks) = s.checks {
            out.push_str(&format!(
                "  tests run: {}×, the last {}\n",
                checks.runs,
                if checks.last_passed { "passed" } else { "failed" }
            ));
        }
        if s.code_held > 0 || s.bounces > 0 || s.switches > 0 || s.req_incomplete_code {
            out.push_str(&format!(
                "  code held {}×, replies bounced {}×, backend switches {}{}\n",
                s.code_held,
                s.bounces,
                s.switches,
                if s.req_incomplete_code { ", code let through after 3 incomplete lists" } else { "" }
            ));
        }
    }
    let t = &report.totals;
    if report.sessions.len() > 1 || !report.topics.is_empty() {
        out.push_str(&format!("\n{}\n", line("All sessions", t)));
        if let Some(h) = t.handson {
            out.push_str(&format!(
                "  hands-on: {} exercise(s), {} passed ({} unaided), {} hint(s)\n",
                h.sessions, h.passed, h.unaided, h.hints
            ));
        }
        for (topic, t) in &report.topics {
            out.push_str(&format!("{}\n", line(&format!("  {topic}"), t)));
        }
    }
    out
}

fn line(label: &str, t: &Totals) -> String {
    let req =
        if t.with_code == 0 { "no code".to_owned() } else { format!("req first {}/{}", t.req_first, t.with_code) };
    let rung = t.mean_highest_rung.map_or_else(|| "no rungs".to_owned(), |m| format!("mean highest rung H{m:.2}"));
    format!(
        "{label}: {} {}, {req}, {rung}, revealed {}, checks {} passed / {} incomplete / {} unverified",
        t.sessions,
        if t.sessions == 1 { "session" } else { "sessions" },
        t.revealed,
        t.passed,
        t.incomplete,
        t.unverified
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::Event;

    fn at(event: Event) -> Stamped {
        Stamped { ts: "2026-12-03T10:00:00.000Z".into(), event }
    }

    fn exercise(rung: Option<u8>, passed: bool, revealed: bool) -> Vec<Stamped> {
        let mut events = vec![at(Event::Start {
            schema: 1,
            problem: "handson-total".into(),
            title: None,
            tags: Vec::new(),
            backend: "none".into(),
            model: String::new(),
            statement: None,
        })];
        events.push(at(Event::Check { passed: false, failed: 1 }));
        if let Some(r) = rung {
            events.push(at(Event::Coach { rung: Some(r), leaked: false, drafts: 1, text: None }));
        }
        if revealed {
            events.push(at(Event::Reveal {}));
        }
        events.push(at(Event::Check { passed, failed: u32::from(!passed) }));
        events
    }

    #[test]
    fn hands_on_exercises_are_summed_by_their_last_test_run() {
        let toolbox = Toolbox::builtin();
        let sessions = vec![
            session("a", &exercise(None, true, false), toolbox),
            session("b", &exercise(Some(3), true, false), toolbox),
            session("c", &exercise(Some(1), true, true), toolbox),
            session("d", &exercise(Some(2), false, false), toolbox),
        ];
        assert_eq!(sessions[0].checks, Some(Checks { runs: 2, last_passed: true }));
        let report = build(sessions);
        assert_eq!(report.totals.handson, Some(HandsOnTotals { sessions: 4, passed: 3, unaided: 1, hints: 6 }));
        assert!(render(&report).contains("hands-on: 4 exercise(s), 3 passed (1 unaided), 6 hint(s)"));
        // A practice session without test runs adds no hands-on figures.
        let plain = build(vec![session("p", &[], toolbox)]);
        assert_eq!(plain.totals.handson, None);
    }
}
