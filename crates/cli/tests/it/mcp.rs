//! The MCP server end to end: the real binary, driven by the official Rust client (rmcp).
//! Every tool is called on a success path and a failure path, every structured result is
//! validated against the tool's advertised output schema, every resource and the prompt are
//! read, and the surface is compared with what the TypeScript devcoach 0.9.5 offered.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Stdio;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, GetPromptRequestParams, ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::{Env, NOW, bin, fixtures};

type Client = RunningService<RoleClient, ()>;

async fn connect(env: &Env) -> Client {
    let mut cmd = tokio::process::Command::new(bin());
    cmd.arg("mcp").env_clear().envs(env.vars()).current_dir(env.tmp.path());
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().expect("spawn devcoach mcp");
    ().serve(transport).await.expect("initialize")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

async fn call(client: &Client, name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .expect("tools/call answered")
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

struct Checker {
    output_schemas: BTreeMap<String, Value>,
    tools: BTreeSet<String>,
    called_ok: BTreeSet<String>,
    called_err: BTreeSet<String>,
}

impl Checker {
    #[track_caller]
    fn ok(&mut self, name: &str, result: &CallToolResult) -> Value {
        assert_ne!(result.is_error, Some(true), "{name} failed: {}", text(result));
        self.called_ok.insert(name.to_owned());
        match (&result.structured_content, self.output_schemas.get(name)) {
            (Some(value), Some(schema)) => {
                let validator =
                    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{name}: bad output schema: {e}"));
                let errors: Vec<String> =
                    validator.iter_errors(value).map(|e| format!("{} at {}", e, e.instance_path())).collect();
                assert!(
                    errors.is_empty(),
                    "{name}: structuredContent does not match outputSchema: {errors:?}\n{value:#}"
                );
                assert!(value.is_object(), "{name}: structured results are objects");
                // The text copy is the same JSON, so clients without structured output see it too.
                let last = result.content.last().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
                assert_eq!(serde_json::from_str::<Value>(&last).ok().as_ref(), Some(value), "{name}: text copy");
                value.clone()
            }
            (None, None) => {
                let t = text(result);
                assert!(!t.trim().is_empty(), "{name}: prose results say something");
                match serde_json::from_str::<Value>(&t) {
                    Ok(v) => {
                        assert!(v.is_object(), "{name}: never a bare JSON scalar or array: {t}");
                        assert_eq!(result.content.len(), 1, "{name}: a JSON answer is sent once");
                        v
                    }
                    Err(_) => Value::String(t),
                }
            }
            (s, schema) => panic!("{name}: structured content {} but output schema {}", s.is_some(), schema.is_some()),
        }
    }

    #[track_caller]
    fn err(&mut self, name: &str, result: &CallToolResult, expect: &str) {
        assert_eq!(result.is_error, Some(true), "{name} should fail: {}", text(result));
        let t = text(result);
        assert!(t.contains(expect), "{name}: error text {t:?} should mention {expect:?}");
        assert!(t.starts_with(name), "{name}: errors name the tool: {t}");
        self.called_err.insert(name.to_owned());
    }
}

#[test]
fn every_tool_resource_and_prompt_through_the_rust_client() {
    let env = Env::demo();
    runtime().block_on(async {
        let client = connect(&env).await;
        let info = client.peer_info().expect("server info");
        assert_eq!(info.server_info.as_ref().map(|s| s.name.as_str()), Some("devcoach"));

        let tools = client.list_all_tools().await.expect("tools/list");
        let mut c = Checker {
            output_schemas: tools
                .iter()
                .filter_map(|t| t.output_schema.as_ref().map(|s| (t.name.to_string(), Value::Object((**s).clone()))))
                .collect(),
            tools: tools.iter().map(|t| t.name.to_string()).collect(),
            called_ok: BTreeSet::new(),
            called_err: BTreeSet::new(),
        };
        for t in &tools {
            let a = t.annotations.as_ref().expect("annotations");
            assert_eq!(a.title.as_deref(), t.title.as_deref(), "{}: annotation title", t.name);
            assert!(a.read_only_hint.is_some() && a.destructive_hint.is_some() && a.idempotent_hint.is_some() && a.open_world_hint.is_some());
            assert!(t.description.as_ref().is_some_and(|d| d.len() > 20), "{} has a description", t.name);
        }

        // Lessons.
        let lesson = json!({
            "id": "mcp-lesson", "topic_id": "rust", "categories": ["rust", "mcp"], "title": "Lessons over MCP",
            "level": "senior", "summary": "Saved through the protocol.", "body": "Body.\n\n💡 *Senior tip:* test the wire.",
            "task_context": "writing the MCP tests"
        });
        let saved = c.ok("log_lesson", &call(&client, "log_lesson", lesson.clone()).await);
        assert_eq!(saved["timestamp"], NOW);
        assert!(saved["reply_check"].as_str().is_some_and(|r| r.contains("card")));
        let mut bad = lesson.clone();
        bad["level"] = json!("expert");
        c.err("log_lesson", &call(&client, "log_lesson", bad).await, "invalid arguments");
        let mut empty = lesson.clone();
        empty["body"] = json!("   ");
        c.err("log_lesson", &call(&client, "log_lesson", empty).await, "body");

        let listed = c.ok("get_lessons", &call(&client, "get_lessons", json!({"limit": 3})).await);
        assert_eq!(listed["lessons"].as_array().map(Vec::len), Some(3));
        assert_eq!(listed["lessons"][0]["id"], "mcp-lesson");
        assert_eq!(listed["total"], json!(devcoach_store::DEMO_LESSON_COUNT + 1));
        let all = c.ok("get_lessons", &call(&client, "get_lessons", json!({"limit": 0, "search": "sqlite lock"})).await);
        assert_eq!(all["lessons"].as_array().map(Vec::len), Some(1));
        c.err("get_lessons", &call(&client, "get_lessons", json!({"date_from": "sometime"})).await, "date_from");

        c.ok("star_lesson", &call(&client, "star_lesson", json!({"lesson_id": "mcp-lesson", "starred": true})).await);
        c.err("star_lesson", &call(&client, "star_lesson", json!({"lesson_id": "nope", "starred": true})).await, "call get_lessons");

        // Reviews: the demo's lessons are due (a day after each), the new one is not yet.
        let mut with_card = lesson.clone();
        with_card["id"] = json!("mcp-review");
        with_card["review"] = json!({"question": "What does the MCP test check?", "answer": "Every tool over the wire."});
        c.ok("log_lesson", &call(&client, "log_lesson", with_card.clone()).await);
        with_card["review"] = json!({"question": " ", "answer": "x"});
        c.err("log_lesson", &call(&client, "log_lesson", with_card).await, "question");
        let due = c.ok("get_due_reviews", &call(&client, "get_due_reviews", json!({"limit": 2})).await);
        assert_eq!(due["cards"].as_array().map(Vec::len), Some(2));
        assert!(due["total_due"].as_i64().is_some_and(|n| n >= 25), "{due}");
        assert!(due["cards"][0].get("answer").is_none() && due["cards"][0]["question"].is_string(), "answers stay hidden");
        c.err("get_due_reviews", &call(&client, "get_due_reviews", json!({"limit": "many"})).await, "invalid arguments");
        let first = due["cards"][0]["lesson_id"].as_str().expect("id").to_owned();
        let graded = c.ok("grade_review", &call(&client, "grade_review", json!({"lesson_id": first, "grade": "good"})).await);
        assert_eq!(graded["grade"], json!("good"));
        assert!(graded["next_review_in_days"].as_u64().is_some_and(|d| d >= 1), "{graded}");
        assert!(graded["expected_answer"].as_str().is_some_and(|a| !a.is_empty()));
        c.err("grade_review", &call(&client, "grade_review", json!({"lesson_id": "nope", "grade": "good"})).await, "not found");
        c.err("grade_review", &call(&client, "grade_review", json!({"lesson_id": first, "grade": "perfect"})).await, "invalid arguments");
        // Played as the agent: it asked the next card's question, read the learner's words and
        // graded them with the rubric; the review is recorded as checked.
        let second = due["cards"][1]["lesson_id"].as_str().expect("id").to_owned();
        let checked = json!({"lesson_id": second, "grade": "hard", "answer": "Something about caching?", "missing": "which layer is reused"});
        let graded = c.ok("grade_review", &call(&client, "grade_review", checked).await);
        assert_eq!((graded["checked"].clone(), graded["grade"].clone()), (json!(true), json!("hard")), "{graded}");
        c.err("grade_review", &call(&client, "grade_review", json!({"lesson_id": second, "grade": "good", "checked": true})).await, "answer");
        c.err("grade_review", &call(&client, "grade_review", json!({"lesson_id": second, "grade": "good", "answer": " "})).await, "answer");
        c.err("grade_review", &call(&client, "grade_review", json!({"lesson_id": second, "grade": "good", "checked": false, "answer": "x"})).await, "kept only");
        c.err("grade_review", &call(&client, "grade_review", json!({"lesson_id": second, "grade": "good", "missing": "x"})).await, "missing");
        let card = c.ok(
            "add_review_card",
            &call(&client, "add_review_card", json!({"lesson_id": "git-bisect", "question": "How does bisect find a bad commit?", "answer": "Binary search over history."})).await,
        );
        assert_eq!(card["source"], "agent");
        c.err("add_review_card", &call(&client, "add_review_card", json!({"lesson_id": "git-bisect", "question": "q", "answer": "x".repeat(2001)})).await, "answer");
        c.err("add_review_card", &call(&client, "add_review_card", json!({"lesson_id": "nope", "question": "q", "answer": "a"})).await, "not found");

        let fb = c.ok("submit_feedback", &call(&client, "submit_feedback", json!({"lesson_id": "mcp-lesson", "feedback": "know"})).await);
        assert_eq!((fb["delta"].clone(), fb["confidence"].clone()), (json!(1), json!(6)));
        c.err("submit_feedback", &call(&client, "submit_feedback", json!({"lesson_id": "mcp-lesson", "feedback": "maybe"})).await, "invalid arguments");
        c.err("submit_feedback", &call(&client, "submit_feedback", json!({"lesson_id": "nope", "feedback": "know"})).await, "not found");
        // The learner explained the lesson back; the agent graded it. The stored answer stays.
        let explained = json!({"lesson_id": "mcp-lesson", "explain_back": {"answer": "Reuse the connection.", "grade": "partly", "missing": "the pool bounds how many stay open"}});
        let fb = c.ok("submit_feedback", &call(&client, "submit_feedback", explained).await);
        assert_eq!((fb["feedback"].clone(), fb["delta"].clone()), (json!("know"), json!(0)), "{fb}");
        assert_eq!(fb["explain_back"]["grade"], "partly");
        assert_eq!(fb["explain_back"]["missing"], "the pool bounds how many stay open");
        c.err("submit_feedback", &call(&client, "submit_feedback", json!({"lesson_id": "mcp-lesson"})).await, "explain_back");
        let long = json!({"lesson_id": "mcp-lesson", "explain_back": {"answer": "x".repeat(2001), "grade": "correct"}});
        c.err("submit_feedback", &call(&client, "submit_feedback", long).await, "2000");
        let calibration = client.read_resource(ReadResourceRequestParams::new("devcoach://calibration")).await.expect("read");
        let ResourceContents::TextResourceContents { text, .. } = &calibration.contents[0] else { panic!("text") };
        let calibration: Value = serde_json::from_str(text).expect("json");
        let topics = calibration["topics"].as_array().expect("topics");
        assert!(topics.iter().any(|t| t["checked_answers"].as_u64() >= Some(1)), "{calibration}");

        // One answer to "when is the next lesson?": the agent's resource says what `stats` says.
        let rate = client.read_resource(ReadResourceRequestParams::new("devcoach://rate-limit")).await.expect("read");
        let ResourceContents::TextResourceContents { text, .. } = &rate.contents[0] else { panic!("text") };
        let rate: Value = serde_json::from_str(text).expect("json");
        let stats: Value = serde_json::from_slice(&env.run(&["stats", "--json"]).stdout).expect("json");
        assert!(rate["next_lesson"].is_string(), "{rate}");
        assert_eq!(rate["next_lesson"], stats["next_lesson"], "{rate} vs {stats}");

        // One store, one truth: what the CLI writes, the server reads, and back.
        let cli_lesson: Value = serde_json::from_slice(&env.run(&["lesson", "mcp-lesson", "--json"]).stdout).expect("json");
        assert_eq!(cli_lesson["feedback"], "know");
        assert_eq!(cli_lesson["starred"], true);
        assert!(env.run(&["feedback", "mcp-lesson", "dont_know"]).status.success());
        let after = c.ok("get_lessons", &call(&client, "get_lessons", json!({"limit": 2})).await);
        let mine = after["lessons"].as_array().and_then(|l| l.iter().find(|l| l["id"] == "mcp-lesson")).expect("listed");
        assert_eq!(mine["feedback"], "dont_know");

        c.ok("skip_lesson", &call(&client, "skip_lesson", json!({"reason": "only a question"})).await);
        c.err("skip_lesson", &call(&client, "skip_lesson", json!({"reason": "  "})).await, "reason");

        // Knowledge.
        let k = c.ok("update_knowledge", &call(&client, "update_knowledge", json!({"topic": "redis", "delta": -1})).await);
        assert_eq!(k, json!({"topic": "redis", "confidence": 2}));
        c.err("update_knowledge", &call(&client, "update_knowledge", json!({"topic": "redis", "delta": "down"})).await, "invalid arguments");
        let t = c.ok("add_topic", &call(&client, "add_topic", json!({"topic": "kotlin", "confidence": 3, "group": "Languages"})).await);
        assert_eq!(t, json!({"topic": "kotlin", "confidence": 3, "group": "Languages"}));
        c.err("add_topic", &call(&client, "add_topic", json!({"topic": "kotlin", "confidence": 11})).await, "between 0 and 10");
        assert_eq!(c.ok("remove_topic", &call(&client, "remove_topic", json!({"topic": "kotlin"})).await)["removed"], true);
        c.err("remove_topic", &call(&client, "remove_topic", json!({"topic": 5})).await, "invalid arguments");
        assert_eq!(c.ok("add_group", &call(&client, "add_group", json!({"name": "Mobile"})).await)["created"], true);
        c.err("add_group", &call(&client, "add_group", json!({"name": "Other"})).await, "reserved");
        assert_eq!(c.ok("remove_group", &call(&client, "remove_group", json!({"name": "Mobile"})).await)["removed"], true);
        c.err("remove_group", &call(&client, "remove_group", json!({"name": "Other"})).await, "Other");

        // Settings.
        let s = c.ok("update_settings", &call(&client, "update_settings", json!({"key": "nudge_every", "value": "5"})).await);
        assert_eq!(s["nudge_every"], 5);
        c.err("update_settings", &call(&client, "update_settings", json!({"key": "max_per_day", "value": "99"})).await, "max_per_day must be between 1 and 20");
        c.err("update_settings", &call(&client, "update_settings", json!({"key": "ui_theme", "value": "dark"})).await, "invalid arguments");

        // Reads.
        let b = c.ok("get_briefing", &call(&client, "get_briefing", json!({})).await);
        assert_eq!(b["onboarding"]["needs_onboarding"], false);
        assert!(b["taught_topics"].as_array().is_some_and(|t| t.contains(&json!("rust"))));
        assert!(b["notebook_path"].as_str().is_some_and(|p| p.ends_with("learning-state.md")));
        // The demo learner rated their topics 45 days ago: the model has them fading since.
        let estimates = b["estimates"].as_array().expect("estimates");
        assert!(!estimates.is_empty(), "{b}");
        // Every topic on the map the model has read, where it differs and where it does not, so
        // the agent sees what each estimate rests on.
        assert!(estimates.iter().any(|e| {
            let rated = b["profile"]["knowledge"].as_array().and_then(|k| k.iter().find(|k| k["topic"] == e["topic"]));
            rated.is_some_and(|r| r["confidence"] == e["confidence_now"])
        }), "a topic where the two agree is listed too: {b}");
        for e in estimates {
            let rated = b["profile"]["knowledge"].as_array().and_then(|k| k.iter().find(|k| k["topic"] == e["topic"])).expect("on the map");
            assert!(rated["confidence"].is_i64(), "{e}");
            assert!(e["known_now"].as_f64().is_some_and(|p| (0.0..=1.0).contains(&p)));
            assert!(e["mastery"].as_f64().is_some_and(|p| (0.0..=1.0).contains(&p)), "mastery beside recall: {e}");
        }
        let o = c.ok("get_onboarding", &call(&client, "get_onboarding", json!({})).await);
        assert_eq!(o["default_topics"].as_object().map(serde_json::Map::len), Some(24));
        let p = c.ok("get_profile", &call(&client, "get_profile", json!({})).await);
        assert!(p.get("compat").is_none());
        let w = c.ok("preview_deep_scan", &call(&client, "preview_deep_scan", json!({"months": 6})).await);
        assert_eq!(w["window_months"], 6);
        c.err("preview_deep_scan", &call(&client, "preview_deep_scan", json!({"months": 99})).await, "between 1 and 24");

        // Dashboard control: out-of-range ports (open_ui answers in text, as the original does),
        // then a real dashboard on a free port, serving this same database.
        let refused = c.ok("open_ui", &call(&client, "open_ui", json!({"port": 80})).await);
        assert_eq!(refused, json!("error: port 80 is out of valid range (1024-65535)"));
        c.err("stop_ui", &call(&client, "stop_ui", json!({"port": 99999})).await, "out of valid range");
        let port = free_port();
        let opened = c.ok("open_ui", &call(&client, "open_ui", json!({"port": port})).await);
        assert_eq!(opened, json!(format!("devcoach UI running at http://localhost:{port}")));
        let again = c.ok("open_ui", &call(&client, "open_ui", json!({"port": port})).await);
        assert_eq!(again, json!(format!("devcoach UI is already running at http://localhost:{port}")));
        assert!(http_get(port, "/lessons/git-bisect").contains("Find the breaking commit with bisect"));
        let stopped = c.ok("stop_ui", &call(&client, "stop_ui", json!({"port": port})).await);
        assert_eq!(stopped, json!({"stopped": true, "port": port}));
        let gone = c.ok("stop_ui", &call(&client, "stop_ui", json!({"port": port})).await);
        assert_eq!(gone, json!({"stopped": false, "port": port}));

        // Sharing.
        let shared = c.ok("share_lesson", &call(&client, "share_lesson", json!({"lesson_id": "git-bisect"})).await);
        let share_text = shared["text"].as_str().expect("text").to_owned();
        assert_eq!(share_text.lines().last(), shared["code"].as_str());
        assert!(shared["link"].is_null() && shared["markdown"].is_null());
        let decoded = devcoach_core::share::decode_code(shared["code"].as_str().expect("code")).expect("our code decodes");
        assert_eq!(decoded.title, "Find the breaking commit with bisect");
        assert!(decoded.project.is_none(), "no context unless asked");
        let link = c.ok("share_lesson", &call(&client, "share_lesson", json!({"lesson_id": "git-bisect", "transport": "link", "shared_by": "Ada"})).await);
        assert!(link["link"].as_str().is_some_and(|l| l.starts_with("https://devcoach-rs.github.io/devcoach/lesson#devcoach:lesson:1:")));
        assert_eq!(link["shared_by"], "Ada");
        let file = c.ok("share_lesson", &call(&client, "share_lesson", json!({"lesson_id": "git-bisect", "transport": "file", "include_context": true, "shared_by": ""})).await);
        assert_eq!(file["filename"], "git-bisect.devcoach.md");
        assert!(file["shared_by"].is_null());
        assert!(file["markdown"].as_str().is_some_and(|m| m.contains("project: \"demo-app\"")));
        c.err("share_lesson", &call(&client, "share_lesson", json!({"lesson_id": "nope"})).await, "not found — call get_lessons");

        // One's own lesson, shared and imported back into the store that made it: recognised.
        let imported = c.ok("import_lesson", &call(&client, "import_lesson", json!({"payload": share_text})).await);
        assert_eq!((imported["kind"].clone(), imported["inserted"].clone()), (json!("shared"), json!(0)));
        assert_eq!((imported["own_lesson"].clone(), imported["lesson"]["id"].clone()), (json!(true), json!("git-bisect")));
        assert_eq!(imported["topic_tracked"], true);
        assert!(imported["reply_check"].as_str().is_some_and(|r| r.contains("own_lesson")));
        let again = c.ok("import_lesson", &call(&client, "import_lesson", json!({"payload": link["link"]})).await);
        assert_eq!((again["inserted"].clone(), again["own_lesson"].clone()), (json!(0), json!(true)), "whoever it names");
        c.err("import_lesson", &call(&client, "import_lesson", json!({"payload": "hello there"})).await, "Not a devcoach lesson");
        c.err("import_lesson", &call(&client, "import_lesson", json!({"payload": "http://127.0.0.1:9/lesson"})).await, "Only public http(s) URLs");

        // Courses.
        let created = c.ok(
            "create_course",
            &call(&client, "create_course", json!({"title": "Bisecting history", "topic_id": "git", "lesson_id": "git-bisect", "prerequisites": [{"concept": "commits", "known": true}]})).await,
        );
        assert_eq!(created["id"], "bisecting-history");
        assert_eq!(created["seed_context"]["project"], "demo-app");
        let course_id = created["id"].as_str().expect("id").to_owned();
        c.err("create_course", &call(&client, "create_course", json!({"title": "X", "topic_id": "git", "lesson_id": "nope"})).await, "lesson 'nope' not found");
        c.err("add_course_step", &call(&client, "add_course_step", json!({"course_id": course_id, "title": "Why", "kind": "concept", "anchor": "step-1"})).await, "has no document yet");
        let doc = created["document_path"].as_str().expect("path");
        std::fs::write(doc, "<section id=\"step-1\"><pre><code>git bisect run make test</code></pre></section><script data-devcoach=\"highlighter\"></script>").expect("document");
        let added = c.ok("add_course_step", &call(&client, "add_course_step", json!({"course_id": course_id, "title": "Why", "kind": "concept", "anchor": "step-1"})).await);
        assert_eq!(added["step"]["position"], 1);
        let done = c.ok("update_course_progress", &call(&client, "update_course_progress", json!({"course_id": course_id, "position": 1, "status": "done"})).await);
        assert_eq!(done["status"], "completed");
        c.err("update_course_progress", &call(&client, "update_course_progress", json!({"course_id": course_id, "position": 9, "status": "done"})).await, "step 9 not found — call get_courses");
        let listed = c.ok("get_courses", &call(&client, "get_courses", json!({"lesson_id": "git-bisect"})).await);
        assert_eq!(listed["courses"].as_array().map(Vec::len), Some(1));
        c.err("get_courses", &call(&client, "get_courses", json!({"status": "someday"})).await, "invalid arguments");

        // Destructive ones last.
        assert_eq!(c.ok("delete_lesson", &call(&client, "delete_lesson", json!({"lesson_id": "mcp-lesson"})).await)["deleted"], true);
        c.err("delete_lesson", &call(&client, "delete_lesson", json!({"lesson_id": "mcp-lesson"})).await, "not found");
        // Left out, `replace` adds to the demo learner's map: every topic and group stays.
        let before = c.ok("get_profile", &call(&client, "get_profile", json!({})).await);
        let added = c.ok("complete_onboarding", &call(&client, "complete_onboarding", json!({"topics": {"go": 3}})).await);
        let count = |v: &Value, key: &str| v[key].as_array().map_or(0, Vec::len);
        assert_eq!(count(&added, "knowledge"), count(&before, "knowledge") + 1, "{added}");
        assert_eq!(count(&added, "groups"), count(&before, "groups"), "{added}");
        assert_eq!((added["replaced"].as_bool(), added.get("backup")), (Some(false), None));
        let onboarded = c.ok(
            "complete_onboarding",
            &call(&client, "complete_onboarding", json!({"topics": {"rust": 6, "go": 12}, "groups": {"Systems": ["rust", "go", "zig"]}, "replace": true})).await,
        );
        assert_eq!(onboarded["knowledge"], json!([{"topic": "go", "confidence": 10}, {"topic": "rust", "confidence": 6}]));
        assert_eq!(onboarded["groups"], json!([{"name": "Systems", "topics": ["go", "rust"]}]));
        let backup = onboarded["backup"].as_str().expect("a replaced map is backed up");
        assert!(std::path::Path::new(backup).is_file() && backup.contains("before-setup-"), "{onboarded}");
        assert!(onboarded["undo"].as_str().is_some_and(|u| u.ends_with("--profile")), "{onboarded}");
        c.err("complete_onboarding", &call(&client, "complete_onboarding", json!({"topics": {"go": 1}, "replace": "yes"})).await, "invalid arguments");
        c.err("complete_onboarding", &call(&client, "complete_onboarding", json!({"topics": "rust"})).await, "invalid arguments");

        // Practice: the agent coaches and judges; devcoach keeps the gate and the leak guard.
        let started = c.ok("practice_start", &call(&client, "practice_start", json!({"problem": "closest-pair-to-target"})).await);
        let id = started["session_id"].as_str().expect("session id").to_owned();
        assert_eq!(id, "2026-11-30-closest-pair-to-target");
        assert!(started["instructions"].as_str().is_some_and(|i| i.contains("## Hint rungs") && !i.contains("## The client")));
        c.err("practice_start", &call(&client, "practice_start", json!({"problem": "nope"})).await, "no shipped problem");
        let held = c.ok("practice_submit", &call(&client, "practice_submit", json!({"session_id": id, "message": "def f(a, t):\n    return 0"})).await);
        assert_eq!((held["kind"].as_str(), held["held"].as_bool()), (Some("code"), Some(true)));
        c.err("practice_submit", &call(&client, "practice_submit", json!({"session_id": "../../etc", "message": "x"})).await, "not a practice session id");
        let req = c.ok("practice_submit", &call(&client, "practice_submit", json!({"session_id": id, "message": "req: sorted, may repeat"})).await);
        assert!(req["judge_prompt"].as_str().is_some_and(|p| p.contains("<list>\nsorted, may repeat\n</list>")));
        let judged = c.ok(
            "practice_judge",
            &call(&client, "practice_judge", json!({"session_id": id, "verdict_json": "{\"verdict\": \"incomplete\", \"missing\": [\"integer-overflow-risk\", \"use two pointers\"]}"})).await,
        );
        assert_eq!(judged["missing"], json!([{"id": "integer-overflow-risk", "name": "integer overflow risk"}]));
        assert_eq!(judged["code_allowed"], false);
        c.err("practice_judge", &call(&client, "practice_judge", json!({"session_id": id})).await, "no requirement list waiting");
        let draft = c.ok("practice_check_reply", &call(&client, "practice_check_reply", json!({"session_id": id, "draft": "<!-- rung:H2 -->\nTwo pointers, from both ends."})).await);
        assert_eq!(draft["action"], "rewrite");
        let draft = c.ok("practice_check_reply", &call(&client, "practice_check_reply", json!({"session_id": id, "draft": "<!-- rung:H2 -->\nWhat do you know about the largest sums?"})).await);
        assert_eq!((draft["action"].as_str(), draft["rung"].as_u64()), (Some("show"), Some(2)));
        assert_eq!(draft["text"], "What do you know about the largest sums?");
        c.err("practice_check_reply", &call(&client, "practice_check_reply", json!({"session_id": "2026-01-01-gone", "draft": "x"})).await, "no practice session");
        c.ok("practice_reveal", &call(&client, "practice_reveal", json!({"session_id": id})).await);
        c.err("practice_reveal", &call(&client, "practice_reveal", json!({"session_id": "Bad Id"})).await, "not a practice session id");
        let ended = c.ok("practice_end", &call(&client, "practice_end", json!({"session_id": id})).await);
        assert_eq!(ended["result"], "revealed");
        assert_eq!(ended["title"], "Practice: Closest Pair To Target");
        c.err("practice_end", &call(&client, "practice_end", json!({"session_id": id})).await, "has ended");
        let found = c.ok("get_lessons", &call(&client, "get_lessons", json!({"limit": 0, "search": "Closest Pair To Target"})).await);
        assert!(found.to_string().contains(ended["lesson_id"].as_str().expect("id")), "{found}");
        assert!(found.to_string().contains("\"practice\""), "{found}");

        // The learner's own problem: its statement is kept with the session and reaches the judge.
        let own = c.ok(
            "practice_start",
            &call(&client, "practice_start", json!({"statement": "---\ntitle: Lamp Posts\n---\nLight every street with the fewest lamps."})).await,
        );
        let own_id = own["session_id"].as_str().expect("id").to_owned();
        let req = c.ok("practice_submit", &call(&client, "practice_submit", json!({"session_id": own_id, "message": "req: streets may be empty"})).await);
        assert!(req["judge_prompt"].as_str().is_some_and(|p| p.contains("Light every street with the fewest lamps.")), "{req}");
        let judged = c.ok("practice_judge", &call(&client, "practice_judge", json!({"session_id": own_id})).await);
        assert_eq!((judged["verdict"].as_str(), judged["code_allowed"].as_bool()), (Some("unverified"), Some(true)));
        let shown = c.ok("practice_check_reply", &call(&client, "practice_check_reply", json!({"session_id": own_id, "draft": "<!-- rung:H1 -->\nWhich streets need a lamp first?"})).await);
        assert_eq!(shown["action"], "show");
        let ended = c.ok("practice_end", &call(&client, "practice_end", json!({"session_id": own_id})).await);
        assert_eq!(
            (ended["title"].as_str(), ended["result"].as_str()),
            (Some("Practice (unfinished): Lamp Posts"), Some("unfinished")),
            "ended without `solved`: left for later"
        );
        // A session in which the coach never said anything and no code came saves nothing.
        let silent = c.ok(
            "practice_start",
            &call(&client, "practice_start", json!({"statement": "---\ntitle: Quiet Street\n---\nCount the houses."})).await,
        );
        let silent_id = silent["session_id"].as_str().expect("id").to_owned();
        c.ok("practice_submit", &call(&client, "practice_submit", json!({"session_id": silent_id, "message": "req: a street may be empty"})).await);
        let nothing = c.ok("practice_end", &call(&client, "practice_end", json!({"session_id": silent_id})).await);
        assert!(nothing["lesson_id"].is_null() && nothing["title"].is_null(), "{nothing}");

        // Hands-on: the agent runs an exercise on the learner's own repository as the coach.
        let repo = python_repo(&env);
        let folder = repo.to_str().expect("utf-8").to_owned();
        let offered = c.ok("handson_candidates", &call(&client, "handson_candidates", json!({"folder": folder})).await);
        assert_eq!(offered["candidates"][0]["function"], "total", "{offered}");
        assert_eq!(offered["candidates"][0]["tests"], json!(["test_total_with_discount"]));
        c.err("handson_candidates", &call(&client, "handson_candidates", json!({"folder": env.tmp.path().join("nowhere").to_str()})).await, "not an absolute path to a folder");
        c.err("handson_start", &call(&client, "handson_start", json!({"folder": folder, "pick": 9})).await, "pick 9");
        let started = c.ok("handson_start", &call(&client, "handson_start", json!({"folder": folder, "pick": 1})).await);
        let hid = started["session_id"].as_str().expect("id").to_owned();
        let file = started["file"].as_str().expect("file").to_owned();
        assert!(file.starts_with(env.data().to_str().expect("utf-8")) && started["instructions"].as_str().is_some_and(|i| i.contains("Never write the function")), "{started}");
        let kept = c.ok("handson_requirements", &call(&client, "handson_requirements", json!({"session_id": hid, "requirements": ["sums the prices", "takes a discount in percent"]})).await);
        assert_eq!((kept["kept"].as_u64(), kept["tests"].clone()), (Some(2), json!(["test_total_with_discount"])));
        c.err("handson_requirements", &call(&client, "handson_requirements", json!({"session_id": "nope", "requirements": []})).await, "no open hands-on exercise");
        let stub = c.ok("handson_check", &call(&client, "handson_check", json!({"session_id": hid})).await);
        assert_eq!((stub["passed"].as_bool(), stub["failed"].clone()), (Some(false), json!(["test_total_with_discount"])), "{stub}");
        c.err("handson_check", &call(&client, "handson_check", json!({"session_id": "nope"})).await, "no open hands-on exercise");
        let leaky = c.ok("handson_check_reply", &call(&client, "handson_check_reply", json!({"session_id": hid, "draft": "Start with gross = sum(prices) and round it."})).await);
        assert_eq!(leaky["action"], "rewrite", "{leaky}");
        let clean = c.ok("handson_check_reply", &call(&client, "handson_check_reply", json!({"session_id": hid, "draft": "What should an empty list of prices give?"})).await);
        assert_eq!(clean["action"], "show");
        c.err("handson_check_reply", &call(&client, "handson_check_reply", json!({"session_id": "nope", "draft": "x"})).await, "no open hands-on exercise");
        let hint = c.ok("handson_hint", &call(&client, "handson_hint", json!({"session_id": hid})).await);
        assert!(hint["hint"].as_str().is_some_and(|h| h.contains("def total(prices, discount=0):")), "{hint}");
        c.err("handson_hint", &call(&client, "handson_hint", json!({"session_id": "nope"})).await, "no open hands-on exercise");
        let stubbed = std::fs::read_to_string(&file).expect("stubbed");
        std::fs::write(&file, stubbed.replace("raise NotImplementedError(\"devcoach hands-on: rebuild this function\")", "return round(sum(prices) * (100 - discount) / 100, 2)")).expect("rebuilt");
        let passed = c.ok("handson_check", &call(&client, "handson_check", json!({"session_id": hid})).await);
        assert_eq!(passed["passed"], true, "{passed}");
        c.err("handson_reveal", &call(&client, "handson_reveal", json!({"session_id": "nope"})).await, "no open hands-on exercise");
        c.err("handson_finish", &call(&client, "handson_finish", json!({"session_id": "nope"})).await, "no open hands-on exercise");
        let revealed = c.ok("handson_reveal", &call(&client, "handson_reveal", json!({"session_id": hid})).await);
        assert!(revealed["code"].as_str().is_some_and(|code| code.contains("gross = sum(prices)")), "{revealed}");
        let finished = c.ok("handson_finish", &call(&client, "handson_finish", json!({"session_id": hid})).await);
        assert_eq!((finished["result"].as_str(), finished["title"].as_str()), (Some("revealed"), Some("total (hands-on, revealed)")), "{finished}");
        assert!(!std::path::Path::new(&file).exists(), "the worktree is gone");
        assert!(std::fs::read_to_string(repo.join("cart.py")).expect("cart").contains("gross = sum(prices)"), "the learner's copy is untouched");

        let quiet = c.ok("handson_not_now", &call(&client, "handson_not_now", json!({})).await);
        assert!(quiet["quiet_until"].as_str().is_some_and(|t| t.ends_with('Z')), "{quiet}");

        let untested: Vec<&String> = c.tools.iter().filter(|t| !c.called_err.contains(*t)).collect();
        // Tools without arguments that answer on any healthy database.
        let allowed_without_failure: BTreeSet<&str> =
            ["get_briefing", "get_onboarding", "get_profile", "handson_not_now", "open_ui"].into();
        assert!(untested.iter().all(|t| allowed_without_failure.contains(t.as_str())), "no failure path for {untested:?}");
        let not_ok: Vec<&String> = c.tools.iter().filter(|t| !c.called_ok.contains(*t)).collect();
        assert!(not_ok.is_empty(), "no success path for {not_ok:?}");

        // Resources: every listed one reads, none reports an error on a healthy database.
        let resources = client.list_all_resources().await.expect("resources/list");
        assert_eq!(resources.len(), 12);
        for r in &resources {
            let read = client.read_resource(ReadResourceRequestParams::new(r.uri.clone())).await.expect("resources/read");
            let ResourceContents::TextResourceContents { text, mime_type, .. } = &read.contents[0] else { panic!("text") };
            assert_eq!(mime_type.as_deref(), r.mime_type.as_deref(), "{}", r.uri);
            if r.uri != "devcoach://notebook" {
                let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{}: {e}", r.uri));
                assert!(v.get("error").is_none(), "{}: {v}", r.uri);
            }
        }
        let templates = client.list_all_resource_templates().await.expect("templates");
        assert_eq!(templates[0].uri_template, "devcoach://lessons/{lesson_id}");
        let one = client.read_resource(ReadResourceRequestParams::new("devcoach://lessons/git-bisect")).await.expect("read");
        let ResourceContents::TextResourceContents { text, .. } = &one.contents[0] else { panic!("text") };
        assert_eq!(serde_json::from_str::<Value>(text).expect("json")["title"], "Find the breaking commit with bisect");
        let missing = client.read_resource(ReadResourceRequestParams::new("devcoach://lessons/nope")).await.expect("read");
        let ResourceContents::TextResourceContents { text, .. } = &missing.contents[0] else { panic!("text") };
        assert_eq!(serde_json::from_str::<Value>(text).expect("json"), json!({"error": "Lesson 'nope' not found"}));

        // The prompt carries the skill and every reference.
        let prompts = client.list_all_prompts().await.expect("prompts/list");
        assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["devcoach_instructions"]);
        let prompt = client.get_prompt(GetPromptRequestParams::new("devcoach_instructions")).await.expect("prompts/get");
        let body = serde_json::to_string(&prompt.messages).expect("json");
        assert!(body.contains("name: devcoach"));
        for reference in ["calibration.md", "checking.md", "course.md", "onboarding.md", "review.md", "sharing.md"] {
            assert!(body.contains(&format!("<!-- reference: {reference} -->")), "{reference}");
        }
        client.cancel().await.expect("close");
    });
}

#[test]
fn the_surface_keeps_what_the_typescript_build_offered() {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("ts-0.9.5/mcp/tools-list.params.json")).expect("fixture"),
    )
    .expect("json");
    let env = Env::new();
    let tools = runtime().block_on(async {
        let client = connect(&env).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        client.cancel().await.expect("close");
        tools
    });
    let ours: BTreeMap<String, &rmcp::model::Tool> = tools.iter().map(|t| (t.name.to_string(), t)).collect();
    for old in fixture["tools"].as_array().expect("tools") {
        let name = old["name"].as_str().expect("name");
        let tool = ours.get(name).unwrap_or_else(|| panic!("{name} is missing"));
        let annotations = serde_json::to_value(tool.annotations.as_ref().expect("annotations")).expect("json");
        for (hint, value) in old["annotations"].as_object().expect("annotations") {
            assert_eq!(&annotations[hint], value, "{name}: {hint}");
        }
        let schema = Value::Object((*tool.input_schema).clone());
        let old_props = old["inputSchema"]["properties"].as_object().expect("properties");
        let new_props = schema["properties"].as_object().expect("properties");
        for (param, old_def) in old_props {
            let new_def = new_props.get(param).unwrap_or_else(|| panic!("{name}: parameter {param} is missing"));
            let (old_types, new_types) = (types(old_def, old_def), types(&schema, new_def));
            assert!(
                !new_types.is_empty() && old_types.is_subset(&new_types),
                "{name}.{param}: types {old_types:?} ⊄ {new_types:?}"
            );
            assert!(
                new_types.iter().all(|t| t == "null" || old_types.contains(t)),
                "{name}.{param}: no new kinds of value"
            );
            let old_enum = enum_values(old_def, old_def);
            assert!(
                old_enum.is_subset(&enum_values(&schema, new_def)),
                "{name}.{param}: enum {old_enum:?} must still be accepted"
            );
        }
        let required = |s: &Value| -> BTreeSet<String> {
            s["required"]
                .as_array()
                .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                .unwrap_or_default()
        };
        // A call the original accepted is still accepted: nothing new is required (a parameter
        // may become optional, as submit_feedback's feedback did beside explain_back).
        assert!(required(&schema).is_subset(&required(&old["inputSchema"])), "{name}: no new required parameters");
        if old["hasOutputSchema"].as_bool() == Some(true) {
            assert!(tool.output_schema.is_some(), "{name}: the output schema is kept");
        }
    }
}

