//! `lessons`, `lesson`, `star`/`unstar`, `delete`, `feedback`.

use std::borrow::Cow;
use std::io::Write as _;

use devcoach_core::Lesson;
use devcoach_core::feedback::{self, FeedbackChoice};
use devcoach_core::lesson::{Feedback, Level};
use devcoach_core::query::{FeedbackFilter, LessonQuery, SortColumn, SortOrder};
use devcoach_core::time::Period;

use crate::cli::LessonsArgs;
use crate::context::Ctx;
use crate::failure::{UserError, invalid};
use crate::output::Style;
use crate::output::style::truncate;
use crate::output::table::{Column, Table};

const TITLE_WIDTH: usize = 48;

fn not_found(id: &str) -> anyhow::Error {
    invalid(format!("no lesson with id '{id}' — run `devcoach lessons` to see the ids"))
}

/// The raw flags as one validated query.
fn query(args: &LessonsArgs) -> anyhow::Result<LessonQuery> {
    let mut q = LessonQuery {
        period: Period::parse(&args.period),
        category: args.category.clone(),
        level: args.level.as_deref().map(Level::parse).transpose()?,
        project: args.project.clone(),
        repository: args.repository.clone(),
        branch: args.branch.clone(),
        commit: args.commit.clone(),
        starred: args.starred.then_some(true),
        imported: if args.imported {
            Some(true)
        } else if args.own {
            Some(false)
        } else {
            None
        },
        shared_by: args.shared_by.clone(),
        feedback: args.feedback.as_deref().and_then(FeedbackFilter::parse),
        sort: SortColumn::parse_or_default(&args.sort),
        order: SortOrder::parse_or_default(&args.order),
        limit: args.limit,
        ..LessonQuery::default()
    };
    if let Some(s) = &args.search {
        q.set_search(s);
    }
    let usage = |e: devcoach_core::query::QueryError| UserError::Usage(e.to_string());
    if let Some(d) = &args.date_from {
        q.dates.set_from(d).map_err(usage)?;
    }
    if let Some(d) = &args.date_to {
        q.dates.set_to(d).map_err(usage)?;
    }
    Ok(q)
}

pub fn feedback_icon(f: Option<Feedback>) -> &'static str {
    match f {
        Some(Feedback::Know) => "✓",
        Some(Feedback::Understood) => "💡",
        Some(Feedback::DontKnow) => "✗",
        None => "",
    }
}

pub fn list(ctx: &Ctx, args: &LessonsArgs) -> anyhow::Result<()> {
    let q = query(args)?;
    let Some(store) = ctx.open_existing()? else {
        return if args.json.json {
            crate::output::json(&Vec::<Lesson>::new())
        } else {
            crate::output::print("No lessons found.").map_err(Into::into)
        };
    };
    let lessons = store.lessons(&q, ctx.now)?;
    if args.json.json {
        crate::output::json(&lessons)?;
        ctx.read_only_notice(&store);
        return Ok(());
    }
    if lessons.is_empty() {
        crate::output::print("No lessons found.")?;
        ctx.read_only_notice(&store);
        return Ok(());
    }
    let total = if q.limit.is_some() { store.count_lessons(&q, ctx.now)? } else { i64::try_from(lessons.len())? };
    print_list(ctx, &lessons, total)?;
    ctx.read_only_notice(&store);
    Ok(())
}

fn short_commit(l: &Lesson) -> Cow<'_, str> {
    match &l.commit_hash {
        Some(c) => Cow::Borrowed(c.get(..7).unwrap_or(c)),
        None => Cow::Borrowed(""),
    }
}

fn opt(v: Option<&String>) -> Cow<'_, str> {
    Cow::Borrowed(v.map_or("", String::as_str))
}

/// The lessons table, streamed to stdout.
fn print_list(ctx: &Ctx, lessons: &[Lesson], total: i64) -> anyhow::Result<()> {
    let meta = lessons.iter().any(|l| l.project.is_some() || l.branch.is_some() || l.commit_hash.is_some());
    let shared = lessons.iter().any(|l| l.imported);
    let mut columns: Vec<Column<'_, Lesson>> = vec![
        Column::new("★", |l: &Lesson| Cow::Borrowed(if l.starred { "★" } else { "" })).fixed(Style::Yellow),
        Column::new("Date", |l: &Lesson| Cow::Borrowed(l.timestamp.get(..10).unwrap_or(&l.timestamp))),
        Column::new("Topic", |l: &Lesson| Cow::Borrowed(l.topic_id.as_str())).fixed(Style::Cyan),
        Column::new("Title", |l: &Lesson| {
            let icon = feedback_icon(l.feedback);
            let title = truncate(&l.title, TITLE_WIDTH);
            match (icon.is_empty(), title) {
                (true, Cow::Borrowed(_)) => Cow::Borrowed(l.title.as_str()),
                (true, cut) => cut,
                (false, t) => Cow::Owned(format!("{t} {icon}")),
            }
        }),
        Column::new("Level", |l: &Lesson| Cow::Borrowed(l.level.as_str())),
        Column::new("Categories", |l: &Lesson| match l.categories.as_slice() {
            [] => Cow::Borrowed(""),
            [one] => Cow::Borrowed(one.as_str()),
            many => Cow::Owned(many.join(", ")),
        })
        .fixed(Style::Dim),
    ];
    if meta {
        columns.push(Column::new("Project", |l: &Lesson| opt(l.project.as_ref())));
        columns.push(Column::new("Branch", |l: &Lesson| opt(l.branch.as_ref())));
        columns.push(Column::new("Commit", short_commit).fixed(Style::Dim));
    }
    if shared {
        columns.push(Column::new("Shared by", |l: &Lesson| {
            if l.imported { Cow::Borrowed(l.shared_by.as_deref().unwrap_or("anonymous")) } else { Cow::Borrowed("") }
        }));
    }
    let shown = lessons.len();
    let noun = if total == 1 { "lesson" } else { "lessons" };
    let footer = if i64::try_from(shown).unwrap_or(i64::MAX) < total {
        format!("showing {shown} of {total} {noun}")
    } else {
        format!("{total} {noun}")
    };
    let table = Table::new(columns).title("Lessons");
    crate::output::write_stdout(|out| {
        table.render(lessons, ctx.term.color_out, out)?;
        writeln!(out, "{}", ctx.term.out(Style::Dim, &footer))
    })?;
    Ok(())
}

