//! Checked answers (`ext_checked_answers`, our own table): explain-backs and checked reviews,
//! and the calibration read from them against the learner's self-reports.

use chrono::{DateTime, Utc};
use devcoach_core::checked::{
    Check, CheckGrade, CheckKind, CheckedAnswer, Claim, SelfReport, TopicCalibration, calibrate,
};
use devcoach_core::evidence::EvidenceCause;
use devcoach_core::fsrs::Grade;
use devcoach_core::knowledge_model::Observation;
use devcoach_core::lesson::Feedback;
use devcoach_core::time::{iso_ms, parse_timestamp};
use rusqlite::{Connection, params};

use crate::knowledge::{self, Because};
use crate::{Result, Store};

/// What recording an explain-back did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplainBackOutcome {
    pub topic_id: String,
    pub grade: CheckGrade,
    pub confidence_before: Option<i64>,
    pub confidence: Option<i64>,
    /// The same words with the same grade were already recorded for the lesson (a retry):
    /// nothing was written.
    pub repeated: bool,
}

pub(crate) fn insert(
    conn: &Connection,
    lesson_id: &str,
    topic: &str,
    kind: CheckKind,
    grade: CheckGrade,
    check: &Check,
    at: &str,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO ext_checked_answers (lesson_id, topic, kind, grade, answer, missing, at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![lesson_id, topic, kind.as_str(), grade.as_str(), check.answer, check.missing, at])?;
    Ok(())
}

impl Store {
    /// Records a lesson explained back in the learner's words and graded by the agent, in one
    /// transaction: the answer, the knowledge model's observation, and (for a topic on the map)
    /// at most one step of the shared confidence toward the model, in the grade's direction.
    /// `None` when the lesson does not exist.
    pub fn record_explain_back(
        &mut self,
        lesson_id: &str,
        grade: CheckGrade,
        check: &Check,
        now: DateTime<Utc>,
    ) -> Result<Option<ExplainBackOutcome>> {
        self.write(|tx| {
            let Some(lesson) = crate::lessons::lesson_by_id(tx, lesson_id)? else { return Ok(None) };
            let topic = lesson.topic_id;
            let before = knowledge::confidence(tx, &topic)?;
            let repeated = tx
                .prepare_cached(
                    "SELECT 1 FROM ext_checked_answers WHERE lesson_id = ?1 AND kind = 'explain_back' \
                     AND answer = ?2 AND grade = ?3",
                )?
                .exists(params![lesson_id, check.answer, grade.as_str()])?;
            if repeated {
                return Ok(Some(ExplainBackOutcome {
                    topic_id: topic,
                    grade,
                    confidence_before: before,
                    confidence: before,
                    repeated: true,
                }));
            }
            insert(tx, lesson_id, &topic, CheckKind::ExplainBack, grade, check, &iso_ms(now))?;
            crate::topic_model::observe_item(
                tx,
                &topic,
                lesson_id,
                Observation::ExplainBack(grade),
                Some(&Because {
                    cause: EvidenceCause::ExplainBack,
                    lesson_id: Some(lesson_id),
                    detail: Some(grade.as_str()),
                }),
                now,
            )?;
            let confidence = knowledge::confidence(tx, &topic)?;
            Ok(Some(ExplainBackOutcome {
                topic_id: topic,
                grade,
                confidence_before: before,
                confidence,
                repeated: false,
            }))
        })
    }

    /// Every checked answer, oldest first; one lesson's when `lesson_id` is given. Rows whose
    /// kind, grade or time this build cannot read are skipped.
    pub fn checked_answers(&self, lesson_id: Option<&str>) -> Result<Vec<CheckedAnswer>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT lesson_id, topic, kind, grade, answer, missing, at FROM ext_checked_answers \
             WHERE ?1 IS NULL OR lesson_id = ?1 ORDER BY at, id",
        )?;
        let rows = stmt.query_map([lesson_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, String>(6)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (lesson_id, topic, kind, grade, answer, missing, at) = row?;
            if let (Some(kind), Some(grade), Ok(at)) =
                (CheckKind::parse(&kind), CheckGrade::parse(&grade), parse_timestamp(&at))
            {
                out.push(CheckedAnswer { lesson_id, topic, kind, grade, answer, missing, at });
            }
        }
        Ok(out)
    }

    /// Per topic with a checked answer: how the learner's self-reports (lesson feedback, reviews
    /// they graded themselves) compare with their checked answers.
    pub fn calibration(&self) -> Result<Vec<TopicCalibration>> {
        let conn = self.conn();
        let mut reports = Vec::new();
        let mut feedback = conn.prepare_cached(
            "SELECT topic, detail, at FROM ext_evidence WHERE cause = 'feedback' AND detail IS NOT NULL ORDER BY at, id",
        )?;
        for row in
            feedback.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?
        {
            let (topic, detail, at) = row?;
            if let (Ok(f), Ok(at)) = (Feedback::parse(&detail), parse_timestamp(&at)) {
                reports.push(SelfReport { topic, claim: Claim::of_feedback(f), at });
            }
        }
        // Reviews without a checked answer of their own were graded by the learner.
        let mut reviews = conn.prepare_cached(
            "SELECT l.topic_id, r.grade, r.reviewed_at FROM ext_review_log r JOIN lessons l ON l.id = r.lesson_id \
             WHERE NOT EXISTS (SELECT 1 FROM ext_checked_answers c WHERE c.kind = 'review' \
                               AND c.lesson_id = r.lesson_id AND c.at = r.reviewed_at) \
             ORDER BY r.reviewed_at, r.id",
        )?;
        for row in
            reviews.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?)))?
        {
            let (topic, grade, at) = row?;
            if let (Some(g), Ok(at)) = (Grade::from_number(grade), parse_timestamp(&at)) {
                reports.push(SelfReport { topic, claim: Claim::of_self_grade(g), at });
            }
        }
        let answers = self.checked_answers(None)?;
        Ok(calibrate(&reports, &answers))
    }
}
