//! The `devcoach` binary: the CLI, and (through its subcommands) the MCP server, the dashboard
//! and the hooks. All printing happens in this crate.

mod cli;
mod commands;
mod context;
mod doctor;
mod failure;
mod hooks;
mod output;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Hooks run on every agent stop: dispatch them before clap, logging or any runtime exists.
    if let Some(hook) = std::env::args_os().nth(1).as_deref().and_then(|a| a.to_str()).and_then(hooks::Hook::parse) {
        hooks::run(hook);
        return ExitCode::SUCCESS;
    }
    if std::env::args_os().nth(1).is_some_and(|a| a == "hook")
        && let Some(hook) = std::env::args_os()
            .nth(2)
            .as_deref()
            .and_then(|a| a.to_str())
            .and_then(hooks::practice::PracticeHook::parse)
    {
        hooks::practice::run(hook);
        return ExitCode::SUCCESS;
    }
    let parsed = {
        use clap::{CommandFactory, FromArgMatches};
        cli::Cli::command()
            // clap keeps `&'static str` without its `string` feature: one short line, once per run.
            .version(&*Box::leak(devcoach_agents::channel::version_line().into_boxed_str()))
            .try_get_matches()
            .and_then(|m| cli::Cli::from_arg_matches(&m))
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() && failure::json_requested() => {
            // clap's message without its usage and tip lines, on one line.
            let text = e.render().to_string();
            let message: Vec<&str> = text
                .lines()
                .take_while(|l| {
                    !l.starts_with("Usage:")
                        && !l.trim_start().starts_with("tip:")
                        && !l.starts_with("For more information")
                })
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            let message = message.join(" ");
            output::note(&failure::json_error(message.strip_prefix("error: ").unwrap_or(&message), 2));
            return ExitCode::from(2);
        }
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    let ctx = match context::Ctx::from_env(cli.wide, cli.utc) {
        Ok(ctx) => ctx,
        Err(e) => return failure::report(output::Term::detect(cli.wide), &e),
    };
    match commands::run(cli.command, &ctx) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failure::report(ctx.term, &e),
    }
}
