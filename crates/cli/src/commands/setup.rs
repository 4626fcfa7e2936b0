//! `devcoach setup`: the onboarding conversation, in the terminal, for people who would rather
//! not do it through an agent. Nothing is saved until the last step.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

use devcoach_core::settings::{SettingKey, SettingUpdate};
use devcoach_probe::history;
use devcoach_store::{Onboarding, OnboardingMode, SafetyKind};

use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::Style;

/// The prompts and the answers: stdin and stdout, or anything else in tests.
struct Conversation<R, W> {
    input: R,
    out: W,
    /// The columns prose is wrapped to.
    width: usize,
    /// Input that is not a terminal echoes nothing: each answer is written after its prompt, so
    /// what a script sees reads as a conversation.
    echo: bool,
}

impl<R: BufRead, W: Write> Conversation<R, W> {
    fn say(&mut self, text: &str) -> anyhow::Result<()> {
        writeln!(self.out, "{}", crate::output::fill(text, self.width))?;
        Ok(())
    }

    /// A command to paste: kept on one line whatever the width, so a copy runs as printed.
    fn command(&mut self, text: &str) -> anyhow::Result<()> {
        writeln!(self.out, "{text}")?;
        Ok(())
    }

    /// One answer, trimmed. The end of input cancels the whole setup.
    fn ask(&mut self, prompt: &str) -> anyhow::Result<String> {
        // The prompt keeps its trailing space: the answer is typed after it.
        let open = prompt.len() - prompt.trim_end().len();
        write!(self.out, "{}{}", crate::output::fill(prompt.trim_end(), self.width), &prompt[prompt.len() - open..])?;
        self.out.flush()?;
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            writeln!(self.out)?;
            return Err(invalid("setup cancelled before the end; nothing was saved"));
        }
        if self.echo {
            writeln!(self.out, "{}", line.trim())?;
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
#[derive(Debug)]
struct Plan {
    mode: OnboardingMode,
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
    let echo = !std::io::IsTerminal::is_terminal(&stdin);
    let mut talk = Conversation { input: stdin.lock(), out: crate::output::stdout(), width: ctx.term.width, echo };
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
        super::backup::restore(ctx, std::path::Path::new(&zip), None, false)?;
        talk.say("Your profile, lessons and settings came with the backup. You are set.")?;
        return Ok(());
    }

    // What the learner has now: read without creating the data folder.
    let current = match ctx.open_existing()? {
        Some(store) => Some((store.profile()?, store.settings()?)),
        None => None,
    };
    let existing = current.as_ref().filter(|(p, _)| !p.knowledge.is_empty()).map(|(p, _)| p);
    let mut plan = Plan {
        mode: OnboardingMode::Replace,
        topics: BTreeMap::new(),
        groups: Vec::new(),
        max_per_day: 2,
        min_gap_minutes: 240,
    };
    if let Some(profile) = existing {
        talk.say(&format!("\n{}", t.out(Style::Bold, "You already have a profile")))?;
        describe(talk, profile, current.as_ref().map(|(_, s)| s))?;
        talk.say("  1) Add to it: new topics join, everything you have stays (recommended)")?;
        talk.say("  2) Replace it: start the map again (a backup is taken first, with its undo)")?;
        talk.say("  3) Leave it as it is")?;
        plan.mode = loop {
            match talk.ask("Choice [1]: ")?.as_str() {
                "" | "1" => break OnboardingMode::Add,
                "2" => {
                    let answer = talk.ask(&format!(
                        "This removes your {} and {} from the map. Type replace to confirm, or Enter to add instead: ",
                        crate::output::plural(profile.knowledge.len(), "topic"),
                        crate::output::plural(profile.groups.len(), "group"),
                    ))?;
                    if answer.eq_ignore_ascii_case("replace") {
                        break OnboardingMode::Replace;
                    }
                    talk.say("  Adding to your profile instead.")?;
                    break OnboardingMode::Add;
                }
                "3" => {
                    talk.say("Nothing changed.")?;
                    return Ok(());
                }
                _ => talk.say("  Please type 1, 2 or 3.")?,
            }
        };
    }
    let adding = plan.mode == OnboardingMode::Add;
    let on_map = |topic: &str| adding && existing.is_some_and(|p| p.knowledge.iter().any(|k| k.topic == topic));

    talk.say(&format!("\n{}", t.out(Style::Bold, "2/4 · Your topics")))?;
    talk.say("  1) Automatic: read which stacks your Claude Code projects and this folder use (recommended)")?;
    talk.say("  2) Manual: type your topics")?;
    let automatic = loop {
        match talk.ask("Choice [1]: ")?.as_str() {
            "" | "1" => break true,
            "2" => break false,
            _ => talk.say("  Please type 1 or 2.")?,
        }
    };
    let mut asked_by_hand = false;
    if automatic {
        let scan = history::ClaudeHome::from_env().map(|home| history::scan(&home)).unwrap_or_default();
        let (known, found): (Vec<_>, Vec<_>) =
            history::merged_stack(&scan, &[cwd]).into_iter().partition(|(topic, _)| on_map(topic));
        if !known.is_empty() {
            let names: Vec<&str> = known.iter().map(|(t, _)| t.as_str()).collect();
            talk.say(&format!("Already on your map, kept as they are: {}.", names.join(", ")))?;
        }
        if found.is_empty() {
            talk.say(if known.is_empty() {
                "Nothing to go on in your history or this folder; let's type them instead."
            } else {
                "Nothing new in your history or this folder; type any other topics you work with."
            })?;
        } else {
            talk.say(&format!(
                "Found {} ({} looked at). For each: Enter keeps the suggested confidence, \
                 0–10 sets yours (0 = new to me, 10 = could teach it), s skips it.",
                crate::output::plural(found.len(), "topic"),
                crate::output::plural(scan.scanned_projects, "project"),
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
                if devcoach_core::knowledge::topic_id(topic).is_ok_and(|id| on_map(&id)) {
                    talk.say(&format!("    ({topic} is on your map already, kept as it is)"))?;
                    continue;
                }
                plan.add(talk, topic, 5, true)?;
            }
            asked_by_hand = true;
        }
    }
    if plan.topics.is_empty() && !asked_by_hand {
        talk.say(
            "One topic per line as `topic confidence` (e.g. `rust 4`; confidence 0–10, 5 when left out). Empty line to finish.",
        )?;
        for line in talk.lines("  > ")? {
            let (topic, confidence) = match line.rsplit_once(char::is_whitespace) {
                Some((topic, n)) if n.parse::<i64>().is_ok() => {
                    (topic.trim().to_owned(), n.parse::<i64>().unwrap_or(5))
                }
                _ => (line.clone(), 5),
            };
            if !topic.is_empty() {
                plan.add(talk, &topic, confidence, false)?;
                // Adding to a map that has it already changes its number: said, never silent.
                let was = devcoach_core::knowledge::topic_id(&topic).ok().and_then(|id| {
                    existing.filter(|_| adding)?.knowledge.iter().find(|k| k.topic == id).map(|k| k.confidence)
                });
                if let Some(was) = was.filter(|was| *was != confidence.clamp(0, 10)) {
                    talk.say(&format!("    (on your map at {was}; it becomes {})", confidence.clamp(0, 10)))?;
                }
            }
        }
    }
    if plan.topics.is_empty() && !adding {
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
                Ok(id) if plan.topics.contains_key(&id) || on_map(&id) => kept.push(id),
                _ => talk.say(&format!("    ({member} is not one of your topics, so it stays out of {name})"))?,
            }
        }
        if !kept.is_empty() {
            plan.groups.push((name, kept));
        }
    }

