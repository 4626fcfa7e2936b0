//! `devcoach practice <problem>`: the print-mode REPL. Each message goes through the session
//! (gate, judge, coach, detectors, log) and only what passed is printed.

use std::io::BufRead;
use std::time::Duration;

use chrono::SecondsFormat;
use devcoach_core::limits;
use devcoach_practice::Toolbox;
use devcoach_practice::backend::{Backend, ClaudeCli, Dialect, HttpChat};
use devcoach_practice::log::{self, Judge, ReqVerdict, Writer};
use devcoach_practice::problem::Problem;
use devcoach_practice::session::{Models, NamedJudge, Session, Shown};

use crate::cli::{ModelArgs, PracticeArgs};
use crate::context::Ctx;
use crate::failure::{invalid, usage};
use crate::output::{self, Style};

const HELP: &str = "Send `req: …` with your requirements first; code waits until they pass.\n\
    /hint asks for a nudge, /reveal shows the answer, /done says you solved it, /quit stops for now \
    (Ctrl-D too; `--resume` carries on later).";

/// Where the `claude` CLI is (tests point this at a stand-in).
const CLAUDE_ENV: &str = "DEVCOACH_CLAUDE";
/// The key for an OpenAI-compatible server that wants one.
const OPENAI_KEY_ENV: &str = "DEVCOACH_OPENAI_API_KEY";
/// LeetCode's GraphQL endpoint (tests point this at a loopback server).
const LEETCODE_ENV: &str = "DEVCOACH_LEETCODE_URL";
const COACH_TIMEOUT: Duration = Duration::from_mins(3);
const JUDGE_TIMEOUT: Duration = Duration::from_mins(1);

fn load_problem(ctx: &Ctx, args: &PracticeArgs) -> anyhow::Result<Problem> {
    if let Some(path) = &args.problem_file {
        // A pipe or device is refused without blocking; a file is read up to the limit only.
        let limit = limits::PROBLEM_BYTES as u64;
        let text = devcoach_files::read_to_string(path, limit, devcoach_files::Links::Follow)?;
        let slug = path.file_stem().map_or_else(|| "problem".to_owned(), |s| s.to_string_lossy().into_owned());
        return Problem::parse(&text, &slug).map_err(|e| invalid(format!("{}: {e}", path.display())));
    }
    let Some(name) = &args.problem else {
        return Err(invalid(
            "name a problem (`devcoach practice problems` lists the shipped ones), a LeetCode URL or slug, or give --problem FILE",
        ));
    };
    if let Ok(problem) = Problem::shipped(name) {
        return Ok(problem);
    }
    let Some(slug) = devcoach_practice::problem::leetcode_slug(name) else {
        return Err(invalid(format!(
            "{name:?} is neither a shipped problem ({}) nor a LeetCode URL or slug. Or give a statement with --problem FILE.",
            devcoach_practice::problem::shipped_slugs().join(", ")
        )));
    };
    // LeetCode problems are fetched once and kept beside the session logs.
    let cached = devcoach_core::layout::practice_problems(ctx.dir.root()).join(format!("{slug}.md"));
    let limit = limits::PROBLEM_BYTES as u64;
    if let Ok(text) = devcoach_files::read_to_string(&cached, limit, devcoach_files::Links::Refuse) {
        return Problem::parse(&text, &slug).map_err(|e| invalid(format!("{}: {e}", cached.display())));
    }
    let endpoint = std::env::var(LEETCODE_ENV).unwrap_or_else(|_| devcoach_net::leetcode::ENDPOINT.to_owned());
    output::note(&format!("Fetching {slug} from LeetCode (once; it is kept in {})…", cached.display()));
    let question = devcoach_net::leetcode::question(&endpoint, &slug, Duration::from_secs(20))
        .map_err(|e| invalid(e.to_string()))?;
    let text = devcoach_practice::problem::from_leetcode(&question, Toolbox::builtin());
    let problem = Problem::parse(&text, &slug).map_err(|e| invalid(format!("LeetCode's {slug}: {e}")))?;
    if let Some(dir) = cached.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // A cache: failing to keep it only means fetching again next time.
    let _ = devcoach_files::write(&cached, text.as_bytes(), devcoach_files::Overwrite::Replace);
    Ok(problem)
}

