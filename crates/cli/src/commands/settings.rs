//! `settings` and `set`.

use std::borrow::Cow;

use devcoach_core::settings::{SettingUpdate, Settings};

use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::Style;
use crate::output::table::{Column, Table};

pub fn gap_label(minutes: i64) -> String {
    format!("{minutes} ({}h {}m)", minutes.div_euclid(60), minutes.rem_euclid(60))
}

fn rows(s: &Settings) -> Vec<(&'static str, String, &'static str)> {
    vec![
        ("max_per_day", s.max_per_day.to_string(), "lessons in any 24 hours"),
        ("min_gap_minutes", gap_label(s.min_gap_minutes), "minimum time between lessons"),
        (
            "nudge_every",
            if s.nudge_every == 0 { "0 (every stop)".into() } else { s.nudge_every.to_string() },
            "agent stops between lesson cues",
        ),
        ("nudge_scope", s.nudge_scope.as_str().into(), "count stops per session or globally"),
        ("share_name", s.share_name.clone().unwrap_or_else(|| "(not set)".into()), "sender name on shared lessons"),
        ("ui_theme", s.ui_theme.as_str().into(), "dashboard theme"),
        ("ui_home", s.ui_home.as_str().into(), "dashboard start page"),
    ]
}

pub fn show(ctx: &Ctx, json: bool) -> anyhow::Result<()> {
    let store = ctx.open_existing()?;
    let settings = match &store {
        Some(s) => s.settings()?,
        None => Settings::default(),
    };
    if json {
        crate::output::json(&settings)?;
    } else {
        type Row = (&'static str, String, &'static str);
        let table = Table::new(vec![
            Column::new("Setting", |r: &Row| Cow::Borrowed(r.0)).fixed(Style::Cyan),
            Column::new("Value", |r: &Row| Cow::Borrowed(r.1.as_str())),
            Column::new("Meaning", |r: &Row| Cow::Borrowed(r.2)).fixed(Style::Dim),
        ])
        .title("Settings");
        let hint = ctx.term.out(Style::Dim, "Change one with `devcoach set <setting> <value>`.");
        crate::output::print(&format!("{}{hint}", table.to_string(&rows(&settings), ctx.term.color_out)))?;
    }
    if let Some(s) = &store {
        ctx.read_only_notice(s);
    }
    Ok(())
}

pub fn set(ctx: &Ctx, key: &str, value: &str) -> anyhow::Result<()> {
    let update = SettingUpdate::for_agent(key, value).map_err(|e| invalid(e.to_string()))?;
    ctx.open()?.apply_setting(&update)?;
    let shown = if update.stored.is_empty() { "(cleared)".to_owned() } else { update.stored.clone() };
    Ok(crate::output::print(&format!("Set {} = {shown}", update.key))?)
}
