//! Bare `devcoach`: what it is, where things stand, what to do next.

use devcoach_store::Store;

use crate::context::Ctx;
use crate::output::Style;

const COMMANDS: &[(&str, &[(&str, &str)])] = &[
    (
        "Look around",
        &[
            ("devcoach demo", "a sandbox with a realistic learner, to try everything below"),
            ("devcoach lessons", "your lessons, newest first (--help for filters)"),
            ("devcoach lesson <id>", "one lesson in full"),
            ("devcoach profile", "your knowledge map"),
            ("devcoach stats", "counts, pacing, weakest and strongest topics"),
        ],
    ),
    (
        "Act on a lesson",
        &[
            ("devcoach feedback <id> <answer>", "know · understood · dont_know · clear"),
            ("devcoach star <id>", "keep it for later (unstar, delete too)"),
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
        "Tune",
        &[
            ("devcoach settings", "pacing and sharing settings (change with `set`)"),
            ("devcoach knowledge-add <topic>", "add or rate a topic (groups: group-add, group-assign)"),
        ],
    ),
];

pub fn run(ctx: &Ctx) -> anyhow::Result<()> {
    let t = &ctx.term;
    let mut out = format!(
        "{} {}\n{}\n\n",
        t.out(Style::BoldCyan, "🎓 devcoach"),
        devcoach_core::APP_VERSION,
        "A local, private coach: when your agent finishes a task, devcoach turns it into a short\n\
         lesson sized to what you already know. Nothing leaves your machine."
    );
    out.push_str(&format!("{}  {}\n\n", t.out(Style::Bold, "Status"), status(ctx)?));
    for (heading, commands) in COMMANDS {
        out.push_str(&format!("{}\n", t.out(Style::Bold, heading)));
        for (cmd, what) in *commands {
            out.push_str(&format!("  {}  {}\n", t.out(Style::Cyan, &format!("{cmd:<32}")), t.out(Style::Dim, what)));
        }
    }
    out.push_str(&format!("\n{}", t.out(Style::Dim, "Every command takes --help. Read commands take --json.")));
    if let Some(hint) = crate::agents::skill_hint() {
        out.push_str(&format!("\n{}", t.out(Style::Yellow, &hint)));
    }
    Ok(crate::output::print(&out)?)
}

fn status(ctx: &Ctx) -> anyhow::Result<String> {
    let t = &ctx.term;
    let Some(store) = Store::open_existing(&ctx.dir)? else {
        return Ok(format!(
            "no data yet in {} — once your agent is connected, lessons appear after finished tasks.\n        Try `devcoach demo` to see what that looks like.",
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
    let rate = store.rate_limit(ctx.now);
    let next = if rate.allowed {
        t.out(Style::Green, "next lesson: available")
    } else {
        t.out(Style::Yellow, "next lesson: later")
    };
    Ok(format!("{} lessons · {topics} topics · {next}", stats.total_lessons))
}
