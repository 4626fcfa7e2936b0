//! Feedback: the single writer for MCP, CLI and dashboard.

use chrono::{DateTime, Utc};
use devcoach_core::evidence::{Evidence, EvidenceCause};
use devcoach_core::feedback::{FeedbackChoice, FeedbackOutcome, confidence_delta};
use devcoach_core::lesson::Feedback;
use devcoach_core::time::iso_ms;
use rusqlite::{OptionalExtension, params};

use crate::knowledge::{self, Because};
use crate::{Result, Store, evidence};

impl Store {
    /// Records feedback on a lesson in one transaction: stores it, moves the topic's confidence
    /// when `know` is entered or left, and logs the evidence. Repeating the stored value changes
    /// nothing. `None` when the lesson does not exist.
    pub fn record_feedback(
        &mut self,
        lesson_id: &str,
        choice: FeedbackChoice,
        now: DateTime<Utc>,
    ) -> Result<Option<FeedbackOutcome>> {
        let next = choice.0;
        self.write(|tx| {
            let row: Option<(String, Option<String>)> = tx
                .query_row("SELECT topic_id, feedback FROM lessons WHERE id = ?1", [lesson_id], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .optional()?;
            let Some((topic_id, stored)) = row else {
                return Ok(None);
            };
            let previous = stored.as_deref().and_then(|f| Feedback::parse(f).ok());
            let before = knowledge::confidence(tx, &topic_id)?;
            if stored.as_deref() == next.map(Feedback::as_str) {
                return Ok(Some(FeedbackOutcome {
                    topic_id,
                    previous,
                    delta: 0,
                    confidence_before: before,
                    confidence: before,
                }));
            }
            tx.execute(
                "UPDATE lessons SET feedback = ?1 WHERE id = ?2",
                params![next.map(Feedback::as_str), lesson_id],
            )?;
            let mut delta = confidence_delta(previous, next);
            if delta < 0 {
                // Leaving `know` takes back what entering it moved, not one point regardless:
                // at 10 it moved nothing, and a toggle must not leave the topic at 9.
                let entered: Option<Option<i64>> = tx
                    .query_row(
                        "SELECT delta FROM ext_evidence WHERE lesson_id = ?1 AND cause = 'feedback' \
                         AND detail = 'know' ORDER BY id DESC LIMIT 1",
                        [lesson_id],
                        |r| r.get(0),
                    )
                    .optional()?;
                if let Some(Some(moved)) = entered {
                    delta = -moved.clamp(0, 1);
                }
            }
            // The knowledge model reads every answer; the shared number keeps the original's rule.
            if next.is_none() && previous.is_some() {
                crate::topic_model::withdraw_feedback(tx, &topic_id, lesson_id, now)?;
            }
            if let Some(f) = next {
                crate::topic_model::observe_item(
                    tx,
                    &topic_id,
                    lesson_id,
                    devcoach_core::knowledge_model::Observation::Feedback(f),
                    None,
                    now,
                )?;
            }
            let detail = next.map_or("clear", Feedback::as_str);
            let confidence = if delta == 0 {
                let confidence = before;
                // Still evidence for the knowledge model, even though the number does not move.
                evidence::append(
                    tx,
                    &Evidence {
                        topic: topic_id.clone(),
                        delta: Some(0),
                        value_after: confidence,
                        cause: EvidenceCause::Feedback,
                        lesson_id: Some(lesson_id.to_owned()),
                        detail: Some(detail.to_owned()),
                        at: iso_ms(now),
                    },
                )?;
                confidence
            } else {
                let why = Because { cause: EvidenceCause::Feedback, lesson_id: Some(lesson_id), detail: Some(detail) };
                Some(knowledge::apply_delta(tx, &topic_id, delta, &why, now)?)
            };
            // The move as it happened (0 at the edge of the scale), not as the rule asked.
            let delta = match (before, confidence) {
                (Some(b), Some(c)) => c - b,
                _ => delta,
            };
            Ok(Some(FeedbackOutcome { topic_id, previous, delta, confidence_before: before, confidence }))
        })
    }
}
