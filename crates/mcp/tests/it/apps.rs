//! The cards (MCP Apps) and the feedback form (elicitation), over the protocol: an rmcp client
//! that declares what a host declares, connected to the server through an in-process pipe.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use devcoach_mcp::{APP_MIME, APPS_EXTENSION, LESSON_URI, REVIEW_URI};
use devcoach_store::{DataDir, Store};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::Demo;

#[derive(Clone, Copy)]
enum Reply {
    Accept,
    AcceptWithout,
    Decline,
    Cancel,
    /// The host answers the form request with an error.
    Fail,
}

/// A host: what it declares at `initialize`, and how its learner answers a form.
#[derive(Clone)]
struct Host {
    apps: bool,
    form: bool,
    reply: Reply,
    asked: Arc<AtomicUsize>,
    last_form: Arc<std::sync::Mutex<Value>>,
}

impl Host {
    fn new(apps: bool, form: bool, reply: Reply) -> Self {
        Self { apps, form, reply, asked: Arc::default(), last_form: Arc::default() }
    }
}

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = json!({});
        if self.apps {
            capabilities["extensions"] = json!({ APPS_EXTENSION: { "mimeTypes": [APP_MIME] } });
        }
        if self.form {
            capabilities["elicitation"] = json!({ "form": {} });
        }
        serde_json::from_value(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": capabilities,
            "clientInfo": { "name": "test-host", "version": "1" }
        }))
        .expect("client info")
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        *self.last_form.lock().expect("lock") = serde_json::to_value(&request).expect("form");
        Ok(match self.reply {
            Reply::Accept => ElicitResult::new(ElicitationAction::Accept).with_content(
                json!({"answer": "know", "explanation": "  The planner skips an index that keeps most rows.  "}),
            ),
            Reply::AcceptWithout => {
                ElicitResult::new(ElicitationAction::Accept).with_content(json!({"answer": "maybe"}))
            }
            Reply::Decline => ElicitResult::new(ElicitationAction::Decline),
            Reply::Cancel => ElicitResult::new(ElicitationAction::Cancel),
            Reply::Fail => return Err(ErrorData::internal_error("the form could not be shown", None)),
        })
    }
}

async fn connect(demo: &Demo, host: Host) -> RunningService<RoleClient, Host> {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    let server = demo.server.clone();
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_side)).await {
            let _ = running.waiting().await;
        }
    });
    host.serve(tokio::io::split(client_side)).await.expect("initialize")
}

async fn call(client: &RunningService<RoleClient, Host>, name: &str, args: Value) -> Value {
    let Value::Object(args) = args else { panic!("arguments are an object") };
    let result = client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::to_value(result).expect("json")
}

fn lesson(id: &str) -> Value {
    json!({
        "id": id, "topic_id": "postgresql", "categories": ["Databases"], "title": format!("Lesson {id}"),
        "level": "mid", "summary": "A summary.", "body": "Why **indexes** help.\n\n```sql\nSELECT 1;\n```"
    })
}

fn stored_feedback(demo: &Demo, id: &str) -> Option<String> {
    let store = Store::open(&DataDir::new(demo.tmp.path().join("data"))).expect("store");
    store.lesson(id).expect("read").expect("lesson").feedback.map(|f| f.as_str().to_owned())
}

fn tool<'a>(tools: &'a [rmcp::model::Tool], name: &str) -> &'a rmcp::model::Tool {
    tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no {name}"))
}

fn ui_meta(tool: &rmcp::model::Tool) -> Value {
    serde_json::to_value(&tool.meta).expect("meta")["ui"].clone()
}

