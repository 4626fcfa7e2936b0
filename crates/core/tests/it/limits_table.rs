//! `core::limits` is the one table of caps on outside input: a cap defined anywhere else fails
//! here, as does a constant of the table nothing uses. What looks like a cap and is not one (a
//! count of rows kept, a value's range, what a page shows) is named below with the reason.

use std::path::{Path, PathBuf};

/// Constants whose names read like caps but bound nothing another party sends.
const NOT_CAPS: &[(&str, &str, &str)] = &[
    ("cli/src/hooks/mod.rs", "MAX_LOG", "the size of our own trace file"),
    ("store/src/connection.rs", "READ_MAP_BYTES", "how much of our own file a report maps"),
    ("cli/src/commands/sync.rs", "MIN_PASSPHRASE_CHARS", "a minimum, not a cap"),
    ("core/src/pacing.rs", "MAX_NUDGE_SESSIONS", "rows of counters kept"),
    ("core/src/share/text.rs", "LONG_CODE_CHARS", "how a code is laid out"),
    ("core/src/share/payload.rs", "MAX_ID_CANDIDATES", "ids this build tries for an import"),
    ("core/src/share/slug.rs", "MAX_SLUG", "a name this build makes"),
    ("core/src/work_patterns/model.rs", "READ_CHARS", "the model's features (the read is TRANSCRIPT_BYTES)"),
    ("core/src/work_patterns/model.rs", "CHAR_GRAM_CHARS", "the model's features"),
    ("core/src/desktop_log.rs", "SAID_CHARS", "what doctor shows (the read is DESKTOP_LOG_TAIL_BYTES)"),
    ("core/src/desktop_log.rs", "ITEM_CHARS", "what doctor shows (the read is DESKTOP_LOG_TAIL_BYTES)"),
    ("core/src/sync/segment.rs", "MAX_CLOCK_MS", "a value's range, not a size"),
    ("core/src/sync/segment.rs", "MAX_SEQ", "a value's range, not a size"),
    ("core/src/sync/state/packed.rs", "MAX_DEPTH", "our own stored state, never another party's"),
    ("core/src/knowledge.rs", "MAX_CONFIDENCE", "the top of the scale"),
    ("practice/src/gate.rs", "INCOMPLETE_LIMIT", "a rule of the coach"),
    ("practice/src/session.rs", "MAX_DRAFTS", "a rule of the coach"),
    ("probe/src/history.rs", "MAX_RECENT_PROJECTS", "how much of this machine the look reports"),
    ("probe/src/history.rs", "MAX_DEPTH", "how far the look at this machine goes"),
    ("probe/src/history.rs", "MAX_DIRS_PER_PROJECT", "how far the look at this machine goes"),
    ("probe/src/history.rs", "MAX_TOTAL_DIRS", "how far the look at this machine goes"),
    ("probe/src/history.rs", "MAX_REPORTED_PROJECTS", "how much of this machine the look reports"),
    ("probe/src/history.rs", "MEMORY_EXCERPT_CHARS", "how much of this machine the look reports"),
    ("probe/src/history.rs", "DEEP_SCAN_SOFT_LIMIT", "when the look asks before going deeper"),
    ("probe/src/history.rs", "MAX_WINDOW_CANDIDATES", "how much of this machine the look reports"),
    ("store/src/pacing.rs", "MAX_CUE_TIMES", "rows of cue times kept"),
    ("web/src/cache.rs", "MAX_RESULTS", "the dashboard's cache"),
    ("web/src/cache.rs", "MAX_KEYS", "the dashboard's cache"),
    ("web/src/cache.rs", "MAX_ROWS", "the dashboard's cache"),
    ("web/src/cache.rs", "MAX_PAGES", "the dashboard's cache"),
];

fn crates() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file below `dir`, as (path relative to `crates/`, text up to its tests module).
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("source");
            let code = text.split("\n#[cfg(test)]").next().unwrap_or_default();
            let code = code.split("\n#[cfg(all(test").next().unwrap_or_default().to_owned();
            let name = path.strip_prefix(crates()).expect("below crates").to_string_lossy().replace('\\', "/");
            out.push((name, code));
        }
    }
}

fn all_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(crates()).expect("crates").flatten() {
        sources(&entry.path().join("src"), &mut out);
    }
    assert!(out.len() > 100, "the sources were found");
    out
}

