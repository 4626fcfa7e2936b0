//! The files devcoach embeds at build time, in one crate so that each published crate can reach
//! them (Cargo packages only what sits inside a crate's folder) and there is one copy of each.
//! Nothing here has behaviour; the crates that use a file decide what it means.

/// The coaching skill the agents load (`SKILL.md`).
pub const SKILL: &str = include_str!("../SKILL.md");

/// The skill's references, sorted by file name (the order the prompt joins them in).
pub const SKILL_REFERENCES: [(&str, &str); 7] = [
    ("calibration.md", include_str!("../references/calibration.md")),
    ("checking.md", include_str!("../references/checking.md")),
    ("course.md", include_str!("../references/course.md")),
    ("handson.md", include_str!("../references/handson.md")),
    ("onboarding.md", include_str!("../references/onboarding.md")),
    ("review.md", include_str!("../references/review.md")),
    ("sharing.md", include_str!("../references/sharing.md")),
];

macro_rules! static_file {
    ($name:literal) => {
        ($name, include_bytes!(concat!("../static/", $name)).as_slice())
    };
}

/// The dashboard's static files, served as `/static/<name>`.
pub const STATIC_FILES: &[(&str, &[u8])] = &[
    static_file!("app.css"),
    static_file!("app.js"),
    static_file!("theme.js"),
    static_file!("course-viewer.js"),
    static_file!("favicon.svg"),
    static_file!("vendor/highlight.min.js"),
    static_file!("vendor/highlight.LICENSE.txt"),
];

/// The dashboard's stylesheet, which holds the palette tokens.
pub const APP_CSS: &str = include_str!("../static/app.css");

/// The script injected into course documents (and nothing else).
pub const COURSE_FRAME_JS: &str = include_str!("../static/course-frame.js");

/// The lesson and review cards a chat host shows beside a tool result (MCP Apps): their
/// stylesheet (tokens only) and their script. Put inline in one document each; not served.
pub const MCP_APP_CSS: &str = include_str!("../static/mcp-app.css");
pub const MCP_APP_JS: &str = include_str!("../static/mcp-app.js");

/// The vendored highlight.js that fills course documents, and its licence.
pub const HIGHLIGHT_JS: &str = include_str!("../static/vendor/highlight.min.js");
pub const HIGHLIGHT_LICENSE: &str = include_str!("../static/vendor/highlight.LICENSE.txt");

/// The demo learner (`devcoach demo`, `ui --demo`): its profile, lessons, answers, reviews and
/// course as data, replayed in time order by the store's demo builder.
pub const DEMO_LEARNER: &str = include_str!("../demo/learner.json");
/// The demo learner's coaching notebook.
pub const DEMO_NOTEBOOK: &str = include_str!("../demo/learning-state.md");
/// The demo course's document, as an agent writes one.
pub const DEMO_COURSE_DOCUMENT: &str = include_str!("../demo/course.html");

/// The share landing page: static and self-contained, published as is and served at `/lesson`.
pub const LESSON_PAGE: &str = include_str!("../site/lesson.html");

/// The launcher the Claude Code plugin and the Gemini extension start the binary through.
pub const PLUGIN_LAUNCHER: &str = include_str!("../packaging/devcoach-launch");

/// The same launcher for Windows, as a batch file (CRLF line ends, kept by .gitattributes).
pub const PLUGIN_LAUNCHER_CMD: &str = include_str!("../packaging/devcoach-launch.cmd");

/// The OpenCode / Kilo Code plugin (`@DEVCOACH@` and `@AGENT@` filled in by `devcoach install`).
pub const OPENCODE_PLUGIN: &str = include_str!("../packaging/opencode/devcoach.js");

/// The npm wrapper's JavaScript launcher.
pub const NPM_LAUNCHER: &str = include_str!("../packaging/npm/devcoach.js");

/// The Claude Code plugin's slash commands.
pub const PLUGIN_COMMANDS: [(&str, &str); 5] = [
    ("course.md", include_str!("../packaging/commands/course.md")),
    ("import.md", include_str!("../packaging/commands/import.md")),
    ("setup.md", include_str!("../packaging/commands/setup.md")),
    ("share.md", include_str!("../packaging/commands/share.md")),
    ("ui.md", include_str!("../packaging/commands/ui.md")),
];

/// The practice coach's vocabulary of techniques and properties (`practice/toolbox.json`).
pub const PRACTICE_TOOLBOX: &str = include_str!("../practice/toolbox.json");

/// The practice coach's instructions (the first section is about the client and is left out
/// for local models).
pub const PRACTICE_SKILL: &str = include_str!("../practice/SKILL.md");

/// The practice problems devcoach ships (our own statements), by slug.
pub const PRACTICE_PROBLEMS: [(&str, &str); 6] = [
    ("closest-pair-to-target", include_str!("../practice/problems/closest-pair-to-target.md")),
    ("docks-with-cleanup-time", include_str!("../practice/problems/docks-with-cleanup-time.md")),
    ("fewest-steps-across-the-ridge", include_str!("../practice/problems/fewest-steps-across-the-ridge.md")),
    ("fusing-sand-blocks", include_str!("../practice/problems/fusing-sand-blocks.md")),
    ("longest-distinct-artist-run", include_str!("../practice/problems/longest-distinct-artist-run.md")),
    ("signal-tower-reach", include_str!("../practice/problems/signal-tower-reach.md")),
];

/// The scripted learner transcripts `devcoach practice eval` replays, by name.
pub const PRACTICE_EVAL: [(&str, &str); 3] = [
    ("code-first", include_str!("../practice/eval/code-first.json")),
    ("names-bait", include_str!("../practice/eval/names-bait.json")),
    ("stuck-then-code", include_str!("../practice/eval/stuck-then-code.json")),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_text_has_content() {
        let texts = [
            SKILL,
            PRACTICE_TOOLBOX,
            PRACTICE_SKILL,
            APP_CSS,
            COURSE_FRAME_JS,
            HIGHLIGHT_JS,
            HIGHLIGHT_LICENSE,
            LESSON_PAGE,
            PLUGIN_LAUNCHER,
            PLUGIN_LAUNCHER_CMD,
            NPM_LAUNCHER,
            OPENCODE_PLUGIN,
        ];
        assert!(texts.iter().all(|t| !t.trim().is_empty()));
        assert!(
            SKILL_REFERENCES
                .iter()
                .chain(PLUGIN_COMMANDS.iter())
                .chain(PRACTICE_PROBLEMS.iter())
                .all(|(_, t)| !t.trim().is_empty())
        );
        assert!(STATIC_FILES.iter().all(|(_, b)| !b.is_empty()));
    }

    #[test]
    fn highlighter_served_and_embedded_is_one_file() {
        let served = STATIC_FILES.iter().find(|(n, _)| *n == "vendor/highlight.min.js").map(|(_, b)| *b);
        assert_eq!(served, Some(HIGHLIGHT_JS.as_bytes()));
    }
}
