//! A whole exercise in small real projects: Rust (cargo), Python (unittest), JavaScript (npm and
//! node's runner). The agent's change is left uncommitted, as an agent leaves it.

use std::time::Duration;

use devcoach_handson::{Change, HandsOnError, Runner, check, exercise, pick};

use crate::{Repo, data_root, differences};

const RUST_BASE: &str = "pub fn parse_header(line: &str) -> Option<(&str, &str)> {\n    let (name, value) = line.split_once(':')?;\n    Some((name.trim(), value.trim()))\n}\n";

const RUST_AGENT: &str = "\n/// The sum of the bytes of `text`, modulo 256.\npub fn checksum(text: &str) -> u8 {\n    let mut sum: u32 = 0;\n    for b in text.bytes() {\n        sum = (sum + u32::from(b)) % 256;\n    }\n    sum as u8\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn checksum_of_known_text() {\n        assert_eq!(checksum(\"ab\"), 195);\n        assert_eq!(checksum(\"\"), 0);\n    }\n}\n";

fn rust_repo() -> Repo {
    let repo = Repo::new();
    repo.write("Cargo.toml", "[package]\nname = \"headers\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");
    repo.write("src/lib.rs", RUST_BASE);
    repo.write(".gitignore", "/target\n");
    repo.commit_all("parse headers");
    // The agent's work, not committed.
    repo.write("src/lib.rs", &format!("{RUST_BASE}{RUST_AGENT}"));
    repo
}

#[test]
fn a_rust_rebuild_is_judged_by_the_project_s_tests_and_the_repository_is_left_as_it_was() {
    let repo = rust_repo();
    let before = repo.snapshot();
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("an offer");
    let names: Vec<&str> = offer.candidates.iter().map(|c| c.piece.qualified.as_str()).collect();
    assert_eq!(names, ["checksum"], "the agent's new function, not the old one");
    let pick = &offer.candidates[0];
    assert_eq!(pick.tests, ["checksum_of_known_text"]);
    assert!(pick.new);

    let (_data, root) = data_root();
    let (lock, cleaned) = exercise::lock(&root).expect("lock");
    assert!(cleaned.is_empty());
    let ex = exercise::start(&lock, &root, &offer, pick, 1).expect("set up");
    assert!(ex.tree.starts_with(&root), "the worktree is under devcoach's folder");
    assert!(ex.hidden.contains("sum = (sum + u32::from(b)) % 256"), "{}", ex.hidden);
    assert!(
        ex.agent_version().starts_with("pub fn checksum(text: &str) -> u8 {\n    let mut sum"),
        "{}",
        ex.agent_version()
    );
    let stubbed = std::fs::read_to_string(ex.file()).expect("stubbed file");
    assert!(stubbed.contains("todo!(") && !stubbed.contains("% 256"), "{stubbed}");
    assert!(stubbed.contains("fn checksum_of_known_text"), "the tests stay");

    let runner = Runner::detect(&ex.tree).expect("cargo");
    assert_eq!(runner, Runner::Cargo);
    let deadline = Duration::from_mins(5);
    let stub_run = check::check(&ex.tree, &runner, deadline).expect("ran");
    assert!(!stub_run.passed);
    assert_eq!(stub_run.failed, ["tests::checksum_of_known_text"], "{}", stub_run.tail);

    // A wrong rebuild fails, naming the test.
    let stub = "{\n    todo!(\"devcoach hands-on: rebuild this function\")\n}";
    assert!(stubbed.contains(stub), "{stubbed}");
    std::fs::write(ex.file(), stubbed.replace(stub, "{\n    text.len() as u8\n}")).expect("write");
    let wrong_run = check::check(&ex.tree, &runner, deadline).expect("ran");
    assert!(!wrong_run.passed);
    assert_eq!(wrong_run.failed, ["tests::checksum_of_known_text"]);

    // The learner's own right rebuild passes.
    let right = stubbed.replace(stub, "{\n    text.bytes().fold(0u8, |sum, b| sum.wrapping_add(b))\n}");
    std::fs::write(ex.file(), &right).expect("write");
    let right_run = check::check(&ex.tree, &runner, deadline).expect("ran");
    assert!(right_run.passed, "{}", right_run.tail);
    assert!(right_run.failed.is_empty());

    exercise::finish(&root, &ex).expect("finish");
    drop(lock);
    assert!(!ex.tree.exists());
    assert_eq!(differences(&before, &repo.snapshot()), Vec::<String>::new(), "the repository is as it was");
}

