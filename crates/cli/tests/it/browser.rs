//! The dashboard in a real browser: headless Chromium (Debian's) driven by Playwright
//! (`tests/browser/dashboard.cjs`, installed into `target/browser` by `scripts/test.sh`). Every
//! page in light and dark on a desktop and a phone, the clicks people make, no console error
//! anywhere, no axe-core (WCAG 2.1 A/AA) violation, tables whose headers line up with their
//! columns; screenshots land in `target/screenshots` (CI keeps them as artifacts). This side owns
//! the server and checks what the clicks wrote to the database.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::ui::{free_port, start};
use crate::{Env, fixtures};

fn target() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target")
}

fn playwright() -> PathBuf {
    let dir =
        std::env::var_os("DEVCOACH_TEST_BROWSER").map_or_else(|| target().join("browser/node_modules"), PathBuf::from);
    assert!(
        dir.join("playwright-core").is_dir(),
        "playwright-core is not installed: run scripts/test.sh (it installs it into target/browser), or set DEVCOACH_TEST_BROWSER to a node_modules folder"
    );
    dir
}

fn chromium() -> PathBuf {
    let path =
        std::env::var_os("DEVCOACH_TEST_CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    assert!(path.exists(), "Chromium is not installed: run scripts/test.sh, or set DEVCOACH_TEST_CHROMIUM");
    path
}

/// The one JSON object a browser script prints last, after checking it saw no problem.
fn report_of(run: &std::process::Output) -> Value {
    let stdout = String::from_utf8_lossy(&run.stdout);
    let report: Value = stdout.lines().rev().find_map(|l| serde_json::from_str(l).ok()).unwrap_or_else(|| {
        panic!("no report from the browser run:\n{stdout}\n{}", String::from_utf8_lossy(&run.stderr))
    });
    assert_eq!(report["problems"], Value::Array(Vec::new()), "the browser saw problems: {report:#}");
    assert!(run.status.success(), "{report:#}");
    report
}

fn lesson_row(db: &Path, id: &str) -> Option<(i64, Option<String>, i64)> {
    let conn = rusqlite::Connection::open(db).expect("db");
    conn.query_row("SELECT starred, feedback, imported FROM lessons WHERE id = ?1", [id], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })
    .ok()
}

