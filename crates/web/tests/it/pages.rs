//! Knowledge, courses, settings, progress and the read-only mode.

use devcoach_core::course::{CourseId, StepKind};
use devcoach_store::NewCourse;

use crate::{Server, fixtures, now};

fn confidence(s: &Server, topic: &str) -> Option<i64> {
    s.store().profile().expect("profile").knowledge.iter().find(|k| k.topic == topic).map(|k| k.confidence)
}

#[test]
fn the_knowledge_map_and_its_edits() {
    let s = Server::demo();
    let page = s.get("/knowledge").text();
    assert!(
        page.contains("Knowledge map") && page.contains("href=\"/lessons?search=rust\""),
        "topics link to their lessons"
    );
    assert!(page.contains("Next lesson:"), "rate limit state");
    // The demo learner said they knew rust three times and their checked answers disagreed.
    assert!(
        page.contains(">checks: you overrate it</span>")
            && page.contains("title=\"you tend to overrate rust: you said 95%")
    );
    let progress = s.get("/progress").text();
    assert!(
        progress.contains("Your word and your checked answers") && progress.contains("How you work with your agent")
    );
    assert!(progress.contains("You said you knew it") && progress.contains("week of "), "both charts drawn");

    s.post("/knowledge", &[("topic", "htmx"), ("confidence", "3"), ("group", "Languages")]).see_other("/knowledge");
    assert_eq!(confidence(&s, "htmx"), Some(3));
    assert_eq!(s.store().profile().expect("profile").group_of("htmx"), "Languages");
    s.post("/knowledge", &[("topic", "elm"), ("confidence", "not a number")]);
    assert_eq!(confidence(&s, "elm"), Some(5), "an unreadable confidence means 5");
    assert_eq!(s.post("/knowledge", &[("topic", "  ")]).status, 400);

    s.post("/knowledge/htmx", &[("delta", "1")]).see_other("/knowledge");
    assert_eq!(confidence(&s, "htmx"), Some(4));
    assert_eq!(s.post("/knowledge/htmx", &[("delta", "up")]).status, 400);
    s.post("/knowledge/htmx/group", &[("group", "Other")]).see_other("/knowledge");
    assert_eq!(s.store().profile().expect("profile").group_of("htmx"), "Other");
    assert_eq!(s.post("/knowledge/nope/group", &[("group", "Data")]).status, 404);
    s.post("/knowledge/htmx/delete", &[]).see_other("/knowledge");
    assert_eq!(confidence(&s, "htmx"), None);

    s.post("/groups", &[("group_name", "Frontend")]).see_other("/knowledge");
    assert!(s.get("/knowledge").text().contains("Frontend"));
    assert_eq!(s.post("/groups", &[("group_name", "Other")]).status, 400);
    assert_eq!(s.post("/groups", &[("group_name", "")]).status, 400);
    s.post("/groups/Frontend/delete", &[]).see_other("/knowledge");
    assert!(!s.get("/knowledge").text().contains("Frontend"));

    for (path, fields) in [
        ("/knowledge", vec![("topic", "x")]),
        ("/knowledge/rust", vec![("delta", "1")]),
        ("/knowledge/rust/group", vec![("group", "Data")]),
        ("/knowledge/rust/delete", vec![]),
        ("/groups", vec![("group_name", "G")]),
        ("/groups/Data/delete", vec![]),
    ] {
        assert_eq!(s.post_from(path, &fields, "cross-site").status, 403, "{path}");
    }
    assert_eq!(confidence(&s, "rust"), Some(5), "refused edits changed nothing");
}

