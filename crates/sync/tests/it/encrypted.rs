//! The encrypted mode: nothing readable in the folder, a wrong passphrase or a changed file
//! refused with nothing applied.

use devcoach_sync::{InitOptions, SyncError};

use crate::support::{Device, files};

fn encrypted(passphrase: &str) -> InitOptions {
    InitOptions { encrypt: true, passphrase: Some(passphrase.to_owned()), ..InitOptions::default() }
}

#[test]
fn an_encrypted_folder_holds_nothing_readable_and_opens_only_with_the_passphrase() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let mut a = Device::new();
    a.store
        .put_lesson(&devcoach_core::Lesson {
            title: "Borrowing in loops".into(),
            ..devcoach_core::Lesson::example("secret-lesson")
        })
        .expect("lesson");
    a.init_with(&target, &encrypted("correct horse")).expect("init");
    assert!(a.sync_at(0).logged > 0);
    for path in files(shared.path()) {
        let bytes = std::fs::read(&path).expect("read");
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("Borrowing") && !text.contains("secret-lesson"), "{} is readable", path.display());
    }

    // A second device: no passphrase, then a wrong one, then the right one.
    let mut b = Device::new();
    let no_pass = b.init_with(&target, &InitOptions::default()).expect_err("needs the passphrase");
    assert!(matches!(no_pass, SyncError::NeedPassphrase), "{no_pass}");
    let wrong = b.init_with(&target, &encrypted("wrong horse")).expect_err("wrong passphrase");
    assert!(matches!(wrong, SyncError::WrongPassphrase), "{wrong}");
    assert!(devcoach_sync::config(&b.store).expect("config").is_none(), "nothing was set up");
    b.init_with(&target, &encrypted("correct horse")).expect("joins");
    b.sync_at(1);
    assert_eq!(b.store.lesson("secret-lesson").expect("read").expect("there").title, "Borrowing in loops");
}

#[test]
fn a_changed_file_is_refused_and_nothing_of_it_applied() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let (mut a, mut b) = (Device::new(), Device::new());
    a.init_with(&target, &encrypted("pass")).expect("init");
    b.init_with(&target, &encrypted("pass")).expect("join");
    a.lesson("l1");
    a.sync_at(0);
    let a_id = devcoach_sync::config(&a.store).expect("config").expect("on").device;
    let segment = files(&shared.path().join("devices").join(a_id.as_str()))
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with(".dcs.age"))
        .expect("a's file");
    let mut bytes = std::fs::read(&segment).expect("read");
    let at = bytes.len() - 20;
    bytes[at] ^= 0x55;
    std::fs::write(&segment, &bytes).expect("tamper");
    let report = b.sync_at(1);
    assert_eq!(report.received, 0);
    assert!(b.store.lesson("l1").expect("read").is_none(), "nothing applied");
    let problem = report.problems.iter().find(|p| p.path == segment).expect("the file is named");
    assert!(problem.what.contains("does not decrypt"), "{}", problem.what);
}

#[test]
fn a_plain_device_cannot_join_an_encrypted_folder_by_accident_nor_the_reverse() {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let mut a = Device::new();
    a.init(&target);
    let mut b = Device::new();
    let err = b.init_with(&target, &encrypted("pass")).expect_err("plain folder");
    assert!(err.to_string().contains("not encrypted"), "{err}");
}

/// An encrypted folder `a` set up and synced a lesson into (the folder, its target, `a`).
fn encrypted_folder_with_a_lesson() -> (tempfile::TempDir, String, Device) {
    let shared = tempfile::tempdir().expect("folder");
    let target = shared.path().to_string_lossy().into_owned();
    let mut a = Device::new();
    a.init_with(&target, &encrypted("a long passphrase")).expect("encrypted");
    a.lesson("l1");
    a.sync_at(0);
    (shared, target, a)
}

/// Someone rewrites the marker of an encrypted folder to say plain: a new device does not join
/// it, and nothing of its record reaches the folder in the clear.
#[test]
fn a_marker_rewritten_to_plain_does_not_make_a_newcomer_send_in_the_clear() {
    let (shared, target, _a) = encrypted_folder_with_a_lesson();
    std::fs::write(
        shared.path().join("devcoach-sync.json"),
        r#"{"format":"devcoach-sync","version":1,"encrypted":false}"#,
    )
    .expect("rewritten");
    let before = crate::support::files(shared.path());
    let mut b = Device::new();
    b.lesson("secret");
    let err = b.init_with(&target, &InitOptions::default()).expect_err("refused");
    assert!(err.to_string().contains("changed by someone else"), "{err}");
    assert_eq!(crate::support::files(shared.path()), before, "nothing written");
}

/// The host strips an encrypted folder (its key and every sealed file gone, the marker set to
/// plain). A newcomer who brings the passphrase expects encryption: refused, nothing sent.
#[test]
fn a_stripped_encrypted_folder_is_not_joined_in_the_clear_by_a_device_with_the_passphrase() {
    let (shared, target, _a) = encrypted_folder_with_a_lesson();
    for path in crate::support::files(shared.path()) {
        if path.to_string_lossy().ends_with(".age") {
            std::fs::remove_file(&path).expect("stripped");
        }
    }
    std::fs::write(
        shared.path().join("devcoach-sync.json"),
        r#"{"format":"devcoach-sync","version":1,"encrypted":false}"#,
    )
    .expect("rewritten");
    let before = crate::support::files(shared.path());
    let mut b = Device::new();
    b.lesson("secret");
    let with_passphrase = InitOptions { passphrase: Some("a long passphrase".into()), ..InitOptions::default() };
    let err = b.init_with(&target, &with_passphrase).expect_err("refused");
    assert!(matches!(err, SyncError::Key(devcoach_sync::KeyProblem::PassphraseForPlain)), "{err}");
    assert!(err.to_string().contains("not encrypted"), "{err}");
    assert!(devcoach_sync::config(&b.store).expect("config").is_none(), "nothing was set up");
    assert_eq!(crate::support::files(shared.path()), before, "nothing written");

    // A fresh folder with a passphrase but no --encrypt is a mistake too: said, not guessed.
    let fresh = tempfile::tempdir().expect("fresh");
    let err = b.init_with(&fresh.path().to_string_lossy(), &with_passphrase).expect_err("refused");
    assert!(err.to_string().contains("--encrypt"), "{err}");
    assert!(crate::support::files(fresh.path()).is_empty(), "nothing written");
}
