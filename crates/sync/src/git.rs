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
use crate::error::{GitProblem, PathProblem, SetupProblem};

/// The branch devcoach keeps the record on.
pub const BRANCH: &str = "main";
/// Every file of the clone is bytes to git: no end-of-line change, filter or merge driver,
/// whatever a committed `.gitattributes` says.
const ATTRIBUTES: &str = "* -text -eol -filter -diff -merge -ident -working-tree-encoding\n";
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

/// Why `target` is neither a folder nor a git remote devcoach uses, when it looks like neither:
/// a remote helper (`ext::` runs a command), a URL of another scheme, or a bare `host:path`
/// that git would read as SSH and a folder reading would put in the current directory.
pub fn unsupported(target: &str) -> Option<SetupProblem> {
    let t = target.trim();
    let head = t.split('/').next().unwrap_or(t);
    if head.contains("::") {
        return Some(SetupProblem::RemoteHelper { target: t.to_owned() });
    }
    if let Some((scheme, _)) = t.split_once("://") {
        let known = ["https", "http", "ssh", "git", "file"].iter().any(|k| scheme.eq_ignore_ascii_case(k));
        return (!known).then(|| SetupProblem::UnknownScheme { target: t.to_owned(), scheme: scheme.to_owned() });
    }
    let before_colon = head.split(':').next().unwrap_or(head);
    let drive = before_colon.len() == 1 && before_colon.as_bytes()[0].is_ascii_alphabetic();
    if head.contains(':') && !drive && !is_remote(t) && !t.starts_with('.') && !t.starts_with('~') {
        return Some(SetupProblem::FolderOrRemote { target: t.to_owned() });
    }
    None
}

pub struct Repo {
    pub dir: PathBuf,
    /// The remote's URL when it is a repository on this machine (a path or `file://`): git
    /// runs its receiving side here, with that repository's hooks and configuration.
    local_remote: Option<String>,
}

/// Whether git reaches `url` on this machine (as git reads a URL: a scheme of `file`, or no
/// scheme and no `host:` before the first slash).
pub fn is_local_remote(url: &str) -> bool {
    let url = url.trim();
    if let Some((scheme, _)) = url.split_once("://") {
        return scheme.eq_ignore_ascii_case("file");
    }
    match url.split_once(':') {
        None => true,
        // A drive letter (`C:/repos/x.git`) is a path, as git reads it on Windows.
        Some((before, _)) => before.contains('/') || (before.len() == 1 && before.as_bytes()[0].is_ascii_alphabetic()),
    }
}

/// Configuration a repository on this machine may hold: none of it makes git run a command
/// (hooks are turned off besides). Anything else — `core.alternateRefsCommand`, `core.fsmonitor`,
/// a filter, an include of another file — could, when git works in that repository for a push
/// or a fetch of ours, so such a remote is refused.
fn harmless_remote_key(key: &str) -> bool {
    const CORE: [&str; 11] = [
        "core.repositoryformatversion",
        "core.filemode",
        "core.bare",
        "core.logallrefupdates",
        "core.ignorecase",
        "core.precomposeunicode",
        "core.symlinks",
        "core.sharedrepository",
        "core.autocrlf",
        "core.compression",
        "core.bigfilethreshold",
    ];
    let key = key.to_ascii_lowercase();
    let section = key.split('.').next().unwrap_or_default();
    CORE.contains(&key.as_str())
        || (["extensions", "remote", "branch", "user", "init", "pack", "gc", "transfer", "fetch"].contains(&section))
        || (section == "receive" && key != "receive.procreceiverefs")
        || (section == "uploadpack" && key != "uploadpack.packobjectshook")
}

/// The configuration file of the repository at a local remote's URL, when there is one.
fn local_config(url: &str) -> Option<PathBuf> {
    let url = url.trim();
    let path = url.strip_prefix("file://").map_or_else(|| PathBuf::from(url), PathBuf::from);
    [path.join("config"), path.join(".git").join("config")].into_iter().find(|p| p.is_file())
}

/// Refuses a local remote whose configuration could run a command (see [`harmless_remote_key`]).
fn check_local_remote(url: &str) -> Result<(), SyncError> {
    let Some(config) = local_config(url) else { return Ok(()) };
    let config_text = config.to_string_lossy();
    let out = git(None, &["config", "--file", &config_text, "--no-includes", "--list", "--name-only"], LOCAL)?;
    if !out.ok {
        return Err(failed(&format!("reading {}", config.display()), &out));
    }
    if let Some(key) = out.stdout.lines().map(str::trim).find(|k| !k.is_empty() && !harmless_remote_key(k)) {
        return Err(GitProblem::RunsCommands { url: url.to_owned(), key: key.to_owned(), config }.into());
    }
    Ok(())
}

/// The receiving side of a push to a local remote, told to run none of that repository's
/// hooks: the `-c` given to our own git does not reach it (git clears the configuration it
/// passes in the environment before running a local remote's side).
const QUIET_RECEIVE_PACK: &str = "git -c core.hooksPath=/dev/null receive-pack";

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
        child::ChildError::Start { .. } => GitProblem::Missing,
        other => GitProblem::Run(other),
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
    GitProblem::Failed { step: what.to_owned(), said }.into()
}

