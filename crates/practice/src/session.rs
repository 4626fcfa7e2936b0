//! One practice session, whatever the front end: every learner message goes through the gate,
//! every coach draft through the detectors, and every step into the log. The REPL and the MCP
//! tools drive this; neither can skip a rule.

use crate::backend::{Backend, BackendError, Role, Turn};
use crate::detect::reply::{Giveaway, giveaway};
use crate::gate::{self, CodeDecision, Gate};
use crate::judge;
use crate::log::{Event, Judge, LogError, MessageKind, ReqVerdict, SCHEMA, Stamped, Writer};
use crate::problem::Problem;
use crate::rung;
use crate::toolbox::Toolbox;

/// Leaky drafts after which a reply is withheld.
pub const MAX_DRAFTS: u32 = 3;

/// What the coach is told when the learner asks for the answer.
const REVEAL_TURN: &str =
    "[devcoach: the learner typed /reveal] Please show a complete solution now and explain why it works.";

/// The coaching instructions for a model: the practice skill, without its first section (about
/// the terminal client) for a local model, then the problem.
pub fn system_prompt(problem: &Problem, local: bool) -> String {
    let skill = devcoach_assets::PRACTICE_SKILL;
    let skill = if local {
        // Drop "## The client" up to the next section.
        match (skill.find("## The client"), skill.find("## Your role")) {
            (Some(a), Some(b)) if a < b => format!("{}{}", &skill[..a], &skill[b..]),
            _ => skill.to_owned(),
        }
    } else {
        skill.to_owned()
    };
    format!("{skill}\n\n## The problem\n\n{}\n", problem.brief())
}

/// What the learner sees instead of a reply that gave too much away three times: after `/hint`,
/// not another "/hint".
pub fn withheld_text(for_hint: bool) -> &'static str {
    if for_hint {
        "Every version of that hint gave the answer away, so it is held back. Say in your own words where you are \
         stuck (an example that goes wrong helps), or type /reveal to see the answer."
    } else {
        "The coach's reply gave too much away three times, so it is held back. Ask again another way, or type /hint \
         for a nudge."
    }
}

/// What the learner should see, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// The coach's reply, marker removed.
    Coach { text: String, rung: Option<u8> },
    /// The gate's verdict on a requirement list.
    Verdict { verdict: ReqVerdict, missing: Vec<String> },
    /// Code held back, and why.
    Held(String),
    /// Three drafts gave too much away; nothing is shown but this.
    Withheld(String),
    /// The coach moved to another backend.
    Switched(String),
    /// Something failed; the message can be sent again.
    Error(String),
}

/// A judge of requirement lists (and of blocks the rules could not classify).
pub struct NamedJudge {
    pub label: Judge,
    pub backend: Box<dyn Backend>,
}

/// The models of a session: the coach, the local one it falls back to on a quota message, and
/// the judge chain.
pub struct Models {
    pub coach: Box<dyn Backend>,
    pub local: Option<Box<dyn Backend>>,
    /// Whether `coach` is already a local model (`--local`).
    pub on_local: bool,
    pub judges: Vec<NamedJudge>,
}

pub struct Session {
    toolbox: &'static Toolbox,
    problem: Problem,
    models: Models,
    log: Writer,
    clock: Box<dyn Fn() -> String>,
    gate: Gate,
    history: Vec<Turn>,
    /// Everything the learner typed, and the names the gate itself told them.
    learner_words: Vec<String>,
    revealed: bool,
    ended: bool,
    /// The reply being written answers `/hint` (what to say when it is withheld).
    for_hint: bool,
}

impl Session {
    /// A session with nothing said yet (nothing written to its log).
    fn blank(
        toolbox: &'static Toolbox,
        problem: Problem,
        models: Models,
        log: Writer,
        clock: Box<dyn Fn() -> String>,
    ) -> Self {
        Self {
            toolbox,
            problem,
            models,
            log,
            clock,
            gate: Gate::new(),
            history: Vec::new(),
            learner_words: Vec::new(),
            revealed: false,
            ended: false,
            for_hint: false,
        }
    }

    /// Starts a session and writes its `start` line.
    pub fn start(
        toolbox: &'static Toolbox,
        problem: Problem,
        models: Models,
        log: Writer,
        clock: Box<dyn Fn() -> String>,
    ) -> Result<Self, LogError> {
        let session = Self::blank(toolbox, problem, models, log, clock);
        session.write(&Event::Start {
            schema: SCHEMA,
            problem: session.problem.slug.clone(),
            title: Some(session.problem.title.clone()),
            tags: session.problem.tags.clone(),
            backend: session.models.coach.kind().to_owned(),
            model: session.models.coach.model().to_owned(),
            statement: None,
        })?;
        Ok(session)
    }

