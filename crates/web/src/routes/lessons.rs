//! The lessons list, a lesson, and what can be done to it here: star, feedback, delete and its
//! undo. Sharing is in `share.rs`; export and import in `transfer.rs`.

use std::collections::HashMap;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect};
use devcoach_core::Lesson;
use devcoach_core::feedback::FeedbackChoice;
use devcoach_core::lesson::{Feedback, Level};
use devcoach_core::limits;
use devcoach_core::query::{FeedbackFilter, LessonQuery, SortColumn, SortOrder};
use devcoach_core::time::Period;
use devcoach_store::{CourseFilter, SafetyKind};

use super::share::default_sender;
use super::{Fields, html, see_other};
use crate::error::{WebError, WebResult};
use crate::state::SharedState;
use crate::views::{Chrome, Row, enc, full_date};
use crate::{markdown, pool};

/// Lessons per page.
pub(crate) const PAGE_ROWS: usize = 25;
const PAGE_SIZE: u64 = PAGE_ROWS as u64;

/// The list's query string, as typed (echoed into the form and the links).
#[derive(Debug, Clone, Default)]
pub(crate) struct ListParams {
    pub search: String,
    pub period: String,
    pub level: String,
    pub feedback: String,
    pub category: String,
    pub date_from: String,
    pub date_to: String,
    pub project: String,
    pub repository: String,
    pub branch: String,
    pub commit: String,
    pub shared_by: String,
    pub imported: String,
    pub starred: String,
    pub sort: String,
    pub order: String,
    pub page: u64,
}

/// Filters in the order they appear in links and chips.
const FILTER_KEYS: [&str; 14] = [
    "search",
    "period",
    "level",
    "feedback",
    "category",
    "date_from",
    "date_to",
    "project",
    "repository",
    "branch",
    "commit",
    "shared_by",
    "imported",
    "starred",
];

impl ListParams {
    pub fn from_map(q: &HashMap<String, String>) -> Self {
        let get = |k: &str| q.get(k).map(|v| v.trim().to_owned()).unwrap_or_default();
        Self {
            search: get("search"),
            period: get("period"),
            level: get("level"),
            feedback: get("feedback"),
            category: get("category"),
            date_from: get("date_from"),
            date_to: get("date_to"),
            project: get("project"),
            repository: get("repository"),
            branch: get("branch"),
            commit: get("commit"),
            shared_by: get("shared_by"),
            imported: get("imported"),
            starred: get("starred"),
            sort: get("sort"),
            order: get("order"),
            page: q.get("page").and_then(|p| p.trim().parse().ok()).unwrap_or(1),
        }
    }

    fn value(&self, key: &str) -> &str {
        match key {
            "search" => &self.search,
            "period" => &self.period,
            "level" => &self.level,
            "feedback" => &self.feedback,
            "category" => &self.category,
            "date_from" => &self.date_from,
            "date_to" => &self.date_to,
            "project" => &self.project,
            "repository" => &self.repository,
            "branch" => &self.branch,
            "commit" => &self.commit,
            "shared_by" => &self.shared_by,
            "imported" => &self.imported,
            "starred" => &self.starred,
            "sort" => &self.sort,
            "order" => &self.order,
            _ => "",
        }
    }

    /// Whether a filter narrows the list (an `all` period does not).
    fn active(&self, key: &str) -> bool {
        let v = self.value(key);
        match key {
            "period" => !v.is_empty() && v != "all",
            "starred" => v == "1",
            _ => !v.is_empty(),
        }
    }

    pub fn more_open(&self) -> bool {
        ["date_from", "date_to", "project", "repository", "branch", "commit", "shared_by", "imported", "starred"]
            .iter()
            .any(|k| self.active(k))
    }

