//! Hands-on tools: the agent offers and runs an exercise on the learner's own code as the
//! coach, with devcoach holding the hidden body. The agent never writes the body; every draft
//! reply goes through `handson_check_reply` (the leak guard) before the learner sees it.
//!
//! The open exercise lives in this server process (its lock with it): a server that stops
//! leaves it to be cleaned at the next start.

use std::sync::Mutex;
use std::time::Duration;

use devcoach_core::error_kind::{ErrorKind, Kinded};
use devcoach_handson::leak::LeakGuard;
use devcoach_handson::tally::{self, Tally};
use devcoach_handson::{Change, Checked, Exercise, HandsOnError, Runner, check, exercise, pick};
use devcoach_practice::log::{self, Event, MessageKind, Writer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Out, READ, Registry, WRITE};
use crate::ctx::{Ctx, ToolError};

/// The open exercise of this server.
pub(crate) struct Open {
    _lock: exercise::Lock,
    ex: Exercise,
    tally: Tally,
    guard: LeakGuard,
    last: Option<Checked>,
    /// The test runner and the folder it runs in.
    runner: Option<(Runner, std::path::PathBuf)>,
    log: Writer,
    /// Leaky drafts in a row (the third is withheld).
    leaky: u32,
}

/// The hands-on state a server keeps: at most one open exercise.
#[derive(Default)]
pub(crate) struct HandsOn(Mutex<Option<Open>>);

impl From<HandsOnError> for ToolError {
    fn from(e: HandsOnError) -> Self {
        ToolError::said(e.kind(), e.to_string())
    }
}

const TIMEOUT: Duration = Duration::from_mins(5);

