//! Every tool answers every call: a failure is an error result whose text names the tool or the
//! argument and says what to do, never a crash; the tools that need the binary say so.

use serde_json::{Value, json};

use crate::{Demo, now};

#[test]
fn every_tool_answers_empty_and_wrong_arguments_with_words() {
    let demo = Demo::new();
    // The tools only a client that renders the cards sees, too: checked like every other.
    let frame_only =
        ["show_lesson", "lesson_card", "lesson_card_answer", "review_answer", "review_card_grade"].map(str::to_owned);
    for name in devcoach_mcp::tool_names().into_iter().chain(frame_only) {
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

/// A project whose uncommitted change adds a tested function (what an agent just wrote).
fn project_with_a_change(root: &std::path::Path) -> std::path::PathBuf {
    let repo = root.join("shop");
    std::fs::create_dir_all(&repo).expect("mkdir");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git").arg("-C").arg(&repo).args(args).output().expect("git");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "--quiet", "--initial-branch=main"]);
    git(&["config", "user.email", "learner@example.com"]);
    git(&["config", "user.name", "Learner"]);
    std::fs::write(repo.join("cart.py"), "def count(items):\n    return len(items)\n").expect("write");
    git(&["add", "--all"]);
    git(&["commit", "--quiet", "-m", "count"]);
    std::fs::write(
        repo.join("cart.py"),
        "def count(items):\n    return len(items)\n\n\ndef total(prices, discount=0):\n    gross = sum(prices)\n    return round(gross * (100 - discount) / 100, 2)\n",
    )
    .expect("write");
    std::fs::write(
        repo.join("test_cart.py"),
        "from cart import total\n\n\ndef test_total_with_discount():\n    assert total([10, 10], discount=10) == 18.0\n",
    )
    .expect("write");
    repo
}

/// A server over `dir` as an agent working in `cwd` would start it, at `now`.
fn server_at(dir: &devcoach_store::DataDir, cwd: &std::path::Path, now: chrono::DateTime<chrono::Utc>) -> Demo {
    let opts = devcoach_mcp::ServerOptions {
        dir: dir.clone(),
        cwd: cwd.to_path_buf(),
        now: Some(now),
        claude: None,
        version: "9.9.9-test".into(),
        dashboard: None,
    };
    Demo { server: devcoach_mcp::DevcoachServer::new(opts, None), tmp: tempfile::TempDir::new().expect("tmp") }
}

fn lesson(id: &str) -> Value {
    json!({
        "id": id, "topic_id": "python", "categories": ["python"], "title": format!("Lesson {id}"), "level": "mid",
        "summary": "A summary.", "body": "A body."
    })
}

#[test]
fn a_lesson_about_a_change_offers_an_exercise_once_a_day_and_not_for_a_week_after_not_now() {
    let tmp = tempfile::TempDir::new().expect("tmp");
    let dir = devcoach_store::DataDir::new(tmp.path().join("data"));
    devcoach_store::Store::open(&dir).expect("store");
    let repo = project_with_a_change(tmp.path());
    let offer = |s: &Demo, id: &str| {
        let result = s.call("log_lesson", lesson(id));
        assert_eq!(result["isError"], json!(false), "{result}");
        assert_eq!(result["structuredContent"]["id"], json!(id), "the lesson is saved either way");
        let text = Demo::text(&result);
        let offered = result["structuredContent"]["handson_offer"].clone();
        assert_eq!(offered.is_null(), !text.contains("Hands-on:"), "the text and the structure agree: {text}");
        offered
    };
    let s = server_at(&dir, &repo, now());
    let first = offer(&s, "first");
    assert_eq!(first["function"], "total");
    assert_eq!(first["file"], "cart.py");
    assert_eq!(first["tests"], json!(["test_total_with_discount"]));
    assert!(first["how"].as_str().is_some_and(|h| h.contains("handson_not_now")), "{first}");
    assert!(offer(&s, "second").is_null(), "once a day");
    let s = server_at(&dir, &repo, now() + chrono::Duration::hours(25));
    assert!(!offer(&s, "next-day").is_null(), "a day later");
    let quiet = s.call("handson_not_now", json!({}));
    assert_eq!(quiet["structuredContent"]["quiet_until"], json!("2026-12-08T13:00:00.000Z"), "{quiet}");
    let s = server_at(&dir, &repo, now() + chrono::Duration::days(4));
    assert!(offer(&s, "within-the-week").is_null(), "a not now is remembered");
    // During a course, never; once it is over, the offer comes.
    let course = devcoach_store::Store::open(&dir)
        .expect("store")
        .create_course(
            &devcoach_store::NewCourse {
                title: "Python".into(),
                topic_id: "python".into(),
                goal: None,
                lesson_id: None,
                prerequisites: vec![],
            },
            now(),
        )
        .expect("course");
    let s = server_at(&dir, &repo, now() + chrono::Duration::days(9));
    assert!(offer(&s, "in-a-course").is_null(), "never during a course");
    devcoach_store::Store::open(&dir)
        .expect("store")
        .set_course_status(
            &devcoach_core::course::CourseId::parse(&course.id).expect("id"),
            devcoach_core::course::CourseStatus::Abandoned,
            now() + chrono::Duration::days(9),
        )
        .expect("abandoned");
    assert!(!offer(&s, "after-the-course").is_null(), "the course is over");
    // Outside a repository there is nothing to offer, and the lesson is saved; a look that found
    // nothing is not repeated for an hour.
    let later = now() + chrono::Duration::days(11);
    assert!(offer(&server_at(&dir, tmp.path(), later), "no-repo").is_null());
    assert!(offer(&server_at(&dir, &repo, later + chrono::Duration::minutes(30)), "soon-after").is_null());
    assert!(!offer(&server_at(&dir, &repo, later + chrono::Duration::minutes(61)), "an-hour-on").is_null());
    // The offered function starts by its name (a number could name another after a change).
    let s = server_at(&dir, &repo, later + chrono::Duration::minutes(62));
    let wrong = s.call("handson_start", json!({ "function": "nope" }));
    assert_eq!(wrong["isError"], json!(true));
    assert!(Demo::text(&wrong).contains("not among this change's candidates: total"), "{wrong}");
    let started = s.call("handson_start", json!({ "function": "total" }));
    assert_eq!(started["structuredContent"]["function"], json!("total"), "{started}");
    let id = started["structuredContent"]["session_id"].as_str().expect("an id").to_owned();
    let finished = s.call("handson_finish", json!({ "session_id": id }));
    assert_eq!(finished["structuredContent"]["result"], json!("unfinished"), "{finished}");
}