    /// `/lessons?…` with these filters, `sort`/`order`, a page, minus one filter.
    fn url(&self, without: Option<&str>, sort: Option<(&str, &str)>, page: u64) -> String {
        let mut parts: Vec<String> = FILTER_KEYS
            .iter()
            .filter(|k| Some(**k) != without && self.active(k))
            .map(|k| format!("{k}={}", enc(self.value(k))))
            .collect();
        let (s, o) = sort.unwrap_or((&self.sort, &self.order));
        if !s.is_empty() {
            parts.push(format!("sort={}", enc(s)));
        }
        if !o.is_empty() {
            parts.push(format!("order={}", enc(o)));
        }
        if page > 1 {
            parts.push(format!("page={page}"));
        }
        if parts.is_empty() { "/lessons".into() } else { format!("/lessons?{}", parts.join("&")) }
    }

    /// The query the store runs. Values it cannot read are ignored (a hand-edited URL never
    /// fails the page).
    pub fn query(&self) -> LessonQuery {
        let mut q = LessonQuery {
            period: Period::parse(&self.period),
            level: Level::parse(&self.level).ok(),
            feedback: FeedbackFilter::parse(&self.feedback),
            category: Some(self.category.clone()).filter(|c| !c.is_empty()),
            project: Some(self.project.clone()).filter(|c| !c.is_empty()),
            repository: Some(self.repository.clone()).filter(|c| !c.is_empty()),
            branch: Some(self.branch.clone()).filter(|c| !c.is_empty()),
            commit: Some(self.commit.clone()).filter(|c| !c.is_empty()),
            shared_by: Some(self.shared_by.clone()).filter(|c| !c.is_empty()),
            imported: match self.imported.as_str() {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            },
            starred: (self.starred == "1").then_some(true),
            sort: SortColumn::parse_or_default(&self.sort),
            order: SortOrder::parse_or_default(&self.order),
            ..LessonQuery::default()
        };
        q.set_search(&self.search);
        if !self.date_from.is_empty() {
            let _ = q.dates.set_from(&self.date_from);
        }
        if !self.date_to.is_empty() {
            let _ = q.dates.set_to(&self.date_to);
        }
        q
    }

    fn chips(&self) -> Vec<Chip> {
        FILTER_KEYS
            .iter()
            .filter(|k| self.active(k))
            .map(|k| {
                let v = self.value(k);
                let label = match *k {
                    "search" => format!("“{v}”"),
                    "starred" => "★ starred".to_owned(),
                    "imported" if v == "1" => "shared with me".to_owned(),
                    "imported" => "mine only".to_owned(),
                    "shared_by" | "date_from" => format!("from {v}"),
                    "date_to" => format!("until {v}"),
                    "feedback" => feedback_label(v).to_owned(),
                    _ => v.to_owned(),
                };
                Chip { label, remove: self.url(Some(k), None, 1) }
            })
            .collect()
    }
}

fn feedback_label(raw: &str) -> &'static str {
    match raw {
        "know" => "✓ knew it",
        "understood" => "+ understood",
        "dont_know" => "✗ couldn't follow",
        "none" => "no answer yet",
        _ => "feedback",
    }
}

pub(crate) struct Chip {
    pub label: String,
    pub remove: String,
}

pub(crate) struct Column {
    pub label: &'static str,
    pub url: String,
    pub arrow: &'static str,
}

