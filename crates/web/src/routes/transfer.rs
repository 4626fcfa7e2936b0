//! Lessons in and out of the dashboard: the export file, and the import of a shared lesson
//! (pasted, uploaded or fetched) with its preview.

use std::collections::HashMap;

use askama::Template;
use axum::extract::{FromRequest, Multipart, Query, Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Redirect};
use devcoach_core::query::LessonQuery;
use devcoach_core::share::{SharedInput, parse_shared_input, url_to_fetch};

use super::{Fields, attachment, html};
use crate::error::{WebError, WebResult};
use crate::state::SharedState;
use crate::views::{Chrome, enc};
use crate::{markdown, pool};

pub(crate) async fn export(State(state): State<SharedState>) -> WebResult {
    let now = state.now();
    let lessons = pool::read(&state, move |s| Ok(s.lessons(&LessonQuery::default(), now)?)).await?.unwrap_or_default();
    let mut body = serde_json::to_vec_pretty(&lessons).map_err(|e| WebError::Internal(e.to_string()))?;
    body.push(b'\n');
    Ok(attachment("application/json", "devcoach-lessons.json", body))
}

/// An import's input, from a multipart upload (a file wins over pasted text) or a plain form.
async fn import_input(req: Request) -> Result<(String, String), WebError> {
    let multipart = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("multipart/form-data"));
    if multipart {
        let mut form = Multipart::from_request(req, &()).await.map_err(|e| WebError::BadRequest(e.to_string()))?;
        let (mut from, mut text, mut file) = (String::new(), String::new(), String::new());
        while let Some(field) = form.next_field().await.map_err(|e| WebError::BadRequest(e.to_string()))? {
            let name = field.name().unwrap_or_default().to_owned();
            let bytes = field.bytes().await.map_err(|e| WebError::BadRequest(e.to_string()))?;
            let value = String::from_utf8_lossy(&bytes).into_owned();
            match name.as_str() {
                "from" => from = value,
                "text" => text = value,
                "file" => file = value,
                _ => {}
            }
        }
        Ok((from, if file.trim().is_empty() { text } else { file }))
    } else {
        let fields =
            Fields::from_request(req, &()).await.map_err(|_| WebError::BadRequest("unreadable form".into()))?;
        Ok((fields.get("from").unwrap_or_default().to_owned(), fields.get("text").unwrap_or_default().to_owned()))
    }
}

pub(crate) async fn import(State(state): State<SharedState>, req: Request) -> WebResult {
    let cross = crate::guard::is_cross_site_at(req.headers(), state.port);
    let (from, raw) = import_input(req).await?;
    let from_lessons = from != "settings";
    let invalid = || {
        if from_lessons {
            Redirect::to("/lessons?import=1&error=invalid").into_response()
        } else {
            Redirect::to("/settings?imported=0&skipped=0&invalid=1").into_response()
        }
    };
    if cross {
        return Ok(Redirect::to(if from_lessons { "/lessons?import=1&error=cross" } else { "/settings?error=cross" })
            .into_response());
    }
    let resolved =
        tokio::task::spawn_blocking(move || devcoach_net::import::resolve(&raw, &devcoach_net::FetchPolicy::default()))
            .await
            .map_err(|e| WebError::Internal(e.to_string()))?;
    let Ok(input) = resolved else { return Ok(invalid()) };
    let now = state.now();
    let outcome = pool::write(&state, move |s| Ok(s.import_input(input, now)?)).await?;
    if let (true, Some(lesson)) = (outcome.shared, outcome.lesson.as_ref()) {
        let flag = if outcome.own {
            "own"
        } else if outcome.counts.inserted > 0 {
            "1"
        } else {
            "dup"
        };
        return Ok(Redirect::to(&format!("/lessons/{}?imported={flag}", enc(&lesson.id))).into_response());
    }
    if outcome.shared {
        return Ok(invalid());
    }
    Ok(Redirect::to(&format!(
        "/settings?imported={}&skipped={}&invalid={}",
        outcome.counts.inserted, outcome.counts.duplicated, outcome.counts.invalid
    ))
    .into_response())
}

#[derive(Template)]
#[template(path = "import_preview.html")]
struct PreviewPage {
    c: Chrome,
    error: Option<String>,
    code: String,
    title: String,
    topic: String,
    level: &'static str,
    categories: String,
    summary: String,
    body_html: String,
    shared_by: Option<String>,
}

pub(crate) async fn preview(State(state): State<SharedState>, Query(q): Query<HashMap<String, String>>) -> WebResult {
    let Some(code) = q.get("code").map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()) else {
        return Ok(Redirect::to("/lessons?import=1").into_response());
    };
    let c = pool::read(&state, |s| Ok(Chrome::new(Some(s), "lessons")))
        .await?
        .unwrap_or_else(|| Chrome::new(None, "lessons"));
    let mut page = PreviewPage {
        c,
        error: None,
        code: code.clone(),
        title: String::new(),
        topic: String::new(),
        level: "mid",
        categories: String::new(),
        summary: String::new(),
        body_html: String::new(),
        shared_by: None,
    };
    // A preview only decodes: a URL to fetch is refused here (importing it is a POST).
    match url_to_fetch(&code).map_or_else(
        || parse_shared_input(&code).map_err(|e| e.to_string()),
        |_| Err("This is a web address, not a lesson code: import it from the lessons page to fetch it.".to_owned()),
    ) {
        Ok(SharedInput::Shared(p)) => {
            page.body_html = markdown::to_html(p.body.as_deref().unwrap_or_default());
            page.level = p.level.as_str();
            page.categories = p.categories.join(", ");
            page.title = p.title;
            page.topic = p.topic_id;
            page.summary = p.summary;
            page.shared_by = p.shared_by;
        }
        Ok(SharedInput::Lessons(_)) => {
            page.error = Some("This is a lessons export, not one shared lesson: import it from Settings.".into());
        }
        Err(e) => page.error = Some(e),
    }
    html(&page)
}
