//! The binary's single integration-test binary: every test runs the real `devcoach` in a
//! sandboxed data directory with a pinned clock.

mod agents;
mod agents_real;
mod browser;
mod commands;
mod concurrency;
mod failure_modes;
mod fake_model;
mod handson;
mod hooks;
mod mcp;
mod mcp_protocol;
mod mcp_python;
mod packages;
mod practice;
mod practice_session;
mod prose;
mod read_only;
mod reviews;
mod sharing;
mod sync;
mod terminal;
mod torture;
mod ui;
mod widths;

use std::path::{Path, PathBuf};
use std::process::Output;

use tempfile::TempDir;

/// The pinned "now" for every run.
pub const NOW: &str = "2026-11-30T12:00:00Z";

/// A sandbox: its own data directory and home, a fixed clock, no colours.
pub struct Env {
    pub tmp: TempDir,
}

impl Default for Env {
    fn default() -> Self {
        Self::new()
    }
}

impl Env {
    pub fn new() -> Self {
        Self { tmp: TempDir::new().expect("temp dir") }
    }

    /// A sandbox holding the demo learner.
    pub fn demo() -> Self {
        let env = Self::new();
        let out = env.run(&["demo", "--dir", env.data().to_str().expect("utf-8 path")]);
        assert!(out.status.success(), "demo failed: {}", String::from_utf8_lossy(&out.stderr));
        env
    }

    pub fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    /// The environment every run gets (nothing leaks in from the developer's machine).
    pub fn vars(&self) -> Vec<(&'static str, std::ffi::OsString)> {
        vec![
            ("PATH", std::env::var_os("PATH").unwrap_or_default()),
            ("HOME", self.tmp.path().join("home").into()),
            ("DEVCOACH_DIR", self.data().into()),
            ("DEVCOACH_NOW", NOW.into()),
            ("DEVCOACH_CLAUDE_DIR", self.tmp.path().join("claude").into()),
            ("TMPDIR", self.tmp.path().join("tmp").into()),
            // Times are shown in the local zone: pinned, like the clock.
            ("TZ", "UTC".into()),
        ]
    }

    pub fn command(&self) -> assert_cmd::Command {
        let mut cmd = assert_cmd::Command::new(bin());
        cmd.env_clear().envs(self.vars()).current_dir(self.tmp.path());
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("ran")
    }

    /// Exit code, stdout and stderr in one text, sandbox paths replaced, for snapshots.
    pub fn transcript(&self, args: &[&str]) -> String {
        transcript(&self.run(args), self.tmp.path())
    }
}

/// Text with every run of whitespace made one space: what was said, whatever the width wrapped.
pub fn flat(text: &[u8]) -> String {
    String::from_utf8_lossy(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn transcript(out: &Output, sandbox: &Path) -> String {
    let clean = |b: &[u8]| String::from_utf8_lossy(b).replace(&sandbox.display().to_string(), "[SANDBOX]");
    let mut text = format!("exit: {}\n", out.status.code().map_or_else(|| "signal".to_owned(), |c| c.to_string()));
    let stdout = clean(&out.stdout);
    let stderr = clean(&out.stderr);
    if !stdout.is_empty() {
        text.push_str(&format!("--- stdout\n{stdout}"));
    }
    if !stderr.is_empty() {
        text.push_str(&format!("--- stderr\n{stderr}"));
    }
    text
}

/// The `devcoach` binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_devcoach"))
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

devcoach_core::no_forgotten_test_files!();
