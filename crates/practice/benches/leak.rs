//! The leak scan on a 10 KB coach reply against the whole vocabulary (target: ≤ 50 µs median),
//! and the code detector on the same text.

use criterion::{Criterion, criterion_group, criterion_main};
use devcoach_practice::{Toolbox, classify_code, scan_leaks};

/// A realistic reply: Socratic prose with a few names in it, repeated to 10 KB.
fn reply_10k() -> String {
    let paragraph = "Good question. Before choosing an approach, look at what the input guarantees: is it \
        already in order, can values repeat, and what should happen when the list is empty? Try tracing \
        the second example by hand and note which comparisons you repeat. Could you keep something from \
        one step to the next instead of starting over? Some people reach for a hash map here, others for \
        two pointers; which of your observations would decide between them?\n\n";
    paragraph.repeat(10 * 1024 / paragraph.len() + 1)[..10 * 1024].to_owned()
}

fn bench(c: &mut Criterion) {
    let toolbox = Toolbox::builtin();
    let reply = reply_10k();
    let learner = ["req: the input may be empty; values can repeat; return the indices"];
    assert!(!scan_leaks(toolbox, &reply, &learner, None).is_empty(), "the bench must find names");
    c.bench_function("practice: leak scan, 10 KB reply, full vocabulary", |b| {
        b.iter(|| scan_leaks(toolbox, std::hint::black_box(&reply), &learner, None));
    });
    c.bench_function("practice: fold only (part of the scan)", |b| {
        b.iter(|| devcoach_practice::detect::names::fold(std::hint::black_box(&reply)));
    });
    c.bench_function("practice: code detector, 10 KB of prose", |b| {
        b.iter(|| classify_code(std::hint::black_box(&reply)));
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
