//! The `devcoach` binary: the CLI, and (through its subcommands) the MCP server, the dashboard
//! and the hooks. All printing happens in this crate.

mod cli;
mod commands;
mod context;
mod failure;
mod output;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    let ctx = match context::Ctx::from_env() {
        Ok(ctx) => ctx,
        Err(e) => return failure::report(output::Term::detect(), &e),
    };
    match commands::run(cli.command, &ctx) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failure::report(ctx.term, &e),
    }
}
