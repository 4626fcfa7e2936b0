//! The 33 routes of the original dashboard, plus the progress page and the share landing page.

mod courses;
mod knowledge;
pub(crate) mod lessons;
mod progress;
mod reviews;
mod settings;
mod share;
mod system;
mod transfer;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use devcoach_core::limits;

use crate::error::WebError;
use crate::guard;
use crate::state::SharedState;

pub(crate) fn router(state: SharedState) -> Router {
    Router::new()
        .route("/static/{*path}", get(crate::assets::serve))
        .route("/favicon.ico", get(crate::assets::favicon))
        .route("/ping", get(system::ping).options(system::ping_preflight))
        .route("/shutdown", post(system::shutdown).get(system::shutdown_get))
        .route("/", get(system::home))
        .route("/lesson", get(system::lesson_page))
        .route("/knowledge", get(knowledge::page).post(knowledge::upsert))
        .route("/knowledge/{topic}/delete", post(knowledge::remove))
        .route("/knowledge/{topic}/group", post(knowledge::assign))
        .route("/knowledge/{topic}", post(knowledge::delta))
        .route("/groups", post(knowledge::add_group))
        .route("/groups/{name}/delete", post(knowledge::remove_group))
        .route("/lessons/export", get(transfer::export))
        .route(
            "/lessons/import",
            get(transfer::preview).post(transfer::import).layer(DefaultBodyLimit::max(limits::UPLOAD_BYTES)),
        )
        .route("/lessons", get(lessons::list))
        .route("/lessons/delete", post(lessons::delete))
        .route("/lessons/undo-delete", post(lessons::undo_delete))
        .route("/lessons/{id}/star", post(lessons::star))
        .route("/lessons/{id}/feedback", post(lessons::feedback))
        .route("/lessons/{id}/share", get(share::share_get).post(share::share_post))
        .route("/lessons/{id}", get(lessons::detail))
        .route("/courses", get(courses::list))
        .route("/courses/delete", post(courses::delete))
        .route("/courses/{id}/index.html", get(courses::document))
        .route("/courses/{id}/steps/{position}", post(courses::step))
        .route("/courses/{id}", get(courses::page))
        .route("/progress", get(progress::page))
        .route("/reviews", get(reviews::page))
        .route("/reviews/settings", post(reviews::settings))
        .route("/reviews/{id}/grade", post(reviews::grade))
        .route("/settings/export", get(settings::export))
        .route("/settings/import", post(settings::import).layer(DefaultBodyLimit::max(limits::UPLOAD_BYTES)))
        .route("/settings/notebook/download", get(settings::notebook_download))
        .route("/settings/notebook", post(settings::notebook_save))
        .route("/settings/sync", post(settings::sync_now))
        .route("/settings", get(settings::page).post(settings::save))
        // An unknown address gets the same page as an unknown lesson, with the nav to go on.
        .fallback(|| async { crate::error::WebError::NotFound("Page not found") })
        // In front of every route and the fallback: Host, cross-site writes, headers.
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard::layer))
        .with_state(state)
}

/// The answer to a form: 303 to `next` (a local path) or the fallback.
fn see_other(next: Option<&str>, fallback: &str) -> Response {
    Redirect::to(guard::local_next(next, fallback)).into_response()
}

/// A download.
fn attachment(content_type: &'static str, file_name: &str, body: impl Into<axum::body::Body>) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type.to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}\"", file_name.replace(['"', '\\', '\r', '\n'], "_")),
            ),
            (header::CACHE_CONTROL, "no-store".to_owned()),
        ],
        body.into(),
    )
        .into_response()
}

/// Renders a template into a page response.
fn html(page: &impl askama::Template) -> Result<Response, WebError> {
    Ok(axum::response::Html(render(page)?).into_response())
}

fn render(page: &impl askama::Template) -> Result<String, WebError> {
    page.render().map_err(|e| WebError::Internal(format!("page rendering failed: {e}")))
}

/// A page the cache kept.
fn kept_html(page: &std::sync::Arc<String>) -> Response {
    axum::response::Html(page.as_str().to_owned()).into_response()
}

/// A form's fields, keeping repeated names (`id=a&id=b`).
pub(crate) struct Fields(Vec<(String, String)>);

impl Fields {
    fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    fn all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.0.iter().filter(move |(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

impl<S: Send + Sync> axum::extract::FromRequest<S> for Fields {
    type Rejection = Response;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, Self::Rejection> {
        let axum::Form(pairs) =
            axum::Form::<Vec<(String, String)>>::from_request(req, state).await.map_err(IntoResponse::into_response)?;
        Ok(Self(pairs))
    }
}
