//! `devcoach handson`: rebuild a function your agent just wrote, in a worktree of your own
//! project, judged by its tests. Line-based, so a script (or a test) can drive it.
//!
//! Without a model the tests judge, the hints are the structural rungs, and the learner's
//! requirement list is kept and set beside the tests' names.

use std::io::{BufRead, Write};
use std::time::Duration;

use devcoach_handson::coach;
use devcoach_handson::leak::LeakGuard;
use devcoach_handson::tally::{self, Tally};
use devcoach_handson::{Change, Checked, Exercise, Offer, Runner, check, exercise, pick};
use devcoach_practice::backend::{BackendError, Role, Turn};
use devcoach_practice::log::{self, Event, Judge, MessageKind, ReqVerdict, Writer};
use devcoach_practice::session::Models;
use serde_json::json;

use crate::cli::HandsonArgs;
use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::{self, Style};

pub fn run(ctx: &Ctx, args: &HandsonArgs) -> anyhow::Result<()> {
    let here = std::env::current_dir().map_err(|e| invalid(format!("the current folder cannot be read: {e}")))?;
    let root = devcoach_core::layout::handson(ctx.dir.root());
    // Taken first: a session open elsewhere is said before anything is asked, and what a crash
    // left is removed now, even when only listing.
    let locked = exercise::lock(&root);
    let (lock, cleaned) = match locked {
        Ok((lock, cleaned)) => (Some(lock), cleaned),
        Err(devcoach_handson::HandsOnError::Busy) if args.list || args.json.json => (None, Vec::new()),
        Err(e) => return Err(e.into()),
    };
    for old in &cleaned {
        output::print(&ctx.term.out(
            Style::Dim,
            &format!("Removed an exercise an earlier session left open ({}).", old.candidate.piece.qualified),
        ))?;
    }
    // The learner's map ranks the languages they are less sure of higher; no map, no weighting.
    let known: std::collections::HashMap<String, i64> = ctx
        .open_existing()
        .ok()
        .flatten()
        .and_then(|s| s.profile().ok())
        .map(|p| p.knowledge.into_iter().map(|k| (k.topic, k.confidence)).collect())
        .unwrap_or_default();
    let offer = pick::offer_for(&here, &Change::parse(args.change.as_deref()), &|topic| known.get(topic).copied())?;
    // A session is a conversation: `--json` asks for the list.
    if args.json.json {
        return Ok(output::print(&serde_json::to_string_pretty(&list_json(&offer))?)?);
    }
    print_offer(ctx, &offer)?;
    if args.list {
        return Ok(());
    }
    let stdin = std::io::stdin();
    // Piped answers are echoed after their prompts, so a script's transcript reads in order.
    let echo = !std::io::IsTerminal::is_terminal(&stdin);
    let mut input = stdin.lock();
    let mut out = output::stdout();
    let Some(choice) = choose(&offer, args.pick.as_deref(), &mut input, &mut out, echo)? else {
        return Ok(());
    };
    let Some(lock) = lock else { return Err(devcoach_handson::HandsOnError::Busy.into()) };
    // Asked before anything is set up: a coach that cannot answer leaves nothing behind.
    let models = if args.coach || args.models.local {
        let mut models = super::practice_repl::backends(&args.models, &[]);
        super::practice_repl::preflight(ctx, &mut models)?;
        Some(models)
    } else {
        None
    };
    let ex = exercise::start(&lock, &root, &offer, &offer.candidates[choice], ctx.clock.now().timestamp_millis())?;
    clean_up_on_signal(root.clone(), ex.clone());
    let outcome = session(ctx, args, &ex, models, &mut input, &mut out, echo);
    // Whatever happened in the session, the learner's version is kept and the worktree goes.
    if let Some(kept) = exercise::keep_learners_copy(&root, &ex) {
        output::print(&ctx.term.out(Style::Dim, &format!("Your version is kept in {}.", kept.display())))?;
    }
    let finished = exercise::finish(&root, &ex);
    drop(lock);
    let (tally, log_path) = outcome?;
    finished?;
    record(ctx, args, &ex, &tally)?;
    output::print(
        &ctx.term
            .out(Style::Dim, &format!("Session log: {}. `devcoach practice report` sums it up.", log_path.display())),
    )?;
    Ok(())
}