/// `(name, value)` of every integer constant whose name reads like a cap.
fn caps(code: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        let line = line.strip_prefix("pub ").or_else(|| line.strip_prefix("pub(crate) ")).unwrap_or(line);
        let Some(rest) = line.strip_prefix("const ") else { continue };
        let Some((name, rest)) = rest.split_once(':') else { continue };
        let Some((ty, value)) = rest.split_once('=') else { continue };
        let integer = ["usize", "u64", "u32", "u16", "u8", "i64", "i32"].contains(&ty.trim());
        let capish =
            name.starts_with("MAX_") || ["_BYTES", "_CHARS", "_LIMIT", "_INPUT"].iter().any(|s| name.ends_with(s));
        if integer && capish {
            found.push((name.to_owned(), value.trim().to_owned()));
        }
    }
    found
}

#[test]
fn every_cap_on_outside_input_is_in_the_one_table() {
    let mut stray = Vec::new();
    let mut allowed_seen = Vec::new();
    for (file, code) in all_sources() {
        if file == "core/src/limits.rs" {
            continue;
        }
        for (name, value) in caps(&code) {
            // An alias of the table's cap (a local type or unit) defines nothing new.
            if value.contains("limits::") {
                continue;
            }
            if NOT_CAPS.iter().any(|(f, n, _)| *f == file && *n == name) {
                allowed_seen.push((file.clone(), name));
                continue;
            }
            stray.push(format!("{file}: {name} = {value}"));
        }
    }
    assert!(
        stray.is_empty(),
        "caps defined outside core::limits (move them there, or name why they are not caps): {stray:#?}"
    );
    for (file, name, _) in NOT_CAPS {
        assert!(
            allowed_seen.iter().any(|(f, n)| f == file && n == name),
            "{file}: {name} is named as not a cap but is no longer there: take it off the list"
        );
    }
}

#[test]
fn every_cap_of_the_table_is_used() {
    let sources = all_sources();
    let (_, table) = sources.iter().find(|(f, _)| f == "core/src/limits.rs").expect("the table");
    let names: Vec<String> = table
        .lines()
        .filter_map(|l| l.strip_prefix("pub const "))
        .filter_map(|l| l.split_once(':').map(|(n, _)| n.to_owned()))
        .collect();
    assert!(names.len() > 40, "the table was read: {names:?}");
    let unused: Vec<&String> = names
        .iter()
        .filter(|name| {
            !sources.iter().any(|(f, code)| {
                f != "core/src/limits.rs"
                    && code.match_indices(name.as_str()).any(|(i, _)| {
                        let before = code[..i].chars().next_back();
                        let after = code[i + name.len()..].chars().next();
                        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    })
            })
        })
        .collect();
    assert!(unused.is_empty(), "caps nothing enforces: {unused:?}");
}

/// A size written as a number where outside input is read: a file through the one door, a
/// program's output, an HTTP body. Each must name its cap in the table.
#[test]
fn no_door_reads_outside_input_under_a_number_of_its_own() {
    const DOORS: [&str; 11] = [
        "devcoach_files::read(",
        "devcoach_files::read_optional(",
        "devcoach_files::read_to_string(",
        "devcoach_files::read_tail(",
        "devcoach_files::read_head(",
        "devcoach_files::read_limited(",
        "read_limited(",
        "output_cap:",
        "max_bytes:",
        ".limit(",
        "take(",
    ];
    let number = |text: &str| {
        text.contains("<<")
            || text.contains("* 1024")
            || text.split(|c: char| !c.is_ascii_digit()).any(|d| d.len() >= 4)
    };
    let mut stray = Vec::new();
    for (file, code) in all_sources() {
        if file == "core/src/limits.rs" {
            continue;
        }
        for (n, line) in code.lines().enumerate() {
            let Some(at) = DOORS.iter().filter_map(|d| line.find(d)).min() else { continue };
            let rest = &line[at..];
            if number(rest) && !rest.contains("limits::") {
                stray.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(stray.is_empty(), "sizes at the doors that are not caps of core::limits: {stray:#?}");
}

/// A library error carries facts (a path, a key, what git said) and words them in one place;
/// a variant that is only a sentence made somewhere else (`#[error("{0}")]` over a `String`)
/// cannot be classified, tested or reworded. The front ends (the binary, the dashboard, the
/// MCP server) word their own answers and are not held to it.
#[test]
fn library_errors_carry_facts_not_ready_made_sentences() {
    const FRONT_ENDS: [&str; 3] = ["cli/", "web/", "mcp/"];
    let mut bare = Vec::new();
    for (file, code) in all_sources() {
        if FRONT_ENDS.iter().any(|f| file.starts_with(f)) {
            continue;
        }
        let lines: Vec<&str> = code.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            if line.trim() == "#[error(\"{0}\")]" {
                let variant = lines.get(n + 1).map_or("", |l| l.trim());
                bare.push(format!("{file}:{}: {variant}", n + 1));
            }
        }
    }
    assert!(bare.is_empty(), "library error variants that are a bare sentence: {bare:#?}");
}
