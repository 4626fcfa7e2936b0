//! Backups: the original's ZIP restores into empty and populated databases; our backups restore
//! into theirs; hostile archives are refused without changing anything.

use std::io::{Cursor, Write};

use devcoach_core::course::{CourseId, StepKind};
use devcoach_core::query::LessonQuery;
use devcoach_store::{BackupError, NewCourse, StoreError};

use crate::{fixtures, fresh, now};

fn fixture_zip() -> Vec<u8> {
    std::fs::read(fixtures().join("ts-0.9.5/devcoach-backup.zip")).expect("fixture")
}

#[test]
fn the_original_backup_restores_into_an_empty_database() {
    let (_t, mut store) = fresh();
    let out = store.restore_zip(&fixture_zip(), now()).expect("restore");
    assert_eq!((out.settings, out.lessons, out.skipped, out.invalid, out.learning_state), (1, 5, 0, 0, 1));
    assert_eq!((out.topics, out.groups), (10, 4));
    assert_eq!(store.lessons(&LessonQuery::default(), now()).expect("read").len(), 5);
    let profile = store.profile().expect("profile");
    assert_eq!(profile.knowledge.len(), 10);
    assert_eq!(profile.group_of("docker"), "Tooling");
    assert_eq!(profile.group_of("architecture"), "Other");
    assert!(store.data_dir().read_notebook().expect("notebook").starts_with("# devcoach"));
}

#[test]
fn restoring_into_a_populated_database_never_destroys() {
    let (_t, mut store) = fresh();
    store.seed_demo(now()).expect("demo");
    let before = store.lessons(&LessonQuery::default(), now()).expect("read");
    let out = store.restore_zip(&fixture_zip(), now()).expect("restore");
    assert_eq!(out.lessons, 5);
    // Restoring the same backup again adds nothing.
    let again = store.restore_zip(&fixture_zip(), now()).expect("restore");
    assert_eq!((again.lessons, again.skipped), (0, 5));
    let after = store.lessons(&LessonQuery::default(), now()).expect("read");
    assert_eq!(after.len(), before.len() + 5);
    for l in &before {
        assert!(after.contains(l), "{} changed", l.id);
    }
}

#[test]
fn our_backup_round_trips_with_courses() {
    let (_t, mut store) = fresh();
    store.seed_demo(now()).expect("demo");
    let course = store
        .create_course(
            &NewCourse {
                title: "Borrowing".into(),
                topic_id: "rust".into(),
                goal: None,
                lesson_id: Some("borrow-vs-clone".into()),
                prerequisites: vec![],
            },
            now(),
        )
        .expect("course");
    let id = CourseId::parse(&course.id).expect("id");
    let doc = "<section id=\"step-1\"><pre><code>let x = 1;</code></pre></section><script data-devcoach=\"highlighter\"></script>";
    std::fs::write(store.data_dir().course_document_path(&id), doc).expect("doc");
    store.add_course_step(&id, "One", StepKind::Concept, "step-1", None, now()).expect("step");
    let filled = store.data_dir().read_course_document(&id).expect("read").expect("doc");
    assert_ne!(filled, doc);

    let (zip, summary) = store.backup_zip().expect("backup");
    assert_eq!(
        (summary.lessons, summary.courses, summary.documents, summary.notebook),
        (devcoach_store::DEMO_LESSON_COUNT, 2, 2, true),
        "the demo's course and this one"
    );
    let mut archive = zip::ZipArchive::new(Cursor::new(&zip)).expect("zip");
    let names: Vec<String> =
        (0..archive.len()).map(|i| archive.by_index(i).expect("entry").name().expect("name").into_owned()).collect();
    assert_eq!(
        names,
        [
            "settings.json",
            "lessons.json",
            "knowledge.json",
            "learning-state.md",
            "courses.json",
            "courses/borrowing/index.html",
            "courses/cache-expiry-that-never-stampedes/index.html",
            "ext/manifest.json",
            "ext/settings.json",
            "ext/knowledge.json",
            "ext/evidence.json",
            "ext/topic_model.json",
            "ext/review_cards.json",
            "ext/lesson_kinds.json",
            "ext/review_log.json",
            "ext/checked_answers.json",
            "ext/work_sessions.json",
            "ext/handson.json",
        ],
        "the original's entries first, in its order; ours after"
    );
    let mut stored_doc = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("courses/borrowing/index.html").expect("doc"), &mut stored_doc)
        .expect("read");
    assert_eq!(stored_doc, doc, "backups keep the placeholder, not the library");

    let (_t2, mut other) = fresh();
    let out = other.restore_zip(&zip, now()).expect("restore");
    assert_eq!((out.lessons, out.courses), (devcoach_store::DEMO_LESSON_COUNT, 2));
    assert_eq!(other.course(&id).expect("read").expect("course").steps.len(), 1);
    assert_eq!(
        other.data_dir().read_course_document(&id).expect("read").as_deref(),
        Some(filled.as_str()),
        "refilled on restore"
    );
    assert_eq!(other.profile().expect("profile"), store.profile().expect("profile"));
    assert_eq!(other.settings().expect("settings"), store.settings().expect("settings"));
}

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(*name, options).expect("entry");
        zip.write_all(bytes).expect("write");
    }
    zip.finish().expect("finish").into_inner()
}

