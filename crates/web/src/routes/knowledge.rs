//! The knowledge map: topics by group, confidence edits, groups.

use askama::Template;
use axum::extract::{Path, Query, State};
use chrono::{DateTime, Utc};
use devcoach_core::knowledge::{GroupTarget, OTHER_GROUP};

use super::{Fields, html, see_other};
use crate::error::{WebError, WebResult};
use crate::pool;
use crate::state::SharedState;
use crate::views::{Chrome, enc};

pub(crate) struct TopicRow {
    pub topic: String,
    pub topic_path: String,
    pub confidence: i64,
    pub tier: &'static str,
    /// The knowledge model's 0–10 reading now, when it differs from the learner's number.
    pub estimate: Option<i64>,
    /// A short calibration mark ("you overrate") and its whole line, once there are enough
    /// checked answers to say either way.
    /// The badge, its class (`over` or `under`) and the calibration line behind it.
    pub verdict: Option<(&'static str, &'static str, String)>,
}

pub(crate) struct GroupView {
    pub name: String,
    pub name_path: String,
    pub removable: bool,
    pub topics: Vec<TopicRow>,
}

#[derive(Template)]
#[template(path = "knowledge.html")]
struct Page {
    c: Chrome,
    groups: Vec<GroupView>,
    group_names: Vec<String>,
    /// total, today, max per day, this week
    stats: (i64, i64, i64, i64),
    /// When the next lesson comes (the words `stats` and the agent's resources use), and
    /// whether that is the next agent turn.
    next_lesson: String,
    next_soon: bool,
    /// Whether any topic shows the model's estimate (then the page says what it is).
    has_estimates: bool,
    /// Said once after a save, when the topic rule changed the name typed.
    notice: Option<String>,
}

fn tier(confidence: i64) -> &'static str {
    match confidence {
        7.. => "high",
        4..=6 => "mid",
        _ => "low",
    }
}

pub(crate) async fn page(
    State(state): State<SharedState>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> WebResult {
    let now = state.now();
    let notice = match (q.get("saved"), q.get("typed")) {
        (Some(id), Some(typed)) if id != typed.trim() => Some(format!(
            "Saved as “{id}”: topics are lower case, with words joined by _ (you typed “{}”).",
            typed.trim()
        )),
        _ => None,
    };
    if notice.is_some() {
        let page = pool::read(&state, move |s| render(s, now, notice)).await?;
        if let Some(page) = page {
            return Ok(super::kept_html(&std::sync::Arc::new(page)));
        }
    }
    // Counts and the rate limit move with the clock by the minute at most.
    let key = format!("knowledge|{}", now.format("%Y-%m-%dT%H:%M"));
    let shared = state.clone();
    let rendered = pool::blocking(move || shared.cache.page(&shared.pool, key, |s| render(s, now, None))).await?;
    match rendered {
        Some(page) => Ok(super::kept_html(&page)),
        None => html(&Page {
            c: Chrome::new(None, "knowledge"),
            groups: Vec::new(),
            group_names: vec![OTHER_GROUP.to_owned()],
            stats: (0, 0, 2, 0),
            next_lesson: devcoach_core::pacing::NextLesson::NeedsProfile(devcoach_core::pacing::OnboardingCall::Ask)
                .to_string(),
            next_soon: false,
            has_estimates: false,
            notice: None,
        }),
    }
}

fn render(s: &devcoach_store::Store, now: DateTime<Utc>, notice: Option<String>) -> Result<String, WebError> {
    let profile = s.profile()?;
    let stats = s.stats(now)?;
    let max = s.settings()?.max_per_day;
    let next = s.next_lesson(now)?;
    let c = Chrome::new(Some(s), "knowledge");
    let mut group_names: Vec<String> = profile.groups.iter().map(|g| g.name.clone()).collect();
    group_names.push(OTHER_GROUP.to_owned());
    let mut groups: Vec<GroupView> = group_names
        .iter()
        .map(|name| GroupView {
            name: name.clone(),
            name_path: enc(name),
            removable: name != OTHER_GROUP,
            topics: Vec::new(),
        })
        .collect();
    // A database only the TypeScript build has written may lack the model's table.
    let estimates: std::collections::HashMap<String, i64> =
        s.topic_estimates(now).unwrap_or_default().into_iter().map(|e| (e.topic, e.confidence_now)).collect();
    // Our table; absent from a database only the TypeScript build has written.
    let verdicts: std::collections::HashMap<String, (&'static str, &'static str, String)> = s
        .calibration()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|c| {
            let mark = match c.verdict {
                // About the learner's word against their checked answers, not the numbers beside
                // it: said so, since the model's estimate may sit either side of the number.
                devcoach_core::checked::Verdict::Overrates => ("checks: you overrate it", "over"),
                devcoach_core::checked::Verdict::Underrates => ("checks: you underrate it", "under"),
                _ => return None,
            };
            let line = c.line();
            Some((c.topic, (mark.0, mark.1, line)))
        })
        .collect();
    let mut entries = profile.knowledge.clone();
    entries.sort_by(|a, b| b.confidence.cmp(&a.confidence).then_with(|| a.topic.cmp(&b.topic)));
    for e in entries {
        let group = profile.group_of(&e.topic).to_owned();
        let estimate = estimates.get(&e.topic).copied().filter(|est| *est != e.confidence);
        let row = TopicRow {
            topic_path: enc(&e.topic),
            tier: tier(e.confidence),
            confidence: e.confidence,
            estimate,
            verdict: verdicts.get(&e.topic).cloned(),
            topic: e.topic,
        };
        if let Some(g) = groups.iter_mut().find(|g| g.name == group) {
            g.topics.push(row);
        }
    }
    // An empty "Other" says nothing; an empty named group can still be deleted.
    groups.retain(|g| g.removable || !g.topics.is_empty());
    let has_estimates = groups.iter().flat_map(|g| &g.topics).any(|t| t.estimate.is_some());
    let page = Page {
        c,
        groups,
        group_names,
        stats: (stats.total_lessons, stats.lessons_today, max, stats.lessons_this_week),
        next_soon: next == devcoach_core::pacing::NextLesson::NextTurn,
        next_lesson: next.to_string(),
        has_estimates,
        notice,
    };
    super::render(&page)
}

