//! What each bad input gets: a clear error, and the learner's repository as it was.

use std::time::{Duration, Instant};

use devcoach_handson::{Change, HandsOnError, Runner, check, pick};

use crate::{Repo, differences};

#[test]
fn outside_a_repository_or_before_a_first_commit_it_says_so() {
    let plain = tempfile::tempdir().expect("tempdir");
    assert!(matches!(pick::offer(plain.path(), &Change::Uncommitted), Err(HandsOnError::NotARepository { .. })));
    let repo = Repo::new();
    repo.write("lib.py", "def f():\n    return 1\n");
    assert!(matches!(pick::offer(repo.path(), &Change::Uncommitted), Err(HandsOnError::NoCommitYet)));
    let err = pick::offer(repo.path(), &Change::parse(Some("--output=/tmp/x"))).expect_err("not a revision");
    assert!(
        matches!(
            err,
            HandsOnError::NotARepository { .. } | HandsOnError::NoCommitYet | HandsOnError::NoSuchRevision { .. }
        ),
        "{err}"
    );
}

#[test]
fn no_change_another_language_or_nothing_tested_each_get_their_own_answer() {
    let repo = Repo::new();
    repo.write("lib.py", "def f():\n    return 1\n");
    repo.commit_all("f");
    let before = repo.snapshot();
    assert!(matches!(pick::offer(repo.path(), &Change::Uncommitted), Err(HandsOnError::NoChange { .. })));
    repo.write("Main.java", "class Main { int f() { return 1; } }\n");
    let err = pick::offer(repo.path(), &Change::Uncommitted).expect_err("java");
    assert!(matches!(&err, HandsOnError::Unsupported { endings } if endings == &["java".to_owned()]), "{err}");
    assert!(err.to_string().contains("Rust, Python, TypeScript, JavaScript, Go"), "{err}");
    std::fs::remove_file(repo.path().join("Main.java")).expect("rm");
    repo.write("lib.py", "def f():\n    return 1\n\n\ndef g(x):\n    y = x * 2\n    return y + 1\n");
    let err = pick::offer(repo.path(), &Change::Uncommitted).expect_err("untested");
    assert!(matches!(&err, HandsOnError::NothingTested { names } if names == &["g".to_owned()]), "{err}");
    assert!(err.to_string().contains("added or rewrote one function (g)"), "{err}");
    repo.write("lib.py", "def f():\n    return 1\n");
    assert_eq!(differences(&before, &repo.snapshot()), Vec::<String>::new(), "reading a change writes nothing");
    assert!(matches!(pick::offer(repo.path(), &Change::parse(Some("nope"))), Err(HandsOnError::NoSuchRevision { .. })));
}

#[test]
fn a_function_only_reformatted_is_not_offered_as_rewritten() {
    let repo = Repo::new();
    repo.write(
        "src/lib.rs",
        "pub fn total(prices: &[u32]) -> u32 {\n    let mut sum = 0;\n    for p in prices {\n        sum += p;\n    }\n    sum\n}\n\n#[test]\nfn totals() {\n    assert_eq!(total(&[1, 2]), 3);\n}\n",
    );
    repo.commit_all("total");
    // The agent's formatter re-indented it (tabs, other spacing): the same code.
    repo.write(
        "src/lib.rs",
        "pub fn total(prices: &[u32]) -> u32 {\n\tlet mut sum = 0;\n\tfor p in prices {\n\t\tsum  +=  p;\n\t}\n\tsum\n}\n\n#[test]\nfn totals() {\n    assert_eq!(total(&[1, 2]), 3);\n}\n",
    );
    let err = pick::offer(repo.path(), &Change::Uncommitted).expect_err("nothing rewritten");
    assert!(!matches!(err, HandsOnError::NothingTested { ref names } if !names.is_empty()), "{err}");
    // A real rewrite of the same function is offered.
    repo.write(
        "src/lib.rs",
        "pub fn total(prices: &[u32]) -> u32 {\n    let all = prices.iter().copied();\n    let summed = all.fold(0, |acc, p| acc + p);\n    debug_assert!(summed >= prices.len() as u32 * 0);\n    summed\n}\n\n#[test]\nfn totals() {\n    assert_eq!(total(&[1, 2]), 3);\n}\n",
    );
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("rewritten");
    assert_eq!(offer.candidates[0].piece.qualified, "total");
}

#[test]
fn a_binary_or_huge_change_is_passed_over_not_read_whole() {
    let repo = Repo::new();
    repo.write("lib.rs", "pub fn one() -> u8 {\n    1\n}\n");
    repo.commit_all("one");
    std::fs::write(repo.path().join("blob.bin"), vec![0u8; 3 * 1024 * 1024]).expect("binary");
    // A 2 MiB generated source file: over what is parsed.
    let huge: String = (0..60_000).map(|i| ["pub fn f", &i.to_string(), "() -> u32 { 1 }\n"].concat()).collect();
    repo.write("generated.rs", &huge);
    let err = pick::offer(repo.path(), &Change::Uncommitted).expect_err("nothing to rebuild");
    assert!(matches!(err, HandsOnError::NothingToRebuild { .. }), "{err}");
}

