//! `share`, `import`, `backup`, `restore`, `courses`, `course` on the real binary.

use insta::assert_snapshot;
use serde_json::Value;

use crate::{Env, fixtures};

fn other(env: &Env) -> Env {
    let o = Env::new();
    assert!(o.command().env("DEVCOACH_DIR", o.data()).arg("profile").output().expect("ran").status.success());
    let _ = env;
    o
}

#[test]
fn share_transports_and_import_them_elsewhere() {
    let env = Env::demo();
    assert_snapshot!("share_text", env.transcript(&["share", "git-bisect", "--by", "Ada"]));
    assert_snapshot!("share_link_last", env.transcript(&["share", "--last", "--link", "--anonymous"]));
    assert_snapshot!("share_file", env.transcript(&["share", "sqlite-busy-timeout", "--file", "--with-context"]));
    let md = std::fs::read_to_string(env.tmp.path().join("sqlite-busy-timeout.devcoach.md")).expect("file written");
    assert!(md.contains("project: \"demo-app\"") && !md.contains("folder"));
    assert_snapshot!("share_missing", env.transcript(&["share", "nope"]));
    assert_snapshot!("share_no_target", env.transcript(&["share"]));
    assert_snapshot!("share_by_and_anonymous", env.transcript(&["share", "git-bisect", "--by", "A", "--anonymous"]));
    // The name given with --by became the default.
    let settings: Value = serde_json::from_slice(&env.run(&["settings", "--json"]).stdout).expect("json");
    assert_eq!(settings["share_name"], "Ada");

    let text = env.run(&["share", "git-bisect"]).stdout;
    std::fs::write(env.tmp.path().join("shared.txt"), &text).expect("write");
    // One's own lesson, shared and imported back in the same store: recognised, nothing added.
    let before = env.run(&["lessons", "--json"]).stdout;
    assert_snapshot!(
        "import_own",
        env.transcript(&["import", env.tmp.path().join("shared.txt").to_str().expect("utf-8")])
    );
    assert_eq!(env.run(&["lessons", "--json"]).stdout, before, "no duplicate from someone anonymous");
    let friend = other(&env);
    let shared = env.tmp.path().join("shared.txt");
    assert_snapshot!("import_text_file", friend.transcript(&["import", shared.to_str().expect("utf-8")]));
    assert_snapshot!("import_again", friend.transcript(&["import", shared.to_str().expect("utf-8")]));
    let md_path = env.tmp.path().join("sqlite-busy-timeout.devcoach.md");
    assert_snapshot!("import_md", friend.transcript(&["import", md_path.to_str().expect("utf-8")]));
    let link = String::from_utf8(env.run(&["share", "rust-iterators", "--link"]).stdout).expect("utf-8");
    assert_snapshot!("import_link_literal", friend.transcript(&["import", link.trim()]));
    let stdin = friend.command().arg("import").arg("-").write_stdin(text.clone()).output().expect("ran");
    assert_eq!(stdin.status.code(), Some(0));
    assert_snapshot!("import_garbage", friend.transcript(&["import", "hello there"]));
    for missing in ["/no/such/lesson.devcoach.md", "./typo.json", "lesson.md"] {
        let out = friend.run(&["import", missing]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&format!("there is no file at {missing}")), "a mistyped path is named: {stderr}");
    }
    assert_snapshot!("import_private_url", friend.transcript(&["import", "http://127.0.0.1:9/lesson"]));
    assert_snapshot!("import_no_clipboard", friend.transcript(&["import"]));
    // Piped into `devcoach import` with no argument: the pipe, never the clipboard. The
    // clipboard readers on PATH would answer with another lesson's code.
    let fake = friend.tmp.path().join("fakebin");
    std::fs::create_dir_all(&fake).expect("mkdir");
    for reader in ["wl-paste", "xclip", "xsel", "pbpaste"] {
        let path = fake.join(reader);
        std::fs::write(&path, "#!/bin/sh\necho 'devcoach:lesson:1:not-this-one'\n").expect("stand-in");
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    }
    let piped = friend
        .command()
        .env("PATH", format!("{}:/usr/bin:/bin", fake.display()))
        .arg("import")
        .write_stdin(text.clone())
        .output()
        .expect("ran");
    assert_eq!(piped.status.code(), Some(0), "{}", String::from_utf8_lossy(&piped.stderr));
    assert!(String::from_utf8_lossy(&piped.stdout).contains("Already imported"), "the piped card, not the clipboard");
    let lessons: Value = serde_json::from_slice(&friend.run(&["lessons", "--json"]).stdout).expect("json");
    let rows = lessons["lessons"].as_array().expect("array");
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|l| l["imported"] == true && l["folder"].is_null() && l["starred"] == false));
}

