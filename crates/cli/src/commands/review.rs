//! `review`: the interactive review, the due list, grading, the schedule explainer, settings
//! and the Anki export.

use std::borrow::Cow;
use std::io::{BufRead, Write};

use devcoach_core::fsrs::{Grade, Scheduler};
use devcoach_core::review::{ReviewMix, ReviewSettings};
use devcoach_store::{CountsAs, DueReview, GradeOutcome};
use serde_json::json;

use crate::cli::{ReviewArgs, ReviewCommand};
use crate::context::Ctx;
use crate::failure::{invalid, usage};
use crate::output::table::{Column, Table};
use crate::output::{self, Style};

pub fn run(ctx: &Ctx, args: ReviewArgs) -> anyhow::Result<()> {
    match args.command {
        None => interactive(ctx),
        Some(ReviewCommand::Due { limit, json }) => due(ctx, limit, json.json),
        Some(ReviewCommand::Grade { id, grade: raw, json }) => grade(ctx, &id, &raw, json.json),
        Some(ReviewCommand::Schedule { ratings, elapsed_days, retention, json }) => {
            schedule(&ratings, &elapsed_days, retention, json.json)
        }
        Some(ReviewCommand::Settings { retention, mix, json }) => settings(ctx, retention, mix.as_deref(), json.json),
        Some(ReviewCommand::Optimize { reset, json }) => optimize(ctx, reset, json.json),
        // Kept for scripts written before `devcoach export --format anki`.
        Some(ReviewCommand::Export { anki }) => {
            super::export::run(ctx, crate::cli::ExportFormat::Anki, Some(&anki), true)
        }
    }
}

fn recall(r: Option<f64>) -> String {
    r.map_or_else(|| "new".to_owned(), |r| format!("{:.0}%", r * 100.0))
}

fn due(ctx: &Ctx, limit: u32, json: bool) -> anyhow::Result<()> {
    let now = ctx.now;
    let (cards, total, all_ids) = match ctx.open_existing()? {
        Some(mut store) => {
            store.ensure_review_cards(now)?;
            let (cards, total) = store.due_reviews(now, limit.max(1))?;
            (cards, total, store.lesson_ids()?)
        }
        None => (Vec::new(), 0, Vec::new()),
    };
    if json {
        return output::json(&json!({
            "total_due": total,
            "cards": cards.iter().map(|d| json!({
                "lesson_id": d.card.lesson_id, "title": d.title, "topic_id": d.topic, "question": d.card.question,
                "due": d.card.due, "predicted_recall": d.retrievability, "reviews": d.card.reps,
            })).collect::<Vec<_>>(),
        }));
    }
    if cards.is_empty() {
        output::print(&output::wrap(
            "Nothing to review now. Cards come back a day after their lesson, then as FSRS schedules them.",
            ctx.term.width,
        ))?;
        return Ok(());
    }
    let shown: Vec<&str> = cards.iter().map(|d| d.card.lesson_id.as_str()).collect();
    let id_min = super::lessons::id_column_floor(&all_ids, &shown);
    let table = Table::new(vec![
        Column::new("Lesson", |d: &DueReview| Cow::Borrowed(d.card.lesson_id.as_str()))
            .fixed(Style::Cyan)
            .shrink(2, id_min),
        Column::new("Question", |d: &DueReview| Cow::Borrowed(d.card.question.as_str())).shrink(1, 40).shrink(3, 16),
        Column::new("Recall", |d: &DueReview| Cow::Owned(recall(d.retrievability))).optional(0),
        Column::new("Due", |d: &DueReview| Cow::Owned(ctx.show_date(&d.card.due))).fixed(Style::Dim).optional(2),
    ])
    .title("Due for review");
    output::print(&table.for_term(&cards, ctx.term))?;
    if total > i64::try_from(cards.len()).unwrap_or(i64::MAX) {
        output::print(&output::wrap(
            &format!("{total} due in all. Run `devcoach review` to go through them."),
            ctx.term.width,
        ))?;
    } else {
        output::print(&output::wrap("Run `devcoach review` to go through them.", ctx.term.width))?;
    }
    Ok(())
}

fn outcome_json(o: &GradeOutcome) -> serde_json::Value {
    json!({
        "lesson_id": o.card.lesson_id, "grade": o.grade.as_str(), "expected_answer": o.card.answer,
        "next_review_in_days": o.graded.step.interval, "due": o.card.due,
        "stability": o.graded.step.memory.stability, "difficulty": o.graded.step.memory.difficulty,
        "predicted_recall": (o.graded.reps > 1).then_some(o.graded.step.retrievability),
        "counts_as": o.counts_as.as_str(),
    })
}

fn next_in(days: u32) -> String {
    if days == 1 { "tomorrow".to_owned() } else { format!("in {days} days") }
}

