//! The demo learner: an onboarded learner with a few weeks of lessons, answers, stars, reviews,
//! two lessons shared by a colleague and a course, so a newcomer can see the product without an
//! agent.
//!
//! The content is data (`assets/demo/`); this builder turns it into a timeline and replays every
//! event in time order through the operations real use goes through (onboarding, `log_lesson`,
//! a shared import, feedback, stars, review grades, a manual edit, the course tools). So the map,
//! the evidence log, the review log and every chart agree at every moment, as they do for a real
//! learner.

use chrono::{DateTime, Duration, Utc};
use devcoach_core::checked::{Check, CheckGrade};
use devcoach_core::course::{CourseId, StepKind, StepStatus};
use devcoach_core::feedback::FeedbackChoice;
use devcoach_core::fsrs::Grade;
use devcoach_core::git::GitContext;
use devcoach_core::ids::LessonId;
use devcoach_core::lesson::{Feedback, LessonContext, Level, NewLesson, Platform};
use devcoach_core::share::SharedLesson;
use devcoach_core::time::lesson_stamp;
use serde::Deserialize;

use crate::courses::NewCourse;
use crate::error::StoreError;
use crate::{Result, Store};

/// How many lessons the demo holds (checked against the data by a test).
pub const DEMO_LESSON_COUNT: usize = 30;

#[derive(Deserialize)]
struct Learner {
    onboarded_days_ago: i64,
    profile: Vec<Rating>,
    lessons: Vec<DemoLesson>,
    reviews: Vec<Review>,
    edits: Vec<Edit>,
    course: DemoCourse,
}

#[derive(Deserialize)]
struct Rating {
    topic: String,
    confidence: i64,
    group: Option<String>,
}

#[derive(Deserialize)]
struct DemoLesson {
    id: String,
    topic: String,
    categories: Vec<String>,
    title: String,
    level: String,
    summary: String,
    body: String,
    hours_ago: i64,
    feedback: Option<String>,
    #[serde(default)]
    starred: bool,
    shared_by: Option<String>,
    /// The lesson explained back through the agent, just after the answer.
    #[serde(default)]
    explain_back: Option<DemoCheck>,
}

#[derive(Deserialize)]
struct DemoCheck {
    answer: String,
    grade: String,
    #[serde(default)]
    missing: Option<String>,
}

#[derive(Deserialize)]
struct Review {
    lesson: String,
    grade: String,
    hours_ago: i64,
    /// The learner's words, when the agent checked the answer (else a self-graded review).
    #[serde(default)]
    answer: Option<String>,
    #[serde(default)]
    missing: Option<String>,
}

#[derive(Deserialize)]
struct Edit {
    topic: String,
    delta: i64,
    hours_ago: i64,
}

#[derive(Deserialize)]
struct DemoCourse {
    title: String,
    topic: String,
    goal: String,
    lesson: String,
    hours_ago: i64,
    steps: Vec<DemoStep>,
}

#[derive(Deserialize)]
struct DemoStep {
    title: String,
    kind: String,
    anchor: String,
    done_minutes_after: Option<i64>,
}

