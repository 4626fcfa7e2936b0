//! Three devices with concurrent edits converge, through a folder and through git.

use devcoach_core::Feedback;
use devcoach_core::feedback::FeedbackChoice;
use devcoach_core::sync::SYNCED;
use devcoach_store::Store;
use proptest::prelude::*;

use crate::support::{Device, git, t0};

/// The edits of the issue, made on three devices that last synced with each other.
fn concurrent_edits(a: &mut Device, b: &mut Device, c: &mut Device) {
    // The same lesson starred on one and deleted on another.
    assert!(a.store.set_star("l1", true).expect("star"));
    assert!(b.store.delete_lesson("l1").expect("delete"));
    // The same topic's confidence moved on two.
    a.store.update_knowledge("git", 2, t0()).expect("up");
    c.store.update_knowledge("git", -1, t0()).expect("down");
    // And the rest of a day's work: a new lesson, feedback, a group, a review card.
    b.lesson("l4");
    c.store.record_feedback("l2", FeedbackChoice(Some(Feedback::Understood)), t0()).expect("feedback");
    a.store.add_group("tools").expect("group");
    c.store.ensure_review_cards(t0()).expect("cards");
}

fn base(a: &mut Device) {
    for id in ["l1", "l2", "l3"] {
        a.lesson(id);
    }
    a.store.set_topic("git", 5, None, t0()).expect("topic");
}

fn check_converged(a: &Device, b: &Device, c: &Device) {
    let records = a.records();
    assert_eq!(records, b.records(), "a and b differ");
    assert_eq!(records, c.records(), "a and c differ");
    let lessons = &records["lessons"];
    assert!(!lessons.contains_key("[\"l1\"]"), "the deletion wins over the concurrent star");
    assert!(lessons.contains_key("[\"l4\"]"));
    assert_eq!(a.store.confidence("git").expect("git"), Some(6), "5 + 2 - 1");
    assert_eq!(records["lessons"]["[\"l2\"]"]["feedback"], "understood");
    assert!(records["knowledge_group_names"].contains_key("[\"tools\"]"));
    assert!(!records["ext_review_cards"].is_empty(), "review cards travel");
    assert!(records["ext_review_cards"].keys().all(|k| !k.contains("\"l1\"")), "no card for the deleted lesson");
}

fn run_scenario(target: &str) {
    let (mut a, mut b, mut c) = (Device::new(), Device::new(), Device::new());
    base(&mut a);
    a.init(target);
    a.sync_at(0);
    b.init(target);
    b.sync_at(1);
    c.init(target);
    c.sync_at(2);
    assert_eq!(c.store.confidence("git").expect("git"), Some(5), "c starts from a's map");
    concurrent_edits(&mut a, &mut b, &mut c);
    for round in 0..2 {
        let at = 10 + round * 10;
        a.sync_at(at);
        b.sync_at(at + 1);
        c.sync_at(at + 2);
    }
    check_converged(&a, &b, &c);
    // Converged means quiet: another round logs nothing and changes nothing.
    for d in [&mut a, &mut b, &mut c] {
        let report = d.sync_at(40);
        assert_eq!((report.logged, report.written), (0, 0), "{report:?}");
    }
}

#[test]
fn three_devices_converge_through_a_shared_folder() {
    let shared = tempfile::tempdir().expect("folder");
    run_scenario(&shared.path().join("devcoach").to_string_lossy());
}

#[test]
fn three_devices_converge_through_a_bare_git_repository() {
    let remote = tempfile::tempdir().expect("remote");
    let bare = remote.path().join("record.git");
    git(&["init", "--quiet", "--bare", &bare.to_string_lossy()]);
    run_scenario(&format!("file://{}", bare.display()));
    // Each device's files came in its own commits, on main.
    let log = std::process::Command::new("git")
        .args(["--git-dir", &bare.to_string_lossy(), "log", "--format=%s", "main"])
        .output()
        .expect("log");
    assert!(String::from_utf8_lossy(&log.stdout).contains("devcoach sync from"));
}

#[test]
fn a_write_by_another_program_is_picked_up_and_logged() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let (mut a, mut b) = (Device::new(), Device::new());
    a.lesson("l1");
    a.init(&target);
    a.sync_at(0);
    b.init(&target);
    b.sync_at(1);
    // The TypeScript devcoach knows nothing of sync: it writes the tables directly.
    let sql = rusqlite::Connection::open(a.dir.db_path()).expect("open");
    sql.execute("UPDATE lessons SET starred = 1 WHERE id = 'l1'", []).expect("ts write");
    sql.execute("INSERT INTO settings (key, value) VALUES ('max_per_day', '4') ON CONFLICT(key) DO UPDATE SET value = excluded.value", [])
        .expect("ts setting");
    drop(sql);
    assert_eq!(a.sync_at(5).logged, 2);
    b.sync_at(6);
    assert!(b.store.lesson("l1").expect("read").expect("there").starred);
    assert_eq!(a.records(), b.records());
}