/// Ctrl-C (or a terminal closing) mid-session: the worktree and its record in the learner's
/// repository go at once, not at the next start.
fn clean_up_on_signal(root: std::path::PathBuf, ex: Exercise) {
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        runtime.block_on(super::ui::first_signal());
        // A check running now is in a process group of its own, out of the terminal's reach.
        devcoach_probe::child::end_running_groups();
        let kept = exercise::keep_learners_copy(&root, &ex);
        let _ = exercise::finish(&root, &ex);
        let kept = kept.map(|k| format!(" Your version is kept in {}.", k.display())).unwrap_or_default();
        output::note(&format!("\nStopped: the exercise's worktree is removed and your repository is as it was.{kept}"));
        std::process::exit(130);
    });
}

fn list_json(offer: &Offer) -> serde_json::Value {
    json!({
        "change": offer.changed.change.describe(),
        "untested": offer.untested,
        "candidates": offer.candidates.iter().map(|c| json!({
            "function": c.piece.qualified,
            "file": c.piece.path,
            "lines": [c.piece.lines.0, c.piece.lines.1],
            "language": c.piece.lang.name(),
            "new": c.new,
            "changed_lines": c.changed_lines,
            "tests": c.tests,
        })).collect::<Vec<_>>(),
    })
}

fn print_offer(ctx: &Ctx, offer: &Offer) -> anyhow::Result<()> {
    let t = ctx.term;
    output::print(&format!("What you could rebuild from {}:", offer.changed.change.describe()))?;
    for (i, c) in offer.candidates.iter().enumerate() {
        let p = &c.piece;
        let body = p.body_lines.1 + 1 - p.body_lines.0;
        let tests = output::plural(c.tests.len(), "test");
        let what = if c.new { "new" } else { "rewritten" };
        output::print(&output::wrap_indented(
            &format!(
                "{} {}  {}:{}  {what} · {} · {tests}",
                t.out(Style::Bold, &format!("{}.", i + 1)),
                t.out(Style::Cyan, &p.qualified),
                p.path.display(),
                p.lines.0,
                output::plural(body, "line"),
            ),
            t.width,
            "  ",
            "     ",
        ))?;
    }
    if offer.untested > 0 {
        output::print(&t.out(
            Style::Dim,
            &format!(
                "  ({} more the change rewrote that no test names: a test is what judges a rebuild.)",
                offer.untested
            ),
        ))?;
    }
    if offer.changed.truncated {
        output::print(&t.out(Style::Dim, "  (The change is large: only its beginning was read.)"))?;
    }
    Ok(())
}

/// Shows `prompt`, reads one line (echoed when piped); `None` at the end of the input.
fn ask(input: &mut impl BufRead, out: &mut impl Write, echo: bool, prompt: &str) -> anyhow::Result<Option<String>> {
    write!(out, "{prompt}")?;
    out.flush()?;
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        writeln!(out)?;
        return Ok(None);
    }
    if echo {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(Some(line.trim().to_owned()))
}

