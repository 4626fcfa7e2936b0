//! `devcoach install` and `devcoach uninstall`.

use std::io::IsTerminal;

use crate::cli::{AgentFlags, InstallArgs, UninstallArgs};
use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::{self, Style, Term};
use devcoach_agents::launch::Launch;
use devcoach_agents::wire::{self, InstallOptions, Mark, Report};
use devcoach_agents::{self as agents, Agent, Places};
use devcoach_agents::{config, ledger};

/// The agents named by flags, in the table's order.
fn named(flags: &AgentFlags) -> Vec<Agent> {
    flags.named.clone()
}

fn selected(flags: &AgentFlags, all: bool) -> Vec<Agent> {
    if all { Agent::ALL.to_vec() } else { agents::select(&named(flags)) }
}

fn explicit(flags: &AgentFlags, agent: Agent) -> bool {
    named(flags).contains(&agent)
}

fn render(term: Term, out: &mut String, agent: Agent, report: &Report) {
    out.push_str(&term.out(Style::Bold, agent.label()));
    out.push('\n');
    for step in &report.steps {
        let (glyph, style) = match step.mark {
            Mark::Done => ("✓", Style::Green),
            Mark::Unchanged => ("=", Style::Dim),
            Mark::Skipped => ("–", Style::Dim),
            Mark::Note => ("•", Style::Cyan),
            Mark::Warn => ("!", Style::Yellow),
            Mark::Failed => ("✗", Style::Red),
        };
        // The first line is prose, wrapped to the width; lines after it are a snippet to paste,
        // kept as they are.
        let mut lines = step.text.lines();
        out.push_str(&output::glyph_line(term, style, glyph, lines.next().unwrap_or_default()));
        for line in lines {
            out.push_str(&format!("      {line}\n"));
        }
    }
}

pub fn install(ctx: &Ctx, args: &InstallArgs) -> anyhow::Result<()> {
    let places = Places::from_env()?;
    let launch = Launch::current()?;
    let agents = if args.all_detected { agents::detected(&places) } else { selected(&args.agents, false) };
    let mut out = String::new();
    if args.all_detected {
        let names: Vec<&str> = agents.iter().map(|a| a.label()).collect();
        let found = if names.is_empty() {
            "No agent found on this machine (none of their folders or programs): name one, e.g. \
             `devcoach install --claude-code`."
                .to_owned()
        } else {
            format!("Found: {}.\n", names.join(", "))
        };
        out.push_str(&output::wrap(&found, ctx.term.width));
        out.push('\n');
    }
    let trust = trust_choice(args, &agents, &places)?;
    if let Some(caution) = &launch.caution {
        out.push_str(&format!("{} {caution}\n\n", ctx.term.out(Style::Yellow, "!")));
    }
    let mut failed = false;
    for agent in agents {
        let opts = InstallOptions {
            force: args.force,
            skip_hook: args.skip_hook,
            practice: args.practice,
            explicit: explicit(&args.agents, agent) || args.all_detected,
            trust,
        };
        let report = wire::install(agent, &places, &launch, opts);
        failed |= report.failed();
        render(ctx.term, &mut out, agent, &report);
    }
    // What this run created and backed up, for uninstall to give back.
    if let Err(e) = ledger::commit(ledger::stored()) {
        let text = format!("cannot record what install created ({e}): uninstall will leave those files in place");
        let text = output::wrap_indented(&text, ctx.term.width, "  ", "  ");
        out.push_str(&format!("{} {}\n", ctx.term.out(Style::Yellow, "!"), text.get(2..).unwrap_or("")));
    }
    if !ctx.dir.db_path().is_file() {
        out.push('\n');
        out.push_str(&output::wrap(
            "Next: finish a task with your agent. devcoach will offer to build your profile then \
             (or run `devcoach setup` now).",
            ctx.term.width,
        ));
        out.push('\n');
    }
    out.push_str("Check the wiring any time with `devcoach doctor`.\n");
    output::print(&out)?;
    if failed {
        return Err(invalid("some steps failed (marked ✗ above); fix what they name and run `devcoach install` again"));
    }
    Ok(())
}