#[test]
fn a_deleted_lesson_taken_back_from_its_backup_comes_back_everywhere() {
    let (_shared, _target, mut a, mut b) = crate::support::pair();
    a.lesson("l1");
    a.lesson("l2");
    a.sync_at(0);
    b.sync_at(1);
    // The delete as the dashboard and the CLI do it: a backup first, then the delete.
    let backup =
        devcoach_store::take_safety_backup(&a.store, devcoach_store::SafetyKind::Delete, "l1", t0()).expect("backup");
    assert!(a.store.delete_lessons(&["l1".to_owned()]).expect("delete") == 1);
    a.sync_at(2);
    b.sync_at(3);
    assert!(b.store.lesson("l1").expect("read").is_none(), "the delete travelled");
    let ids = ["l1".to_owned()];
    devcoach_store::restore_file_scoped(&mut a.store, &backup, t0(), devcoach_store::Scope::Lessons(&ids))
        .expect("undo");
    a.sync_at(4);
    b.sync_at(5);
    assert!(b.store.lesson("l1").expect("read").is_some(), "the undo travelled too");
    assert_eq!(a.records(), b.records());
}

/// Random edits on three devices with random syncs between them; two rounds of syncs at the
/// end leave the three stores row for row alike.
fn edit(device: &mut Device, step: u8, n: u8) {
    let id = format!("l{}", n % 4);
    match step % 6 {
        0 => device.lesson(&id),
        1 => {
            let _ = device.store.set_star(&id, n.is_multiple_of(2));
        }
        2 => {
            let _ = device.store.delete_lesson(&id);
        }
        3 => {
            let _ = device.store.update_knowledge("git", i64::from(n % 5) - 2, t0());
        }
        4 => {
            let _ = device.store.record_feedback(&id, FeedbackChoice(Some(Feedback::Know)), t0());
        }
        _ => {
            let _ = device.store.remove_topic("git");
        }
    }
}

/// Someone who can write the folder adds a file of their own, its clock up to two days ahead
/// and its counter sometimes full: a setting and a star, as a device nobody knows.
fn forge(shared: &std::path::Path, i: usize, minute: i64, n: u8) {
    use devcoach_core::sync::segment::Header;
    use devcoach_core::sync::{Change, DeviceId, Hlc, Op};
    let device = DeviceId::new(&format!("{:016x}", 0xf0f0_0000_0000_0000_u64 + i as u64)).expect("id");
    let ahead = chrono::Duration::hours(i64::from(n % 48)) + chrono::Duration::minutes(minute);
    let at = Hlc((t0() + ahead).timestamp_millis(), if n.is_multiple_of(2) { u32::MAX } else { 0 });
    let row = |pairs: &[(&str, serde_json::Value)]| pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    let ops = vec![
        Op {
            device: device.clone(),
            seq: 1,
            at,
            table: "settings".into(),
            key: "[\"max_per_day\"]".into(),
            change: Change::Update(row(&[("key", "max_per_day".into()), ("value", (1 + n % 5).to_string().into())])),
        },
        Op {
            device: device.clone(),
            seq: 2,
            at,
            table: "lessons".into(),
            key: format!("[\"l{}\"]", n % 4),
            change: Change::Update(row(&[("starred", i64::from(n % 2).into())])),
        },
    ];
    let folder = devcoach_sync::folder::Folder { root: shared.to_owned(), key: None, sent: None };
    folder.write_segment(&Header::new(device, 1, 2, None, "x".into()), &ops).expect("forged file");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    /// With files forged into the folder whose clocks run ahead (held until their time), the
    /// three devices still end alike: before the forged stamps come due, and after.
    #[test]
    fn random_edits_and_syncs_on_three_devices_converge(steps in prop::collection::vec((0..3usize, 0..8u8, any::<u8>()), 1..30)) {
        let shared = tempfile::tempdir().expect("folder");
        let target = shared.path().to_string_lossy().into_owned();
        let mut devices = [Device::new(), Device::new(), Device::new()];
        for d in &mut devices {
            d.init(&target);
        }
        // The first device writes a snapshot every two files, superseding its history while
        // the others are still reading it.
        rusqlite::Connection::open(devices[0].dir.db_path())
            .and_then(|c| c.execute("INSERT INTO ext_sync_state (key, value) VALUES ('snapshot_after', '2')", []))
            .expect("snapshot_after");
        for (i, (who, step, n)) in steps.into_iter().enumerate() {
            let minute = i64::try_from(i).unwrap_or(0);
            if step == 6 {
                devices[who].sync_at(minute);
            } else if step == 7 {
                forge(shared.path(), i, minute, n);
            } else {
                edit(&mut devices[who], step, n);
            }
        }
        // Minutes later, and three days later when every forged stamp has come due.
        for start in [100, 3 * 24 * 60] {
            for round in 0..2 {
                for (i, d) in devices.iter_mut().enumerate() {
                    d.sync_at(start + round * 10 + i64::try_from(i).unwrap_or(0));
                }
            }
            let records = devices[0].records();
            prop_assert_eq!(&records, &devices[1].records());
            prop_assert_eq!(&records, &devices[2].records());
        }
        let records = devices[0].records();
        // Every table the tests care about was compared.
        prop_assert!(SYNCED.iter().all(|t| records.contains_key(t.name)));
        // A device that joins now, from the snapshots and what followed them, ends alike too.
        let mut late = Device::new();
        late.init(&target);
        late.sync_at(3 * 24 * 60 + 50);
        prop_assert_eq!(&records, &late.records());
    }
}