/// The candidate to rebuild: `--pick` (a number or a function's name), else asked.
fn choose(
    offer: &Offer,
    pick: Option<&str>,
    input: &mut impl BufRead,
    out: &mut impl Write,
    echo: bool,
) -> anyhow::Result<Option<usize>> {
    let find = |word: &str| -> Option<usize> {
        match word.parse::<usize>() {
            Ok(n) => (1..=offer.candidates.len()).contains(&n).then(|| n - 1),
            Err(_) => offer.candidates.iter().position(|c| c.piece.qualified == word || c.piece.name == word),
        }
    };
    if let Some(word) = pick {
        return find(word).map(Some).ok_or_else(|| {
            invalid(format!(
                "--pick {word}: give a number from 1 to {}, or a name from the list",
                offer.candidates.len()
            ))
        });
    }
    loop {
        let Some(answer) = ask(input, out, echo, "Rebuild which one? [1, q to stop] ")? else { return Ok(None) };
        match answer.as_str() {
            "" => return Ok(Some(0)),
            "q" | "quit" => return Ok(None),
            word => match find(word) {
                Some(i) => return Ok(Some(i)),
                None => writeln!(out, "Type a number from 1 to {}, or q.", offer.candidates.len())?,
            },
        }
    }
}

const HELP: &str = "check: run the tests · hint: the next hint · reveal: show your agent's version · done: finish";
const HELP_COACHED: &str = "check: run the tests · hint: the next hint · reveal: show your agent's version · done: finish · anything else: ask the coach";

/// Rounds of judging a requirement list before coding goes on regardless.
const JUDGED_ROUNDS: u32 = 3;

/// The model behind a coached exercise, and the conversation so far.
struct Coach {
    models: Models,
    system: String,
    history: Vec<Turn>,
}

impl Coach {
    fn label(&self) -> (String, String) {
        (self.models.coach.kind().to_owned(), self.models.coach.model().to_owned())
    }

    /// The judge chain on a requirement list; no judge answering leaves it unverified.
    fn judge(&mut self, ex: &Exercise, list: &[String], guard: &LeakGuard) -> (Judge, Option<coach::Judged>) {
        let prompt = coach::judge_prompt(ex, list);
        for j in &mut self.models.judges {
            let Ok(reply) = j.backend.reply("", &[Turn { role: Role::User, text: prompt.clone() }]) else { continue };
            if let Some(judged) = coach::read_judgement(&reply, guard) {
                return (j.label, Some(judged));
            }
        }
        (Judge::None, None)
    }

    /// One answer to `question`, guarded until the agent's version is revealed. A quota message
    /// moves the coach to the local model once (noted in the log).
    fn answer(
        &mut self,
        question: String,
        guard: &LeakGuard,
        revealed: bool,
        note: &dyn Fn(&Event) -> anyhow::Result<()>,
    ) -> Result<coach::Guarded, BackendError> {
        // Only the newest question carries the learner's file: an earlier copy is stale, and
        // a conversation that grows by a file a question would outgrow the model's window.
        for turn in self.history.iter_mut().filter(|t| t.role == Role::User) {
            if let Some(at) = turn.text.find(coach::ATTEMPT_MARK) {
                turn.text.truncate(at);
            }
        }
        self.history.push(Turn { role: Role::User, text: question });
        let asked = self.history.len();
        let result = loop {
            let mut said: Option<String> = None;
            let result = if revealed {
                self.models.coach.reply(&self.system, &self.history).map(|text| coach::Guarded {
                    text,
                    leaked: false,
                    drafts: 1,
                    withheld: false,
                })
            } else {
                let (coach_model, history, system) = (&mut self.models.coach, &mut self.history, &self.system);
                coach::guarded(guard, |nudge| {
                    if let Some(nudge) = nudge {
                        history.push(Turn { role: Role::Assistant, text: said.take().unwrap_or_default() });
                        history.push(Turn { role: Role::User, text: nudge.to_owned() });
                    }
                    let reply = coach_model.reply(system, history)?;
                    said = Some(reply.clone());
                    Ok(reply)
                })
            };
            match result {
                Err(BackendError::Quota { said }) if !self.models.on_local && self.models.local.is_some() => {
                    let Some(local) = self.models.local.take() else { break Err(BackendError::Quota { said }) };
                    let from = self.models.coach.kind().to_owned();
                    self.models.coach = local;
                    self.models.on_local = true;
                    let _ = note(&Event::Switch { from, to: self.models.coach.kind().to_owned(), reason: said });
                    // The local model starts from the question, not from half a redraft.
                    self.history.truncate(asked);
                }
                other => break other,
            }
        };
        match &result {
            Ok(answer) => self.history.push(Turn { role: Role::Assistant, text: answer.text.clone() }),
            // The question goes unanswered: it leaves the conversation with its drafts.
            Err(_) => self.history.truncate(asked - 1),
        }
        result
    }
}

