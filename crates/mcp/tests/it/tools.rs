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

/// `get_lessons` sends each lesson once: one text block holding a JSON object, and no structured
/// copy. Sent both ways, ten lessons were twice the original's answer; now the answer is no
/// larger than the original's text for the same lessons (a compact JSON array of them with the
/// original's fields, which had no sharing fields), and every field with a value is there.
#[test]
fn get_lessons_sends_every_lesson_once_and_no_more_than_the_original() {
    let demo = Demo::new();
    let result = demo.call("get_lessons", json!({"limit": 10}));
    assert_ne!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "no second copy: {result}");
    let blocks = result["content"].as_array().expect("content");
    assert_eq!(blocks.len(), 1, "{result}");
    let text = blocks[0]["text"].as_str().expect("text");
    let answer: serde_json::Value = serde_json::from_str(text).expect("the text is JSON");
    let listed = answer["lessons"].as_array().expect("lessons");
    assert_eq!(listed.len(), 10);
    assert!(answer["total"].as_i64().is_some_and(|t| t >= 10), "{answer}");

    // The same ten lessons, whole, from the store.
    let store =
        devcoach_store::Store::open(&devcoach_store::DataDir::new(demo.tmp.path().join("data"))).expect("store");
    let mut original = Vec::new();
    for lesson in listed {
        let id = lesson["id"].as_str().expect("id");
        let stored = store.lesson(id).expect("read").expect("stored");
        let mut full = serde_json::to_value(&stored).expect("json");
        for (field, value) in full.as_object().expect("object") {
            if value.is_null() || (field == "imported" && value == false) {
                assert!(lesson.get(field).is_none(), "{field} is empty and left out: {lesson}");
            } else {
                assert_eq!(lesson.get(field), Some(value), "{field} of {id}");
            }
        }
        let body = serde_json::to_string(lesson["body"].as_str().expect("body")).expect("json");
        assert_eq!(text.matches(&body).count(), 1, "each body once");
        // The original's lesson: every field, null or not, but neither sharing field.
        let fields = full.as_object_mut().expect("object");
        fields.remove("imported");
        fields.remove("shared_by");
        original.push(full);
    }
    let original = serde_json::to_string(&original).expect("json");
    assert!(text.len() <= original.len(), "{} bytes against the original's {}", text.len(), original.len());
}
