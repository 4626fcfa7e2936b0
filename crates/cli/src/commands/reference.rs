//! `completions` and `man`: generated from the one clap definition, so they never drift from it.

use std::io::Write as _;

use clap::CommandFactory as _;

use crate::cli::Cli;

pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "devcoach", &mut script);
    crate::output::write_stdout(|out| out.write_all(&script))?;
    Ok(())
}

pub fn man() -> anyhow::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    crate::output::write_stdout(|out| out.write_all(&page))?;
    Ok(())
}
