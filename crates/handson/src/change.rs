//! The change to practise on: the uncommitted work in the learner's repository (what their agent
//! just did), a commit, or a range. Read with git, bounded: which files it added or changed, and
//! which of their lines are new.

use std::path::{Path, PathBuf};

use devcoach_core::limits;

use crate::HandsOnError;
use crate::git::{git, git_ok};

/// Which change.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Change {
    /// Everything not committed yet, staged or not, new files included.
    Uncommitted,
    /// One commit, against its first parent.
    Commit(String),
    /// `from..to`.
    Range { from: String, to: String },
}

impl Change {
    /// `None` or `""`: the uncommitted work; `a..b`: a range; anything else: a commit.
    pub fn parse(arg: Option<&str>) -> Self {
        match arg.map(str::trim) {
            None | Some("") => Self::Uncommitted,
            Some(arg) => match arg.split_once("..") {
                // `main..` is `main..HEAD`, as git reads it.
                Some((from, to)) if !from.is_empty() && !to.starts_with('.') => Self::Range {
                    from: from.to_owned(),
                    to: if to.is_empty() { "HEAD".to_owned() } else { to.to_owned() },
                },
                _ => Self::Commit(arg.to_owned()),
            },
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Self::Uncommitted => "the uncommitted changes".to_owned(),
            Self::Commit(c) => format!("commit {c}"),
            Self::Range { from, to } => format!("{from}..{to}"),
        }
    }
}

/// A file the change added or changed, with the lines that are new in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    pub path: PathBuf,
    /// New lines, as inclusive ranges (1-based).
    pub added: Vec<(usize, usize)>,
    /// A file the change created: every line is new.
    pub created: bool,
}

/// What the change is, read from git.
#[derive(Debug, Clone)]
pub struct Changed {
    /// The repository's top folder.
    pub top: PathBuf,
    /// The commit an exercise starts from (the uncommitted work is laid over it).
    pub base: String,
    pub change: Change,
    pub files: Vec<ChangedFile>,
    /// Paths the uncommitted work deleted (an exercise deletes them too).
    pub deleted: Vec<PathBuf>,
    /// Every file the uncommitted work added or changed, whatever it changed (an exercise
    /// copies them all, not only those with new lines).
    pub copy: Vec<PathBuf>,
    /// The diff was larger than devcoach reads: only its beginning was looked at.
    pub truncated: bool,
}

/// The top folder of the repository `dir` is in.
pub fn repository_top(dir: &Path) -> Result<PathBuf, HandsOnError> {
    let out = git(dir, &["rev-parse", "--show-toplevel"], limits::GIT_OUTPUT_BYTES)?;
    if !out.ok {
        return Err(HandsOnError::NotARepository { dir: dir.to_owned() });
    }
    Ok(PathBuf::from(out.stdout.trim()))
}

fn resolve(top: &Path, rev: &str) -> Result<String, HandsOnError> {
    // A revision that starts with `-` would be read as an option (older gits take no
    // `--end-of-options` here). Every later command gets the full commit id this returns.
    if rev.starts_with('-') || rev.contains(char::is_control) {
        return Err(HandsOnError::NoSuchRevision { rev: rev.to_owned() });
    }
    let spec = format!("{rev}^{{commit}}");
    let out = git(top, &["rev-parse", "--verify", "--quiet", &spec], limits::GIT_OUTPUT_BYTES)?;
    if !out.ok || out.stdout.trim().is_empty() {
        return Err(HandsOnError::NoSuchRevision { rev: rev.to_owned() });
    }
    Ok(out.stdout.trim().to_owned())
}

