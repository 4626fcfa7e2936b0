//! Text from outside never drives the terminal: every command that prints stored or received
//! text, fed a corpus of control sequences in every field, emits no control byte of its own
//! making but newline and tab (piped, no colour); and with colours on a real terminal (under
//! `script`), every escape it emits is one of its own styles.

use std::path::Path;

use crate::{Env, transcript};

/// Each kind of sequence a terminal acts on.
const CORPUS: &[&str] = &[
    "\u{1b}]52;c;cHduZWQ=\u{7}",
    "\u{1b}[2J\u{1b}[H",
    "\u{1b}]8;;https://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\",
    "\u{1b}]0;pwned\u{7}",
    "\u{1b}P+q544e\u{1b}\\",
    "\u{1b}",
    "\u{7}",
    "abc\u{8}\u{8}\u{8}xyz",
    "safe\rEVIL",
    "\u{202e}gnp.exe",
    "\u{2066}isolate\u{2069}",
    "\u{9b}2J",
    "\u{9d}52;c;eA==\u{9c}",
    "\u{1b}[31mred",
    "\u{1b}c",
    "\u{7f}del",
    // Dressed as the dashboard links the door keeps: a user part, or an escape inside the link.
    "\u{1b}]8;;http://localhost:1@evil.example/\u{7}x\u{1b}]8;;\u{7}",
    "\u{1b}]8;;http://127.0.0.1:7860/\u{1b}]52;c;eA==\u{7}y",
];

fn hostile(label: &str) -> String {
    format!("{label} {}", CORPUS.concat())
}

/// A character a terminal would act on.
fn acts(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

#[track_caller]
fn inert(what: &str, out: &std::process::Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        if let Some(c) = text.chars().find(|c| acts(*c)) {
            panic!("{what} wrote {c:?} to {stream}:\n{text}");
        }
    }
}

/// The demo learner, with hostile text in every field other programs could have written.
fn hostile_store() -> Env {
    let env = Env::demo();
    let db = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    let h = hostile;
    db.execute(
        "UPDATE lessons SET title = ?1, summary = ?2, body = ?3, topic_id = ?4, categories = ?5, project = ?6, branch = ?7, task_context = ?8 \
         WHERE id = 'git-bisect'",
        rusqlite::params![h("title"), h("summary"), h("body\n## heading\n```\ncode\n```"), h("topic"), serde_json::json!([h("cat")]).to_string(), h("project"), h("branch"), h("task")],
    )
    .expect("lesson");
    db.execute("UPDATE lessons SET shared_by = ?1 WHERE imported = 1", [h("sender")]).expect("sender");
    db.execute(
        "INSERT INTO knowledge (topic, confidence, updated_at) VALUES (?1, 4, '2026-11-30T00:00:00.000Z')",
        [h("topic")],
    )
    .expect("topic");
    db.execute("INSERT INTO knowledge_group_names (group_name) VALUES (?1)", [h("group")]).expect("group");
    db.execute("INSERT INTO knowledge_groups (group_name, topic) VALUES (?1, ?2)", [h("group"), h("topic")])
        .expect("member");
    db.execute("UPDATE courses SET title = ?1, goal = ?2", [h("course"), h("goal")]).expect("course");
    db.execute("UPDATE course_steps SET title = ?1", [h("step")]).expect("step");
    db.execute(
        "UPDATE ext_review_cards SET question = ?1, answer = ?2, due = '2020-01-01T00:00:00.000Z' WHERE lesson_id = 'git-bisect'",
        [h("question"), h("answer")],
    )
    .expect("card");
    db.execute("UPDATE settings SET value = ?1 WHERE key = 'share_name'", [h("me")]).expect("name");
    env
}

fn write_file(env: &Env, name: &str, text: &str) -> String {
    let path = env.tmp.path().join(name);
    std::fs::write(&path, text).expect("write");
    path.to_str().expect("utf-8").to_owned()
}