#[test]
fn the_store_stays_what_it_was_when_sync_is_off() {
    let mut a = Device::new();
    a.lesson("l1");
    let err = devcoach_sync::sync(&mut a.store, &a.dir, t0(), &mut |_, _| {}).expect_err("not set up");
    assert!(err.to_string().contains("devcoach sync init"), "{err}");
    let reopened = Store::open(&a.dir).expect("open");
    assert!(reopened.lesson("l1").expect("read").is_some());
}

#[test]
fn a_device_that_joins_takes_the_record_and_adds_only_what_it_alone_has() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let (mut a, mut b) = (Device::new(), Device::new());
    // The learner's settings and map on a; a fresh install's defaults, one topic of its own and
    // one the learner already has, on b.
    let update = devcoach_core::settings::SettingUpdate::for_agent("max_per_day", "5").expect("update");
    a.store.apply_setting(&update).expect("set");
    a.store.set_topic("git", 8, None, t0()).expect("topic");
    a.lesson("l1");
    b.store.set_topic("git", 3, None, t0()).expect("topic");
    b.store.set_topic("sqlite", 4, None, t0()).expect("topic");
    b.lesson("only-on-b");
    a.init(&target);
    a.sync_at(0);
    b.init(&target);
    b.sync_at(1);
    a.sync_at(2);
    for d in [&a, &b] {
        assert_eq!(d.store.settings().expect("settings").max_per_day, 5, "the learner's setting stays");
        assert_eq!(d.store.confidence("git").expect("git"), Some(8), "the record's confidence, not the newcomer's");
        assert_eq!(d.store.confidence("sqlite").expect("sqlite"), Some(4));
        assert!(d.store.lesson("only-on-b").expect("read").is_some());
    }
    assert_eq!(a.records(), b.records());
}

#[test]
fn a_fresh_install_that_sets_the_folder_up_first_does_not_replace_the_learners_settings() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let (mut fresh, mut real) = (Device::new(), Device::new());
    let update = devcoach_core::settings::SettingUpdate::for_agent("max_per_day", "5").expect("update");
    real.store.apply_setting(&update).expect("set");
    fresh.init(&target);
    fresh.sync_at(0);
    real.init(&target);
    real.sync_at(1);
    fresh.sync_at(2);
    for d in [&fresh, &real] {
        assert_eq!(d.store.settings().expect("settings").max_per_day, 5);
    }
    // And when neither joins (two folders set up at once, merged later), the same.
    let other = tempfile::tempdir().expect("folder");
    let (mut x, mut y) = (Device::new(), Device::new());
    y.store.apply_setting(&update).expect("set");
    x.init(&other.path().join("x").to_string_lossy());
    y.init(&other.path().join("y").to_string_lossy());
    x.sync_at(0);
    y.sync_at(1);
    std::fs::rename(other.path().join("y/devices"), other.path().join("y-devices")).expect("move");
    for entry in std::fs::read_dir(other.path().join("y-devices")).expect("list").flatten() {
        std::fs::rename(entry.path(), other.path().join("x/devices").join(entry.file_name())).expect("merge");
    }
    x.sync_at(2);
    assert_eq!(x.store.settings().expect("settings").max_per_day, 5);
}

#[test]
fn sync_off_then_on_again_sends_what_changed_meanwhile() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let (mut a, mut b) = (Device::new(), Device::new());
    a.lesson("l1");
    a.store.set_topic("git", 5, None, t0()).expect("topic");
    a.init(&target);
    a.sync_at(0);
    b.init(&target);
    b.sync_at(1);
    let before = devcoach_sync::config(&b.store).expect("config").expect("on").device;
    assert!(devcoach_sync::off(&mut b.store, &b.dir).expect("off"));
    b.store.set_star("l1", true).expect("star");
    b.store.update_knowledge("git", 2, t0()).expect("up");
    b.init(&target);
    assert_eq!(devcoach_sync::config(&b.store).expect("config").expect("on").device, before, "the same device again");
    assert!(b.sync_at(2).logged > 0);
    a.sync_at(3);
    assert!(a.store.lesson("l1").expect("read").expect("there").starred);
    assert_eq!(a.store.confidence("git").expect("git"), Some(7));
}

