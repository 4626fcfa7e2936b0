//! The review page: one due card at a time (question, reveal, grade) and the review settings.

use std::collections::HashMap;

use askama::Template;
use axum::extract::{Path, Query, State};
use devcoach_core::fsrs::{Grade, Scheduler};
use devcoach_core::review::{ReviewMix, ReviewSettings};
use devcoach_store::DueReview;

use super::{Fields, html, see_other};
use crate::error::{WebError, WebResult};
use crate::pool;
use crate::state::SharedState;
use crate::views::{Chrome, enc, full_date};

#[derive(Template)]
#[template(path = "reviews.html")]
struct Page {
    c: Chrome,
    has_lessons: bool,
    card: Option<DueReview>,
    card_path: String,
    recall: Option<String>,
    total_due: i64,
    next_due: Option<String>,
    graded: Option<String>,
    saved: bool,
    retention: String,
    mix: &'static str,
    mixes: [(&'static str, &'static str); 3],
}

pub(crate) async fn page(State(state): State<SharedState>, Query(q): Query<HashMap<String, String>>) -> WebResult {
    let now = state.now();
    // A GET only reads: cards for lessons written elsewhere are made on the write paths (the
    // dashboard's start, every grade), never here.
    let loaded = pool::read(&state, move |s| {
        let (mut due, total) = s.due_reviews(now, 1)?;
        let next = if total == 0 { s.due_by_day(now + chrono::Duration::days(3650))?.into_iter().next() } else { None };
        Ok((Chrome::new(Some(s), "reviews"), due.pop(), total, next.map(|(day, _)| day), s.review_settings()?))
    })
    .await?;
    let graded =
        match (q.get("graded").and_then(|g| Grade::parse(g).ok()), q.get("days").and_then(|d| d.parse::<u32>().ok())) {
            (Some(g), Some(1)) => Some(format!("Graded {}: back tomorrow.", g.as_str())),
            (Some(g), Some(d)) => Some(format!("Graded {}: back in {d} days.", g.as_str())),
            _ => None,
        };
    let (c, card, total_due, next_due, settings, has_lessons) = match loaded {
        Some((c, card, total, next, settings)) => (c, card, total, next, settings, true),
        None => (Chrome::new(None, "reviews"), None, 0, None, ReviewSettings::default(), false),
    };
    html(&Page {
        c,
        has_lessons,
        card_path: card.as_ref().map(|d| enc(&d.card.lesson_id)).unwrap_or_default(),
        recall: card.as_ref().and_then(|d| d.retrievability).map(|r| format!("{:.0}%", r * 100.0)),
        card,
        total_due,
        next_due: next_due.map(|d| full_date(&d)),
        graded,
        saved: q.contains_key("saved"),
        retention: format!("{}", settings.retention),
        mix: settings.mix.as_str(),
        mixes: [
            ("alternate", "every other time, when cards are due"),
            ("reviews_first", "every time cards are due"),
            ("off", "never (review here or on request)"),
        ],
    })
}

pub(crate) async fn grade(State(state): State<SharedState>, Path(id): Path<String>, form: Fields) -> WebResult {
    let g = Grade::parse(form.get("grade").unwrap_or_default()).map_err(|e| WebError::BadRequest(e.to_string()))?;
    let now = state.now();
    let outcome = pool::write(&state, move |s| {
        // Lessons written elsewhere get their cards, so the next one shown is the right one.
        s.ensure_review_cards(now)?;
        Ok(s.grade_review(&id, g, now)?)
    })
    .await?;
    let Some(outcome) = outcome else { return Err(WebError::NotFound("Lesson not found")) };
    let next = format!("/reviews?graded={}&days={}", g.as_str(), outcome.graded.step.interval);
    Ok(see_other(Some(&next), "/reviews"))
}

pub(crate) async fn settings(State(state): State<SharedState>, form: Fields) -> WebResult {
    let retention = form
        .get("retention")
        .and_then(|r| r.trim().parse::<f64>().ok())
        .ok_or_else(|| WebError::BadRequest("retention must be a number such as 0.9".into()))?;
    Scheduler::with_retention(retention).map_err(|e| WebError::BadRequest(e.to_string()))?;
    let mix = ReviewMix::parse(form.get("mix").unwrap_or_default())
        .ok_or_else(|| WebError::BadRequest("mix is alternate, reviews_first or off".into()))?;
    pool::write(&state, move |s| {
        let current = s.review_settings()?;
        Ok(s.set_review_settings(&ReviewSettings { retention, mix, ..current })?)
    })
    .await?;
    Ok(see_other(Some("/reviews?saved=1"), "/reviews"))
}