/// Follows a `$ref` into `$defs`.
fn resolve(root: &Value, def: &Value) -> Value {
    match def.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => root["$defs"][name].clone(),
        None => def.clone(),
    }
}

/// The JSON types a schema accepts, whichever way it spells them (`type` list, `anyOf`, `$ref`).
fn types(root: &Value, def: &Value) -> BTreeSet<String> {
    let def = &resolve(root, def);
    let mut out = BTreeSet::new();
    match &def["type"] {
        Value::String(t) => {
            out.insert(t.clone());
        }
        Value::Array(ts) => out.extend(ts.iter().filter_map(|t| t.as_str().map(str::to_owned))),
        _ => {}
    }
    if let Some(any) = def["anyOf"].as_array() {
        for d in any {
            out.extend(types(root, d));
        }
    }
    if out.contains("integer") && out.contains("number") {
        out.remove("number");
    }
    out
}

fn enum_values(root: &Value, def: &Value) -> BTreeSet<String> {
    let def = &resolve(root, def);
    let mut out: BTreeSet<String> =
        def["enum"].as_array().map(|e| e.iter().map(Value::to_string).collect()).unwrap_or_default();
    if let Some(any) = def["anyOf"].as_array() {
        for d in any {
            out.extend(enum_values(root, d));
        }
    }
    out.remove("null");
    out
}

/// A port nothing listens on right now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// A page from a dashboard on this machine, read with a bare HTTP/1.0 request.
fn http_get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").expect("request");
    let mut out = String::new();
    stream.read_to_string(&mut out).expect("response");
    out
}

/// A Python project whose uncommitted change (the agent's) adds `total` and its test.
fn python_repo(env: &Env) -> std::path::PathBuf {
    let repo = env.tmp.path().join("shop");
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
        "import unittest\nfrom cart import total\n\n\nclass T(unittest.TestCase):\n    def test_total_with_discount(self):\n        self.assertEqual(total([10, 10], discount=10), 18.0)\n",
    )
    .expect("write");
    repo
}
