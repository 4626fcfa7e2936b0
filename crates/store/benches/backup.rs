//! Backup and restore of 10,000 lessons.

use std::time::Duration;

use chrono::Utc;
use criterion::{Criterion, criterion_group, criterion_main};
use devcoach_core::git::GitContext;
use devcoach_core::lesson::Lesson;
use devcoach_store::{DataDir, Store};

fn filled(n: usize) -> (tempfile::TempDir, Store) {
    let tmp = tempfile::TempDir::new().expect("tmp");
    let mut store = Store::open(&DataDir::new(tmp.path())).expect("open");
    store.seed_demo(Utc::now()).expect("demo");
    let records: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let mut lesson = Lesson {
                id: format!("bench-{i:05}"),
                timestamp: "2026-06-01T10:00:00Z".into(),
                categories: vec!["rust".into(), "bench".into()],
                summary: "A short summary of the lesson.".into(),
                body: Some("Paragraph one.\n\nParagraph two with `code`.\n\n💡 *Senior tip:* measure.".into()),
                ..Lesson::example("bench")
            }
            .in_git(GitContext {
                project: Some("bench".into()),
                repository: Some("example/bench".into()),
                branch: Some("main".into()),
                commit_hash: Some(format!("{i:040x}")),
                ..GitContext::default()
            });
            lesson.context.task_context = Some("bench".into());
            lesson.title = format!("Lesson {i}");
            serde_json::to_value(lesson).expect("json")
        })
        .collect();
    store.import_lessons(&records, Utc::now()).expect("import");
    (tmp, store)
}

fn bench(c: &mut Criterion) {
    let (_tmp, store) = filled(10_000);
    let (zip, _) = store.backup_zip().expect("backup");
    let mut group = c.benchmark_group("backup");
    group.sample_size(10).measurement_time(Duration::from_secs(15));
    group.bench_function("backup 10,000 lessons", |b| b.iter(|| store.backup_zip().expect("backup")));
    group.bench_function("restore 10,000 lessons into an empty database", |b| {
        b.iter_with_setup(
            || {
                let tmp = tempfile::TempDir::new().expect("tmp");
                let s = Store::open(&DataDir::new(tmp.path())).expect("open");
                (tmp, s)
            },
            |(_tmp, mut s)| s.restore_zip(&zip, Utc::now()).expect("restore"),
        );
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
