//! `devcoach handson` through the real binary on a real repository: the learner lists what
//! the function must do, checks the stub (it fails, naming the test), asks for a hint, writes
//! the function in the worktree, checks again (it passes) and finishes. The lesson card is
//! saved, the session log holds the steps, and the repository is as it was.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use crate::Env;

pub(crate) fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).env("GIT_OPTIONAL_LOCKS", "0").output().expect("git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn python_repo(env: &Env) -> std::path::PathBuf {
    let repo = env.tmp.path().join("shop");
    python_repo_in(&repo);
    repo
}

/// A Python project at `repo` whose uncommitted change adds `total` and its test.
pub(crate) fn python_repo_in(repo: &std::path::Path) {
    let repo = repo.to_path_buf();
    std::fs::create_dir_all(&repo).expect("mkdir");
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["config", "user.email", "learner@example.com"]);
    git(&repo, &["config", "user.name", "Learner"]);
    std::fs::write(repo.join("cart.py"), "def count(items):\n    return len(items)\n").expect("write");
    std::fs::write(
        repo.join("test_cart.py"),
        "import unittest\nfrom cart import count\n\n\nclass T(unittest.TestCase):\n    def test_count(self):\n        self.assertEqual(count([1, 2]), 2)\n",
    )
    .expect("write");
    git(&repo, &["add", "--all"]);
    git(&repo, &["commit", "--quiet", "-m", "count"]);
    // What the agent just wrote.
    std::fs::write(
        repo.join("cart.py"),
        "def count(items):\n    return len(items)\n\n\ndef total(prices, discount=0):\n    \"\"\"The sum of the prices, less a discount in percent.\"\"\"\n    gross = sum(prices)\n    return round(gross * (100 - discount) / 100, 2)\n",
    )
    .expect("write");
    std::fs::write(
        repo.join("test_cart.py"),
        "import unittest\nfrom cart import count, total\n\n\nclass T(unittest.TestCase):\n    def test_count(self):\n        self.assertEqual(count([1, 2]), 2)\n\n    def test_total_with_discount(self):\n        self.assertEqual(total([10, 10], discount=10), 18.0)\n",
    )
    .expect("write");
}

/// `devcoach handson` in `repo`, every stream piped: a session a test drives line by line.
fn spawn_session(env: &Env, repo: &std::path::Path) -> std::process::Child {
    Command::new(crate::bin())
        .env_clear()
        .envs(env.vars())
        .current_dir(repo)
        .arg("handson")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("started")
}

