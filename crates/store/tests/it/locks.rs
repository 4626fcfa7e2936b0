//! Waiting for another process's lock: a read or a write waits it out rather than failing.

use std::time::{Duration, Instant};

use devcoach_store::{DataDir, Store};
use rusqlite::Connection;

/// Another connection holds the file's exclusive lock for 4 s (longer than the original's 3 s
/// wait, as a descheduled writer can on a loaded machine): a read and a write made meanwhile
/// both wait and succeed.
#[test]
fn a_lock_held_past_three_seconds_is_waited_out() {
    let tmp = tempfile::TempDir::new().expect("temp dir");
    let dir = DataDir::new(tmp.path());
    drop(Store::open(&dir).expect("created"));
    let holder = Connection::open(dir.db_path()).expect("raw");
    holder.execute_batch("BEGIN EXCLUSIVE").expect("exclusive lock");
    let held = Duration::from_secs(4);
    let release = std::thread::spawn(move || {
        std::thread::sleep(held);
        holder.execute_batch("COMMIT").expect("released");
    });
    let started = Instant::now();
    let mut store = Store::open(&dir).expect("the open waits for the lock");
    assert_eq!(store.total_lessons().expect("the read waits for the lock"), 0);
    assert!(!store.set_star("no-such-lesson", true).expect("the write waits for the lock"));
    assert!(started.elapsed() >= Duration::from_secs(3), "the lock was really held: {:?}", started.elapsed());
    release.join().expect("holder");
}
