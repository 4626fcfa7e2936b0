//! Output fits the screen it is on: every command that prints a table or prose, at 60, 80 and
//! 120 columns (`COLUMNS`, as a shell exports it) and piped (80), with a hostile long title in
//! the data, keeps every line within the width and every table frame whole. Pinned by
//! snapshots of the real binary at each width.

use insta::assert_snapshot;
use unicode_width::UnicodeWidthStr;

use crate::Env;

const COMMANDS: &[&[&str]] = &[
    &["lessons"],
    &["lessons", "--starred"],
    &["lesson", "git-bisect"],
    &["lesson", "sqlite-busy"],
    &["review", "due"],
    &["profile"],
    &["settings"],
    &["courses"],
    &["stats"],
    &[],
];

/// The demo learner, one of whose lessons has a title far longer than any screen, with wide
/// characters and control sequences in it.
fn long_title_store() -> Env {
    let env = Env::demo();
    let db = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    let title = format!("Bisect 🎓 {} \u{1b}]52;c;eA==\u{7}{}", "very ".repeat(30), "界".repeat(20));
    db.execute("UPDATE lessons SET title = ?1 WHERE id = 'git-bisect'", [title]).expect("update");
    env
}

/// Ids that start one another, wide ones, one holding `…`, and a title with a newline and a
/// tab: what a table cut could confuse.
fn tricky_ids_store() -> Env {
    let env = long_title_store();
    let db = rusqlite::Connection::open(env.data().join("coaching.db")).expect("db");
    for (i, (id, title)) in [
        ("ab", "Short id"),
        ("abcdef", "Longer id that starts like the short one"),
        ("日本", "Wide id"),
        ("日本語のID", "Wider id starting like the wide one"),
        ("hello…", "An id with an ellipsis"),
        ("hello…world", "An id that starts with the ellipsis one"),
        ("newline", "First line\nsecond line\tand a tab"),
    ]
    .into_iter()
    .enumerate()
    {
        db.execute(
            "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary) VALUES (?1, ?2, 'git', '[]', ?3, 'mid', 's')",
            rusqlite::params![id, format!("2026-11-0{}T10:00:00Z", i + 1), title],
        )
        .expect("insert");
    }
    env
}