#[test]
fn every_page_and_every_click_in_chromium() {
    let env = Env::demo();
    let db = env.data().join("coaching.db");
    let count = || -> i64 {
        rusqlite::Connection::open(&db)
            .expect("db")
            .query_row("SELECT COUNT(*) FROM lessons", [], |r| r.get(0))
            .expect("count")
    };
    let before = count();
    let graded_good = || -> i64 {
        rusqlite::Connection::open(&db)
            .expect("db")
            .query_row("SELECT COUNT(*) FROM ext_review_log WHERE grade = 3", [], |r| r.get(0))
            .expect("log")
    };
    let good_before = graded_good();
    assert_eq!(
        lesson_row(&db, "redis-ttl-jitter").map(|r| (r.0, r.1)),
        Some((0, None)),
        "the demo starts unstarred, unanswered"
    );
    let codes: Value =
        serde_json::from_slice(&std::fs::read(fixtures().join("share/share-codes-public.json")).expect("fixture"))
            .expect("json");
    let code = codes[0]["code"].as_str().expect("code");

    // A shared lesson whose body tries to run or load something, as its share code.
    rusqlite::Connection::open(&db)
        .expect("db")
        .execute(
            "UPDATE lessons SET body = ?1 WHERE id = 'git-bisect'",
            ["<script>document.title='pwned'</script>\n\n[click](javascript:alert(1)) ![x](https://tracker.example/p.gif) <img src=x onerror=alert(1)>\n\n**bold** and `code`"],
        )
        .expect("hostile body");
    let shared = env.run(&["share", "git-bisect"]);
    let hostile_code = String::from_utf8_lossy(&shared.stdout).lines().last().expect("a code").trim().to_owned();

    let port = free_port();
    let mut server = start(&env, port);
    let shots = target().join("screenshots");
    let _ = std::fs::remove_dir_all(&shots);
    let run = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/browser/dashboard.cjs"))
        .env("NODE_PATH", playwright())
        .env("DASHBOARD", format!("http://127.0.0.1:{port}"))
        .env("SCREENSHOTS", &shots)
        .env("SHARE_CODE", code)
        .env("HOSTILE_CODE", &hostile_code)
        .env("CHROMIUM", chromium())
        .output()
        .expect("node runs (scripts/test.sh installs Node.js)");
    let _ = server.kill();
    let _ = server.wait();
    let report = report_of(&run);
    let seen = &report["seen"];

    // Star, feedback and confidence reached the database, and the pages showed them.
    assert_eq!(seen["starred_in_list"], 1, "{seen:#}");
    assert_eq!(seen["feedback_pressed"], "true", "{seen:#}");
    let (starred, feedback, _) = lesson_row(&db, "redis-ttl-jitter").expect("lesson");
    assert_eq!((starred, feedback.as_deref()), (1, Some("understood")));
    let confidence: i64 = rusqlite::Connection::open(&db)
        .expect("db")
        .query_row("SELECT confidence FROM knowledge WHERE topic = 'browser_testing'", [], |r| r.get(0))
        .expect("the topic was added");
    assert_eq!(confidence, 6, "added at 5, raised once");

    // The import went through the preview and landed on the new lesson.
    assert_eq!(count(), before + 1, "exactly one lesson was imported");
    let url = seen["after_import_url"].as_str().expect("url");
    let id = url.trim_start_matches("/lessons/").split('?').next().expect("id");
    assert_eq!(lesson_row(&db, id).map(|r| r.2), Some(1), "{url} is an imported lesson");
    assert_eq!(seen["after_import_title"], codes[0]["payload"]["lesson"]["title"], "{seen:#}");
    for theme in ["light", "dark"] {
        assert_eq!(
            seen[format!("landing_title_{theme}")],
            codes[0]["payload"]["lesson"]["title"],
            "the share page decoded the card"
        );
        assert_eq!(seen[format!("landing_local_{theme}")], true, "the share page found the dashboard");
        let body = &seen[format!("landing_body_{theme}")];
        assert!(body["blocks"].as_u64().is_some_and(|n| n >= 3), "paragraphs and a code block: {body}");
        assert!(body["code"].as_u64().is_some_and(|n| n >= 3), "inline code and the fenced block: {body}");
        assert_eq!((&body["raw"], &body["scripts"]), (&Value::Bool(false), &serde_json::json!(0)), "{body}");
    }

    // The hostile body is text on the share page: nothing ran, nothing loaded, no link runs code.
    let h = &seen["landing_hostile"];
    assert_eq!(h["elements"], 0, "{h}");
    assert_eq!(h["title_kept"], true, "{h}");
    assert!(h["text"].as_str().is_some_and(|t| t.contains("<script>") && t.contains("bold")), "{h}");

    // The course frame followed the step.
    let anchor = seen["course_anchor"].as_str().expect("anchor");
    assert!(seen["course_frame_url"].as_str().is_some_and(|u| u.ends_with(&format!("#{anchor}"))), "{seen:#}");

    assert_eq!(seen["theme_after_setting"]["attr"], "dark", "{seen:#}");
    assert!(seen["review_question"].as_str().is_some_and(|q| q.contains('?')), "{seen:#}");
    assert!(seen["review_banner"].as_str().is_some_and(|b| b.starts_with("Graded good")), "{seen:#}");
    assert_eq!(seen["review_key_open"], true, "Space showed the answer: {seen:#}");
    assert!(seen["review_key_banner"].as_str().is_some_and(|b| b.starts_with("Graded good")), "{seen:#}");
    assert_eq!(graded_good() - good_before, 2, "the click and the key graded one card each");

    // The theme rules (spec §J.2): the toggle shows the scheme in use, "system" follows the OS
    // live, the browser's choice survives reloads and the server's setting until Settings are
    // saved, each change is announced, and the course frame follows.
    let t = &seen["theme_rules"];
    assert_eq!(t["start"], serde_json::json!(["light", "☀"]), "{t:#}");
    assert_eq!(t["system_live"], serde_json::json!(["dark", "☾"]), "{t:#}");
    assert_eq!(t["chosen"], serde_json::json!(["light", "☀", "light"]), "{t:#}");
    assert!(
        t["events"].as_array().is_some_and(|e| e.ends_with(&[serde_json::json!("dark"), serde_json::json!("light")])),
        "{t:#}"
    );
    assert_eq!(t["chosen_after_reload"], "light", "{t:#}");
    assert_eq!(t["choice_kept_on_load"], serde_json::json!(["light", "light"]), "{t:#}");
    assert_eq!(t["after_save"], serde_json::json!(["dark", null]), "{t:#}");
    assert_eq!(t["frame_at_load"], "dark", "{t:#}");
    assert_eq!(t["frame_after_toggle"], "light", "{t:#}");
    assert_eq!(t["back_to_system"], serde_json::json!(["light", null]), "{t:#}");
    assert_eq!((&seen["phone_light"], &seen["phone_dark"]), (&Value::Bool(true), &Value::Bool(true)));
    // Every dashboard page at 390 px, both themes, with its tab in view (not the share page).
    assert!(seen["tabs_in_view"].as_u64() >= Some(16), "{seen:#}");
    // Chart text is one size on screen, in half-width and full-width charts, on a desktop and a
    // phone: 12 px, give or take rounding.
    for key in ["tick_px_wide_light", "tick_px_wide_dark", "tick_px_390_light", "tick_px_390_dark"] {
        let [min, max] = [0, 1].map(|i| seen[key][i].as_f64().unwrap_or(0.0));
        assert!((11.0..=13.0).contains(&min) && (11.0..=13.0).contains(&max), "{key}: {min}..{max} px");
    }

    // Tables line up: on a desktop every table is a table whose header cells span their columns;
    // on a phone the lessons and courses tables are cards. Lessons (also in select mode), courses
    // and progress, in both themes at 1400 and 390 px: the counts keep the check from passing on
    // no tables at all.
    let tables = &seen["tables"];
    assert_eq!(tables["aligned"], 10, "desktop: lessons twice, courses, progress; phone: progress ({tables})");
    assert_eq!(tables["cards"], 6, "phone: lessons twice and courses, as cards ({tables})");
    assert!(tables["headers"].as_u64().is_some_and(|n| n >= 40), "header cells compared: {tables}");

    // Every page, in both themes at both widths, passed axe-core's WCAG 2.1 A and AA rules (any
    // violation is one of the problems above), and so did select mode and the undo banner.
    let axe = &seen["axe"];
    let audited: Vec<&str> = axe["states"].as_array().expect("states").iter().filter_map(Value::as_str).collect();
    assert_eq!(axe["audits"], Value::from(audited.len()), "{axe}");
    let mut expected = Vec::new();
    for width in [1400, 390] {
        for theme in ["light", "dark"] {
            for page in [
                "lessons",
                "lesson",
                "knowledge",
                "courses",
                "course",
                "settings",
                "reviews",
                "progress",
                "import-preview",
                "share-landing",
            ] {
                expected.push(format!("{page} {theme} {width}"));
            }
            expected.push(format!("lessons {theme} {width}, selecting"));
            expected.push(format!("undo banner {theme} {width}"));
        }
    }
    expected.push("undo restored light 1400".to_owned());
    for state in &expected {
        assert!(audited.contains(&state.as_str()), "axe did not audit {state}: {axe}");
    }
    assert_eq!(audited.len(), expected.len(), "{axe}");

    // Delete from a lesson's page: the list said so and offered Undo; Undo put it back.
    let u = &seen["undo"];
    let deleted = u["id"].as_str().expect("the deleted lesson");
    assert_eq!(u["confirm"], "Delete this lesson? You can undo it right after.", "{u:#}");
    assert_eq!((&u["banner"], &u["undo_button"]), (&Value::from("Deleted 1 lesson."), &Value::Bool(true)), "{u:#}");
    assert!(u["restored"].as_str().is_some_and(|b| b.starts_with("Restored 1 lesson")), "{u:#}");
    let total = |key: &str| u[key].as_i64().unwrap_or(-1);
    assert_eq!((total("after_delete"), total("after")), (total("before") - 1, total("before")), "{u:#}");
    assert_eq!(
        (&u["listed_before"], &u["listed_after_delete"], &u["listed_after_undo"], &u["lesson_status"]),
        (&Value::from(1), &Value::from(0), &Value::from(1), &Value::from(200)),
        "{u:#}"
    );
    assert!(lesson_row(&db, deleted).is_some(), "{deleted} is back in the database");

    for page in [
        "lessons",
        "lesson",
        "knowledge",
        "courses",
        "course",
        "settings",
        "progress",
        "import-preview",
        "share-landing",
        "undo-banner",
    ] {
        for theme in ["light", "dark"] {
            for name in [format!("{page}-{theme}.png"), format!("{page}-390-{theme}.png")] {
                let shot = shots.join(name);
                let size = std::fs::metadata(&shot).map_or(0, |m| m.len());
                assert!(size > 10_000, "{} is missing or blank ({size} bytes)", shot.display());
            }
        }
    }
}

