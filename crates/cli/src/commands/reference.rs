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

/// One page for the whole tool: clap_mangen's sections, with every command listed in it rather
/// than named as a `devcoach-<command>(1)` page nobody installs.
pub fn man() -> anyhow::Result<()> {
    let page = man_page()?;
    crate::output::write_stdout(|out| out.write_all(page.as_bytes()))?;
    Ok(())
}

fn man_page() -> anyhow::Result<String> {
    let cmd = Cli::command().disable_help_subcommand(true);
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    let mut text = String::from_utf8(page)?;
    text.push_str(".SH COMMANDS\n");
    let mut cmd = cmd;
    cmd.build();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        commands(&mut text, "devcoach", sub);
    }
    let mut tail = Vec::new();
    man.render_version_section(&mut tail)?;
    text.push_str(&String::from_utf8(tail)?);
    Ok(text)
}

/// A command and its own subcommands as roff paragraphs: `devcoach review grade` and its line.
fn commands(text: &mut String, parent: &str, cmd: &clap::Command) {
    let name = format!("{parent} {}", cmd.get_name());
    let about = cmd.get_about().map(ToString::to_string).unwrap_or_default();
    text.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff_text(&name), roff_text(&about)));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        commands(text, &name, sub);
    }
}

/// Text roff prints as it is: backslashes escaped, a leading dot or quote made inert.
fn roff_text(s: &str) -> String {
    let escaped = s.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) { format!("\\&{escaped}") } else { escaped }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_man_page_lists_every_command_and_names_no_other_page() {
        let page = super::man_page().expect("page");
        assert!(!page.contains("devcoach\\-lessons(1)") && !page.contains("(1)\n.TP"), "no sub-pages named");
        for command in ["devcoach lessons", "devcoach review grade", "devcoach sync init", "devcoach export"] {
            assert!(page.contains(&format!("\\fB{}\\fR", super::roff_text(command))), "{command}");
        }
        assert!(!page.contains("devcoach help"), "no help command");
    }
}