fn run_at(env: &Env, columns: Option<usize>, args: &[&str]) -> String {
    let mut cmd = env.command();
    if let Some(c) = columns {
        cmd.env("COLUMNS", c.to_string());
    }
    let out = cmd.args(args).output().expect("ran");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

#[track_caller]
fn fits(what: &str, text: &str, width: usize) {
    for line in text.lines() {
        assert!(line.width() <= width, "{what}: a line of {} columns at {width}:\n{line}\n\n{text}", line.width());
    }
    // A frame's lines are all as wide as its top.
    let frame: Vec<usize> =
        text.lines().filter(|l| l.starts_with(['╭', '│', '├', '╰'])).map(UnicodeWidthStr::width).collect();
    assert!(frame.windows(2).all(|w| w[0] == w[1]), "{what}: the frame is broken\n{text}");
}

#[test]
fn every_table_and_text_fits_60_80_and_120_columns() {
    let env = long_title_store();
    for width in [60, 80, 120] {
        for args in COMMANDS {
            let text = run_at(&env, Some(width), args);
            let name = format!("{width}_{}", if args.is_empty() { "tour".to_owned() } else { args.join("_") });
            fits(&name, &text, width);
            assert_snapshot!(
                name.replace(['-', ' '], "_"),
                text.replace(&env.tmp.path().display().to_string(), "[SANDBOX]")
            );
        }
    }
}

#[test]
fn piped_output_fits_80_and_wide_turns_fitting_off() {
    let env = long_title_store();
    for args in COMMANDS {
        fits(&format!("piped {args:?}"), &run_at(&env, None, args), 80);
    }
    let wide = run_at(&env, None, &["lessons", "--wide"]);
    assert!(wide.lines().any(|l| l.width() > 200), "--wide keeps every column and the whole title:\n{wide}");
    assert!(wide.contains(&"界".repeat(20)), "the title is not cut with --wide");
    assert!(wide.contains("Categories") && wide.contains("Commit"));
}

#[test]
fn a_shown_cut_id_names_its_lesson_at_every_width() {
    let env = tricky_ids_store();
    let listed: serde_json::Value = serde_json::from_slice(&env.run(&["lessons", "--json"]).stdout).expect("json");
    let ids: Vec<&str> =
        listed["lessons"].as_array().expect("lessons").iter().filter_map(|l| l["id"].as_str()).collect();
    for width in [20, 30, 40, 50, 60, 80] {
        let table = run_at(&env, Some(width), &["lessons"]);
        fits_frame(&format!("lessons at {width}"), &table);
        let shown: Vec<String> = table
            .lines()
            .filter(|l| l.starts_with('│'))
            .skip(1)
            .filter_map(|l| l.split('│').nth(2).map(|c| c.trim().to_owned()))
            .collect();
        assert_eq!(shown.len(), ids.len(), "one row per lesson at {width}:\n{table}");
        // Every id cell, as shown (cut ones end in …), names the lesson of its own row.
        for (cell, id) in shown.iter().zip(&ids) {
            let out = env.run(&["lesson", cell, "--json"]);
            assert!(out.status.success(), "{cell:?} at {width}: {}", String::from_utf8_lossy(&out.stderr));
            let lesson: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
            assert_eq!(lesson["id"].as_str(), Some(*id), "{cell:?} at {width} named another lesson");
        }
    }
    // A start more than one id shares is refused and lists them (exit 1, nothing picked).
    let out = env.run(&["lesson", "rust"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("starts more than one lesson id") && err.contains("rust-newtypes"), "{err}");
    // An id typed whole is itself, even when it starts others.
    let out = env.run(&["lesson", "ab", "--json"]);
    let lesson: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(lesson["id"], "ab");
}

/// Every framed line as wide as the top one.
#[track_caller]
fn fits_frame(what: &str, text: &str) {
    let frame: Vec<usize> =
        text.lines().filter(|l| l.starts_with(['╭', '│', '├', '╰'])).map(UnicodeWidthStr::width).collect();
    assert!(frame.windows(2).all(|w| w[0] == w[1]), "{what}: the frame is broken\n{text}");
}

/// `text` without the terminal's styles (only ours can be there: the door strips the rest).
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// No line is wider than `width` unless the word that crosses the edge is itself wider (a path,
/// a code): a terminal would otherwise break a word in two.
#[track_caller]
fn breaks_no_word(what: &str, text: &str, width: usize) {
    for line in plain(text).lines() {
        if line.width() <= width {
            continue;
        }
        let mut column = 0;
        for piece in line.split_inclusive(' ') {
            let word = piece.trim_end();
            let end = column + word.width();
            if end > width {
                assert!(
                    word.width() > width || column >= width,
                    "{what}: \"{word}\" is cut at column {width}:\n{line}\n\n{text}"
                );
                break;
            }
            column += piece.width();
        }
    }
}

/// Every command that prints prose, with what it reads on stdin; each runs on a fresh demo
/// learner (some change it).
const PROSE: &[(&[&str], &str)] = &[
    (&["delete", "git-bisect", "--yes"], ""),
    (&["share", "redis-ttl-jitter"], ""),
    (&["import", "dc1:damaged"], ""),
    (&["lesson", "no-such-lesson"], ""),
    (&["setup"], "\n2\n2\nkubernetes 3\n\n\n\n\n"),
    (&["setup"], "\n3\n"),
    (&["review"], "\n3\nq\n"),
    (&["review", "settings"], ""),
    (&["knowledge-add", "Sliding Windows Over Very Long Topic Names", "6"], ""),
    (&["export", "--format", "xapi", "-o", "record.json"], ""),
    (&["backup", "-o", "all.zip"], ""),
    (&["courses"], ""),
    (&["stats"], ""),
    (&["sync", "status"], ""),
    (&["practice", "closest-pair-to-target", "--local", "--ollama-url", "http://127.0.0.1:9"], "/help\n/quit\n"),
];

#[test]
fn every_command_that_prints_prose_breaks_no_word_at_60_and_80() {
    let run = |width: usize, args: &[&str], stdin: &str| {
        let env = Env::demo();
        let out = env
            .command()
            .env("COLUMNS", width.to_string())
            .args(args)
            .write_stdin(stdin.as_bytes().to_vec())
            .output()
            .expect("ran");
        let sandbox = env.tmp.path().display().to_string();
        let clean = |b: &[u8]| String::from_utf8_lossy(b).replace(&sandbox, "[SANDBOX]");
        (clean(&out.stdout), clean(&out.stderr))
    };
    for (args, stdin) in PROSE {
        let (wide_out, wide_err) = run(1000, args, stdin);
        for width in [60, 80] {
            let (out, err) = run(width, args, stdin);
            let what = format!("{} at {width}", args.join(" "));
            // The share card is a payload, copied whole; its notes are prose.
            if args[0] != "share" {
                breaks_no_word(&what, &out, width);
            }
            breaks_no_word(&what, &err, width);
            // Wrapping moves words between lines and never splits one (a command to paste may
            // go on over lines ending in ` \`).
            let words =
                |t: &str| plain(t).split_whitespace().filter(|w| *w != "\\").map(str::to_owned).collect::<Vec<_>>();
            // (A table gives up columns to fit: only prose keeps every word.)
            if !out.contains('╭') {
                assert_eq!(words(&out), words(&wide_out), "{what}: stdout words changed by wrapping");
            }
            assert_eq!(words(&err), words(&wide_err), "{what}: stderr words changed by wrapping");
        }
    }
}
