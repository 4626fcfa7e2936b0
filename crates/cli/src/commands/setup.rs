//! `devcoach setup`: the onboarding conversation, in the terminal, for people who would rather
//! not do it through an agent. Nothing is saved until the last step.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

use devcoach_core::settings::SettingUpdate;
use devcoach_probe::history;

use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::Style;

/// The prompts and the answers: stdin and stdout, or anything else in tests.
struct Conversation<R, W> {
    input: R,
    out: W,
}

impl<R: BufRead, W: Write> Conversation<R, W> {
    fn say(&mut self, text: &str) -> anyhow::Result<()> {
        writeln!(self.out, "{text}")?;
        Ok(())
    }

    /// One answer, trimmed. The end of input cancels the whole setup.
    fn ask(&mut self, prompt: &str) -> anyhow::Result<String> {
        write!(self.out, "{prompt}")?;
        self.out.flush()?;
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            writeln!(self.out)?;
            return Err(invalid("setup cancelled before the end; nothing was saved"));
        }
        Ok(line.trim().to_owned())
    }

    /// A whole number in `range`, asking again until it is one; Enter takes `default`.
    fn number(&mut self, prompt: &str, range: std::ops::RangeInclusive<i64>, default: i64) -> anyhow::Result<i64> {
        loop {
            let answer = self.ask(&format!("{prompt} [{default}]: "))?;
            if answer.is_empty() {
                return Ok(default);
            }
            match answer.parse::<i64>() {
                Ok(n) if range.contains(&n) => return Ok(n),
                _ => self.say(&format!("  Please type a whole number from {} to {}.", range.start(), range.end()))?,
            }
        }
    }

    /// Lines until an empty one.
    fn lines(&mut self, prompt: &str) -> anyhow::Result<Vec<String>> {
        let mut out = Vec::new();
        loop {
            let line = self.ask(prompt)?;
            if line.is_empty() {
                return Ok(out);
            }
            out.push(line);
        }
    }
}

/// What the learner chose.
#[derive(Debug, Default)]
struct Plan {
    topics: BTreeMap<String, i64>,
    groups: Vec<(String, Vec<String>)>,
    max_per_day: i64,
    min_gap_minutes: i64,
}

impl Plan {
    /// Adds a topic under the one topic rule; says when the name changed, and why one is skipped.
    /// `keep` leaves a topic already in the plan as it is.
    fn add<R: BufRead, W: Write>(
        &mut self,
        talk: &mut Conversation<R, W>,
        raw: &str,
        confidence: i64,
        keep: bool,
    ) -> anyhow::Result<()> {
        match devcoach_core::knowledge::topic_id(raw) {
            Ok(id) => {
                if id != raw.trim() {
                    talk.say(&format!("    (saved as {id})"))?;
                }
                if keep {
                    self.topics.entry(id).or_insert(confidence);
                } else {
                    self.topics.insert(id, confidence.clamp(0, 10));
                }
            }
            Err(e) => talk.say(&format!("    (skipped {:?}: {e})", raw.trim()))?,
        }
        Ok(())
    }
}

pub fn run(ctx: &Ctx) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    // Topic names come from the Claude Code history: shown through the door.
    let mut talk = Conversation { input: stdin.lock(), out: crate::output::stdout() };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    converse(ctx, &mut talk, &cwd)
}