#[test]
fn a_crash_mid_exercise_is_cleaned_at_the_next_start_and_one_exercise_runs_at_a_time() {
    let repo = rust_repo();
    let before = repo.snapshot();
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("an offer");
    let (_data, root) = data_root();
    let (lock, _) = exercise::lock(&root).expect("lock");
    assert!(matches!(exercise::lock(&root), Err(HandsOnError::Busy)), "a second session is refused");
    let ex = exercise::start(&lock, &root, &offer, &offer.candidates[0], 2).expect("set up");
    assert!(repo.git(&["worktree", "list"]).contains(&ex.id), "git knows the worktree meanwhile");
    assert!(!ex.own_file_changed());
    // A learner who writes in their own copy instead of the exercise is noticed.
    let own = std::fs::read_to_string(ex.own_file_path()).expect("own file");
    std::fs::write(ex.own_file_path(), format!("{own}\n// mine\n")).expect("write");
    assert!(ex.own_file_changed());
    std::fs::write(ex.own_file_path(), own).expect("put back");
    assert!(!ex.own_file_changed());
    // The process dies: its lock goes with it, the worktree stays behind.
    drop(lock);
    assert!(ex.tree.exists());
    let (_lock, cleaned) = exercise::lock(&root).expect("the next start");
    assert_eq!(cleaned.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), [ex.id.as_str()]);
    assert!(!ex.tree.exists());
    assert_eq!(differences(&before, &repo.snapshot()), Vec::<String>::new());
}

#[test]
fn a_python_rebuild_keeps_the_docstring_and_unittest_judges_it() {
    let repo = Repo::new();
    repo.write("cart.py", "def count(items):\n    return len(items)\n");
    repo.write("test_cart.py", "import unittest\nfrom cart import count\n\n\nclass CountTest(unittest.TestCase):\n    def test_count(self):\n        self.assertEqual(count([1, 2]), 2)\n");
    repo.commit_all("count");
    repo.write(
        "cart.py",
        "def count(items):\n    return len(items)\n\n\ndef total(prices, discount=0):\n    \"\"\"The sum of the prices, less a discount in percent.\"\"\"\n    gross = sum(prices)\n    return round(gross * (100 - discount) / 100, 2)\n",
    );
    repo.write(
        "test_cart.py",
        "import unittest\nfrom cart import count, total\n\n\nclass CountTest(unittest.TestCase):\n    def test_count(self):\n        self.assertEqual(count([1, 2]), 2)\n\n    def test_total_with_discount(self):\n        self.assertEqual(total([10, 10], discount=10), 18.0)\n",
    );
    let before = repo.snapshot();
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("an offer");
    let pick = &offer.candidates[0];
    assert_eq!(
        (pick.piece.qualified.as_str(), pick.tests.as_slice()),
        ("total", &["test_total_with_discount".to_owned()][..])
    );
    let (_data, root) = data_root();
    let (lock, _) = exercise::lock(&root).expect("lock");
    let ex = exercise::start(&lock, &root, &offer, pick, 3).expect("set up");
    let stubbed = std::fs::read_to_string(ex.file()).expect("file");
    assert!(
        stubbed.contains("\"\"\"The sum of the prices") && stubbed.contains("raise NotImplementedError"),
        "{stubbed}"
    );
    assert_eq!(
        ex.agent_version(),
        "def total(prices, discount=0):\n    gross = sum(prices)\n    return round(gross * (100 - discount) / 100, 2)"
    );
    let runner = Runner::Unittest;
    let run = check::check(&ex.tree, &runner, Duration::from_mins(2)).expect("ran");
    assert!(!run.passed);
    assert_eq!(run.failed, ["test_total_with_discount"], "{}", run.tail);
    std::fs::write(
        ex.file(),
        stubbed.replace(
            "raise NotImplementedError(\"devcoach hands-on: rebuild this function\")",
            "return round(sum(prices) * (1 - discount / 100), 2)",
        ),
    )
    .expect("write");
    let run = check::check(&ex.tree, &runner, Duration::from_mins(2)).expect("ran");
    assert!(run.passed, "{}", run.tail);
    exercise::finish(&root, &ex).expect("finish");
    assert_eq!(differences(&before, &repo.snapshot()), Vec::<String>::new());
}

