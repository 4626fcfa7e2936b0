//! `completions` and `man`: generated from the one clap definition, so they never drift from it.

use std::io::Write as _;

use clap::CommandFactory as _;

use crate::cli::Cli;

pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut full_command(), "devcoach", &mut script);
    crate::output::write_stdout(|out| out.write_all(&script))?;
    Ok(())
}

/// The whole command tree, built, for what lists all of it. Commands are deferred (see
/// `cli::Command`): building the root adds every command's arguments and subcommands, but clap
/// copies the tree under `help` before it does, so the copies of commands that have
/// subcommands are missing them (`help practice check`). They are filled in here, as clap would
/// have copied them.
pub(crate) fn full_command() -> clap::Command {
    let mut cmd = Cli::command();
    cmd.build();
    let expanded: Vec<clap::Command> = cmd.get_subcommands().filter(|c| c.get_name() != "help").cloned().collect();
    cmd.mut_subcommands(|c| {
        if c.get_name() != "help" {
            return c;
        }
        c.mut_subcommands(|copy| match expanded.iter().find(|e| e.get_name() == copy.get_name()) {
            Some(source) if source.has_subcommands() && !copy.has_subcommands() => {
                let parent = copy.get_bin_name().unwrap_or_default().to_owned();
                copy.subcommands(own_subcommands(source).map(|s| help_copy(s, &parent)))
            }
            _ => copy,
        })
    })
}

/// A command's subcommands, without the `help` clap adds to each once built.
fn own_subcommands(cmd: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    cmd.get_subcommands().filter(|s| s.get_name() != "help")
}

/// What clap puts under `help` for `cmd`: its name, about and subcommands, no arguments.
fn help_copy(cmd: &clap::Command, parent_bin: &str) -> clap::Command {
    // clap holds names as `&'static str` (no `string` feature); this runs once, to print a script.
    let name: &'static str = Box::leak(cmd.get_name().to_owned().into_boxed_str());
    let bin = format!("{parent_bin} {name}");
    let mut copy = clap::Command::new(name)
        .hide(cmd.is_hide_set())
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .bin_name(bin.clone())
        .subcommands(own_subcommands(cmd).map(|s| help_copy(s, &bin)));
    if let Some(about) = cmd.get_about() {
        copy = copy.about(about.clone());
    }
    copy
}

/// One page for the whole tool: clap_mangen's sections, with every command listed in it rather
/// than named as a `devcoach-<command>(1)` page nobody installs.
pub fn man() -> anyhow::Result<()> {
    let page = man_page()?;
    crate::output::write_stdout(|out| out.write_all(page.as_bytes()))?;
    Ok(())
}

fn man_page() -> anyhow::Result<String> {
    // No `help` here, so nothing to fill in: building adds every command's own parts.
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

    /// Every command at every depth, with its about, leaving out clap's `help`.
    fn tree(cmd: &clap::Command, path: &str, out: &mut Vec<(String, String)>) {
        for sub in super::own_subcommands(cmd) {
            let here = format!("{path} {}", sub.get_name());
            out.push((here.clone(), sub.get_about().map(ToString::to_string).unwrap_or_default()));
            tree(sub, &here, out);
        }
    }

    #[test]
    fn help_holds_every_command_at_every_depth_as_completions_list_it() {
        let mut cmd = super::full_command();
        // As clap_complete does: the copies filled in are built too (and so get no `--help`).
        cmd.build();
        let (mut commands, mut under_help) = (Vec::new(), Vec::new());
        tree(&cmd, "", &mut commands);
        commands.retain(|(path, _)| !path.starts_with(" help"));
        let help = cmd.get_subcommands().find(|c| c.get_name() == "help").expect("help");
        tree(help, "", &mut under_help);
        // Deferred commands get their subcommands when built, after clap copied the tree.
        assert!(commands.iter().any(|(p, _)| p == " practice check code"), "{commands:?}");
        assert_eq!(under_help, commands);
        let under_help_at = |path: &[&str]| {
            path.iter().fold(help.clone(), |c, name| c.find_subcommand(name).expect("under help").clone())
        };
        let check = under_help_at(&["practice", "check"]);
        assert_eq!(check.get_bin_name(), Some("devcoach help practice check"));
        assert!(check.get_arguments().next().is_none() && check.find_subcommand("leak").is_some());
        let mut script = Vec::new();
        clap_complete::generate(clap_complete::Shell::Zsh, &mut super::full_command(), "devcoach", &mut script);
        let script = String::from_utf8(script).expect("utf-8");
        assert!(
            script.contains("'devcoach help practice check code commands'"),
            "zsh completes `help practice check code`"
        );
    }

    /// An argument struct's doc comment would replace its command's about (commands are
    /// deferred), so those structs carry none: what each command says before its arguments are
    /// added is what it says after.
    #[test]
    fn each_command_keeps_its_own_about() {
        use clap::CommandFactory as _;
        let unbuilt = super::Cli::command();
        let mut cmd = super::full_command();
        cmd.build();
        let said =
            |c: &clap::Command| (c.get_about().map(ToString::to_string), c.get_long_about().map(ToString::to_string));
        for before in unbuilt.get_subcommands() {
            let after = cmd.find_subcommand(before.get_name()).expect("still there");
            assert!(before.get_about().is_some(), "{} says what it does", before.get_name());
            assert_eq!(said(after), said(before), "{}", before.get_name());
        }
        // A struct's comment taking over would show as two commands saying the same thing.
        let mut all = Vec::new();
        tree(&cmd, "", &mut all);
        all.retain(|(path, _)| !path.starts_with(" help") && !path.ends_with(" help"));
        for (i, (path, about)) in all.iter().enumerate() {
            assert!(!about.is_empty(), "{path} has no about");
            let twin = all[i + 1..].iter().find(|(_, other)| other == about);
            assert!(twin.is_none(), "{path} and {:?} both say {about:?}", twin.map(|t| &t.0));
        }
    }
}
