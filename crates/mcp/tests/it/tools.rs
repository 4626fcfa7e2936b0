//! Every tool answers every call: a failure is an error result whose text names the tool or the
//! argument and says what to do, never a crash; the tools that need the binary say so.

use serde_json::json;

use crate::Demo;

#[test]
fn every_tool_answers_empty_and_wrong_arguments_with_words() {
    let demo = Demo::new();
    for name in devcoach_mcp::tool_names() {
        // Starting a dashboard is the binary's job: without a launcher the tool says so.
        if name == "stop_ui" {
            continue;
        }
        for args in [json!({}), json!({"id": 7, "lesson_id": ["x"], "topic": {"a": 1}, "port": -3}), json!("nonsense")]
        {
            let result = demo.call(&name, args.clone());
            let text = Demo::text(&result);
            assert!(!text.contains("internal error"), "{name} {args}: {text}");
            if result["isError"] == true {
                assert!(text.len() > 12, "{name} {args}: an error says what to do: {text:?}");
            }
        }
    }
}

#[test]
fn lookups_of_what_is_not_there_say_how_to_find_it() {
    let demo = Demo::new();
    for (tool, args) in [
        ("star_lesson", json!({"lesson_id": "no-such-lesson", "starred": true})),
        ("submit_feedback", json!({"lesson_id": "no-such-lesson", "feedback": "know"})),
        ("delete_lesson", json!({"lesson_id": "no-such-lesson"})),
    ] {
        let result = demo.call(tool, args);
        assert_eq!(result["isError"], true, "{tool}: {result}");
        assert!(Demo::text(&result).contains("get_lessons"), "{tool}: {result}");
    }
    let result = demo.call("share_lesson", json!({"lesson_id": "no-such-lesson", "transport": "text"}));
    assert!(Demo::text(&result).contains("share_lesson") && Demo::text(&result).contains("get_lessons"), "{result}");
}

#[test]
fn open_ui_without_a_launcher_says_where_to_start_one() {
    let demo = Demo::new();
    // A port nothing listens on, so the tool gets as far as wanting to start one.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let result = demo.call("open_ui", json!({"port": port}));
    let text = Demo::text(&result);
    assert!(text.contains("devcoach ui --port"), "{text}");
    let out_of_range = Demo::text(&demo.call("open_ui", json!({"port": 80})));
    assert!(out_of_range.contains("out of valid range"), "{out_of_range}");
}

/// A value the rules refuse is the agent's to fix: the answer says what is wrong, and does not
/// send the learner to `doctor` as if the database had failed.
#[test]
fn a_refused_value_is_not_a_broken_database() {
    let demo = Demo::new();
    let result = demo.call("add_group", json!({"name": "Other"}));
    let text = Demo::text(&result);
    assert_eq!(result["isError"], true, "{result}");
    assert!(text.contains("reserved") && !text.contains("doctor"), "{text}");
}