fn local_backend(args: &ModelArgs) -> HttpChat {
    let (dialect, base_url) = match &args.openai_url {
        Some(url) => (Dialect::OpenAi, url.clone()),
        None => (
            Dialect::Ollama,
            args.ollama_url
                .clone()
                .or_else(|| std::env::var("OLLAMA_HOST").ok().filter(|h| !h.is_empty()))
                .map_or_else(
                    || "http://127.0.0.1:11434".to_owned(),
                    |h| if h.starts_with("http") { h } else { format!("http://{h}") },
                ),
        ),
    };
    HttpChat {
        dialect,
        base_url,
        model: args.local_model.clone(),
        // Only for an OpenAI-compatible server, and only from our own variable: a general
        // OPENAI_API_KEY must never travel to whatever address the user points us at.
        api_key: (dialect == Dialect::OpenAi)
            .then(|| std::env::var(OPENAI_KEY_ENV).ok().filter(|k| !k.is_empty()))
            .flatten(),
        timeout: COACH_TIMEOUT,
    }
}

/// One message from the learner: a line; a fenced block (``` … ```); or, after a line that
/// opens a block (`:`, `{`, `(`, `\`), every line up to an empty one. `next_line(continuing)`
/// gives the next line without its newline, `None` at end of input.
fn read_message(mut next_line: impl FnMut(bool) -> Option<String>) -> Option<String> {
    let first = loop {
        let line = next_line(false)?;
        if !line.trim().is_empty() {
            break line;
        }
    };
    let fenced = first.trim_start().starts_with("```");
    let opens = first.trim_end().ends_with([':', '{', '(', '\\']);
    if !fenced && !opens {
        return Some(first);
    }
    let mut message = first;
    while let Some(line) = next_line(true) {
        if !fenced && line.trim().is_empty() {
            break;
        }
        message.push('\n');
        message.push_str(&line);
        if fenced && line.trim_start().starts_with("```") {
            break;
        }
    }
    Some(message)
}

/// Where messages come from: a terminal gets line editing and history (rustyline); a pipe is
/// read as is.
enum Input {
    Terminal { editor: Box<rustyline::DefaultEditor>, history: std::path::PathBuf },
    Piped(std::io::StdinLock<'static>),
}

impl Input {
    fn open(history: std::path::PathBuf) -> Self {
        use std::io::IsTerminal;
        if std::io::stdin().is_terminal()
            && let Ok(mut editor) = rustyline::DefaultEditor::new()
        {
            let _ = editor.load_history(&history);
            return Self::Terminal { editor: Box::new(editor), history };
        }
        Self::Piped(std::io::stdin().lock())
    }

    fn message(&mut self, prompt: &str) -> Option<String> {
        match self {
            Self::Terminal { editor, .. } => {
                let message = read_message(|continuing| {
                    loop {
                        match editor.readline(if continuing { "   … " } else { prompt }) {
                            Ok(line) => return Some(line),
                            // Ctrl-C drops the line being typed, not the session.
                            Err(rustyline::error::ReadlineError::Interrupted) => {}
                            Err(_) => return None,
                        }
                    }
                })?;
                let _ = editor.add_history_entry(message.as_str());
                Some(message)
            }
            Self::Piped(input) => read_message(|_| {
                let mut line = String::new();
                match input.read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
                }
            }),
        }
    }

    fn save(&mut self) {
        if let Self::Terminal { editor, history } = self {
            if let Some(dir) = history.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = editor.save_history(history);
        }
    }
}

