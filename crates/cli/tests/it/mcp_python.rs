//! A client we did not write: the official Python MCP SDK drives the real binary.
//! `scripts/test.sh` installs it into `target/pyenv` (or set `DEVCOACH_TEST_PYTHON` to a Python
//! that has the `mcp` package).

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::{Env, bin};

fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("DEVCOACH_TEST_PYTHON") {
        return p.into();
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/pyenv/bin/python");
    assert!(
        venv.exists(),
        "the Python MCP SDK is not installed: run scripts/test.sh (it creates target/pyenv), or set DEVCOACH_TEST_PYTHON"
    );
    venv
}

#[test]
fn the_python_sdk_can_use_every_part() {
    let env = Env::new();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/clients/mcp_python_client.py");
    let out = Command::new(python())
        .arg(script)
        .arg(bin())
        .arg(env.data())
        .env("HOME", env.tmp.path())
        .output()
        .expect("python runs");
    assert!(out.status.success(), "python client failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let seen: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(seen["server"], "devcoach");
    assert_eq!(seen["tools"].as_array().map(Vec::len), Some(devcoach_mcp::tool_names().len()));
    assert_eq!(seen["onboard_error"], false);
    assert_eq!(seen["logged"]["id"], "py-client");
    assert_eq!(seen["logged"]["timestamp"], "2026-11-30T12:00:00Z");
    assert_eq!(seen["feedback"]["confidence"], 4);
    // The explain-back rides on the stored answer and may take the number one step back down.
    assert_eq!(seen["explained"]["feedback"], "know", "{seen}");
    assert_eq!(seen["explained"]["explain_back"]["grade"], "wrong");
    assert_eq!(seen["explained"]["delta"], 0);
    assert_eq!(seen["explained"]["confidence"], 3);
    assert_eq!(seen["bad_is_error"], true);
    assert!(seen["bad_text"].as_str().is_some_and(|t| t.contains("call get_lessons")));
    assert_eq!(seen["resources"].as_array().map(Vec::len), Some(12));
    assert_eq!(seen["briefing"]["taught_topics"], serde_json::json!(["asyncio"]));
    assert!(seen["prompt_chars"].as_u64().is_some_and(|n| n > 5000));
    // The database the Python client wrote is the one the CLI reads.
    let lesson: Value = serde_json::from_slice(&env.run(&["lesson", "py-client", "--json"]).stdout).expect("json");
    assert_eq!(lesson["feedback"], "know");

    // Two days later the card the client wrote with the lesson is due; grading it through the
    // SDK schedules it and empties the queue the resource shows.
    let out = Command::new(python())
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/clients/mcp_python_client.py"))
        .arg(bin())
        .arg(env.data())
        .arg("review")
        .env("HOME", env.tmp.path())
        .output()
        .expect("python runs");
    assert!(out.status.success(), "python client failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let seen: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(seen["due"]["total_due"], 1, "{seen}");
    assert_eq!(seen["due"]["cards"][0]["question"], "How do you run three coroutines at once?");
    assert_eq!(seen["graded"]["expected_answer"], "asyncio.gather(a(), b(), c()).");
    assert_eq!(seen["graded"]["grade"], "hard");
    assert_eq!(seen["graded"]["checked"], true);
    assert_eq!(seen["due_after"]["total_due"], 0);
    // Both checks are asyncio's and both test "I knew that" (the latest self-report before
    // each): two pairs, not yet enough for a verdict.
    let topic = &seen["calibration"]["topics"][0];
    assert_eq!((topic["topic"].as_str(), topic["checked_answers"].as_u64()), (Some("asyncio"), Some(2)), "{seen}");
    assert_eq!((topic["pairs"].as_u64(), topic["verdict"].as_str()), (Some(2), Some("not_enough")));
    assert_eq!((topic["claims"][0]["wrong"].clone(), topic["claims"][0]["partly"].clone()), (json!(1), json!(1)));
    // What the learner said and wrote stays in the database the CLI reads.
    let stats: Value = serde_json::from_slice(&env.run(&["stats", "--json"]).stdout).expect("json");
    assert_eq!(stats["calibration"], seen["calibration"]);
}

/// The feedback form (elicitation) with a client we did not write: the Python SDK declares
/// elicitation, so on the turn after the card a bare `submit_feedback` asks the learner once.
#[test]
fn the_python_sdk_answers_the_feedback_form() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/clients/mcp_python_elicit.py");
    for mode in ["accept", "decline", "cancel"] {
        let env = Env::new();
        let out = Command::new(python())
            .arg(&script)
            .arg(bin())
            .arg(env.data())
            .arg(mode)
            .env("HOME", env.tmp.path())
            .output()
            .expect("python runs");
        assert!(out.status.success(), "{mode}: python client failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let seen: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(seen["feedback_by"], "form", "{seen}");
        assert_eq!(seen["asked"], 1, "asked once, never twice: {seen}");
        assert!(seen["message"].as_str().is_some_and(|m| m.contains("Awaiting in a loop")), "{seen}");
        assert_eq!(seen["schema"]["required"], json!(["answer"]), "{seen}");
        assert_eq!(seen["first_error"], false, "{seen}");
        assert_eq!(seen["second_error"], true, "{seen}");
        let stored: Value =
            serde_json::from_slice(&env.run(&["lesson", &format!("py-form-{mode}"), "--json"]).stdout).expect("json");
        match mode {
            "accept" => {
                assert_eq!(seen["first"]["form"], "answered", "{seen}");
                assert_eq!(seen["first"]["feedback"], "understood");
                assert_eq!(seen["first"]["explanation_to_grade"], "Await runs one at a time.");
                assert_eq!(stored["feedback"], "understood");
            }
            other => {
                assert_eq!(seen["first"]["form"], if other == "decline" { "declined" } else { "cancelled" }, "{seen}");
                assert_eq!(seen["first"]["feedback"], Value::Null);
                assert!(seen["second_text"].as_str().is_some_and(|t| t.contains("already asked")), "{seen}");
                assert_eq!(stored["feedback"], Value::Null, "{other}: nothing recorded");
            }
        }
    }
}
