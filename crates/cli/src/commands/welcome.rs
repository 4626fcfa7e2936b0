//! Bare `devcoach`: what it is, where things stand, what to do next.

use devcoach_store::Store;

use crate::context::Ctx;
use crate::output::Style;

const COMMANDS: &[(&str, &[(&str, &str)])] = &[
    (
        "Look around",
        &[
            ("devcoach ui --demo", "the dashboard in the browser, on a demo learner"),
            ("devcoach ui", "the dashboard on your own lessons, map, courses and progress"),
            ("devcoach lessons", "your lessons, newest first, with their ids (--help for filters)"),
            ("devcoach lesson <id>", "one lesson in full (any start of an id that only one has)"),
            ("devcoach profile", "your knowledge map"),
            ("devcoach stats", "counts, pacing, weakest and strongest topics"),
        ],
    ),
    (
        "Learn",
        &[
            ("devcoach review", "the cards due today, just before you would forget them"),
            ("devcoach practice <problem>", "an algorithm problem with a coach that never gives it away"),
            ("devcoach courses", "the courses your agent grew from lessons"),
        ],
    ),
    (
        "Act on a lesson",
        &[
            ("devcoach feedback <id> <answer>", "know · understood · dont_know · clear"),
            ("devcoach star <id>", "keep it for later (unstar, delete too)"),
            ("devcoach share <id>", "a short code or link a colleague can import"),
            ("devcoach import <code>", "a lesson someone shared with you"),
        ],
    ),
    (
        "Connect",
        &[
            ("devcoach install", "wire devcoach into Claude Code (--gemini, --codex for the others)"),
            ("devcoach doctor", "check the wiring, and why the next stop would or would not cue"),
            ("devcoach setup", "build your profile here in the terminal"),
        ],
    ),
    (
        "Keep and tune",
        &[
            ("devcoach backup", "everything in one ZIP (restore merges it back)"),
            ("devcoach settings", "pacing, sharing and dashboard settings (change with `set`)"),
            ("devcoach knowledge-add <topic>", "add or rate a topic (groups: group-add, group-assign)"),
            ("devcoach completions <shell>", "tab completion for bash, zsh, fish or PowerShell"),
        ],
    ),
];

/// The command column's width; below this much room for both, descriptions go under commands.
const COMMAND_WIDTH: usize = 32;

pub fn run(ctx: &Ctx) -> anyhow::Result<()> {
    let t = &ctx.term;
    let w = t.width;
    let mut out = format!(
        "{} {}\n{}\n\n",
        t.out(Style::BoldCyan, "devcoach"),
        devcoach_core::APP_VERSION,
        crate::output::wrap(
            "A local, private coach: when your agent finishes a task, devcoach turns it into a short \
             lesson sized to what you already know. Nothing leaves your machine.",
            w
        )
    );
    let status = crate::output::wrap_indented(&status(ctx)?, w, "        ", "        ");
    out.push_str(&format!("{}  {}\n\n", t.out(Style::Bold, "Status"), status.get(8..).unwrap_or("")));
    let side_by_side = w >= COMMAND_WIDTH + 2 + 2 + 30;
    for (i, (heading, commands)) in COMMANDS.iter().enumerate() {
        let gap = if i == 0 { "" } else { "\n" };
        out.push_str(&format!("{gap}{}\n", t.out(Style::Bold, heading)));
        for (cmd, what) in *commands {
            if side_by_side {
                let indent = " ".repeat(COMMAND_WIDTH + 4);
                let what = crate::output::wrap_indented(what, w, &indent, &indent);
                out.push_str(&format!(
                    "  {}  {}\n",
                    t.out(Style::Cyan, &format!("{cmd:<COMMAND_WIDTH$}")),
                    t.out(Style::Dim, what.get(COMMAND_WIDTH + 4..).unwrap_or(""))
                ));
            } else {
                let what = crate::output::wrap_indented(what, w, "      ", "      ");
                out.push_str(&format!("  {}\n{}\n", t.out(Style::Cyan, cmd), t.out(Style::Dim, &what)));
            }
        }
    }
    out.push_str(&format!(
        "\n{}",
        t.out(Style::Dim, &crate::output::wrap("Every command takes --help. Read commands take --json.", w))
    ));
    if let Some(hint) = devcoach_agents::skill_hint() {
        out.push_str(&format!("\n{}", t.out(Style::Yellow, &crate::output::wrap(&hint, w))));
    }
    Ok(crate::output::print(&out)?)
}

fn status(ctx: &Ctx) -> anyhow::Result<String> {
    let t = &ctx.term;
    let Some(store) = Store::open_existing(&ctx.dir)? else {
        return Ok(format!(
            "no data yet in {} — once your agent is connected, lessons appear after finished tasks. Try `devcoach ui --demo` to see what that looks like.",
            ctx.dir.root().display()
        ));
    };
    if let Some(compat) = store.compat() {
        return Ok(t.out(Style::Yellow, &format!("read-only: {compat}")));
    }
    let stats = store.stats(ctx.now)?;
    let topics = store.profile()?.knowledge.len();
    if topics == 0 {
        return Ok("not onboarded yet — your agent will offer to build your knowledge map on its next stop.".into());
    }
    let next = store.next_lesson(ctx.now)?;
    let next = t.out(
        if next == devcoach_core::pacing::NextLesson::NextTurn { Style::Green } else { Style::Plain },
        &format!("next lesson {next}"),
    );
    Ok(format!("{} lessons · {topics} topics · {next}", stats.total_lessons))
}