#[test]
fn hostile_archives_change_nothing() {
    let (tmp, mut store) = fresh();
    // A bomb: lessons.json inflating far past its cap.
    let bomb = zip_of(&[("lessons.json", &vec![b' '; 100 * 1024 * 1024])]);
    assert!(bomb.len() < 1024 * 1024);
    // Refused at the cap, while inflating (the error names the cap, not the end of the data).
    assert!(matches!(
        store.restore_zip(&bomb, now()),
        Err(StoreError::Backup(BackupError::EntryTooLarge(..) | BackupError::ItemTooLarge(..)))
    ));

    // Path tricks are never written anywhere: only known names are read at all.
    let slip = zip_of(&[
        ("../../evil.txt", b"x"),
        ("courses/../../evil/index.html", b"x"),
        ("/etc/evil", b"x"),
        ("settings.json", br#"{"max_per_day": 5, "ui_theme": "neon", "nudge_every": -4}"#),
    ]);
    let out = store.restore_zip(&slip, now()).expect("restore");
    assert_eq!(out.settings, 1);
    let settings = store.settings().expect("settings");
    assert_eq!((settings.max_per_day, settings.nudge_every), (5, 10), "invalid values skipped");
    assert!(!tmp.path().join("evil.txt").exists() && !tmp.path().parent().expect("parent").join("evil.txt").exists());

    assert!(matches!(store.restore_zip(b"not a zip", now()), Err(StoreError::Backup(BackupError::NotAZip(_)))));
    assert!(matches!(
        store.restore_zip(&zip_of(&[("other.txt", b"x")]), now()),
        Err(StoreError::Backup(BackupError::Empty))
    ));
    assert!(matches!(
        store.restore_zip(&zip_of(&[("lessons.json", b"[oops")]), now()),
        Err(StoreError::Backup(BackupError::BadJson(name, _))) if name == "lessons.json"
    ));
    assert!(store.lessons(&LessonQuery::default(), now()).expect("read").is_empty());
}

#[test]
fn the_committed_hostile_archives_are_refused_or_contained() {
    let (tmp, mut store) = fresh();
    let bomb = std::fs::read(fixtures().join("hostile/bomb-1gib.zip")).expect("fixture");
    assert!(matches!(
        store.restore_zip(&bomb, now()),
        Err(StoreError::Backup(BackupError::EntryTooLarge(..) | BackupError::ItemTooLarge(..)))
    ));

    let tricks = std::fs::read(fixtures().join("hostile/tricks.zip")).expect("fixture");
    match store.restore_zip(&tricks, now()) {
        Err(StoreError::Backup(BackupError::Duplicate(_))) => {}
        other => panic!("duplicate entries must be refused, got {other:?}"),
    }
    assert!(!tmp.path().join("evil.txt").exists());
    assert!(!std::path::Path::new("/tmp/devcoach-evil-absolute.txt").exists());
    assert_eq!(store.settings().expect("settings").max_per_day, 2, "nothing was restored");

    // The same tricks without the duplicate: the known entries restore, the rest is ignored.
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&tricks)).expect("zip");
    let mut entries: Vec<(String, Vec<u8>, bool)> = Vec::new();
    for i in 0..zip.len() {
        let mut e = zip.by_index(i).expect("entry");
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut e, &mut buf).expect("read");
        entries.push((e.name().expect("name").into_owned(), buf, e.is_symlink()));
    }
    entries.pop();
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes, link) in &entries {
        let options = zip::write::SimpleFileOptions::default();
        if *link {
            out.add_symlink(name.as_str(), std::str::from_utf8(bytes).expect("utf-8"), options).expect("link");
        } else {
            out.start_file(name.as_str(), options).expect("entry");
            out.write_all(bytes).expect("write");
        }
    }
    let cleaned = out.finish().expect("finish").into_inner();
    let result = store.restore_zip(&cleaned, now()).expect("restore");
    assert_eq!((result.settings, result.lessons), (1, 0));
    assert!(!store.data_dir().courses_dir().join("linked").exists(), "a link entry is never written");
    assert!(!tmp.path().join("evil.txt").exists() && !tmp.path().join("evil").exists());
}

