//! Failures as responses: a page for people, the status for tests and scripts.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use devcoach_store::{ErrorKind, Kinded, StoreError};

use crate::views;

#[derive(Debug, thiserror::Error)]
pub(crate) enum WebError {
    /// 404 with the page's heading (`Lesson not found`).
    #[error("{0}")]
    NotFound(&'static str),
    /// 404 as plain text (API-style routes).
    #[error("{0}")]
    NotFoundText(&'static str),
    #[error("{0}")]
    BadRequest(String),
    #[error("Forbidden")]
    Forbidden,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Setting(#[from] devcoach_core::settings::SettingError),
    #[error("{0}")]
    Internal(String),
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        match self {
            Self::NotFound(what) => (StatusCode::NOT_FOUND, Html(views::error_page(what, None))).into_response(),
            Self::NotFoundText(what) => (StatusCode::NOT_FOUND, what).into_response(),
            Self::BadRequest(why) => (StatusCode::BAD_REQUEST, why).into_response(),
            Self::Forbidden => (StatusCode::FORBIDDEN, "Forbidden").into_response(),
            Self::Store(StoreError::SchemaTooNew(compat)) => (
                StatusCode::SERVICE_UNAVAILABLE,
                Html(views::error_page("Read-only database", Some(&compat.to_string()))),
            )
                .into_response(),
            Self::Store(e) => match status_of(e.kind()) {
                // The words of a fault in the data or the machine stay in the server's hands.
                StatusCode::INTERNAL_SERVER_ERROR => {
                    (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response()
                }
                status => (status, e.to_string()).into_response(),
            },
            Self::Setting(e) => (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
            Self::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response(),
        }
    }
}

/// The status the dashboard answers a store error with (the real response's).
pub fn store_error_status(e: StoreError) -> StatusCode {
    WebError::Store(e).into_response().status()
}

/// The status a failure of each kind answers with.
pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::Usage | ErrorKind::InvalidInput => StatusCode::BAD_REQUEST,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::ReadOnly | ErrorKind::Busy => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Damaged | ErrorKind::Io => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

pub(crate) type WebResult<T = Response> = Result<T, WebError>;