    /// Takes up an unfinished session from its log (`events`, read from `log`'s file): the gate,
    /// the learner's words, a reveal and the conversation come back as they were, and a
    /// `resume` line is written.
    pub fn resume(
        toolbox: &'static Toolbox,
        problem: Problem,
        models: Models,
        log: Writer,
        clock: Box<dyn Fn() -> String>,
        events: &[Stamped],
    ) -> Result<Self, LogError> {
        let state = crate::remote::replay(events, toolbox);
        let mut session = Self::blank(toolbox, problem, models, log, clock);
        session.gate = state.gate;
        session.learner_words = state.learner_words;
        session.revealed = state.revealed;
        session.history = replayed_history(events, toolbox);
        session.history.push(Turn {
            role: Role::User,
            text:
                "[devcoach: the learner is back after a break and resumed this session] Carry on from where you were."
                    .into(),
        });
        session.write(&Event::Resume {})?;
        Ok(session)
    }

    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    pub fn log_path(&self) -> &std::path::Path {
        self.log.path()
    }

    pub fn backend_label(&self) -> String {
        format!("{} ({})", self.models.coach.kind(), self.models.coach.model())
    }

    fn write(&self, event: &Event) -> Result<(), LogError> {
        self.log.append(&(self.clock)(), event)
    }

    /// Logs, and turns a log failure into something to show (the session goes on).
    fn record(&self, event: &Event, shown: &mut Vec<Shown>) {
        if let Err(e) = self.write(event) {
            shown.push(Shown::Error(e.to_string()));
        }
    }

    fn name_of(&self, id: &str) -> String {
        self.toolbox.get(id).map_or_else(|| id.to_owned(), |e| e.name.clone())
    }

    /// One learner message.
    pub fn send(&mut self, text: &str) -> Vec<Shown> {
        let mut shown = Vec::new();
        let text = text.trim();
        if text.is_empty() || self.ended {
            return shown;
        }
        self.for_hint = false;
        let kind = match gate::message_kind(text) {
            Some(kind) => kind,
            None => self.ask_is_code(text),
        };
        self.learner_words.push(text.to_owned());
        self.record(&Event::Learner { text: text.to_owned(), kind }, &mut shown);
        let mut to_coach = text.to_owned();
        match kind {
            MessageKind::Req => {
                let (verdict, missing, judge, dropped) = self.judge_requirements(gate::requirement_text(text));
                self.gate.record(verdict, &missing);
                self.record(&Event::ReqCheck { verdict, missing: missing.clone(), judge, dropped }, &mut shown);
                let names: Vec<String> = missing.iter().map(|id| self.name_of(id)).collect();
                // The learner has now been told these names: they are theirs to use.
                self.learner_words.push(names.join(", "));
                to_coach = judged_turn(text, verdict, &names);
                shown.push(Shown::Verdict { verdict, missing: names });
            }
            MessageKind::Code => {
                let toolbox = self.toolbox;
                let decision =
                    self.gate.on_code(|id| toolbox.get(id).map_or_else(|| id.to_owned(), |e| e.name.clone()));
                match decision {
                    CodeDecision::Hold { why } => {
                        self.record(&Event::Held { why: why.clone() }, &mut shown);
                        shown.push(Shown::Held(why));
                        return shown;
                    }
                    CodeDecision::Pass { req_incomplete } => {
                        self.record(&Event::Code { req_incomplete }, &mut shown);
                    }
                }
            }
            MessageKind::Prose => {}
        }
        self.history.push(Turn { role: Role::User, text: to_coach });
        self.coach_reply(&mut shown);
        shown
    }

    /// The learner asked for the answer: the guard stands down and the coach may explain a
    /// full solution.
    pub fn reveal(&mut self) -> Vec<Shown> {
        let mut shown = Vec::new();
        self.revealed = true;
        self.for_hint = false;
        self.record(&Event::Reveal {}, &mut shown);
        self.history.push(Turn { role: Role::User, text: REVEAL_TURN.into() });
        self.coach_reply(&mut shown);
        shown
    }