#[test]
fn a_javascript_rebuild_runs_under_npm_test() {
    let repo = Repo::new();
    repo.write(
        "package.json",
        "{\n  \"name\": \"adder\",\n  \"private\": true,\n  \"scripts\": { \"test\": \"node --test\" }\n}\n",
    );
    repo.write("add.js", "function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n");
    repo.commit_all("add");
    repo.write(
        "add.js",
        "function add(a, b) {\n  return a + b;\n}\n\nfunction clamp(value, low, high) {\n  if (value < low) return low;\n  if (value > high) return high;\n  return value;\n}\nmodule.exports = { add, clamp };\n",
    );
    repo.write(
        "add.test.js",
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { clamp } = require('./add');\n\ntest('clamp keeps a value in range', () => {\n  assert.strictEqual(clamp(5, 0, 3), 3);\n  assert.strictEqual(clamp(-1, 0, 3), 0);\n});\n",
    );
    let before = repo.snapshot();
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("an offer");
    let pick = &offer.candidates[0];
    assert_eq!(pick.piece.name, "clamp");
    assert_eq!(pick.tests, ["clamp keeps a value in range"]);
    let (_data, root) = data_root();
    let (lock, _) = exercise::lock(&root).expect("lock");
    let ex = exercise::start(&lock, &root, &offer, pick, 4).expect("set up");
    let runner = Runner::detect(&ex.tree).expect("npm");
    assert_eq!(runner, Runner::Npm);
    let run = check::check(&ex.tree, &runner, Duration::from_mins(2)).expect("ran");
    assert!(!run.passed);
    assert!(run.failed.contains(&"clamp keeps a value in range".to_owned()), "{:?}\n{}", run.failed, run.tail);
    let stubbed = std::fs::read_to_string(ex.file()).expect("file");
    std::fs::write(
        ex.file(),
        stubbed.replace(
            "throw new Error(\"devcoach hands-on: rebuild this function\");",
            "return Math.min(high, Math.max(low, value));",
        ),
    )
    .expect("write");
    let run = check::check(&ex.tree, &runner, Duration::from_mins(2)).expect("ran");
    assert!(run.passed, "{}", run.tail);
    exercise::finish(&root, &ex).expect("finish");
    assert_eq!(differences(&before, &repo.snapshot()), Vec::<String>::new());
}

#[test]
fn a_committed_change_is_read_from_its_commit() {
    let repo = rust_repo();
    repo.commit_all("checksum");
    let offer = pick::offer(repo.path(), &Change::parse(Some("HEAD"))).expect("an offer");
    assert_eq!(offer.candidates[0].piece.name, "checksum");
    let range = pick::offer(repo.path(), &Change::parse(Some("HEAD~1..HEAD"))).expect("an offer");
    assert_eq!(range.candidates[0].piece.name, "checksum");
    assert!(matches!(pick::offer(repo.path(), &Change::Uncommitted), Err(HandsOnError::NoChange { .. })));
}

#[test]
fn a_go_rebuild_keeps_the_imports_it_used_and_go_test_judges_it() {
    let repo = Repo::new();
    repo.write("go.mod", "module example.com/label\n\ngo 1.19\n");
    repo.write(
        "label.go",
        "package label\n\nimport \"strings\"\n\nfunc Upper(s string) string {\n\treturn strings.ToUpper(s)\n}\n",
    );
    repo.commit_all("upper");
    repo.write(
        "label.go",
        "package label\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc Upper(s string) string {\n\treturn strings.ToUpper(s)\n}\n\n// Badge is a name in brackets, shouted.\nfunc Badge(name string, n int) string {\n\ttrimmed := strings.TrimSpace(name)\n\treturn fmt.Sprintf(\"[%s #%d]\", strings.ToUpper(trimmed), n)\n}\n",
    );
    repo.write(
        "label_test.go",
        "package label\n\nimport \"testing\"\n\nfunc TestBadge(t *testing.T) {\n\tif got := Badge(\"  ada \", 3); got != \"[ADA #3]\" {\n\t\tt.Fatalf(\"got %q\", got)\n\t}\n}\n",
    );
    let before = repo.snapshot();
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("an offer");
    let pick = &offer.candidates[0];
    assert_eq!((pick.piece.name.as_str(), pick.tests.as_slice()), ("Badge", &["TestBadge".to_owned()][..]));
    let (_data, root) = data_root();
    let (lock, _) = exercise::lock(&root).expect("lock");
    let ex = exercise::start(&lock, &root, &offer, pick, 5).expect("set up");
    let stubbed = std::fs::read_to_string(ex.file()).expect("file");
    // Left as it was, `fmt` would be an unused import and the package would not build at all:
    // it is blanked. `strings` is used elsewhere in the file and stays.
    assert!(
        stubbed.contains("_ \"fmt\"") && stubbed.contains("\t\"strings\"") && !stubbed.contains("Sprintf"),
        "{stubbed}"
    );
    let runner = Runner::detect(&ex.tree).expect("go");
    assert_eq!(runner, Runner::Go);
    let run = check::check(&ex.tree, &runner, Duration::from_mins(3)).expect("ran");
    assert!(!run.passed);
    assert_eq!(run.failed, ["TestBadge"], "{}", run.tail);
    // The learner writes it, and names the import back as an editor would.
    std::fs::write(
        ex.file(),
        stubbed
            .replace(
                "\tpanic(\"devcoach hands-on: rebuild this function\")",
                "\treturn fmt.Sprintf(\"[%s #%d]\", strings.ToUpper(strings.TrimSpace(name)), n)",
            )
            .replace("_ \"fmt\"", "\"fmt\""),
    )
    .expect("write");
    let run = check::check(&ex.tree, &runner, Duration::from_mins(3)).expect("ran");
    assert!(run.passed, "{}", run.tail);
    exercise::finish(&root, &ex).expect("finish");
    assert_eq!(differences(&before, &repo.snapshot()), Vec::<String>::new());
}