pub fn show(ctx: &Ctx, id: &str, json: bool) -> anyhow::Result<()> {
    let store = ctx.open_existing()?.ok_or_else(|| not_found(id))?;
    let lesson = store.lesson(id)?.ok_or_else(|| not_found(id))?;
    if json {
        crate::output::json(&lesson)?;
    } else {
        crate::output::print(&render_detail(ctx, &lesson))?;
    }
    ctx.read_only_notice(&store);
    Ok(())
}

fn render_detail(ctx: &Ctx, l: &Lesson) -> String {
    let t = &ctx.term;
    let mut rows: Vec<(&str, String)> = vec![
        ("ID", l.id.clone()),
        ("Date", l.timestamp.replacen('T', " ", 1).replace('Z', " UTC")),
        ("Topic", l.topic_id.clone()),
        ("Categories", if l.categories.is_empty() { "—".into() } else { l.categories.join(", ") }),
        ("Level", l.level.as_str().into()),
        ("Starred", if l.starred { "★ yes".into() } else { "no".into() }),
        ("Feedback", format!("{} {}", feedback_icon(l.feedback), feedback::label(l.feedback)).trim().to_owned()),
    ];
    if l.imported {
        rows.push(("Shared by", l.shared_by.clone().unwrap_or_else(|| "anonymous".into())));
    }
    if let Some(task) = &l.task_context {
        rows.push(("Context", task.clone()));
    }
    let git: Vec<String> = [
        l.project.clone(),
        l.repository.as_ref().map(|r| match l.repository_platform {
            Some(p) => format!("{r} ({p})"),
            None => r.clone(),
        }),
        l.branch.clone(),
        l.commit_hash.as_ref().map(|c| format!("@ {}", c.chars().take(7).collect::<String>())),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !git.is_empty() {
        rows.push(("Git", git.join(" · ")));
    }
    if let Some(folder) = &l.folder {
        rows.push(("Folder", folder.clone()));
    }
    let mut out = format!("{}\n", t.out(Style::Bold, &l.title));
    for (label, value) in rows {
        out.push_str(&format!("{}  {value}\n", t.out(Style::Dim, &format!("{label:<10}"))));
    }
    out.push('\n');
    out.push_str(&t.out(Style::Italic, &l.summary));
    out.push('\n');
    if let Some(body) = l.body.as_deref().map(str::trim).filter(|b| !b.is_empty()) {
        out.push_str(&format!("\n{}\n{body}\n", t.out(Style::Dim, &"─".repeat(60))));
    }
    out
}

pub fn star(ctx: &Ctx, id: &str, starred: bool) -> anyhow::Result<()> {
    if !ctx.open()?.set_star(id, starred)? {
        return Err(not_found(id));
    }
    let msg = if starred {
        format!("{} Starred {id}", ctx.term.out(Style::Yellow, "★"))
    } else {
        format!("Unstarred {id}")
    };
    Ok(crate::output::print(&msg)?)
}

pub fn delete(ctx: &Ctx, id: &str) -> anyhow::Result<()> {
    if !ctx.open()?.delete_lesson(id)? {
        return Err(not_found(id));
    }
    Ok(crate::output::print(&format!("Deleted {id}"))?)
}

pub fn feedback(ctx: &Ctx, id: &str, value: &str) -> anyhow::Result<()> {
    let choice = FeedbackChoice::parse(value)
        .ok_or_else(|| invalid(format!("unknown feedback '{value}' — use know, understood, dont_know or clear")))?;
    let outcome = ctx.open()?.record_feedback(id, choice, ctx.now)?.ok_or_else(|| not_found(id))?;
    let first = match choice.0 {
        Some(f) => format!("{} Feedback on {id}: {}", feedback_icon(Some(f)), feedback::label(Some(f))),
        None => format!("Feedback cleared on {id}"),
    };
    let second = match (outcome.confidence_before, outcome.confidence) {
        (before, Some(after)) if outcome.delta != 0 => {
            let before = before.map_or_else(|| "untracked".to_owned(), |b| b.to_string());
            format!("{} confidence: {before} → {after}", outcome.topic_id)
        }
        _ => "confidence unchanged".to_owned(),
    };
    Ok(crate::output::print(&format!("{first}\n{}", ctx.term.out(Style::Dim, &second)))?)
}
