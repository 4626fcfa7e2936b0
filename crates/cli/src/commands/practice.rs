//! `practice`: the detectors on stdin (`check`), the session report and the shipped problems.

use std::io::Read;
use std::path::{Path, PathBuf};

use devcoach_core::limits;
use devcoach_practice::problem::{Problem, shipped_slugs};
use devcoach_practice::{Toolbox, log, pasteable_line, report, rung, scan_leaks};
use serde_json::json;

use crate::cli::{CheckCommand, PracticeArgs, PracticeCommand};
use crate::context::Ctx;
use crate::failure::invalid;
use crate::output;

pub fn run(ctx: &Ctx, args: PracticeArgs) -> anyhow::Result<()> {
    match args.command {
        Some(PracticeCommand::Check(check)) => run_check(check),
        Some(PracticeCommand::Report { files, json }) => run_report(ctx, files, json.json),
        Some(PracticeCommand::Problems(json)) => problems(json.json),
        Some(PracticeCommand::Eval {
            backend,
            models,
            max_leak_rate,
            min_gate_compliance,
            max_vocabulary_rate,
            min_marked_rate,
            max_withheld_rate,
            json,
        }) => {
            let thresholds = devcoach_practice::eval::Thresholds {
                max_leak_rate,
                min_gate_compliance,
                max_vocabulary_rate,
                min_marked_rate,
                max_withheld_rate,
            };
            super::practice_repl::eval(ctx, &backend, models, &thresholds, json.json)
        }
        None => super::practice_repl::run(ctx, &args),
    }
}

fn stdin_text() -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin().take(limits::PRACTICE_CHECK_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limits::PRACTICE_CHECK_BYTES {
        return Err(invalid(format!(
            "the input is over {} MiB; check a shorter text",
            limits::PRACTICE_CHECK_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| invalid("the input is not UTF-8 text"))
}

fn run_check(check: CheckCommand) -> anyhow::Result<()> {
    let text = stdin_text()?;
    match check {
        CheckCommand::Code { explain, json } => {
            let verdict = devcoach_practice::classify_code(&text);
            let lines = if explain { devcoach_practice::detect::code::explain(&text) } else { Vec::new() };
            if json.json {
                let mut value = json!({ "verdict": verdict.as_str() });
                if explain {
                    value["lines"] =
                        lines.iter().map(|(l, k, s)| json!({ "line": l, "reads_as": k, "score": s })).collect();
                }
                return output::json(&value);
            }
            let mut out = String::new();
            for (line, kind, score) in &lines {
                out.push_str(&format!("{kind:>9} {score:>4}  {line}\n"));
            }
            out.push_str(verdict.as_str());
            Ok(output::print(&out)?)
        }
        CheckCommand::Leak { learner_text, statement, json } => {
            let statement = match statement {
                Some(path) => Some(read_limited(&path)?),
                None => None,
            };
            let learner: Vec<&str> = learner_text.iter().map(String::as_str).collect();
            let hits = scan_leaks(Toolbox::builtin(), &text, &learner, statement.as_deref());
            let line = pasteable_line(&text, &learner);
            if json.json {
                return output::json(&json!({
                    "leak": !hits.is_empty() || line.is_some(),
                    "hits": hits.iter().map(|h| json!({ "id": h.id, "text": h.text, "in_statement": h.in_statement })).collect::<Vec<_>>(),
                    "code_line": line,
                }));
            }
            let mut out = String::new();
            for hit in &hits {
                let note = if hit.in_statement { " (the statement names it too)" } else { "" };
                out.push_str(&format!("leak: {} ({:?}){note}\n", hit.id, hit.text));
            }
            if let Some(line) = &line {
                out.push_str(&format!("pasteable line: {line}\n"));
            }
            if out.is_empty() {
                out.push_str("no leak\n");
            }
            Ok(output::print(out.trim_end())?)
        }
        CheckCommand::Rung(json) => {
            let (rung, clean) = rung::strip(&text);
            if json.json {
                output::json(&json!({ "rung": rung, "text": clean }))
            } else {
                let shown = rung.map_or_else(|| "no rung".to_owned(), |r| format!("H{r}"));
                Ok(output::print(&format!("{shown}\n{clean}"))?)
            }
        }
    }
}

fn read_limited(path: &Path) -> anyhow::Result<String> {
    // Bounded while reading; a pipe or device is refused without blocking.
    Ok(devcoach_files::read_to_string(path, limits::PRACTICE_CHECK_BYTES, devcoach_files::Links::Follow)?)
}

/// Every session log under the data directory, oldest first (file names start with the date).
fn session_files(ctx: &Ctx) -> Vec<PathBuf> {
    let dir = devcoach_core::layout::practice_sessions(ctx.dir.root());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect()
        })
        .unwrap_or_default();
    // Oldest first: by the time each log was last written, then by name.
    files.sort_by_key(|p| (std::fs::metadata(p).and_then(|m| m.modified()).ok(), p.clone()));
    files
}

fn run_report(ctx: &Ctx, files: Vec<PathBuf>, json: bool) -> anyhow::Result<()> {
    let files = if files.is_empty() { session_files(ctx) } else { files };
    let toolbox = Toolbox::builtin();
    let mut sessions = Vec::new();
    for path in &files {
        let events = log::read(path).map_err(|e| invalid(e.to_string()))?;
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        sessions.push(report::session(&name, &events, toolbox));
    }
    let report = report::build(sessions);
    if json {
        return output::json(&report);
    }
    if report.sessions.is_empty() {
        output::print(&format!(
            "No practice sessions under {}.",
            devcoach_core::layout::practice_sessions(ctx.dir.root()).display()
        ))?;
        return Ok(());
    }
    Ok(output::print(report::render(&report).trim_end())?)
}

fn problems(json: bool) -> anyhow::Result<()> {
    let problems: Vec<Problem> = shipped_slugs().into_iter().filter_map(|s| Problem::shipped(s).ok()).collect();
    if json {
        return output::json(&json!({
            "problems": problems.iter().map(|p| json!({ "slug": p.slug, "title": p.title, "difficulty": p.difficulty })).collect::<Vec<_>>(),
        }));
    }
    let mut out = String::new();
    for p in &problems {
        out.push_str(&format!("{:<32} {:<7} {}\n", p.slug, p.difficulty, p.title));
    }
    Ok(output::print(out.trim_end())?)
}
