//! The argument types of checked recall, shared by `submit_feedback` (explain-back) and
//! `grade_review` (a checked review).

use devcoach_core::checked::{Check, CheckGrade};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ctx::ToolError;

/// The rubric: the lesson's key idea against the learner's words.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CheckGradeArg {
    /// The key idea is there, in their own words (wording slips do not count).
    Correct,
    /// Part of the idea, or the idea with a real gap or error.
    Partly,
    /// Missing or wrong, or the lesson's words repeated without the idea.
    Wrong,
}

impl From<CheckGradeArg> for CheckGrade {
    fn from(g: CheckGradeArg) -> Self {
        match g {
            CheckGradeArg::Correct => CheckGrade::Correct,
            CheckGradeArg::Partly => CheckGrade::Partly,
            CheckGradeArg::Wrong => CheckGrade::Wrong,
        }
    }
}

/// The learner explained the lesson back: their words and your grade.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ExplainBackArg {
    /// The learner's explanation, as they wrote it (at most 2000 characters).
    pub answer: String,
    pub grade: CheckGradeArg,
    /// Unless correct: the missing piece, in one line (at most 500 characters).
    #[serde(default)]
    pub missing: Option<String>,
}

impl ExplainBackArg {
    pub fn check(&self) -> Result<(CheckGrade, Check), ToolError> {
        let check = Check::new(&self.answer, self.missing.as_deref()).map_err(|e| ToolError::Invalid(e.to_string()))?;
        Ok((self.grade.into(), check))
    }
}

/// What the explain-back recorded.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ExplainBackOut {
    #[schemars(extend("enum" = ["correct", "partly", "wrong"]))]
    pub grade: String,
    pub missing: Option<String>,
    /// How far the explain-back itself moved the topic's confidence (-1, 0 or +1; the top-level
    /// `delta` is the answer's).
    pub delta: i64,
    /// The topic's confidence now (null when the topic is not on the map): a checked answer may
    /// move it one step toward the knowledge model's estimate.
    pub confidence: Option<i64>,
    /// True when the same words with the same grade were already recorded: nothing changed.
    pub repeated: bool,
}

#[cfg(test)]
mod tests {
    use devcoach_core::checked::CheckGrade;

    use super::CheckGradeArg;
    use crate::tools::schema_lists::values;

    #[test]
    fn the_rubric_lists_exactly_cores_grades() {
        assert_eq!(values::<CheckGradeArg>(), CheckGrade::ALL.iter().map(|g| g.as_str()).collect::<Vec<_>>());
    }
}
