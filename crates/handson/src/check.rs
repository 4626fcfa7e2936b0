//! `check`: the project's own tests, run in the exercise's worktree under a deadline with their
//! output capped, and what failed.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use devcoach_core::limits;
use devcoach_probe::child::{self, ChildError, Limits};

use crate::HandsOnError;

/// How a project runs its tests.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Runner {
    Cargo,
    Go,
    Npm,
    Pnpm,
    Yarn,
    Pytest,
    Unittest,
    /// A command the learner gave, run by the shell.
    Custom(String),
}

impl Runner {
    /// The runner a project's files name, looked for at the worktree's top.
    pub fn detect(tree: &Path) -> Option<Self> {
        let has = |name: &str| tree.join(name).is_file();
        if has("Cargo.toml") {
            return Some(Self::Cargo);
        }
        if has("go.mod") {
            return Some(Self::Go);
        }
        if has("package.json") {
            return Some(if has("pnpm-lock.yaml") {
                Self::Pnpm
            } else if has("yarn.lock") {
                Self::Yarn
            } else {
                Self::Npm
            });
        }
        let python = ["pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini"].iter().any(|f| has(f))
            || std::fs::read_dir(tree).is_ok_and(|entries| {
                entries.flatten().any(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    name == "tests" || (name.starts_with("test_") && name.ends_with(".py"))
                })
            });
        if python {
            return Some(if pytest_here(tree) { Self::Pytest } else { Self::Unittest });
        }
        None
    }

    /// The runner for a function of `lang` in `file` (relative to `tree`), and the folder to run
    /// it in: the nearest folder above the file with the language's own project file (a Cargo
    /// workspace member, a Go module, a JavaScript package), else what the top names. A
    /// project's other tooling (a `package.json` beside a Python package) does not decide.
    pub fn detect_for(tree: &Path, file: &Path, lang: crate::Lang) -> Option<(Self, std::path::PathBuf)> {
        let markers: &[&str] = match lang {
            crate::Lang::Rust => &["Cargo.toml"],
            crate::Lang::Go => &["go.mod"],
            crate::Lang::TypeScript | crate::Lang::Tsx | crate::Lang::JavaScript => &["package.json"],
            crate::Lang::Python => &["pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini"],
        };
        let python = |dir: &Path| if pytest_here(dir) { Self::Pytest } else { Self::Unittest };
        let mut dir = tree.join(file);
        while dir.pop() && dir.starts_with(tree) {
            if markers.iter().any(|m| dir.join(m).is_file()) {
                return match lang {
                    crate::Lang::Python => Some((python(&dir), dir)),
                    _ => Self::detect(&dir).map(|r| (r, dir)),
                };
            }
        }
        match lang {
            // A Python project with no project file: its tests run from the top.
            crate::Lang::Python => Some((python(tree), tree.to_owned())),
            _ => Self::detect(tree).map(|r| (r, tree.to_owned())),
        }
    }

    /// The command line, as shown to the learner.
    pub fn describe(&self) -> String {
        match self {
            Self::Custom(line) => line.clone(),
            other => other.argv().join(" "),
        }
    }

    fn argv(&self) -> Vec<String> {
        let words: &[&str] = match self {
            Self::Cargo => &["cargo", "test", "--color", "never"],
            Self::Go => &["go", "test", "./..."],
            Self::Npm => &["npm", "test", "--silent"],
            Self::Pnpm => &["pnpm", "test"],
            Self::Yarn => &["yarn", "test"],
            Self::Pytest => &["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"],
            Self::Unittest => &["python3", "-m", "unittest", "discover", "-v"],
            Self::Custom(_) => &[],
        };
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    fn command(&self) -> Command {
        match self {
            Self::Custom(line) if cfg!(windows) => {
                let mut cmd = Command::new("cmd");
                cmd.args(["/C", line]);
                cmd
            }
            Self::Custom(line) => {
                let mut cmd = Command::new("sh");
                cmd.args(["-c", line]);
                cmd
            }
            other => {
                let argv = other.argv();
                let mut cmd = Command::new(&argv[0]);
                cmd.args(&argv[1..]);
                cmd
            }
        }
    }
}