    talk.say(&format!("\n{}", t.out(Style::Bold, "4/4 · Pacing")))?;
    // The pacing in force is the answer Enter keeps: re-running setup never resets it.
    let (per_day, gap) = current.as_ref().map_or((2, 240), |(_, s)| (s.max_per_day, s.min_gap_minutes));
    plan.max_per_day = talk.number("Lessons a day, at most (1–20)", 1..=20, per_day.clamp(1, 20))?;
    plan.min_gap_minutes = talk.number("Minutes between lessons, at least (0–1440)", 0..=1440, gap.clamp(0, 1440))?;

    let (profile, backup) = save(ctx, &plan)?;
    talk.say(&format!(
        "\n{} {} {}{}, at most {} a day, {} min apart.",
        t.out(Style::Green, "✓"),
        if adding { "Your profile now has" } else { "Saved" },
        crate::output::plural(profile.knowledge.len(), "topic"),
        match profile.groups.len() {
            0 => String::new(),
            n => format!(" in {}", crate::output::plural(n, "group")),
        },
        crate::output::plural(usize::try_from(plan.max_per_day).unwrap_or(0), "lesson"),
        plan.min_gap_minutes
    ))?;
    if let Some(path) = backup {
        let quote = devcoach_agents::launch::shell_quote;
        talk.say(&t.out(Style::Dim, "Your previous profile was backed up. To put it back:"))?;
        talk.command(
            &t.out(Style::Dim, &format!("  devcoach restore {} --profile", quote(&path.display().to_string()))),
        )?;
    }
    talk.say(
        "Finish a task with your agent and devcoach takes it from there (`devcoach install` wires it in, \
         `devcoach profile` shows the map).",
    )?;
    Ok(())
}