#[tokio::test]
async fn a_host_that_declares_apps_gets_the_cards_and_the_frame_records_through_them() {
    let demo = Demo::new();
    let client = connect(&demo, Host::new(true, true, Reply::Accept)).await;
    let info = serde_json::to_value(client.peer_info().expect("server info")).expect("json");
    assert_eq!(info["capabilities"]["extensions"][APPS_EXTENSION]["mimeTypes"], json!([APP_MIME]));

    let tools = client.list_all_tools().await.expect("tools");
    assert_eq!(ui_meta(tool(&tools, "log_lesson"))["resourceUri"], LESSON_URI);
    let log_meta = serde_json::to_value(&tool(&tools, "log_lesson").meta).expect("meta");
    assert_eq!(log_meta["ui/resourceUri"], LESSON_URI, "the older flat key too");
    assert_eq!(ui_meta(tool(&tools, "get_due_reviews"))["resourceUri"], REVIEW_URI);
    assert_eq!(ui_meta(tool(&tools, "show_lesson"))["resourceUri"], LESSON_URI, "the lookup the learner asks for");
    // The frame may call only its own four tools; the model none of them.
    let frame_callable: Vec<&str> = tools
        .iter()
        .filter(|t| ui_meta(t)["visibility"].as_array().is_some_and(|v| v.contains(&json!("app"))))
        .map(|t| t.name.as_ref())
        .collect();
    assert_eq!(frame_callable, ["lesson_card", "lesson_card_answer", "review_answer", "review_card_grade"]);
    for t in &tools {
        let expected = if frame_callable.contains(&t.name.as_ref()) { json!(["app"]) } else { json!(["model"]) };
        assert_eq!(ui_meta(t)["visibility"], expected, "{}", t.name);
    }

    let resources = client.list_all_resources().await.expect("resources");
    for uri in [LESSON_URI, REVIEW_URI] {
        let listed = resources.iter().find(|r| r.uri == uri).unwrap_or_else(|| panic!("{uri} listed"));
        assert_eq!(listed.mime_type.as_deref(), Some(APP_MIME));
        let read = client.read_resource(ReadResourceRequestParams::new(uri)).await.expect("read");
        let [ResourceContents::TextResourceContents { mime_type, text, meta, .. }] = read.contents.as_slice() else {
            panic!("one text content for {uri}");
        };
        assert_eq!(mime_type.as_deref(), Some(APP_MIME));
        assert!(text.starts_with("<!doctype html>") && text.contains("<script>"), "{uri}");
        let meta = serde_json::to_value(meta).expect("meta");
        assert_eq!(meta["ui"]["csp"]["connectDomains"], json!([]), "no network for {uri}");
    }

    // log_lesson tells the model the host shows the card, and carries what the card needs.
    let logged = call(&client, "log_lesson", lesson("card-one")).await;
    let out = &logged["structuredContent"];
    assert_eq!(out["feedback_by"], "card");
    assert_eq!(out["id"], "card-one");
    assert!(out["reply_check"].as_str().unwrap_or_default().contains("Do not write the card"), "{out}");
    // Asked to see a lesson again: the same card, from its lookup.
    let shown = call(&client, "show_lesson", json!({"lesson_id": "sqlite-busy-timeout"})).await;
    assert_eq!(shown["structuredContent"]["id"], "sqlite-busy-timeout", "{shown}");
    assert!(shown["structuredContent"]["reply_check"].as_str().unwrap_or_default().contains("card"), "{shown}");
    let missing = call(&client, "show_lesson", json!({"lesson_id": "no-such-lesson"})).await;
    assert_eq!(missing["isError"], true);
    let card = call(&client, "lesson_card", json!({"lesson_id": "card-one"})).await;
    let card = &card["structuredContent"];
    assert_eq!(card["title"], "Lesson card-one");
    assert!(card["body_html"].as_str().unwrap_or_default().contains("<strong>indexes</strong>"), "{card}");
    assert_eq!(card["feedback"], Value::Null);

    // The frame's answer button: recorded through submit_feedback's own path.
    let recorded =
        call(&client, "lesson_card_answer", json!({"lesson_id": "card-one", "feedback": "understood"})).await;
    assert_eq!(recorded["structuredContent"]["feedback"], "understood");
    assert_eq!(stored_feedback(&demo, "card-one").as_deref(), Some("understood"));
    // Only the three answers: no clearing, and no explain-back with a grade the frame chose.
    for value in ["maybe", "clear"] {
        let refused = call(&client, "lesson_card_answer", json!({"lesson_id": "card-one", "feedback": value})).await;
        assert_eq!(refused["isError"], true, "{value}: {refused}");
    }
    let forged = call(
        &client,
        "lesson_card_answer",
        json!({"lesson_id": "card-one", "feedback": "know", "explain_back": {"answer": "x", "grade": "correct"}}),
    )
    .await;
    assert!(forged["structuredContent"].get("explain_back").is_none(), "no explain-back from the card: {forged}");
    assert_eq!(stored_feedback(&demo, "card-one").as_deref(), Some("know"), "only its answer was recorded");
    // With the card on screen no form is asked, even though this host has forms.
    call(&client, "log_lesson", lesson("card-two")).await;
    let bare = call(&client, "submit_feedback", json!({"lesson_id": "card-two"})).await;
    assert_eq!(bare["isError"], true);
    assert_eq!(client.service().asked.load(Ordering::SeqCst), 0);

    // The review card: the queue without answers; the answer only for a due card, on request.
    let due = call(&client, "get_due_reviews", json!({"limit": 3})).await;
    let due = &due["structuredContent"];
    assert!(due["reply_check"].as_str().unwrap_or_default().contains("review card"), "{due}");
    let first = due["cards"][0].clone();
    assert!(first.get("answer").is_none(), "the queue holds no answers: {first}");
    let id = first["lesson_id"].as_str().expect("a due card").to_owned();
    let answer = call(&client, "review_answer", json!({"lesson_id": id})).await;
    assert!(!answer["structuredContent"]["answer"].as_str().unwrap_or_default().is_empty(), "{answer}");
    let graded = call(&client, "review_card_grade", json!({"lesson_id": id, "grade": "good"})).await;
    assert!(graded["structuredContent"]["next_review_in_days"].as_u64().unwrap_or(0) >= 1, "{graded}");
    assert_eq!(graded["structuredContent"]["checked"], false, "the card's grade is a self-grade");
    let again = call(&client, "review_answer", json!({"lesson_id": id})).await;
    assert_eq!(again["isError"], true, "once graded the card is not due, and its answer is not handed out: {again}");
    let regrade = call(&client, "review_card_grade", json!({"lesson_id": id, "grade": "easy"})).await;
    assert_eq!(regrade["isError"], true, "nor graded again from the card: {regrade}");
    client.cancel().await.expect("close");
}