fn with_course(s: &Server) -> String {
    let mut store = s.store();
    let course = store
        .create_course(
            &NewCourse {
                title: "Ownership in depth".into(),
                topic_id: "rust".into(),
                goal: Some("Read borrow errors without guessing".into()),
                lesson_id: Some("borrow-vs-clone".into()),
                prerequisites: Vec::new(),
            },
            now(),
        )
        .expect("course");
    let id = CourseId::parse(&course.id).expect("id");
    std::fs::write(
        s.data().course_document_path(&id),
        "<!doctype html><title>Ownership</title><section id=\"step-1\">One <pre><code class=\"language-rust\">let a = 1;</code></pre></section>\
         <section id=\"step-2\">Two</section><script data-devcoach=\"highlighter\"></script>",
    )
    .expect("document");
    store.add_course_step(&id, "Moves", StepKind::Concept, "step-1", None, now()).expect("step 1");
    store.add_course_step(&id, "Borrows", StepKind::Practice, "step-2", None, now()).expect("step 2");
    course.id
}

#[test]
fn a_day_past_the_limit_says_so_instead_of_a_fraction() {
    let s = Server::start(|dir| {
        let mut store = devcoach_store::Store::open(dir).expect("store");
        store.seed_demo(now()).expect("demo");
        let limit = store.settings().expect("settings").max_per_day;
        for i in 0..=limit {
            let new = devcoach_core::lesson::NewLesson {
                id: devcoach_core::ids::LessonId::new(format!("asked-{i}")).expect("id"),
                topic_id: "rust".into(),
                categories: vec!["rust".into()],
                title: format!("Asked for {i}"),
                level: devcoach_core::lesson::Level::Mid,
                summary: "One the learner asked for.".into(),
                body: "Body.".into(),
                context: devcoach_core::lesson::LessonContext::default(),
            };
            store.put_lesson(&new.into_lesson(now() - chrono::Duration::minutes(i))).expect("lesson");
        }
    });
    let page = s.get("/knowledge").text();
    assert!(page.contains("today, past the daily"), "{page}");
    assert!(!page.contains("<span class=\"stat-value\">4/3</span>"), "no fraction over 1");
}

#[test]
fn courses_their_document_and_steps() {
    let s = Server::demo();
    assert!(s.get("/courses").text().contains("Cache expiry that never stampedes"), "the demo's course");
    assert!(Server::empty().get("/courses").text().contains("No courses yet."));
    let id = with_course(&s);
    let list = s.get("/courses").text();
    assert!(list.contains("Ownership in depth") && list.contains("0/2"), "{list}");
    let page = s.get(&format!("/courses/{id}")).text();
    assert!(page.contains("id=\"course-frame\"") && page.contains("sandbox=\"allow-scripts allow-forms\""));
    assert!(page.contains(&format!("src=\"/courses/{id}/index.html#step-1\"")), "the first step to do");
    assert!(s.get(&format!("/courses/{id}?step=2")).text().contains("index.html#step-2"));

    let doc = s.get(&format!("/courses/{id}/index.html"));
    assert_eq!(doc.status, 200);
    assert_eq!(
        doc.header("content-security-policy"),
        "sandbox allow-scripts allow-forms; default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; \
         img-src data:; font-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'"
    );
    for (h, v) in [
        ("referrer-policy", "no-referrer"),
        ("x-content-type-options", "nosniff"),
        ("cache-control", "no-cache"),
        ("content-type", "text/html; charset=utf-8"),
    ] {
        assert_eq!(doc.header(h), v, "{h}");
    }
    let body = doc.text();
    assert!(body.contains("devcoach:course") && body.contains("data-embedded"), "the frame script is appended");
    let on_disk =
        std::fs::read_to_string(s.data().course_document_path(&CourseId::parse(&id).expect("id"))).expect("doc");
    assert!(body.starts_with(&on_disk), "the file is served as it is, then the script");
    assert!(!on_disk.contains("devcoach:course"), "serving never changes the file");

    assert_eq!(s.get("/courses/Bad_Id/index.html").status, 404);
    assert_eq!(s.get("/courses/no-such-course/index.html").status, 404);
    assert_eq!(s.get("/courses/no-such-course").status, 404);
    assert!(s.get("/courses/no-such-course").text().contains("<h1>Course not found</h1>"));

    s.post(&format!("/courses/{id}/steps/1"), &[("status", "done"), ("next", &format!("/courses/{id}?step=2"))])
        .see_other(&format!("/courses/{id}?step=2"));
    assert!(s.get("/courses").text().contains("1/2"));
    assert_eq!(s.post(&format!("/courses/{id}/steps/1"), &[("status", "finished")]).status, 400);
    assert_eq!(s.post(&format!("/courses/{id}/steps/9"), &[("status", "done")]).status, 404);
    assert_eq!(s.post_from(&format!("/courses/{id}/steps/2"), &[("status", "done")], "cross-site").status, 403);
    assert!(
        s.get("/lessons/borrow-vs-clone").text().contains("Course: Ownership in depth"),
        "the seed lesson links its course"
    );

    assert_eq!(s.post_from("/courses/delete", &[("id", &id)], "cross-site").status, 403);
    s.post("/courses/delete", &[("id", &id)]).see_other("/courses");
    assert!(!s.get("/courses").text().contains("Ownership in depth"));
}

