//! The agents' half of `devcoach doctor`: reads every place devcoach is wired into, changes
//! nothing, and says what it finds as data (sections of findings); the binary adds the
//! environment and the database, and prints.

use chrono::{DateTime, Utc};
use devcoach_store::DataDir;

use crate::launch::Launch;
use crate::{Agent, Places};

mod agents;
mod desktop;

use agents::{claude_code, codex_section, gemini, other_agent, unwired};
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
    pub fn new(title: &str) -> Self {
        Self { title: title.to_owned(), findings: Vec::new() }
    }

    pub fn add(&mut self, level: Level, text: impl Into<String>) {
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

/// Doctor's sections for the agents: Claude Code always, every other agent whose folder exists,
/// and the agents devcoach does not wire that it found.
pub fn agent_sections(inputs: &Inputs<'_>) -> Vec<Section> {
    let mut sections = vec![claude_code(inputs)];
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
    sections
}