#[test]
fn a_test_command_that_hangs_floods_or_is_missing_is_stopped_and_said() {
    let dir = tempfile::tempdir().expect("tempdir");
    let started = Instant::now();
    let hang = Runner::Custom("sleep 60 & sleep 60".into());
    let run = check::check(dir.path(), &hang, Duration::from_millis(500)).expect("a failed check");
    assert!(!run.passed && run.tail.contains("did not finish within"), "{}", run.tail);
    assert!(started.elapsed() < Duration::from_secs(20), "stopped at the deadline, children and all");
    let flood =
        Runner::Custom("head -c 50000000 /dev/zero | tr '\\0' 'x'; echo; echo 'not ok 1 - floods'; exit 1".into());
    let run = check::check(dir.path(), &flood, Duration::from_mins(1)).expect("ran");
    assert!(!run.passed);
    assert!(run.tail.len() < 2 * 1024 * 1024, "the output is capped: {} bytes", run.tail.len());
    let missing = Runner::Custom("devcoach-no-such-test-command".into());
    let run = check::check(dir.path(), &missing, Duration::from_secs(20)).expect("the shell ran");
    assert!(!run.passed && run.tail.contains("not found"), "{}", run.tail);
}

#[test]
fn a_data_folder_inside_the_repository_is_refused_before_any_worktree() {
    let repo = Repo::new();
    repo.write("lib.py", "def f():\n    return 1\n");
    repo.write("test_lib.py", "from lib import f\n\ndef test_f():\n    assert f() == 1\n");
    repo.commit_all("f");
    repo.write("lib.py", "def f():\n    return 1\n\n\ndef g(x):\n    y = x * 2\n    return y + 1\n");
    repo.write(
        "test_lib.py",
        "from lib import f, g\n\ndef test_f():\n    assert f() == 1\n\ndef test_g():\n    assert g(1) == 3\n",
    );
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("an offer");
    let root = repo.path().join(".devcoach").join("handson");
    let (lock, _) = devcoach_handson::exercise::lock(&root).expect("lock");
    let err = devcoach_handson::exercise::start(&lock, &root, &offer, &offer.candidates[0], 6).expect_err("refused");
    assert!(matches!(err, HandsOnError::InsideRepository { .. }), "{err}");
    assert_eq!(repo.git(&["worktree", "list"]).lines().count(), 1, "no worktree was made");
}

#[test]
fn a_folder_the_change_turned_from_a_link_into_a_real_one_is_never_written_through() {
    let repo = Repo::new();
    let outside = tempfile::tempdir().expect("tempdir");
    repo.write("lib.py", "def f():\n    return 1\n");
    repo.write("test_lib.py", "from lib import f\n\ndef test_f():\n    assert f() == 1\n");
    std::os::unix::fs::symlink(outside.path(), repo.path().join("site")).expect("link");
    repo.commit_all("f and a link");
    // The agent's change: the link became a real folder with a file in it.
    std::fs::remove_file(repo.path().join("site")).expect("unlink");
    repo.write("site/sitecustomize.py", "import os\n");
    repo.write("lib.py", "def f():\n    return 1\n\n\ndef g(x):\n    y = x * 2\n    return y + 1\n");
    repo.write(
        "test_lib.py",
        "from lib import f, g\n\ndef test_f():\n    assert f() == 1\n\ndef test_g():\n    assert g(1) == 3\n",
    );
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("an offer");
    let (_data, root) = crate::data_root();
    let (lock, _) = devcoach_handson::exercise::lock(&root).expect("lock");
    let ex = devcoach_handson::exercise::start(&lock, &root, &offer, &offer.candidates[0], 7).expect("set up");
    assert!(std::fs::read_dir(outside.path()).expect("outside").next().is_none(), "nothing was written outside");
    devcoach_handson::exercise::finish(&root, &ex).expect("finish");
}

#[test]
fn finishing_leaves_the_learner_s_other_worktree_records_alone() {
    let repo = Repo::new();
    repo.write("lib.py", "def f():\n    return 1\n");
    repo.write("test_lib.py", "from lib import f\n\ndef test_f():\n    assert f() == 1\n");
    repo.commit_all("f");
    // The learner's own worktree, on a drive that is not mounted right now.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let theirs = elsewhere.path().join("feature");
    repo.git(&["worktree", "add", "--quiet", "--detach", theirs.to_str().expect("utf-8")]);
    std::fs::remove_dir_all(&theirs).expect("unmounted");
    repo.write("lib.py", "def f():\n    return 1\n\n\ndef g(x):\n    y = x * 2\n    return y + 1\n");
    repo.write(
        "test_lib.py",
        "from lib import f, g\n\ndef test_f():\n    assert f() == 1\n\ndef test_g():\n    assert g(1) == 3\n",
    );
    let before = repo.git(&["worktree", "list", "--porcelain"]);
    let offer = pick::offer(repo.path(), &Change::Uncommitted).expect("an offer");
    let (_data, root) = crate::data_root();
    let (lock, _) = devcoach_handson::exercise::lock(&root).expect("lock");
    let ex = devcoach_handson::exercise::start(&lock, &root, &offer, &offer.candidates[0], 8).expect("set up");
    devcoach_handson::exercise::finish(&root, &ex).expect("finish");
    assert_eq!(repo.git(&["worktree", "list", "--porcelain"]), before, "their record stays, ours goes");
}