/// The profile in a few lines: topics by group, then the pacing.
fn describe<R: BufRead, W: Write>(
    talk: &mut Conversation<R, W>,
    profile: &devcoach_core::knowledge::Profile,
    settings: Option<&devcoach_core::settings::Settings>,
) -> anyhow::Result<()> {
    let confidence = |topic: &str| {
        profile
            .knowledge
            .iter()
            .find(|k| k.topic == topic)
            .map_or_else(String::new, |k| format!("{topic} {}", k.confidence))
    };
    let mut grouped = std::collections::BTreeSet::new();
    for group in &profile.groups {
        let members: Vec<String> = group.topics.iter().map(|t| confidence(t)).filter(|t| !t.is_empty()).collect();
        grouped.extend(group.topics.iter().cloned());
        talk.say(&format!(
            "  {}: {}",
            group.name,
            if members.is_empty() { "(empty)".to_owned() } else { members.join(", ") }
        ))?;
    }
    let rest: Vec<String> =
        profile.knowledge.iter().filter(|k| !grouped.contains(&k.topic)).map(|k| confidence(&k.topic)).collect();
    if !rest.is_empty() {
        talk.say(&format!("  {}{}", if profile.groups.is_empty() { "" } else { "Other: " }, rest.join(", ")))?;
    }
    if let Some(s) = settings {
        let per_day = crate::output::plural(usize::try_from(s.max_per_day).unwrap_or(0), "lesson");
        talk.say(&format!("  At most {per_day} a day, {} min apart.", s.min_gap_minutes))?;
    }
    Ok(())
}

/// Saves the plan in one transaction; a replaced profile is backed up first (its path returned).
fn save(ctx: &Ctx, plan: &Plan) -> anyhow::Result<(devcoach_core::knowledge::Profile, Option<std::path::PathBuf>)> {
    let mut store = ctx.open()?;
    store.check_writable()?;
    let topics: Vec<(String, i64)> = plan.topics.iter().map(|(t, c)| (t.clone(), *c)).collect();
    let had_map = store.is_onboarded()?;
    let backup = if plan.mode == OnboardingMode::Replace && had_map {
        Some(devcoach_store::take_safety_backup(&store, SafetyKind::Setup, "profile", ctx.now)?)
    } else {
        None
    };
    let settings = [
        SettingUpdate::new(SettingKey::MaxPerDay, &plan.max_per_day.to_string())?,
        SettingUpdate::new(SettingKey::MinGapMinutes, &plan.min_gap_minutes.to_string())?,
    ];
    let profile = store.onboard(
        &Onboarding { topics: &topics, groups: &plan.groups, mode: plan.mode, settings: &settings },
        ctx.now,
    )?;
    ctx.dir.ensure_notebook()?;
    Ok((profile, backup))
}