/// Reads `change` in the repository `dir` is in.
pub fn read(dir: &Path, change: &Change) -> Result<Changed, HandsOnError> {
    let top = repository_top(dir)?;
    let cap = limits::HANDSON_DIFF_BYTES;
    // Every setting that would change the text read is overridden: prefixes, merged hunks,
    // colour, external diff and conversion programs.
    let diff_args = [
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        // A moved file is the same code: only what changed in it counts (with its path after).
        "-M",
        // Reformatted is not rewritten: lines whose only change is spacing are not new code.
        "--ignore-all-space",
        "--diff-filter=AMR",
        "-U0",
        "--inter-hunk-context=0",
        "--src-prefix=a/",
        "--dst-prefix=b/",
    ];
    let (base, diff, mut deleted, untracked, mut copy) = match change {
        Change::Uncommitted => {
            let base = resolve(&top, "HEAD").map_err(|_| HandsOnError::NoCommitYet)?;
            let mut args = vec!["diff", "HEAD"];
            args.extend(diff_args);
            let diff = git_ok(&top, &args, cap)?;
            let gone = git_ok(&top, &["diff", "HEAD", "--no-renames", "--diff-filter=D", "--name-only", "-z"], cap)?;
            let new = git_ok(&top, &["ls-files", "-z", "--others", "--exclude-standard"], cap)?;
            let changed =
                git_ok(&top, &["diff", "HEAD", "--no-renames", "--diff-filter=AMT", "--name-only", "-z"], cap)?;
            let split = |text: &str| text.split('\0').filter_map(plain_relative).collect::<Vec<_>>();
            let mut copy = split(&changed.stdout);
            copy.extend(split(&new.stdout));
            (base, diff, split(&gone.stdout), split(&new.stdout), copy)
        }
        Change::Commit(rev) => {
            let base = resolve(&top, rev)?;
            let mut args = vec!["show", "--format=", "--first-parent"];
            args.extend(diff_args);
            args.push(base.as_str());
            (base.clone(), git_ok(&top, &args, cap)?, Vec::new(), Vec::new(), Vec::new())
        }
        Change::Range { from, to } => {
            let (from, base) = (resolve(&top, from)?, resolve(&top, to)?);
            // What `to` added since it left `from`: from their merge base, as `git log from..to`.
            let merged = git(&top, &["merge-base", &from, &base], limits::GIT_OUTPUT_BYTES)?;
            let from =
                if merged.ok && !merged.stdout.trim().is_empty() { merged.stdout.trim().to_owned() } else { from };
            let mut args = vec!["diff"];
            args.extend(diff_args);
            args.extend([from.as_str(), base.as_str()]);
            (base.clone(), git_ok(&top, &args, cap)?, Vec::new(), Vec::new(), Vec::new())
        }
    };
    copy.truncate(limits::HANDSON_CHANGED_FILES);
    let mut files = parse_diff(&diff.stdout);
    let mut truncated = diff.capped;
    for path in untracked {
        if files.len() >= limits::HANDSON_CHANGED_FILES {
            truncated = true;
            break;
        }
        files.push(ChangedFile { path, added: Vec::new(), created: true });
    }
    if files.len() > limits::HANDSON_CHANGED_FILES {
        files.truncate(limits::HANDSON_CHANGED_FILES);
        truncated = true;
    }
    deleted.truncate(limits::HANDSON_CHANGED_FILES);
    if files.is_empty() && deleted.is_empty() {
        return Err(HandsOnError::NoChange { what: change.describe() });
    }
    Ok(Changed { top, base, change: change.clone(), files, deleted, copy, truncated })
}

/// The files of a unified diff with zero context, and the new-side lines of their hunks.
/// A binary file, a submodule or a deleted file has no hunk with new lines and is left out.
pub fn parse_diff(diff: &str) -> Vec<ChangedFile> {
    let mut files: Vec<ChangedFile> = Vec::new();
    let mut current: Option<ChangedFile> = None;
    let mut created = false;
    // Inside a file's header (between `diff --git` and its first hunk): only there is a `+++`
    // line a path. In a hunk, an added line that reads `++ b/…` shows as `+++ b/…` too.
    let mut in_header = false;
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            files.extend(current.take().filter(|f| !f.added.is_empty()));
            created = false;
            in_header = true;
        } else if in_header && line.starts_with("new file mode") {
            created = true;
        } else if in_header && let Some(path) = line.strip_prefix("+++ ") {
            // git ends a path holding a space with a tab; a quoted path holds characters git
            // escapes: such a file is not one to rebuild.
            current = path
                .strip_prefix("b/")
                .map(|p| p.strip_suffix('\t').unwrap_or(p))
                .filter(|p| !p.starts_with('"'))
                .and_then(plain_relative)
                .map(|path| ChangedFile { path, added: Vec::new(), created });
        } else if let Some(hunk) = line.strip_prefix("@@ ") {
            in_header = false;
            if let Some(file) = current.as_mut()
                && let Some(range) = new_side(hunk)
            {
                file.added.push(range);
            }
        }
    }
    files.extend(current.filter(|f| !f.added.is_empty()));
    files
}

