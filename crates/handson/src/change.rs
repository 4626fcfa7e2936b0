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
                Some((from, to)) if !from.is_empty() && !to.is_empty() && !to.starts_with('.') => {
                    Self::Range { from: from.to_owned(), to: to.to_owned() }
                }
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
    // `--end-of-options` keeps a revision that starts with `-` from being read as an option.
    let spec = format!("{rev}^{{commit}}");
    let out = git(top, &["rev-parse", "--verify", "--quiet", "--end-of-options", &spec], limits::GIT_OUTPUT_BYTES)?;
    if !out.ok || out.stdout.trim().is_empty() {
        return Err(HandsOnError::NoSuchRevision { rev: rev.to_owned() });
    }
    Ok(out.stdout.trim().to_owned())
}

/// Reads `change` in the repository `dir` is in.
pub fn read(dir: &Path, change: &Change) -> Result<Changed, HandsOnError> {
    let top = repository_top(dir)?;
    let cap = limits::HANDSON_DIFF_BYTES;
    let diff_args = ["--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "--diff-filter=AM", "-U0"];
    let (base, diff, mut deleted, untracked) = match change {
        Change::Uncommitted => {
            let base = resolve(&top, "HEAD").map_err(|_| HandsOnError::NoCommitYet)?;
            let mut args = vec!["diff", "HEAD"];
            args.extend(diff_args);
            let diff = git_ok(&top, &args, cap)?;
            let gone = git_ok(&top, &["diff", "HEAD", "--no-renames", "--diff-filter=D", "--name-only", "-z"], cap)?;
            let new = git_ok(&top, &["ls-files", "-z", "--others", "--exclude-standard"], cap)?;
            let split = |text: &str| text.split('\0').filter(|p| !p.is_empty()).map(PathBuf::from).collect::<Vec<_>>();
            (base, diff, split(&gone.stdout), split(&new.stdout))
        }
        Change::Commit(rev) => {
            let base = resolve(&top, rev)?;
            let mut args = vec!["show", "--format=", "--first-parent"];
            args.extend(diff_args);
            args.extend(["--end-of-options", base.as_str()]);
            (base.clone(), git_ok(&top, &args, cap)?, Vec::new(), Vec::new())
        }
        Change::Range { from, to } => {
            let (from, base) = (resolve(&top, from)?, resolve(&top, to)?);
            let mut args = vec!["diff"];
            args.extend(diff_args);
            args.extend(["--end-of-options", from.as_str(), base.as_str()]);
            (base.clone(), git_ok(&top, &args, cap)?, Vec::new(), Vec::new())
        }
    };
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
    Ok(Changed { top, base, change: change.clone(), files, deleted, truncated })
}

/// The files of a unified diff with zero context, and the new-side lines of their hunks.
/// A binary file, a submodule or a deleted file has no hunk with new lines and is left out.
pub fn parse_diff(diff: &str) -> Vec<ChangedFile> {
    let mut files: Vec<ChangedFile> = Vec::new();
    let mut current: Option<ChangedFile> = None;
    let mut created = false;
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            files.extend(current.take().filter(|f| !f.added.is_empty()));
            created = false;
        } else if line.starts_with("new file mode") {
            created = true;
        } else if let Some(path) = line.strip_prefix("+++ ") {
            // A quoted path holds characters git escapes; such a file is not one to rebuild.
            current = path.strip_prefix("b/").filter(|p| !p.starts_with('"')).map(|p| ChangedFile {
                path: PathBuf::from(p),
                added: Vec::new(),
                created,
            });
        } else if let Some(hunk) = line.strip_prefix("@@ ")
            && let Some(file) = current.as_mut()
            && let Some(range) = new_side(hunk)
        {
            file.added.push(range);
        }
    }
    files.extend(current.filter(|f| !f.added.is_empty()));
    files
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
    }
}
