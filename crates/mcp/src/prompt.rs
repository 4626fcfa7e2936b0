//! The `devcoach_instructions` prompt: the skill and its references, as one text.

/// The skill and its references (the same files `install` copies).
pub use devcoach_assets::{SKILL, SKILL_REFERENCES as REFERENCES};

pub const NAME: &str = "devcoach_instructions";
pub const TITLE: &str = "devcoach coaching instructions";

/// SKILL.md followed by every reference (sorted by file name), each after a separator and a
/// comment naming it.
pub fn text() -> String {
    if SKILL.trim().is_empty() {
        return "devcoach instructions are unavailable in this build.".into();
    }
    let mut out = SKILL.to_owned();
    for (name, content) in REFERENCES {
        out.push_str(&format!("\n\n---\n\n<!-- reference: {name} -->\n\n{content}"));
    }
    out
}