/// A spinner on stderr while the model thinks (only on a terminal).
struct Spinner {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Spinner {
    fn start(term: crate::output::Term) -> Self {
        use std::io::IsTerminal;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return Self { stop, thread: None };
        }
        let flag = std::sync::Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
            let mut i = 0;
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                output::status(&term.err(Style::Dim, &format!("{} thinking…", frames[i % frames.len()])));
                i += 1;
                std::thread::sleep(Duration::from_millis(90));
            }
            output::clear_status();
        });
        Self { stop, thread: Some(thread) }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The `claude` CLI the cloud coach runs, checked before a session starts (not at the first
/// message): an absent one says how to pick another model.
fn claude_cli() -> anyhow::Result<std::path::PathBuf> {
    let named = std::env::var_os(CLAUDE_ENV).map_or_else(|| "claude".into(), std::path::PathBuf::from);
    let found = if named.components().count() > 1 {
        devcoach_agents::launch::is_executable(&named).then_some(named.clone())
    } else {
        devcoach_agents::launch::find_on_path(&named.to_string_lossy(), &std::env::var_os("PATH").unwrap_or_default())
    };
    found.ok_or_else(|| {
        invalid(format!(
            "the practice coach talks to the `{}` CLI (Claude Code), which is not installed here — install it, \
             or pick another model: --local (Ollama on this machine) or --local --openai-url URL (an OpenAI-compatible server)",
            named.display()
        ))
    })
}

/// The coach, its local fallback and the judge chain the flags ask for.
pub(crate) fn backends(models: &ModelArgs, env: &[(String, String)]) -> Models {
    let claude = std::env::var_os(CLAUDE_ENV).map_or_else(|| "claude".into(), std::path::PathBuf::from);
    let (coach, local): (Box<dyn Backend>, Option<Box<dyn Backend>>) = if models.local {
        (Box::new(local_backend(models)), None)
    } else {
        let mut cloud = ClaudeCli::new(claude.clone(), &models.model, COACH_TIMEOUT, false);
        cloud.env = env.to_vec();
        (Box::new(cloud), Some(Box::new(local_backend(models))))
    };
    let mut judges = Vec::new();
    if !models.local {
        let mut haiku = ClaudeCli::new(claude, "haiku", JUDGE_TIMEOUT, true);
        haiku.env = env.to_vec();
        judges.push(NamedJudge { label: Judge::Haiku, backend: Box::new(haiku) });
    }
    let mut local_judge = local_backend(models);
    local_judge.timeout = JUDGE_TIMEOUT;
    judges.push(NamedJudge { label: Judge::Ollama, backend: Box::new(local_judge) });
    Models { coach, local, on_local: models.local, judges }
}

fn clock(ctx: &Ctx) -> Box<dyn Fn() -> String> {
    let clock = ctx.clock;
    Box::new(move || clock.now().to_rfc3339_opts(SecondsFormat::Millis, true))
}

/// `practice eval`: each shipped transcript replayed in its own session (logs kept under
/// `<data dir>/practice/eval/`), then scored.
pub fn eval(
    ctx: &Ctx,
    backend: &str,
    mut models: ModelArgs,
    thresholds: &devcoach_practice::eval::Thresholds,
    json: bool,
) -> anyhow::Result<()> {
    models.local = backend != "claude";
    if backend == "openai" && models.openai_url.is_none() {
        return Err(usage("--backend openai needs --openai-url (the server's address)"));
    }
    if backend == "ollama" {
        models.openai_url = None;
    }
    let transcripts = devcoach_practice::eval::shipped().map_err(|e| invalid(e.to_string()))?;
    let stamp = ctx.now.format("%Y%m%dT%H%M%S").to_string();
    let dir = devcoach_core::layout::practice_eval(ctx.dir.root());
    let mut logs = Vec::new();
    let mut errors = Vec::new();
    for t in &transcripts {
        let problem = Problem::shipped(&t.problem).map_err(|e| invalid(e.to_string()))?;
        let path = dir.join(format!("{stamp}-{}.jsonl", t.name));
        let _ = std::fs::remove_file(&path);
        let env = vec![(log::LOG_VAR.to_owned(), path.display().to_string())];
        let mut session =
            Session::start(Toolbox::builtin(), problem, backends(&models, &env), Writer::new(path.clone()), clock(ctx))
                .map_err(|e| invalid(e.to_string()))?;
        for turn in &t.turns {
            for item in session.send(&turn.say) {
                if let Shown::Error(e) = item {
                    errors.push(format!("{}: {e}", t.name));
                }
            }
        }
        session.end("eval").map_err(|e| invalid(e.to_string()))?;
        logs.push(log::read(&path).map_err(|e| invalid(e.to_string()))?);
    }
    let mut report = devcoach_practice::eval::score(&logs);
    report.errors = errors;
    let verdict = devcoach_practice::eval::verdict(&report, thresholds);
    if json {
        output::json(&serde_json::json!({ "report": report, "verdict": verdict }))?;
    } else {
        output::print(devcoach_practice::eval::render(&report).trim_end())?;
        output::print(&devcoach_practice::eval::render_verdict(&verdict))?;
    }
    // A script gates a model on the exit code.
    if verdict.accepted { Ok(()) } else { Err(crate::failure::rejected()) }
}

/// `--tui`: a session whose coach is Claude Code's interactive interface. devcoach writes the
/// session's start, hands Claude Code the instructions and the log's path, and the practice
/// hooks (installed by `devcoach install --practice`) gate each prompt and guard each reply.
fn run_tui(ctx: &Ctx, problem: &Problem) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(crate::failure::usage(
            "--tui opens Claude Code's own interface, which needs a terminal; pipe a script to \
             `devcoach practice <problem>` instead",
        ));
    }
    let claude = claude_cli()?;
    let (log_path, _) = log::new_session_path(ctx.dir.root(), &ctx.now.format("%Y-%m-%d").to_string(), &problem.slug);
    let ts = clock(ctx);
    Writer::new(log_path.clone())
        .append(
            &ts(),
            &log::Event::Start {
                schema: log::SCHEMA,
                problem: problem.slug.clone(),
                title: Some(problem.title.clone()),
                tags: problem.tags.clone(),
                backend: "claude-tui".into(),
                model: "interactive".into(),
                statement: Problem::shipped(&problem.slug).is_err().then(|| problem.statement.clone()),
            },
        )
        .map_err(|e| invalid(e.to_string()))?;
    let system_path = log_path.with_extension("system.md");
    std::fs::write(&system_path, devcoach_practice::session::system_prompt(problem, true))
        .map_err(|e| invalid(format!("could not write {}: {e}", system_path.display())))?;
    let hooks_on = devcoach_agents::Places::from_env()
        .ok()
        .and_then(|places| devcoach_agents::config::read_config(&places.claude_settings()))
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .is_some_and(|settings| settings.contains("practice-prompt") && settings.contains("practice-stop"));
    if !hooks_on {
        ctx.term.warn(
            "The practice hooks are not installed in Claude Code, so nothing holds code or checks replies: run \
             `devcoach install --practice` first for the full rules.",
        );
    }
    output::print(&format!(
        "{} ({})",
        problem.title,
        if problem.difficulty.is_empty() { "practice" } else { &problem.difficulty },
    ))?;
    // The statement is markdown: laid out as the lesson bodies are.
    output::print_verbatim(&output::markdown::render(&problem.statement, ctx.term.width, ctx.term.color_out))?;
    output::print(&format!(
        "Opening Claude Code. Start with your requirements (`req: …`). Log: {}",
        log_path.display()
    ))?;
    let status = std::process::Command::new(&claude)
        .arg("--append-system-prompt-file")
        .arg(&system_path)
        .env(log::LOG_VAR, &log_path)
        .status()
        .map_err(|e| {
            invalid(format!(
                "could not start {} ({e}): install Claude Code, or practise here without --tui",
                claude.display()
            ))
        })?;
    let _ = std::fs::remove_file(&system_path);
    // Claude Code's interface has no /done: ask here, once it has exited.
    let solved = output::confirm("Did you solve it?")?.unwrap_or(false);
    let reason = if solved { log::SOLVED.to_owned() } else { format!("claude exited ({status})") };
    Writer::new(log_path.clone())
        .append(&ts(), &log::Event::End { reason: Some(reason) })
        .map_err(|e| invalid(e.to_string()))?;
    postmortem(ctx, problem, &log_path)?;
    output::print(&format!("Session log: {}. `devcoach practice report` sums it up.", log_path.display()))?;
    Ok(())
}