#[test]
fn settings_backup_restore_and_notebook() {
    let s = Server::demo();
    let page = s.get("/settings").text();
    assert!(page.contains("name=\"max_per_day\"") && page.contains("Coaching notebook"));

    s.post(
        "/settings",
        &[
            ("max_per_day", "5"),
            ("min_gap_minutes", "30"),
            ("nudge_every", "4"),
            ("nudge_scope", "global"),
            ("ui_theme", "dark"),
            ("ui_home", "lessons"),
            ("share_name", "  Ada  "),
        ],
    )
    .see_other("/settings?saved=1");
    let set = s.store().settings().expect("settings");
    assert_eq!(
        (set.max_per_day, set.min_gap_minutes, set.nudge_every, set.share_name.as_deref()),
        (5, 30, 4, Some("Ada"))
    );
    assert!(
        s.get("/lessons").text().contains("<meta name=\"devcoach-theme\" content=\"dark\">"),
        "every page carries the theme"
    );
    let bad = s.post("/settings", &[("max_per_day", "99"), ("nudge_scope", "planet")]);
    assert_eq!(bad.status, 303);
    assert!(bad.header("location").starts_with("/settings?invalid_setting="));
    assert_eq!(s.store().settings().expect("settings").max_per_day, 5, "a refused value is not stored");
    let page = s.get(bad.header("location")).text();
    assert!(
        page.contains("Not saved")
            && page.contains("max_per_day must be between")
            && page.contains("nudge_scope must be"),
        "the rules, in our words"
    );

    let zip = s.get("/settings/export");
    assert_eq!(
        (zip.header("content-type"), zip.header("content-disposition")),
        ("application/zip", "attachment; filename=\"devcoach-backup.zip\"")
    );
    assert!(zip.body.starts_with(b"PK"));

    // The TypeScript devcoach's backup restores into an empty dashboard.
    let fresh = Server::empty();
    let backup = std::fs::read(fixtures().join("ts-0.9.5/devcoach-backup.zip")).expect("fixture");
    let r = fresh.upload("/settings/import", &[("file", Some("devcoach-backup.zip"), &backup)]);
    assert_eq!(r.status, 303);
    let location = r.header("location").to_owned();
    assert!(location.starts_with("/settings?imported=5&skipped=0&invalid=0"), "{location}");
    assert!(fresh.get(&location).text().contains("Imported 5 lessons"));
    assert_eq!(fresh.store().total_lessons().expect("count"), 5);
    let again = fresh.upload("/settings/import", &[("file", Some("devcoach-backup.zip"), &backup)]);
    assert!(again.header("location").starts_with("/settings?imported=0&skipped=5"), "restoring twice adds nothing");
    let junk = fresh.upload("/settings/import", &[("file", Some("x.zip"), b"not a zip")]);
    assert_eq!(junk.header("location"), "/settings?error=backup");
    // Our own backup carries the reviews; over a notebook of one's own, that one is kept aside.
    fresh.data().write_notebook("# Mine\n").expect("notebook");
    let ours = fresh.upload("/settings/import", &[("file", Some("devcoach-backup.zip"), &zip.body)]);
    let location = ours.header("location").to_owned();
    assert!(location.contains("&reviews=10") && location.contains("&kept=learning-state."), "{location}");
    let page = fresh.get(&location).text();
    assert!(
        page.contains("10 reviews") && page.contains("Your previous notebook was kept as learning-state."),
        "{page}"
    );

    s.post("/settings/notebook", &[("content", "# Notes\r\nLikes examples.\r\n")])
        .see_other("/settings?notebook_saved=1");
    assert_eq!(s.post("/settings/notebook", &[("next", "/settings")]).status, 400, "no field is not an empty notebook");
    assert_eq!(s.data().read_notebook().expect("notebook"), "# Notes\nLikes examples.\n");
    assert_eq!(s.data().read_notebook().expect("notebook"), "# Notes\nLikes examples.\n");
    let md = s.get("/settings/notebook/download");
    assert_eq!(md.header("content-disposition"), "attachment; filename=\"devcoach-notebook.md\"");
    assert_eq!(md.text(), "# Notes\nLikes examples.\n");
    assert_eq!(s.post_from("/settings/notebook", &[("content", "x")], "cross-site").status, 403);
    assert_eq!(s.post_from("/settings", &[("max_per_day", "1")], "cross-site").status, 403);
}

