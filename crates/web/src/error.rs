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

impl Kinded for WebError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::NotFound(_) | Self::NotFoundText(_) => ErrorKind::NotFound,
            Self::BadRequest(_) => ErrorKind::InvalidInput,
            // A request from another site, or without the page's token: the call itself is wrong.
            Self::Forbidden => ErrorKind::Usage,
            Self::Store(e) => e.kind(),
            Self::Setting(e) => e.kind(),
            Self::Internal(_) => ErrorKind::Io,
        }
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        let status = status_of(self.kind());
        match self {
            Self::NotFound(what) => (status, Html(views::error_page(what, None))).into_response(),
            Self::NotFoundText(what) => (status, what).into_response(),
            Self::BadRequest(why) => (status, why).into_response(),
            // Refused before anything was read: 403, whatever the kind says of the cause.
            Self::Forbidden => (StatusCode::FORBIDDEN, "Forbidden").into_response(),
            Self::Store(StoreError::SchemaTooNew(compat)) => (
                StatusCode::SERVICE_UNAVAILABLE,
                Html(views::error_page("Read-only database", Some(&compat.to_string()))),
            )
                .into_response(),
            Self::Store(e) => match status {
                // The words of a fault in the data or the machine stay in the server's hands.
                StatusCode::INTERNAL_SERVER_ERROR => {
                    (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response()
                }
                status => (status, e.to_string()).into_response(),
            },
            Self::Setting(e) => (status, e.to_string()).into_response(),
            Self::Internal(_) => (status, "Internal Server Error").into_response(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Names every variant: a new one fails to build here until the test below holds it.
    fn sample(e: &WebError) -> &'static str {
        match e {
            WebError::NotFound(_) => "NotFound",
            WebError::NotFoundText(_) => "NotFoundText",
            WebError::BadRequest(_) => "BadRequest",
            WebError::Forbidden => "Forbidden",
            WebError::Store(_) => "Store",
            WebError::Setting(_) => "Setting",
            WebError::Internal(_) => "Internal",
        }
    }

    #[test]
    fn every_dashboard_error_answers_with_the_status_of_its_kind() {
        let all = [
            WebError::NotFound("Lesson not found"),
            WebError::NotFoundText("no such step"),
            WebError::BadRequest("the title is empty".into()),
            WebError::Forbidden,
            WebError::Store(StoreError::Changed),
            WebError::Store(StoreError::Busy),
            WebError::Setting(devcoach_core::settings::SettingError::BadScope),
            WebError::Internal("the page cache failed".into()),
        ];
        let names: std::collections::BTreeSet<_> = all.iter().map(sample).collect();
        assert_eq!(names.len(), 7, "every variant has a sample");
        for e in all {
            let (kind, forbidden) = (e.kind(), matches!(e, WebError::Forbidden));
            let status = e.into_response().status();
            if forbidden {
                assert_eq!(status, StatusCode::FORBIDDEN);
            } else {
                assert_eq!(status, status_of(kind), "{kind:?}");
            }
        }
    }
}