/// `path` when it is made of plain names only (no root, no `..`, no `.`): a path of the
/// repository, never one that leads out of it.
pub fn plain_relative(path: &str) -> Option<PathBuf> {
    let p = std::path::Path::new(path);
    let plain = !path.is_empty() && p.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    plain.then(|| p.to_owned())
}

/// `-a,b +c,d @@ …` → the new lines `c..=c+d-1`; `None` when the hunk adds none.
fn new_side(hunk: &str) -> Option<(usize, usize)> {
    let plus = hunk.split_whitespace().find(|w| w.starts_with('+'))?.trim_start_matches('+');
    let (start, count) = match plus.split_once(',') {
        Some((s, c)) => (s.parse::<usize>().ok()?, c.parse::<usize>().ok()?),
        None => (plus.parse::<usize>().ok()?, 1),
    };
    (count > 0 && start > 0).then(|| (start, start + count - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_the_uncommitted_work_a_commit_or_a_range() {
        assert_eq!(Change::parse(None), Change::Uncommitted);
        assert_eq!(Change::parse(Some(" ")), Change::Uncommitted);
        assert_eq!(Change::parse(Some("HEAD~2")), Change::Commit("HEAD~2".into()));
        assert_eq!(Change::parse(Some("main..topic")), Change::Range { from: "main".into(), to: "topic".into() });
        assert_eq!(Change::parse(Some("main..")), Change::Range { from: "main".into(), to: "HEAD".into() });
        assert_eq!(Change::parse(Some("a...b")), Change::Commit("a...b".into()), "a symmetric range is not taken");
    }

    #[test]
    fn the_new_lines_of_each_file_are_read_from_a_zero_context_diff() {
        let diff = "diff --git a/src/lib.rs b/src/lib.rs\nindex 1..2 100644\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -3,0 +4,2 @@ fn x\n+a\n+b\n@@ -10 +12 @@\n-c\n+d\n@@ -20,3 +23,0 @@\n-e\ndiff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,3 @@\n+x\ndiff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\ndiff --git a/gone.rs b/gone.rs\n--- a/gone.rs\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n";
        let files = parse_diff(diff);
        assert_eq!(
            files,
            vec![
                ChangedFile { path: "src/lib.rs".into(), added: vec![(4, 5), (12, 12)], created: false },
                ChangedFile { path: "new.py".into(), added: vec![(1, 3)], created: true },
            ]
        );
        // An added line that reads `++ b/…` is not a header, and no path leads out.
        let forged = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,0 +2,2 @@\n+++ b//etc/x.rs\n+++ b/../up.rs\n@@ -5,0 +8 @@\n+y\n";
        let files = parse_diff(forged);
        assert_eq!(files, vec![ChangedFile { path: "x.py".into(), added: vec![(2, 3), (8, 8)], created: false }]);
        for bad in ["/etc/x.rs", "../up.rs", "a/../../b.rs", "./a.rs", ""] {
            assert!(plain_relative(bad).is_none(), "{bad}");
        }
        assert_eq!(plain_relative("src/a b.rs"), Some(PathBuf::from("src/a b.rs")));
        let spaced = "diff --git a/a b.py b/a b.py\n--- a/a b.py\t\n+++ b/a b.py\t\n@@ -1,0 +1 @@\n+x\n";
        assert_eq!(parse_diff(spaced)[0].path, PathBuf::from("a b.py"));
    }
}
