//! Settings, backup and restore, the coaching notebook.

use std::collections::HashMap;

use askama::Template;
use axum::extract::{Multipart, Query, State};
use axum::response::{IntoResponse, Redirect};
use devcoach_core::settings::{SettingKey, SettingUpdate, Settings};

use super::{Fields, attachment, html, see_other};
use crate::error::{WebError, WebResult};
use crate::pool;
use crate::state::SharedState;
use crate::views::Chrome;

#[derive(Template)]
#[template(path = "settings.html")]
struct Page {
    c: Chrome,
    s: Settings,
    scope: &'static str,
    theme: &'static str,
    home: &'static str,
    share_name: String,
    /// The page share links open, empty when it is the default (shown as the placeholder).
    link_base: String,
    default_link_base: &'static str,
    notebook: String,
    flashes: Vec<(&'static str, String)>,
    sync: Option<SyncView>,
}

/// Where sync stands, as the settings page shows it.
struct SyncView {
    how: String,
    device: String,
    last: String,
    every: String,
    devices: Vec<(String, String)>,
    pending: usize,
    error: Option<String>,
    problems: Vec<String>,
}

fn sync_view(store: &devcoach_store::Store, dir: &devcoach_store::DataDir) -> Option<SyncView> {
    let config = devcoach_sync::config(store).ok()??;
    let status = devcoach_sync::status(store, dir);
    let how =
        format!("{}{}", config.transport.describe(), if config.encrypted { ", end-to-end encrypted" } else { "" });
    let last = config.last_sync.map_or_else(|| "never".to_owned(), |at| at.format("%Y-%m-%d %H:%M UTC").to_string());
    let every = if config.every_minutes == 0 {
        "only when asked".to_owned()
    } else {
        format!("at most every {} min while you use devcoach", config.every_minutes)
    };
    let (devices, pending, mut problems) = match status {
        Ok(st) => (
            st.devices.iter().map(|d| (d.label(), d.state())).collect(),
            st.pending.unwrap_or(0),
            st.problems.iter().map(|p| format!("{} {}", p.path.display(), p.what)).collect(),
        ),
        Err(e) => (Vec::new(), 0, vec![e.to_string()]),
    };
    problems.truncate(5);
    Some(SyncView {
        how,
        device: format!("{} ({})", config.name, config.device),
        last,
        every,
        devices,
        pending,
        error: config.last_error,
        problems,
    })
}

fn plural(n: &str, one: &str, many: &str) -> String {
    if n == "1" { format!("1 {one}") } else { format!("{n} {many}") }
}

fn is_count(text: &str) -> bool {
    !text.is_empty() && text.len() <= 12 && text.bytes().all(|b| b.is_ascii_digit())
}

/// The name restore gives the notebook it replaced (`learning-state.<time>.md`).
fn is_kept_notebook(name: &str) -> bool {
    name.len() <= 80
        && name.strip_prefix("learning-state.").and_then(|r| r.strip_suffix(".md")).is_some_and(|stamp| {
            !stamp.is_empty() && stamp.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_:.".contains(&b))
        })
}

/// What a setting the form could not save takes, in our words (the form's value is not echoed).
fn setting_rule(name: &str) -> Option<String> {
    if name == "share_link_base" {
        return devcoach_core::share::text::parse_link_base("\u{0}").err().map(|e| e.to_string());
    }
    let key = SettingKey::parse(name)?;
    // A value every rule refuses: its error states the rule.
    ["-999999999", &"x".repeat(10_000), "\u{0}"]
        .iter()
        .find_map(|probe| SettingUpdate::new(key, probe).err().filter(|e| !e.to_string().contains("got '")))
        .map(|e| e.to_string())
}

fn flashes(q: &HashMap<String, String>) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(imported) = q.get("imported").filter(|n| is_count(n)) {
        let zero = String::from("0");
        let skipped = q.get("skipped").filter(|n| is_count(n)).unwrap_or(&zero);
        let invalid = q.get("invalid").filter(|n| is_count(n)).unwrap_or(&zero);
        let mut text = format!("Imported {}", plural(imported, "lesson", "lessons"));
        if skipped != "0" {
            text.push_str(&format!(", {skipped} already there"));
        }
        if let Some(groups) = q.get("groups").filter(|g| *g != "0" && is_count(g)) {
            text.push_str(&format!(", {}", plural(groups, "new group", "new groups")));
        }
        if let Some(reviews) = q.get("reviews").filter(|r| *r != "0" && is_count(r)) {
            text.push_str(&format!(", {}", plural(reviews, "review", "reviews")));
        }
        if q.get("notebook").is_some_and(|n| n == "1") {
            text.push_str(", and the coaching notebook");
        }
        text.push('.');
        out.push(("ok", text));
        if let Some(newer) = q.get("newer").filter(|n| *n != "0" && is_count(n)) {
            out.push((
                "ok",
                format!(
                    "{} changed here after the backup was taken kept the value set here.",
                    plural(newer, "topic", "topics")
                ),
            ));
        }
        if let Some(kept) = q.get("kept").filter(|k| is_kept_notebook(k)) {
            out.push(("ok", format!("Your previous notebook was kept as {kept} in the devcoach folder.")));
        }
        if invalid != "0" {
            out.push(("error", format!("{} could not be read.", plural(invalid, "entry", "entries"))));
        }
    }
    // Counts only: a link to this page with words in it shows nothing.
    if let Some(sent) = q.get("synced").filter(|n| is_count(n)) {
        let zero = String::from("0");
        let received = q.get("received").filter(|n| is_count(n)).unwrap_or(&zero);
        out.push((
            "ok",
            format!(
                "Synced: sent {}, received {}.",
                plural(sent, "change", "changes"),
                plural(received, "change", "changes")
            ),
        ));
    }
    if q.get("sync_failed").is_some() {
        out.push(("error", "The sync failed; the reason is shown under Sync below. Nothing was lost.".into()));
    }
    if q.get("notebook_saved").is_some() {
        out.push(("ok", "Notebook saved.".into()));
    }
    if q.get("saved").is_some() {
        out.push(("ok", "Settings saved.".into()));
    }
    // Setting names only; the reason is ours, never words from the link.
    if let Some(names) = q.get("invalid_setting") {
        let why: Vec<String> = names.split(',').filter_map(setting_rule).collect();
        if !why.is_empty() {
            out.push(("error", format!("Not saved: {}", why.join("; "))));
        }
    }
    if q.get("error").is_some_and(|e| e == "cross") {
        out.push(("error", "That came from another site and was refused.".into()));
    }
    if q.get("error").is_some_and(|e| e == "backup") {
        out.push(("error", "That file is not a devcoach backup (or is damaged); nothing was changed.".into()));
    }
    out
}

