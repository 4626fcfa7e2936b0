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
use crate::failure::{UserError, invalid, usage};
use crate::output::table::{Column, Table};
use crate::output::{self, Style};

fn not_found(id: &str) -> anyhow::Error {
    invalid(format!("no lesson with id '{id}' — run `devcoach lessons` to see the ids"))
}

/// The narrowest an id column may be cut (in columns, with its `…`) so that every shown id
/// still names its lesson among `all` (sorted).
pub fn id_column_floor(all: &[impl AsRef<str>], shown: &[&str]) -> usize {
    shown.iter().map(|id| id_floor(id, devcoach_core::ids::unique_prefix_chars(all, id))).fold(5, usize::max)
}

/// [`id_column_floor`] when the shown ids are every id there is, `sorted`.
fn id_column_floor_of_all(sorted: &[&str]) -> usize {
    sorted
        .iter()
        .zip(devcoach_core::ids::unique_prefixes_of_sorted(sorted))
        .map(|(id, n)| id_floor(id, n))
        .fold(5, usize::max)
}

/// How wide `id` is shown cut to its first `n` characters, with the `…` a cut ends in.
fn id_floor(id: &str, n: usize) -> usize {
    if id.is_ascii() {
        // One column a character: no copy to measure (ids are nearly always ASCII).
        let n = n.min(id.len());
        return n + usize::from(n < id.len());
    }
    let start: String = id.chars().take(n).collect();
    // Cut to less than the whole id, the cell ends in `…`.
    crate::output::style::width(&start) + usize::from(n < id.chars().count())
}

/// The lesson id `typed` names (the id, or a start of it that only one id has), for every
/// command that takes one.
pub fn resolve_id(store: &devcoach_store::Store, typed: &str) -> anyhow::Result<String> {
    use devcoach_core::ids::IdLookup;
    match store.find_lesson_id(typed)? {
        IdLookup::Found(id) => Ok(id),
        IdLookup::Missing => Err(not_found(typed)),
        IdLookup::Ambiguous(ids) => {
            let more = if ids.len() > 5 { ", …" } else { "" };
            let shown: Vec<&str> = ids.iter().take(5).map(String::as_str).collect();
            Err(invalid(format!(
                "'{typed}' starts more than one lesson id ({}{more}) — type more of the id",
                shown.join(", ")
            )))
        }
    }
}

/// The raw flags as one validated query.
fn query(args: &LessonsArgs, ctx: &Ctx) -> anyhow::Result<LessonQuery> {
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
    // The flag's own name, not the query field's.
    let usage = |flag: &'static str| {
        move |e: devcoach_core::query::QueryError| {
            let devcoach_core::query::QueryError::BadDate { got, .. } = e;
            UserError::Usage(format!(
                "{flag} takes a date like 2026-05-01 or a timestamp like 2026-05-01T14:30:00Z, not {got:?}"
            ))
        }
    };
    // Dates are the days the table shows: local ones, unless --utc.
    let local = |raw: &str, end: bool| local_day_bound(ctx, raw, end).unwrap_or_else(|| raw.to_owned());
    if let Some(d) = &args.date_from {
        q.dates.set_from(&local(d, false)).map_err(usage("--date-from"))?;
    } else if args.period == "today" && !ctx.utc {
        let today = ctx.now.with_timezone(&chrono::Local).format("%Y-%m-%d").to_string();
        q.dates.set_from(&local(&today, false)).map_err(usage("--period"))?;
    }
    if let Some(d) = &args.date_to {
        q.dates.set_to(&local(d, true)).map_err(usage("--date-to"))?;
    }
    Ok(q)
}