/// A group field: absent leaves the grouping alone; empty or `Other` means no group.
fn group_target(raw: Option<&str>) -> Result<Option<GroupTarget>, WebError> {
    raw.map(GroupTarget::parse).transpose().map_err(|e| WebError::BadRequest(e.to_string()))
}

pub(crate) async fn upsert(State(state): State<SharedState>, form: Fields) -> WebResult {
    let typed = form.get("topic").unwrap_or_default().trim().to_owned();
    let topic = devcoach_core::knowledge::topic_id(&typed).map_err(|e| WebError::BadRequest(e.to_string()))?;
    let confidence = form
        .get("confidence")
        .and_then(|c| c.trim().parse::<i64>().ok())
        .unwrap_or(devcoach_core::knowledge::DEFAULT_CONFIDENCE);
    let group = group_target(form.get("group"))?;
    let now = state.now();
    let id = topic.clone();
    pool::write(&state, move |s| Ok(s.set_topic(&id, confidence, group.as_ref(), now)?)).await?;
    if topic != typed {
        return Ok(see_other(Some(&format!("/knowledge?saved={}&typed={}", enc(&topic), enc(&typed))), "/knowledge"));
    }
    Ok(see_other(form.get("next"), "/knowledge"))
}

pub(crate) async fn remove(State(state): State<SharedState>, Path(topic): Path<String>, form: Fields) -> WebResult {
    pool::write(&state, move |s| Ok(s.remove_topic(&topic)?)).await?;
    Ok(see_other(form.get("next"), "/knowledge"))
}

pub(crate) async fn assign(State(state): State<SharedState>, Path(topic): Path<String>, form: Fields) -> WebResult {
    let target =
        GroupTarget::parse(form.get("group").unwrap_or_default()).map_err(|e| WebError::BadRequest(e.to_string()))?;
    let found = pool::write(&state, move |s| Ok(s.assign_group(&topic, &target)?)).await?;
    if !found {
        return Err(WebError::NotFound("Topic not found"));
    }
    Ok(see_other(form.get("next"), "/knowledge"))
}

pub(crate) async fn delta(State(state): State<SharedState>, Path(topic): Path<String>, form: Fields) -> WebResult {
    let Some(delta) = form.get("delta").and_then(|d| d.trim().parse::<i64>().ok()) else {
        return Err(WebError::BadRequest("delta must be a whole number".into()));
    };
    let now = state.now();
    pool::write(&state, move |s| Ok(s.update_knowledge(&topic, delta, now)?)).await?;
    Ok(see_other(form.get("next"), "/knowledge"))
}

pub(crate) async fn add_group(State(state): State<SharedState>, form: Fields) -> WebResult {
    let name = form.get("group_name").unwrap_or_default().trim().to_owned();
    if name.is_empty() || name == OTHER_GROUP {
        return Err(WebError::BadRequest(format!("a group needs a name other than {OTHER_GROUP}")));
    }
    pool::write(&state, move |s| Ok(s.add_group(&name)?)).await?;
    Ok(see_other(form.get("next"), "/knowledge"))
}

pub(crate) async fn remove_group(
    State(state): State<SharedState>,
    Path(name): Path<String>,
    form: Fields,
) -> WebResult {
    pool::write(&state, move |s| Ok(s.remove_group(&name)?)).await?;
    Ok(see_other(form.get("next"), "/knowledge"))
}
