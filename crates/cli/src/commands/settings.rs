//! `settings` and `set`.

use std::borrow::Cow;

use devcoach_core::settings::{SettingError, SettingKey, SettingUpdate, Settings};

use crate::context::Ctx;
use crate::failure::UserError;
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
            Column::new("Value", |r: &Row| Cow::Borrowed(r.1.as_str())).shrink(1, 8),
            Column::new("Meaning", |r: &Row| Cow::Borrowed(r.2)).fixed(Style::Dim).shrink(0, 12),
        ])
        .title("Settings");
        let hint = ctx
            .term
            .out(Style::Dim, &crate::output::wrap("Change one with `devcoach set <setting> <value>`.", ctx.term.width));
        crate::output::print(&format!("{}{hint}", table.for_term(&rows(&settings), ctx.term)))?;
    }
    if let Some(s) = &store {
        ctx.read_only_notice(s);
    }
    Ok(())
}

pub fn set(ctx: &Ctx, key: &str, value: &str) -> anyhow::Result<()> {
    let names = || SettingKey::ALL.map(SettingKey::as_str).join(", ");
    let k = SettingKey::parse(key)
        .ok_or_else(|| UserError::Usage(format!("unknown setting '{key}' — the settings are {}", names())))?;
    // The one validator the dashboard and MCP use; the CLI only words the integer case itself.
    let update = SettingUpdate::new(k, value).map_err(|e| {
        UserError::Usage(match (e, k.range()) {
            (SettingError::NotAnInteger(v), Some((min, max))) => {
                format!("{k} must be a whole number from {min} to {max}, got '{v}'")
            }
            (e, _) => e.to_string(),
        })
    })?;
    ctx.open()?.apply_setting(&update)?;
    let shown = if update.stored.is_empty() { "(cleared)".to_owned() } else { update.stored.clone() };
    Ok(crate::output::print(&format!("Set {} = {shown}", update.key))?)
}