fn session(
    ctx: &Ctx,
    args: &HandsonArgs,
    ex: &Exercise,
    models: Option<Models>,
    input: &mut impl BufRead,
    out: &mut impl Write,
    echo: bool,
) -> anyhow::Result<(Tally, std::path::PathBuf)> {
    let t = ctx.term;
    let piece = &ex.candidate.piece;
    let stamp = || devcoach_core::time::iso_ms(ctx.clock.now());
    let slug = format!("handson-{}", piece.name);
    let (log_path, _) = log::new_session_path(ctx.dir.root(), &ctx.now.format("%Y-%m-%d").to_string(), &slug);
    let writer = Writer::new(log_path.clone());
    let note =
        |event: &Event| -> anyhow::Result<()> { writer.append(&stamp(), event).map_err(|e| invalid(e.to_string())) };
    let mut coached = models.map(|models| Coach { models, system: coach::system_prompt(ex), history: Vec::new() });
    let (backend, model) = coached.as_ref().map_or_else(|| ("none".to_owned(), String::new()), Coach::label);
    note(&Event::Start {
        schema: 1,
        problem: slug.clone(),
        title: Some(format!("Hands-on: {}", piece.qualified)),
        tags: Vec::new(),
        backend,
        model,
        statement: Some(piece.signature.clone()),
    })?;
    let visible = std::fs::read_to_string(ex.file()).unwrap_or_default();
    let guard = LeakGuard::new(&ex.hidden, &visible);
    let (runner, run_in) = match &args.test_command {
        Some(command) => (Runner::Custom(command.clone()), ex.tree.clone()),
        None => Runner::detect_for(&ex.tree, &piece.path, piece.lang).ok_or_else(|| {
            invalid("no test runner found in the project (Cargo.toml, go.mod, package.json, a Python project): give it with --test-command")
        })?,
    };
    output::print(&format!(
        "{} Rebuild {} in your editor:\n    {}:{}",
        t.out(Style::Green, "✓"),
        t.out(Style::Cyan, &piece.qualified),
        ex.file().display(),
        piece.lines.0
    ))?;
    output::print(&output::wrap(
        &format!(
            "Its body is a stub now. The tests that judge it: {}. This is a separate worktree: your own working tree is not touched, and it goes when you finish.",
            ex.candidate.tests.join(", ")
        ),
        t.width,
    ))?;
    output::print(&format!("\nFirst, what must {} do? A few lines; an empty line ends the list.", piece.name))?;
    let mut tally = Tally::default();
    while let Some(line) = ask(input, out, echo, "  - ")? {
        if line.is_empty() {
            break;
        }
        note(&Event::Learner { text: line.clone(), kind: MessageKind::Req })?;
        tally.requirements.push(line);
    }
    tally.requirements_first = !tally.requirements.is_empty();
    if let Some(coach) = coached.as_mut().filter(|_| !tally.requirements.is_empty()) {
        judge_list(ctx, ex, coach, &guard, &mut tally, &note, input, out, echo)?;
    } else if !tally.requirements.is_empty() {
        output::print(&output::wrap(
            &format!(
                "The tests that judge it: {}. Keep them beside your list as you write.",
                ex.candidate.tests.join(", ")
            ),
            t.width,
        ))?;
    }
    let help = if coached.is_some() { HELP_COACHED } else { HELP };
    output::print(&t.out(Style::Dim, help))?;
    let mut last: Option<Checked> = None;
    let mut leaving = None;
    while let Some(line) = ask(input, out, echo, "handson › ")? {
        match line.as_str() {
            "check" => {
                // A status line only where a person watches: never into a pipe.
                let drawn = std::io::IsTerminal::is_terminal(&std::io::stderr());
                if drawn {
                    output::status(&format!("running {}…", runner.describe()));
                }
                let own = run_in.strip_prefix(&ex.tree).map(|rel| ex.repo.join(rel)).ok();
                let run = check::check_in(&run_in, &runner, Duration::from_secs(args.timeout), own.as_deref());
                if drawn {
                    output::clear_status();
                }
                let run = run?;
                if tally.checks == 0 {
                    // The learner's code goes to the tests: the log's "code" step.
                    note(&Event::Code { req_incomplete: false })?;
                }
                if ex.own_file_changed() {
                    output::print(&t.out(
                        Style::Yellow,
                        &format!(
                            "You changed {} in your own working tree: the exercise is the copy in {} (check runs there).",
                            ex.own_file_path().display(),
                            ex.file().display()
                        ),
                    ))?;
                }
                if tally.checks == 0 && run.passed {
                    output::print(&t.out(
                        Style::Yellow,
                        "The tests pass with the stub in place: here they do not run this function (an installed copy of the project?). `done` ends the exercise.",
                    ))?;
                }
                tally.checked(&run);
                note(&Event::Check {
                    passed: run.passed,
                    failed: u32::try_from(run.failed.len()).unwrap_or(u32::MAX),
                })?;
                print_check(ctx, &run)?;
                last = Some(run);
            }
            "hint" => {
                let mut shown = false;
                while tally.rung < tally::RUNGS {
                    tally.rung += 1;
                    if let Some(text) = tally::hint(ex, tally.rung, last.as_ref(), &guard) {
                        note(&Event::Coach {
                            rung: Some(tally.rung),
                            leaked: false,
                            drafts: 1,
                            text: Some(text.clone()),
                        })?;
                        output::print(&t.out(Style::Green, &format!("hint {} ›", tally.rung)))?;
                        output::print(&output::wrap(&text, t.width))?;
                        shown = true;
                        break;
                    }
                }
                if !shown {
                    output::print("No more hints: `check` shows what fails, and `reveal` shows your agent's version.")?;
                }
            }
            "reveal" => {
                let sure = ask(input, out, echo, "Show your agent's version? It counts as revealed. [y/N] ")?;
                if sure.as_deref().is_some_and(|a| a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes")) {
                    tally.revealed = true;
                    exercise::mark_revealed(&devcoach_core::layout::handson(ctx.dir.root()), &mut ex.clone())?;
                    note(&Event::Reveal {})?;
                    output::print(&t.out(Style::Green, "Your agent's version:"))?;
                    output::print_verbatim(&format!("{}\n", ex.agent_version()))?;
                }
            }
            "done" | "quit" | "exit" | "q" => {
                leaving = Some(line);
                break;
            }
            "help" | "?" => output::print(help)?,
            "" => {}
            question => match coached.as_mut() {
                Some(coach) => {
                    if ask_coach(ctx, ex, coach, &guard, &tally, last.as_ref(), question, &note)? {
                        tally.answers += 1;
                    }
                }
                None => output::print(&t.out(
                    Style::Dim,
                    &format!("Unknown command `{question}`. {HELP} (With --coach, a question goes to a coach.)"),
                ))?,
            },
        }
        if tally.passed && last.as_ref().is_some_and(|l| l.passed) && line == "check" {
            output::print(&format!("{} Type `done` to finish, or keep improving it.", t.out(Style::Green, "✓")))?;
        }
    }
    let reason = if tally.passed { log::SOLVED.to_owned() } else { leaving.unwrap_or_else(|| "end of input".into()) };
    note(&Event::End { reason: Some(reason) })?;
    Ok((tally, log_path))
}