fn converse<R: BufRead, W: Write>(
    ctx: &Ctx,
    talk: &mut Conversation<R, W>,
    cwd: &std::path::Path,
) -> anyhow::Result<()> {
    let t = ctx.term;
    talk.say(&format!(
        "{}\nFour short steps. Nothing is saved until the end; Ctrl-C leaves everything as it is.\n",
        t.out(Style::Bold, "devcoach setup — your knowledge profile")
    ))?;

    talk.say(&t.out(Style::Bold, "1/4 · Restore a backup"))?;
    let zip = talk.ask("Path to a devcoach backup ZIP, or Enter to build a new profile: ")?;
    if !zip.is_empty() {
        talk.out.flush()?;
        super::backup::restore(ctx, std::path::Path::new(&zip), None)?;
        talk.say("Your profile, lessons and settings came with the backup. You are set.")?;
        return Ok(());
    }

    talk.say(&format!("\n{}", t.out(Style::Bold, "2/4 · Your topics")))?;
    talk.say("  1) Automatic: read which stacks your Claude Code projects and this folder use (recommended)")?;
    talk.say("  2) Manual: type your topics")?;
    let mut plan = Plan::default();
    let automatic = loop {
        match talk.ask("Choice [1]: ")?.as_str() {
            "" | "1" => break true,
            "2" => break false,
            _ => talk.say("  Please type 1 or 2.")?,
        }
    };
    if automatic {
        let scan = history::ClaudeHome::from_env().map(|home| history::scan(&home)).unwrap_or_default();
        let found = history::merged_stack(&scan, &[cwd]);
        if found.is_empty() {
            talk.say("Nothing to go on in your history or this folder; let's type them instead.")?;
        } else {
            talk.say(&format!(
                "Found {} ({} looked at). For each: Enter keeps the suggested confidence, \
                 0–10 sets yours (0 = new to me, 10 = could teach it), s skips it.",
                if found.len() == 1 { "1 topic".to_owned() } else { format!("{} topics", found.len()) },
                if scan.scanned_projects == 1 {
                    "1 project".to_owned()
                } else {
                    format!("{} projects", scan.scanned_projects)
                }
            ))?;
            for (topic, suggested) in found {
                let suggested = suggested.clamp(0, 10);
                loop {
                    let answer = talk.ask(&format!("  {topic} [{suggested}]: "))?;
                    match answer.as_str() {
                        "" => {
                            plan.topics.insert(topic.clone(), suggested);
                            break;
                        }
                        "s" | "S" => break,
                        n => match n.parse::<i64>() {
                            Ok(n) if (0..=10).contains(&n) => {
                                plan.topics.insert(topic.clone(), n);
                                break;
                            }
                            _ => talk.say("    Enter, a number from 0 to 10, or s.")?,
                        },
                    }
                }
            }
            let extra = talk.ask("Anything else you work with? Comma-separated topics (confidence 5), or Enter: ")?;
            for topic in extra.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                plan.add(talk, topic, 5, true)?;
            }
        }
    }
    if plan.topics.is_empty() {
        talk.say("One topic per line as `topic confidence` (e.g. `rust 4`; confidence 0–10, 5 when left out). Empty line to finish.")?;
        for line in talk.lines("  > ")? {
            let (topic, confidence) = match line.rsplit_once(char::is_whitespace) {
                Some((topic, n)) if n.parse::<i64>().is_ok() => {
                    (topic.trim().to_owned(), n.parse::<i64>().unwrap_or(5))
                }
                _ => (line.clone(), 5),
            };
            if !topic.is_empty() {
                plan.add(talk, &topic, confidence, false)?;
            }
        }
    }
    if plan.topics.is_empty() {
        return Err(invalid("no topics given, so there is no profile to save; nothing was changed"));
    }

    talk.say(&format!("\n{}", t.out(Style::Bold, "3/4 · Groups (optional)")))?;
    talk.say(
        "Group related topics as `group: topic, topic` (e.g. `Backend: rust, sql`). Empty line to skip or finish.",
    )?;
    for line in talk.lines("  > ")? {
        let Some((name, members)) = line.split_once(':') else {
            talk.say("    (skipped: write it as `group: topic, topic`)")?;
            continue;
        };
        let name = match devcoach_core::knowledge::new_group_name(name) {
            Ok(name) => name,
            Err(e) => {
                talk.say(&format!("    (skipped: {e})"))?;
                continue;
            }
        };
        let mut kept = Vec::new();
        for member in members.split(',').map(str::trim).filter(|m| !m.is_empty()) {
            // Members follow the topic rule too; one that is not a topic is said, not dropped quietly.
            match devcoach_core::knowledge::topic_id(member) {
                Ok(id) if plan.topics.contains_key(&id) => kept.push(id),
                _ => talk.say(&format!("    ({member} is not one of your topics, so it stays out of {name})"))?,
            }
        }
        if !kept.is_empty() {
            plan.groups.push((name, kept));
        }
    }

    talk.say(&format!("\n{}", t.out(Style::Bold, "4/4 · Pacing")))?;
    plan.max_per_day = talk.number("Lessons a day, at most (1–20)", 1..=20, 2)?;
    plan.min_gap_minutes = talk.number("Minutes between lessons, at least (0–1440)", 0..=1440, 240)?;

    save(ctx, &plan)?;
    talk.say(&format!(
        "\n{} Saved {}{}, at most {} lessons a day, {} min apart.\nFinish a task with your agent and devcoach \
         takes it from there (`devcoach install` wires it in, `devcoach profile` shows the map).",
        t.out(Style::Green, "✓"),
        if plan.topics.len() == 1 { "1 topic".to_owned() } else { format!("{} topics", plan.topics.len()) },
        match plan.groups.len() {
            0 => String::new(),
            1 => " in 1 group".to_owned(),
            n => format!(" in {n} groups"),
        },
        plan.max_per_day,
        plan.min_gap_minutes
    ))?;
    Ok(())
}

fn save(ctx: &Ctx, plan: &Plan) -> anyhow::Result<()> {
    let mut store = ctx.open()?;
    let topics: Vec<(String, i64)> = plan.topics.iter().map(|(t, c)| (t.clone(), *c)).collect();
    store.complete_onboarding(&topics, &plan.groups, ctx.now)?;
    for (key, value) in [("max_per_day", plan.max_per_day), ("min_gap_minutes", plan.min_gap_minutes)] {
        store.apply_setting(&SettingUpdate::for_agent(key, &value.to_string())?)?;
    }
    ctx.dir.ensure_notebook()?;
    Ok(())
}