#[test]
fn the_progress_page_draws_from_lessons_and_evidence() {
    let s = Server::demo();
    let page = s.get("/progress");
    assert_eq!(page.status, 200);
    let html = page.text();
    // Three drawn charts, the coverage bars as a list, and three of reviews (one square).
    assert_eq!(html.matches("<svg class=\"plot").count(), 6, "three charts, and three of reviews");
    assert!(html.contains("<ol class=\"bars\""), "taught and known, as bars that wrap");
    assert!(
        html.contains("Lessons per week")
            && html.contains("How lessons landed")
            && html.contains("Confidence over time")
            && html.contains("Reviews per day")
    );
    assert!(html.contains("/10 now"), "confidence lines from the evidence log");
    // What each estimate rests on, by kind, not one total that mixes a rating with answers.
    assert!(
        html.contains("<th scope=\"col\">Rests on</th>")
            && html.contains("<td>3\u{a0}checked · 2\u{a0}your\u{a0}word · 1\u{a0}other</td>"),
        "estimates with what they rest on: {html}"
    );
    assert!(
        html.contains("your number ") && !html.contains("you know it "),
        "the bars show the learner's number as theirs"
    );
    assert!(Server::empty().get("/progress").text().contains("Nothing to plot yet."));
}

#[test]
fn a_newer_database_is_shown_but_never_written() {
    let s = Server::demo();
    stamp_newer(&s);
    let page = s.get("/lessons");
    assert_eq!(page.status, 200);
    assert!(page.text().contains("Read-only."), "the banner says why");
    let ping: serde_json::Value = serde_json::from_slice(&s.get("/ping").body).expect("json");
    assert_eq!(ping["compat"]["dbSchema"], 7);
    let bytes = std::fs::read(s.data().db_path()).expect("db");
    for (path, fields) in [
        ("/lessons/redis-ttl-jitter/star", vec![("starred", "1")]),
        ("/knowledge", vec![("topic", "x")]),
        ("/settings", vec![("max_per_day", "3")]),
        ("/settings/notebook", vec![("content", "")]),
    ] {
        let r = s.post(path, &fields);
        assert_eq!(r.status, 503, "{path}");
        assert!(r.text().contains("Read-only database"));
    }
    assert_eq!(std::fs::read(s.data().db_path()).expect("db"), bytes, "the file is untouched");
    assert!(s.data().read_notebook().expect("notebook").contains("Coaching Notebook"), "the notebook is untouched");
}

