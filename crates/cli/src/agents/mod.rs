//! The agents, as the binary uses them: their table and wiring live in `devcoach-agents`; what
//! is left here is the doctor, which reads the wiring and the database together.

pub mod doctor;

pub use devcoach_agents::{
    Agent, Places, codex, config, detected, gemini, hook_entries, hooks_wired, launch, ledger, plugin, select, skill,
    skill_hint, wire,
};