fn print_check(ctx: &Ctx, run: &Checked) -> anyhow::Result<()> {
    let t = ctx.term;
    if run.passed {
        output::print(&format!("{} The project's tests pass ({}).", t.out(Style::Green, "✓"), run.command))?;
        return Ok(());
    }
    let names = if run.failed.is_empty() { "see below".to_owned() } else { run.failed.join(", ") };
    output::print(&format!("{} Tests fail: {names}", t.out(Style::Red, "✗")))?;
    // What was expected first (it may stand far above the runner's summary), then the end.
    let tail: Vec<&str> = run.tail.lines().collect();
    let keys = ["assert", "Assert", "expected", "Expected", "actual", "Error", "panicked", "FAIL"];
    let said: Vec<&str> = tail.iter().copied().filter(|l| keys.iter().any(|k| l.contains(k))).take(8).collect();
    let end = &tail[tail.len().saturating_sub(12)..];
    let mut shown: Vec<&str> = said.clone();
    shown.extend(end.iter().copied().filter(|l| !said.contains(l)));
    output::print(&t.out(Style::Dim, &shown.join("\n")))?;
    Ok(())
}

fn record(ctx: &Ctx, args: &HandsonArgs, ex: &Exercise, tally: &Tally) -> anyhow::Result<()> {
    let topic = args.topic.clone().unwrap_or_else(|| ex.candidate.piece.lang.topic().to_owned());
    let now = ctx.clock.now();
    let Some(card) = tally::card(ex, tally, &topic, now) else { return Ok(()) };
    let mut store = ctx.open()?;
    let lesson = store.record_handson(card, &topic, &tally.outcome(ex.candidate.piece.lang.topic()), now)?;
    super::practice_repl::print_saved(ctx, &lesson)?;
    let counted = match tally.result() {
        Some(devcoach_core::knowledge_model::PracticeResult::Alone) => "passed unaided",
        Some(devcoach_core::knowledge_model::PracticeResult::Helped) => "passed with hints",
        Some(devcoach_core::knowledge_model::PracticeResult::Revealed) => "revealed (a miss)",
        None => "unfinished (no evidence yet)",
    };
    output::print(&ctx.term.out(
        Style::Dim,
        &format!("Counted on the knowledge map as {counted} for `{topic}` (when `{topic}` is on your map)."),
    ))?;
    Ok(())
}

