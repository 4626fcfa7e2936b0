//! Hands-on practice against real repositories the tests make: a change is read, a piece picked,
//! an exercise set up and checked with the project's own tests, and the learner's repository
//! is byte for byte what it was, after a finish and after a crash.

mod bad_inputs;
mod leak_props;
mod outcome_props;
mod repos;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A git repository in a temporary folder.
pub struct Repo {
    pub dir: tempfile::TempDir,
}

impl Default for Repo {
    fn default() -> Self {
        Self::new()
    }
}

impl Repo {
    pub fn new() -> Self {
        let repo = Self { dir: tempfile::tempdir().expect("tempdir") };
        repo.git(&["init", "--quiet", "--initial-branch=main"]);
        repo.git(&["config", "user.email", "learner@example.com"]);
        repo.git(&["config", "user.name", "Learner"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .arg("-C")
            .arg(self.path())
            .args(args)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "--all"]);
        self.git(&["commit", "--quiet", "-m", message]);
    }

    /// Everything a learner could notice: status, refs, stash, worktrees, hooks, and every
    /// file of `.git` and of the working tree with its bytes.
    pub fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        let mut all = BTreeMap::new();
        for (name, args) in [
            ("status", &["status", "--porcelain=v2", "--branch", "--untracked-files=all"][..]),
            ("refs", &["for-each-ref"][..]),
            ("stash", &["stash", "list"][..]),
            ("worktrees", &["worktree", "list", "--porcelain"][..]),
        ] {
            all.insert(format!("git {name}"), self.git(args).into_bytes());
        }
        files(self.path(), self.path(), &mut all);
        all
    }
}

fn files(top: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path).expect("meta");
        let rel = path.strip_prefix(top).expect("inside").to_string_lossy().into_owned();
        if meta.is_dir() {
            out.insert(format!("{rel}/"), Vec::new());
            files(top, &path, out);
        } else {
            out.insert(rel, std::fs::read(&path).unwrap_or_default());
        }
    }
}

/// The data folder's hands-on root, in its own temporary folder.
pub fn data_root() -> (tempfile::TempDir, PathBuf) {
    let data = tempfile::tempdir().expect("tempdir");
    let root = data.path().join("handson");
    (data, root)
}

/// The keys that differ between two snapshots.
pub fn differences(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).cloned().collect()
}

devcoach_core::no_forgotten_test_files!();
