//! `devcoach doctor`: reads every place devcoach is wired into and the database, changes
//! nothing, and explains what it finds — ending with why the next agent stop would or would not
//! cue a lesson. The agents' sections come from devcoach-agents; the database's are here.

pub use devcoach_agents::doctor::{Inputs, Level, Section};

mod data;

use data::database;

pub fn run(inputs: &Inputs<'_>) -> Vec<Section> {
    let mut sections = vec![environment(inputs)];
    sections.extend(devcoach_agents::doctor::agent_sections(inputs));
    sections.extend(database(inputs));
    sections
}

fn environment(inputs: &Inputs<'_>) -> Section {
    let mut s = Section::new("Environment");
    let program = &inputs.launch.program;
    s.add(
        Level::Ok,
        format!(
            "devcoach {} at {} ({})",
            devcoach_core::APP_VERSION,
            program.display(),
            devcoach_agents::channel::of(program)
        ),
    );
    if let Some(caution) = &inputs.launch.caution {
        s.add(Level::Warn, caution.clone());
    }
    s.add(Level::Info, format!("data directory: {}", inputs.dir.root().display()));
    s
}
