//! `backup` and `restore`.

use std::path::Path;

use devcoach_files::{Overwrite, Target};

use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::{self, Style};

pub fn backup(ctx: &Ctx, file: &Path, force: bool) -> anyhow::Result<()> {
    let overwrite = overwrite(file, force)?;
    let store = ctx.open()?;
    let summary = devcoach_store::write_backup_file(&store, file, overwrite)?;
    let mut parts = vec![
        output::plural(summary.lessons, "lesson"),
        format!("{} in {}", output::plural(summary.topics, "topic"), output::plural(summary.groups, "group")),
    ];
    if summary.courses > 0 {
        parts.push(format!(
            "{} ({})",
            output::plural(summary.courses, "course"),
            output::plural(summary.documents, "document")
        ));
    }
    let rows = |table: &str| summary.rows.iter().find(|(t, _)| *t == table).map_or(0, |(_, n)| *n);
    if rows("ext_review_log") > 0 {
        parts.push(output::plural(rows("ext_review_log"), "review"));
    }
    if summary.practice_files > 0 {
        parts.push(output::plural(summary.practice_files, "practice file"));
    }
    if summary.notebook {
        parts.push("the coaching notebook".into());
    }
    Ok(output::print(&format!(
        "{} Backup written to {}: {}.",
        ctx.term.out(Style::Green, "✓"),
        file.display(),
        parts.join(", ")
    ))?)
}

pub(super) fn restore(ctx: &Ctx, file: &Path, lesson: Option<&str>, profile: bool) -> anyhow::Result<()> {
    let ids: Vec<String> = lesson.map(str::to_owned).into_iter().collect();
    let scope = match (lesson, profile) {
        (Some(_), _) => devcoach_store::Scope::Lessons(&ids),
        (None, true) => devcoach_store::Scope::Profile,
        (None, false) => devcoach_store::Scope::All,
    };
    let out = devcoach_store::restore_file_scoped(&mut ctx.open()?, file, ctx.now, scope)?;
    if profile {
        return Ok(output::print(&format!(
            "{} Put back the knowledge profile from {}: {}{}, with its pacing (lessons and the rest unchanged).",
            ctx.term.out(Style::Green, "✓"),
            file.display(),
            output::plural(out.topics, "topic"),
            match out.groups {
                0 => String::new(),
                n => format!(" in {}", output::plural(n, "group")),
            }
        ))?);
    }
    if let Some(id) = lesson {
        return match (out.lessons, out.skipped) {
            (1, _) => Ok(output::print(&format!(
                "{} Restored {id} from {} (its review card and history with it; nothing else changed).",
                ctx.term.out(Style::Green, "✓"),
                file.display()
            ))?),
            (_, 1) => Err(invalid(format!("{id} is already in your lessons; nothing was restored"))),
            _ => Err(invalid(format!("{} holds no lesson with id '{id}'; nothing was restored", file.display()))),
        };
    }
    let mut lines = vec![format!("{} Restored from {}:", ctx.term.out(Style::Green, "✓"), file.display())];
    lines.push(format!("  lessons   {} added, {} already there, {} invalid", out.lessons, out.skipped, out.invalid));
    lines.push(format!(
        "  knowledge {}, {}",
        output::plural(out.topics, "topic"),
        output::plural(out.groups, "new group")
    ));
    lines.push(format!("  settings  {}", if out.settings > 0 { "restored" } else { "not in the backup" }));
    lines.push(format!("  notebook  {}", if out.learning_state > 0 { "restored" } else { "not in the backup" }));
    if out.courses > 0 {
        lines.push(format!("  courses   {} added", out.courses));
    }
    let reviews = out.rows_of("ext_review_log");
    let cards = out.rows_of("ext_review_cards");
    if reviews + cards > 0 {
        lines.push(format!(
            "  reviews   {} and {} restored",
            output::plural(reviews, "review"),
            output::plural(cards, "card")
        ));
    }
    if out.rows_of("ext_evidence") > 0 {
        lines.push(format!("  history   {} restored", output::plural(out.rows_of("ext_evidence"), "knowledge change")));
    }
    if out.rows_of("ext_checked_answers") > 0 {
        lines.push(format!(
            "  checks    {} restored",
            output::plural(out.rows_of("ext_checked_answers"), "checked answer")
        ));
    }
    if out.practice_files > 0 {
        lines.push(format!("  practice  {} added", output::plural(out.practice_files, "file")));
    }
    for (from, to) in &out.renamed {
        lines.push(format!("  renamed   {from} → {to} (topics are lower case, words joined by _)"));
    }
    if out.duplicate_topics > 0 {
        lines.push(format!(
            "  skipped   {} listed twice under one name (the first was restored)",
            output::plural(out.duplicate_topics, "topic")
        ));
    }
    if out.newer_kept > 0 {
        lines.push(format!(
            "  kept      {} changed here after the backup was taken",
            output::plural(out.newer_kept, "topic")
        ));
    }
    if let Some(kept) = &out.previous_notebook {
        lines.push(format!("Your previous notebook was kept as {}.", kept.display()));
    }
    Ok(output::print(&lines.join("\n"))?)
}

/// How a file the user named may be written: a new one always, an existing file with `--force`
/// or a yes at the terminal, anything else (a link, a device, a folder) never.
pub(crate) fn overwrite(file: &Path, force: bool) -> anyhow::Result<Overwrite> {
    Ok(match devcoach_files::check_target(file)? {
        Target::Absent => Overwrite::Never,
        Target::File if force => Overwrite::Replace,
        Target::File => match output::confirm(&format!("{} already exists. Replace it?", file.display()))? {
            Some(true) => Overwrite::Replace,
            Some(false) => return Err(invalid(format!("kept {}; nothing was written", file.display()))),
            None => {
                return Err(invalid(format!(
                    "{} already exists; nothing was written — pass --force to replace it, or pick another name",
                    file.display()
                )));
            }
        },
    })
}
