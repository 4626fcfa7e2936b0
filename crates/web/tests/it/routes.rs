//! Every route's status, headers, redirects, guard and 404s; the lesson routes in depth.

use devcoach_core::query::LessonQuery;
use serde_json::Value;

use crate::{Server, enc, fixtures, now};

fn share_code() -> String {
    let v: Value =
        serde_json::from_slice(&std::fs::read(fixtures().join("share/share-codes-public.json")).expect("fixture"))
            .expect("json");
    v[0]["code"].as_str().expect("code").to_owned()
}

#[test]
fn static_files_ping_and_shutdown() {
    let s = Server::empty();
    let css = s.get("/static/app.css");
    assert_eq!(
        (css.status, css.header("content-type"), css.header("cache-control")),
        (200, "text/css; charset=utf-8", "no-cache")
    );
    assert_eq!(s.get("/static/vendor/highlight.min.js").header("content-type"), "text/javascript; charset=utf-8");
    let icon = s.get("/favicon.ico");
    assert_eq!((icon.status, icon.header("content-type")), (200, "image/svg+xml"));
    for bad in [
        "/static/nope.css",
        "/static/../Cargo.toml",
        "/static/%2e%2e/%2e%2e/Cargo.toml",
        "/static/vendor/../../../../etc/passwd",
    ] {
        assert_eq!(s.get(bad).status, 404, "{bad}");
    }

    let ping = s.get_with("/ping", &[("origin", "https://ultimaphoenix.github.io")]);
    assert_eq!(ping.status, 200);
    let body: Value = serde_json::from_slice(&ping.body).expect("json");
    assert_eq!(
        (body["ok"].as_bool(), body["version"].as_str(), body["compat"].is_null()),
        (Some(true), Some("9.9.9-test"), true)
    );
    for (name, value) in [
        ("access-control-allow-origin", "https://ultimaphoenix.github.io"),
        ("access-control-allow-methods", "GET, OPTIONS"),
        ("access-control-allow-private-network", "true"),
        ("cache-control", "no-store"),
        ("vary", "Origin"),
    ] {
        assert_eq!(ping.header(name), value, "{name}");
    }
    let pre = s.options("/ping");
    assert_eq!((pre.status, pre.header("access-control-allow-private-network")), (204, "true"));
    // Each share page may ask (this project's, the original's, the configured one), one origin
    // per answer; any other site is told nothing it could read.
    let allowed =
        |origin: &str| s.get_with("/ping", &[("origin", origin)]).header("access-control-allow-origin").to_owned();
    assert_eq!(allowed("https://devcoach-rs.github.io"), "https://devcoach-rs.github.io");
    assert_eq!(allowed("https://evil.example"), "");
    assert_eq!(allowed("https://lessons.example.org"), "", "not configured yet");
    assert_eq!(s.get("/ping").header("access-control-allow-origin"), "", "no Origin, no grant");
    // No other route answers cross-origin reads.
    assert_eq!(s.get("/lessons").header("access-control-allow-origin"), "");
    assert!(!s.data().db_path().exists(), "reading never creates the database");

    assert_eq!(s.get("/shutdown").status, 405);
    assert_eq!(s.post_from("/shutdown", &[], "cross-site").status, 403);
    let bye = s.post("/shutdown", &[]);
    assert_eq!((bye.status, bye.text()), (200, r#"{"ok":true}"#.to_owned()));
    std::thread::sleep(std::time::Duration::from_millis(400));
    let gone = ureq::get(&format!("{}/ping", s.base)).call();
    assert!(gone.is_err(), "the server stopped after POST /shutdown");
}

#[test]
fn home_redirects_by_setting_and_content() {
    let empty = Server::empty();
    let r = empty.get("/");
    assert_eq!((r.status, r.header("location")), (302, "/knowledge"));
    let demo = Server::demo();
    assert_eq!(demo.get("/").header("location"), "/lessons");
    demo.post("/settings", &[("ui_home", "knowledge")]).see_other("/settings?saved=1");
    assert_eq!(demo.get("/").header("location"), "/knowledge");
    // An unknown address gets the dashboard's own page (styled, with the nav), not bare text.
    let missing = demo.get("/no/such/page");
    assert_eq!(missing.status, 404);
    let page = missing.text();
    assert!(
        page.contains("Page not found") && page.contains("aria-label=\"Main\"") && page.contains("/static/app.css"),
        "{page}"
    );
}

#[test]
fn the_lessons_list_filters_sorts_and_pages() {
    let s = Server::demo();
    let page = s.get("/lessons");
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains("Lessons <span class=\"muted count\">30</span>"), "count");
    assert!(html.contains("1–25 of 30 · page 1 of 2"), "paged by 25");
    assert!(html.contains("href=\"/lessons?page=2\""), "next page link");
    let p2 = s.get("/lessons?page=2").text();
    assert!(p2.contains("26–30 of 30 · page 2 of 2"));
    assert!(s.get("/lessons?page=99").text().contains("page 2 of 2"), "a page past the end is clamped");
    assert!(s.get("/lessons?page=abc").text().contains("page 1 of 2"));

    // Multi-word search: every word must match somewhere.
    let found = s.get("/lessons?search=jitter%20expiry").text();
    assert!(found.contains("Add jitter to cache expiry") && found.contains("of 1 ·"), "{found}");
    assert!(found.contains("“jitter expiry”"), "a chip names the search");
    let none = s.get("/lessons?search=jitter%20zebra").text();
    assert!(none.contains("No lesson matches these filters."));

    let expect_count = |query: &str, q: LessonQuery| {
        let n = s.store().count_lessons(&q, now()).expect("count");
        let html = s.get(&format!("/lessons?{query}")).text();
        if n == 0 {
            assert!(html.contains("No lesson matches"), "{query}");
        } else {
            assert!(html.contains(&format!(" of {n} · page")), "{query}: expected {n}");
        }
    };
    expect_count("starred=1", LessonQuery { starred: Some(true), ..LessonQuery::default() });
    expect_count("imported=1", LessonQuery { imported: Some(true), ..LessonQuery::default() });
    expect_count("imported=0", LessonQuery { imported: Some(false), ..LessonQuery::default() });
    expect_count(
        "level=senior",
        LessonQuery { level: Some(devcoach_core::lesson::Level::Senior), ..LessonQuery::default() },
    );
    expect_count(
        "period=week",
        LessonQuery { period: Some(devcoach_core::time::Period::Week), ..LessonQuery::default() },
    );
    expect_count(
        "feedback=none",
        LessonQuery { feedback: Some(devcoach_core::query::FeedbackFilter::Missing), ..LessonQuery::default() },
    );
    expect_count("shared_by=Grace", LessonQuery { shared_by: Some("Grace".into()), ..LessonQuery::default() });
    let mut ranged = LessonQuery::default();
    ranged.dates.set_from("2026-11-20").expect("date");
    ranged.dates.set_to("2026-11-25").expect("date");
    expect_count("date_from=2026-11-20&date_to=2026-11-25", ranged);

    // Sorting: the column link flips the order; unknown values fall back to time.
    let asc = s.get("/lessons?sort=title&order=asc").text();
    let titles: Vec<&str> = asc
        .split("class=\"title\" href=\"")
        .skip(1)
        .map(|t| t.split('>').nth(1).unwrap_or("").split('<').next().unwrap_or(""))
        .collect();
    let mut sorted = titles.clone();
    sorted.sort_unstable();
    assert_eq!(titles, sorted, "sorted by title");
    let amp = |url: &str| url.replace('&', "&#38;");
    assert!(asc.contains(&amp("href=\"/lessons?sort=title&order=desc\"")), "clicking the sorted column flips it");
    assert_eq!(s.get("/lessons?sort=evil;drop&order=sideways").status, 200);

    // Chips remove one filter and keep the others.
    let both = s.get("/lessons?starred=1&level=mid").text();
    assert!(both.contains("href=\"/lessons?starred=1\""), "removing level keeps starred");
    assert!(both.contains("href=\"/lessons?level=mid\""), "removing starred keeps level");

    let fresh = Server::empty();
    assert!(fresh.get("/lessons").text().contains("No lessons yet."));
    assert!(!fresh.data().db_path().exists());
}

#[test]
fn a_lesson_page_and_404() {
    let s = Server::demo();
    assert!(!s.get("/lessons/redis-ttl-jitter").text().contains("aria-pressed=\"true\""), "no answer yet");
    s.store()
        .record_feedback(
            "redis-ttl-jitter",
            devcoach_core::feedback::FeedbackChoice(Some(devcoach_core::lesson::Feedback::Understood)),
            now(),
        )
        .expect("feedback");
    let page = s.get("/lessons/redis-ttl-jitter");
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains("<h1>Add jitter to cache expiry</h1>"));
    assert!(html.contains("class=\"markdown\""));
    assert!(html.contains("aria-pressed=\"true\""), "the recorded feedback is shown pressed");
    let missing = s.get("/lessons/no-such-lesson");
    assert_eq!(missing.status, 404);
    assert!(missing.text().contains("<h1>Lesson not found</h1>"));
    assert!(s.get("/lessons/redis-ttl-jitter?imported=dup").text().contains("You already had this lesson"));
    assert!(s.get("/lessons/redis-ttl-jitter?share=1").text().contains("id=\"share\" open"));

    // A GitHub commit becomes a link; hostile markdown stays inert.
    let mut store = s.store();
    let mut l = store.lesson("redis-ttl-jitter").expect("read").expect("lesson");
    l.id = "hostile".into();
    l.context.git.repository = Some("octo/app".into());
    l.context.git.repository_platform = Some(devcoach_core::lesson::Platform::Github);
    l.context.git.commit_hash = Some("0123456789abcdef0123456789abcdef01234567".into());
    l.body = Some("<script>alert(1)</script>\n\n[x](javascript:alert(1)) ![t](https://tracker.example/p.gif)".into());
    store.put_lesson(&l).expect("put");
    let html = s.get("/lessons/hostile").text();
    assert!(html.contains("href=\"https://github.com/octo/app/commit/0123456789abcdef0123456789abcdef01234567\""));
    assert!(!html.contains("<script>alert") && html.contains("&lt;script&gt;"));
    assert!(!html.contains("href=\"javascript") && !html.contains("<img"), "{html}");
}

