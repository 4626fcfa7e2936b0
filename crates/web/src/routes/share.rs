//! Sharing a lesson from the dashboard: the share page, and the text, link or file it makes.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use devcoach_core::settings::{SettingKey, SettingUpdate};
use devcoach_core::share::payload::{SharedBy, SharedLesson};
use devcoach_core::share::{file, text};
use devcoach_core::time::lesson_stamp;

use super::{Fields, attachment};
use crate::error::{WebError, WebResult};
use crate::pool;
use crate::state::SharedState;

/// git's `user.name`, asked in the lesson's folder when it still exists (a repository may set
/// its own), else where the dashboard runs.
pub(crate) fn default_sender(lesson: &devcoach_core::Lesson) -> Option<String> {
    let here = lesson
        .context
        .git
        .folder
        .as_deref()
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_dir())
        .or_else(|| std::env::current_dir().ok())?;
    devcoach_probe::git_user_name(&here)
}

/// What a share request asks for.
struct ShareRequest {
    name: Option<String>,
    include_context: bool,
    persist: bool,
    format: String,
}

impl ShareRequest {
    fn from_pairs(get: impl Fn(&str) -> Option<String>) -> Self {
        Self {
            name: get("name"),
            include_context: get("include_context").is_some_and(|v| v == "1" || v == "on" || v == "true"),
            persist: get("persist").is_some_and(|v| v == "1"),
            format: get("format").unwrap_or_default(),
        }
    }
}

pub(crate) async fn share_get(
    State(state): State<SharedState>,
    headers: axum::http::HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> WebResult {
    // A lesson's text is for our own pages only, as in the original.
    if crate::guard::is_cross_site_at(&headers, state.port) {
        return Err(WebError::Forbidden);
    }
    // A GET never writes: `persist` counts only on the form's POST.
    let req = ShareRequest { persist: false, ..ShareRequest::from_pairs(|k| q.get(k).cloned()) };
    share(state, id, req).await
}

pub(crate) async fn share_post(State(state): State<SharedState>, Path(id): Path<String>, form: Fields) -> WebResult {
    share(state, id, ShareRequest::from_pairs(|k| form.get(k).map(str::to_owned))).await
}

async fn share(state: SharedState, id: String, req: ShareRequest) -> WebResult {
    let now = state.now();
    let persist_name = req.name.clone().filter(|n| req.persist && !n.trim().is_empty());
    let build = move |s: &devcoach_store::Store| -> Result<Option<(SharedLesson, String)>, WebError> {
        let Some(lesson) = s.lesson(&id)? else { return Ok(None) };
        let setting = s.settings()?.share_name;
        let by = match req.name.as_deref().map(str::trim) {
            Some("") => SharedBy::Anonymous,
            Some(name) => SharedBy::Named(name.to_owned()),
            None => SharedBy::Default,
        };
        // As the CLI and MCP do: with no name given or saved, git's user.name.
        let git_user = if by == SharedBy::Default && setting.is_none() { default_sender(&lesson) } else { None };
        let shared_by = by.resolve(setting.as_deref(), git_user.as_deref());
        let payload = SharedLesson::from_lesson(
            &lesson,
            req.include_context,
            shared_by,
            lesson_stamp(now),
            devcoach_core::APP_VERSION,
        );
        Ok(Some((payload, s.share_link_base()?)))
    };
    let payload = match persist_name {
        Some(name) => {
            pool::write(&state, move |s| {
                s.apply_setting(&SettingUpdate::new(SettingKey::ShareName, &name)?)?;
                build(s)
            })
            .await?
        }
        None => pool::read(&state, build).await?.flatten(),
    }
    .ok_or(WebError::NotFoundText("Lesson not found"))?;
    let (payload, link_base) = payload;
    let (share_text, code) = text::share_text(&payload);
    let plain = |body: String| {
        ([(header::CONTENT_TYPE, "text/plain; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], body)
            .into_response()
    };
    Ok(match req.format.as_str() {
        "text" => plain(share_text),
        "link" => plain(text::link_at(&link_base, &code)),
        "md" => attachment("text/markdown; charset=utf-8", &file::file_name(&payload), file::render_file(&payload)),
        _ => {
            // The data the page's copy buttons read.
            let esc =
                |s: &str| s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;");
            let fragment = format!(
                "<div id=\"share-payloads\" data-text=\"{}\" data-link=\"{}\" data-file-name=\"{}\"></div>",
                esc(&share_text),
                esc(&text::link_at(&link_base, &code)),
                esc(&file::file_name(&payload))
            );
            axum::response::Html(fragment).into_response()
        }
    })
}
