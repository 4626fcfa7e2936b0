//! One module per family of commands. Each turns raw arguments into validated values, calls the
//! store, and renders the result.

mod backup;
mod courses;
mod demo;
mod doctor;
mod export;
mod handson;
mod install;
mod knowledge;
mod lessons;
mod mcp;
mod practice;
mod practice_repl;
mod reference;
mod review;
mod settings;
mod setup;
mod share;
mod stats;
pub mod sync;
pub(crate) mod ui;
mod welcome;

use crate::cli::Command;
use crate::context::Ctx;

pub fn run(command: Option<Command>, ctx: &Ctx) -> anyhow::Result<()> {
    let Some(command) = command else {
        return welcome::run(ctx);
    };
    if sync::syncs_in_background(&command) {
        sync::background(ctx);
    }
    match command {
        Command::Mcp => mcp::run(ctx),
        Command::Completions { shell } => reference::completions(shell),
        Command::Man => reference::man(),
        Command::Profile(flag) => knowledge::profile(ctx, flag.json),
        Command::Lessons(args) => lessons::list(ctx, &args),
        Command::Lesson { id, json } => lessons::show(ctx, &id, json.json),
        Command::Star { id } => lessons::star(ctx, &id, true),
        Command::Unstar { id } => lessons::star(ctx, &id, false),
        Command::Delete { id, yes } => lessons::delete(ctx, &id, yes),
        Command::Feedback { id, value } => lessons::feedback(ctx, &id, &value),
        Command::Settings(flag) => settings::show(ctx, flag.json),
        Command::Set { key, value } => settings::set(ctx, &key, &value),
        Command::Stats(flag) => stats::run(ctx, flag.json),
        Command::KnowledgeAdd { topic, level, confidence, group } => knowledge::add(
            ctx,
            &topic,
            level.or(confidence).unwrap_or(devcoach_core::knowledge::DEFAULT_CONFIDENCE),
            group.as_deref(),
        ),
        Command::KnowledgeRemove { topic } => knowledge::remove(ctx, &topic),
        Command::GroupAdd { name } => knowledge::group_add(ctx, &name),
        Command::GroupRemove { name } => knowledge::group_remove(ctx, &name),
        Command::GroupAssign { topic, group } => knowledge::group_assign(ctx, &topic, &group),
        Command::Share(args) => share::share(ctx, &args),
        Command::Import { source } => share::import(ctx, source.as_deref()),
        Command::Sync(args) => sync::run(ctx, &args),
        Command::Backup { file, force } => backup::backup(ctx, &file, force),
        Command::Export { format, output, force } => export::run(ctx, format, output.as_deref(), force),
        Command::Restore { file, lesson, profile } => backup::restore(ctx, &file, lesson.as_deref(), profile),
        Command::Courses(flag) => courses::list(ctx, flag.json),
        Command::Course { id, json } => courses::show(ctx, &id, json.json),
        Command::Demo(args) => demo::run(ctx, &args),
        Command::Install(args) => install::install(ctx, &args),
        Command::Uninstall(args) => install::uninstall(ctx, &args),
        Command::Doctor(json) => doctor::run(ctx, json.json),
        Command::Setup => setup::run(ctx),
        Command::Ui(args) => ui::run(ctx, &args),
        Command::Review(args) => review::run(ctx, args),
        Command::Practice(args) => practice::run(ctx, args),
        Command::Handson(args) => handson::run(ctx, &args),
    }
}
