//! `backup` and `restore`.

use std::io::Read;
use std::path::Path;

use devcoach_store::MAX_BACKUP_BYTES;

use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::{self, Style};

pub fn backup(ctx: &Ctx, file: &Path) -> anyhow::Result<()> {
    let store = ctx.open()?;
    let (bytes, summary) = store.backup_zip()?;
    let tmp = file.with_extension("zip.tmp");
    std::fs::write(&tmp, &bytes).map_err(|e| invalid(format!("cannot write {}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, file).map_err(|e| invalid(format!("cannot write {}: {e}", file.display())))?;
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

pub(super) fn restore(ctx: &Ctx, file: &Path) -> anyhow::Result<()> {
    let f = std::fs::File::open(file).map_err(|e| invalid(format!("cannot open {}: {e}", file.display())))?;
    let mut bytes = Vec::new();
    f.take(MAX_BACKUP_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| invalid(format!("cannot read {}: {e}", file.display())))?;
    if bytes.len() as u64 > MAX_BACKUP_BYTES {
        return Err(invalid(format!("{} is larger than any devcoach backup can be", file.display())));
    }
    let out = ctx.open()?.restore_zip(&bytes, ctx.now)?;
    let mut lines = vec![format!("{} Restored from {}:", ctx.term.out(Style::Green, "✓"), file.display())];
    lines.push(format!("  lessons   {} added, {} already there, {} invalid", out.lessons, out.skipped, out.invalid));
    lines.push(format!("  knowledge {} topics, {} new groups", out.topics, out.groups));
    lines.push(format!("  settings  {}", if out.settings > 0 { "restored" } else { "not in the backup" }));
    lines.push(format!("  notebook  {}", if out.learning_state > 0 { "restored" } else { "not in the backup" }));
    if out.courses > 0 {
        lines.push(format!("  courses   {} added", out.courses));
    }
    Ok(output::print(&lines.join("\n"))?)
}