/// Reads the child's stdout until `marker` has appeared `times` times in all.
fn read_until(out: &mut impl Read, seen: &mut String, marker: &str, times: usize) {
    let mut buf = [0u8; 4096];
    while seen.matches(marker).count() < times {
        let n = out.read(&mut buf).expect("read");
        assert!(n > 0, "the session ended early:\n{seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
}

#[test]
fn a_hands_on_session_rebuilds_the_agent_s_function_and_leaves_the_repository_as_it_was() {
    let env = Env::new();
    let repo = python_repo(&env);
    let status_before = git(&repo, &["status", "--porcelain=v2", "--untracked-files=all"]);
    let listed = env.command().current_dir(&repo).args(["handson", "--list"]).output().expect("ran");
    assert!(String::from_utf8_lossy(&listed.stdout).contains("1. total  cart.py:5"), "{listed:?}");

    let mut child = spawn_session(&env, &repo);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut seen = String::new();
    stdin.write_all(b"1\nit sums the prices\nit takes the discount off, in percent\n\ncheck\nhint\n").expect("write");
    read_until(&mut stdout, &mut seen, "hint 1 ›", 1);
    read_until(&mut stdout, &mut seen, "handson › ", 3);
    assert!(seen.contains("Tests fail: test_total_with_discount"), "{seen}");
    // The learner writes the function, in the worktree the session named.
    let file = seen
        .lines()
        .find(|l| l.trim_start().starts_with('/') && l.contains("cart.py:5"))
        .map(|l| l.trim().trim_end_matches(":5").to_owned())
        .expect("the file is named");
    assert!(file.starts_with(env.data().to_str().expect("utf-8")), "the worktree is in devcoach's folder: {file}");
    let stubbed = std::fs::read_to_string(&file).expect("the stubbed file");
    std::fs::write(
        &file,
        stubbed.replace(
            "raise NotImplementedError(\"devcoach hands-on: rebuild this function\")",
            "return round(sum(prices) * (100 - discount) / 100, 2)",
        ),
    )
    .expect("rebuilt");
    stdin.write_all(b"check\ndone\n").expect("write");
    drop(stdin);
    stdout.read_to_string(&mut seen).expect("rest");
    let status = child.wait().expect("ended");
    assert!(status.success(), "{seen}");
    assert!(seen.contains("The project's tests pass"), "{seen}");
    assert!(seen.contains("Saved a lesson card: total, rebuilt (hands-on)"), "{seen}");
    assert!(seen.contains("Counted on the knowledge map as passed unaided for `python`"), "{seen}");
    assert!(!std::path::Path::new(&file).exists(), "the worktree is gone");

    // The learner's repository: the same status, no worktree, the agent's code untouched.
    assert_eq!(git(&repo, &["status", "--porcelain=v2", "--untracked-files=all"]), status_before);
    assert_eq!(git(&repo, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1);
    assert!(std::fs::read_to_string(repo.join("cart.py")).expect("cart").contains("gross = sum(prices)"));

    // The card and the log.
    let lessons = env.run(&["lessons", "--json"]);
    let text = String::from_utf8_lossy(&lessons.stdout);
    assert!(text.contains("You rebuilt `total` and the project's tests pass: 2 checks, 1 hint, no reveal"), "{text}");
    let report = env.run(&["practice", "report", "--json"]);
    let report = String::from_utf8_lossy(&report.stdout);
    assert!(report.contains("handson-total") && report.contains("\"last_passed\": true"), "{report}");
}

/// Runs `devcoach stop-hook` with `payload`; what it printed.
fn stop_hook(env: &Env, payload: &serde_json::Value) -> String {
    let out = env.command().arg("stop-hook").write_stdin(payload.to_string()).output().expect("ran");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn while_an_exercise_is_open_a_reply_carrying_its_code_is_sent_back_by_the_stop_hook() {
    use devcoach_handson::{Change, exercise, pick};
    let env = Env::demo();
    let repo = python_repo(&env);
    let offer = pick::offer(&repo, &Change::Uncommitted).expect("an offer");
    let root = env.data().join("handson");
    let (lock, _) = exercise::lock(&root).expect("lock");
    let ex = exercise::start(&lock, &root, &offer, &offer.candidates[0], 1).expect("set up");
    let leaky = serde_json::json!({"session_id": "s1", "last_assistant_message": "Try: gross = sum(prices), then round(gross * (100 - discount) / 100, 2)."});
    let said = stop_hook(&env, &leaky);
    let answer: serde_json::Value = serde_json::from_str(&said).expect("one JSON object");
    assert_eq!(answer["decision"], "block", "{said}");
    assert!(answer["reason"].as_str().is_some_and(|r| r.contains("hands-on") && r.contains("total")), "{said}");
    assert!(!said.contains("gross"), "the answer does not repeat the code: {said}");
    // A clean reply, a re-entry, and Gemini's field name.
    let clean = stop_hook(
        &env,
        &serde_json::json!({"session_id": "s2", "last_assistant_message": "Which test fails, and what does it expect?"}),
    );
    assert!(!clean.contains("hands-on"), "{clean}");
    let again = stop_hook(
        &env,
        &serde_json::json!({"session_id": "s3", "stop_hook_active": true, "last_assistant_message": leaky["last_assistant_message"]}),
    );
    assert!(again.trim().is_empty(), "one rewrite asked per turn: {again}");
    let gemini = env
        .command()
        .arg("gemini-stop-hook")
        .env("DEVCOACH_HOOK_DEBUG", "1")
        .write_stdin(
            serde_json::json!({"session_id": "s4", "prompt_response": leaky["last_assistant_message"]}).to_string(),
        )
        .output()
        .expect("ran");
    assert!(
        String::from_utf8_lossy(&gemini.stdout).contains("hands-on"),
        "{gemini:?} {:?}",
        std::fs::read_to_string(env.data().join("hook.log"))
    );
    // An agent working in another project is not this exercise's coach.
    let mut elsewhere = leaky.clone();
    elsewhere["cwd"] = serde_json::json!(env.tmp.path().join("another-project").to_str());
    assert!(!stop_hook(&env, &elsewhere).contains("hands-on"));
    let mut here = leaky.clone();
    here["cwd"] = serde_json::json!(repo.join("sub").to_str());
    assert!(stop_hook(&env, &here).contains("hands-on"), "in the project, below its top");
    // Once the learner has written the same code in the exercise, it is theirs to discuss.
    let stubbed = std::fs::read_to_string(ex.file()).expect("file");
    std::fs::write(
        ex.file(),
        stubbed.replace(
            "raise NotImplementedError(\"devcoach hands-on: rebuild this function\")",
            "gross = sum(prices)\n    return round(gross * (100 - discount) / 100, 2)",
        ),
    )
    .expect("learner's code");
    let theirs = stop_hook(
        &env,
        &serde_json::json!({"session_id": "s5", "last_assistant_message": leaky["last_assistant_message"]}),
    );
    assert!(!theirs.contains("hands-on"), "{theirs}");
    // After a reveal, nothing is guarded.
    std::fs::write(ex.file(), &stubbed).expect("the stub again");
    assert!(stop_hook(&env, &leaky).contains("hands-on"));
    exercise::mark_revealed(&root, &mut ex.clone()).expect("revealed");
    assert!(!stop_hook(&env, &leaky).contains("hands-on"), "revealed");
    // Once the session ends (its lock goes), nothing is guarded.
    drop(lock);
    let after = stop_hook(&env, &leaky);
    assert!(!after.contains("hands-on"), "{after}");
}

#[test]
fn ctrl_c_mid_session_removes_the_exercise_at_once() {
    let env = Env::new();
    let repo = python_repo(&env);
    let worktrees_before = git(&repo, &["worktree", "list", "--porcelain"]);
    let mut child = spawn_session(&env, &repo);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut seen = String::new();
    stdin.write_all(b"1\n").expect("write");
    read_until(&mut stdout, &mut seen, "an empty line ends the list", 1);
    assert_ne!(git(&repo, &["worktree", "list", "--porcelain"]), worktrees_before, "the exercise is open");
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().expect("kill").success());
    let status = child.wait().expect("ended");
    assert_eq!(status.code(), Some(130));
    let mut stderr = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("stderr");
    assert!(stderr.contains("your repository is as it was"), "{stderr}");
    assert_eq!(git(&repo, &["worktree", "list", "--porcelain"]), worktrees_before);
    let common = repo.join(".git");
    assert!(!common.join("worktrees").exists(), "no record left in .git");
    drop(stdin);
}

#[test]
fn ctrl_c_during_a_check_ends_the_test_run_too() {
    let env = Env::new();
    let repo = python_repo(&env);
    let marker = env.tmp.path().join("the-run-went-on");
    // A test run that would leave a mark after three seconds, and a child of its own.
    let command = format!("sleep 3 && touch '{}' & sleep 30", marker.display());
    let mut child = Command::new(crate::bin())
        .env_clear()
        .envs(env.vars())
        .current_dir(&repo)
        .args(["handson", "--pick", "1", "--test-command", &command])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("started");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut seen = String::new();
    stdin.write_all(b"\ncheck\n").expect("write");
    read_until(&mut stdout, &mut seen, "handson › check", 1);
    std::thread::sleep(std::time::Duration::from_millis(500));
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().expect("kill").success());
    assert_eq!(child.wait().expect("ended").code(), Some(130));
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert!(!marker.exists(), "the test run ended with the session");
    assert_eq!(git(&repo, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1);
    drop(stdin);
}

#[test]
fn a_test_run_that_never_ends_is_a_failed_check_and_the_session_goes_on() {
    let env = Env::new();
    let repo = python_repo(&env);
    let out = env
        .command()
        .current_dir(&repo)
        .args(["handson", "--test-command", "sleep 30", "--timeout", "1"])
        .write_stdin("1\n\ncheck\nhint\ndone\n")
        .output()
        .expect("ran");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("did not finish within 1 s"), "{said}");
    assert!(said.contains("hint 1 ›"), "the session went on: {said}");
    assert!(said.contains("Your version is kept in"), "{said}");
    assert!(said.contains("total (hands-on, unfinished)"), "{said}");
    // Nothing happened in a session that only listed what it must do: no card piles up.
    let quiet = env.command().current_dir(&repo).arg("handson").write_stdin("1\n\ndone\n").output().expect("ran");
    assert!(!String::from_utf8_lossy(&quiet.stdout).contains("Saved a lesson card"));
}

/// The session log of a hands-on exercise, one JSON value per line.
fn handson_log(env: &Env) -> Vec<serde_json::Value> {
    let dir = env.data().join("practice/sessions");
    let file = std::fs::read_dir(&dir).expect("sessions").flatten().next().expect("one log").path();
    std::fs::read_to_string(file).expect("log").lines().map(|l| serde_json::from_str(l).expect("json line")).collect()
}

#[test]
fn a_local_coach_judges_the_list_against_the_hidden_body_and_never_shows_its_code() {
    use crate::practice_session::{fake_ollama, ollama_says};
    let env = Env::new();
    let repo = python_repo(&env);
    let ollama = fake_ollama(vec![
        // The judge: one gap fit to show, one that names the body (dropped).
        ollama_says(
            r#"{"verdict": "incomplete", "missing": ["What does a discount of 10 do to the total?", "Do you round(gross * ...)?"]}"#,
        ),
        ollama_says(r#"{"verdict": "passed"}"#),
        // A question: the first draft carries the body, the redraft does not.
        ollama_says("Write `return round(gross * (100 - discount) / 100, 2)`."),
        ollama_says("What does test_total_with_discount expect for two prices of 10?"),
        // Asked for the answer: both drafts carry it, so nothing is shown.
        ollama_says("gross = sum(prices)"),
        ollama_says("round(gross * (100 - discount) / 100, 2)"),
    ]);
    let mut cmd = env.command();
    let out = cmd
        .current_dir(&repo)
        .args(["handson", "--pick", "total", "--local", "--ollama-url", &ollama.url])
        .write_stdin(
            "it sums the prices\n\nthe discount is in percent\n\nwhat does the test expect?\ngive me the code\ndone\n",
        )
        .output()
        .expect("ran");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Your list does not say yet:\n  - What does a discount of 10 do to the total?"), "{text}");
    assert!(text.contains("Your list covers what the tests need: test_total_with_discount."), "{text}");
    assert!(text.contains("coach ›\nWhat does test_total_with_discount expect for two prices of 10?"), "{text}");
    assert!(text.contains("The coach's answer named your agent's code, so it is not shown."), "{text}");
    for piece in ["round(", "gross", "sum(prices)"] {
        assert!(!text.contains(piece), "`{piece}` of the hidden body reached the learner:\n{text}");
    }

    let asked = ollama.bodies.lock().expect("lock").clone();
    assert_eq!(asked.len(), 6, "two judgements, two questions of two drafts each");
    let judge = asked[0].to_string();
    assert!(
        judge.contains("gross = sum(prices)") && judge.contains("it sums the prices"),
        "the judge sees body and list"
    );
    assert!(asked[1].to_string().contains("the discount is in percent"), "the list grows between rounds");
    let coach = asked[2].to_string();
    assert!(coach.contains("<hidden>") && coach.contains("what does the test expect?"), "{coach}");
    assert!(coach.contains("NotImplementedError"), "the coach sees the learner's file as it is");
    assert!(asked[3].to_string().contains("did not see it"), "the redraft says why");

    let log = handson_log(&env);
    assert_eq!(log[0]["backend"], "ollama");
    let checks: Vec<_> = log.iter().filter(|e| e["event"] == "req_check").collect();
    assert_eq!(checks.len(), 2);
    assert_eq!(checks[0]["verdict"], "incomplete");
    assert_eq!(checks[0]["missing"], serde_json::json!(["What does a discount of 10 do to the total?"]));
    assert_eq!(checks[0]["dropped"], 1);
    assert_eq!((checks[0]["judge"].as_str(), checks[1]["verdict"].as_str()), (Some("ollama"), Some("passed")));
    let coached: Vec<_> = log.iter().filter(|e| e["event"] == "coach" && e["rung"].is_null()).collect();
    assert_eq!(coached.len(), 2);
    assert!(coached.iter().all(|c| c["leaked"] == true && c["drafts"] == 2), "{coached:?}");
    // Nothing was checked or revealed: no card.
    assert!(!text.contains("Saved a lesson card"), "{text}");
    assert_eq!(git(&repo, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1);
}

#[cfg(unix)]
#[test]
fn the_cloud_coach_is_guarded_the_same_way_and_a_silent_judge_leaves_the_list_unverified() {
    use crate::practice_session::{claude_result, fake_claude, read, with_fake_claude};
    let env = Env::new();
    let repo = python_repo(&env);
    let fake = fake_claude(&env);
    // haiku judges: it answers something that is not a verdict; the local judge is down.
    claude_result(&fake, "haiku", 1, "I think it looks fine");
    claude_result(&fake, "sonnet", 1, "Try the gross amount: gross = sum(prices) first.");
    claude_result(&fake, "sonnet", 2, "Which test names a discount, and what does it expect?");
    let out = with_fake_claude(&env, &fake)
        .current_dir(&repo)
        .args(["handson", "--pick", "1", "--coach", "--ollama-url", "http://127.0.0.1:9"])
        .write_stdin("it sums the prices\n\nwhere do I start?\ndone\n")
        .output()
        .expect("ran");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("No judge answered: your list is kept as it is."), "{text}");
    assert!(text.contains("coach ›\nWhich test names a discount, and what does it expect?"), "{text}");
    assert!(!text.contains("gross"), "{text}");
    assert!(read(&fake, "sonnet.system.1").contains("<hidden>"), "the coach's instructions hold the body");
    assert!(read(&fake, "sonnet.in.2").contains("did not see it"), "the redraft is asked in the same conversation");
    let log = handson_log(&env);
    assert_eq!((log[0]["backend"].as_str(), log[0]["model"].as_str()), (Some("claude"), Some("sonnet")));
    let check = log.iter().find(|e| e["event"] == "req_check").expect("judged");
    assert_eq!((check["verdict"].as_str(), check["judge"].as_str()), (Some("unverified"), Some("none")));
}

#[test]
fn a_coach_s_error_or_a_gapless_incomplete_verdict_shows_nothing_of_the_body() {
    use crate::practice_session::{fake_ollama, ollama_says};
    let env = Env::new();
    let repo = python_repo(&env);
    let ollama = fake_ollama(vec![
        // Every gap names the body: none can be shown, and the list is not passed either.
        ollama_says(r#"{"verdict": "incomplete", "missing": ["Do you round(gross)?", "gross = sum(prices) first?"]}"#),
        // The server fails with the body in its error.
        (500, serde_json::json!({ "error": "gross = sum(prices); return round(gross * (100 - discount) / 100, 2)" })),
        ollama_says("Which test names a discount?"),
        ollama_says("And what does it expect?"),
    ]);
    let out = env
        .command()
        .current_dir(&repo)
        .args(["handson", "--pick", "total", "--local", "--ollama-url", &ollama.url])
        .write_stdin("it sums the prices\n\nhow do I start?\nwhere is the discount?\nand then?\ndone\n")
        .output()
        .expect("ran");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("The coach finds your list incomplete, but could not say what is missing"), "{text}");
    assert!(!text.contains("Your list covers"), "an incomplete list is not passed: {text}");
    assert!(text.contains("The coach did not answer (it reported an error)"), "{text}");
    for piece in ["round(", "gross", "sum(prices)"] {
        assert!(!text.contains(piece), "`{piece}` of the hidden body reached the learner:\n{text}");
    }
    // Only the newest question carries the learner's file.
    let asked = ollama.bodies.lock().expect("lock").clone();
    let last = asked.last().expect("asked").to_string();
    assert_eq!(last.matches("the learner's file as it is now").count(), 1, "{last}");
    assert!(last.contains("where is the discount?") && last.contains("and then?"), "the conversation goes on");
}
