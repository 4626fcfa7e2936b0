//! `devcoach doctor`: reads every place devcoach is wired into and the database, changes
//! nothing, and explains what it finds — ending with why the next agent stop would or would not
//! cue a lesson.

use chrono::{DateTime, Utc};
use devcoach_store::DataDir;

use devcoach_agents::launch::Launch;
use devcoach_agents::{Agent, Places};

mod agents;
mod data;
mod desktop;

use agents::{claude_code, codex_section, gemini, other_agent, unwired};
use data::database;
use desktop::claude_desktop;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Ok,
    Info,
    Warn,
    Bad,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    pub text: String,
}

#[derive(Debug, Default)]
pub struct Section {
    pub title: String,
    pub findings: Vec<Finding>,
}

impl Section {
    fn new(title: &str) -> Self {
        Self { title: title.to_owned(), findings: Vec::new() }
    }

    fn add(&mut self, level: Level, text: impl Into<String>) {
        self.findings.push(Finding { level, text: text.into() });
    }
}

/// Everything doctor needs to know about the machine.
pub struct Inputs<'a> {
    pub places: &'a Places,
    pub launch: &'a Launch,
    pub dir: &'a DataDir,
    pub now: DateTime<Utc>,
}

pub fn run(inputs: &Inputs<'_>) -> Vec<Section> {
    let mut sections = vec![environment(inputs), claude_code(inputs)];
    if inputs.places.desktop_config().is_file() {
        sections.push(claude_desktop(inputs));
    }
    if inputs.places.gemini_dir().is_dir() {
        sections.push(gemini(inputs));
    }
    if inputs.places.codex_dir().is_dir() {
        sections.push(codex_section(inputs));
    }
    // The agents above have sections of their own; every other row of the table is read alike.
    for &agent in Agent::ALL {
        let own = matches!(agent, Agent::ClaudeCode | Agent::ClaudeDesktop | Agent::Gemini | Agent::Codex);
        if !own && inputs.places.agent_dir(agent).is_dir() {
            sections.push(other_agent(inputs, agent));
        }
    }
    if let Some(s) = unwired(inputs) {
        sections.push(s);
    }
    sections.extend(database(inputs));
    sections
}

fn environment(inputs: &Inputs<'_>) -> Section {
    let mut s = Section::new("Environment");
    let program = &inputs.launch.program;
    s.add(
        Level::Ok,
        format!("devcoach {} at {} ({})", devcoach_core::APP_VERSION, program.display(), crate::channel::of(program)),
    );
    if let Some(caution) = &inputs.launch.caution {
        s.add(Level::Warn, caution.clone());
    }
    s.add(Level::Info, format!("data directory: {}", inputs.dir.root().display()));
    s
}
