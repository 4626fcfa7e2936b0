//! Share codec speed on a 50 KB lesson: encode, decode, and the any-input parser on a card.

use criterion::{Criterion, criterion_group, criterion_main};
use devcoach_core::lesson::Level;
use devcoach_core::share::payload::SharedLesson;
use devcoach_core::share::{decode_code, encode_code, parse_shared_input, text};

fn lesson_50k() -> SharedLesson {
    let paragraph = "A lesson paragraph about ownership, borrowing and lifetimes, with `inline code` and a list:\n\n- one\n- two\n\n";
    let body: String = paragraph.repeat(50 * 1024 / paragraph.len() + 1);
    SharedLesson {
        title: "Fifty kilobytes of lesson".into(),
        summary: "A big one.".into(),
        body: Some(body),
        topic_id: "rust".into(),
        categories: vec!["rust".into(), "memory".into()],
        level: Level::Senior,
        task_context: None,
        project: None,
        branch: None,
        commit_hash: None,
        repository: None,
        repository_platform: None,
        origin_id: "big".into(),
        origin_timestamp: "2026-01-01T00:00:00Z".into(),
        shared_by: Some("Ada".into()),
        shared_at: "2026-01-02T00:00:00Z".into(),
        app_version: "0.1.0".into(),
    }
}

fn bench(c: &mut Criterion) {
    let lesson = lesson_50k();
    let code = encode_code(&lesson);
    let (card, _) = text::share_text(&lesson);
    c.bench_function("share: encode a 50 KB lesson", |b| b.iter(|| encode_code(std::hint::black_box(&lesson))));
    c.bench_function("share: decode a 50 KB lesson", |b| b.iter(|| decode_code(std::hint::black_box(&code))));
    c.bench_function("share: parse a pasted 50 KB card", |b| {
        b.iter(|| parse_shared_input(std::hint::black_box(&card)));
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
