//! Every user-facing string the code holds, read from the sources as written: no doubled space
//! between two words (what a lost line continuation leaves behind), and none in the prose files
//! the agents and learners read (the skills and their references). Column layouts (a label, then
//! spaces, then a `{}` placeholder) and indentation after a newline are layout, not prose.

use std::path::{Path, PathBuf};

/// Files whose literals are SQL or other preformatted text, not prose.
const NOT_PROSE: [&str; 1] = ["store/src/schema.rs"];

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The ordinary (not raw) string literals of `src`, with Rust's line continuations applied, and
/// the line each starts on.
fn literals(src: &str) -> Vec<(usize, String)> {
    let bytes: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < bytes.len() {
        let c = bytes[i];
        if c == '\n' {
            line += 1;
        }
        // Skip comments, char literals that hold a quote, and raw strings.
        if c == '/' && bytes.get(i + 1) == Some(&'/') {
            while i < bytes.len() && bytes[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '\'' && bytes.get(i + 1) == Some(&'"') && bytes.get(i + 2) == Some(&'\'') {
            i += 3;
            continue;
        }
        if c == 'r' && matches!(bytes.get(i + 1), Some('"' | '#')) && (i == 0 || !bytes[i - 1].is_alphanumeric()) {
            let mut j = i + 1;
            let mut hashes = 0;
            while bytes.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if bytes.get(j) == Some(&'"') {
                j += 1;
                let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                while j < bytes.len() && !bytes[j..].iter().take(close.len()).copied().eq(close.chars()) {
                    if bytes[j] == '\n' {
                        line += 1;
                    }
                    j += 1;
                }
                i = j + close.len();
                continue;
            }
        }
        if c == '"' {
            let start = line;
            let mut text = String::new();
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != '"' {
                if bytes[j] == '\\' {
                    match bytes.get(j + 1) {
                        Some('\n') => {
                            // A continuation: the newline and the next line's indentation go.
                            line += 1;
                            j += 2;
                            while bytes.get(j).is_some_and(|c| c.is_whitespace()) {
                                if bytes[j] == '\n' {
                                    line += 1;
                                }
                                j += 1;
                            }
                            continue;
                        }
                        Some('n') => text.push('\n'),
                        Some(other) => text.push(*other),
                        None => {}
                    }
                    j += 2;
                    continue;
                }
                if bytes[j] == '\n' {
                    line += 1;
                }
                text.push(bytes[j]);
                j += 1;
            }
            out.push((start, text));
            i = j + 1;
            continue;
        }
        i += 1;
    }
    out
}

/// A doubled space between two words on one line (not a column before a placeholder).
fn doubled_space(text: &str) -> Option<String> {
    for line in text.lines() {
        let chars: Vec<char> = line.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            if chars[k] == ' ' && k > 0 && chars[k - 1] != ' ' {
                let run = chars[k..].iter().take_while(|c| **c == ' ').count();
                let (before, after) = (chars[k - 1], chars.get(k + run).copied());
                let word = |c: char| c.is_alphanumeric() || ".,;:!?)`'’\"”".contains(c);
                if run >= 2 && word(before) && after.is_some_and(|a| a.is_alphanumeric() || "`(‘“".contains(a)) {
                    return Some(line.to_owned());
                }
                k += run;
                continue;
            }
            k += 1;
        }
    }
    None
}

#[test]
fn no_user_facing_string_has_a_doubled_space() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    rust_sources(&root.join("crates"), &mut files);
    rust_sources(&root.join("assets/src"), &mut files);
    let mut found = Vec::new();
    let mut checked = 0;
    for file in files {
        let shown = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
        if NOT_PROSE.iter().any(|p| shown.ends_with(p)) || shown.contains("/tests/") || shown.contains("/benches/") {
            continue;
        }
        let src = std::fs::read_to_string(&file).expect("source");
        // Test modules hold code samples and hostile strings on purpose.
        let src = src.split("#[cfg(test)]").next().unwrap_or_default();
        for (line, text) in literals(src) {
            checked += 1;
            if let Some(bad) = doubled_space(&text) {
                found.push(format!("{shown}:{line}: {bad:?}"));
            }
        }
    }
    assert!(checked > 1000, "the scan reads the literals ({checked})");
    assert!(found.is_empty(), "doubled spaces in user-facing strings:\n{}", found.join("\n"));
}

#[test]
fn the_prose_files_have_no_doubled_space() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets");
    let mut files = vec![root.join("SKILL.md"), root.join("practice/SKILL.md"), root.join("demo/learning-state.md")];
    for e in std::fs::read_dir(root.join("references")).expect("references").flatten() {
        files.push(e.path());
    }
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("prose");
        let mut fenced = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            if !fenced && doubled_space(line.trim_end()).is_some() {
                found.push(format!("{}:{}: {line:?}", file.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "doubled spaces:\n{}", found.join("\n"));
}

#[test]
fn the_scan_finds_what_it_is_for() {
    let src = "let a = \"one  two\"; let b = \"fine \\\n    text\"; let c = \"lost \\\n    continuation          here\";\nlet d = \"  label   {}\";";
    let lits = literals(src);
    assert_eq!(lits.len(), 4);
    assert!(doubled_space(&lits[0].1).is_some());
    assert_eq!(lits[1].1, "fine text");
    assert!(doubled_space(&lits[1].1).is_none());
    assert!(doubled_space(&lits[2].1).is_some(), "{:?}", lits[2]);
    assert!(doubled_space(&lits[3].1).is_none(), "a column before a placeholder is layout");
}