/// Stamps the database as written by a newer devcoach (schema 7).
fn stamp_newer(s: &Server) {
    let conn = rusqlite::Connection::open(s.data().db_path()).expect("raw connection");
    conn.execute_batch("PRAGMA user_version = 7").expect("stamp");
}

#[test]
fn reviews_one_card_at_a_time_with_settings_and_plots() {
    let empty = Server::empty();
    let page = empty.get("/reviews");
    assert_eq!(page.status, 200);
    assert!(page.text().contains("No lessons yet."));
    assert!(!empty.data().db_path().exists(), "looking never creates the database");

    let s = Server::demo();
    let due = s.store().count_due_reviews(now()).expect("count");
    assert!(due >= 20, "the demo's lessons came with their cards: {due}");
    let html = s.get("/reviews").text();
    assert!(html.contains(&format!("{due} due")) && html.contains("class=\"review-question\""), "{html}");
    assert!(html.contains("Show the answer") && html.contains("value=\"good\""));
    let id = html.split("action=\"/reviews/").nth(1).and_then(|t| t.split("/grade").next()).expect("a card").to_owned();

    assert_eq!(s.post_from(&format!("/reviews/{id}/grade"), &[("grade", "good")], "cross-site").status, 403);
    assert_eq!(s.post(&format!("/reviews/{id}/grade"), &[("grade", "perfect")]).status, 400);
    assert_eq!(s.post("/reviews/no-such-lesson/grade", &[("grade", "good")]).status, 404);
    assert_eq!(s.store().count_due_reviews(now()).expect("count"), due, "refusals change nothing");
    s.post(&format!("/reviews/{id}/grade"), &[("grade", "good")]).see_other("/reviews?graded=good&days=19");
    assert_eq!(s.store().count_due_reviews(now()).expect("count"), due - 1);
    assert!(s.get("/reviews?graded=good&days=19").text().contains("Graded good: back in 19 days."));

    assert_eq!(s.post_from("/reviews/settings", &[("retention", "0.85"), ("mix", "off")], "cross-site").status, 403);
    assert_eq!(s.post("/reviews/settings", &[("retention", "0.5"), ("mix", "off")]).status, 400);
    assert_eq!(s.post("/reviews/settings", &[("retention", "0.85"), ("mix", "sometimes")]).status, 400);
    s.post("/reviews/settings", &[("retention", "0.85"), ("mix", "off")]).see_other("/reviews?saved=1");
    let settings = s.store().review_settings().expect("settings");
    assert_eq!((settings.retention, settings.mix.as_str()), (0.85, "off"));
    assert!(s.get("/reviews?saved=1").text().contains("value=\"0.85\""));

    let progress = s.get("/progress").text();
    assert!(
        progress.contains("Reviews per day") && progress.contains("Coming up"),
        "review plots on the progress page"
    );
    assert!(progress.contains("6 in the last 30 days, 11 in all."), "the demo's ten and this one: {progress}");
    let due_now = s.store().count_due_reviews(now()).expect("count");
    assert!(progress.contains(&format!("{due_now} due now")), "the reviews page's count: {progress}");
    assert!(s.get("/reviews").text().contains(&format!("{due_now} due</span>")));
}