/// A bare date's first (or last) second in the local zone, as a UTC timestamp; `None` for
/// anything else, or with `--utc`.
fn local_day_bound(ctx: &Ctx, raw: &str, end: bool) -> Option<String> {
    use chrono::TimeZone as _;
    if ctx.utc {
        return None;
    }
    let day = chrono::NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d").ok()?;
    let at = if end { day.and_hms_opt(23, 59, 59)? } else { day.and_hms_opt(0, 0, 0)? };
    let local = chrono::Local.from_local_datetime(&at).earliest()?;
    Some(local.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// The mark and the words, or nothing without feedback.
pub fn feedback_text(f: Option<Feedback>) -> String {
    match f {
        Some(_) => format!("{} {}", feedback::mark(f), feedback::label(f)),
        None => String::new(),
    }
}

pub fn list(ctx: &Ctx, args: &LessonsArgs) -> anyhow::Result<()> {
    let q = query(args, ctx)?;
    let Some(store) = ctx.open_for_report()? else {
        return if args.json.json {
            output::print("{\n  \"lessons\": []\n}").map_err(Into::into)
        } else {
            output::print("No lessons found.").map_err(Into::into)
        };
    };
    if args.json.json {
        print_json(&store, &q, ctx)?;
        ctx.read_only_notice(&store);
        return Ok(());
    }
    // Only what the table shows is kept, in one buffer, so a long list stays small in memory.
    let mut list = Listed::default();
    store.visit_lesson_lines(&q, ctx.now, |l| list.push(l, ctx))?;
    if list.rows.is_empty() {
        output::print("No lessons found.")?;
        ctx.read_only_notice(&store);
        return Ok(());
    }
    let total = if q.limit.is_some() { store.count_lessons(&q, ctx.now)? } else { i64::try_from(list.rows.len())? };
    // An id is cut no shorter than what tells it apart from every other (plus its `…`), so what
    // the table shows can be typed back. What sets each shown id apart: its neighbours in id
    // order when few are shown (a `--limit` reads what it shows, not every id), every id when
    // most are; and when the list is every lesson, the ids it holds already.
    let shown: Vec<&str> = list.rows.iter().map(|r| list.text(r.id)).collect();
    let id_min = if q.selects_everything() {
        let mut sorted = shown;
        sorted.sort_unstable();
        sorted.dedup();
        id_column_floor_of_all(&sorted)
    } else if shown.len() <= 500 {
        id_column_floor(&store.lesson_id_neighbours(&shown)?, &shown)
    } else {
        id_column_floor(&store.lesson_ids()?, &shown)
    };
    print_list(ctx, &list, total, id_min)?;
    ctx.read_only_notice(&store);
    Ok(())
}

/// The lessons as pretty JSON, `{"lessons": [...]}` (every list command names its array), written
/// one lesson at a time.
fn print_json(store: &devcoach_store::Store, q: &LessonQuery, ctx: &Ctx) -> anyhow::Result<()> {
    let mut failed = None;
    crate::output::write_stdout(|out| {
        let mut first = true;
        let mut buf = Vec::new();
        let visited = store.visit_lessons(q, ctx.now, devcoach_store::Fields::Full, |l| {
            out.write_all(if first { b"{\n  \"lessons\": [\n" } else { b",\n" })?;
            first = false;
            buf.clear();
            serde_json::to_writer_pretty(&mut buf, &l)?;
            for (i, line) in buf.split(|b| *b == b'\n').enumerate() {
                if i > 0 {
                    out.write_all(b"\n")?;
                }
                out.write_all(b"    ")?;
                out.write_all(line)?;
            }
            Ok::<(), anyhow::Error>(())
        });
        if let Err(e) = visited {
            failed = Some(e);
            return Ok(());
        }
        out.write_all(if first { b"{\n  \"lessons\": []\n}\n" } else { b"\n  ]\n}\n" })
    })?;
    failed.map_or(Ok(()), Err)
}

/// Where a row's text sits in [`Listed::text`].
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    start: u32,
    end: u32,
}

/// What one table row shows; its text is in the list's one buffer.
struct ListRow {
    starred: bool,
    id: Span,
    date: Span,
    topic: Span,
    title: Span,
    feedback: Option<Feedback>,
    level: Level,
    categories: Span,
    project: Option<Span>,
    branch: Option<Span>,
    commit: Option<Span>,
    imported: bool,
    shared_by: Option<Span>,
}

/// The rows of a lessons table and, in one buffer, their text: a row costs its text and
/// about a hundred bytes, not an allocation a field.
#[derive(Default)]
struct Listed {
    text: String,
    rows: Vec<ListRow>,
}

impl Listed {
    fn push(&mut self, l: &devcoach_store::LessonLine<'_>, ctx: &Ctx) -> anyhow::Result<()> {
        let row = ListRow {
            starred: l.starred,
            id: self.add(&l.id)?,
            date: self.span(|t| ctx.push_date(&l.timestamp, t))?,
            topic: self.add(&l.topic_id)?,
            title: self.add(&l.title)?,
            feedback: l.feedback,
            level: l.level,
            categories: self.span(|t| devcoach_core::lesson::push_categories_joined(&l.categories, ", ", t))?,
            project: l.project.as_deref().map(|p| self.add(p)).transpose()?,
            branch: l.branch.as_deref().map(|b| self.add(b)).transpose()?,
            commit: l
                .commit_hash
                .as_deref()
                .map(|c| self.add(c.char_indices().nth(7).map_or(c, |(end, _)| &c[..end])))
                .transpose()?,
            imported: l.imported,
            shared_by: l.shared_by.as_deref().map(|s| self.add(s)).transpose()?,
        };
        self.rows.push(row);
        Ok(())
    }

    fn add(&mut self, s: &str) -> anyhow::Result<Span> {
        self.span(|t| t.push_str(s))
    }

    fn span(&mut self, write: impl FnOnce(&mut String)) -> anyhow::Result<Span> {
        let start = self.text.len();
        write(&mut self.text);
        match (u32::try_from(start), u32::try_from(self.text.len())) {
            (Ok(start), Ok(end)) => Ok(Span { start, end }),
            _ => Err(invalid("these lessons hold more text than one table can show: narrow the list, or use --json")),
        }
    }

    fn text(&self, span: Span) -> &str {
        let at = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
        self.text.get(at(span.start)..at(span.end)).unwrap_or_default()
    }
}

/// A row as the table reads it: the row and the buffer its text is in.
#[derive(Clone, Copy)]
struct Line<'l> {
    list: &'l Listed,
    row: &'l ListRow,
}

