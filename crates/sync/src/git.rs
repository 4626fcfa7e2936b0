//! The git transport: a clone of the learner's own repository inside the data folder, driven
//! through the `git` CLI so the learner's own credentials (SSH keys, credential helpers) apply.
//! The clone is the shared folder; a sync fetches and rebases onto the remote before reading,
//! then commits this device's new files and pushes. Each device only adds files under its own
//! folder, so the rebase never meets a conflict; a push that lost the race fetches and retries.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use devcoach_probe::child::{self, Limits};

use crate::SyncError;

/// The branch devcoach keeps the record on.
pub const BRANCH: &str = "main";
const NETWORK: Duration = Duration::from_mins(2);
const LOCAL: Duration = Duration::from_secs(30);
const PUSH_TRIES: usize = 5;

/// Whether `target` names a git remote rather than a folder.
pub fn is_remote(target: &str) -> bool {
    let t = target.trim();
    t.to_ascii_lowercase().ends_with(".git")
        || ["https://", "http://", "ssh://", "git://", "file://", "git@"].iter().any(|p| t.starts_with(p))
        || (t.contains(':')
            && !t.starts_with('/')
            && !t.starts_with('.')
            && t.split(':').next().is_some_and(|h| h.contains('@')))
}

pub struct Repo {
    pub dir: PathBuf,
}

struct Out {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn git(dir: Option<&Path>, args: &[&str], deadline: Duration) -> Result<Out, SyncError> {
    let mut cmd = Command::new("git");
    if let Some(dir) = dir {
        cmd.arg("-C").arg(dir);
    }
    // Never a commit signature prompt, never a credential prompt that nobody sees (a missing
    // credential fails at once with git's own message).
    cmd.args(["-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"]).args(args);
    cmd.env("GIT_TERMINAL_PROMPT", "0").env("LC_ALL", "C");
    let done = child::run(cmd, Limits { deadline, ..Limits::default() }).map_err(|e| match e {
        child::ChildError::Start { .. } => {
            SyncError::Git("git is not installed (or not on PATH); install git, or sync through a folder".into())
        }
        other => SyncError::Git(other.to_string()),
    })?;
    Ok(Out { ok: done.status.success(), stdout: done.stdout, stderr: done.stderr })
}

fn failed(what: &str, out: &Out) -> SyncError {
    // git's own advice ("hint: …", "run git rebase --continue") is about steps devcoach takes
    // itself: only what went wrong is passed on.
    let said = out
        .stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("hint:") && !l.contains("git rebase --"))
        .take(4)
        .collect::<Vec<_>>()
        .join(" / ");
    SyncError::Git(format!("{what} failed: {said}"))
}

