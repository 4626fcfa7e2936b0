//! The review queue with 100,000 cards: the due list a session opens with, the count the cue
//! engine asks for, and grading one card.
//!
//! Two collections: a realistic one (every card reviewed, due dates spread over the next year,
//! about 1 % due now) and a backlog (every card due, as when 100,000 lessons are first given
//! cards).

use std::time::Duration;

use chrono::{DateTime, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use devcoach_core::fsrs::Grade;
use devcoach_store::{DataDir, Store};

const CARDS: i64 = 100_000;

fn now() -> DateTime<Utc> {
    devcoach_core::time::parse_timestamp("2026-11-30T12:00:00Z").expect("time")
}

fn filled(backlog: bool) -> (tempfile::TempDir, Store) {
    let tmp = tempfile::TempDir::new().expect("tmp");
    drop(Store::open(&DataDir::new(tmp.path())).expect("create"));
    let mut raw = rusqlite::Connection::open(tmp.path().join("coaching.db")).expect("raw");
    let tx = raw.transaction().expect("tx");
    {
        let mut lesson = tx
            .prepare(
                "INSERT INTO lessons (id, timestamp, topic_id, categories, title, level, summary, body) \
                 VALUES (?1, '2026-01-01T10:00:00Z', 'rust', '[\"rust\"]', ?2, 'mid', 'A summary.', 'Body.')",
            )
            .expect("prepare");
        let mut card = tx
            .prepare(
                "INSERT INTO ext_review_cards (lesson_id, question, answer, source, stability, difficulty, due, last_review, reps, lapses, created_at) \
                 VALUES (?1, 'What is it?', 'This.', 'derived', 12.5, 5.0, ?2, '2026-11-01T10:00:00.000Z', 3, 0, '2026-01-01T10:00:00.000Z')",
            )
            .expect("prepare");
        for i in 0..CARDS {
            let id = format!("bench-{i:06}");
            lesson.execute(rusqlite::params![id, format!("Lesson {i}")]).expect("lesson");
            // About 1 % due (the last day of spread), the rest over the coming year.
            let days = if backlog { -1 - (i % 300) } else { (i % 365) - 3 };
            let due = devcoach_core::time::iso_ms(
                now() + chrono::Duration::days(days) + chrono::Duration::seconds(i % 86_400),
            );
            card.execute(rusqlite::params![id, due]).expect("card");
        }
    }
    tx.commit().expect("commit");
    let store = Store::open(&DataDir::new(tmp.path())).expect("open");
    (tmp, store)
}

fn queue(c: &mut Criterion) {
    for (name, backlog) in [("spread", false), ("backlog", true)] {
        let (_tmp, mut store) = filled(backlog);
        let (_, due) = store.due_reviews(now(), 10).expect("due");
        assert!(if backlog { due == CARDS } else { due > 0 && due < CARDS / 50 }, "{name}: {due} due");
        let mut g = c.benchmark_group(format!("reviews_100k_{name}"));
        g.measurement_time(Duration::from_secs(4));
        g.bench_function("due_reviews (10 + total)", |b| b.iter(|| store.due_reviews(now(), 10).expect("due")));
        g.bench_function("count_due_reviews", |b| b.iter(|| store.count_due_reviews(now()).expect("count")));
        g.bench_function("ensure_review_cards (nothing to do)", |b| {
            b.iter(|| store.ensure_review_cards(now()).expect("ensure"));
        });
        let mut i = 0;
        g.bench_function("grade_review", |b| {
            b.iter(|| {
                i += 1;
                store.grade_review(&format!("bench-{:06}", i % CARDS), Grade::Good, now()).expect("grade")
            });
        });
        g.finish();
    }
}

criterion_group!(benches, queue);
criterion_main!(benches);
