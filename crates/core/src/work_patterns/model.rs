//! What one message of the learner's asks for, read by a small linear model: hashed word and
//! character n-grams, one weight vector per kind, trained on labelled sessions by
//! `cargo run -p devcoach-core --example train-work-insights` (see docs/work-insights.md).
//! The weights ship in the binary; nothing is learned, kept or sent on the learner's machine.

/// What a message asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Asks the agent to build or change something (a follow-up imperative too, even one that
    /// ends with "?").
    Task,
    /// Reports that something fails, or pastes an error, a trace or a status.
    Failure,
    /// Asks how or why, about the code or an idea, without reporting a failure.
    Question,
    /// Asks for code and for an explanation of it, in the same message.
    TaskExplain,
    /// Thanks, acknowledgements, the learner's own code or change with no request.
    Other,
}

impl Kind {
    pub const ALL: [Kind; 5] = [Self::Task, Self::Failure, Self::Question, Self::TaskExplain, Self::Other];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Task => "task",
            Self::Failure => "failure",
            Self::Question => "question",
            Self::TaskExplain => "task_explain",
            Self::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    fn index(self) -> usize {
        match self {
            Self::Task => 0,
            Self::Failure => 1,
            Self::Question => 2,
            Self::TaskExplain => 3,
            Self::Other => 4,
        }
    }
}

/// Hash buckets per kind: collisions cost little at this size, and the weights stay small
/// (5 × 2¹⁴ × 4 bytes).
pub const BUCKETS: usize = 1 << 14;
/// How much of a message is read: the words that tell its kind come first, and a pasted log of
/// megabytes must not make the stop hook slow.
pub const READ_CHARS: usize = 4096;
/// Character n-grams come from this much of it (they are many per word).
const CHAR_GRAM_CHARS: usize = 600;

fn fnv(parts: &[&str]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0x1f;
            h = h.wrapping_mul(0x0100_0193);
        }
        for b in p.bytes() {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    h
}

/// The message's features: bucket indices, each present once, with the value every one of
/// them carries (so a long paste weighs no more than a short request).
pub fn features(text: &str) -> (Vec<u32>, f32) {
    let head = text.char_indices().nth(READ_CHARS).map_or(text, |(i, _)| &text[..i]);
    let lower = head.to_lowercase();
    let lower = lower.trim();
    let mut out: Vec<u32> = Vec::with_capacity(256);
    let mut add = |parts: &[&str]| out.push(fnv(parts) % u32::try_from(BUCKETS).unwrap_or(u32::MAX));
    add(&["bias"]);
    let tokens: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).collect();
    if let Some(first) = tokens.first() {
        add(&["first", first]);
        if let Some(second) = tokens.get(1) {
            add(&["first2", first, second]);
        }
    }
    if lower.ends_with('?') {
        add(&["ends?"]);
    }
    if lower.contains('?') {
        add(&["has?"]);
    }
    if lower.contains("```") {
        add(&["fence"]);
    }
    let lines = lower.lines().count();
    add(&[
        "lines",
        if lines > 8 {
            "many"
        } else if lines > 1 {
            "some"
        } else {
            "one"
        },
    ]);
    add(&[
        "words",
        match tokens.len() {
            0..=3 => "few",
            4..=12 => "short",
            13..=40 => "medium",
            _ => "long",
        },
    ]);
    for t in &tokens {
        // Status codes and numbers read as their shape: "503" as a 5xx.
        if t.len() == 3 && t.bytes().all(|b| b.is_ascii_digit()) {
            add(&["status", &t[..1]]);
        }
        add(&["w", t]);
    }
    for pair in tokens.windows(2) {
        add(&["b", pair[0], pair[1]]);
    }
    let mut seen = 0;
    for t in &tokens {
        if seen > CHAR_GRAM_CHARS {
            break;
        }
        seen += t.len();
        let padded: Vec<char> = std::iter::once('^').chain(t.chars()).chain(std::iter::once('$')).collect();
        for gram in padded.windows(3) {
            let s: String = gram.iter().collect();
            add(&["c", &s]);
        }
    }
    out.sort_unstable();
    out.dedup();
    // In (0, 1] by construction: at least the bias feature is present.
    #[allow(clippy::cast_precision_loss)]
    let value = 1.0 / (out.len() as f32).sqrt();
    (out, value)
}

/// The weights, kind by kind, as the trainer writes them (little-endian f32).
static WEIGHTS: &[u8] = include_bytes!("weights.bin");

fn weight(kind: usize, bucket: u32) -> f32 {
    let i = (kind * BUCKETS + bucket as usize) * 4;
    WEIGHTS.get(i..i + 4).map_or(0.0, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Each kind's score for the features, as the trainer computes them.
pub fn scores(features: &[u32], value: f32, weights: impl Fn(usize, u32) -> f32) -> [f32; 5] {
    let mut s = [0.0; 5];
    for (k, score) in s.iter_mut().enumerate() {
        *score = features.iter().map(|&f| weights(k, f)).sum::<f32>() * value;
    }
    s
}

/// Each kind's probability for the features (softmax of the scores).
pub fn probabilities(scores: [f32; 5]) -> [f32; 5] {
    let max = scores.iter().copied().fold(f32::MIN, f32::max);
    let exp = scores.map(|x| (x - max).exp());
    let total: f32 = exp.iter().sum();
    exp.map(|e| e / total)
}

/// How sure the model must be of the two kinds a session's pattern turns on before a message
/// counts as one: a failure report or a request for code with its explanation is often half
/// hidden in a task, and a missed one reads the session as delegation. Chosen on the six
/// training sets, each scored by a model trained on the other five: the pair whose worst
/// pattern precision or recall was highest (docs/work-insights.md).
pub const FAILURE_AT: f32 = 0.4;
pub const EXPLAIN_AT: f32 = 0.2;

/// What a message counts as in its session: (a question, a failure report, code asked with its
/// explanation); at most one of them.
pub fn counts_as(p: [f32; 5]) -> (bool, bool, bool) {
    counts_as_at(p, FAILURE_AT, EXPLAIN_AT)
}

/// [`counts_as`] with other thresholds (how the trainer chooses them).
pub fn counts_as_at(p: [f32; 5], failure_at: f32, explain_at: f32) -> (bool, bool, bool) {
    let failure = p[Kind::Failure.index()] >= failure_at;
    let combined = !failure && p[Kind::TaskExplain.index()] >= explain_at;
    let best = (0..5).fold(0, |best, k| if p[k] > p[best] { k } else { best });
    let question = !failure && !combined && best == Kind::Question.index();
    (question, failure, combined)
}

/// The kind a message reads as, and each kind's probability.
pub fn read(text: &str) -> (Kind, [f32; 5]) {
    let (f, v) = features(text);
    let p = probabilities(scores(&f, v, weight));
    let best = (0..5).fold(0, |best, k| if p[k] > p[best] { k } else { best });
    (Kind::ALL.into_iter().find(|k| k.index() == best).unwrap_or(Kind::Other), p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weights_are_whole() {
        assert_eq!(WEIGHTS.len(), 5 * BUCKETS * 4, "retrain: cargo run -p devcoach-core --example train-work-insights");
    }

    #[test]
    fn features_are_bounded_whatever_the_size() {
        let huge = "panicked at src/main.rs:12 ".repeat(100_000);
        let (f, v) = features(&huge);
        assert!(f.len() < 2_000 && v > 0.0);
        assert!(!features("").0.is_empty());
    }
}