#[test]
fn the_oldest_knowledge_format_still_restores() {
    let (_t, mut store) = fresh();
    let out = store.restore_zip(&zip_of(&[("knowledge.json", br#"{"rust": 7, "go": 12}"#)]), now()).expect("restore");
    assert_eq!(out.topics, 2);
    assert_eq!(store.confidence("go").expect("read"), Some(10));
    assert!(out.renamed.is_empty());
}

#[test]
fn restored_names_follow_the_topic_rule_and_say_so() {
    let (_t, mut store) = fresh();
    let knowledge = br#"{"groups": ["Langs", "\u001b]52;c;eA==\u0007"], "topics": [{"topic": "Python", "confidence": 6, "group": "Langs"}, {"topic": "sliding windows", "confidence": 3, "group": null}, {"topic": "x\u001b[2J", "confidence": 3}]}"#;
    let out = store.restore_zip(&zip_of(&[("knowledge.json", knowledge)]), now()).expect("restore");
    assert_eq!(
        out.renamed,
        [("Python".to_owned(), "python".to_owned()), ("sliding windows".to_owned(), "sliding_windows".to_owned())]
    );
    assert_eq!(store.confidence("python").expect("read"), Some(6));
    let profile = store.profile().expect("profile");
    assert_eq!(profile.group_of("python"), "Langs");
    assert!(profile.groups.iter().all(|g| !g.name.contains('\u{1b}')), "a group name with controls is not restored");
    assert!(profile.knowledge.iter().all(|k| !k.topic.contains('\u{1b}')), "nor a topic");
    assert_eq!(out.invalid, 1, "the topic with controls counts as invalid");
}

/// The keys of every object, in order, down the tree (the first element stands for an array).
fn shape(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(m) => {
            let inner: Vec<String> = m.iter().map(|(k, v)| format!("{k}:{}", shape(v))).collect();
            format!("{{{}}}", inner.join(","))
        }
        serde_json::Value::Array(a) => format!("[{}]", a.first().map(shape).unwrap_or_default()),
        serde_json::Value::String(_) => "s".into(),
        serde_json::Value::Number(_) => "n".into(),
        serde_json::Value::Bool(_) => "b".into(),
        serde_json::Value::Null => "null".into(),
    }
}

#[test]
fn our_backup_keeps_the_originals_entries_in_name_and_shape() {
    let theirs = fixture_zip();
    let (_t, mut store) = fresh();
    store.restore_zip(&theirs, now()).expect("restore theirs");
    let (ours, _) = store.backup_zip().expect("backup");
    let mut theirs = zip::ZipArchive::new(Cursor::new(&theirs)).expect("theirs");
    let mut ours = zip::ZipArchive::new(Cursor::new(&ours)).expect("ours");
    let read = |z: &mut zip::ZipArchive<Cursor<&Vec<u8>>>, name: &str| {
        let mut e = z.by_name(name).expect(name);
        assert_eq!(e.compression(), zip::CompressionMethod::Deflated, "{name}: deflated, as fflate writes");
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut e, &mut buf).expect("read");
        buf
    };
    for i in 0..theirs.len() {
        let name = theirs.by_index(i).expect("entry").name().expect("name").into_owned();
        let (t, o) = (read(&mut theirs, &name), read(&mut ours, &name));
        if std::path::Path::new(&name).extension().is_some_and(|e| e == "json") {
            let t: serde_json::Value = serde_json::from_slice(&t).expect("their json");
            let o: serde_json::Value = serde_json::from_slice(&o).expect("our json");
            if name == "lessons.json" {
                // Every lesson has 0.9.5's keys in its order, then the v6 line's two (imported,
                // shared_by), as the TypeScript v6 build writes them.
                for (a, b) in t.as_array().expect("theirs").iter().zip(o.as_array().expect("ours")) {
                    let (a, b) = (a.as_object().expect("lesson"), b.as_object().expect("lesson"));
                    let mut keys: Vec<&String> = a.keys().collect();
                    keys.extend(["imported", "shared_by"].iter().map(|k| b.get_key_value(*k).expect(k).0));
                    assert_eq!(b.keys().collect::<Vec<_>>(), keys);
                }
            } else if name == "settings.json" {
                // 0.9.5 had five settings; the v6 line added ui_home and share_name after them.
                let (t, o) = (t.as_object().expect("theirs"), o.as_object().expect("ours"));
                let ours: Vec<&String> = o.keys().filter(|k| t.contains_key(*k)).collect();
                assert_eq!(ours, t.keys().collect::<Vec<_>>(), "their keys, in their order");
                assert!(t.iter().all(|(k, v)| shape(v) == shape(&o[k])), "same types");
            } else {
                assert_eq!(shape(&t).replace("null", "s"), shape(&o).replace("null", "s"), "{name}");
            }
        } else {
            assert_eq!(t, o, "{name} byte for byte");
        }
    }
    // What the original reads of ours is only what it knows: our entries sit under ext/.
    let extra: Vec<String> = (0..ours.len())
        .map(|i| ours.by_index(i).expect("entry").name().expect("name").into_owned())
        .filter(|n| theirs.by_name(n).is_err())
        .collect();
    assert!(
        extra.iter().all(|n| n.starts_with("ext/") || n.starts_with("practice/") || n.starts_with("courses")),
        "{extra:?}"
    );
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for b in bytes {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A stored (uncompressed) ZIP written by hand, so names may repeat, with the classic end
/// record or a ZIP64 one (classic counts `0xffff`, sizes `0xffffffff`).
fn raw_zip(entries: &[(&str, &[u8])], zip64: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = u32::try_from(out.len()).expect("small");
        let (crc, len, name_len) =
            (crc32(data), u32::try_from(data.len()).expect("small"), u16::try_from(name.len()).expect("short"));
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        central.extend_from_slice(&crc.to_le_bytes());
        central.extend_from_slice(&len.to_le_bytes());
        central.extend_from_slice(&len.to_le_bytes());
        central.extend_from_slice(&name_len.to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = out.len() as u64;
    let cd_size = central.len() as u64;
    out.extend_from_slice(&central);
    let n = entries.len() as u64;
    if zip64 {
        let record_at = out.len() as u64;
        out.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        for v in [n, n, cd_size, cd_offset] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&record_at.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
    }
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    let (count, size, offset) = if zip64 {
        (0xffff, 0xffff_ffff, 0xffff_ffff)
    } else {
        (
            u16::try_from(n).expect("few"),
            u32::try_from(cd_size).expect("small"),
            u32::try_from(cd_offset).expect("small"),
        )
    };
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// One lesson each, as a `lessons.json` entry.
const LESSONS_A: &[u8] = br#"[{"id":"a","timestamp":"2026-11-01T10:00:00.000Z","topic_id":"git","categories":[],"title":"A","level":"mid","summary":"s"}]"#;
const LESSONS_B: &[u8] = br#"[{"id":"b","timestamp":"2026-11-01T10:00:00.000Z","topic_id":"git","categories":[],"title":"B","level":"mid","summary":"s"}]"#;

/// `archive` is refused as listing a name twice, and no lesson was restored from it.
#[track_caller]
fn refused_as_duplicate(store: &mut devcoach_store::Store, archive: &[u8], what: &str) {
    match store.restore_zip(archive, now()) {
        Err(StoreError::Backup(BackupError::Duplicate(_))) => {}
        other => panic!("{what}: a name listed twice must be refused, got {other:?}"),
    }
    assert!(store.lessons(&LessonQuery::default(), now()).expect("read").is_empty(), "{what}: nothing restored");
}

/// `archive` (a classic one) with a second end record hidden in its comment, declaring only the
/// first of its central headers: a reader that takes the last record sees one entry.
fn with_forged_end_record(mut archive: Vec<u8>, first_header_len: u32) -> Vec<u8> {
    let real = archive.len() - 22;
    let cd_offset: [u8; 4] = archive[real + 16..real + 20].try_into().expect("offset");
    archive.truncate(archive.len() - 2);
    archive.extend_from_slice(&22u16.to_le_bytes());
    archive.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    archive.extend_from_slice(&[0, 0, 0, 0]);
    archive.extend_from_slice(&1u16.to_le_bytes());
    archive.extend_from_slice(&1u16.to_le_bytes());
    archive.extend_from_slice(&first_header_len.to_le_bytes());
    archive.extend_from_slice(&cd_offset);
    archive.extend_from_slice(&0u16.to_le_bytes());
    archive
}

#[test]
fn a_forged_end_record_in_the_comment_cannot_hide_a_second_copy() {
    let (first, second) = (LESSONS_A, LESSONS_B);
    let header_len = 46 + u32::try_from("lessons.json".len()).expect("short");
    // The forgery alone (one entry, one header) still reads: the check is on what is hidden.
    let (_t, mut store) = fresh();
    let single = with_forged_end_record(raw_zip(&[("lessons.json", first)], false), header_len);
    assert_eq!(store.restore_zip(&single, now()).expect("one copy").lessons, 1);
    let (_t, mut store) = fresh();
    let twice =
        with_forged_end_record(raw_zip(&[("lessons.json", first), ("lessons.json", second)], false), header_len);
    refused_as_duplicate(&mut store, &twice, "a hidden second copy");
}

#[test]
fn a_damaged_file_entry_refuses_the_backup_before_the_database_changes() {
    let lesson = LESSONS_A;
    let session = b"{\"t\":\"2026-11-01T10:00:00Z\",\"kind\":\"start\"}\n";
    // Stored uncompressed, so the session's bytes can be altered after its checksum was taken.
    let mut damaged = raw_zip(&[("lessons.json", lesson), ("practice/sessions/two-sum-1.jsonl", session)], false);
    let at = damaged.windows(session.len()).position(|w| w == session).expect("stored data");
    damaged[at] ^= 0x20;
    let (tmp, mut store) = fresh();
    let err = store.restore_zip(&damaged, now()).expect_err("a checksum mismatch is refused");
    assert!(
        matches!(err, StoreError::Backup(BackupError::Damaged(ref name, _)) if name.starts_with("practice/sessions/")),
        "{err}"
    );
    assert!(store.lessons(&LessonQuery::default(), now()).expect("read").is_empty(), "no lesson restored");
    assert!(!tmp.path().join("practice/sessions/two-sum-1.jsonl").exists());

    // Oversized: a practice file past its cap (deflated, so the archive itself stays small).
    let huge = vec![b'x'; 17 * 1024 * 1024];
    let big = zip_of(&[("lessons.json", lesson), ("practice/problems/two-sum.md", &huge)]);
    let (_t, mut store) = fresh();
    assert!(matches!(store.restore_zip(&big, now()), Err(StoreError::Backup(BackupError::EntryTooLarge(..)))));
    assert!(store.lessons(&LessonQuery::default(), now()).expect("read").is_empty(), "no lesson restored");
}

#[test]
fn a_name_listed_twice_is_refused_whatever_the_end_record() {
    let (first, second) = (LESSONS_A, LESSONS_B);
    for zip64 in [false, true] {
        let (_t, mut store) = fresh();
        // The archive reads (one copy of each name) in both formats.
        let single = raw_zip(&[("lessons.json", first)], zip64);
        assert_eq!(store.restore_zip(&single, now()).expect("one copy").lessons, 1, "zip64: {zip64}");
        let (_t, mut store) = fresh();
        let twice = raw_zip(&[("lessons.json", first), ("lessons.json", second)], zip64);
        refused_as_duplicate(&mut store, &twice, &format!("zip64 {zip64}"));
    }
}

#[test]
fn a_value_changed_here_after_the_backup_is_kept() {
    let (t1, t2) = (now() - chrono::Duration::days(2), now() - chrono::Duration::days(1));
    let (_a, mut taken) = fresh();
    taken.set_topic("git", 5, None, t1).expect("set");
    taken.set_topic("rust", 4, None, t1).expect("set");
    let (zip, _) = taken.backup_zip().expect("backup");

    let (_b, mut here) = fresh();
    here.set_topic("git", 8, None, t2).expect("set after the backup");
    here.set_topic("rust", 2, None, t1 - chrono::Duration::days(1)).expect("set before the backup");
    let out = here.restore_zip(&zip, now()).expect("restore");
    assert_eq!(here.confidence("git").expect("read"), Some(8), "newer here: kept");
    assert_eq!(here.confidence("rust").expect("read"), Some(4), "older here: the backup's");
    assert_eq!(out.newer_kept, 1);

    // The original's backups carry no times: their values win, as they always did.
    let (_c, mut theirs) = fresh();
    theirs.set_topic("docker", 1, None, now()).expect("set");
    theirs.restore_zip(&fixture_zip(), now()).expect("restore");
    assert_ne!(theirs.confidence("docker").expect("read"), Some(1), "the backup's value");
}

#[test]
fn two_names_of_one_topic_restore_once() {
    let knowledge = br#"{"groups":[],"topics":[{"topic":"Git","confidence":6,"group":null},{"topic":"git","confidence":2,"group":null}]}"#;
    let times = br#"[{"topic":"Git","updated_at":"2020-01-01T00:00:00.000Z"}]"#;
    let (_t, mut store) = fresh();
    store.set_topic("git", 9, None, now()).expect("set");
    let out = store
        .restore_zip(&zip_of(&[("knowledge.json", knowledge), ("ext/knowledge.json", times)]), now())
        .expect("restore");
    assert_eq!((out.topics, out.duplicate_topics), (1, 1));
    assert_eq!(out.renamed, [("Git".to_owned(), "git".to_owned())]);
    // The time of "Git" is the time of git: the value here, set since 2020, stays.
    assert_eq!(store.confidence("git").expect("read"), Some(9));
    assert_eq!(out.newer_kept, 1);
}
