//! Git, as hands-on practice runs it on the learner's repository: never a hook, never a
//! prompt, never an opportunistic write (an index refresh) in their repository, every run under
//! a deadline with its output capped.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use devcoach_probe::child::{self, ChildError, Limits};

use crate::HandsOnError;

/// How long one local git command may take.
const DEADLINE: Duration = Duration::from_mins(1);

pub(crate) struct Out {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
    /// The output reached the cap: what was read is a beginning.
    pub capped: bool,
}

/// Runs `git -C dir args…`, its stdout capped at `cap` bytes.
pub(crate) fn git(dir: &Path, args: &[&str], cap: u64) -> Result<Out, HandsOnError> {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir);
    // No hook (a `post-checkout` runs on `worktree add`), no filesystem monitor command, paths
    // as they are, and no colour or pager whatever the learner's configuration says.
    cmd.args(["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.quotePath=false"]);
    // `git show` would run the configured gpg program to show a signature.
    cmd.args(["-c", "color.ui=false", "-c", "log.showSignature=false", "--no-pager"]).args(args);
    // Inherited from a git hook, these would point every command (the worktree's own checkout
    // included) at another repository, index or work tree.
    for var in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_NAMESPACE"]
    {
        cmd.env_remove(var);
    }
    // No LFS download while a worktree is laid: that could wait on the network for a minute.
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_LFS_SKIP_SMUDGE", "1")
        .env("LC_ALL", "C");
    let done =
        child::run(cmd, Limits { deadline: DEADLINE, output_cap: cap, ..Limits::default() }).map_err(|e| match e {
            ChildError::Start { .. } => HandsOnError::NoGit,
            other => HandsOnError::GitRun(other),
        })?;
    let capped = u64::try_from(done.stdout.len()).unwrap_or(u64::MAX) >= cap;
    Ok(Out { ok: done.status.success(), stdout: done.stdout, stderr: done.stderr, capped })
}

/// Like [`git`], failing with what git said when it fails.
pub(crate) fn git_ok(dir: &Path, args: &[&str], cap: u64) -> Result<Out, HandsOnError> {
    let out = git(dir, args, cap)?;
    if !out.ok {
        let said = out.stderr.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("hint:")).take(3);
        return Err(HandsOnError::GitFailed {
            step: args.iter().take(2).copied().collect::<Vec<_>>().join(" "),
            said: said.collect::<Vec<_>>().join(" / "),
        });
    }
    Ok(out)
}