pub(crate) async fn page(State(state): State<SharedState>, Query(q): Query<HashMap<String, String>>) -> WebResult {
    let dir = state.dir.clone();
    let sync_dir = dir.clone();
    let loaded = pool::read(&state, move |s| {
        Ok((Chrome::new(Some(s), "settings"), s.settings()?, s.share_link_base()?, sync_view(s, &sync_dir)))
    })
    .await?;
    let default_link_base = devcoach_core::share::text::DEFAULT_LINK_BASE;
    let (c, s, base, sync) =
        loaded.unwrap_or_else(|| (Chrome::new(None, "settings"), Settings::default(), String::new(), None));
    let link_base = if base == default_link_base { String::new() } else { base };
    let notebook = tokio::task::spawn_blocking(move || dir.read_notebook().unwrap_or_default())
        .await
        .map_err(|e| WebError::Internal(e.to_string()))?;
    let page = Page {
        scope: s.nudge_scope.as_str(),
        theme: s.ui_theme.as_str(),
        home: s.ui_home.as_str(),
        share_name: s.share_name.clone().unwrap_or_default(),
        link_base,
        default_link_base,
        notebook,
        flashes: flashes(&q),
        c,
        s,
        sync,
    };
    html(&page)
}

/// "Sync now": one sync, as `devcoach sync` runs it, then back to the page with what it did.
pub(crate) async fn sync_now(State(state): State<SharedState>) -> WebResult {
    let dir = state.dir.clone();
    let now = state.now();
    let done = pool::write(&state, move |s| Ok(devcoach_sync::sync(s, &dir, now, &mut |_, _| {}))).await?;
    Ok(match done {
        Ok(report) => see_other(None, &format!("/settings?synced={}&received={}", report.logged, report.received)),
        Err(_) => see_other(None, "/settings?sync_failed=1"),
    })
}

