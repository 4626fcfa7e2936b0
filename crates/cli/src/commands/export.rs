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
        ExportFormat::Xapi => return xapi(ctx, store.as_ref(), file.zip(overwrite)),
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

/// The events of an xAPI export, as the store hands them over.
type Events<'a> = dyn Iterator<Item = devcoach_store::Result<export::Event>> + 'a;

/// The xAPI export, written as each statement is made: a long record is never held as JSON
/// whole (`target`: the file and whether it may be replaced; none: stdout).
fn xapi(
    ctx: &Ctx,
    store: Option<&devcoach_store::Store>,
    target: Option<(&Path, devcoach_files::Overwrite)>,
) -> anyhow::Result<()> {
    // Written as each statement is made, from lessons read one at a time: a long record is
    // never held, as JSON or as rows.
    let learner = match store {
        Some(s) => s.settings()?.share_name.filter(|n| !n.is_empty()).unwrap_or_else(|| "learner".to_owned()),
        None => "learner".to_owned(),
    };
    let actor = export::xapi_actor(&learner);
    let write = |events: &mut Events<'_>, emit: &mut dyn FnMut(&str) -> std::io::Result<()>| {
        let statements = events.map(|e| e.map(|e| export::xapi_statement(&actor, &e)).map_err(std::io::Error::other));
        export::xapi_pretty(statements, emit)
    };
    // A database that fails part way is an error, and what was written stops unclosed (a file is
    // then not kept).
    let events = |f: &mut dyn FnMut(&mut Events<'_>) -> std::io::Result<usize>| match store {
        Some(s) => s.xapi_events(|events| f(events)).map_err(std::io::Error::other).and_then(|written| written),
        None => f(&mut std::iter::empty()),
    };
    match target {
        Some((file, overwrite)) => {
            let mut out = std::io::BufWriter::new(devcoach_files::AtomicFile::create(file, overwrite)?);
            let n = events(&mut |all| write(all, &mut |piece| out.write_all(piece.as_bytes())))
                .and_then(|n| out.flush().map(|()| n))
                .map_err(|e| anyhow::anyhow!("writing {} failed: {e}", file.display()))?;
            let atomic = out.into_inner().map_err(|e| anyhow::anyhow!("writing {} failed: {e}", file.display()))?;
            atomic.commit()?;
            let what = output::plural(n, "statement");
            output::print(&format!("{} Wrote {what} to {}.", ctx.term.out(Style::Green, "✓"), file.display()))?;
        }
        None => output::write_stdout(|out| {
            events(&mut |all| write(all, &mut |piece| out.write_all(piece.as_bytes()))).map(|_| ())
        })?,
    }
    if let Some(s) = store {
        ctx.read_only_notice(s);
    }
    Ok(())
}