fn ts(ctx: &Ctx) -> String {
    devcoach_core::time::iso_ms(ctx.now())
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct OfferArgs {
    /// The project folder (absolute). Default: the folder the agent works in.
    #[serde(default)]
    pub folder: Option<String>,
    /// A commit or `from..to`. Default: the uncommitted changes (what you just did).
    #[serde(default)]
    pub change: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CandidateOut {
    /// 1-based: pass it to handson_start as `pick`.
    pub number: usize,
    pub function: String,
    pub file: String,
    pub line: usize,
    pub language: String,
    pub new: bool,
    pub tests: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct OfferOut {
    pub change: String,
    pub candidates: Vec<CandidateOut>,
    /// Functions the change rewrote that no test names (not offered).
    pub untested: usize,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StartArgs {
    #[serde(default)]
    pub folder: Option<String>,
    #[serde(default)]
    pub change: Option<String>,
    /// The candidate's number from handson_candidates (default 1).
    #[serde(default)]
    pub pick: Option<usize>,
    /// Or the function by name, as handson_candidates or log_lesson's offer name it (wins over
    /// `pick`).
    #[serde(default)]
    pub function: Option<String>,
    /// The command that runs the project's tests, when devcoach cannot tell: run by the shell in
    /// the exercise's worktree at every handson_check. Only what the learner asked for.
    #[serde(default)]
    pub test_command: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StartOut {
    pub session_id: String,
    pub function: String,
    /// Where the learner writes: the stubbed file in the exercise's worktree, and the line.
    pub file: String,
    pub line: usize,
    /// What the learner is given.
    pub signature: String,
    pub tests: Vec<String>,
    /// How to coach: follow these for the whole exercise.
    pub instructions: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SessionArgs {
    pub session_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct RequirementsArgs {
    pub session_id: String,
    /// The learner's own list of what the function must do, one item per entry, in their words.
    pub requirements: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RequirementsOut {
    pub kept: usize,
    /// The tests that judge the function: set them beside the learner's list, without saying
    /// how to meet them.
    pub tests: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CheckOut {
    pub passed: bool,
    pub failed: Vec<String>,
    /// The end of the test output.
    pub tail: String,
    pub command: String,
    /// The learner changed their own copy of the file, not the exercise.
    pub edited_own_copy: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReplyArgs {
    pub session_id: String,
    /// Your draft reply to the learner.
    pub draft: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ReplyOut {
    /// `show`, `rewrite` or `withhold`.
    pub action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct HintOut {
    pub rung: u8,
    /// Show this as it is; `null` when no hint is left.
    pub hint: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RevealOut {
    /// Your agent's version of the function, as it reads in the file.
    pub code: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct FinishArgs {
    pub session_id: String,
    /// The knowledge-map topic it counts for (default: the language).
    #[serde(default)]
    pub topic: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct FinishOut {
    /// `alone`, `helped`, `revealed` or `unfinished`.
    pub result: String,
    pub lesson_id: Option<String>,
    pub title: Option<String>,
}

/// An exercise offered with a lesson: what `log_lesson` returns when one fits.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LessonOffer {
    /// The function the learner could rebuild, its file and the tests that would judge it.
    pub function: String,
    pub file: String,
    pub tests: Vec<String>,
    /// What to do with the offer.
    pub how: String,
}

const OFFER_HOW: &str = "After the card's feedback line, offer it in one short sentence (\"Want to rebuild `<function>` yourself? Its tests would judge it.\"), once. If the learner says yes, call handson_start with this `function` and coach it; if they decline or say not now, call handson_not_now and drop it. Never write the function for them.";

/// The exercise to offer after the lesson just saved, if one is due and the project's change
/// holds a tested candidate; the offer is noted so the next waits a day. Whatever goes wrong
/// here (no repository, no change, a git error) means no offer: the lesson is saved either way.
pub(super) fn offer_after_lesson(ctx: &Ctx) -> Option<LessonOffer> {
    let now = ctx.now();
    if !ctx.with_store(|s| Ok(s.handson_offer_due(now)?)).ok()? {
        return None;
    }
    // An exercise already open in this session is offer enough.
    if ctx.handson.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_some() {
        return None;
    }
    ctx.with_store(|s| Ok(s.note_handson_looked(now)?)).ok()?;
    // The look parses the change: bounded by the hands-on caps, and waited for only so long (a
    // look that runs late finishes on its own and is dropped; the lesson is answered).
    let known = known_topics(ctx);
    let (tx, rx) = std::sync::mpsc::channel();
    let cwd = ctx.opts.cwd.clone();
    std::thread::spawn(move || {
        let best = pick::offer_for(&cwd, &Change::parse(None), &|topic| known.get(topic).copied())
            .ok()
            .and_then(|o| o.candidates.into_iter().next());
        let _ = tx.send(best);
    });
    let best = rx.recv_timeout(Duration::from_millis(devcoach_core::handson::OFFER_WAIT_MS)).ok()??;
    ctx.with_store(|s| Ok(s.note_handson_offered(now)?)).ok()?;
    Some(LessonOffer {
        function: best.piece.qualified.clone(),
        file: best.piece.path.display().to_string(),
        tests: best.tests.clone(),
        how: OFFER_HOW.to_owned(),
    })
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct NotNowOut {
    /// When the next offer may come.
    pub quiet_until: String,
}

/// The knowledge map's confidences by topic (none when the map cannot be read).
fn known_topics(ctx: &Ctx) -> std::collections::HashMap<String, i64> {
    ctx.with_store(|s| Ok(s.profile()?))
        .map(|p| p.knowledge.into_iter().map(|k| (k.topic, k.confidence)).collect())
        .unwrap_or_default()
}

/// The change's candidates, the languages the learner is less sure of ranked higher.
fn ranked_offer(ctx: &Ctx, dir: &std::path::Path, change: Option<&str>) -> Result<devcoach_handson::Offer, ToolError> {
    let known = known_topics(ctx);
    Ok(pick::offer_for(dir, &Change::parse(change), &|topic| known.get(topic).copied())?)
}

fn folder(ctx: &Ctx, given: Option<&str>) -> Result<std::path::PathBuf, ToolError> {
    let dir = given.map_or_else(|| ctx.opts.cwd.clone(), std::path::PathBuf::from);
    if !dir.is_absolute() || !dir.is_dir() {
        return Err(ToolError::Invalid(format!(
            "folder {} is not an absolute path to a folder: pass the project's folder",
            dir.display()
        )));
    }
    Ok(dir)
}

const INSTRUCTIONS: &str = "You are the coach of a hands-on exercise: the learner rebuilds a function you wrote, in a \
copy of their project, and its tests judge it. Never write the function or any line of its body, and never paste \
the code you wrote before. First ask the learner what the function must do and pass their list to \
handson_requirements; then set it beside the tests handson_requirements returns, without saying how to meet them. \
The learner writes in their editor, in the file given; run handson_check when they ask (it runs the project's \
tests). Pass every draft reply through handson_check_reply and send only what it lets through. Offer handson_hint \
when they are stuck; call handson_reveal only when they ask to see your version. End with handson_finish.";

/// Runs `f` on the open exercise named `id`.
fn with_open<T>(ctx: &Ctx, id: &str, f: impl FnOnce(&mut Open) -> Result<T, ToolError>) -> Result<T, ToolError> {
    let mut guard = ctx.handson.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match guard.as_mut() {
        Some(open) if open.ex.id == id => f(open),
        _ => Err(ToolError::NotFound(format!(
            "no open hands-on exercise {id:?} here: start one with handson_start (an exercise lasts as long as this server)"
        ))),
    }
}

fn note(ctx: &Ctx, open: &Open, event: &Event) -> Result<(), ToolError> {
    open.log.append(&ts(ctx), event).map_err(|e| ToolError::said(ErrorKind::Io, e.to_string()))
}

pub(super) fn register(r: &mut Registry) {
    r.structured(
        ("handson_not_now", "Hands-on Not Now", WRITE),
        "The learner declined the hands-on exercise offered with a lesson: no offer for a week.",
        |ctx: &Ctx, _: super::NoArgs| {
            let now = ctx.now();
            ctx.with_store(|s| Ok(s.handson_not_now(now)?))?;
            let until = now + chrono::Duration::days(devcoach_core::handson::NOT_NOW_DAYS);
            Ok(Out::from(NotNowOut { quiet_until: devcoach_core::time::iso_ms(until) }))
        },
    );
    r.structured(
        ("handson_candidates", "Hands-on Candidates", READ),
        "List the functions of a change (default: the uncommitted changes in the project folder) that the learner \
         could rebuild themselves: new or mostly rewritten, with a test that names them. Offer one after a lesson \
         about that change, at most once a day; never during a course.",
        |ctx: &Ctx, a: OfferArgs| {
            let offer = ranked_offer(ctx, &folder(ctx, a.folder.as_deref())?, a.change.as_deref())?;
            Ok(Out::from(OfferOut {
                change: offer.changed.change.describe(),
                untested: offer.untested,
                candidates: offer
                    .candidates
                    .iter()
                    .enumerate()
                    .map(|(i, c)| CandidateOut {
                        number: i + 1,
                        function: c.piece.qualified.clone(),
                        file: c.piece.path.display().to_string(),
                        line: c.piece.lines.0,
                        language: c.piece.lang.name().into(),
                        new: c.new,
                        tests: c.tests.clone(),
                    })
                    .collect(),
            }))
        },
    );
    r.structured(
        ("handson_start", "Start Hands-on", WRITE),
        "Set up the exercise the learner chose: a separate worktree of their project (theirs is not touched) with the \
         function's body replaced by a stub. Returns where they write and how to coach.",
        |ctx: &Ctx, a: StartArgs| {
            let offer = ranked_offer(ctx, &folder(ctx, a.folder.as_deref())?, a.change.as_deref())?;
            let chosen = match a.function.as_deref().map(str::trim) {
                Some(name) => offer
                    .candidates
                    .iter()
                    .find(|c| c.piece.qualified == name || c.piece.name == name)
                    .ok_or_else(|| {
                        let names: Vec<&str> = offer.candidates.iter().map(|c| c.piece.qualified.as_str()).collect();
                        ToolError::Invalid(format!(
                            "function {name:?} is not among this change's candidates: {}",
                            names.join(", ")
                        ))
                    })?,
                None => {
                    let n = a.pick.unwrap_or(1);
                    n.checked_sub(1).and_then(|i| offer.candidates.get(i)).ok_or_else(|| {
                        ToolError::Invalid(format!("pick {n}: give a number from 1 to {}", offer.candidates.len()))
                    })?
                }
            };
            let mut slot = ctx.handson.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if slot.is_some() {
                return Err(ToolError::said(
                    ErrorKind::Busy,
                    "handson_start failed: an exercise is open in this session; end it with handson_finish first",
                ));
            }
            let root = devcoach_core::layout::handson(ctx.opts.dir.root());
            let (lock, _cleaned) = exercise::lock(&root)?;
            let ex = exercise::start(&lock, &root, &offer, chosen, ctx.now().timestamp_millis())?;
            // An exercise begun is the day's offer taken: none comes with the next lesson.
            let _ = ctx.with_store(|s| Ok(s.note_handson_offered(ctx.now())?));
            let piece = ex.candidate.piece.clone();
            let slug = format!("handson-{}", piece.name);
            let (path, _) =
                log::new_session_path(ctx.opts.dir.root(), &ctx.now().format("%Y-%m-%d").to_string(), &slug);
            let visible = std::fs::read_to_string(ex.file()).unwrap_or_default();
            let runner = match a.test_command {
                Some(command) => Some((Runner::Custom(command), ex.tree.clone())),
                None => Runner::detect_for(&ex.tree, &piece.path, piece.lang),
            };
            let open = Open {
                _lock: lock,
                guard: LeakGuard::new(&ex.hidden, &visible),
                ex,
                tally: Tally::default(),
                last: None,
                runner,
                log: Writer::new(path),
                leaky: 0,
            };
            let started = note(
                ctx,
                &open,
                &Event::Start {
                    schema: 1,
                    problem: slug,
                    title: Some(format!("Hands-on: {}", piece.qualified)),
                    tags: Vec::new(),
                    backend: "mcp".into(),
                    model: String::new(),
                    statement: Some(piece.signature.clone()),
                },
            );
            if let Err(e) = started {
                // Nothing half-open: the worktree goes before the error is told.
                let _ = exercise::finish(&root, &open.ex);
                return Err(e);
            }
            let out = StartOut {
                session_id: open.ex.id.clone(),
                function: piece.qualified.clone(),
                file: open.ex.file().display().to_string(),
                line: piece.lines.0,
                signature: piece.signature.clone(),
                tests: open.ex.candidate.tests.clone(),
                instructions: INSTRUCTIONS.into(),
            };
            *slot = Some(open);
            Ok(Out::from(out))
        },
    );
    r.structured(
        ("handson_requirements", "Hands-on Requirements", WRITE),
        "Record the learner's own list of what the function must do (before code). Returns the tests that judge it.",
        |ctx: &Ctx, a: RequirementsArgs| {
            with_open(ctx, &a.session_id, |open| {
                for req in a.requirements.iter().map(|r| r.trim()).filter(|r| !r.is_empty()) {
                    note(ctx, open, &Event::Learner { text: req.to_owned(), kind: MessageKind::Req })?;
                    open.tally.requirements.push(req.to_owned());
                }
                if open.tally.checks == 0 && !open.tally.requirements.is_empty() {
                    open.tally.requirements_first = true;
                }
                Ok(Out::from(RequirementsOut {
                    kept: open.tally.requirements.len(),
                    tests: open.ex.candidate.tests.clone(),
                }))
            })
        },
    );
    r.structured(
        ("handson_check", "Check Hands-on", WRITE),
        "Run the project's tests in the exercise's worktree (at most 5 minutes) and say what failed.",
        |ctx: &Ctx, a: SessionArgs| {
            with_open(ctx, &a.session_id, |open| {
                let (runner, run_in) = open.runner.clone().ok_or_else(|| {
                    ToolError::Invalid("no test runner found in the project: start again with test_command set".into())
                })?;
                let own = run_in.strip_prefix(&open.ex.tree).map(|rel| open.ex.repo.join(rel)).ok();
                let run = check::check_in(&run_in, &runner, TIMEOUT, own.as_deref())?;
                if open.tally.checks == 0 {
                    note(ctx, open, &Event::Code { req_incomplete: false })?;
                }
                open.tally.checked(&run);
                let failed = u32::try_from(run.failed.len()).unwrap_or(u32::MAX);
                note(ctx, open, &Event::Check { passed: run.passed, failed })?;
                let out = CheckOut {
                    passed: run.passed,
                    failed: run.failed.clone(),
                    tail: run.tail.clone(),
                    command: run.command.clone(),
                    edited_own_copy: open.ex.own_file_changed(),
                };
                open.last = Some(run);
                Ok(Out::from(out))
            })
        },
    );
    r.structured(
        ("handson_check_reply", "Check Hands-on Reply", WRITE),
        "Check a draft reply before the learner sees it: one that carries the hidden body (a name only it uses, or a \
         run of its code) must be rewritten; after three tries it is withheld. After handson_reveal anything goes.",
        |ctx: &Ctx, a: ReplyArgs| {
            with_open(ctx, &a.session_id, |open| {
                let leak = if open.tally.revealed { None } else { open.guard.check(&a.draft) };
                let out = match leak {
                    None => {
                        open.leaky = 0;
                        note(ctx, open, &Event::Coach { rung: None, leaked: false, drafts: 1, text: Some(a.draft.clone()) })?;
                        ReplyOut { action: "show".into(), why: None }
                    }
                    Some(_) if open.leaky >= 2 => {
                        open.leaky = 0;
                        note(ctx, open, &Event::Bounce { entry: "code-line".into(), source: "mcp".into() })?;
                        ReplyOut {
                            action: "withhold".into(),
                            why: Some("Three drafts carried your code: ask the learner a question instead.".into()),
                        }
                    }
                    Some(_) => {
                        open.leaky += 1;
                        note(ctx, open, &Event::Bounce { entry: "code-line".into(), source: "mcp".into() })?;
                        ReplyOut {
                            action: "rewrite".into(),
                            // The leak itself is not repeated: it is the answer.
                            why: Some("The draft carries the code you wrote (a name only it uses, or a run of it). Write it again without it.".into()),
                        }
                    }
                };
                Ok(Out::from(out))
            })
        },
    );
    r.structured(
        ("handson_hint", "Hands-on Hint", WRITE),
        "The next structural hint (the signature, the tests, the last failing assertion, the length of your version); \
         none of them carries the hidden body.",
        |ctx: &Ctx, a: SessionArgs| {
            with_open(ctx, &a.session_id, |open| {
                while open.tally.rung < tally::RUNGS {
                    open.tally.rung += 1;
                    if let Some(text) = tally::hint(&open.ex, open.tally.rung, open.last.as_ref(), &open.guard) {
                        note(
                            ctx,
                            open,
                            &Event::Coach {
                                rung: Some(open.tally.rung),
                                leaked: false,
                                drafts: 1,
                                text: Some(text.clone()),
                            },
                        )?;
                        return Ok(Out::from(HintOut { rung: open.tally.rung, hint: Some(text) }));
                    }
                }
                Ok(Out::from(HintOut { rung: open.tally.rung, hint: None }))
            })
        },
    );
    r.structured(
        ("handson_reveal", "Reveal Hands-on Code", WRITE),
        "The learner asked to see your version: it is returned, and the exercise counts as revealed.",
        |ctx: &Ctx, a: SessionArgs| {
            with_open(ctx, &a.session_id, |open| {
                open.tally.revealed = true;
                let root = devcoach_core::layout::handson(ctx.opts.dir.root());
                exercise::mark_revealed(&root, &mut open.ex)?;
                note(ctx, open, &Event::Reveal {})?;
                Ok(Out::from(RevealOut { code: open.ex.agent_version() }))
            })
        },
    );
    r.structured(
        ("handson_finish", "Finish Hands-on", WRITE),
        "End the exercise: its worktree goes, a lesson card is saved (kind practice: no lesson budget) and the outcome \
         counts on the knowledge map.",
        |ctx: &Ctx, a: FinishArgs| {
            let open = {
                let mut slot = ctx.handson.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                match slot.take() {
                    Some(open) if open.ex.id == a.session_id => open,
                    other => {
                        *slot = other;
                        return Err(ToolError::NotFound(format!("no open hands-on exercise {:?} here", a.session_id)));
                    }
                }
            };
            // The worktree goes first, whatever the log says after.
            let root = devcoach_core::layout::handson(ctx.opts.dir.root());
            let finished = exercise::finish(&root, &open.ex);
            let reason = if open.tally.passed { log::SOLVED.to_owned() } else { "ended by the agent".to_owned() };
            let _ = note(ctx, &open, &Event::End { reason: Some(reason) });
            finished?;
            let topic = a.topic.unwrap_or_else(|| open.ex.candidate.piece.lang.topic().to_owned());
            let now = ctx.now();
            let result = open.tally.result().map_or("unfinished", |r| r.as_str());
            let Some(card) = tally::card(&open.ex, &open.tally, &topic, now) else {
                return Ok(Out::from(FinishOut { result: result.into(), lesson_id: None, title: None }));
            };
            let outcome = open.tally.outcome(open.ex.candidate.piece.lang.topic());
            let lesson = ctx.with_store(|s| Ok(s.record_handson(card, &topic, &outcome, now)?))?;
            Ok(Out::from(FinishOut { result: result.into(), lesson_id: Some(lesson.id), title: Some(lesson.title) }))
        },
    );
}