/// The tools devcoach listed before the cards (0bc9a9e): a client without them still sees these.
const BEFORE_THE_CARDS: [&str; 43] = [
    "log_lesson",
    "update_knowledge",
    "get_lessons",
    "star_lesson",
    "delete_lesson",
    "submit_feedback",
    "skip_lesson",
    "add_topic",
    "remove_topic",
    "add_group",
    "remove_group",
    "update_settings",
    "open_ui",
    "stop_ui",
    "complete_onboarding",
    "preview_deep_scan",
    "get_briefing",
    "get_onboarding",
    "get_profile",
    "share_lesson",
    "import_lesson",
    "create_course",
    "add_course_step",
    "update_course_progress",
    "get_courses",
    "get_due_reviews",
    "grade_review",
    "add_review_card",
    "practice_start",
    "practice_submit",
    "practice_judge",
    "practice_check_reply",
    "practice_reveal",
    "practice_end",
    "handson_not_now",
    "handson_candidates",
    "handson_start",
    "handson_requirements",
    "handson_check",
    "handson_check_reply",
    "handson_hint",
    "handson_reveal",
    "handson_finish",
];

#[tokio::test]
async fn a_host_without_apps_sees_devcoach_as_before() {
    let demo = Demo::new();
    let client = connect(&demo, Host::new(false, false, Reply::Accept)).await;
    let tools = client.list_all_tools().await.expect("tools");
    assert!(tools.iter().all(|t| t.meta.is_none()), "no _meta.ui for a host that shows no cards");
    // Exactly the tools such a client saw before the cards existed, in the same order.
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, BEFORE_THE_CARDS);
    let resources = client.list_all_resources().await.expect("resources");
    assert!(resources.iter().all(|r| !r.uri.starts_with("ui://")));
    for frame_only in ["show_lesson", "lesson_card", "lesson_card_answer", "review_answer", "review_card_grade"] {
        let args = json!({"lesson_id": "borrow-vs-clone", "feedback": "know", "grade": "easy"});
        let refused = client
            .call_tool(
                CallToolRequestParams::new(frame_only).with_arguments(args.as_object().cloned().unwrap_or_default()),
            )
            .await;
        assert!(refused.is_err(), "{frame_only} does not exist for this client");
    }

    let logged = call(&client, "log_lesson", lesson("plain")).await;
    assert_eq!(logged["structuredContent"]["feedback_by"], "text");
    assert!(logged["structuredContent"]["reply_check"].as_str().unwrap_or_default().contains("write it now"));
    let bare = call(&client, "submit_feedback", json!({"lesson_id": "plain"})).await;
    assert_eq!(bare["isError"], true, "without forms a bare call says what is missing");
    let due = call(&client, "get_due_reviews", json!({})).await;
    assert!(due["structuredContent"].get("reply_check").is_none());
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_form_asks_once_per_lesson_and_records_only_an_answer() {
    let demo = Demo::new();
    // Accepted: recorded through the tool's own path; the explanation goes back to be graded.
    let host = Host::new(false, true, Reply::Accept);
    let client = connect(&demo, host.clone()).await;
    let logged = call(&client, "log_lesson", lesson("formed")).await;
    assert_eq!(logged["structuredContent"]["feedback_by"], "form");
    let answered = call(&client, "submit_feedback", json!({"lesson_id": "formed"})).await;
    let out = &answered["structuredContent"];
    assert_eq!(out["form"], "answered", "{answered}");
    assert_eq!(out["feedback"], "know");
    assert_eq!(out["delta"], 1, "knew it: the topic rises one step");
    assert_eq!(out["explanation_to_grade"], "The planner skips an index that keeps most rows.");
    assert_eq!(stored_feedback(&demo, "formed").as_deref(), Some("know"));
    let form = host.last_form.lock().expect("lock").clone();
    assert_eq!(form["requestedSchema"]["required"], json!(["answer"]));
    assert!(form["message"].as_str().unwrap_or_default().contains("Lesson formed"));
    // Answered: a second bare call is the usual error, and no second form.
    let twice = call(&client, "submit_feedback", json!({"lesson_id": "formed"})).await;
    assert_eq!(twice["isError"], true);
    assert_eq!(host.asked.load(Ordering::SeqCst), 1);
    client.cancel().await.expect("close");

    for (reply, word) in [
        (Reply::Decline, "declined"),
        (Reply::Cancel, "cancelled"),
        (Reply::AcceptWithout, "cancelled"),
        (Reply::Fail, "cancelled"),
    ] {
        let host = Host::new(false, true, reply);
        let client = connect(&demo, host.clone()).await;
        let id = format!("left-{word}-{}", host.asked.load(Ordering::SeqCst));
        let id = match reply {
            Reply::AcceptWithout => format!("{id}-bad"),
            Reply::Fail => format!("{id}-failed"),
            _ => id,
        };
        call(&client, "log_lesson", lesson(&id)).await;
        let out = call(&client, "submit_feedback", json!({"lesson_id": id})).await;
        assert_ne!(out["isError"], true, "{out}");
        assert_eq!(out["structuredContent"]["form"], word, "{out}");
        assert_eq!(out["structuredContent"]["feedback"], Value::Null);
        assert_eq!(out["structuredContent"]["delta"], 0);
        assert_eq!(stored_feedback(&demo, &id), None, "nothing recorded after {word}");
        let again = call(&client, "submit_feedback", json!({"lesson_id": id})).await;
        assert_eq!(again["isError"], true);
        assert!(Demo::text(&again).contains("already asked"), "{again}");
        assert_eq!(host.asked.load(Ordering::SeqCst), 1, "never twice");
        // The feedback line still works afterwards.
        let typed = call(&client, "submit_feedback", json!({"lesson_id": id, "feedback": "dont_know"})).await;
        assert_eq!(typed["structuredContent"]["feedback"], "dont_know");
        client.cancel().await.expect("close");
    }

    // A lesson that already has an answer is never asked about.
    let host = Host::new(false, true, Reply::Accept);
    let client = connect(&demo, host.clone()).await;
    let out = call(&client, "submit_feedback", json!({"lesson_id": "sqlite-busy-timeout"})).await;
    assert_eq!(host.asked.load(Ordering::SeqCst), 0, "{out}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn two_bare_calls_at_once_ask_once() {
    let demo = Demo::new();
    let host = Host::new(false, true, Reply::Accept);
    let client = connect(&demo, host.clone()).await;
    call(&client, "log_lesson", lesson("together")).await;
    let (a, b) = tokio::join!(
        call(&client, "submit_feedback", json!({"lesson_id": "together"})),
        call(&client, "submit_feedback", json!({"lesson_id": "together"})),
    );
    assert_eq!(host.asked.load(Ordering::SeqCst), 1, "{a}\n{b}");
    let answered = [&a, &b].iter().filter(|r| r["structuredContent"]["form"] == "answered").count();
    assert_eq!(answered, 1, "{a}\n{b}");
    assert!([&a, &b].iter().any(|r| r["isError"] == true), "the other call asked nothing: {a}\n{b}");
    assert_eq!(stored_feedback(&demo, "together").as_deref(), Some("know"));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn an_old_lesson_is_not_asked_about() {
    // The form is for the turn after the card: a lesson from a week ago (a restarted server forgets
    // whom it asked) gets the usual error, and no form.
    let demo = Demo::new();
    let host = Host::new(false, true, Reply::Accept);
    let client = connect(&demo, host.clone()).await;
    let out = call(&client, "submit_feedback", json!({"lesson_id": "redis-ttl-jitter"})).await;
    assert_eq!(out["isError"], true, "{out}");
    assert_eq!(host.asked.load(Ordering::SeqCst), 0);
    assert_eq!(stored_feedback(&demo, "redis-ttl-jitter"), None);
    client.cancel().await.expect("close");
}
