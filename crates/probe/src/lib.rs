//! Looking at the learner's machine: git metadata for lesson context, the manifests that suggest
//! a stack, (in `history`) the projects Claude Code has worked in, and (in `child`) the one way
//! devcoach runs another program. The rules are in `devcoach-core`; this crate only reads, and
//! never fails loudly: what cannot be read is simply not there. The front ends call it and hand
//! what it found to the store; the store never looks at the machine itself.
//!
//! Git metadata is read from the repository's files (HEAD, refs, packed-refs, config) instead of
//! forking `git` three times per lesson; a repository this reader does not understand (reftable
//! refs, config includes) falls back to the `git` commands with a 3-second limit each.

pub mod child;
pub mod history;
pub mod transcript;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use devcoach_core::detect::{self, DirSnapshot, SNAPSHOT_SUBDIRS, SNAPSHOT_TEXT_FILES, Stack};
use devcoach_core::git::{GitAnswers, GitContext};
use devcoach_core::limits;

/// How long one `git` command may take before it is abandoned.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(3);

/// The git context of `folder` (the agent's working directory). Never fails: what cannot be
/// read is `None`.
pub fn git_context(folder: &Path) -> GitContext {
    let answers = read_git_files(folder).unwrap_or_else(|| run_git_commands(folder));
    GitContext::from_answers(&folder.to_string_lossy(), answers)
}

/// The name git would sign commits with here (`git config user.name`), for share bylines.
pub fn git_user_name(folder: &Path) -> Option<String> {
    run_git(folder, &["config", "user.name"])
}

struct Repo {
    /// The directory holding this worktree's HEAD.
    git_dir: PathBuf,
    /// The directory holding refs and config shared by every worktree.
    common_dir: PathBuf,
}

fn find_repo(start: &Path) -> Option<Repo> {
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        let git_dir = if dot_git.is_dir() {
            dot_git
        } else if dot_git.is_file() {
            // A worktree or submodule: `.git` is a file saying `gitdir: <path>`.
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.strip_prefix("gitdir:")?.trim();
            let path = Path::new(target);
            if path.is_absolute() { path.to_owned() } else { dir.join(path) }
        } else {
            continue;
        };
        let common_dir = match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(rel) => {
                let rel = Path::new(rel.trim());
                if rel.is_absolute() { rel.to_owned() } else { git_dir.join(rel) }
            }
            Err(_) => git_dir.clone(),
        };
        return Some(Repo { git_dir, common_dir });
    }
    None
}

/// Reads branch, commit and origin URL from the repository files. `None` means "ask git".
fn read_git_files(folder: &Path) -> Option<GitAnswers> {
    let Some(repo) = find_repo(folder) else {
        // Not a repository: git would say nothing either.
        return Some(GitAnswers::default());
    };
    let config = std::fs::read_to_string(repo.common_dir.join("config")).unwrap_or_default();
    if config_needs_git(&config) {
        return None;
    }
    let head = std::fs::read_to_string(repo.git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let (branch, commit) = if let Some(reference) = head.strip_prefix("ref:") {
        let reference = reference.trim();
        let branch = reference.strip_prefix("refs/heads/").unwrap_or(reference).to_owned();
        (Some(branch), resolve_ref(&repo, reference))
    } else if is_object_id(head) {
        (Some("HEAD".to_owned()), Some(head.to_owned()))
    } else {
        return None;
    };
    Some(GitAnswers { branch, commit, remote: origin_url(&config) })
}

/// Configs this reader does not fully understand are left to git.
fn config_needs_git(config: &str) -> bool {
    config.lines().map(str::trim).any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("[include")
            || l.starts_with("refstorage")
            || l.starts_with("[extensions") && l.contains("refstorage")
    })
}

fn resolve_ref(repo: &Repo, reference: &str) -> Option<String> {
    for dir in [&repo.git_dir, &repo.common_dir] {
        if let Ok(text) = std::fs::read_to_string(dir.join(reference)) {
            let id = text.trim();
            return is_object_id(id).then(|| id.to_owned());
        }
    }
    let packed = std::fs::read_to_string(repo.common_dir.join("packed-refs")).ok()?;
    packed.lines().find_map(|line| {
        let (id, name) = line.split_once(' ')?;
        (name.trim() == reference && is_object_id(id)).then(|| id.to_owned())
    })
}

fn is_object_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `url` of `[remote "origin"]`.
fn origin_url(config: &str) -> Option<String> {
    let mut in_origin = false;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let section: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            in_origin = section.eq_ignore_ascii_case("[remote\"origin\"]");
            continue;
        }
        if let Some((key, value)) = line.split_once('=').filter(|_| in_origin)
            && key.trim().eq_ignore_ascii_case("url")
        {
            let value = value.trim().trim_matches('"').trim();
            return (!value.is_empty()).then(|| value.to_owned());
        }
    }
    None
}

fn run_git_commands(folder: &Path) -> GitAnswers {
    GitAnswers {
        branch: run_git(folder, &["rev-parse", "--abbrev-ref", "HEAD"]),
        commit: run_git(folder, &["rev-parse", "HEAD"]),
        remote: run_git(folder, &["remote", "get-url", "origin"]),
    }
}

/// Runs `git <args>` in `folder`; trimmed stdout, or `None` on any failure or after
/// [`GIT_TIMEOUT`].
fn run_git(folder: &Path, args: &[&str]) -> Option<String> {
    let mut cmd = Command::new("git");
    cmd.args(args).current_dir(folder);
    let done = child::run(
        cmd,
        child::Limits {
            deadline: GIT_TIMEOUT,
            output_cap: devcoach_core::limits::GIT_OUTPUT_BYTES,
            ..child::Limits::default()
        },
    )
    .ok()
    .filter(|d| d.status.success())?;
    let out = done.stdout.trim();
    (!out.is_empty()).then(|| out.to_owned())
}

fn list_names(dir: &Path) -> Option<Vec<String>> {
    let entries = std::fs::read_dir(dir).ok()?;
    Some(entries.take(limits::STACK_DIR_ENTRIES).filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
}

fn read_capped(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut buf = Vec::new();
    file.take(limits::MANIFEST_BYTES as u64).read_to_end(&mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// What detection needs from a folder (its entries, a few subfolders, a few manifests).
pub fn dir_snapshot(folder: &Path) -> DirSnapshot {
    let mut snap = DirSnapshot { names: list_names(folder).unwrap_or_default(), ..DirSnapshot::default() };
    for sub in SNAPSHOT_SUBDIRS {
        if let Some(names) = list_names(&folder.join(sub)) {
            snap.subdirs.insert(sub.to_owned(), names);
        }
    }
    for file in SNAPSHOT_TEXT_FILES {
        if let Some(text) = read_capped(&folder.join(file)) {
            snap.texts.insert(file.to_owned(), text);
        }
    }
    snap
}

/// The stack a folder suggests (one directory level, as the rules describe).
pub fn detect_stack(folder: &Path) -> Stack {
    detect::detect_stack(&dir_snapshot(folder))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_url_from_config() {
        let config = "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = git@a:b/c.git\n[remote \"origin\"]\n\turl = https://github.com/acme/w.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n";
        assert_eq!(origin_url(config).as_deref(), Some("https://github.com/acme/w.git"));
        assert_eq!(origin_url("[core]\n"), None);
        assert!(config_needs_git("[include]\n\tpath = x"));
        assert!(config_needs_git("[extensions]\n\trefStorage = reftable"));
        assert!(!config_needs_git(config));
    }
}