fn grade(ctx: &Ctx, id: &str, raw: &str, json: bool) -> anyhow::Result<()> {
    let g = Grade::parse(raw).map_err(|e| usage(e.to_string()))?;
    let mut store = ctx.open()?;
    let id = &super::lessons::resolve_id(&store, id)?;
    let outcome = store
        .grade_review(id, g, ctx.now)?
        .ok_or_else(|| invalid(format!("no lesson with id '{id}' — run `devcoach review due` to see the cards")))?;
    if json {
        return output::json(&outcome_json(&outcome));
    }
    let text = match outcome.counts_as {
        CountsAs::Reviewed => format!("Graded {}: back {}.", g.as_str(), next_in(outcome.graded.step.interval)),
        CountsAs::Replaced => format!(
            "Graded {}, in place of today's earlier grade (a card is reviewed once a day): back {}.",
            g.as_str(),
            next_in(outcome.graded.step.interval)
        ),
        CountsAs::Kept => format!(
            "Today's checked grade ({}) stands; your own grade changes nothing today. Back {}.",
            outcome.grade.as_str(),
            next_in(outcome.graded.step.interval)
        ),
    };
    output::print(&format!("{} {text}", ctx.term.out(Style::Green, "✓")))?;
    Ok(())
}

fn schedule(ratings: &[String], elapsed: &[u32], retention: f64, json: bool) -> anyhow::Result<()> {
    if ratings.len() != elapsed.len() {
        return Err(usage(format!(
            "--ratings has {} values and --elapsed-days {}: give one elapsed-days value per rating",
            ratings.len(),
            elapsed.len()
        )));
    }
    let grades =
        ratings.iter().map(|r| Grade::parse(r)).collect::<Result<Vec<_>, _>>().map_err(|e| usage(e.to_string()))?;
    let scheduler = Scheduler::with_retention(retention).map_err(|e| usage(e.to_string()))?;
    let history: Vec<(u32, Grade)> = elapsed.iter().copied().zip(grades.iter().copied()).collect();
    let steps = scheduler.replay(history.iter().copied());
    if json {
        return output::json(
            &steps
                .iter()
                .zip(&history)
                .enumerate()
                .map(|(i, (s, (days, g)))| {
                    json!({
                        "review": i + 1, "rating": g.number(), "elapsed_days": if i == 0 { 0 } else { *days },
                        "retrievability": s.retrievability, "interval_days": s.interval,
                        "stability": s.memory.stability, "difficulty": s.memory.difficulty,
                    })
                })
                .collect::<Vec<_>>(),
        );
    }
    let mut text = format!("FSRS-6, default parameters, desired retention {retention}, no fuzz\n");
    for (i, (s, (days, g))) in steps.iter().zip(&history).enumerate() {
        let when = if i == 0 {
            "first review".to_owned()
        } else {
            format!("{days} d later, recall {:.0}%", s.retrievability * 100.0)
        };
        text.push_str(&format!(
            "{:>2}. {:<5} ({when}) → next in {} d · stability {:.2} d · difficulty {:.2}\n",
            i + 1,
            g.as_str(),
            s.interval,
            s.memory.stability,
            s.memory.difficulty
        ));
    }
    output::print(text.trim_end())?;
    Ok(())
}

fn settings(ctx: &Ctx, retention: Option<f64>, mix: Option<&str>, json: bool) -> anyhow::Result<()> {
    let mut current = match ctx.open_existing()? {
        Some(store) => store.review_settings()?,
        None => ReviewSettings::default(),
    };
    if retention.is_some() || mix.is_some() {
        if let Some(r) = retention {
            Scheduler::with_retention(r).map_err(|e| usage(e.to_string()))?;
            current.retention = r;
        }
        if let Some(m) = mix {
            current.mix = ReviewMix::parse(m)
                .ok_or_else(|| usage(format!("--mix is off, alternate or reviews_first, not '{m}'")))?;
        }
        ctx.open()?.set_review_settings(&current)?;
    }
    if json {
        return output::json(&json!({ "retention": current.retention, "mix": current.mix.as_str() }));
    }
    output::print(&format!(
        "retention  {}  (the recall probability reviews aim for)\nmix        {}  (when the agent offers a review instead of a new lesson)",
        current.retention,
        current.mix.as_str()
    ))?;
    Ok(())
}

