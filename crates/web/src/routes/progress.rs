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
    reviews: Option<ReviewPlots>,
    estimates: Vec<EstimateRow>,
    checks: String,
    verdicts: Vec<VerdictRow>,
    work: String,
    handson: devcoach_core::handson::HandsOnTotals,
}

/// One topic's calibration line.
struct VerdictRow {
    class: &'static str,
    line: String,
}

/// A topic where the knowledge model reads differently from the learner's own number.
struct EstimateRow {
    topic: String,
    confidence: i64,
    estimate: i64,
    /// "2 checked · 1 your word · 1 other": the kinds of evidence it read, a lesson once a day.
    rests_on: String,
}

fn rests_on(checked: i64, self_reported: i64, other: i64) -> String {
    let parts: Vec<String> = [(checked, "checked"), (self_reported, "your word"), (other, "other")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        // Each part kept on one line (a phone wraps between parts, not inside one).
        .map(|(n, what)| format!("{n} {what}").replace(' ', "\u{a0}"))
        .collect();
    if parts.is_empty() { "–".to_owned() } else { parts.join(" · ") }
}

struct ReviewPlots {
    per_day: String,
    per_day_note: String,
    forecast: String,
    forecast_note: String,
    calibration: String,
    calibration_note: String,
}

fn review_plots(s: &devcoach_store::Store, now: DateTime<Utc>) -> Option<ReviewPlots> {
    // A database only the TypeScript build has written may lack our tables: no plots then.
    let a = s.review_activity(now).ok()??;
    let recalled = a.recalled();
    Some(ReviewPlots {
        per_day: plots::per_day("Reviews per day", &a.done, "own", ("review", "reviews")),
        per_day_note: format!("{} in the last 30 days, {} in all.", a.done_recently(), a.total),
        forecast: plots::per_day("Reviews coming up", &a.ahead, "shared", ("card due", "cards due")),
        forecast_note: format!("{} due now (overdue included), {} more in the next 30 days.", a.due_now, a.due_soon()),
        calibration: plots::calibration(&a.predicted),
        calibration_note: if a.predicted.is_empty() {
            "Once cards come back for a second review, each dot compares what FSRS predicted with what you recalled."
                .into()
        } else {
            format!(
                "{} of {} repeat reviews recalled ({}%); the schedule aims for your retention setting.",
                recalled,
                a.predicted.len(),
                percent(recalled, a.predicted.len())
            )
        },
    })
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
            reviews: None,
            estimates: Vec::new(),
            checks: String::new(),
            verdicts: Vec::new(),
            work: String::new(),
            handson: devcoach_core::handson::HandsOnTotals::default(),
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
    // A database only the TypeScript build has written may lack the model's table.
    let estimates = s
        .estimates_apart(now)
        .unwrap_or_default()
        .into_iter()
        .map(|a| EstimateRow {
            rests_on: rests_on(a.estimate.checked, a.estimate.self_reported, a.estimate.other),
            topic: a.estimate.topic,
            confidence: a.confidence,
            estimate: a.estimate.confidence_now,
        })
        .collect();
    // Our table; absent from a database only the TypeScript build has written.
    let calibration = s.calibration().unwrap_or_default();
    // Figures beside the plots: a table that cannot be read leaves them out, not the page.
    let handson = s.handson_totals().unwrap_or_default();
    let c = Chrome::new(Some(s), "progress");
    let (weekly, weeks) = plots::weekly(&points, now, 26);
    let recent =
        points.iter().filter(|p| now - p.at < chrono::Duration::weeks(i64::try_from(weeks).unwrap_or(26))).count();
    let (confidence, topics) = plots::confidence(&evidence, now, 6);
    let (coverage, covered, on_map) = plots::coverage(&points, &known, 15);
    let page = Page {
        c,
        empty: points.is_empty() && evidence.is_empty() && calibration.is_empty() && handson.sessions == 0,
        weekly,
        weekly_note: if weeks == 0 {
            "No lessons yet.".to_owned()
        } else {
            format!("{recent} in the last {weeks} weeks, {} in all.", points.len())
        },
        feedback: plots::feedback_mix(&points, now, 12),
        confidence,
        confidence_note: if topics.is_empty() {
            "Every confidence change (your answers, onboarding, your own edits) will be drawn here.".into()
        } else if topics.len() == 1 {
            "The one topic with a history so far; each step is a change.".into()
        } else {
            format!("The {} topics with the most history; each step is a change.", topics.len())
        },
        coverage,
        coverage_note: format!(
            "{covered} of the {on_map} topics on your map have had a lesson. Bars: lessons per topic; beside each, your own number for it."
        ),
        reviews: review_plots(s, now),
        estimates,
        checks: plots::self_vs_checked(&calibration),
        work: plots::work_mix(&s.work_weeks(now, 8).unwrap_or_default(), s.work_insights().unwrap_or(false)),
        verdicts: calibration.iter().map(|c| VerdictRow { class: c.verdict.as_str(), line: c.line() }).collect(),
        handson,
    };
    super::render(&page)
}

/// `part` of `whole` in whole percent, rounded to the nearest (2 of 3 is 67, not 66).
fn percent(part: usize, whole: usize) -> usize {
    if whole == 0 { 0 } else { (part * 200 + whole) / (2 * whole) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn percentages_round_to_the_nearest() {
        assert_eq!(
            [super::percent(2, 3), super::percent(1, 3), super::percent(1, 2), super::percent(0, 0)],
            [67, 33, 50, 0]
        );
    }
}
