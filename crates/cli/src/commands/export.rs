//! `export`: the learner's record for other tools (docs/exports.md).

use std::io::Write as _;
use std::path::Path;

use devcoach_core::export;

use crate::cli::ExportFormat;
use crate::context::Ctx;
use crate::output::{self, Style};

pub fn run(ctx: &Ctx, format: ExportFormat, file: Option<&Path>, force: bool) -> anyhow::Result<()> {
    // Refuse a bad target before reading anything.
    let overwrite = file.map(|f| super::backup::overwrite(f, force)).transpose()?;
    let mut store = ctx.open_existing()?;
    let (text, what) = match format {
        ExportFormat::Anki => {
            let cards = match &mut store {
                Some(s) => {
                    // Lessons without a card get theirs first (a read-only database keeps what it has).
                    if s.compat().is_none() {
                        s.ensure_review_cards(ctx.now)?;
                    }
                    s.all_review_cards()?
                }
                None => Vec::new(),
            };
            (export::anki(&cards), output::plural(cards.len(), "card"))
        }
        ExportFormat::FsrsLog => {
            let reviews = match &store {
                Some(s) => s.review_events().unwrap_or_default(),
                None => Vec::new(),
            };
            let n = reviews.len();
            (export::fsrs_log(&reviews), output::plural(n, "review"))
        }
        ExportFormat::Xapi => {
            let (record, learner) = match &store {
                Some(s) => (
                    s.learning_record().unwrap_or_default(),
                    s.settings()?.share_name.filter(|n| !n.is_empty()).unwrap_or_else(|| "learner".to_owned()),
                ),
                None => (export::Record::default(), "learner".to_owned()),
            };
            let statements = export::xapi(&record, &learner);
            let n = statements.len();
            let mut text = serde_json::to_string_pretty(&statements)?;
            text.push('\n');
            (text, output::plural(n, "statement"))
        }
    };
    match (file, overwrite) {
        (Some(file), Some(overwrite)) => {
            devcoach_files::write(file, text.as_bytes(), overwrite)?;
            let hint = if format == ExportFormat::Anki { " (in Anki: File > Import)" } else { "" };
            output::print(&format!("{} Wrote {what} to {}{hint}.", ctx.term.out(Style::Green, "✓"), file.display()))?;
        }
        _ => output::write_stdout(|out| out.write_all(text.as_bytes()))?,
    }
    if let Some(s) = &store {
        ctx.read_only_notice(s);
    }
    Ok(())
}
