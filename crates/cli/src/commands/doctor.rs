//! `devcoach doctor`: read-only; always exits 0 (it reports problems, it does not have them).

use crate::agents::Places;
use crate::agents::doctor::{self, Inputs, Level};
use crate::agents::launch::Launch;
use crate::context::Ctx;
use crate::output::{self, Style};

pub fn run(ctx: &Ctx) -> anyhow::Result<()> {
    let places = Places::from_env()?;
    let launch = Launch::current()?;
    let sections = doctor::run(&Inputs { places: &places, launch: &launch, dir: &ctx.dir, now: ctx.now });
    let t = ctx.term;
    let mut out = String::new();
    let (mut warnings, mut problems) = (0, 0);
    for section in &sections {
        out.push_str(&t.out(Style::Bold, &section.title));
        out.push('\n');
        for f in &section.findings {
            let (glyph, style) = match f.level {
                Level::Ok => ("✓", Style::Green),
                Level::Info => ("•", Style::Dim),
                Level::Warn => {
                    warnings += 1;
                    ("!", Style::Yellow)
                }
                Level::Bad => {
                    problems += 1;
                    ("✗", Style::Red)
                }
            };
            out.push_str(&format!("  {} {}\n", t.out(style, glyph), f.text));
        }
        out.push('\n');
    }
    out.push_str(&match (problems, warnings) {
        (0, 0) => t.out(Style::Green, "All good."),
        (0, 1) => "1 warning above.".to_owned(),
        (0, w) => format!("{w} warnings above."),
        (p, w) => t.out(
            Style::Red,
            &format!(
                "{p} problem{} and {w} warning{} above.",
                if p == 1 { "" } else { "s" },
                if w == 1 { "" } else { "s" }
            ),
        ),
    });
    output::print(&out)?;
    Ok(())
}