#[test]
fn a_javascript_project_s_installed_packages_are_found_in_the_learner_s_copy() {
    let repo = Repo::new();
    repo.write(
        "package.json",
        "{\n  \"name\": \"pad\",\n  \"private\": true,\n  \"scripts\": { \"test\": \"node --test\" }\n}\n",
    );
    repo.write(".gitignore", "node_modules/\n");
    // An installed package, as `npm install` leaves it (never committed, never copied).
    repo.write("node_modules/left-pad-lite/package.json", "{\"name\": \"left-pad-lite\", \"main\": \"index.js\"}\n");
    repo.write("node_modules/left-pad-lite/index.js", "module.exports = (s, n) => String(s).padStart(n, '0');\n");
    repo.write("pad.js", "const pad = require('left-pad-lite');\nmodule.exports = {};\n");
    repo.commit_all("pad");
    repo.write(
        "pad.js",
        "const pad = require('left-pad-lite');\n\nfunction code(n) {\n  const digits = pad(n, 4);\n  return `#${digits}`;\n}\nmodule.exports = { code };\n",
    );
    repo.write(
        "pad.test.js",
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { code } = require('./pad');\n\ntest('code pads to four digits', () => {\n  assert.strictEqual(code(7), '#0007');\n});\n",
    );
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("an offer");
    let (_data, root) = data_root();
    let (lock, _) = exercise::lock(&root).expect("lock");
    let ex = exercise::start(&lock, &root, &offer, &offer.candidates[0], 9).expect("set up");
    assert!(!ex.tree.join("node_modules").exists(), "not copied");
    let stubbed = std::fs::read_to_string(ex.file()).expect("file");
    std::fs::write(
        ex.file(),
        stubbed.replace("throw new Error(\"devcoach hands-on: rebuild this function\");", "return '#' + pad(n, 4);"),
    )
    .expect("write");
    let (runner, dir) = Runner::detect_for(&ex.tree, &ex.candidate.piece.path, ex.candidate.piece.lang).expect("npm");
    let without = check::check(&dir, &runner, Duration::from_mins(2)).expect("ran");
    assert!(!without.passed, "the package is not in the exercise");
    let with = check::check_in(&dir, &runner, Duration::from_mins(2), Some(repo.path())).expect("ran");
    assert!(with.passed, "{}", with.tail);
    exercise::finish(&root, &ex).expect("finish");
}

#[test]
fn the_less_sure_the_learner_is_of_a_language_the_higher_its_pieces_rank() {
    let repo = Repo::new();
    repo.write("README.md", "shop\n");
    repo.commit_all("start");
    // Two pieces of the same shape, one in Python and one in Go, each with a test.
    repo.write(
        "cart.py",
        "def total(prices):\n    gross = 0\n    for p in prices:\n        gross += p\n    return gross\n",
    );
    repo.write("test_cart.py", "from cart import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n");
    repo.write("cart.go", "package cart\n\nfunc Sum(prices []int) int {\n\tgross := 0\n\tfor _, p := range prices {\n\t\tgross += p\n\t}\n\treturn gross\n}\n");
    repo.write("cart_test.go", "package cart\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n");
    let first = |known: &dyn Fn(&str) -> Option<i64>| {
        let offer = pick::offer_for(repo.path(), &Change::Uncommitted, known).expect("an offer");
        assert_eq!(offer.candidates.len(), 2, "both offered");
        offer.candidates[0].piece.qualified.clone()
    };
    assert_eq!(first(&|topic| (topic == "python").then_some(9).or(Some(2))), "Sum", "Go is the weaker");
    assert_eq!(first(&|topic| (topic == "go").then_some(9).or(Some(2))), "total", "Python is the weaker");
    assert_eq!(first(&|topic| (topic == "go").then_some(8)), "total", "a topic not on the map ranks as middling");
}
