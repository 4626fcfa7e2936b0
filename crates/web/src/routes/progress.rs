//! The progress page: what was taught, how it landed, and how confidence moved.

use std::collections::HashMap;

use askama::Template;
use axum::extract::State;
use chrono::{DateTime, Utc};
use devcoach_core::query::LessonQuery;
use devcoach_store::Fields as Columns;

use super::html;
use crate::error::{WebError, WebResult};
use crate::plots::{self, LessonPoint};
use crate::pool;
use crate::state::SharedState;
use crate::views::Chrome;

#[derive(Template)]
#[template(path = "progress.html")]
struct Page {
    c: Chrome,
    empty: bool,
    weekly: String,
    weekly_note: String,
    feedback: String,
    confidence: String,
    confidence_note: String,
    coverage: String,
    coverage_note: String,
}

pub(crate) async fn page(State(state): State<SharedState>) -> WebResult {
    let now = state.now();
    // The plots move with the clock only through week and month boundaries; a page drawn this
    // minute is as good as a new one.
    let key = format!("progress|{}", now.format("%Y-%m-%dT%H:%M"));
    let shared = state.clone();
    let rendered = pool::blocking(move || shared.cache.page(&shared.pool, key, |s| render(s, now))).await?;
    match rendered {
        Some(page) => Ok(super::kept_html(&page)),
        None => html(&Page {
            c: Chrome::new(None, "progress"),
            empty: true,
            weekly: String::new(),
            weekly_note: String::new(),
            feedback: String::new(),
            confidence: String::new(),
            confidence_note: String::new(),
            coverage: String::new(),
            coverage_note: String::new(),
        }),
    }
}

fn render(s: &devcoach_store::Store, now: DateTime<Utc>) -> Result<String, WebError> {
    let mut points = Vec::new();
    s.visit_lessons(&LessonQuery::default(), now, Columns::List, |l| {
        if let Ok(at) = devcoach_core::time::parse_timestamp(&l.timestamp) {
            points.push(LessonPoint { at, imported: l.imported, feedback: l.feedback, topic: l.topic_id });
        }
        Ok::<_, devcoach_store::StoreError>(())
    })?;
    // A database the TypeScript build created and we never wrote has no evidence log yet.
    let evidence = s.evidence(None).unwrap_or_default();
    let known: HashMap<String, i64> = s.profile()?.knowledge.into_iter().map(|k| (k.topic, k.confidence)).collect();
    let c = Chrome::new(Some(s), "progress");
    let recent = points.iter().filter(|p| now - p.at < chrono::Duration::weeks(26)).count();
    let (confidence, topics) = plots::confidence(&evidence, now, 6);
    let (coverage, covered, on_map) = plots::coverage(&points, &known, 15);
    let page = Page {
        c,
        empty: points.is_empty() && evidence.is_empty(),
        weekly: plots::weekly(&points, now, 26),
        weekly_note: format!("{recent} in the last 26 weeks, {} in all.", points.len()),
        feedback: plots::feedback_mix(&points, now, 12),
        confidence,
        confidence_note: if topics.is_empty() {
            "Every confidence change (your answers, onboarding, your own edits) will be drawn here.".into()
        } else {
            format!("The {} topics with the most history; each step is a change.", topics.len())
        },
        coverage,
        coverage_note: format!(
            "{covered} of the {on_map} topics on your map have had a lesson. Bars: lessons per topic."
        ),
    };
    super::render(&page)
}