#[test]
fn the_notebook_and_course_documents_travel_and_a_hostile_name_writes_nothing() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let (mut a, mut b) = (Device::new(), Device::new());
    a.dir.write_notebook("# Notes\nLearns best from a failing test first.\n").expect("notebook");
    let course = a
        .store
        .create_course(
            &devcoach_store::NewCourse {
                title: "Ownership in depth".into(),
                topic_id: "rust".into(),
                goal: None,
                lesson_id: None,
                prerequisites: Vec::new(),
            },
            t0(),
        )
        .expect("course");
    let id = devcoach_core::course::CourseId::parse(&course.id).expect("id");
    let doc = a.dir.course_document_path(&id);
    std::fs::create_dir_all(doc.parent().expect("dir")).expect("mkdir");
    std::fs::write(&doc, "<h1>Ownership</h1>").expect("doc");
    a.init(&target);
    a.sync_at(0);
    b.init(&target);
    b.sync_at(1);
    assert_eq!(b.dir.read_notebook().expect("read"), "# Notes\nLearns best from a failing test first.\n");
    assert_eq!(std::fs::read_to_string(b.dir.course_document_path(&id)).expect("doc"), "<h1>Ownership</h1>");
    // Edited on b, it comes back to a.
    b.dir.write_notebook("# Notes\nPrefers diagrams.\n").expect("edit");
    b.sync_at(2);
    a.sync_at(3);
    assert_eq!(a.dir.read_notebook().expect("read"), "# Notes\nPrefers diagrams.\n");
    assert_eq!(a.records(), b.records());

    // A record naming a path outside the data folder is refused, and nothing is written there.
    let device = devcoach_core::sync::DeviceId::new("0ddba11c0ddba11c").expect("id");
    let row = |name: &str| -> devcoach_core::sync::Row {
        [("name".to_owned(), serde_json::json!(name)), ("text".to_owned(), serde_json::json!("pwned"))].into()
    };
    let evil = |seq, name: &str| devcoach_core::sync::Op {
        device: device.clone(),
        seq,
        at: devcoach_core::sync::Hlc(t0().timestamp_millis(), 0),
        table: "documents".into(),
        key: serde_json::to_string(&[name]).expect("key"),
        change: devcoach_core::sync::Change::Create(row(name)),
    };
    let outside = shared.path().join("outside.txt");
    let ops = vec![
        evil(1, "course:../../../outside"),
        evil(2, &format!("../{}", outside.display())),
        evil(3, "course:Bad/Id"),
    ];
    let folder = devcoach_sync::folder::Folder { root: shared.path().to_owned(), key: None, sent: None };
    folder
        .write_segment(&devcoach_core::sync::segment::Header::new(device, 1, 3, None, "x".into()), &ops)
        .expect("write");
    let report = b.sync_at(4);
    assert_eq!(report.refused, 3, "{report:?}");
    assert!(!outside.exists());
    assert!(!b.dir.root().parent().expect("home").join("outside").exists());
}

#[test]
fn a_topic_moved_into_two_groups_at_once_ends_in_one_and_a_removed_topic_in_none() {
    let (_shared, _target, mut a, mut b) = crate::support::pair();
    for topic in ["git", "docker"] {
        a.store.set_topic(topic, 5, None, t0()).expect("topic");
    }
    a.sync_at(0);
    b.sync_at(1);
    let group = |name: &str| devcoach_core::knowledge::GroupTarget::Group(name.to_owned());
    a.store.assign_group("git", &group("Data")).expect("assign");
    b.store.assign_group("git", &group("Practices")).expect("assign");
    a.store.remove_topic("docker").expect("remove");
    b.store.assign_group("docker", &group("Data")).expect("assign");
    for minute in 2..6 {
        a.sync_at(minute);
        b.sync_at(minute);
    }
    assert_eq!(a.records(), b.records());
    let groups = &a.records()["knowledge_groups"];
    let git: Vec<&String> = groups.keys().filter(|k| k.contains("\"git\"")).collect();
    assert_eq!(git.len(), 1, "git is in one group: {groups:?}");
    assert!(!groups.keys().any(|k| k.contains("\"docker\"")), "a removed topic has no group: {groups:?}");
    assert_eq!(a.store.confidence("docker").expect("docker"), None);
}
