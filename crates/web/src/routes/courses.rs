//! Courses: the list, a course's page with its steps, and the course document, served sandboxed.

use std::collections::HashMap;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, header};
use axum::response::IntoResponse;
use devcoach_core::course::{Course, CourseId, StepStatus};
use devcoach_core::highlighter;
use devcoach_core::limits;
use devcoach_store::{CourseFilter, HIGHLIGHTER};

use super::{Fields, html, see_other};
use crate::assets::COURSE_FRAME_JS;
use crate::error::{WebError, WebResult};
use crate::pool;
use crate::state::SharedState;
use crate::views::{Chrome, short_date};

/// The policy a course document runs under: its own scripts only, no network, no navigation out.
pub(crate) const COURSE_CSP: &str = "sandbox allow-scripts allow-forms; default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; \
style-src 'unsafe-inline'; img-src data:; font-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

fn progress(c: &Course) -> (usize, usize) {
    (c.steps.iter().filter(|s| s.status != StepStatus::Todo).count(), c.steps.len())
}

pub(crate) struct CourseRow {
    pub id: String,
    pub title: String,
    pub topic: String,
    pub done: usize,
    pub total: usize,
    pub pct: usize,
    pub status: &'static str,
    pub updated: String,
    pub seed: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "courses.html")]
struct ListPage {
    c: Chrome,
    rows: Vec<CourseRow>,
}

pub(crate) async fn list(State(state): State<SharedState>) -> WebResult {
    let loaded = pool::read(&state, |s| {
        let mut rows = Vec::new();
        for course in s.courses(&CourseFilter::default())? {
            let (done, total) = progress(&course);
            let seed = match &course.lesson_id {
                Some(id) => s.lesson(id)?.map(|l| (crate::views::enc(&l.id), l.title)),
                None => None,
            };
            rows.push(CourseRow {
                pct: (done * 100).checked_div(total).unwrap_or(0),
                status: course.status.as_str(),
                updated: short_date(&course.updated_at),
                id: course.id,
                title: course.title,
                topic: course.topic_id,
                done,
                total,
                seed,
            });
        }
        Ok((Chrome::new(Some(s), "courses"), rows))
    })
    .await?;
    let (c, rows) = loaded.unwrap_or_else(|| (Chrome::new(None, "courses"), Vec::new()));
    html(&ListPage { c, rows })
}

pub(crate) struct StepView {
    pub position: i64,
    pub title: String,
    pub kind: &'static str,
    pub anchor: String,
    pub status: &'static str,
    pub current: bool,
}

#[derive(Template)]
#[template(path = "course.html")]
struct CoursePage {
    c: Chrome,
    id: String,
    title: String,
    topic: String,
    status: &'static str,
    goal: Option<String>,
    done: usize,
    total: usize,
    seed: Option<(String, String)>,
    steps: Vec<StepView>,
    has_document: bool,
    document_path: String,
    anchor: Option<String>,
}

pub(crate) async fn page(
    State(state): State<SharedState>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> WebResult {
    let Ok(course_id) = CourseId::parse(&id) else { return Err(WebError::NotFound("Course not found")) };
    let wanted: Option<i64> = q.get("step").and_then(|s| s.parse().ok());
    let dir = state.dir.clone();
    let loaded = pool::read(&state, move |s| {
        let Some(course) = s.course(&course_id)? else { return Ok(None) };
        let seed = match &course.lesson_id {
            Some(lid) => s.lesson(lid)?.map(|l| (crate::views::enc(&l.id), l.title)),
            None => None,
        };
        let has_document = dir.course_document(&course_id).ok().flatten().is_some();
        Ok(Some((Chrome::new(Some(s), "courses"), course, seed, has_document, dir.course_document_path(&course_id))))
    })
    .await?
    .flatten();
    let Some((c, course, seed, has_document, path)) = loaded else {
        return Err(WebError::NotFound("Course not found"));
    };
    let (done, total) = progress(&course);
    // The step shown: the one asked for, else the first still to do, else the first.
    let current = wanted
        .filter(|p| course.steps.iter().any(|s| s.position == *p))
        .or_else(|| course.steps.iter().find(|s| s.status == StepStatus::Todo).map(|s| s.position))
        .or_else(|| course.steps.first().map(|s| s.position));
    let steps: Vec<StepView> = course
        .steps
        .iter()
        .map(|s| StepView {
            position: s.position,
            title: s.title.clone(),
            kind: s.kind.as_str(),
            anchor: s.anchor.clone(),
            status: s.status.as_str(),
            current: Some(s.position) == current,
        })
        .collect();
    let anchor = steps.iter().find(|s| s.current).map(|s| s.anchor.clone());
    let page = CoursePage {
        c,
        status: course.status.as_str(),
        id: course.id,
        title: course.title,
        topic: course.topic_id,
        goal: course.goal,
        done,
        total,
        seed,
        steps,
        has_document,
        document_path: path.display().to_string(),
        anchor,
    };
    html(&page)
}

pub(crate) async fn document(State(state): State<SharedState>, Path(id): Path<String>) -> WebResult {
    let Ok(course_id) = CourseId::parse(&id) else { return Err(WebError::NotFoundText("Not Found")) };
    let dir = state.dir.clone();
    let bytes = tokio::task::spawn_blocking(move || -> Option<Vec<u8>> {
        let path = dir.course_document(&course_id).ok().flatten()?;
        devcoach_files::read(&path, limits::COURSE_DOCUMENT_BYTES, devcoach_files::Links::Refuse).ok()
    })
    .await
    .map_err(|e| WebError::Internal(e.to_string()))?
    .ok_or(WebError::NotFoundText("Not Found"))?;
    let text = String::from_utf8_lossy(&bytes);
    let mut body = bytes.clone();
    body.extend_from_slice(b"\n<script>");
    body.extend_from_slice(COURSE_FRAME_JS.as_bytes());
    body.extend_from_slice(b"</script>\n");
    if !highlighter::has_highlighter(&text)
        && highlighter::has_code(&text)
        && let Some(block) = highlighter::block(HIGHLIGHTER)
    {
        body.push(b'\n');
        body.extend_from_slice(block.as_bytes());
    }
    let mut response = body.into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(COURSE_CSP));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

pub(crate) async fn step(
    State(state): State<SharedState>,
    Path((id, position)): Path<(String, String)>,
    form: Fields,
) -> WebResult {
    let status = match form.get("status") {
        Some("todo") => StepStatus::Todo,
        Some("done") => StepStatus::Done,
        Some("skipped") => StepStatus::Skipped,
        other => return Err(WebError::BadRequest(format!("status must be todo, done or skipped, not {other:?}"))),
    };
    let (Ok(course_id), Ok(position)) = (CourseId::parse(&id), position.parse::<i64>()) else {
        return Err(WebError::NotFoundText("Step not found"));
    };
    let now = state.now();
    let updated = pool::write(&state, move |s| Ok(s.set_step_status(&course_id, position, status, now)?)).await?;
    if updated.is_none() {
        return Err(WebError::NotFoundText("Step not found"));
    }
    Ok(see_other(form.get("next"), &format!("/courses/{id}")))
}

pub(crate) async fn delete(State(state): State<SharedState>, form: Fields) -> WebResult {
    if let Some(Ok(course_id)) = form.get("id").map(CourseId::parse) {
        pool::write(&state, move |s| Ok(s.delete_course(&course_id)?)).await?;
    }
    Ok(see_other(None, "/courses"))
}