pub(crate) async fn save(State(state): State<SharedState>, form: Fields) -> WebResult {
    let mut updates = Vec::new();
    let mut problems = Vec::new();
    for (key, name) in [
        (SettingKey::MaxPerDay, "max_per_day"),
        (SettingKey::MinGapMinutes, "min_gap_minutes"),
        (SettingKey::NudgeEvery, "nudge_every"),
        (SettingKey::NudgeScope, "nudge_scope"),
        (SettingKey::UiTheme, "ui_theme"),
        (SettingKey::UiHome, "ui_home"),
        (SettingKey::ShareName, "share_name"),
    ] {
        let Some(value) = form.get(name) else { continue };
        match SettingUpdate::new(key, value.trim()) {
            Ok(update) => updates.push(update),
            Err(_) => problems.push(name),
        }
    }
    // Ours, beside the original's settings: the page share links open.
    let link_base = match form.get("share_link_base").map(devcoach_core::share::text::parse_link_base) {
        Some(Ok(base)) => Some(base),
        Some(Err(_)) => {
            problems.push("share_link_base");
            None
        }
        None => None,
    };
    pool::write(&state, move |s| {
        for u in &updates {
            s.apply_setting(u)?;
        }
        if let Some(base) = &link_base {
            s.set_share_link_base(base.as_deref())?;
        }
        Ok(())
    })
    .await?;
    if problems.is_empty() {
        Ok(Redirect::to("/settings?saved=1").into_response())
    } else {
        Ok(Redirect::to(&format!("/settings?invalid_setting={}", problems.join(","))).into_response())
    }
}

pub(crate) async fn export(State(state): State<SharedState>) -> WebResult {
    // A read: with no database yet there is nothing to back up, and none is created.
    let zip = pool::read(&state, |s| Ok(s.backup_zip()?.0))
        .await?
        .ok_or(WebError::NotFoundText("No data yet, so there is nothing to back up."))?;
    Ok(attachment("application/zip", "devcoach-backup.zip", zip))
}

pub(crate) async fn import(State(state): State<SharedState>, mut form: Multipart) -> WebResult {
    // Kept as the one buffer the upload arrived in (no copy): with the upload limit and a
    // restore that streams, the dashboard's memory stays bounded.
    let mut bytes = axum::body::Bytes::new();
    while let Some(field) = form.next_field().await.map_err(|e| WebError::BadRequest(e.to_string()))? {
        if field.name() == Some("file") {
            bytes = field.bytes().await.map_err(|e| WebError::BadRequest(e.to_string()))?;
        }
    }
    let now = state.now();
    let outcome = pool::write(&state, move |s| match s.restore(std::io::Cursor::new(bytes), now) {
        Ok(o) => Ok(Some(o)),
        Err(devcoach_store::StoreError::Backup(_)) => Ok(None),
        Err(e) => Err(e.into()),
    })
    .await?;
    let Some(o) = outcome else { return Ok(Redirect::to("/settings?error=backup").into_response()) };
    let mut to = format!(
        "/settings?imported={}&skipped={}&invalid={}&groups={}&notebook={}&reviews={}",
        o.lessons,
        o.skipped,
        o.invalid,
        o.groups,
        u8::from(o.learning_state > 0),
        o.rows_of("ext_review_log")
    );
    if o.newer_kept > 0 {
        to.push_str(&format!("&newer={}", o.newer_kept));
    }
    if let Some(name) = o.previous_notebook.as_deref().and_then(std::path::Path::file_name) {
        to.push_str(&format!("&kept={}", crate::views::enc(&name.to_string_lossy())));
    }
    Ok(Redirect::to(&to).into_response())
}

pub(crate) async fn notebook_download(State(state): State<SharedState>) -> WebResult {
    let dir = state.dir.clone();
    let text = tokio::task::spawn_blocking(move || dir.read_notebook().unwrap_or_default())
        .await
        .map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(attachment("text/markdown; charset=utf-8", "devcoach-notebook.md", text))
}

pub(crate) async fn notebook_save(State(state): State<SharedState>, form: Fields) -> WebResult {
    // A form without the field is not "an empty notebook": nothing is replaced.
    let content = form
        .get("content")
        .ok_or_else(|| WebError::BadRequest("the notebook form sent no `content`; nothing was changed".into()))?
        .replace("\r\n", "\n");
    // Written like every other write: refused (503) while a newer devcoach owns the data.
    pool::write(&state, move |s| {
        if let Some(compat) = s.compat() {
            return Err(devcoach_store::StoreError::SchemaTooNew(compat.clone()).into());
        }
        Ok(s.data_dir().write_notebook(&content)?)
    })
    .await?;
    Ok(see_other(form.get("next"), "/settings?notebook_saved=1"))
}