impl Repo {
    /// Clones `url` into `dir`, or opens the clone already there (which must point at `url`).
    pub fn open(dir: &Path, url: &str) -> Result<Self, SyncError> {
        let repo = Self { dir: dir.to_owned() };
        if dir.join(".git").is_dir() {
            let out = git(Some(dir), &["remote", "get-url", "origin"], LOCAL)?;
            if out.stdout.trim() != url {
                return Err(SyncError::Git(format!(
                    "{} is a clone of {}, not of {url}; run `devcoach sync off` first to change where devcoach syncs",
                    dir.display(),
                    out.stdout.trim()
                )));
            }
            return Ok(repo);
        }
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent).map_err(|e| SyncError::Folder(format!("{}: {e}", parent.display())))?;
        }
        let _ = std::fs::remove_dir_all(dir);
        let dir_text = dir.to_string_lossy();
        let out = git(None, &["clone", "--quiet", "--", url, &dir_text], NETWORK)?;
        if !out.ok {
            let _ = std::fs::remove_dir_all(dir);
            return Err(failed(&format!("cloning {url}"), &out));
        }
        // An empty repository, or one whose default branch is another: the record lives on `main`.
        if git(Some(dir), &["rev-parse", "--verify", "--quiet", &format!("refs/remotes/origin/{BRANCH}")], LOCAL)?.ok {
            let out = git(Some(dir), &["checkout", "--quiet", "-B", BRANCH, &format!("origin/{BRANCH}")], LOCAL)?;
            if !out.ok {
                return Err(failed("checking out the sync branch", &out));
            }
        } else {
            let out = git(Some(dir), &["checkout", "--quiet", "--orphan", BRANCH], LOCAL)?;
            if !out.ok {
                return Err(failed("starting the sync branch", &out));
            }
            let _ = git(Some(dir), &["rm", "-r", "-q", "--cached", "--ignore-unmatch", "."], LOCAL)?;
        }
        // Commits need a name; the learner's own is used when git has one.
        if !git(Some(dir), &["config", "user.email"], LOCAL)?.ok {
            git(Some(dir), &["config", "user.email", "devcoach@localhost"], LOCAL)?;
            git(Some(dir), &["config", "user.name", "devcoach"], LOCAL)?;
        }
        Ok(repo)
    }

    /// The URL a clone at `dir` was made from, if there is one.
    pub fn origin(dir: &Path) -> Option<String> {
        if !dir.join(".git").is_dir() {
            return None;
        }
        let out = git(Some(dir), &["remote", "get-url", "origin"], LOCAL).ok()?;
        out.ok.then(|| out.stdout.trim().to_owned())
    }

    /// Undoes what a killed sync left: a rebase half done, a lock file (this device holds the
    /// sync lock, so no git of ours is running here).
    pub fn recover(&self) -> Result<(), SyncError> {
        let git_dir = self.dir.join(".git");
        if git_dir.join("rebase-merge").exists() || git_dir.join("rebase-apply").exists() {
            let _ = git(Some(&self.dir), &["rebase", "--abort"], LOCAL)?;
        }
        let _ = std::fs::remove_file(git_dir.join("index.lock"));
        Ok(())
    }

    /// Brings the clone up to the remote.
    pub fn pull(&self) -> Result<(), SyncError> {
        let out = git(Some(&self.dir), &["fetch", "--quiet", "origin"], NETWORK)?;
        if !out.ok {
            return Err(failed("fetching from the sync repository", &out));
        }
        let remote = format!("refs/remotes/origin/{BRANCH}");
        if !git(Some(&self.dir), &["rev-parse", "--verify", "--quiet", &remote], LOCAL)?.ok {
            return Ok(());
        }
        let has_head = git(Some(&self.dir), &["rev-parse", "--verify", "--quiet", "HEAD"], LOCAL)?.ok;
        let out = if has_head {
            git(Some(&self.dir), &["rebase", "--quiet", &format!("origin/{BRANCH}")], LOCAL)?
        } else {
            git(Some(&self.dir), &["reset", "--quiet", "--hard", &format!("origin/{BRANCH}")], LOCAL)?
        };
        if !out.ok {
            let _ = git(Some(&self.dir), &["rebase", "--abort"], LOCAL);
            return Err(failed("rebasing onto the sync repository", &out));
        }
        Ok(())
    }

    /// Commits whatever is in the clone and not committed: this round's files, or what a sync
    /// killed between adding and committing left staged (a rebase refuses to start over it).
    pub fn commit_all(&self, message: &str) -> Result<(), SyncError> {
        let out = git(Some(&self.dir), &["add", "--all", "."], LOCAL)?;
        if !out.ok {
            return Err(failed("adding the new files", &out));
        }
        let status = git(Some(&self.dir), &["status", "--porcelain"], LOCAL)?;
        if !status.stdout.trim().is_empty() {
            let out = git(Some(&self.dir), &["commit", "--quiet", "--no-verify", "-m", message], LOCAL)?;
            if !out.ok {
                return Err(failed("committing", &out));
            }
        }
        Ok(())
    }

    /// Commits whatever this device added and pushes it; whether anything was pushed.
    pub fn push(&self, message: &str) -> Result<bool, SyncError> {
        self.commit_all(message)?;
        let ahead = git(Some(&self.dir), &["rev-list", "--count", &format!("origin/{BRANCH}..HEAD")], LOCAL)?;
        if ahead.ok && ahead.stdout.trim() == "0" {
            return Ok(false);
        }
        for _ in 0..PUSH_TRIES {
            let out =
                git(Some(&self.dir), &["push", "--quiet", "origin", &format!("HEAD:refs/heads/{BRANCH}")], NETWORK)?;
            if out.ok {
                return Ok(true);
            }
            let rejected = out.stderr.contains("rejected")
                || out.stderr.contains("fetch first")
                || out.stderr.contains("non-fast-forward");
            if !rejected {
                return Err(failed("pushing to the sync repository", &out));
            }
            // Another device pushed meanwhile: take its files and try again.
            self.pull()?;
        }
        Err(SyncError::Git(format!(
            "pushing kept losing to other devices' pushes ({PUSH_TRIES} tries); run `devcoach sync` again"
        )))
    }

    /// Whether the working tree of the clone holds files other than devcoach's.
    pub fn is_foreign(&self) -> bool {
        std::fs::read_dir(&self.dir).is_ok_and(|entries| {
            let mut names: Vec<String> =
                entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
            names.retain(|n| n != ".git");
            !names.is_empty() && !names.iter().any(|n| n == crate::folder::MARKER)
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The remote's output for one command (tests look at the log).
    pub fn run(&self, args: &[&str]) -> Result<String, SyncError> {
        let out = git(Some(&self.dir), args, LOCAL)?;
        if out.ok { Ok(out.stdout) } else { Err(failed(&format!("git {}", args.join(" ")), &out)) }
    }
}