/// Asks the coach once, before the session, whether it can answer; says exactly what to do when
/// it cannot. The cloud coach out of quota hands over to the local model when that one answers.
pub(crate) fn preflight(ctx: &Ctx, models: &mut Models) -> anyhow::Result<()> {
    use devcoach_practice::backend::BackendError;
    let drawn = std::io::IsTerminal::is_terminal(&std::io::stderr());
    if drawn {
        output::status("checking the coach…");
    }
    let checked = models.coach.preflight();
    if drawn {
        output::clear_status();
    }
    match checked {
        Ok(()) => Ok(()),
        Err(BackendError::Quota { said }) => {
            let local_ok = models.local.as_mut().map(|l| l.preflight());
            match (models.local.take(), local_ok) {
                (Some(local), Some(Ok(()))) => {
                    ctx.term.warn(&format!("Claude is out of quota ({said}): coaching on the local model instead."));
                    models.coach = local;
                    models.on_local = true;
                    Ok(())
                }
                (_, Some(Err(e))) => {
                    Err(invalid(format!("Claude is out of quota ({said}), and the local model cannot stand in: {e}")))
                }
                _ => Err(invalid(format!("Claude is out of quota ({said}); wait for it to reset, or use --local"))),
            }
        }
        Err(e) => Err(invalid(format!("the coach cannot answer, so the session did not start — {e}"))),
    }
}