/// Judges the learner's list (up to [`JUDGED_ROUNDS`] times, the learner adding to it between
/// rounds) and says what it leaves out, as questions that passed the leak guard.
#[allow(clippy::too_many_arguments)]
fn judge_list(
    ctx: &Ctx,
    ex: &Exercise,
    coach: &mut Coach,
    guard: &LeakGuard,
    tally: &mut Tally,
    note: &dyn Fn(&Event) -> anyhow::Result<()>,
    input: &mut impl BufRead,
    out: &mut impl Write,
    echo: bool,
) -> anyhow::Result<()> {
    let t = ctx.term;
    for round in 1..=JUDGED_ROUNDS {
        let drawn = std::io::IsTerminal::is_terminal(&std::io::stderr());
        if drawn {
            output::status("the coach reads your list…");
        }
        let (judge, judged) = coach.judge(ex, &tally.requirements, guard);
        if drawn {
            output::clear_status();
        }
        let Some(judged) = judged else {
            note(&Event::ReqCheck { verdict: ReqVerdict::Unverified, missing: Vec::new(), judge, dropped: 0 })?;
            output::print(&t.out(Style::Dim, "No judge answered: your list is kept as it is. The tests will judge."))?;
            return Ok(());
        };
        let verdict = if judged.passed { ReqVerdict::Passed } else { ReqVerdict::Incomplete };
        note(&Event::ReqCheck { verdict, missing: judged.missing.clone(), judge, dropped: judged.dropped })?;
        if judged.passed {
            output::print(&format!(
                "{} Your list covers what the tests need: {}.",
                t.out(Style::Green, "✓"),
                ex.candidate.tests.join(", ")
            ))?;
            return Ok(());
        }
        if judged.missing.is_empty() {
            output::print(&t.out(
                Style::Yellow,
                "The coach finds your list incomplete, but could not say what is missing without giving your agent's code away. Read the tests once more; they will show it.",
            ))?;
            return Ok(());
        }
        output::print(&t.out(Style::Yellow, "Your list does not say yet:"))?;
        for gap in &judged.missing {
            output::print(&output::wrap_indented(&format!("- {gap}"), t.width, "  ", "    "))?;
        }
        if round == JUDGED_ROUNDS {
            output::print(&t.out(Style::Dim, "Go on when you are ready: the tests will judge."))?;
            return Ok(());
        }
        output::print("Add to your list (an empty line goes on):")?;
        let mut added = false;
        while let Some(line) = ask(input, out, echo, "  - ")? {
            if line.is_empty() {
                break;
            }
            note(&Event::Learner { text: line.clone(), kind: MessageKind::Req })?;
            tally.requirements.push(line);
            added = true;
        }
        if !added {
            return Ok(());
        }
    }
    Ok(())
}