#[test]
fn no_command_passes_a_control_sequence_through() {
    let env = hostile_store();
    let course = {
        let db = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
        db.query_row("SELECT id FROM courses LIMIT 1", [], |r| r.get::<_, String>(0)).expect("course")
    };
    let shared = String::from_utf8(env.run(&["share", "git-bisect", "--by", &hostile("by")]).stdout).expect("utf-8");
    let card = write_file(&env, "card.txt", &shared);
    // The issue's own file: a .devcoach.md whose title writes the clipboard and clears the screen.
    let md = write_file(
        &env,
        "evil.devcoach.md",
        &format!(
            "---\ntitle: \"{}\"\ntopic_id: rust\nlevel: mid\ncategories: [rust]\nsummary: \"{}\"\n---\n{}\n",
            "\\u001b]52;c;cHduZWQ=\\u0007\\u001b[2JTitle",
            "\\u001b]0;pwned\\u0007Summary",
            hostile("Body")
        ),
    );
    let problem =
        write_file(&env, "problem.md", &format!("---\ntitle: {}\n---\n{}\n", hostile("Problem"), hostile("Statement")));
    let mut tried = 0;
    for args in [
        vec!["lessons"],
        vec!["lessons", "--json"],
        vec!["lesson", "git-bisect"],
        vec!["lesson", "git-bisect", "--json"],
        vec!["profile"],
        vec!["profile", "--json"],
        vec!["stats"],
        vec!["settings"],
        vec!["courses"],
        vec!["course", course.as_str()],
        vec!["review", "due"],
        vec!["share", "git-bisect"],
        vec!["share", "git-bisect", "--link"],
        vec!["import", md.as_str()],
        vec!["import", md.as_str()],
        vec!["import", card.as_str()],
        vec!["lessons", "--imported"],
        vec!["practice", "check", "leak", "--statement", problem.as_str()],
        vec!["practice", "report"],
        vec![],
    ] {
        let out = env.run(&args);
        inert(&format!("devcoach {}", args.join(" ")), &out);
        tried += 1;
    }
    // Interactive ones: the review session shows the hostile card, practice shows the statement.
    let review = env.command().arg("review").write_stdin("\nq\n").output().expect("review");
    assert!(String::from_utf8_lossy(&review.stdout).contains("question"), "{}", transcript(&review, env.tmp.path()));
    inert("devcoach review", &review);
    // A local model that is up but never answers the chat: the statement is what is shown.
    let ollama = crate::practice_session::fake_ollama(Vec::new());
    let practice = env
        .command()
        .args(["practice", "--problem", &problem, "--local", "--ollama-url", &ollama.url])
        .write_stdin("/quit\n")
        .output()
        .expect("practice");
    assert!(
        String::from_utf8_lossy(&practice.stdout).contains("Statement"),
        "{}",
        transcript(&practice, env.tmp.path())
    );
    inert("devcoach practice --problem", &practice);
    assert!(tried >= 20);
}

/// A coach model's reply is outside text too.
#[cfg(unix)]
#[test]
fn a_model_reply_cannot_drive_the_terminal() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let fake = env.tmp.path().join("claude");
    let reply = serde_json::json!({"type": "result", "is_error": false, "result": format!("<!-- rung:H1 -->\n{}", hostile("What do you see?")), "session_id": "s"});
    std::fs::write(
        &fake,
        format!("#!/bin/sh\ncat > /dev/null\nprintf '%s' '{}'\n", reply.to_string().replace('\'', "'\\''")),
    )
    .expect("script");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = env
        .command()
        .env("DEVCOACH_CLAUDE", &fake)
        .args(["practice", "closest-pair-to-target"])
        .write_stdin("how do I start?\n/quit\n")
        .output()
        .expect("practice");
    assert!(String::from_utf8_lossy(&out.stdout).contains("What do you see?"), "{}", transcript(&out, env.tmp.path()));
    inert("a coach reply", &out);
}

/// With colours on a real terminal, the only escapes are our own styles.
#[test]
fn on_a_terminal_only_our_own_styles_are_written() {
    // util-linux's `script` gives the command a terminal; Debian always has it.
    assert!(Path::new("/usr/bin/script").exists(), "this test needs /usr/bin/script (util-linux)");
    let env = hostile_store();
    for args in ["lessons", "lesson git-bisect", "profile", "courses"] {
        let mut cmd = std::process::Command::new("/usr/bin/script");
        cmd.args(["-qec", &format!("{} {args}", crate::bin().display()), "/dev/null"])
            .env_clear()
            .envs(env.vars())
            .env("TERM", "xterm-256color");
        let out = cmd.output().expect("script");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\u{1b}["), "{args}: colours are on under a terminal");
        let mut rest = text.as_ref();
        while let Some(at) = rest.find('\u{1b}') {
            let seq = &rest[at..];
            let ok = [
                "\u{1b}[0m",
                "\u{1b}[1m",
                "\u{1b}[2m",
                "\u{1b}[3m",
                "\u{1b}[31m",
                "\u{1b}[32m",
                "\u{1b}[33m",
                "\u{1b}[36m",
                "\u{1b}[1;36m",
            ]
            .iter()
            .any(|own| seq.starts_with(own));
            assert!(ok, "{args}: a foreign escape {:?}", &seq[..seq.len().min(12)]);
            rest = &seq[1..];
        }
        for c in ['\u{7}', '\u{8}', '\u{9b}', '\u{9d}', '\u{202e}'] {
            assert!(!text.contains(c), "{args}: {c:?}");
        }
    }
}