#[test]
fn star_feedback_and_delete() {
    let s = Server::demo();
    let id = "redis-ttl-jitter";
    s.post(&format!("/lessons/{id}/star"), &[("starred", "1"), ("next", "/lessons?page=2")])
        .see_other("/lessons?page=2");
    assert!(s.store().lesson(id).expect("read").expect("lesson").starred);
    s.post(&format!("/lessons/{id}/star"), &[("starred", "0"), ("next", "//evil.example/x")]).see_other("/lessons");
    assert!(!s.store().lesson(id).expect("read").expect("lesson").starred);
    assert_eq!(s.post_from(&format!("/lessons/{id}/star"), &[("starred", "1")], "cross-site").status, 403);
    assert!(!s.store().lesson(id).expect("read").expect("lesson").starred, "refused means unchanged");
    assert_eq!(s.post("/lessons/nope/star", &[("starred", "1")]).status, 404);

    s.post(&format!("/lessons/{id}/feedback"), &[("feedback", "dont_know"), ("next", &format!("/lessons/{id}"))])
        .see_other(&format!("/lessons/{id}"));
    assert_eq!(
        s.store().lesson(id).expect("read").expect("lesson").feedback.map(devcoach_core::lesson::Feedback::as_str),
        Some("dont_know")
    );
    s.post(&format!("/lessons/{id}/feedback"), &[("feedback", "")]);
    assert_eq!(s.store().lesson(id).expect("read").expect("lesson").feedback, None, "an empty value clears");
    assert_eq!(s.post(&format!("/lessons/{id}/feedback"), &[("feedback", "maybe")]).status, 400);
    assert_eq!(s.post("/lessons/nope/feedback", &[("feedback", "know")]).status, 404);

    assert_eq!(s.post_from("/lessons/delete", &[("id", id)], "same-site").status, 403);
    let done = s.post("/lessons/delete", &[("id", id), ("id", "borrow-vs-clone"), ("next", "/lessons")]);
    assert_eq!(done.status, 303);
    assert!(
        done.header("location").starts_with("/lessons?deleted=2&undo=before-delete-"),
        "{}",
        done.header("location")
    );
    assert_eq!(s.store().total_lessons().expect("count"), 28);
}

