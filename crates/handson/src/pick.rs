//! Which pieces of a change are worth rebuilding: functions the change added or mostly
//! rewrote, that a test exercises, ranked so the learner is offered the best few.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use devcoach_core::limits;
use devcoach_files::Links;

use crate::HandsOnError;
use crate::change::{Change, Changed, ChangedFile};
use crate::git::git;
use crate::lang::Lang;
use crate::pieces::{Piece, is_test_file, mentions, pieces, tests_in};

/// A piece the learner could rebuild.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    pub piece: Piece,
    /// Lines of its body the change added.
    pub changed_lines: usize,
    /// The change created the whole function.
    pub new: bool,
    /// The tests that name it.
    pub tests: Vec<String>,
    pub score: i64,
}

/// What a change offers.
#[derive(Debug, Clone)]
pub struct Offer {
    pub changed: Changed,
    /// Best first.
    pub candidates: Vec<Candidate>,
    /// Pieces the change rewrote that no test names (not offered: nothing could judge a rebuild).
    pub untested: usize,
}

/// Endings of source in languages hands-on does not read yet: a change only in those is
/// refused by name (a change only in documents or data has nothing to rebuild).
const OTHER_LANGUAGES: [&str; 30] = [
    "java", "kt", "kts", "scala", "groovy", "cs", "fs", "vb", "c", "h", "cc", "cpp", "cxx", "hpp", "m", "mm", "swift",
    "rb", "php", "pl", "lua", "dart", "ex", "exs", "erl", "hs", "clj", "zig", "jl", "r",
];

/// Reads a file as it stands in the change.
fn source(changed: &Changed, path: &Path) -> Option<String> {
    let bytes = match changed.change {
        Change::Uncommitted => {
            devcoach_files::read(&changed.top.join(path), limits::HANDSON_SOURCE_BYTES, Links::Refuse).ok()?
        }
        Change::Commit(_) | Change::Range { .. } => {
            let spec = format!("{}:{}", changed.base, path.to_string_lossy());
            let out = git(&changed.top, &["show", "--no-textconv", &spec], limits::HANDSON_SOURCE_BYTES).ok()?;
            if !out.ok || out.capped {
                return None;
            }
            out.stdout.into_bytes()
        }
    };
    // A file with a NUL byte is not source.
    if bytes.contains(&0) || u64::try_from(bytes.len()).unwrap_or(u64::MAX) >= limits::HANDSON_SOURCE_BYTES {
        return None;
    }
    String::from_utf8(bytes).ok()
}

fn overlap(range: (usize, usize), added: &[(usize, usize)]) -> usize {
    added.iter().map(|&(a, b)| (b.min(range.1) + 1).saturating_sub(a.max(range.0))).sum()
}

/// The functions of one changed file that the change added or mostly rewrote.
fn rewritten(file: &ChangedFile, lang: Lang, text: &str) -> Vec<(Piece, usize, bool)> {
    let mut out = Vec::new();
    for piece in pieces(lang, &file.path, text) {
        if piece.nested {
            continue;
        }
        let body_len = piece.body_lines.1 + 1 - piece.body_lines.0;
        let (changed, new) = if file.created {
            (body_len, true)
        } else {
            (
                overlap(piece.body_lines, &file.added),
                overlap(piece.lines, &file.added) == piece.lines.1 + 1 - piece.lines.0,
            )
        };
        // Most of the body is the change's: a small edit to an old function is not "what the
        // agent wrote".
        if changed > 0 && (new || changed * 2 >= body_len) {
            out.push((piece, changed, new));
        }
    }
    out
}

/// The score that orders candidates: tested, of a size one sitting can rebuild, new.
fn score(tests: usize, body_len: usize, new: bool) -> i64 {
    let tests = i64::try_from(tests.min(3)).unwrap_or(3) * 20;
    let len = i64::try_from(body_len).unwrap_or(i64::MAX);
    let size = match len {
        3..=40 => 10 + len.min(20) / 2,
        41..=80 => 5,
        // Too small to be worth it, or too large for one sitting.
        _ => -10,
    };
    tests + size + if new { 5 } else { 0 }
}

/// The files that name any of `names` as a whole word, as the change has them.
fn files_naming(changed: &Changed, names: &BTreeSet<String>) -> Result<Vec<PathBuf>, HandsOnError> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut args: Vec<String> = vec!["grep".into(), "-l".into(), "-z".into(), "-w".into(), "-F".into(), "-I".into()];
    if changed.change == Change::Uncommitted {
        args.push("--untracked".into());
    }
    for name in names {
        args.push("-e".into());
        args.push(name.clone());
    }
    if changed.change != Change::Uncommitted {
        args.push(changed.base.clone());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = git(&changed.top, &args, limits::GIT_OUTPUT_BYTES)?;
    let prefix = format!("{}:", changed.base);
    Ok(out
        .stdout
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(p.strip_prefix(&prefix).unwrap_or(p)))
        .take(limits::HANDSON_SCAN_FILES)
        .collect())
}

/// Whether two languages share their tests (TypeScript code is tested from JavaScript too).
fn same_family(a: Lang, b: Lang) -> bool {
    let family = |l: Lang| match l {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => 0,
        Lang::Rust => 1,
        Lang::Python => 2,
        Lang::Go => 3,
    };
    family(a) == family(b)
}

