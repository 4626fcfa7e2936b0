//! Every static file the pages use, embedded at build time (the dashboard works offline and
//! ships as one binary). Served from `/static/<name>`; anything not listed is a 404, so no path
//! ever reaches the file system.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use devcoach_assets::STATIC_FILES as FILES;

/// The script injected into course documents (and nothing else).
pub(crate) use devcoach_assets::COURSE_FRAME_JS;

/// The share landing page (also published as a static page).
pub(crate) use devcoach_assets::LESSON_PAGE;

/// The dashboard's stylesheet (for tests that check the palette).
pub fn palette_css() -> &'static str {
    devcoach_assets::APP_CSS
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or_default() {
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

pub(crate) async fn serve(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(n, _)| *n == name) {
        Some((name, bytes)) => {
            ([(header::CONTENT_TYPE, content_type(name)), (header::CACHE_CONTROL, "no-cache")], *bytes).into_response()
        }
        None => (StatusCode::NOT_FOUND, "Not Found").into_response(),
    }
}

/// `/favicon.ico`, which browsers ask for on pages that name no icon (the share page when it is
/// opened from the dashboard): the same icon, so the console stays clean.
pub(crate) async fn favicon() -> Response {
    serve(Path("favicon.svg".to_owned())).await
}