#[test]
fn a_dashboard_delete_is_backed_up_and_undone_from_the_page() {
    let s = Server::demo();
    let id = "redis-ttl-jitter";
    let now = crate::now();
    // A review graded first: the undo must bring the card's schedule and history back too.
    s.store().grade_review(id, devcoach_core::fsrs::Grade::Good, now).expect("grade").expect("a card");
    let card = s.store().review_card(id).expect("read").expect("card");
    let log = s.store().review_log().expect("log").len();

    let done = s.post("/lessons/delete", &[("id", id), ("id", "borrow-vs-clone"), ("next", "/lessons?sort=title")]);
    assert_eq!(done.status, 303);
    let location = done.header("location").to_owned();
    assert!(location.starts_with("/lessons?sort=title&deleted=2&undo=before-delete-"), "{location}");
    let backups: Vec<_> = std::fs::read_dir(s.data().backups_dir()).expect("backups").collect();
    assert_eq!(backups.len(), 1, "one backup, taken before the delete");
    assert_eq!(s.store().total_lessons().expect("count"), 28);
    assert!(s.store().review_card(id).expect("read").is_none());

    // The page after the delete says so and offers the undo.
    let page = s.get(&location).text();
    assert!(page.contains("Deleted 2 lessons.") && page.contains(r#"action="/lessons/undo-delete""#), "{page}");
    let backup = page.split(r#"name="backup" value=""#).nth(1).and_then(|t| t.split('"').next()).expect("backup field");
    let fields = [("backup", backup), ("id", id), ("id", "borrow-vs-clone"), ("next", "/lessons?sort=title")];

    // Only from the dashboard itself, and only our own backups by name.
    assert_eq!(s.post_from("/lessons/undo-delete", &fields, "cross-site").status, 403);
    assert_eq!(s.post_from("/lessons/undo-delete", &fields, "same-site").status, 403);
    assert_eq!(s.post("/lessons/undo-delete", &[("backup", "../coaching.db"), ("id", id)]).status, 400);
    assert_eq!(s.post("/lessons/undo-delete", &[("backup", "before-delete-/../../x.zip"), ("id", id)]).status, 400);
    let gone = [("backup", "before-delete-20200101T000000Z-x.zip"), ("id", id)];
    assert_eq!(s.post("/lessons/undo-delete", &gone).status, 404);
    assert_eq!(s.store().total_lessons().expect("count"), 28, "refused means unchanged");

    s.post("/lessons/undo-delete", &fields).see_other("/lessons?sort=title&restored=2");
    assert_eq!(s.store().total_lessons().expect("count"), 30);
    let back = s.store().review_card(id).expect("read").expect("the card is back");
    assert_eq!((back.reps, back.due), (card.reps, card.due), "with its schedule");
    assert_eq!(s.store().review_log().expect("log").len(), log, "and its history");
    assert!(s.get("/lessons?restored=2").text().contains("Restored 2 lessons"));

    // The page after the delete, revisited once they are back, offers no Undo.
    let again = s.get(&location).text();
    assert!(again.contains("Those lessons are back.") && !again.contains("undo-delete"), "{again}");
    // A second undo finds them there already.
    s.post("/lessons/undo-delete", &fields).see_other("/lessons?sort=title&restored=0");
    assert_eq!(s.store().total_lessons().expect("count"), 30);
}

#[test]
fn share_in_every_format() {
    let s = Server::demo();
    let base = "/lessons/redis-ttl-jitter/share";
    let text = s.get(&format!("{base}?format=text&name=Ada"));
    assert_eq!(text.header("content-type"), "text/plain; charset=utf-8");
    let body = text.text();
    assert!(body.contains("Shared by Ada with devcoach"), "{body}");
    let code = body.lines().last().expect("code line");
    assert!(code.starts_with("devcoach:lesson:1:"));
    let decoded = devcoach_core::share::code::decode_code(code).expect("decodes");
    assert_eq!(
        (decoded.title.as_str(), decoded.project.as_deref()),
        ("Add jitter to cache expiry", None),
        "no context unless asked"
    );
    let with = s.get(&format!("{base}?format=link&include_context=1")).text();
    assert!(with.starts_with("https://") && with.contains("#devcoach:lesson:1:"));
    let payload = devcoach_core::share::code::decode_code(with.split('#').nth(1).expect("fragment")).expect("decodes");
    assert_eq!(payload.project.as_deref(), Some("demo-app"));
    assert!(payload.task_context.is_some());

    let md = s.get(&format!("{base}?format=md"));
    assert_eq!(md.header("content-type"), "text/markdown; charset=utf-8");
    assert!(md.header("content-disposition").starts_with("attachment; filename=\"redis-ttl-jitter.devcoach.md\""));
    assert!(md.text().starts_with("---\nformat: devcoach.lesson\n"));
    assert!(s.get(base).text().contains("id=\"share-payloads\""));

    // POST with persist keeps the name as the default.
    let posted = s.post(base, &[("name", "Grace Hopper"), ("persist", "1"), ("format", "text")]);
    assert!(posted.text().contains("Shared by Grace Hopper"));
    assert_eq!(s.store().settings().expect("settings").share_name.as_deref(), Some("Grace Hopper"));
    assert!(
        s.get(&format!("{base}?format=text")).text().contains("Shared by Grace Hopper"),
        "the saved name is the default"
    );
    assert!(
        s.get(&format!("{base}?format=text&name=")).text().contains("Shared with devcoach"),
        "empty name: anonymous"
    );

    assert_eq!(s.get("/lessons/nope/share?format=text").status, 404);
    assert_eq!(s.get_with(&format!("{base}?format=text"), &[("sec-fetch-site", "cross-site")]).status, 403);
}

#[test]
fn shares_sign_with_git_and_link_to_the_configured_page() {
    let s = Server::demo();
    // A lesson made in a repository whose git config names its author: with no name given or
    // saved, the share carries it (as the CLI and MCP do), and the popover offers it.
    let repo = tempfile::TempDir::new().expect("repo");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(repo.path())
            .output()
            .expect("git")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["config", "user.name", "Ada Lovelace"]);
    let mut store = s.store();
    let mut l = store.lesson("redis-ttl-jitter").expect("read").expect("lesson");
    l.context.git.folder = Some(repo.path().display().to_string());
    store.put_lesson(&l).expect("put");
    let base = "/lessons/redis-ttl-jitter/share";
    assert!(s.get(&format!("{base}?format=text")).text().contains("Shared by Ada Lovelace"));
    let page = s.get("/lessons/redis-ttl-jitter").text();
    assert!(
        page.contains("value=\"Ada Lovelace\"") && page.contains("name=\"persist\""),
        "the popover offers the name and to keep it"
    );

    // Links open this project's page by default; the setting points them elsewhere, and that
    // page's origin may then ask whether the dashboard runs.
    let link = s.get(&format!("{base}?format=link")).text();
    assert!(link.starts_with("https://devcoach-rs.github.io/devcoach/lesson#devcoach:lesson:1:"), "{link}");
    s.post("/settings", &[("share_link_base", "https://lessons.example.org/p/")]).see_other("/settings?saved=1");
    let link = s.get(&format!("{base}?format=link")).text();
    assert!(link.starts_with("https://lessons.example.org/p#devcoach:lesson:1:"), "{link}");
    assert_eq!(
        s.get_with("/ping", &[("origin", "https://lessons.example.org")]).header("access-control-allow-origin"),
        "https://lessons.example.org"
    );
    assert!(s.get("/settings").text().contains("value=\"https://lessons.example.org/p\""));
    // A page that is not https (or on this machine) is refused and nothing changes.
    let bad = s.post("/settings", &[("share_link_base", "javascript:alert(1)")]);
    assert!(bad.header("location").contains("invalid_setting"), "{:?}", bad.headers);
    assert_eq!(s.store().share_link_base().expect("base"), "https://lessons.example.org/p");
    // Empty: back to the default.
    s.post("/settings", &[("share_link_base", "")]).see_other("/settings?saved=1");
    assert_eq!(s.store().share_link_base().expect("base"), devcoach_core::share::text::DEFAULT_LINK_BASE);
}

#[test]
fn export_and_every_kind_of_import() {
    let s = Server::demo();
    let export = s.get("/lessons/export");
    assert_eq!(export.header("content-type"), "application/json");
    assert_eq!(export.header("content-disposition"), "attachment; filename=\"devcoach-lessons.json\"");
    let lessons: Value = serde_json::from_slice(&export.body).expect("json");
    assert_eq!(lessons.as_array().map(Vec::len), Some(30));

    let code = share_code();
    let first = s.post("/lessons/import", &[("from", "lessons"), ("text", &code)]);
    assert_eq!(first.status, 303);
    let location = first.header("location").to_owned();
    assert!(location.starts_with("/lessons/") && location.ends_with("?imported=1"), "{location}");
    let again = s.post("/lessons/import", &[("from", "lessons"), ("text", &format!("look at this: {code}"))]);
    assert!(again.header("location").ends_with("?imported=dup"), "{:?}", again.headers);

    // A file upload wins over pasted text; a .devcoach.md file imports.
    let fresh = Server::empty();
    let md = s.get("/lessons/borrow-vs-clone/share?format=md").body;
    let up = fresh.upload(
        "/lessons/import",
        &[("from", None, b"lessons"), ("text", None, b"garbage"), ("file", Some("x.devcoach.md"), &md)],
    );
    assert!(up.header("location").ends_with("?imported=1"), "{}", up.text());
    // A lessons export (the kind /lessons/export writes) reports counts on Settings.
    let up = fresh.upload(
        "/lessons/import",
        &[("from", None, b"settings"), ("file", Some("devcoach-lessons.json"), &export.body)],
    );
    // The lesson imported above from its share keeps its place.
    assert_eq!(up.header("location"), "/settings?imported=29&skipped=1&invalid=0");

    s.post("/lessons/import", &[("from", "lessons"), ("text", "not a lesson")])
        .see_other("/lessons?import=1&error=invalid");
    s.post("/lessons/import", &[("from", "settings"), ("text", "not a lesson")])
        .see_other("/settings?imported=0&skipped=0&invalid=1");
    // A URL that is not on the public internet is never fetched.
    s.post("/lessons/import", &[("from", "lessons"), ("text", &format!("{}/lessons/export", s.base))])
        .see_other("/lessons?import=1&error=invalid");
    let before = s.store().total_lessons().expect("count");
    s.post_from("/lessons/import", &[("from", "lessons"), ("text", &code)], "cross-site")
        .see_other("/lessons?import=1&error=cross");
    assert_eq!(s.store().total_lessons().expect("count"), before);
    assert!(s.get("/lessons?import=1&error=invalid").text().contains("That is not a lesson devcoach can read"));
}

#[test]
fn the_import_preview_only_reads() {
    let s = Server::empty();
    let code = share_code();
    let page = s.get(&format!("/lessons/import?code={}", enc(&code)));
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains("Add to my lessons") && html.contains("Nothing is saved until you add it"), "{html}");
    assert!(!s.data().db_path().exists(), "a preview writes nothing");
    let bad = s.get("/lessons/import?code=devcoach%3Alesson%3A1%3AAAAA").text();
    assert!(bad.contains("damaged or incomplete"), "{bad}");
    let url = s.get("/lessons/import?code=https%3A%2F%2Fexample.com%2Fx").text();
    assert!(url.contains("web address"), "a preview never fetches");
    let r = s.get("/lessons/import");
    assert_eq!((r.status, r.header("location")), (303, "/lessons?import=1"));
}

#[test]
fn the_list_follows_every_writer_while_remembering_answers() {
    let s = Server::demo();
    let count = |query: &str| {
        let html = s.get(&format!("/lessons?{query}")).text();
        // "1–25 of 30 · page 1 of 2", or the empty state.
        html.split(" · page ")
            .next()
            .filter(|head| head.len() < html.len())
            .and_then(|head| head.rsplit(" of ").next())
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(0)
    };
    assert_eq!(count(""), 30);
    assert_eq!(count("search=elsewhere"), 0);
    assert!(s.get("/progress").text().contains(" 30 in all."));
    assert!(!s.get("/knowledge").text().contains("zig_comptime"));

    // Another connection (as another process would) adds a lesson: the remembered answers go.
    let mut store = s.store();
    let mut l = store.lesson("redis-ttl-jitter").expect("read").expect("lesson");
    l.id = "written-elsewhere".into();
    l.title = "Written elsewhere".into();
    store.put_lesson(&l).expect("put");
    assert_eq!((count(""), count("search=elsewhere")), (31, 1));
    assert!(s.get("/progress").text().contains(" 31 in all."), "a kept page is dropped on change");
    store.set_topic("zig_comptime", 4, None, now()).expect("topic");
    assert!(s.get("/knowledge").text().contains("zig_comptime"));

    // A raw SQL delete, as the TypeScript build does it.
    let conn = rusqlite::Connection::open(s.data().db_path()).expect("open");
    conn.execute("DELETE FROM lessons WHERE id = 'written-elsewhere'", []).expect("delete");
    assert_eq!((count(""), count("search=elsewhere")), (30, 0));
    drop(conn);

    // The dashboard's own writes are seen too.
    let starred = count("starred=1");
    s.post("/lessons/redis-ttl-jitter/star", &[("starred", "1")]);
    assert_eq!(count("starred=1"), starred + 1);

    // The file deleted, then created again by someone else.
    drop(store);
    std::fs::remove_file(s.data().db_path()).expect("remove");
    assert!(s.get("/lessons").text().contains("No lessons yet."));
    let mut fresh = s.store();
    fresh.put_lesson(&l).expect("put");
    assert_eq!((count(""), count("search=elsewhere")), (1, 1));
}
