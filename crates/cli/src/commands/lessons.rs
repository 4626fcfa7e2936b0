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
use crate::output::style::truncate;
use crate::output::table::{Column, Table};
use crate::output::{self, Style};

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
            output::print("[]").map_err(Into::into)
        } else {
            output::print("No lessons found.").map_err(Into::into)
        };
    };
    if args.json.json {
        print_json(&store, &q, ctx)?;
        ctx.read_only_notice(&store);
        return Ok(());
    }
    // Only what the table shows is kept, so a long list stays small in memory.
    let mut rows = Vec::new();
    store.visit_lessons(&q, ctx.now, devcoach_store::Fields::List, |l| {
        rows.push(ListRow::from(&l));
        Ok::<(), anyhow::Error>(())
    })?;
    if rows.is_empty() {
        output::print("No lessons found.")?;
        ctx.read_only_notice(&store);
        return Ok(());
    }
    let total = if q.limit.is_some() { store.count_lessons(&q, ctx.now)? } else { i64::try_from(rows.len())? };
    print_list(ctx, &rows, total)?;
    ctx.read_only_notice(&store);
    Ok(())
}

/// The lessons as a pretty JSON array, written one lesson at a time.
fn print_json(store: &devcoach_store::Store, q: &LessonQuery, ctx: &Ctx) -> anyhow::Result<()> {
    let mut failed = None;
    crate::output::write_stdout(|out| {
        let mut first = true;
        let mut buf = Vec::new();
        let visited = store.visit_lessons(q, ctx.now, devcoach_store::Fields::Full, |l| {
            out.write_all(if first { b"[\n" } else { b",\n" })?;
            first = false;
            buf.clear();
            serde_json::to_writer_pretty(&mut buf, &l)?;
            for (i, line) in buf.split(|b| *b == b'\n').enumerate() {
                if i > 0 {
                    out.write_all(b"\n")?;
                }
                out.write_all(b"  ")?;
                out.write_all(line)?;
            }
            Ok::<(), anyhow::Error>(())
        });
        if let Err(e) = visited {
            failed = Some(e);
            return Ok(());
        }
        out.write_all(if first { b"[]\n" } else { b"\n]\n" })
    })?;
    failed.map_or(Ok(()), Err)
}

/// What one table row shows.
struct ListRow {
    starred: bool,
    date: String,
    topic: String,
    title: String,
    level: &'static str,
    categories: String,
    project: Option<String>,
    branch: Option<String>,
    commit: Option<String>,
    imported: bool,
    shared_by: Option<String>,
}

impl From<&Lesson> for ListRow {
    fn from(l: &Lesson) -> Self {
        let icon = feedback_icon(l.feedback);
        let title = truncate(&l.title, TITLE_WIDTH);
        Self {
            starred: l.starred,
            date: l.timestamp.get(..10).unwrap_or(&l.timestamp).to_owned(),
            topic: l.topic_id.clone(),
            title: if icon.is_empty() { title.into_owned() } else { format!("{title} {icon}") },
            level: l.level.as_str(),
            categories: l.categories.join(", "),
            project: l.project.clone(),
            branch: l.branch.clone(),
            commit: l.commit_hash.as_deref().map(|c| c.chars().take(7).collect()),
            imported: l.imported,
            shared_by: l.shared_by.clone(),
        }
    }
}

fn opt(v: Option<&String>) -> Cow<'_, str> {
    Cow::Borrowed(v.map_or("", String::as_str))
}

/// The lessons table, streamed to stdout.
fn print_list(ctx: &Ctx, rows: &[ListRow], total: i64) -> anyhow::Result<()> {
    let meta = rows.iter().any(|r| r.project.is_some() || r.branch.is_some() || r.commit.is_some());
    let shared = rows.iter().any(|r| r.imported);
    let mut columns: Vec<Column<'_, ListRow>> = vec![
        Column::new("★", |r: &ListRow| Cow::Borrowed(if r.starred { "★" } else { "" })).fixed(Style::Yellow),
        Column::new("Date", |r: &ListRow| Cow::Borrowed(r.date.as_str())),
        Column::new("Topic", |r: &ListRow| Cow::Borrowed(r.topic.as_str())).fixed(Style::Cyan),
        Column::new("Title", |r: &ListRow| Cow::Borrowed(r.title.as_str())),
        Column::new("Level", |r: &ListRow| Cow::Borrowed(r.level)),
        Column::new("Categories", |r: &ListRow| Cow::Borrowed(r.categories.as_str())).fixed(Style::Dim),
    ];
    if meta {
        columns.push(Column::new("Project", |r: &ListRow| opt(r.project.as_ref())));
        columns.push(Column::new("Branch", |r: &ListRow| opt(r.branch.as_ref())));
        columns.push(Column::new("Commit", |r: &ListRow| opt(r.commit.as_ref())).fixed(Style::Dim));
    }
    if shared {
        columns.push(Column::new("Shared by", |r: &ListRow| {
            if r.imported { Cow::Borrowed(r.shared_by.as_deref().unwrap_or("anonymous")) } else { Cow::Borrowed("") }
        }));
    }
    let shown = rows.len();
    let noun = if total == 1 { "lesson" } else { "lessons" };
    let footer = if i64::try_from(shown).unwrap_or(i64::MAX) < total {
        format!("showing {shown} of {total} {noun}")
    } else {
        format!("{total} {noun}")
    };
    let table = Table::new(columns).title("Lessons");
    crate::output::write_stdout(|out| {
        table.render(rows, ctx.term.color_out, out)?;
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
