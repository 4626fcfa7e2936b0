//! The agents' half of `devcoach doctor`: reads every place devcoach is wired into, changes
//! nothing, and says what it finds as data (sections of findings); the binary adds the
//! environment and the database, and prints.

use chrono::{DateTime, Utc};
use devcoach_store::DataDir;

use crate::launch::Launch;
use crate::table::Doctor;
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
    let places = inputs.places;
    let mut sections = Vec::new();
    for &agent in Agent::ALL {
        match agent.spec().doctor {
            Doctor::FromRow if places.agent_dir(agent).is_dir() => sections.push(other_agent(inputs, agent)),
            Doctor::FromRow => {}
            Doctor::Own => sections.extend(own_section(inputs, agent)),
        }
    }
    if let Some(s) = unwired(inputs) {
        sections.push(s);
    }
    sections
}

/// An agent's own section, or `None` when it is not to be shown.
type OwnSection = fn(&Inputs<'_>) -> Option<Section>;

/// The agents with a section of their own, and when it shows: Claude Code always (it is
/// devcoach's first home), the others when their files exist.
const OWN: [(Agent, OwnSection); 4] = [
    (Agent::ClaudeCode, |inputs| Some(claude_code(inputs))),
    (Agent::ClaudeDesktop, |inputs| inputs.places.desktop_config().is_file().then(|| claude_desktop(inputs))),
    (Agent::Gemini, |inputs| inputs.places.gemini_dir().is_dir().then(|| gemini(inputs))),
    (Agent::Codex, |inputs| inputs.places.codex_dir().is_dir().then(|| codex_section(inputs))),
];

fn own_section(inputs: &Inputs<'_>, agent: Agent) -> Option<Section> {
    match OWN.iter().find(|(a, _)| *a == agent) {
        Some((_, section)) => section(inputs),
        // A test keeps the rows and this list agreeing; meanwhile it is read from its row.
        None => inputs.places.agent_dir(agent).is_dir().then(|| other_agent(inputs, agent)),
    }
}

#[cfg(test)]
mod own_tests {
    use super::*;

    #[test]
    fn the_rows_that_ask_for_a_section_of_their_own_are_the_ones_that_have_one() {
        let asked: Vec<Agent> = Agent::ALL.iter().copied().filter(|a| a.spec().doctor == Doctor::Own).collect();
        let have: Vec<Agent> = OWN.iter().map(|(a, _)| *a).collect();
        assert_eq!(asked, have);
    }
}
