//! `courses` and `course`.

use std::borrow::Cow;

use devcoach_core::course::{Course, CourseId, StepStatus};
use devcoach_store::CourseFilter;
use serde_json::json;

use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::table::{Column, Table};
use crate::output::{self, Style};

fn course_json(c: &Course) -> serde_json::Value {
    json!({
        "id": c.id, "lesson_id": c.lesson_id, "topic_id": c.topic_id, "title": c.title, "goal": c.goal,
        "prerequisites": c.prerequisites.iter().map(|p| json!({"concept": p.concept, "known": p.known})).collect::<Vec<_>>(),
        "status": c.status.as_str(), "created_at": c.created_at, "updated_at": c.updated_at, "completed_at": c.completed_at,
        "steps": c.steps.iter().map(|s| json!({
            "course_id": s.course_id, "position": s.position, "title": s.title, "kind": s.kind.as_str(),
            "anchor": s.anchor, "status": s.status.as_str(), "done_at": s.done_at,
        })).collect::<Vec<_>>(),
    })
}

pub fn list(ctx: &Ctx, json: bool) -> anyhow::Result<()> {
    let store = ctx.open_for_report()?;
    let courses = match &store {
        Some(s) => s.courses(&CourseFilter::default())?,
        None => Vec::new(),
    };
    if json {
        output::json(&json!({ "courses": courses.iter().map(course_json).collect::<Vec<_>>() }))?;
    } else if courses.is_empty() {
        output::print(
            "No courses yet. Ask your agent to turn a lesson into a course (\"make a course from the rebase lesson\").",
        )?;
    } else {
        let table = Table::new(vec![
            Column::new("ID", |c: &Course| Cow::Borrowed(c.id.as_str())).fixed(Style::Cyan).shrink(3, 12),
            Column::new("Title", |c: &Course| Cow::Borrowed(c.title.as_str())).shrink(3, 12),
            Column::new("Progress", |c: &Course| {
                let (done, total) = c.progress();
                Cow::Owned(format!("{done}/{total}"))
            }),
            Column::new("Status", |c: &Course| Cow::Borrowed(c.status.as_str())).optional(1),
            Column::new("Updated", |c: &Course| Cow::Owned(ctx.show_date(&c.updated_at))).fixed(Style::Dim).optional(0),
        ])
        .title("Courses");
        output::print(&table.for_term(&courses, ctx.term))?;
    }
    if let Some(s) = &store {
        ctx.read_only_notice(s);
    }
    Ok(())
}

pub fn show(ctx: &Ctx, id: &str, json: bool) -> anyhow::Result<()> {
    let missing = || invalid(format!("no course with id '{id}' — run `devcoach courses` to see them"));
    let course_id = CourseId::parse(id).map_err(|_| missing())?;
    let store = ctx.open_for_report()?.ok_or_else(missing)?;
    let course = store.course(&course_id)?.ok_or_else(missing)?;
    if json {
        output::json(&course_json(&course))?;
        return Ok(());
    }
    let t = &ctx.term;
    let (done, total) = course.progress();
    let mut out = format!("{}\n", t.out(Style::Bold, &course.title));
    out.push_str(&format!(
        "{}  {} · {} · {done}/{total} steps\n",
        t.out(Style::Dim, "Course    "),
        course.topic_id,
        course.status.as_str()
    ));
    if let Some(goal) = &course.goal {
        out.push_str(&format!("{}  {goal}\n", t.out(Style::Dim, "Goal      ")));
    }
    if let Some(lesson) = &course.lesson_id {
        out.push_str(&format!("{}  {lesson}\n", t.out(Style::Dim, "Seed      ")));
    }
    let dir = store.data_dir();
    let document = match dir.course_document(&course_id) {
        Ok(Some(path)) => path.display().to_string(),
        _ => format!("not written yet → {}", dir.course_document_path(&course_id).display()),
    };
    out.push_str(&format!("{}  {document}\n", t.out(Style::Dim, "Document  ")));
    if !course.prerequisites.is_empty() {
        out.push_str(&format!("\n{}\n", t.out(Style::Bold, "Builds on")));
        for p in &course.prerequisites {
            let mark = if p.known { t.out(Style::Green, "✓") } else { t.out(Style::Yellow, "✗") };
            out.push_str(&format!("  {mark} {}\n", p.concept));
        }
    }
    out.push_str(&format!("\n{}\n", t.out(Style::Bold, "Steps")));
    if course.steps.is_empty() {
        out.push_str(&format!("  {}\n", t.out(Style::Dim, "none registered yet")));
    }
    for s in &course.steps {
        let mark = match s.status {
            StepStatus::Done => t.out(Style::Green, "●"),
            StepStatus::Skipped => t.out(Style::Dim, "◌"),
            StepStatus::Todo => "○".to_owned(),
        };
        out.push_str(&format!(
            "  {mark} {}. {} {}\n",
            s.position,
            s.title,
            t.out(Style::Dim, &format!("· {} · #{}", s.kind.as_str(), s.anchor))
        ));
    }
    output::print(&out)?;
    ctx.read_only_notice(&store);
    Ok(())
}