fn optimize(ctx: &Ctx, reset: bool, json: bool) -> anyhow::Result<()> {
    let mut store = ctx.open_existing()?.ok_or_else(|| invalid("no reviews yet: run `devcoach review` first"))?;
    let mut settings = store.review_settings()?;
    if reset {
        settings.parameters = None;
        store.set_review_settings(&settings)?;
        if json {
            return output::json(&json!({ "parameters": null }));
        }
        output::print(&format!("{} Back to FSRS's default parameters.", ctx.term.out(Style::Green, "✓")))?;
        return Ok(());
    }
    let current = settings.parameters.unwrap_or_default();
    let fit = devcoach_core::fsrs_fit::fit(&store.review_histories()?, &current)
        .map_err(|e| invalid(format!("{e}. Keep reviewing; your own parameters come later.")))?;
    if fit.kept {
        settings.parameters = Some(fit.parameters);
        store.set_review_settings(&settings)?;
    }
    if json {
        return output::json(&json!({
            "repeat_reviews": fit.repeat_reviews, "log_loss_before": fit.log_loss_before,
            "log_loss_after": fit.log_loss_after, "held_out_before": fit.held_out_before,
            "held_out_after": fit.held_out_after, "kept": fit.kept,
            "parameters": fit.parameters.values().to_vec(),
        }));
    }
    if fit.kept {
        output::print(&format!(
            "{} Fitted to {} repeat reviews: on reviews each fit had not seen, log loss {:.4} → {:.4} (lower \
             predicts your recall better). Saved; `--reset` goes back.",
            ctx.term.out(Style::Green, "✓"),
            fit.repeat_reviews,
            fit.held_out_before,
            fit.held_out_after
        ))?;
    } else {
        output::print(&format!(
            "Kept the parameters you have: a fit to your {} repeat reviews did not predict reviews it had not \
             seen clearly better (log loss {:.4} with yours, {:.4} fitted).",
            fit.repeat_reviews, fit.held_out_before, fit.held_out_after
        ))?;
    }
    Ok(())
}

fn interactive(ctx: &Ctx) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    // Cards hold lesson text from anywhere: the door keeps it inert.
    // Piped answers are echoed after their prompts, so a script's transcript reads in order.
    let echo = !std::io::IsTerminal::is_terminal(&stdin);
    session(ctx, &mut stdin.lock(), &mut output::stdout(), echo)
}

/// Shows `prompt` and reads one line into `line` (echoed when piped); `false` when the learner
/// stops (`q`, or the input ends).
fn ask(
    input: &mut impl BufRead,
    out: &mut impl Write,
    line: &mut String,
    echo: bool,
    prompt: &str,
) -> anyhow::Result<bool> {
    write!(out, "{prompt} ")?;
    out.flush()?;
    line.clear();
    let read = input.read_line(line)?;
    if echo && read > 0 {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(read > 0 && line.trim() != "q")
}

/// One card at a time: the question, the learner's own answer (or just Enter), the expected
/// answer, a grade. Line-based, so it also runs from a script.
fn session(ctx: &Ctx, input: &mut impl BufRead, out: &mut impl Write, echo: bool) -> anyhow::Result<()> {
    let Some(mut store) = ctx.open_existing()? else {
        writeln!(out, "No lessons yet, so nothing to review.")?;
        return Ok(());
    };
    store.ensure_review_cards(ctx.now)?;
    let paint = |style: Style, text: &str| style.paint(text, ctx.term.color_out);
    // Cards hold lesson text of any length: every line is wrapped at spaces to the width.
    let fit = |text: String| output::fill(&text, ctx.term.width);
    let mut done = 0;
    let mut introduced = false;
    let mut line = String::new();
    loop {
        let (cards, total) = store.due_reviews(ctx.now, 1)?;
        let Some(card) = cards.into_iter().next() else {
            if done == 0 {
                writeln!(out, "Nothing to review now. Cards come back a day after their lesson.")?;
            } else {
                writeln!(
                    out,
                    "{} All caught up: {} reviewed.",
                    paint(Style::Green, "✓"),
                    output::plural(done, "card")
                )?;
            }
            return Ok(());
        };
        if !introduced {
            introduced = true;
            let text = "You grade yourself here. A review through your agent checks your answer instead, and a \
                        checked answer counts for more.";
            writeln!(out, "{}", paint(Style::Dim, &output::wrap(text, ctx.term.width)))?;
        }
        writeln!(
            out,
            "\n{}",
            fit(format!(
                "{} {}  {}",
                paint(Style::Dim, &format!("[{total} due]")),
                paint(Style::Cyan, &card.topic),
                paint(Style::Dim, &card.title)
            ))
        )?;
        writeln!(out, "{}", fit(paint(Style::Bold, &card.card.question)))?;
        if !ask(input, out, &mut line, echo, &fit("Your answer (Enter to just show it, q to stop):".to_owned()))? {
            writeln!(out, "\nStopped; {} reviewed.", output::plural(done, "card"))?;
            return Ok(());
        }
        writeln!(out, "{}", fit(format!("{} {}", paint(Style::Green, "Expected:"), card.card.answer)))?;
        let g = loop {
            let prompt = fit("Grade yourself: 1 again · 2 hard · 3 good · 4 easy (q to stop):".to_owned());
            if !ask(input, out, &mut line, echo, &prompt)? {
                writeln!(out, "\nStopped; {} reviewed.", output::plural(done, "card"))?;
                return Ok(());
            }
            match Grade::parse(&line) {
                Ok(g) => break g,
                Err(_) => writeln!(out, "Type 1, 2, 3 or 4 (or again, hard, good, easy).")?,
            }
        };
        // Each grade at its own moment: a session can last minutes.
        let outcome = store
            .grade_review(&card.card.lesson_id, g, ctx.clock.now())?
            .ok_or_else(|| invalid("the lesson was deleted while you reviewed it"))?;
        done += 1;
        writeln!(out, "{}: back {}.", paint(Style::Dim, g.as_str()), next_in(outcome.graded.step.interval))?;
    }
}
