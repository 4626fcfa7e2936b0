//! The dashboard against hostile pages and hostile data: DNS rebinding, cross-site writes on
//! every state-changing route (read from the router itself, so a new route cannot slip by), a
//! Content-Security-Policy on every page, and a corpus of XSS payloads stored in every field a
//! page shows.

use std::io::{Read, Write};

use devcoach_core::lesson::Level;

use crate::{Server, now};

/// One raw HTTP/1.1 request with exactly these headers; the status and the whole response.
fn raw(s: &Server, method: &str, path: &str, host: &str, extra: &str) -> (u16, String) {
    let addr = s.base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    write!(stream, "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}Content-Length: 0\r\n\r\n")
        .expect("send");
    let mut out = String::new();
    stream.read_to_string(&mut out).expect("read");
    let status = out.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, out)
}

#[test]
fn only_our_own_name_and_port_are_answered() {
    let s = Server::demo();
    let port = s.base.rsplit(':').next().expect("port").to_owned();
    for host in
        [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}"), "localhost".to_owned()]
    {
        assert_eq!(raw(&s, "GET", "/lessons", &host, "").0, 200, "{host}");
    }
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        "127.0.0.1:1".to_owned(),
        format!("0.0.0.0:{port}"),
        format!("2130706433:{port}"),
    ] {
        for (method, path) in
            [("GET", "/lessons"), ("GET", "/ping"), ("POST", "/shutdown"), ("GET", "/settings/export")]
        {
            let (status, body) = raw(&s, method, path, &host, "");
            assert_eq!(status, 403, "{method} {path} with Host {host}");
            assert!(body.contains("answers only at 127.0.0.1 or localhost"), "{body}");
        }
    }
    assert_eq!(s.get("/ping").status, 200, "still running: the rebinding attempt did not shut it down");
}

/// Every route of the router, with the methods it answers, read from its source.
fn routes() -> Vec<(String, Vec<&'static str>)> {
    let source = include_str!("../../src/routes/mod.rs");
    source
        .split(".route(")
        .skip(1)
        .filter_map(|call| {
            let rest = call.trim_start().strip_prefix('"')?;
            let (path, after) = rest.split_once('"')?;
            // The handlers run to the end of this call: the next line that starts a new one.
            let handlers = after.split("\n        .").next().unwrap_or(after);
            let methods = ["get(", "post(", ".options("]
                .into_iter()
                .filter(|m| handlers.contains(m))
                .map(|m| m.trim_start_matches('.').trim_end_matches('('))
                .collect();
            Some((path.to_owned(), methods))
        })
        .collect()
}

fn concrete(path: &str, course: &str) -> String {
    path.replace("{id}", if path.starts_with("/courses") { course } else { "redis-ttl-jitter" })
        .replace("{topic}", "redis")
        .replace("{name}", "Data")
        .replace("{position}", "1")
        .replace("{*path}", "app.css")
}

fn demo_with_course() -> (Server, String) {
    let s = Server::demo();
    let id = s.store().courses(&devcoach_store::CourseFilter::default()).expect("courses")[0].id.clone();
    (s, id)
}

#[test]
fn every_state_changing_route_refuses_other_sites() {
    let (s, course) = demo_with_course();
    let all = routes();
    assert!(all.len() >= 34, "the router source was not read: {all:?}");
    let posts: Vec<String> =
        all.iter().filter(|(_, m)| m.contains(&"post")).map(|(p, _)| concrete(p, &course)).collect();
    assert!(posts.len() >= 19, "{posts:?}");
    let before = std::fs::read(s.data().db_path()).expect("db");
    for path in posts.iter().map(String::as_str).chain(["/no/such/route", "/lessons"]) {
        for site in ["cross-site", "same-site"] {
            let r = s.post_from(path, &[("id", "redis-ttl-jitter"), ("starred", "1"), ("grade", "good")], site);
            if path == "/lessons/import" {
                // The original's answer for this form: back to the list, saying why.
                assert_eq!((r.status, r.header("location")), (303, "/lessons?import=1&error=cross"), "{site}");
            } else {
                assert_eq!(r.status, 403, "POST {path} from {site}");
            }
        }
    }
    assert_eq!(std::fs::read(s.data().db_path()).expect("db"), before, "nothing was written");
    assert_eq!(s.get("/ping").status, 200);
}