/// A question to the coach, answered through the leak guard; whether an answer was shown.
#[allow(clippy::too_many_arguments)]
fn ask_coach(
    ctx: &Ctx,
    ex: &Exercise,
    coach: &mut Coach,
    guard: &LeakGuard,
    tally: &Tally,
    last: Option<&Checked>,
    question: &str,
    note: &dyn Fn(&Event) -> anyhow::Result<()>,
) -> anyhow::Result<bool> {
    let t = ctx.term;
    note(&Event::Learner { text: question.to_owned(), kind: MessageKind::Prose })?;
    let attempt = devcoach_files::read_head(
        &ex.file(),
        devcoach_core::limits::HANDSON_ATTEMPT_BYTES,
        devcoach_files::Links::Refuse,
    )
    .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    .unwrap_or_default();
    let last_check = last.filter(|l| !l.passed).map(|l| l.tail.as_str());
    let turn = coach::question_turn(question, &attempt, last_check);
    let drawn = std::io::IsTerminal::is_terminal(&std::io::stderr());
    if drawn {
        output::status("the coach is thinking…");
    }
    let answered = coach.answer(turn, guard, tally.revealed, note);
    if drawn {
        output::clear_status();
    }
    match answered {
        Ok(answer) => {
            note(&Event::Coach {
                rung: None,
                leaked: answer.leaked,
                drafts: answer.drafts,
                text: Some(answer.text.clone()),
            })?;
            let style = if answer.withheld { Style::Dim } else { Style::Plain };
            output::print(&t.out(Style::Green, "coach ›"))?;
            output::print(&t.out(style, &output::wrap(&answer.text, t.width)))?;
            Ok(!answer.withheld)
        }
        Err(e) => {
            output::print(&t.out(
                Style::Yellow,
                &format!(
                    "The coach did not answer ({}). `check` and `hint` still work; ask again when you like.",
                    why_no_answer(&e)
                ),
            ))?;
            Ok(false)
        }
    }
}

/// Why the coach did not answer, in words of our own: a model's error text may quote what it
/// was sent, and it was sent the hidden body.
fn why_no_answer(e: &BackendError) -> &'static str {
    match e {
        BackendError::Quota { .. } => "it is out of quota",
        BackendError::NotStarted { .. } => "its program would not start",
        BackendError::NoAnswer { .. } => "nothing answers at its address",
        BackendError::Timeout(_) => "it took too long",
        BackendError::NotReady { .. } => "it is not ready",
        BackendError::Empty { .. } => "its reply was empty",
        BackendError::NotJson { .. }
        | BackendError::Reported { .. }
        | BackendError::Exited { .. }
        | BackendError::Wait { .. }
        | BackendError::Instructions { .. }
        | BackendError::Http(_) => "it reported an error",
    }
}
