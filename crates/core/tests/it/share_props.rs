//! Property tests: any payload survives every transport, and no input makes a decoder panic.

use devcoach_core::lesson::{Level, Platform};
use devcoach_core::share::file::{parse_file, render_file};
use devcoach_core::share::payload::SharedLesson;
use devcoach_core::share::text::render_text;
use devcoach_core::share::{SharedInput, decode_code, encode_code, parse_shared_input};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    // Printable text including quotes, commas, colons, hashes, non-ASCII and emoji.
    proptest::string::string_regex("[ -~éü—💡\"',:#\\[\\]\\\\]{0,40}").expect("regex")
}

fn nonempty() -> impl Strategy<Value = String> {
    text().prop_filter("non-empty", |s| !s.trim().is_empty()).prop_map(|s| s.trim().to_owned())
}

/// Non-empty text that sometimes is a word the front matter reads specially.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![4 => nonempty(), 1 => Just("null".to_owned()), 1 => Just("[1]".to_owned())]
}

/// A timestamp as a file may carry it: usually well formed, sometimes any text at all.
fn stamp() -> impl Strategy<Value = String> {
    prop_oneof![3 => Just("2026-01-01T00:00:00Z".to_owned()), 1 => Just("null".to_owned()), 2 => text()]
}

fn level() -> impl Strategy<Value = Level> {
    prop_oneof![Just(Level::Junior), Just(Level::Mid), Just(Level::Senior)]
}

prop_compose! {
    fn payload()(
        title in nonempty(), summary in text(), body in proptest::option::of(nonempty()), topic_id in word(),
        categories in proptest::collection::vec(word(), 0..5), level in level(),
        task_context in proptest::option::of(text()), branch in proptest::option::of(text()),
        repository in proptest::option::of(nonempty()), origin_id in word(),
        shared_by in proptest::option::of(nonempty()), origin_timestamp in stamp(), shared_at in stamp(),
        app_version in prop_oneof![Just("0.1.0".to_owned()), word()],
    ) -> SharedLesson {
        SharedLesson {
            title, summary, body, topic_id, categories, level, task_context, project: None, branch, commit_hash: None,
            repository_platform: repository.as_ref().map(|_| Platform::Github), repository,
            origin_id, origin_timestamp, shared_by, shared_at, app_version,
        }
    }
}

proptest! {
    #[test]
    fn code_round_trip(p in payload()) {
        prop_assert_eq!(decode_code(&encode_code(&p)), Ok(p));
    }

    #[test]
    fn text_transport_round_trip(p in payload()) {
        let code = encode_code(&p);
        let text = render_text(&p, &code);
        prop_assert_eq!(parse_shared_input(&text), Ok(SharedInput::Shared(p)));
    }

    #[test]
    fn file_round_trip(p in payload()) {
        // A file carries the body as markdown: surrounding blank space is not kept, and a
        // missing body is written as the summary (read back as the body, or as none when the
        // summary is blank).
        let mut expected = p.clone();
        expected.body = Some(p.body.clone().unwrap_or_else(|| p.summary.clone()).trim().to_owned()).filter(|b| !b.is_empty());
        let read = parse_file(&render_file(&p));
        prop_assert_eq!(read.clone(), Ok(expected));
        // And a file read is written back as itself.
        let read = read.expect("read");
        prop_assert_eq!(parse_file(&render_file(&read)), Ok(read));
    }

    /// Random text is refused by every decoder, each time in words (never a panic, never an
    /// empty message), and a random body behind the code prefix is not a lesson.
    #[test]
    fn decoders_refuse_random_text_in_words(s in "\\PC{0,300}") {
        prop_assume!(!s.trim_start().starts_with("devcoach:") && !s.trim_start().starts_with('['));
        prop_assert!(decode_code(&s).is_err());
        let said = |e: &dyn std::fmt::Display| !e.to_string().trim().is_empty();
        prop_assert!(parse_file(&s).err().is_none_or(|e| said(&e)));
        for input in [s.clone(), format!("devcoach:lesson:1:{s}"), format!("---\n{s}")] {
            match parse_shared_input(&input) {
                Err(e) => prop_assert!(said(&e), "{:?}", input),
                Ok(SharedInput::Shared(p)) => prop_assert!(!p.title.trim().is_empty(), "{:?}", input),
                Ok(SharedInput::Lessons(_)) => {}
            }
        }
        let behind_prefix = format!("devcoach:lesson:1:{s}");
        prop_assert!(parse_shared_input(&behind_prefix).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Empty to 50 KB bodies of arbitrary unicode (including emoji, RTL and combining marks).
    #[test]
    fn big_and_empty_bodies_round_trip(p in payload(), body in "\\PC{0,2000}", repeat in 0usize..26) {
        let mut p = p;
        p.body = Some(body.repeat(repeat));
        prop_assert_eq!(decode_code(&encode_code(&p)), Ok(p.clone()));
        let code = encode_code(&p);
        prop_assert_eq!(parse_shared_input(&render_text(&p, &code)), Ok(SharedInput::Shared(p)));
    }
}
