//! `stats`: lesson counts, whether a lesson may come next, and the ends of the map.

use devcoach_core::checked::CalibrationReport;
use devcoach_core::knowledge::KnowledgeEntry;
use devcoach_core::pacing::{NextLesson, OnboardingCall};
use devcoach_core::rate_limit::RateLimit;
use devcoach_core::settings::Settings;
use devcoach_core::stats::Stats;
use serde::Serialize;

use crate::context::Ctx;
use crate::output::Style;
use crate::output::style::confidence_style;

#[derive(Serialize)]
struct StatsJson<'a> {
    #[serde(flatten)]
    stats: &'a Stats,
    max_per_day: i64,
    rate_limit: &'a RateLimit,
    /// When the next lesson comes, in the words every front end uses.
    next_lesson: String,
    /// Self-reports against checked answers, per topic (as the MCP resource gives it).
    calibration: CalibrationReport,
}

pub fn run(ctx: &Ctx, json: bool) -> anyhow::Result<()> {
    let store = ctx.open_for_report()?;
    let next = match &store {
        Some(s) => s.next_lesson(ctx.now)?,
        None => NextLesson::NeedsProfile(OnboardingCall::Ask),
    };
    let (stats, settings, rate) = match &store {
        Some(s) => (s.stats(ctx.now)?, s.settings()?, s.rate_limit(ctx.now)),
        None => (
            Stats {
                total_lessons: 0,
                lessons_today: 0,
                lessons_this_week: 0,
                imported_lessons: 0,
                weakest_topics: vec![],
                strongest_topics: vec![],
            },
            Settings::default(),
            RateLimit::allowed(),
        ),
    };
    if json {
        // A database only the TypeScript build has written may lack our table: no calibration.
        let topics = store.as_ref().and_then(|s| s.calibration().ok()).unwrap_or_default();
        crate::output::json(&StatsJson {
            stats: &stats,
            max_per_day: settings.max_per_day,
            rate_limit: &rate,
            next_lesson: next.to_string(),
            calibration: CalibrationReport::new(&topics),
        })?;
    } else {
        crate::output::print(&render(ctx, &stats, &settings, &next))?;
        if let Some(hint) = devcoach_agents::skill_hint() {
            crate::output::note(&ctx.term.err(crate::output::Style::Yellow, &hint));
        }
    }
    if let Some(s) = &store {
        ctx.read_only_notice(s);
    }
    Ok(())
}

fn topics(ctx: &Ctx, entries: &[KnowledgeEntry]) -> String {
    if entries.is_empty() {
        return ctx.term.out(Style::Dim, "—");
    }
    entries
        .iter()
        .map(|e| {
            format!("{} {}", e.topic, ctx.term.out(confidence_style(e.confidence), &format!("{}/10", e.confidence)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn render(ctx: &Ctx, s: &Stats, settings: &Settings, next: &NextLesson) -> String {
    let t = &ctx.term;
    let label = |l: &str| t.out(Style::Dim, &format!("{l:<16}"));
    let style = match next {
        NextLesson::NextTurn => Style::Green,
        NextLesson::InTurns { .. } => Style::Plain,
        _ => Style::Yellow,
    };
    let next = t.out(style, &next.to_string());
    let shared =
        if s.imported_lessons > 0 { format!(" ({} shared with you)", s.imported_lessons) } else { String::new() };
    [
        t.out(Style::Bold, "devcoach stats"),
        format!("{}{}{shared}", label("Lessons"), s.total_lessons),
        if s.lessons_today > settings.max_per_day {
            format!("{}{}, past the daily {}", label("Last 24 hours"), s.lessons_today, settings.max_per_day)
        } else {
            format!("{}{} / {} max", label("Last 24 hours"), s.lessons_today, settings.max_per_day)
        },
        format!("{}{}", label("Last 7 days"), s.lessons_this_week),
        format!("{}{next}", label("Next lesson")),
    ]
    .into_iter()
    .chain(if s.strongest_topics.iter().any(|t| s.weakest_topics.contains(t)) {
        // Few topics: one list, weakest first, rather than the same names twice.
        let mut all = s.weakest_topics.clone();
        all.extend(s.strongest_topics.iter().filter(|t| !s.weakest_topics.contains(t)).cloned());
        all.sort_by(|a, b| a.confidence.cmp(&b.confidence).then_with(|| a.topic.cmp(&b.topic)));
        vec![format!("{}{}", label("Topics"), topics(ctx, &all))]
    } else {
        vec![
            format!("{}{}", label("Weakest"), topics(ctx, &s.weakest_topics)),
            format!("{}{}", label("Strongest"), topics(ctx, &s.strongest_topics)),
        ]
    })
    // Long values wrap under themselves, past the labels.
    .map(|line| crate::output::wrap_indented(&line, t.width, "", &" ".repeat(16)))
    .collect::<Vec<_>>()
    .join("\n")
}
