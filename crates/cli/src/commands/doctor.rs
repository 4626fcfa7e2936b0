//! `devcoach doctor`: read-only. Exits 1 when it finds a problem (warnings alone are 0), so a
//! script can run it as a check.

use crate::context::Ctx;
use crate::doctor::{self, Inputs, Level};
use crate::output::{self, Style};
use devcoach_agents::Places;
use devcoach_agents::launch::Launch;

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Ok => "ok",
        Level::Info => "info",
        Level::Warn => "warning",
        Level::Bad => "problem",
    }
}

pub fn run(ctx: &Ctx, json: bool) -> anyhow::Result<()> {
    let places = Places::from_env()?;
    let launch = Launch::current()?;
    let sections = doctor::run(&Inputs { places: &places, launch: &launch, dir: &ctx.dir, now: ctx.now });
    let count = |level| sections.iter().flat_map(|s| &s.findings).filter(|f| f.level == level).count();
    let (problems, warnings) = (count(Level::Bad), count(Level::Warn));
    if json {
        output::json(&serde_json::json!({
            "problems": problems,
            "warnings": warnings,
            "sections": sections.iter().map(|s| serde_json::json!({
                "title": s.title,
                "findings": s.findings.iter().map(|f| serde_json::json!({
                    "level": level_name(f.level), "text": f.text,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        }))?;
    } else {
        print_text(ctx, &sections, problems, warnings)?;
    }
    if problems > 0 { Err(crate::failure::rejected()) } else { Ok(()) }
}

fn print_text(ctx: &Ctx, sections: &[doctor::Section], problems: usize, warnings: usize) -> anyhow::Result<()> {
    let t = ctx.term;
    let mut out = String::new();
    for section in sections {
        out.push_str(&t.out(Style::Bold, &section.title));
        out.push('\n');
        for f in &section.findings {
            let (glyph, style) = match f.level {
                Level::Ok => ("✓", Style::Green),
                Level::Info => ("•", Style::Dim),
                Level::Warn => ("!", Style::Yellow),
                Level::Bad => ("✗", Style::Red),
            };
            out.push_str(&output::glyph_line(t, style, glyph, &f.text));
        }
        out.push('\n');
    }
    out.push_str(&match (problems, warnings) {
        (0, 0) => t.out(Style::Green, "All good."),
        (0, 1) => "1 warning above.".to_owned(),
        (0, w) => format!("{w} warnings above."),
        (p, w) => {
            t.out(Style::Red, &format!("{} and {} above.", output::plural(p, "problem"), output::plural(w, "warning")))
        }
    });
    output::print(&out)?;
    Ok(())
}