#[derive(Template)]
#[template(path = "lessons.html")]
struct ListPage {
    c: Chrome,
    f: ListParams,
    rows: Vec<std::sync::Arc<Row>>,
    total: u64,
    page: u64,
    pages: u64,
    first_n: u64,
    last_n: u64,
    prev_url: Option<String>,
    next_url: Option<String>,
    columns: Vec<Column>,
    chips: Vec<Chip>,
    categories: Vec<String>,
    periods: [(&'static str, &'static str); 5],
    levels: [&'static str; 3],
    feedbacks: [(&'static str, &'static str); 4],
    filtered: bool,
    here: String,
    import_open: bool,
    import_error: Option<&'static str>,
    undo: Option<UndoBanner>,
}

/// After a delete: what was deleted and the form that takes it back; after an undo, what came back.
pub(crate) struct UndoBanner {
    pub text: String,
    /// The backup to restore from and the lessons to take from it; `None` once restored.
    pub form: Option<(String, Vec<String>)>,
}

impl UndoBanner {
    fn from_query(pairs: &[(String, String)]) -> Option<Self> {
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        if let Some(n) = get("restored").and_then(|n| n.parse::<usize>().ok()) {
            let text = match n {
                0 => "Nothing to put back: those lessons are here already.".to_owned(),
                1 => "Restored 1 lesson with its review card and history.".to_owned(),
                n => format!("Restored {n} lessons with their review cards and history."),
            };
            return Some(Self { text, form: None });
        }
        let deleted = get("deleted").and_then(|n| n.parse::<usize>().ok())?;
        let backup = get("undo").filter(|b| devcoach_store::is_safety_backup_name(b, SafetyKind::Delete))?;
        let ids: Vec<String> =
            pairs.iter().filter(|(k, _)| k == "undo_id").map(|(_, v)| v.clone()).take(limits::UNDO_IDS).collect();
        let text = if deleted == 1 { "Deleted 1 lesson.".to_owned() } else { format!("Deleted {deleted} lessons.") };
        Some(Self { text, form: (!ids.is_empty()).then(|| (backup.to_owned(), ids)) })
    }
}

pub(crate) async fn list(State(state): State<SharedState>, Query(pairs): Query<Vec<(String, String)>>) -> WebResult {
    let mut undo = UndoBanner::from_query(&pairs);
    // Revisited after the undo (Back, a bookmark): the lessons are here, nothing to offer.
    if let Some(ids) = undo.as_ref().and_then(|u| u.form.as_ref()).map(|(_, ids)| ids.clone()) {
        let back = pool::read(&state, move |s| {
            Ok(ids.iter().map(|id| s.lesson(id)).collect::<Result<Vec<_>, _>>()?.iter().all(Option::is_some))
        })
        .await?;
        if back == Some(true) {
            undo = Some(UndoBanner { text: "Those lessons are back.".to_owned(), form: None });
        }
    }
    let raw: HashMap<String, String> = pairs.into_iter().collect();
    let params = ListParams::from_map(&raw);
    let import_open = raw.get("import").is_some_and(|v| v == "1") || raw.contains_key("error");
    let import_error = match raw.get("error").map(String::as_str) {
        Some("invalid") => Some("That is not a lesson devcoach can read: paste the whole code, link or card."),
        Some("cross") => Some("The import came from another site and was refused."),
        _ => None,
    };
    let now = state.now();
    let fetch = |page: u64| {
        let (shared, query) = (state.clone(), params.query());
        let skip = usize::try_from(page.saturating_sub(1).saturating_mul(PAGE_SIZE)).unwrap_or(usize::MAX);
        pool::blocking(move || shared.cache.listing(&shared.pool, &query, now, skip, PAGE_ROWS))
    };
    let mut listing = fetch(params.page.max(1)).await?;
    let total = listing.as_ref().map_or(0, |l| l.total as u64);
    let pages = total.div_ceil(PAGE_SIZE).max(1);
    let page = params.page.clamp(1, pages);
    if page != params.page.max(1) && total > 0 {
        // Past the end (a stale link, a hand-edited URL): show the last page.
        listing = fetch(page).await?;
    }
    let (c, categories, rows) = match listing {
        Some(l) => (l.frame.chrome.clone(), l.frame.categories.clone(), l.rows),
        None => (Chrome::new(None, "lessons"), Vec::new(), Vec::new()),
    };
    let sort = SortColumn::parse_or_default(&params.sort);
    let order = SortOrder::parse_or_default(&params.order);
    let columns = [
        ("Date", SortColumn::Timestamp),
        ("Topic", SortColumn::TopicId),
        ("Title", SortColumn::Title),
        ("Level", SortColumn::Level),
        ("Feedback", SortColumn::Feedback),
    ]
    .into_iter()
    .map(|(label, col)| {
        let current = col == sort;
        let next_order = if current && order == SortOrder::Desc { "asc" } else { "desc" };
        Column {
            label,
            url: params.url(None, Some((col.column(), next_order)), 1),
            arrow: match (current, order) {
                (false, _) => "",
                (true, SortOrder::Desc) => " ↓",
                (true, SortOrder::Asc) => " ↑",
            },
        }
    })
    .collect();
    let page_view = ListPage {
        here: params.url(None, None, page),
        prev_url: (page > 1).then(|| params.url(None, None, page - 1)),
        next_url: (page < pages).then(|| params.url(None, None, page + 1)),
        first_n: if total == 0 { 0 } else { (page - 1) * PAGE_SIZE + 1 },
        last_n: (page * PAGE_SIZE).min(total),
        chips: params.chips(),
        filtered: params.query().is_filtered(),
        c,
        rows,
        total,
        page,
        pages,
        columns,
        categories,
        periods: [
            ("all", "Any time"),
            ("today", "Today"),
            ("week", "This week"),
            ("month", "This month"),
            ("year", "This year"),
        ],
        levels: ["junior", "mid", "senior"],
        feedbacks: [
            ("know", "✓ knew it"),
            ("understood", "+ understood"),
            ("dont_know", "✗ couldn't follow"),
            ("none", "no answer yet"),
        ],
        f: params,
        import_open,
        import_error,
        undo,
    };
    html(&page_view)
}

#[derive(Template)]
#[template(path = "lesson.html")]
struct DetailPage {
    c: Chrome,
    l: Lesson,
    id_path: String,
    level: &'static str,
    categories: String,
    when: String,
    git: Vec<(String, Option<String>)>,
    body_html: String,
    banner: Option<&'static str>,
    share_open: bool,
    share_name: String,
    current_feedback: &'static str,
    feedback_choices: [(&'static str, &'static str, &'static str); 3],
    course: Option<(String, String, usize, usize)>,
    here: String,
}

pub(crate) async fn detail(
    State(state): State<SharedState>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> WebResult {
    let lookup = id.clone();
    let found = pool::read(&state, move |s| {
        let Some(lesson) = s.lesson(&lookup)? else { return Ok(None) };
        let course = s
            .courses(&CourseFilter { lesson_id: Some(lookup.clone()), ..CourseFilter::default() })?
            .into_iter()
            .next()
            .map(|c| {
                let done = c.steps.iter().filter(|st| st.status.as_str() != "todo").count();
                (c.id, c.title, done, c.steps.len())
            });
        // The name the share popover offers: the saved one, else git's (as the CLI and MCP use).
        let share_name = match s.settings()?.share_name {
            Some(name) => name,
            None => default_sender(&lesson).unwrap_or_default(),
        };
        Ok(Some((Chrome::new(Some(s), "lessons"), lesson, course, share_name)))
    })
    .await?
    .flatten();
    let Some((c, l, course, share_name)) = found else { return Err(WebError::NotFound("Lesson not found")) };
    let mut git = Vec::new();
    if let Some(p) = &l.context.git.project {
        git.push((format!("project {p}"), None));
    }
    if let Some(b) = &l.context.git.branch {
        git.push((format!("branch {b}"), None));
    }
    if let Some(h) = &l.context.git.commit_hash {
        let url = match (l.context.git.repository_platform, l.context.git.repository.as_deref()) {
            (Some(platform), Some(repo)) => devcoach_core::git::commit_url(platform, repo, h),
            _ => None,
        };
        git.push((format!("commit {}", h.chars().take(7).collect::<String>()), url));
    }
    if let Some(t) = &l.context.task_context {
        git.push((format!("task: {t}"), None));
    }
    let page = DetailPage {
        id_path: enc(&l.id),
        level: l.level.as_str(),
        categories: l.categories.join(", "),
        when: full_date(&l.timestamp),
        body_html: markdown::to_html(l.body.as_deref().unwrap_or_default()),
        banner: match q.get("imported").map(String::as_str) {
            Some("1") => Some("Imported: the lesson is in your list now."),
            Some("dup") => Some("You already had this lesson; nothing was added."),
            Some("own") => Some("This is your own lesson; nothing was imported."),
            _ => None,
        },
        share_open: q.get("share").is_some_and(|v| v == "1"),
        current_feedback: l.feedback.map_or("", Feedback::as_str),
        feedback_choices: [
            ("know", "✓", "Knew it"),
            ("understood", "+", "Understood"),
            ("dont_know", "✗", "Couldn't follow"),
        ],
        here: format!("/lessons/{}", enc(&l.id)),
        git,
        course,
        share_name,
        c,
        l,
    };
    html(&page)
}

pub(crate) async fn star(State(state): State<SharedState>, Path(id): Path<String>, form: Fields) -> WebResult {
    let on = form.get("starred") == Some("1");
    let next = form.get("next").map(str::to_owned);
    let found = pool::write(&state, move |s| Ok(s.set_star(&id, on)?)).await?;
    if !found {
        return Err(WebError::NotFound("Lesson not found"));
    }
    Ok(see_other(next.as_deref(), "/lessons"))
}

pub(crate) async fn feedback(State(state): State<SharedState>, Path(id): Path<String>, form: Fields) -> WebResult {
    let raw = form.get("feedback").unwrap_or_default();
    let choice = if raw.is_empty() { Some(FeedbackChoice(None)) } else { FeedbackChoice::parse(raw) };
    let Some(choice) = choice else {
        return Err(WebError::BadRequest(format!(
            "feedback must be know, understood, dont_know or clear, not {raw:?}"
        )));
    };
    let next = form.get("next").map(str::to_owned);
    let now = state.now();
    let outcome = pool::write(&state, move |s| Ok(s.record_feedback(&id, choice, now)?)).await?;
    if outcome.is_none() {
        return Err(WebError::NotFound("Lesson not found"));
    }
    Ok(see_other(next.as_deref(), "/lessons"))
}

/// Deletes the lessons named, after a backup the page's Undo restores them from (as `devcoach
/// delete` does), and goes back to the page with the undo form.
pub(crate) async fn delete(State(state): State<SharedState>, form: Fields) -> WebResult {
    let ids: Vec<String> = form.all("id").map(str::to_owned).collect();
    if ids.len() > limits::UNDO_IDS {
        return Err(WebError::BadRequest(format!("at most {} lessons at once", limits::UNDO_IDS)));
    }
    let next = form.get("next").map(str::to_owned);
    if ids.is_empty() {
        return Ok(see_other(next.as_deref(), "/lessons"));
    }
    let now = state.now();
    let (backup, deleted, ids) = pool::write(&state, move |s| {
        s.check_writable()?;
        let label = if let [one] = ids.as_slice() { one.clone() } else { format!("{}-lessons", ids.len()) };
        let backup = devcoach_store::take_safety_backup(s, SafetyKind::Delete, &label, now)?;
        let deleted = s.delete_lessons(&ids)?;
        Ok((backup, deleted, ids))
    })
    .await?;
    let name = backup.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut query = format!("deleted={deleted}&undo={}", enc(&name));
    for id in &ids {
        query.push_str(&format!("&undo_id={}", enc(id)));
    }
    Ok(Redirect::to(&with_query(crate::guard::local_next(next.as_deref(), "/lessons"), &query)).into_response())
}

/// Takes back lessons a delete removed, from the backup it took (named by its file name only).
pub(crate) async fn undo_delete(State(state): State<SharedState>, form: Fields) -> WebResult {
    let name = form.get("backup").unwrap_or_default().to_owned();
    if !devcoach_store::is_safety_backup_name(&name, SafetyKind::Delete) {
        return Err(WebError::BadRequest("that is not a backup devcoach took before a delete".into()));
    }
    let ids: Vec<String> = form.all("id").map(str::to_owned).take(limits::UNDO_IDS).collect();
    let next = form.get("next").map(str::to_owned);
    let path = state.dir.backups_dir().join(&name);
    if !path.is_file() {
        return Err(WebError::NotFound("That backup is gone (devcoach keeps the last ten)"));
    }
    let now = state.now();
    let restored = pool::write(&state, move |s| {
        Ok(devcoach_store::restore_file_scoped(s, &path, now, devcoach_store::Scope::Lessons(&ids))?.lessons)
    })
    .await?;
    let next = crate::guard::local_next(next.as_deref(), "/lessons");
    Ok(Redirect::to(&with_query(next, &format!("restored={restored}"))).into_response())
}

/// `path` with `query` added to whatever query it has.
fn with_query(path: &str, query: &str) -> String {
    format!("{path}{}{query}", if path.contains('?') { '&' } else { '?' })
}
