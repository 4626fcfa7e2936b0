//! Git metadata read from repository files agrees with what `git` itself reports.

use std::path::Path;
use std::process::Command;

use devcoach_core::lesson::Platform;
use devcoach_probe as probe;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "T")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "T")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn repo() -> tempfile::TempDir {
    let tmp = tempfile::TempDir::new().expect("tmp");
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["remote", "add", "origin", "git@github.com:acme/widgets.git"]);
    std::fs::write(dir.join("a.txt"), "a").expect("write");
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "first"]);
    tmp
}

#[test]
fn loose_and_packed_refs_match_git() {
    let tmp = repo();
    let dir = tmp.path();
    let sub = dir.join("src/deep");
    std::fs::create_dir_all(&sub).expect("subdir");
    let head = git(dir, &["rev-parse", "HEAD"]);

    let ctx = probe::git_context(&sub);
    assert_eq!(ctx.branch.as_deref(), Some("main"));
    assert_eq!(ctx.commit_hash.as_deref(), Some(head.as_str()));
    assert_eq!(ctx.repository.as_deref(), Some("acme/widgets"));
    assert_eq!(ctx.repository_platform, Some(Platform::Github));
    assert_eq!(ctx.project.as_deref(), Some("widgets"));
    assert_eq!(ctx.folder.as_deref(), Some(sub.to_str().expect("utf-8")));

    git(dir, &["pack-refs", "--all"]);
    assert!(!dir.join(".git/refs/heads/main").exists(), "the ref is packed now");
    assert_eq!(probe::git_context(dir).commit_hash.as_deref(), Some(head.as_str()));
}

#[test]
fn detached_head_and_worktrees() {
    let tmp = repo();
    let dir = tmp.path();
    let head = git(dir, &["rev-parse", "HEAD"]);
    git(dir, &["checkout", "-q", "--detach"]);
    let ctx = probe::git_context(dir);
    assert_eq!((ctx.branch, ctx.commit_hash.as_deref()), (None, Some(head.as_str())));

    git(dir, &["checkout", "-q", "main"]);
    let wt = dir.join("wt");
    git(dir, &["worktree", "add", "-q", "-b", "feature/x", wt.to_str().expect("utf-8")]);
    let ctx = probe::git_context(&wt);
    assert_eq!(ctx.branch.as_deref(), Some("feature/x"));
    assert_eq!(ctx.commit_hash.as_deref(), Some(git(&wt, &["rev-parse", "HEAD"]).as_str()));
    assert_eq!(ctx.repository.as_deref(), Some("acme/widgets"));
}

#[test]
fn outside_a_repository_the_folder_names_the_project() {
    let tmp = tempfile::TempDir::new().expect("tmp");
    let dir = tmp.path().join("scratch-notes");
    std::fs::create_dir(&dir).expect("dir");
    let ctx = probe::git_context(&dir);
    assert_eq!((ctx.branch, ctx.commit_hash, ctx.repository), (None, None, None));
    assert_eq!(ctx.project.as_deref(), Some("scratch-notes"));
}

#[test]
fn a_fresh_repository_has_a_branch_but_no_commit() {
    let tmp = tempfile::TempDir::new().expect("tmp");
    git(tmp.path(), &["init", "-q", "-b", "trunk"]);
    let ctx = probe::git_context(tmp.path());
    assert_eq!((ctx.branch.as_deref(), ctx.commit_hash), (Some("trunk"), None));
}

#[test]
fn stack_detection_reads_the_folder() {
    let tmp = tempfile::TempDir::new().expect("tmp");
    let dir = tmp.path();
    std::fs::write(dir.join("package.json"), r#"{"dependencies":{"react":"19"}}"#).expect("write");
    std::fs::write(dir.join("Dockerfile"), "FROM scratch").expect("write");
    std::fs::create_dir_all(dir.join(".github/workflows")).expect("dir");
    std::fs::write(dir.join(".github/workflows/ci.yml"), "on: push").expect("write");
    let stack = probe::detect_stack(dir);
    let topics: Vec<(&str, i64)> = stack.iter().map(|(t, c)| (t.as_str(), *c)).collect();
    assert_eq!(topics, [("docker", 7), ("github_actions", 6), ("javascript", 6), ("react", 6)]);
    assert!(probe::detect_stack(&dir.join("missing")).is_empty());
}