pub fn run(ctx: &Ctx, args: &PracticeArgs) -> anyhow::Result<()> {
    let problem = load_problem(ctx, args)?;
    if args.tui {
        return run_tui(ctx, &problem);
    }
    let toolbox = Toolbox::builtin();
    let resumed = if args.resume { Some(unfinished_session(ctx, &problem.slug)?) } else { None };
    // Before the session starts, not at the first message.
    if !args.models.local {
        claude_cli()?;
    }
    let log_path = match &resumed {
        Some((path, _)) => path.clone(),
        None => log::new_session_path(ctx.dir.root(), &ctx.now.format("%Y-%m-%d").to_string(), &problem.slug).0,
    };
    let log_env = vec![(log::LOG_VAR.to_owned(), log_path.display().to_string())];
    let mut models = backends(&args.models, &log_env);
    // A session whose coach cannot answer is never begun: nothing is logged or saved.
    preflight(ctx, &mut models)?;
    let writer = Writer::new(log_path);
    let mut session = match &resumed {
        Some((_, events)) => Session::resume(toolbox, problem, models, writer, clock(ctx), events),
        None => Session::start(toolbox, problem, models, writer, clock(ctx)),
    }
    .map_err(|e| invalid(e.to_string()))?;

    let term = ctx.term;
    let p = session.problem();
    let difficulty = if p.difficulty.is_empty() { String::new() } else { format!(" ({})", p.difficulty) };
    output::print(&term.out(Style::Bold, &format!("{}{difficulty}", p.title)))?;
    output::print_verbatim(&format!("\n{}\n", output::markdown::render(&p.statement, term.width, term.color_out)))?;
    output::print(&term.out(
            Style::Dim,
            &format!(
                "{}Coach: {}. Start with your requirements: a message beginning `req:`. Code waits until they pass.\n\
                 A line ending in `:` `{{` `(` or `\\` continues until an empty line; ``` fences a block.\n\
                 /hint asks for a nudge, /reveal shows the answer, /done says you solved it, /quit (or Ctrl-D) stops for now \
                 and --resume picks it up; Ctrl-C only clears the line you are typing. Log: {}",
                if resumed.is_some() { "Resumed where you stopped: the coach has the conversation so far.\n" } else { "" },
                session.backend_label(),
                session.log_path().display()
            )
        )
    )?;

    let mut input = Input::open(devcoach_core::layout::practice_history(ctx.dir.root()));
    if matches!(input, Input::Piped(_)) {
        output::note(&term.err(
            Style::Dim,
            "Reading messages from standard input (not a terminal): one message a line; the session ends with the input.",
        ));
    }
    let prompt = term.out(Style::Cyan, "you › ");
    let reason = loop {
        if matches!(input, Input::Piped(_)) {
            output::print(prompt.trim_end())?;
        }
        let Some(message) = input.message(&prompt) else { break "end of input" };
        let shown = match message.trim() {
            "/quit" | "/exit" => break "quit",
            "/done" => break log::SOLVED,
            "/help" => {
                output::print(HELP)?;
                continue;
            }
            command => {
                let _spinner = Spinner::start(term);
                match command {
                    "/reveal" => session.reveal(),
                    "/hint" => session.hint(),
                    _ => session.send(&message),
                }
            }
        };
        for item in shown {
            print_shown(term, &item)?;
        }
    };
    input.save();
    if reason == log::SOLVED { session.done() } else { session.end(reason) }.map_err(|e| invalid(e.to_string()))?;
    postmortem(ctx, session.problem(), session.log_path())?;
    output::print(&term.out(
        Style::Dim,
        &format!("Session log: {}. `devcoach practice report` sums it up.", session.log_path().display()),
    ))?;
    Ok(())
}