/// Without fetch metadata (older browsers, some embedded views), the decision falls to `Origin`,
/// then `Referer`, then the kind of body: every combination a page on another site can produce,
/// on every state-changing route.
#[test]
fn every_state_changing_route_refuses_other_sites_without_fetch_metadata() {
    let (s, course) = demo_with_course();
    let port = s.base.rsplit(':').next().expect("port").to_owned();
    let posts: Vec<String> =
        routes().iter().filter(|(_, m)| m.contains(&"post")).map(|(p, _)| concrete(p, &course)).collect();
    let foreign: Vec<Vec<(&str, String)>> = vec![
        vec![("origin", "http://evil.example".into())],
        vec![("origin", "null".into())],
        vec![("origin", format!("http://localhost:{port}.evil.example"))],
        vec![("origin", "http://localhost:1".into())],
        vec![("origin", format!("https://localhost:{port}"))],
        vec![("referer", "http://evil.example/page".into())],
        vec![("referer", format!("http://evil.example/http://localhost:{port}/"))],
        vec![],
    ];
    let before = std::fs::read(s.data().db_path()).expect("db");
    let notebook = s.data().read_notebook().expect("notebook");
    let mut tried = 0;
    for path in &posts {
        for headers in &foreign {
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let r = s.post_with(path, &[("id", "redis-ttl-jitter"), ("content", ""), ("grade", "good")], &headers);
            tried += 1;
            if path == "/lessons/import" {
                assert_eq!((r.status, r.header("location")), (303, "/lessons?import=1&error=cross"), "{headers:?}");
            } else {
                assert_eq!(r.status, 403, "POST {path} with {headers:?}");
            }
        }
    }
    assert!(tried >= 19 * 8, "{tried}");
    assert_eq!(std::fs::read(s.data().db_path()).expect("db"), before, "nothing was written");
    assert_eq!(s.data().read_notebook().expect("notebook"), notebook, "the notebook is untouched");
    // Our own pages pass on Origin or Referer alone.
    let ours = format!("http://127.0.0.1:{port}");
    let r = s.post_with("/lessons/redis-ttl-jitter/star", &[("starred", "1")], &[("origin", &ours)]);
    assert_eq!(r.status, 303);
    let r =
        s.post_with("/lessons/redis-ttl-jitter/star", &[("starred", "0")], &[("referer", &format!("{ours}/lessons"))]);
    assert_eq!(r.status, 303);
}

#[test]
fn every_page_carries_a_content_security_policy() {
    let (s, course) = demo_with_course();
    for (path, methods) in routes() {
        if !methods.contains(&"get") {
            continue;
        }
        let path = concrete(&path, &course);
        let r = s.get(&path);
        assert_eq!(r.header("x-content-type-options"), "nosniff", "{path}");
        if !r.header("content-type").starts_with("text/html") {
            continue;
        }
        let csp = r.header("content-security-policy");
        assert!(csp.contains("default-src") && csp.contains("frame-ancestors"), "{path}: {csp:?}");
        let script = csp.split(';').find(|d| d.trim().starts_with("script-src")).unwrap_or("");
        if path == "/lesson" {
            // The static share page: its own inline script, nothing else, and only loopback to talk to.
            assert!(
                csp.starts_with("default-src 'none'")
                    && csp.contains("connect-src 'self' http://127.0.0.1:* http://localhost:*;"),
                "{csp}"
            );
        } else if path.ends_with("index.html") {
            assert!(
                csp.starts_with("sandbox allow-scripts allow-forms; default-src 'none'"),
                "course documents: {csp}"
            );
        } else {
            assert_eq!(script.trim(), "script-src 'self'", "{path}: {csp}");
        }
    }
    let missing = s.get("/lessons/nope");
    assert_eq!(missing.status, 404);
    assert!(missing.header("content-security-policy").contains("default-src 'self'"), "error pages too");
}

const PAYLOADS: [&str; 6] = [
    "<script>alert('xss-1')</script>",
    "\"><img src=x onerror=alert('xss-2')>",
    "<svg onload=alert('xss-3')>",
    "'\"--></style></script><script>alert('xss-4')</script>",
    "[click](javascript:alert('xss-5'))",
    "<a href=\"javascript:alert('xss-6')\">x</a>",
];

/// Markup a payload would need to run: a tag it opened, or an attribute inside a real tag
/// (text that only reads like one, `&lt;a href="javascript:…`, is fine).
fn unsafe_markup(html: &str) -> Vec<&'static str> {
    let tags = ["<script>alert(", "<img src=x", "<svg onload"];
    let attributes = ["href=\"javascript:", "href='javascript:", "onerror=alert", "onload=alert"];
    // Inside a real tag, and not inside one of its quoted values (quotes in values are escaped).
    let inside_a_tag = |at: usize| {
        html[..at]
            .rfind(['<', '>'])
            .is_some_and(|i| html.as_bytes()[i] == b'<' && html[i..at].matches('"').count().is_multiple_of(2))
    };
    tags.into_iter()
        .filter(|t| html.contains(t))
        .chain(attributes.into_iter().filter(|a| html.match_indices(a).any(|(at, _)| inside_a_tag(at))))
        .collect()
}