impl Repo {
    /// Clones `url` into `dir`, or opens the clone already there (which must point at `url`).
    pub fn open(dir: &Path, url: &str) -> Result<Self, SyncError> {
        let repo = Self { dir: dir.to_owned(), local_remote: is_local_remote(url).then(|| url.to_owned()) };
        if dir.join(".git").is_dir() {
            let out = git(Some(dir), &["remote", "get-url", "origin"], LOCAL)?;
            if out.stdout.trim() != url {
                return Err(GitProblem::OtherClone {
                    dir: dir.to_owned(),
                    origin: out.stdout.trim().to_owned(),
                    url: url.to_owned(),
                }
                .into());
            }
            return Ok(repo);
        }
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| SyncError::Path { path: parent.to_owned(), problem: PathProblem::Io(e) })?;
        }
        let _ = std::fs::remove_dir_all(dir);
        if repo.local_remote.is_some() {
            check_local_remote(url)?;
        }
        let dir_text = dir.to_string_lossy();
        // Nothing is checked out before the clone's own attributes are in place: a pushed
        // `.gitattributes` would otherwise rewrite the files on their way into a new clone.
        let out = git(None, &["clone", "--quiet", "--no-checkout", "--", url, &dir_text], NETWORK)?;
        if !out.ok {
            let _ = std::fs::remove_dir_all(dir);
            return Err(failed(&format!("cloning {url}"), &out));
        }
        repo.write_attributes()?;
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
        self.check_remote()?;
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

    /// Makes every file of the clone bytes to git (`info/attributes` outranks any committed
    /// `.gitattributes`).
    fn write_attributes(&self) -> Result<(), SyncError> {
        let info = self.dir.join(".git").join("info");
        std::fs::create_dir_all(&info)
            .map_err(|e| SyncError::Path { path: info.clone(), problem: PathProblem::Io(e) })?;
        devcoach_files::write(&info.join("attributes"), ATTRIBUTES.as_bytes(), devcoach_files::Overwrite::Replace)
            .map_err(SyncError::File)
    }

    /// Commits whatever is in the clone and not committed: this round's files, or what a sync
    /// killed between adding and committing left staged (a rebase refuses to start over it).
    pub fn commit_all(&self, message: &str) -> Result<(), SyncError> {
        // Whoever can push may commit a `.gitattributes` (an end-of-line or filter rule would
        // rewrite our files on the way in) or a `.gitignore` (our files would silently never be
        // committed). The clone's own `info/attributes` outranks every `.gitattributes`, and a
        // forced add takes ignored files too.
        self.write_attributes()?;
        let out = git(Some(&self.dir), &["add", "--all", "--force", "."], LOCAL)?;
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
            self.check_remote()?;
            let receive_pack = format!("--receive-pack={QUIET_RECEIVE_PACK}");
            let mut args = vec!["push", "--quiet"];
            if self.local_remote.is_some() {
                args.push(&receive_pack);
            }
            let refspec = format!("HEAD:refs/heads/{BRANCH}");
            args.extend(["origin", &refspec]);
            let out = git(Some(&self.dir), &args, NETWORK)?;
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
        Err(GitProblem::PushLost { tries: PUSH_TRIES }.into())
    }

    /// For a local remote, refuses one whose configuration could run a command (checked again
    /// before each fetch and push: the repository may change between syncs).
    fn check_remote(&self) -> Result<(), SyncError> {
        self.local_remote.as_deref().map_or(Ok(()), check_local_remote)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_that_are_neither_a_folder_nor_a_remote_we_use_are_named() {
        for bad in
            ["ext::sh -c touch% /tmp/pwned", "fd::17", "s3://bucket/record", "ftp://host/x", "nas:backups/devcoach"]
        {
            assert!(unsupported(bad).is_some(), "{bad}");
        }
        for good in [
            "~/Sync/devcoach",
            "./nas:backups",
            "/mnt/share/devcoach",
            "C:\\Users\\me\\Sync",
            "git@github.com:me/record.git",
            "me@host:record",
            "host:record.git",
            "https://example.com/me/record.git",
            "file:///srv/record.git",
        ] {
            assert!(unsupported(good).is_none(), "{good}");
        }
    }

    #[test]
    fn only_configuration_that_runs_nothing_is_harmless() {
        for ok in
            ["core.bare", "core.repositoryformatversion", "remote.origin.url", "receive.denyCurrentBranch", "gc.auto"]
        {
            assert!(harmless_remote_key(ok), "{ok}");
        }
        for bad in [
            "core.alternateRefsCommand",
            "core.fsmonitor",
            "core.sshCommand",
            "core.hooksPath",
            "filter.x.smudge",
            "include.path",
            "includeIf.gitdir:/x.path",
            "receive.procReceiveRefs",
            "uploadpack.packObjectsHook",
            "alias.x",
        ] {
            assert!(!harmless_remote_key(bad), "{bad}");
        }
    }

    #[test]
    fn local_remotes_are_told_from_network_ones() {
        for local in ["/srv/record.git", "file:///srv/record.git", "FILE:///x", "../record.git", "C:/repos/x.git"] {
            assert!(is_local_remote(local), "{local}");
        }
        for network in ["git@github.com:me/r.git", "https://h/r.git", "ssh://h/r", "host:r.git"] {
            assert!(!is_local_remote(network), "{network}");
        }
    }
}