pub fn uninstall(ctx: &Ctx, args: &UninstallArgs) -> anyhow::Result<()> {
    let places = Places::from_env()?;
    let agents = selected(&args.agents, args.all);
    let mut out = String::new();
    let mut failed = false;
    for &agent in &agents {
        let report = wire::uninstall(agent, &places, &agents);
        failed |= report.failed();
        render(ctx.term, &mut out, agent, &report);
    }
    give_back(ctx.term, &places, &agents, &mut out);
    output::print(&out)?;
    if args.data {
        delete_data(ctx, args.yes)?;
    }
    if failed {
        return Err(invalid(
            "some steps failed (marked ✗ above); fix what they name and run `devcoach uninstall` again",
        ));
    }
    Ok(())
}

/// Whether to trust the server where the agent asks for it (Gemini CLI): the flags,
/// else the answer at a terminal, else what the entry says now (`None`: leave it).
fn trust_choice(args: &InstallArgs, agents: &[Agent], places: &Places) -> anyhow::Result<Option<bool>> {
    if args.trust || args.no_trust {
        return Ok(Some(args.trust));
    }
    let asks: Vec<Agent> = agents.iter().copied().filter(|a| wire::takes_trust(*a)).collect();
    if asks.is_empty() || !std::io::stdin().is_terminal() || asks.iter().all(|a| wire::trusted(*a, places).is_some()) {
        return Ok(None);
    }
    let names: Vec<&str> = asks.iter().map(|a| a.label()).collect();
    let question = format!(
        "{} runs devcoach's tools headless (`-p`) only when the server is trusted, and trust also skips the \
         confirmation before every devcoach tool, delete_lesson included. Trust devcoach there?",
        names.join(" and ")
    );
    Ok(output::confirm(&question)?)
}

/// Removes what install created that is now empty, and the backups of files restored byte for
/// byte; says which backups stay and why.
fn give_back(term: Term, places: &Places, agents: &[Agent], out: &mut String) {
    let mut ledger = ledger::stored();
    let roots: Vec<std::path::PathBuf> = agents.iter().flat_map(|a| places.roots(*a)).collect();
    let done = ledger::give_back(&mut ledger, &config::edited_this_run(), &places.home, &roots);
    if !done.removed.is_empty() {
        let shown: Vec<String> = done.removed.iter().map(|p| places.show(p)).collect();
        let text = format!("removed what install had created or backed up: {}", shown.join(", "));
        let text = output::wrap_indented(&text, term.width, "  ", "  ");
        out.push_str(&format!("{} {}\n", term.out(Style::Green, "✓"), text.get(2..).unwrap_or("")));
    }
    for bak in &done.kept_backups {
        let text = format!(
            "kept {}: the file it copies changed since install, so compare the two and delete the copy when \
             you are done",
            places.show(bak)
        );
        let text = output::wrap_indented(&text, term.width, "  ", "  ");
        out.push_str(&format!("{} {}\n", term.out(Style::Cyan, "•"), text.get(2..).unwrap_or("")));
    }
    if let Err(e) = ledger::commit(ledger) {
        out.push_str(&format!("{} cannot update the install record: {e}\n", term.out(Style::Yellow, "!")));
    }
}

fn delete_data(ctx: &Ctx, yes: bool) -> anyhow::Result<()> {
    let root = ctx.dir.root();
    if !root.exists() {
        output::print(&format!("No devcoach data at {}.", root.display()))?;
        return Ok(());
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(invalid(format!(
                "not deleting {} without confirmation: run again with --yes to delete it",
                root.display()
            )));
        }
        let question = format!("Delete {} and everything in it (lessons, profile, settings)?", root.display());
        if output::confirm(&question)? != Some(true) {
            output::print("Data kept.")?;
            return Ok(());
        }
    }
    std::fs::remove_dir_all(root).map_err(|e| invalid(format!("cannot delete {}: {e}", root.display())))?;
    output::print(&format!("{} Deleted {}.", ctx.term.out(Style::Green, "✓"), root.display()))?;
    Ok(())
}
