//! The `devcoach_instructions` prompt: the skill and its references, as one text.

/// The skill and its references, embedded at build time (the same files `install` copies).
pub const SKILL: &str = include_str!("../../../assets/SKILL.md");
pub const REFERENCES: [(&str, &str); 5] = [
    ("calibration.md", include_str!("../../../assets/references/calibration.md")),
    ("course.md", include_str!("../../../assets/references/course.md")),
    ("onboarding.md", include_str!("../../../assets/references/onboarding.md")),
    ("review.md", include_str!("../../../assets/references/review.md")),
    ("sharing.md", include_str!("../../../assets/references/sharing.md")),
];

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
