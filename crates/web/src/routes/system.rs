//! `/ping`, `/shutdown`, `/` and the share landing page.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use devcoach_core::settings::UiHome;
use serde_json::json;

use crate::assets::LESSON_PAGE;
use crate::error::WebResult;
use crate::pool;
use crate::state::SharedState;

/// The pages that decode share links: the only origins allowed to ask whether a dashboard is
/// running here. This project's page, the TypeScript devcoach's (its links still open here),
/// and the page `share_link_base` names.
fn share_page_origins(configured: Option<&str>) -> Vec<String> {
    use devcoach_core::share::text::{DEFAULT_LINK_BASE, ORIGINAL_LINK_BASE, origin_of};
    [Some(DEFAULT_LINK_BASE), Some(ORIGINAL_LINK_BASE), configured]
        .into_iter()
        .flatten()
        .filter_map(origin_of)
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The CORS answer to a share page: the asking origin when it is one of those pages (one origin
/// per answer, as CORS wants), else none, so no other site can read it.
fn ping_headers(headers: &axum::http::HeaderMap, configured: Option<&str>) -> axum::http::HeaderMap {
    let mut out = axum::http::HeaderMap::new();
    let origin = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()).map(str::to_ascii_lowercase);
    if let Some(origin) = origin.filter(|o| share_page_origins(configured).contains(o))
        && let Ok(value) = header::HeaderValue::from_str(&origin)
    {
        out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
    }
    out.insert(header::ACCESS_CONTROL_ALLOW_METHODS, header::HeaderValue::from_static("GET, OPTIONS"));
    out.insert(
        header::HeaderName::from_static("access-control-allow-private-network"),
        header::HeaderValue::from_static("true"),
    );
    out.insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
    out.insert(header::VARY, header::HeaderValue::from_static("Origin"));
    out
}

/// The page `share_link_base` names, when the database says (a missing one is the default).
async fn configured_base(state: &SharedState) -> Option<String> {
    pool::read(state, |s| Ok(s.share_link_base()?)).await.ok().flatten()
}

pub(crate) async fn ping(State(state): State<SharedState>, headers: axum::http::HeaderMap) -> WebResult {
    let base = configured_base(&state).await;
    let compat = pool::read(&state, |s| {
        Ok(s.compat().map(|c| {
            json!({
                "readOnly": true,
                "dbSchema": c.db_schema,
                "appSchema": c.app_schema,
                "upgradedBy": c.upgraded_by,
                "minApp": c.min_app,
                "message": c.to_string(),
            })
        }))
    })
    .await?
    .flatten();
    // `dataDir` names the folder without revealing its path: `ui` compares it with its own.
    let body = json!({ "ok": true, "version": state.version, "compat": compat, "dataDir": state.dir.fingerprint() });
    Ok((ping_headers(&headers, base.as_deref()), axum::Json(body)).into_response())
}

pub(crate) async fn ping_preflight(State(state): State<SharedState>, headers: axum::http::HeaderMap) -> Response {
    let base = configured_base(&state).await;
    (StatusCode::NO_CONTENT, ping_headers(&headers, base.as_deref())).into_response()
}

pub(crate) async fn shutdown(State(state): State<SharedState>) -> WebResult {
    let switch = state.shutdown.clone();
    tokio::spawn(async move {
        // Let this answer reach the caller first.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        switch.trigger();
    });
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

pub(crate) async fn shutdown_get() -> Response {
    (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "POST")], "Method Not Allowed").into_response()
}

pub(crate) async fn home(State(state): State<SharedState>) -> WebResult {
    let target = pool::read(&state, |s| {
        Ok(match s.settings()?.ui_home {
            UiHome::Lessons => "/lessons",
            UiHome::Knowledge => "/knowledge",
            UiHome::Auto => {
                if s.total_lessons()? > 0 {
                    "/lessons"
                } else {
                    "/knowledge"
                }
            }
        })
    })
    .await?
    .unwrap_or("/knowledge");
    Ok((StatusCode::FOUND, [(header::LOCATION, target)]).into_response())
}

pub(crate) async fn lesson_page() -> Response {
    (
        [(header::CACHE_CONTROL, "no-cache"), (header::HeaderName::from_static("referrer-policy"), "no-referrer")],
        Html(LESSON_PAGE),
    )
        .into_response()
}