/// One thing that happened to the demo learner.
enum Event<'a> {
    Lesson(&'a DemoLesson),
    Feedback(&'a DemoLesson, Feedback),
    ExplainBack(&'a DemoLesson, &'a DemoCheck),
    Star(&'a DemoLesson),
    Review(&'a Review, Grade),
    Edit(&'a Edit),
    Course(&'a DemoCourse),
    StepDone(i64),
}

fn bad(what: impl std::fmt::Display) -> StoreError {
    StoreError::DemoData(what.to_string())
}

fn learner() -> Result<Learner> {
    serde_json::from_str(devcoach_assets::DEMO_LEARNER).map_err(bad)
}

/// The demo's events with their moments, oldest first.
fn timeline(l: &Learner, now: DateTime<Utc>) -> Result<Vec<(DateTime<Utc>, Event<'_>)>> {
    let ago = |hours: i64| now - Duration::hours(hours);
    let mut events = Vec::new();
    for lesson in &l.lessons {
        let at = ago(lesson.hours_ago);
        events.push((at, Event::Lesson(lesson)));
        if let Some(f) = &lesson.feedback {
            events.push((at + Duration::minutes(5), Event::Feedback(lesson, Feedback::parse(f).map_err(bad)?)));
        }
        if let Some(check) = &lesson.explain_back {
            events.push((at + Duration::minutes(6), Event::ExplainBack(lesson, check)));
        }
        if lesson.starred {
            events.push((at + Duration::minutes(7), Event::Star(lesson)));
        }
    }
    for r in &l.reviews {
        events.push((ago(r.hours_ago), Event::Review(r, Grade::parse(&r.grade).map_err(bad)?)));
    }
    for e in &l.edits {
        events.push((ago(e.hours_ago), Event::Edit(e)));
    }
    let course_at = ago(l.course.hours_ago);
    events.push((course_at, Event::Course(&l.course)));
    for (position, step) in (1..).zip(&l.course.steps) {
        if let Some(minutes) = step.done_minutes_after {
            events.push((course_at + Duration::minutes(minutes), Event::StepDone(position)));
        }
    }
    // A stable sort: events at the same moment keep the order they were listed in.
    events.sort_by_key(|(at, _)| *at);
    Ok(events)
}

fn new_lesson(d: &DemoLesson) -> Result<NewLesson> {
    Ok(NewLesson {
        id: LessonId::new(d.id.clone()).map_err(bad)?,
        topic_id: d.topic.clone(),
        categories: d.categories.clone(),
        title: d.title.clone(),
        level: Level::parse(&d.level).map_err(bad)?,
        summary: d.summary.clone(),
        body: d.body.clone(),
        context: LessonContext {
            task_context: Some(format!("Working on {} in the demo project", d.topic)),
            git: GitContext {
                project: Some("demo-app".into()),
                repository: Some("example/demo-app".into()),
                branch: Some("main".into()),
                commit_hash: Some(fake_commit(&d.id)),
                folder: None,
                repository_platform: Some(Platform::Github),
            },
        },
    })
}

/// What a colleague's devcoach put in the share code.
fn shared(d: &DemoLesson, sender: &str, at: DateTime<Utc>) -> Result<SharedLesson> {
    let lesson = new_lesson(d)?.into_lesson(at - Duration::days(2));
    Ok(SharedLesson::from_lesson(&lesson, false, Some(sender.to_owned()), lesson_stamp(at), "0.1.0"))
}

/// A stable, commit-looking hash for a demo lesson (FNV-1a, stretched to 40 hex digits).
fn fake_commit(seed: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out = String::with_capacity(40);
    while out.len() < 40 {
        for b in seed.bytes().chain(out.len().to_le_bytes()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        out.push_str(&format!("{h:016x}"));
    }
    out.truncate(40);
    out
}

impl Store {
    /// Fills an empty database (and the notebook) with the demo learner, replaying its events in
    /// time order through the real operations.
    pub fn seed_demo(&mut self, now: DateTime<Utc>) -> Result<()> {
        let l = learner()?;
        let topics: Vec<(String, i64)> = l.profile.iter().map(|r| (r.topic.clone(), r.confidence)).collect();
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for r in &l.profile {
            let Some(group) = &r.group else { continue };
            match groups.iter_mut().find(|(g, _)| g == group) {
                Some((_, members)) => members.push(r.topic.clone()),
                None => groups.push((group.clone(), vec![r.topic.clone()])),
            }
        }
        self.complete_onboarding(&topics, &groups, now - Duration::days(l.onboarded_days_ago))?;
        let mut course = None;
        for (at, event) in timeline(&l, now)? {
            self.replay(&event, at, &mut course)?;
        }
        self.seed_demo_work(now)?;
        self.data_dir().write_notebook(devcoach_assets::DEMO_NOTEBOOK)?;
        Ok(())
    }

    /// The demo learner said yes to work insights: five weeks of sessions, drifting from
    /// delegating toward asking to understand.
    fn seed_demo_work(&mut self, now: DateTime<Utc>) -> Result<()> {
        use devcoach_core::work_patterns::Signals;
        let delegating = Signals { prompts: 3, agent_edits: 6, ..Signals::default() };
        let debugging = Signals { prompts: 4, error_reports: 3, agent_edits: 4, ..Signals::default() };
        let understanding =
            Signals { prompts: 4, questions: 2, questions_after_edit: 2, agent_edits: 3, ..Signals::default() };
        let asking = Signals { prompts: 2, questions: 2, ..Signals::default() };
        let hybrid = Signals { prompts: 2, combined: 1, agent_edits: 2, ..Signals::default() };
        let weeks: [&[Signals]; 5] = [
            &[delegating, delegating, delegating, debugging, delegating],
            &[delegating, debugging, debugging, delegating],
            &[delegating, understanding, delegating, asking],
            &[understanding, delegating, hybrid, asking, understanding],
            &[understanding, asking, hybrid, delegating],
        ];
        self.write(|tx| {
            crate::settings::write_setting(tx, crate::work::WORK_INSIGHTS_KEY, "on")?;
            for (w, sessions) in weeks.iter().enumerate() {
                for (i, signals) in sessions.iter().enumerate() {
                    let back = i64::try_from((4 - w) * 7).unwrap_or(0) * 24 + i64::try_from(i).unwrap_or(0) * 20;
                    let session_id = format!("demo-{w}-{i}");
                    let session = crate::WorkSession { agent: "claude", session_id: &session_id, signals: *signals };
                    crate::work::record(tx, &session, now - Duration::hours(back))?;
                }
            }
            Ok(())
        })
    }

    /// One event; `course` is the demo course once it has been created.
    fn replay(&mut self, event: &Event<'_>, at: DateTime<Utc>, course: &mut Option<CourseId>) -> Result<()> {
        match *event {
            Event::Lesson(d) => match &d.shared_by {
                Some(sender) => {
                    self.import_shared(&shared(d, sender, at)?, at)?;
                }
                None => {
                    self.log_lesson(new_lesson(d)?, None, &GitContext::default(), at)?;
                }
            },
            Event::Feedback(d, f) => {
                self.record_feedback(&d.id, FeedbackChoice(Some(f)), at)?;
            }
            Event::Star(d) => {
                self.set_star(&d.id, true)?;
            }
            Event::ExplainBack(d, c) => {
                let grade = CheckGrade::parse(&c.grade).ok_or_else(|| bad(format!("no grade {}", c.grade)))?;
                let check = Check::new(&c.answer, c.missing.as_deref()).map_err(bad)?;
                self.record_explain_back(&d.id, grade, &check, at)?
                    .ok_or_else(|| bad(format!("no lesson {}", d.id)))?;
            }
            Event::Review(r, grade) => {
                let graded = match &r.answer {
                    Some(answer) => {
                        let check = Check::new(answer, r.missing.as_deref()).map_err(bad)?;
                        self.grade_checked_review(&r.lesson, grade, &check, at)?
                    }
                    None => self.grade_review(&r.lesson, grade, at)?,
                };
                graded.ok_or_else(|| bad(format!("no lesson {}", r.lesson)))?;
            }
            Event::Edit(e) => {
                self.update_knowledge(&e.topic, e.delta, at)?;
            }
            Event::Course(c) => {
                let new = NewCourse {
                    title: c.title.clone(),
                    topic_id: c.topic.clone(),
                    goal: Some(c.goal.clone()),
                    lesson_id: Some(c.lesson.clone()),
                    prerequisites: Vec::new(),
                };
                let id = CourseId::parse(&self.create_course(&new, at)?.id)?;
                let path = self.data_dir().course_document_path(&id);
                std::fs::write(&path, devcoach_assets::DEMO_COURSE_DOCUMENT)
                    .map_err(|e| StoreError::io("cannot write the demo course", &path, e))?;
                for step in &c.steps {
                    let kind = StepKind::parse(&step.kind).map_err(bad)?;
                    self.add_course_step(&id, &step.title, kind, &step.anchor, None, at)?;
                }
                *course = Some(id);
            }
            Event::StepDone(position) => {
                let id = course.as_ref().ok_or_else(|| bad("a course step is done before its course exists"))?;
                self.set_step_status(id, position, StepStatus::Done, at)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_reads_and_the_count_is_right() {
        let l = learner().expect("demo data");
        assert_eq!(l.lessons.len(), DEMO_LESSON_COUNT);
        let now = devcoach_core::time::parse_timestamp("2026-11-30T12:00:00Z").expect("now");
        let events = timeline(&l, now).expect("timeline");
        assert!(events.windows(2).all(|w| w[0].0 <= w[1].0), "oldest first");
        let onboarded = now - Duration::days(l.onboarded_days_ago);
        assert!(events.iter().all(|(at, _)| *at > onboarded && *at < now), "every event after onboarding, before now");
    }
}