/// Whether `python3 -m pytest` runs here (it is a package of its own, often missing).
fn pytest_here(tree: &Path) -> bool {
    let mut cmd = Command::new("python3");
    cmd.args(["-m", "pytest", "--version"]).current_dir(tree);
    child::run(cmd, Limits { deadline: Duration::from_secs(20), ..Limits::default() }).is_ok_and(|d| d.status.success())
}

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Checked {
    pub passed: bool,
    /// The tests that failed, by name, as the runner printed them.
    pub failed: Vec<String>,
    /// The end of the output (what failed and why, usually).
    pub tail: String,
    pub command: String,
}

/// Runs the tests in `tree` with `runner`, for `deadline` at most.
pub fn check(tree: &Path, runner: &Runner, deadline: Duration) -> Result<Checked, HandsOnError> {
    check_in(tree, runner, deadline, None)
}

/// As [`check`], with the learner's own copy of the same folder: a JavaScript project's
/// installed packages (`node_modules`, never copied into an exercise) are found there, read
/// only (`NODE_PATH`, and their programs on `PATH`).
pub fn check_in(tree: &Path, runner: &Runner, deadline: Duration, own: Option<&Path>) -> Result<Checked, HandsOnError> {
    let mut cmd = runner.command();
    cmd.current_dir(tree);
    if let Some(modules) = own.map(|o| o.join("node_modules")).filter(|m| m.is_dir())
        && !tree.join("node_modules").exists()
    {
        let prepend = |var: &str, first: std::path::PathBuf| {
            let mut paths = vec![first];
            paths.extend(
                std::env::var_os(var).map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default(),
            );
            std::env::join_paths(paths).ok()
        };
        if let Some(path) = prepend("PATH", modules.join(".bin")) {
            cmd.env("PATH", path);
        }
        if let Some(node_path) = prepend("NODE_PATH", modules) {
            cmd.env("NODE_PATH", node_path);
        }
    }
    // Plain output, whatever the learner's terminal: the names are read from it.
    cmd.env("CARGO_TERM_COLOR", "never").env("NO_COLOR", "1").env("FORCE_COLOR", "0").env("CI", "1");
    // The exercise's own modules first: a project installed in the learner's environment
    // (`pip install -e .`) would otherwise be imported from their copy, the agent's code and all.
    if matches!(runner, Runner::Pytest | Runner::Unittest) {
        let mut paths = vec![tree.to_owned()];
        paths.extend(
            std::env::var_os("PYTHONPATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default(),
        );
        if let Ok(joined) = std::env::join_paths(paths) {
            cmd.env("PYTHONPATH", joined);
        }
    }
    let limits =
        Limits { deadline, output_cap: limits::HANDSON_TEST_OUTPUT_BYTES, whole_group: true, ..Limits::default() };
    let done = match child::run(cmd, limits) {
        Ok(done) => done,
        Err(ChildError::Start { program, source }) => {
            return Err(HandsOnError::NoRunner { command: runner.describe(), program, source });
        }
        // A run that did not finish is a failed check (an endless loop is a common first try),
        // not the end of an exercise.
        Err(ChildError::Timeout { limit, .. }) => {
            return Ok(Checked {
                passed: false,
                failed: Vec::new(),
                tail: format!(
                    "`{}` did not finish within {} s and was stopped: a loop that never ends?",
                    runner.describe(),
                    limit.as_secs()
                ),
                command: runner.describe(),
            });
        }
        Err(other @ ChildError::Wait { .. }) => return Err(HandsOnError::TestRun(other)),
    };
    let output = format!("{}\n{}", done.stdout, done.stderr);
    let failed = failed_tests(&output);
    Ok(Checked {
        passed: done.status.success(),
        failed,
        tail: tail(&output, limits::HANDSON_TAIL_LINES),
        command: runner.describe(),
    })
}

/// The last `n` non-empty lines.
fn tail(output: &str, n: usize) -> String {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The names of failed tests in a runner's output: cargo (`test x ... FAILED`), pytest
/// (`FAILED file::name`), unittest (`FAIL: name (…)`), go (`--- FAIL: Name`), node's runner
/// (`not ok 1 - name`, `✖ name`), jest and vitest (`✕ name`).
pub fn failed_tests(output: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in output.lines() {
        let t = line.trim();
        let name = if let Some(rest) = t.strip_prefix("test ").and_then(|r| r.strip_suffix(" ... FAILED")) {
            Some(rest.to_owned())
        } else if let Some(rest) = t.strip_prefix("FAILED ").filter(|r| r.contains("::")) {
            // The node id ends at its parameters' closing bracket (which may hold ` - `), or
            // at the ` - ` before the message.
            let id = match (rest.find('['), rest.find(" - ")) {
                (Some(open), Some(dash)) if open < dash => rest.find("] ").map_or(rest, |end| &rest[..=end]),
                _ => rest.split(" - ").next().unwrap_or(rest),
            };
            Some(id.rsplit("::").next().unwrap_or(id).to_owned())
        } else if let Some(rest) = t.strip_prefix("FAIL: ").or_else(|| t.strip_prefix("ERROR: ")) {
            Some(rest.split(" (").next().unwrap_or(rest).to_owned())
        } else if let Some(rest) = t.strip_prefix("--- FAIL: ") {
            Some(rest.split(" (").next().unwrap_or(rest).to_owned())
        } else if let Some(rest) = t.strip_prefix("not ok ") {
            rest.split_once(" - ").map(|(_, name)| name.split(" # ").next().unwrap_or(name).to_owned())
        } else {
            t.strip_prefix("✖ ")
                .or_else(|| t.strip_prefix("✕ "))
                .or_else(|| t.strip_prefix("× "))
                .map(|rest| rest.rsplit_once(" (").map_or(rest, |(name, _)| name).to_owned())
        };
        if let Some(name) = name.filter(|n| !n.is_empty() && !n.ends_with("failing tests:"))
            && !out.contains(&name)
            && out.len() < limits::HANDSON_FAILED_NAMES
        {
            out.push(name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_tests_are_named_from_each_runner_s_output() {
        let cargo = "running 2 tests\ntest tests::parses ... FAILED\ntest tests::other ... ok\n";
        assert_eq!(failed_tests(cargo), ["tests::parses"]);
        let pytest = "FAILED tests/test_cart.py::test_total - assert 0 == 3\n1 failed, 2 passed";
        assert_eq!(failed_tests(pytest), ["test_total"]);
        let param = "FAILED tests/test_cart.py::test_total[a - b] - assert 0 == 3";
        assert_eq!(failed_tests(param), ["test_total[a - b]"]);
        assert_eq!(failed_tests(" × adds two numbers 3ms"), ["adds two numbers 3ms"]);
        let unittest = "FAIL: test_total (test_cart.CartTest.test_total)\n";
        assert_eq!(failed_tests(unittest), ["test_total"]);
        assert!(failed_tests("FAILED (errors=1)").is_empty(), "unittest's summary names no test");
        let go = "--- FAIL: TestLabel (0.00s)\nFAIL\n";
        assert_eq!(failed_tests(go), ["TestLabel"]);
        let node = "not ok 1 - adds two numbers\n  ---\n✖ adds two numbers (1.2ms)\n";
        assert_eq!(failed_tests(node), ["adds two numbers"]);
        assert!(failed_tests("all good\ntest result: ok.").is_empty());
    }

    #[test]
    fn the_runner_follows_the_function_s_language_and_nearest_project() {
        let tree = tempfile::tempdir().expect("tempdir");
        let t = tree.path();
        std::fs::write(t.join("package.json"), "{}").expect("write");
        std::fs::create_dir_all(t.join("crates/parse/src")).expect("mkdir");
        std::fs::write(t.join("crates/parse/Cargo.toml"), "[package]").expect("write");
        std::fs::write(t.join("pyproject.toml"), "").expect("write");
        let (runner, dir) =
            Runner::detect_for(t, Path::new("crates/parse/src/lib.rs"), crate::Lang::Rust).expect("cargo");
        assert_eq!((runner, dir), (Runner::Cargo, t.join("crates/parse")));
        let (runner, dir) = Runner::detect_for(t, Path::new("web/app.js"), crate::Lang::JavaScript).expect("npm");
        assert_eq!((runner, dir), (Runner::Npm, t.to_owned()));
        // A Python function is tested by Python's runner, not the tooling's package.json.
        let (runner, dir) = Runner::detect_for(t, Path::new("shop/cart.py"), crate::Lang::Python).expect("python");
        assert!(matches!(runner, Runner::Pytest | Runner::Unittest) && dir == t, "{runner:?}");
    }

    #[test]
    fn the_tail_keeps_the_last_lines_that_say_something() {
        assert_eq!(tail("a\n\nb\nc\n\n", 2), "b\nc");
        assert_eq!(tail("", 3), "");
    }
}