#[test]
fn backup_and_restore_round_trip_and_the_original_backup() {
    use std::os::unix::fs::FileTypeExt as _;
    let env = Env::demo();
    assert_snapshot!("backup", env.transcript(&["backup", "b.zip"]));
    let written = std::fs::read(env.tmp.path().join("b.zip")).expect("backup");
    // An existing file is never replaced without asking (and a script is never asked).
    assert_snapshot!("backup_exists", env.transcript(&["backup", "b.zip"]));
    assert!(env.run(&["backup", "b.zip", "--force"]).status.success());
    // Special files are refused and left as they were; nothing is left behind.
    let fifo = env.tmp.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    std::os::unix::fs::symlink(env.tmp.path().join("b.zip"), env.tmp.path().join("link.zip")).expect("link");
    std::fs::create_dir(env.tmp.path().join("adir")).expect("dir");
    for target in ["fifo", "link.zip", "adir"] {
        let out = env.run(&["backup", target, "--force"]);
        assert_eq!(out.status.code(), Some(1), "{target}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("only reads and writes regular files"), "{target}");
        // Reading follows a link to a real backup; a pipe or a folder is refused without waiting.
        let out = env.run(&["restore", target]);
        assert_eq!(out.status.code(), Some(i32::from(target != "link.zip")), "{target}");
    }
    let out = env.run(&["import", fifo.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("named pipe"), "import reads a file, never waits on a pipe");
    assert!(std::fs::symlink_metadata(env.tmp.path().join("link.zip")).expect("link").file_type().is_symlink());
    assert!(std::fs::symlink_metadata(&fifo).expect("fifo").file_type().is_fifo());
    let names: Vec<String> = std::fs::read_dir(env.tmp.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("tmp")), "{names:?}");
    assert_eq!(written.len(), std::fs::read(env.tmp.path().join("b.zip")).expect("backup").len());
    let fresh = Env::new();
    std::fs::copy(env.tmp.path().join("b.zip"), fresh.tmp.path().join("b.zip")).expect("copy");
    assert_snapshot!("restore_ours", fresh.transcript(&["restore", "b.zip"]));
    std::fs::copy(fixtures().join("ts-0.9.5/devcoach-backup.zip"), fresh.tmp.path().join("original.zip"))
        .expect("copy");
    assert_snapshot!("restore_original", fresh.transcript(&["restore", "original.zip"]));
    assert_snapshot!("restore_missing", fresh.transcript(&["restore", "nope.zip"]));
    std::fs::write(fresh.tmp.path().join("junk.zip"), b"junk").expect("write");
    assert_snapshot!("restore_junk", fresh.transcript(&["restore", "junk.zip"]));
    // Restoring over a notebook of one's own keeps it beside the restored one.
    std::fs::write(fresh.data().join("learning-state.md"), "# Mine\n").expect("notebook");
    let out = fresh.run(&["restore", "b.zip"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Your previous notebook was kept as"), "{text}");
    let kept: Vec<_> = std::fs::read_dir(fresh.data())
        .expect("dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("learning-state.") && n != "learning-state.md")
        .collect();
    // One copy from restoring the original backup over ours, one from this restore.
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept.iter().any(|k| std::fs::read_to_string(fresh.data().join(k)).expect("kept") == "# Mine\n"),
        "{kept:?}"
    );
    let a: Value = serde_json::from_slice(&env.run(&["profile", "--json"]).stdout).expect("json");
    let b: Value = serde_json::from_slice(&fresh.run(&["profile", "--json"]).stdout).expect("json");
    assert_eq!(a["groups"].as_array().map(Vec::len), Some(4));
    assert_eq!(b["knowledge"].as_array().map(Vec::len), Some(17), "the original backup adds its one new topic (node)");
}

#[test]
fn courses_list_and_detail() {
    assert_snapshot!("courses_none", Env::new().transcript(&["courses"]));
    let env = Env::demo();
    let conn = rusqlite::Connection::open(env.data().join("coaching.db")).expect("raw");
    conn.execute_batch(
        "INSERT INTO courses (id, lesson_id, topic_id, title, goal, prerequisites, status, created_at, updated_at) VALUES \
         ('bisect-deep', 'git-bisect', 'git', 'Bisect in depth', 'Find regressions fast', '[{\"concept\":\"commits\",\"known\":true},{\"concept\":\"exit codes\",\"known\":false}]', 'active', '2026-11-29T10:00:00.000Z', '2026-11-29T11:00:00.000Z');
         INSERT INTO course_steps VALUES ('bisect-deep', 1, 'Why bisect', 'concept', 'step-1', 'done', '2026-11-29T10:30:00.000Z');
         INSERT INTO course_steps VALUES ('bisect-deep', 2, 'Run it', 'practice', 'step-2', 'todo', NULL);",
    )
    .expect("course");
    drop(conn);
    assert_snapshot!("courses", env.transcript(&["courses"]));
    assert_snapshot!("course_detail", env.transcript(&["course", "bisect-deep"]));
    assert_snapshot!("course_missing", env.transcript(&["course", "../etc"]));
    let json: Value = serde_json::from_slice(&env.run(&["course", "bisect-deep", "--json"]).stdout).expect("json");
    assert_eq!(json["steps"][1]["anchor"], "step-2");
}