/// How much the learner's confidence on a language's topic (0–10 on the knowledge map; `None`
/// when the topic is not on it) adds to its pieces' rank: the less sure, the more there is to
/// gain from rebuilding one.
fn confidence_weight(confidence: Option<i64>) -> i64 {
    match confidence {
        Some(c) if c <= 3 => 6,
        Some(c) if c <= 6 => 3,
        Some(_) => 0,
        None => 3,
    }
}

/// The pieces of `change` worth rebuilding, best first.
pub fn offer(dir: &Path, change: &Change) -> Result<Offer, HandsOnError> {
    offer_for(dir, change, &|_| None)
}

/// [`offer`], ranked also by the learner's confidence on each language's topic (`known` reads
/// the map by the language's topic name: `rust`, `python`, `typescript`, `javascript`, `go`).
pub fn offer_for(dir: &Path, change: &Change, known: &dyn Fn(&str) -> Option<i64>) -> Result<Offer, HandsOnError> {
    let changed = crate::change::read(dir, change)?;
    let mut found: Vec<(Piece, usize, bool)> = Vec::new();
    let mut other_endings = BTreeSet::new();
    let mut ours = false;
    for file in &changed.files {
        let Some(lang) = Lang::of_path(&file.path) else {
            if let Some(ending) = file.path.extension().and_then(|e| e.to_str())
                && OTHER_LANGUAGES.contains(&ending.to_ascii_lowercase().as_str())
            {
                other_endings.insert(ending.to_owned());
            }
            continue;
        };
        if is_test_file(lang, &file.path) {
            continue;
        }
        ours = true;
        let Some(text) = source(&changed, &file.path) else { continue };
        found.extend(rewritten(file, lang, &text));
    }
    if found.is_empty() {
        return Err(if ours || other_endings.is_empty() {
            HandsOnError::NothingToRebuild { what: changed.change.describe() }
        } else {
            HandsOnError::Unsupported { endings: other_endings.into_iter().collect() }
        });
    }
    let names: BTreeSet<String> = found.iter().map(|(p, _, _)| p.name.clone()).collect();
    let mut sites = Vec::new();
    for path in files_naming(&changed, &names)? {
        let Some(lang) = Lang::of_path(&path) else { continue };
        // Rust's tests sit anywhere (`#[cfg(test)]` modules); the others' in test files.
        if lang != Lang::Rust && !is_test_file(lang, &path) {
            continue;
        }
        let Some(text) = source(&changed, &path) else { continue };
        sites.extend(tests_in(lang, &path, &text).into_iter().map(|t| (lang, t)));
    }
    let mut candidates = Vec::new();
    let mut untested = Vec::new();
    for (piece, changed_lines, new) in found {
        let tests: Vec<String> = sites
            .iter()
            .filter(|(lang, t)| {
                same_family(*lang, piece.lang) && t.name != piece.name && mentions(&t.text, &piece.name)
            })
            .map(|(_, t)| t.name.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if tests.is_empty() {
            untested.push(piece.qualified.clone());
            continue;
        }
        let body_len = piece.body_lines.1 + 1 - piece.body_lines.0;
        let score = score(tests.len(), body_len, new) + confidence_weight(known(piece.lang.topic()));
        candidates.push(Candidate { piece, changed_lines, new, tests, score });
    }
    candidates.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.piece.qualified.cmp(&b.piece.qualified)));
    candidates.truncate(limits::HANDSON_CANDIDATES);
    if candidates.is_empty() {
        return Err(HandsOnError::NothingTested { names: untested });
    }
    Ok(Offer { changed, candidates, untested: untested.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overlap_counts_the_new_lines_inside_a_range() {
        assert_eq!(overlap((10, 20), &[(1, 9), (21, 30)]), 0);
        assert_eq!(overlap((10, 20), &[(5, 12), (18, 25)]), 6);
        assert_eq!(overlap((10, 20), &[(10, 20)]), 11);
    }

    #[test]
    fn the_score_prefers_tested_pieces_of_a_sitting_s_size() {
        assert!(score(1, 10, false) > score(0, 10, true));
        assert!(score(2, 12, false) > score(2, 200, false));
        assert!(score(1, 12, true) > score(1, 12, false));
        assert!(score(1, 1, false) < score(1, 5, false));
        assert_eq!(score(9, 10, false), score(3, 10, false), "tests count up to three");
    }

    #[test]
    fn an_old_function_lightly_edited_is_not_offered() {
        let text =
            "fn old() {\n    let a = 1;\n    let b = 2;\n    let c = 3;\n    a + b + c\n}\n\nfn fresh() {\n    1\n}\n";
        let file = ChangedFile { path: "src/lib.rs".into(), added: vec![(3, 3), (8, 10)], created: false };
        let found = rewritten(&file, Lang::Rust, text);
        let names: Vec<&str> = found.iter().map(|(p, _, _)| p.name.as_str()).collect();
        assert_eq!(names, ["fresh"]);
        assert!(found[0].2, "the whole function is new");
    }
}