/// The session's lesson card and its evidence on the knowledge map.
fn postmortem(ctx: &Ctx, problem: &Problem, log_path: &std::path::Path) -> anyhow::Result<()> {
    let events = log::read(log_path).map_err(|e| invalid(e.to_string()))?;
    let Some(pm) = devcoach_practice::postmortem::build(problem, &events, Toolbox::builtin()) else {
        return Ok(());
    };
    let unfinished = !devcoach_practice::report::session("", &events, Toolbox::builtin()).finished();
    let mut store = ctx.open()?;
    // Saved when the session ends, not when it started.
    let lesson = store.record_practice(pm.lesson, &pm.topics, pm.result, pm.finished, ctx.clock.now())?;
    print_saved(ctx, &lesson)?;
    if unfinished {
        output::print(&ctx.term.out(
            Style::Dim,
            &format!("Unfinished: carry on where you stopped with `devcoach practice {} --resume`.", problem.slug),
        ))?;
    }
    Ok(())
}

/// The newest unfinished session of `slug` in the sessions folder, with its log.
fn unfinished_session(ctx: &Ctx, slug: &str) -> anyhow::Result<(std::path::PathBuf, Vec<log::Stamped>)> {
    let dir = devcoach_core::layout::practice_sessions(ctx.dir.root());
    let mut best: Option<(String, std::path::PathBuf, Vec<log::Stamped>)> = None;
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if !entry.file_type().is_ok_and(|t| t.is_file()) || path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let Ok(events) = log::read(&path) else { continue };
        let report = devcoach_practice::report::session("", &events, Toolbox::builtin());
        if report.problem != slug || report.finished() {
            continue;
        }
        if best.as_ref().is_none_or(|(started, ..)| report.started > *started) {
            best = Some((report.started, path, events));
        }
    }
    best.map(|(_, path, events)| (path, events)).ok_or_else(|| {
        invalid(format!(
            "there is no unfinished session of {slug} to resume; start one with `devcoach practice {slug}`"
        ))
    })
}

fn print_shown(term: crate::output::Term, item: &Shown) -> std::io::Result<()> {
    match item {
        Shown::Coach { text, rung } => {
            let label = rung.map_or_else(|| "coach ›".to_owned(), |r| format!("coach (H{r}) ›"));
            output::print(&term.out(Style::Green, &label))?;
            // A model's markdown, code included: laid out, not reflowed line by line.
            output::print_verbatim(&output::markdown::render(text, term.width, term.color_out))
        }
        Shown::Verdict { verdict, missing } => {
            let text = match verdict {
                ReqVerdict::Passed => "requirements: passed — code is welcome now".to_owned(),
                ReqVerdict::Unverified => {
                    "requirements: no judge answered, so they count as given (unverified)".to_owned()
                }
                ReqVerdict::Incomplete if missing.is_empty() => "requirements: incomplete".to_owned(),
                ReqVerdict::Incomplete => {
                    format!("requirements: incomplete — nothing yet about: {}", missing.join(", "))
                }
            };
            output::print(&term.out(Style::Yellow, &text))
        }
        Shown::Held(why) => output::print(&term.out(Style::Yellow, &format!("held: {why}"))),
        Shown::Withheld(why) => output::print(&term.out(Style::Yellow, why)),
        Shown::Switched(why) => output::print(&term.out(Style::Dim, why)),
        Shown::Error(why) => output::print(&term.out(Style::Red, why)),
    }
}

/// The line that says a session's card was saved, and how to open it.
pub(crate) fn print_saved(ctx: &Ctx, lesson: &devcoach_core::lesson::Lesson) -> std::io::Result<()> {
    output::print(&format!(
        "{} {} (`devcoach lesson {}`)",
        ctx.term.out(Style::Green, "Saved a lesson card:"),
        lesson.title,
        lesson.id
    ))
}