impl<'l> Line<'l> {
    fn text(self, span: Span) -> Cow<'l, str> {
        Cow::Borrowed(self.list.text(span))
    }

    fn opt(self, span: Option<Span>) -> Cow<'l, str> {
        Cow::Borrowed(span.map_or("", |s| self.list.text(s)))
    }
}

/// The lessons table, streamed to stdout.
/// `id_min`: the narrowest the id column may be cut ([`id_column_floor`]).
fn print_list(ctx: &Ctx, list: &Listed, total: i64, id_min: usize) -> anyhow::Result<()> {
    let rows: Vec<Line<'_>> = list.rows.iter().map(|row| Line { list, row }).collect();
    let meta = list.rows.iter().any(|r| r.project.is_some() || r.branch.is_some() || r.commit.is_some());
    let shared = list.rows.iter().any(|r| r.imported);
    let answered = list.rows.iter().any(|r| r.feedback.is_some());
    // When the terminal is narrow the least useful go first: extra columns (0), level and
    // sender (1), topic (2), long titles cut to 24 (3), date (4); id and title cut last (5).
    let mut columns: Vec<Column<'_, Line<'_>>> = vec![
        Column::new("★", |l: &Line<'_>| Cow::Borrowed(if l.row.starred { "★" } else { "" })).fixed(Style::Yellow),
        Column::new("ID", |l: &Line<'_>| l.text(l.row.id)).fixed(Style::Cyan).shrink(5, id_min),
        Column::new("Date", |l: &Line<'_>| l.text(l.row.date)).optional(4),
        Column::new("Topic", |l: &Line<'_>| l.text(l.row.topic)).optional(2).shrink(2, 8),
        Column::new("Title", |l: &Line<'_>| l.text(l.row.title)).shrink(3, 24).shrink(5, 12),
    ];
    if answered {
        columns.push(Column::new("✓", |l: &Line<'_>| Cow::Borrowed(feedback::mark(l.row.feedback))));
    }
    columns.push(Column::new("Level", |l: &Line<'_>| Cow::Borrowed(l.row.level.as_str())).optional(1));
    columns.push(Column::new("Categories", |l: &Line<'_>| l.text(l.row.categories)).fixed(Style::Dim).optional(0));
    if meta {
        columns.push(Column::new("Project", |l: &Line<'_>| l.opt(l.row.project)).optional(0));
        columns.push(Column::new("Branch", |l: &Line<'_>| l.opt(l.row.branch)).optional(0));
        columns.push(Column::new("Commit", |l: &Line<'_>| l.opt(l.row.commit)).fixed(Style::Dim).optional(0));
    }
    if shared {
        columns.push(
            Column::new("Shared by", |l: &Line<'_>| {
                if l.row.imported {
                    l.row.shared_by.map_or(Cow::Borrowed("anonymous"), |s| l.text(s))
                } else {
                    Cow::Borrowed("")
                }
            })
            .optional(1),
        );
    }
    let shown = rows.len();
    let noun = if total == 1 { "lesson" } else { "lessons" };
    let mut footer = if i64::try_from(shown).unwrap_or(i64::MAX) < total {
        format!("showing {shown} of {total} {noun}")
    } else {
        format!("{total} {noun}")
    };
    if answered {
        let legend: Vec<String> =
            [Feedback::Know, Feedback::Understood, Feedback::DontKnow].map(|f| feedback_text(Some(f))).into();
        footer.push_str(&format!(" · {}", legend.join(" · ")));
    }
    let table = Table::new(columns).title("Lessons");
    crate::output::write_stdout(|out| {
        table.render(&rows, ctx.term.color_out, ctx.term.table_width(), out)?;
        writeln!(out, "{}", ctx.term.out(Style::Dim, &output::wrap(&footer, ctx.term.width)))
    })?;
    Ok(())
}

pub fn show(ctx: &Ctx, id: &str, json: bool) -> anyhow::Result<()> {
    let store = ctx.open_for_report()?.ok_or_else(|| not_found(id))?;
    let id = resolve_id(&store, id)?;
    let lesson = store.lesson(&id)?.ok_or_else(|| not_found(&id))?;
    if json {
        crate::output::json(&lesson)?;
    } else {
        // Already fitted, and its code lines must keep their shape.
        crate::output::print_verbatim(&render_detail(ctx, &lesson))?;
    }
    ctx.read_only_notice(&store);
    Ok(())
}

fn render_detail(ctx: &Ctx, l: &Lesson) -> String {
    let t = &ctx.term;
    let mut rows: Vec<(&str, String)> = vec![
        ("ID", l.id.clone()),
        ("Date", ctx.show_time(&l.timestamp)),
        ("Topic", l.topic_id.clone()),
        ("Categories", if l.categories.is_empty() { "—".into() } else { l.categories.join(", ") }),
        ("Level", l.level.as_str().into()),
        ("Starred", if l.starred { "★ yes".into() } else { "no".into() }),
        ("Feedback", if l.feedback.is_some() { feedback_text(l.feedback) } else { feedback::label(None).to_owned() }),
    ];
    if l.imported {
        rows.push(("Shared by", l.shared_by.clone().unwrap_or_else(|| "anonymous".into())));
    }
    if let Some(task) = &l.context.task_context {
        rows.push(("Context", task.clone()));
    }
    let git: Vec<String> = [
        l.context.git.project.clone(),
        l.context.git.repository.as_ref().map(|r| match l.context.git.repository_platform {
            Some(p) => format!("{r} ({p})"),
            None => r.clone(),
        }),
        l.context.git.branch.clone(),
        l.context.git.commit_hash.as_ref().map(|c| format!("@{}", c.chars().take(7).collect::<String>())),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !git.is_empty() {
        rows.push(("Git", git.join(" · ")));
    }
    if let Some(folder) = &l.context.git.folder {
        rows.push(("Folder", folder.clone()));
    }
    let mut out = format!("{}\n", t.out(Style::Bold, &output::wrap(&l.title, t.width)));
    for (label, value) in rows {
        // Long values (a task's context) wrap under themselves, past the labels.
        let value = output::wrap_indented(&value, t.width, &" ".repeat(12), &" ".repeat(12));
        out.push_str(&format!("{}  {}\n", t.out(Style::Dim, &format!("{label:<10}")), value.get(12..).unwrap_or("")));
    }
    out.push('\n');
    out.push_str(&t.out(Style::Italic, &output::wrap(&l.summary, t.width)));
    out.push('\n');
    if let Some(body) = l.body.as_deref().map(str::trim).filter(|b| !b.is_empty()) {
        out.push_str(&format!("\n{}\n", t.out(Style::Dim, &"─".repeat(t.width.min(60)))));
        out.push_str(&output::markdown::render(body, t.width, t.color_out));
    }
    out
}

pub fn star(ctx: &Ctx, id: &str, starred: bool) -> anyhow::Result<()> {
    let mut store = ctx.open()?;
    let id = resolve_id(&store, id)?;
    if !store.set_star(&id, starred)? {
        return Err(not_found(&id));
    }
    let msg = if starred {
        format!("{} Starred {id}", ctx.term.out(Style::Yellow, "★"))
    } else {
        format!("Unstarred {id}")
    };
    Ok(crate::output::print(&msg)?)
}

pub fn delete(ctx: &Ctx, typed: &str, yes: bool) -> anyhow::Result<()> {
    let mut store = ctx.open()?;
    let id = resolve_id(&store, typed)?;
    // Unasked, a script names the lesson in full (or as a table showed it): a start that once
    // named a lesson may name another once that one is gone.
    if yes && id != typed.trim() && !devcoach_core::ids::typed_prefix(typed).1 {
        return Err(usage(format!("'{typed}' is only the start of {id}: with --yes, name the lesson by its whole id")));
    }
    store.check_writable()?;
    let title = store.lesson(&id)?.map(|l| l.title).unwrap_or_default();
    if !yes {
        match output::confirm(&format!("Delete \"{title}\" ({id}) and its review history?"))? {
            Some(true) => {}
            Some(false) => return Err(invalid(format!("kept {id}; nothing was deleted"))),
            None => {
                return Err(usage(format!("not deleting {id} without a terminal to ask on — pass --yes to delete it")));
            }
        }
    }
    // The undo: a backup taken just before, from which `restore --lesson` takes this lesson back.
    let backup = devcoach_store::take_safety_backup(&store, devcoach_store::SafetyKind::Delete, &id, ctx.now)?;
    if !store.delete_lesson(&id)? {
        return Err(not_found(&id));
    }
    let quote = devcoach_agents::launch::shell_quote;
    let (path, quoted) = (quote(&backup.display().to_string()), quote(&id));
    let undo = output::command_line(&["devcoach", "restore", &path, "--lesson", &quoted], "  ", ctx.term.width);
    output::print(&format!("Deleted {id}."))?;
    Ok(output::print_verbatim(&ctx.term.out(Style::Dim, &format!("To undo it:\n{undo}")))?)
}

pub fn feedback(ctx: &Ctx, id: &str, value: &str) -> anyhow::Result<()> {
    let choice = FeedbackChoice::parse(value)
        .ok_or_else(|| invalid(format!("unknown feedback '{value}' — use know, understood, dont_know or clear")))?;
    let mut store = ctx.open()?;
    let id = &resolve_id(&store, id)?;
    let outcome = store.record_feedback(id, choice, ctx.now)?.ok_or_else(|| not_found(id))?;
    let first = match choice.0 {
        Some(f) => format!("Feedback on {id}: {}", feedback_text(Some(f))),
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
