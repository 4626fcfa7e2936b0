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

/// The page that decodes share links (published by the project; the only origin allowed to ask
/// whether a dashboard is running here).
pub(crate) const SHARE_PAGE_ORIGIN: &str = "https://ultimaphoenix.github.io";

fn ping_headers() -> [(header::HeaderName, &'static str); 5] {
    [
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, SHARE_PAGE_ORIGIN),
        (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, OPTIONS"),
        (header::HeaderName::from_static("access-control-allow-private-network"), "true"),
        (header::CACHE_CONTROL, "no-store"),
        (header::VARY, "Origin"),
    ]
}

pub(crate) async fn ping(State(state): State<SharedState>) -> WebResult {
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
    Ok((ping_headers(), axum::Json(body)).into_response())
}

pub(crate) async fn ping_preflight() -> Response {
    (StatusCode::NO_CONTENT, ping_headers()).into_response()
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