    /// The learner asked for a hint: one rung higher than the last, still without names or code
    /// (the guard applies as usual).
    pub fn hint(&mut self) -> Vec<Shown> {
        let mut shown = Vec::new();
        if self.ended {
            return shown;
        }
        self.for_hint = true;
        self.history.push(Turn {
            role: Role::User,
            text: "[devcoach: the learner typed /hint] Give the next hint, one rung higher than your last reply."
                .into(),
        });
        self.coach_reply(&mut shown);
        shown
    }

    /// The learner says they solved it: ends the session as solved.
    pub fn done(&mut self) -> Result<(), LogError> {
        self.end(crate::log::SOLVED)
    }

    /// Ends the session (once); any reason but [`crate::log::SOLVED`] leaves it to be resumed.
    pub fn end(&mut self, reason: &str) -> Result<(), LogError> {
        if self.ended {
            return Ok(());
        }
        self.ended = true;
        self.write(&Event::End { reason: Some(reason.to_owned()) })
    }

    /// Asks a judge whether a block is code; nobody answering means prose.
    fn ask_is_code(&mut self, text: &str) -> MessageKind {
        let prompt = format!(
            "Is the following text source code in a programming language (pseudo-code in code syntax counts), \
             or something else (prose, a list, an error message, data, maths)? Answer with one word: code or not_code.\n\n<text>\n{text}\n</text>"
        );
        for judge in &mut self.models.judges {
            if let Ok(answer) = judge.backend.reply("", &[Turn { role: Role::User, text: prompt.clone() }]) {
                let answer = answer.trim().to_ascii_lowercase();
                if answer.starts_with("not") {
                    return MessageKind::Prose;
                }
                if answer.starts_with("code") {
                    return MessageKind::Code;
                }
            }
        }
        MessageKind::Prose
    }

    /// The judge chain: each judge in turn; none answering usably means `unverified`.
    fn judge_requirements(&mut self, list: &str) -> (ReqVerdict, Vec<String>, Judge, u32) {
        let prompt = judge::prompt(self.toolbox, &self.problem.statement, list);
        for j in &mut self.models.judges {
            let Ok(reply) = j.backend.reply("", &[Turn { role: Role::User, text: prompt.clone() }]) else { continue };
            if let Some(judgement) = judge::read(self.toolbox, &reply) {
                let dropped = u32::try_from(judgement.dropped.len()).unwrap_or(u32::MAX);
                return (judgement.verdict, judgement.missing, j.label, dropped);
            }
        }
        (ReqVerdict::Unverified, Vec::new(), Judge::None, 0)
    }

    /// What in a draft gives the answer away, if anything.
    fn leak_in(&self, draft: &str) -> Option<Giveaway> {
        let words: Vec<&str> = self.learner_words.iter().map(String::as_str).collect();
        giveaway(self.toolbox, draft, &words, self.revealed)
    }

    fn coach_reply(&mut self, shown: &mut Vec<Shown>) {
        let mut drafts = 0;
        let mut leaked = false;
        let mut note: Option<String> = None;
        loop {
            drafts += 1;
            let system = system_prompt(&self.problem, self.models.on_local);
            let mut turns = self.history.clone();
            if let Some(note) = &note {
                turns.push(Turn { role: Role::User, text: note.clone() });
            }
            let draft = match self.models.coach.reply(&system, &turns) {
                Ok(draft) => draft,
                Err(BackendError::Quota { said: message }) if !self.models.on_local && self.models.local.is_some() => {
                    if let Some(local) = self.models.local.take() {
                        let from = self.models.coach.kind().to_owned();
                        self.models.coach = local;
                        self.models.on_local = true;
                        self.record(
                            &Event::Switch {
                                from,
                                to: self.models.coach.kind().to_owned(),
                                reason: format!("quota: {message}"),
                            },
                            shown,
                        );
                        shown.push(Shown::Switched(format!(
                            "The cloud coach is out of quota ({message}). Carrying on with {}, with the whole conversation.",
                            self.backend_label()
                        )));
                    }
                    drafts -= 1;
                    continue;
                }
                Err(e) => {
                    // The message stays in the conversation (it was judged and logged already):
                    // the next call sends it along with whatever comes next.
                    shown.push(Shown::Error(format!(
                        "The coach did not answer: {e}. Your message is kept; send another one, or /hint, to carry on."
                    )));
                    return;
                }
            };
            let (rung, clean) = rung::strip(&draft);
            match self.leak_in(&clean) {
                None => {
                    self.history.push(Turn { role: Role::Assistant, text: clean.clone() });
                    self.record(&Event::Coach { rung, leaked, drafts, text: Some(clean.clone()) }, shown);
                    shown.push(Shown::Coach { text: clean, rung });
                    return;
                }
                Some(Giveaway { entry, why }) => {
                    leaked = true;
                    let source = if self.models.on_local { "local" } else { "repl" };
                    self.record(&Event::Bounce { entry, source: source.to_owned() }, shown);
                    if drafts >= MAX_DRAFTS {
                        self.record(&Event::Coach { rung: None, leaked, drafts, text: None }, shown);
                        shown.push(Shown::Withheld(withheld_text(self.for_hint).into()));
                        return;
                    }
                    note = Some(format!(
                        "[devcoach guard] Your last reply was not shown because {why}. Write it again: no technique, data \
                         structure or property the learner has not named, and no code. Start with the rung marker."
                    ));
                }
            }
        }
    }
}

