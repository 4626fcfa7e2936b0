//! Courses: ids, documents, steps and their order, statuses.

use chrono::Duration;
use devcoach_core::course::{CourseError, CourseId, CourseStatus, Prerequisite, StepKind, StepStatus};
use devcoach_store::{CourseFilter, NewCourse, Store, StoreError};

use crate::{fresh, now};

fn new(title: &str) -> NewCourse {
    NewCourse {
        title: title.into(),
        topic_id: "rust".into(),
        goal: Some("Own it".into()),
        lesson_id: None,
        prerequisites: vec![Prerequisite { concept: "traits".into(), known: false }],
    }
}

const DOC: &str = "<html><body><section id=\"step-1\"><pre><code class=\"language-rust\">fn main() {}</code></pre></section>\
<section id=\"step-2\"></section><section id=\"step-3\"></section>\
<script data-devcoach=\"highlighter\"></script></body></html>";

fn write_doc(store: &Store, id: &CourseId, html: &str) {
    std::fs::write(store.data_dir().course_document_path(id), html).expect("document");
}

fn course_error(r: Result<impl std::fmt::Debug, StoreError>) -> CourseError {
    match r {
        Err(StoreError::Course(e)) => e,
        other => panic!("expected a course error, got {other:?}"),
    }
}

#[test]
fn ids_are_slugs_made_unique_by_rows_and_folders() {
    let (_t, mut store) = fresh();
    let a = store.create_course(&new("Ownership, in depth!"), now()).expect("create");
    assert_eq!(a.id, "ownership-in-depth");
    assert_eq!((a.status, a.steps.len()), (CourseStatus::Active, 0));
    assert!(store.data_dir().courses_dir().join("ownership-in-depth").is_dir());
    let b = store.create_course(&new("Ownership in depth"), now()).expect("create");
    assert_eq!(b.id, "ownership-in-depth-2");
    std::fs::create_dir_all(store.data_dir().courses_dir().join("ownership-in-depth-3")).expect("stray folder");
    assert_eq!(store.create_course(&new("ownership in depth"), now()).expect("create").id, "ownership-in-depth-4");
    let mut seeded = new("Seeded");
    seeded.lesson_id = Some("missing".into());
    assert_eq!(course_error(store.create_course(&seeded, now())), CourseError::LessonNotFound("missing".into()));
}

#[test]
fn steps_need_the_document_and_its_anchors() {
    let (_t, mut store) = fresh();
    let c = store.create_course(&new("Ownership"), now()).expect("create");
    let id = CourseId::parse(&c.id).expect("id");
    assert!(matches!(
        course_error(store.add_course_step(&id, "One", StepKind::Concept, "step-1", None, now())),
        CourseError::NoDocument { .. }
    ));
    write_doc(&store, &id, DOC);
    let (_, s1) = store.add_course_step(&id, "One", StepKind::Concept, "step-1", None, now()).expect("step");
    assert_eq!(s1.position, 1);
    assert_eq!(
        course_error(store.add_course_step(&id, "Dup", StepKind::Concept, "step-1", None, now())),
        CourseError::AnchorTaken("step-1".into())
    );
    assert_eq!(
        course_error(store.add_course_step(&id, "Nope", StepKind::Check, "step-9", None, now())),
        CourseError::AnchorMissing("step-9".into())
    );
    assert_eq!(
        course_error(store.add_course_step(&id, "Far", StepKind::Check, "step-2", Some(5), now())),
        CourseError::AfterOutOfRange(1)
    );
    assert!(matches!(
        course_error(store.add_course_step(&id, "Bad", StepKind::Check, "Step 2", None, now())),
        CourseError::BadAnchor(_)
    ));
    store.add_course_step(&id, "Three", StepKind::Practice, "step-3", None, now()).expect("step");
    // Insert in the middle: later steps move down.
    let (course, s2) = store.add_course_step(&id, "Two", StepKind::Example, "step-2", Some(1), now()).expect("step");
    assert_eq!(s2.position, 2);
    let order: Vec<(i64, &str)> = course.steps.iter().map(|s| (s.position, s.anchor.as_str())).collect();
    assert_eq!(order, [(1, "step-1"), (2, "step-2"), (3, "step-3")]);
    // The document has code, so registering steps filled its highlighter once.
    let html = store.data_dir().read_course_document(&id).expect("read").expect("doc");
    assert!(devcoach_core::highlighter::has_highlighter(&html));
    assert_eq!(html.matches("<style data-devcoach=\"highlighter\">").count(), 1);
}

#[test]
fn statuses_complete_and_reopen() {
    let (_t, mut store) = fresh();
    let id = CourseId::parse(&store.create_course(&new("Ownership"), now()).expect("create").id).expect("id");
    write_doc(&store, &id, DOC);
    store.add_course_step(&id, "One", StepKind::Concept, "step-1", None, now()).expect("step");
    store.add_course_step(&id, "Two", StepKind::Check, "step-2", None, now()).expect("step");
    let later = now() + Duration::minutes(5);
    let c = store.set_step_status(&id, 1, StepStatus::Done, later).expect("write").expect("step");
    assert_eq!((c.status, c.steps[0].done_at.as_deref()), (CourseStatus::Active, Some("2026-11-30T12:05:00.000Z")));
    let c = store.set_step_status(&id, 2, StepStatus::Skipped, later).expect("write").expect("step");
    assert_eq!((c.status, c.completed_at.as_deref()), (CourseStatus::Completed, Some("2026-11-30T12:05:00.000Z")));
    let c = store.set_step_status(&id, 2, StepStatus::Todo, later).expect("write").expect("step");
    assert_eq!((c.status, c.completed_at), (CourseStatus::Active, None));
    assert!(store.set_step_status(&id, 9, StepStatus::Done, later).expect("write").is_none());
    let c = store.set_course_status(&id, CourseStatus::Abandoned, later).expect("write").expect("course");
    assert_eq!(c.status, CourseStatus::Abandoned);
    let filter = CourseFilter { status: Some(CourseStatus::Abandoned), ..CourseFilter::default() };
    assert_eq!(store.courses(&filter).expect("list").len(), 1);
    assert!(store.delete_course(&id).expect("delete"));
    assert!(!store.data_dir().course_dir(&id).exists());
    assert!(!store.delete_course(&id).expect("delete again"));
}

#[cfg(unix)]
#[test]
fn documents_behind_links_or_too_large_are_refused() {
    let (tmp, mut store) = fresh();
    let id = CourseId::parse(&store.create_course(&new("Ownership"), now()).expect("create").id).expect("id");
    let secret = tmp.path().join("secret.html");
    std::fs::write(&secret, DOC).expect("secret");
    std::os::unix::fs::symlink(&secret, store.data_dir().course_document_path(&id)).expect("link");
    assert!(matches!(
        course_error(store.add_course_step(&id, "One", StepKind::Concept, "step-1", None, now())),
        CourseError::BadDocument(_)
    ));
    std::fs::remove_file(store.data_dir().course_document_path(&id)).expect("unlink");
    write_doc(&store, &id, &format!("{DOC}{}", " ".repeat(3 * 1024 * 1024)));
    assert!(matches!(
        course_error(store.add_course_step(&id, "One", StepKind::Concept, "step-1", None, now())),
        CourseError::BadDocument(_)
    ));
}