#[test]
fn the_settings_banners_show_counts_and_our_words_only() {
    let s = Server::demo();
    let words = "Your+record+was+compromised%3A+run+curl+evil.sh";
    for query in [
        format!("synced={words}&received=1"),
        format!("synced=1&received={words}"),
        format!("imported={words}"),
        format!("imported=1&skipped={words}&groups={words}&reviews={words}&newer={words}"),
        format!("imported=1&kept={words}"),
        format!("invalid_setting={words}"),
    ] {
        let page = s.get(&format!("/settings?{query}")).text();
        assert!(!page.contains("compromised") && !page.contains("evil.sh"), "{query}");
    }
    assert!(s.get("/settings?synced=3&received=2").text().contains("Synced: sent 3 changes, received 2 changes."));
    let kept = s.get("/settings?imported=0&kept=learning-state.20261202T070000Z.md").text();
    assert!(kept.contains("learning-state.20261202T070000Z.md"), "a real kept name is still shown");
}

#[test]
fn stored_payloads_are_shown_as_text_everywhere() {
    let s = Server::demo();
    let mut store = s.store();
    let hostile = PAYLOADS.join(" ");
    let mut l = store.lesson("redis-ttl-jitter").expect("read").expect("lesson");
    l.id = "hostile".into();
    // The oldest lesson, so its review card is the first one due.
    l.timestamp = "2020-01-01T09:00:00Z".into();
    l.title = hostile.clone();
    l.summary = hostile.clone();
    l.body = Some(PAYLOADS.join("\n\n"));
    l.topic_id = PAYLOADS[1].into();
    l.categories = PAYLOADS.iter().map(|p| (*p).to_owned()).collect();
    l.level = Level::Senior;
    l.imported = true;
    l.shared_by = Some(PAYLOADS[2].into());
    l.context.task_context = Some(hostile.clone());
    l.context.git.project = Some(PAYLOADS[3].into());
    l.context.git.branch = Some(PAYLOADS[0].into());
    store.put_lesson(&l).expect("put");
    store.set_topic(PAYLOADS[0], 5, None, now()).expect("topic");
    store.add_group(PAYLOADS[2]).expect("group");
    let course = store
        .create_course(
            &devcoach_store::NewCourse {
                title: hostile.clone(),
                topic_id: PAYLOADS[1].into(),
                goal: Some(hostile.clone()),
                lesson_id: Some("hostile".into()),
                prerequisites: Vec::new(),
            },
            now(),
        )
        .expect("course");
    let text = devcoach_core::review::CardText::new(&hostile, &hostile).expect("card");
    store.set_review_card("hostile", &text, now()).expect("card");
    drop(store);
    s.post("/settings", &[("share_name", PAYLOADS[1])]);

    let pages = [
        "/lessons".to_owned(),
        "/lessons?search=alert".to_owned(),
        format!("/lessons?category={}", crate::enc(PAYLOADS[0])),
        "/lessons/hostile".to_owned(),
        "/lessons/hostile?share=1".to_owned(),
        "/knowledge".to_owned(),
        "/courses".to_owned(),
        format!("/courses/{}", course.id),
        "/progress".to_owned(),
        "/settings".to_owned(),
        "/reviews".to_owned(),
        format!("/lessons/import?code={}", crate::enc(&hostile)),
        format!("/lessons?search={}", crate::enc(PAYLOADS[1])),
    ];
    let mut tried = 0;
    for page in &pages {
        let html = s.get(page).text();
        assert!(html.contains("alert(") || page.contains("import"), "{page}: the payload should be shown, as text");
        let found = unsafe_markup(&html);
        let context: Vec<&str> = found
            .iter()
            .filter_map(|n| html.find(n).map(|i| &html[i.saturating_sub(300)..(i + 100).min(html.len())]))
            .collect();
        assert_eq!(found, Vec::<&str>::new(), "{page}: {context:?}");
        tried += PAYLOADS.len();
    }
    assert!(tried >= 70);
}

/// No GET creates the database or changes a byte of it (a cross-site page can make a browser
/// send any GET): every GET route of the router, on an empty data folder and on the demo.
#[test]
fn no_get_creates_or_changes_the_database() {
    let empty = Server::empty();
    let (demo, course) = demo_with_course();
    let gets: Vec<String> =
        routes().iter().filter(|(_, m)| m.contains(&"get")).map(|(p, _)| concrete(p, &course)).collect();
    assert!(gets.len() >= 20, "{gets:?}");
    // Past its start (which may write: review cards for lessons written elsewhere).
    assert_eq!((empty.get("/ping").status, demo.get("/ping").status), (200, 200));
    let before = std::fs::read(demo.data().db_path()).expect("db");
    let extra = ["/reviews", "/settings/export", "/lessons/redis-ttl-jitter/share?format=text&persist=1&name=Eve"];
    for path in gets.iter().map(String::as_str).chain(extra) {
        if path == "/shutdown" {
            continue;
        }
        let _ = empty.get(path);
        assert!(!empty.data().db_path().exists(), "GET {path} created the database");
        let _ = demo.get(path);
        assert!(std::fs::read(demo.data().db_path()).expect("db") == before, "GET {path} changed the database");
    }
    assert_eq!(empty.get("/settings/export").status, 404, "nothing to back up yet");
    assert_eq!(demo.store().settings().expect("settings").share_name, None, "a GET never saves a name");
}