/// The lesson and review cards (MCP Apps) in a host page built on the official host-side bridge
/// (`tests/browser/apps.cjs`): real `devcoach mcp` results (a lesson just logged, a hostile one,
/// one looked up with `show_lesson`, the review queue), every card in light and dark at 390
/// and 1400 px with axe-core, the answer buttons and the review grades through the frame, and a
/// hostile lesson that stays inert. This side checks what the clicks wrote.
#[test]
fn the_cards_a_chat_host_shows_in_chromium() {
    let env = Env::demo();
    let db = env.data().join("coaching.db");
    let reviews = |id: &str| -> (i64, String) {
        let conn = rusqlite::Connection::open(&db).expect("db");
        let count = conn
            .query_row("SELECT COUNT(*) FROM ext_review_log WHERE lesson_id = ?1 AND grade = 3", [id], |r| r.get(0))
            .unwrap_or(0);
        let due = conn
            .query_row("SELECT due FROM ext_review_cards WHERE lesson_id = ?1", [id], |r| r.get(0))
            .unwrap_or_default();
        (count, due)
    };
    for dir in ["tmp", "home"] {
        std::fs::create_dir_all(env.tmp.path().join(dir)).expect("sandbox folder");
    }
    // The first due card in the demo, which the run grades.
    let before = reviews("ci-fail-fast");
    let shots = target().join("screenshots-apps");
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).expect("screenshots");
    let run = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/browser/apps.cjs"))
        .envs(env.vars())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("NODE_PATH", playwright())
        .env("DEVCOACH", crate::bin())
        .env("SCREENSHOTS", &shots)
        .env("CHROMIUM", chromium())
        .current_dir(env.tmp.path())
        .output()
        .expect("node runs (scripts/test.sh installs Node.js)");
    let report = report_of(&run);
    let seen = &report["seen"];
    assert_eq!(seen["states"].as_array().map(Vec::len), Some(16), "four cards × two themes × two widths");
    assert_eq!(seen["axe"], 16, "{seen:#}");
    let asked_again: String = rusqlite::Connection::open(&db)
        .expect("db")
        .query_row("SELECT title FROM lessons WHERE id = 'sqlite-busy-timeout'", [], |r| r.get(0))
        .expect("demo lesson");
    assert_eq!(seen["lookup_title"], asked_again.as_str(), "show_lesson's card: {seen:#}");

    // The answer button recorded through the frame, and the card said so.
    assert_eq!(seen["feedback_pressed"], "true", "{seen:#}");
    assert_eq!(lesson_row(&db, "apps-card").map(|r| r.1), Some(Some("understood".into())));
    assert_eq!(seen["lesson_calls"], serde_json::json!(["lesson_card", "lesson_card_answer"]), "{seen:#}");
    // Explain it back went to the chat for the agent to grade, not to the store: the lesson's id
    // and the learner's words, nothing the lesson's author wrote.
    assert_eq!(
        seen["message"], "Explain-back for the devcoach lesson apps-card: Indexes help only selective filters.",
        "{seen:#}"
    );
    assert_eq!(seen["opened"], serde_json::json!(["https://www.postgresql.org/docs/"]), "{seen:#}");
    assert_eq!(seen["theme_switched"], true, "{seen:#}");

    // The review: the answer on request, then the grade moved the card.
    assert_eq!(seen["graded"], "ci-fail-fast", "the queue's first card");
    let (count, due) = reviews("ci-fail-fast");
    assert_eq!(count, before.0 + 1, "one more good grade");
    assert!(before.1.as_str() <= crate::NOW && due.as_str() > "2026-12-01", "due then {}, now {due}", before.1);
    assert_eq!(seen["review_calls"], serde_json::json!(["review_answer", "review_card_grade"]), "{seen:#}");
    assert!(seen["after_next"].as_str().is_some_and(|b| b.contains("review 2 of")), "{seen:#}");
}
