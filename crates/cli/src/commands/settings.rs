//! `settings` and `set`.

use std::borrow::Cow;

use devcoach_core::settings::{SettingError, SettingKey, SettingUpdate, Settings};
use devcoach_core::share::text;

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
    let link_base = match &store {
        Some(s) => s.share_link_base()?,
        None => text::DEFAULT_LINK_BASE.to_owned(),
    };
    // Our table may be absent from a database only the TypeScript build has written: off.
    let work_insights = store.as_ref().is_some_and(|s| s.work_insights().unwrap_or(false));
    if json {
        // The original's settings, then ours.
        let mut value = serde_json::to_value(&settings)?;
        value[LINK_BASE] = serde_json::Value::String(link_base);
        value[WORK_INSIGHTS] = serde_json::Value::Bool(work_insights);
        crate::output::json(&value)?;
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
        let mut rows = rows(&settings);
        // The default is long and documented (README, `settings --json`): named, not spelled out.
        let shown = if link_base == text::DEFAULT_LINK_BASE { "(default)".to_owned() } else { link_base };
        rows.push((LINK_BASE, shown, "the page share links open"));
        rows.push((
            WORK_INSIGHTS,
            if work_insights { "on".into() } else { "off".into() },
            "read transcripts for how you work (opt-in)",
        ));
        crate::output::print(&format!("{}{hint}", table.for_term(&rows, ctx.term)))?;
    }
    if let Some(s) = &store {
        ctx.read_only_notice(s);
    }
    Ok(())
}

/// Ours (kept beside the original's settings): where share links point.
const LINK_BASE: &str = "share_link_base";
/// Ours: whether devcoach reads the agents' transcripts for how you work with them (opt-in).
const WORK_INSIGHTS: &str = "work_insights";

pub fn set(ctx: &Ctx, key: &str, value: &str) -> anyhow::Result<()> {
    if key == WORK_INSIGHTS {
        let on = devcoach_core::settings::parse_on_off(value).map_err(|e| UserError::Usage(e.to_string()))?;
        ctx.open()?.set_work_insights(on)?;
        let what = if on {
            "on: at the end of each agent turn devcoach reads that session's transcript on this machine and keeps only \
             counts and a pattern label, never your words (the progress page shows them; `devcoach set work_insights \
             off` stops it)"
        } else {
            "off: transcripts are not opened"
        };
        return Ok(crate::output::print(&crate::output::wrap(
            &format!("Set {WORK_INSIGHTS} = {what}"),
            ctx.term.width,
        ))?);
    }
    if key == LINK_BASE {
        let base = text::parse_link_base(value).map_err(|e| UserError::Usage(e.to_string()))?;
        ctx.open()?.set_share_link_base(base.as_deref())?;
        let shown = base.unwrap_or_else(|| format!("{} (the default)", text::DEFAULT_LINK_BASE));
        return Ok(crate::output::print(&format!("Set {LINK_BASE} = {shown}"))?);
    }
    let names = || format!("{}, {LINK_BASE}, {WORK_INSIGHTS}", SettingKey::ALL.map(SettingKey::as_str).join(", "));
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