#[test]
fn the_models_estimate_stands_beside_the_learners_number() {
    let s = Server::demo();
    let estimates = s.store().topic_estimates(now()).expect("estimates");
    let differs = estimates
        .iter()
        .find(|e| confidence(&s, &e.topic).is_some_and(|c| c != e.confidence_now))
        .expect("the demo has a topic the model reads differently");
    let mine = confidence(&s, &differs.topic).expect("on the map");
    let knowledge = s.get("/knowledge").text();
    assert!(
        knowledge.contains(&format!("model’s estimate {}/10</span>", differs.confidence_now)),
        "labelled as the model's"
    );
    assert!(
        knowledge.contains(r#"id="estimate-note""#) && knowledge.contains("allowing for forgetting"),
        "and said what it is, on the page"
    );
    assert!(knowledge.contains(&format!("{mine}/10</span>")), "the learner's own number stays in its column");
    let progress = s.get("/progress").text();
    assert!(progress.contains("Your number and the model's estimate"));
    assert!(
        progress.contains(&format!(
            "<td>{}</td><td class=\"num\">{mine}/10</td><td class=\"num\">{}/10</td>",
            differs.topic, differs.confidence_now
        )),
        "both numbers on the progress page"
    );
}

#[test]
fn the_settings_page_shows_sync_and_syncs_now() {
    let off = Server::demo();
    assert!(off.get("/settings").text().contains("devcoach sync init"), "off: says how to set it up");

    let s = Server::demo();
    let folder = s.tmp.path().join("shared");
    {
        let mut store = s.store();
        devcoach_sync::init(&mut store, &s.data(), &folder.to_string_lossy(), &devcoach_sync::InitOptions::default())
            .expect("init");
    }
    let page = s.get("/settings").text();
    assert!(page.contains("This device:") && page.contains("Sync now"), "{page}");
    let r = s.post("/settings/sync", &[]);
    assert_eq!(r.status, 303);
    assert!(r.header("location").starts_with("/settings?synced="), "{}", r.header("location"));
    assert!(s.get(r.header("location")).text().contains("Synced: sent"));
    assert!(folder.join("devcoach-sync.json").exists());

    // The folder gone: the sync fails, says so, and changes nothing.
    std::fs::rename(&folder, s.tmp.path().join("moved")).expect("move");
    let r = s.post("/settings/sync", &[]);
    assert_eq!(r.header("location"), "/settings?sync_failed=1");
    let page = s.get("/settings?sync_failed=1").text();
    assert!(page.contains("Last sync failed") && page.contains("devcoach-sync.json"), "{page}");
}

#[test]
fn the_progress_page_sums_the_hands_on_exercises() {
    use devcoach_core::handson::HandsOn;
    use devcoach_core::knowledge_model::PracticeResult;
    use devcoach_core::lesson::{LessonContext, Level, NewLesson};
    let s = Server::start(|dir| {
        let mut store = devcoach_store::Store::open(dir).expect("store");
        for (id, result, hints) in [
            ("total", Some(PracticeResult::Alone), 1),
            ("parse", Some(PracticeResult::Revealed), 4),
            ("split", None, 0),
        ] {
            let card = NewLesson {
                id: devcoach_core::ids::LessonId::new(id.to_owned()).expect("id"),
                topic_id: "python".into(),
                categories: vec!["practice".into()],
                title: format!("{id}, rebuilt (hands-on)"),
                level: Level::Mid,
                summary: "You rebuilt it.".into(),
                body: "Body.".into(),
                context: LessonContext::default(),
            };
            let went = HandsOn {
                language: "python".into(),
                result,
                checks: 2,
                hints,
                revealed: result == Some(PracticeResult::Revealed),
                passed: result == Some(PracticeResult::Alone),
            };
            store.record_handson(card, "python", &went, now() - chrono::Duration::hours(1)).expect("saved");
        }
    });
    let html = s.get("/progress").text();
    let figure = |value: &str, label: &str| {
        html.contains(&format!("<span class=\"stat-value\">{value}</span><span class=\"muted\">{label}</span>"))
    };
    assert!(html.contains("id=\"handson-title\">Hands-on</h2>"), "{html}");
    assert!(figure("3", "exercises") && figure("1", "passed unaided") && figure("0", "passed with hints"), "{html}");
    assert!(figure("1", "revealed") && figure("5", "hints used"), "{html}");
    // No exercise, no section.
    assert!(!Server::demo().get("/progress").text().contains("handson-title"));
}