/// What the coach is told of a requirement list: the learner's text and the judge's verdict.
fn judged_turn(text: &str, verdict: ReqVerdict, missing: &[String]) -> String {
    let gaps =
        if missing.is_empty() { String::new() } else { format!("; it says nothing yet about: {}", missing.join(", ")) };
    format!("{text}\n\n[devcoach: the requirement list was judged {}{gaps}]", verdict.as_str())
}

/// The conversation as the coach saw it, rebuilt from a session's log: code the gate held back
/// never reached the coach, a requirement list reached it with its verdict, a reveal as asked.
fn replayed_history(events: &[Stamped], toolbox: &Toolbox) -> Vec<Turn> {
    let mut history = Vec::new();
    let mut pending: Option<String> = None;
    let flush = |pending: &mut Option<String>, history: &mut Vec<Turn>| {
        if let Some(text) = pending.take() {
            history.push(Turn { role: Role::User, text });
        }
    };
    for e in events {
        match &e.event {
            Event::Learner { text, .. } => {
                flush(&mut pending, &mut history);
                pending = Some(text.clone());
            }
            Event::Held { .. } => pending = None,
            Event::ReqCheck { verdict, missing, .. } => {
                if let Some(text) = pending.take() {
                    let names: Vec<String> = missing
                        .iter()
                        .map(|id| toolbox.get(id).map_or_else(|| id.clone(), |e| e.name.clone()))
                        .collect();
                    pending = Some(judged_turn(&text, *verdict, &names));
                }
            }
            Event::Reveal {} => {
                flush(&mut pending, &mut history);
                history.push(Turn { role: Role::User, text: REVEAL_TURN.into() });
            }
            Event::Coach { text: Some(text), .. } => {
                flush(&mut pending, &mut history);
                history.push(Turn { role: Role::Assistant, text: text.clone() });
            }
            _ => {}
        }
    }
    flush(&mut pending, &mut history);
    history
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(event: Event) -> Stamped {
        Stamped { ts: "2026-11-30T10:00:00Z".into(), event }
    }

    #[test]
    fn a_resumed_conversation_is_the_one_the_coach_saw() {
        let toolbox = Toolbox::builtin();
        let id = toolbox.entries()[0].id.clone();
        let name = toolbox.entries()[0].name.clone();
        let coach = |text: &str| Event::Coach { rung: Some(1), leaked: false, drafts: 1, text: Some(text.into()) };
        let events = [
            at(Event::Learner { text: "def f(): return 0".into(), kind: MessageKind::Code }),
            at(Event::Held { why: "requirements first".into() }),
            at(Event::Learner { text: "req: sorted".into(), kind: MessageKind::Req }),
            at(Event::ReqCheck { verdict: ReqVerdict::Incomplete, missing: vec![id], judge: Judge::None, dropped: 0 }),
            at(coach("What about duplicates?")),
            at(Event::Reveal {}),
            at(coach("Here is the whole solution.")),
            at(Event::End { reason: Some("quit".into()) }),
            at(Event::Learner { text: "one more thought".into(), kind: MessageKind::Prose }),
        ];
        let history = replayed_history(&events, toolbox);
        let said: Vec<(Role, &str)> = history.iter().map(|t| (t.role, t.text.as_str())).collect();
        let judged = judged_turn("req: sorted", ReqVerdict::Incomplete, &[name]);
        assert_eq!(
            said,
            [
                (Role::User, judged.as_str()),
                (Role::Assistant, "What about duplicates?"),
                (Role::User, REVEAL_TURN),
                (Role::Assistant, "Here is the whole solution."),
                (Role::User, "one more thought"),
            ],
            "held code never reached the coach"
        );
    }
}
