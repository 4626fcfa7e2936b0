//! Trains the message model of work insights on the labelled training sessions and writes its
//! weights beside the model (`crates/core/src/work_patterns/weights.bin`). Deterministic: the
//! same sets give the same bytes. The held-out set is never read here.
//!
//! cargo run -p devcoach-core --example train-work-insights --release

// A trainer run by hand: it prints what it did, and counts become rates.
#![allow(clippy::print_stdout, clippy::cast_precision_loss)]

use devcoach_core::work_patterns::model::{
    BUCKETS, EXPLAIN_AT, FAILURE_AT, Kind, counts_as_at, features, probabilities, scores,
};
use devcoach_core::work_patterns::{Pattern, Signals};
use std::path::Path;

/// The sets trained on, under `tests/fixtures/transcripts/`.
const TRAINING: [&str; 6] = [
    "insights_train_a.json",
    "insights_train_b.json",
    "insights_train_c.json",
    "insights_train_d.json",
    "insights_train_e.json",
    "insights_train_f.json",
];
const EPOCHS: usize = 60;
const LEARNING_RATE: f32 = 0.5;
const L2: f32 = 1e-5;

type Example = (Vec<u32>, f32, usize);

fn load(root: &Path, name: &str) -> Result<Vec<Example>, Box<dyn std::error::Error>> {
    let mut examples = Vec::new();
    let raw = std::fs::read(root.join("../../tests/fixtures/transcripts").join(name))?;
    let doc: serde_json::Value = serde_json::from_slice(&raw)?;
    for session in doc["sessions"].as_array().ok_or("sessions")? {
        for turn in session["turns"].as_array().ok_or("turns")? {
            let kind = Kind::parse(turn["kind"].as_str().ok_or("kind")?).ok_or("a known kind")?;
            let (f, v) = features(turn["user"].as_str().ok_or("user")?);
            examples.push((f, v, Kind::ALL.iter().position(|k| *k == kind).ok_or("kind")?));
        }
    }
    Ok(examples)
}

fn predict(w: &[f32], f: &[u32], v: f32) -> usize {
    let s = scores(f, v, |k, b| w[k * BUCKETS + b as usize]);
    (0..5).fold(0, |best, k| if s[k] > s[best] { k } else { best })
}

/// Share right, and the worst kind's recall.
fn evaluate(w: &[f32], examples: &[Example]) -> (f32, f32) {
    let mut per = [(0usize, 0usize); 5];
    for (f, v, y) in examples {
        per[*y].1 += 1;
        if predict(w, f, *v) == *y {
            per[*y].0 += 1;
        }
    }
    let right: usize = per.iter().map(|p| p.0).sum();
    let worst = per.iter().filter(|p| p.1 > 0).map(|p| p.0 as f32 / p.1 as f32).fold(1.0, f32::min);
    (right as f32 / examples.len() as f32, worst)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sets: Vec<Vec<Example>> = TRAINING.iter().map(|n| load(root, n)).collect::<Result<_, _>>()?;
    if std::env::args().any(|a| a == "--cross") {
        // Choosing the settings: each training set scored by a model trained on all the others
        // (the held-out set stays unread).
        let mut held: Vec<Vec<f32>> = Vec::new();
        for l2 in [1e-5, 1e-4] {
            for epochs in [15, 60] {
                let mut pooled = Confusion::default();
                let mut line = format!("l2 {l2:e} epochs {epochs}:");
                for (i, name) in TRAINING.iter().enumerate() {
                    let rest: Vec<Example> =
                        sets.iter().enumerate().filter(|(j, _)| *j != i).flat_map(|(_, s)| s.clone()).collect();
                    let w = train(&rest, epochs, l2)?;
                    let (acc, worst) = evaluate(&w, &sets[i]);
                    line += &format!(" {}: {acc:.3} (worst kind {worst:.2})", &name[15..name.len() - 5]);
                    pooled.add(&sessions(root, name, &w, (FAILURE_AT, EXPLAIN_AT))?);
                    if (l2, epochs) == (L2, EPOCHS) {
                        held.push(w);
                    }
                }
                println!("{line}");
                pooled.print(true);
            }
        }
        // The thresholds, with the chosen settings' left-out models.
        for failure_at in [0.3, 0.35, 0.4, 0.45, 0.5] {
            for explain_at in [0.15, 0.2, 0.25, 0.3, 0.4] {
                let mut pooled = Confusion::default();
                for (name, w) in TRAINING.iter().zip(&held) {
                    pooled.add(&sessions(root, name, w, (failure_at, explain_at))?);
                }
                print!("failure at {failure_at}, explanation at {explain_at}: ");
                pooled.print(false);
            }
        }
        return Ok(());
    }
    let all: Vec<Example> = sets.concat();
    let w = train(&all, EPOCHS, L2)?;
    let mut counts = [0usize; 5];
    for e in &all {
        counts[e.2] += 1;
    }
    println!("{} messages, per kind {counts:?}; training accuracy {:.3}", all.len(), evaluate(&w, &all).0);
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let out = root.join("src/work_patterns/weights.bin");
    std::fs::write(&out, bytes)?;
    println!("wrote {}", out.display());
    Ok(())
}

/// Sessions by (label, pattern read).
#[derive(Default)]
struct Confusion(std::collections::BTreeMap<(String, String), usize>);

impl Confusion {
    fn add(&mut self, other: &Confusion) {
        for (k, n) in &other.0 {
            *self.0.entry(k.clone()).or_default() += n;
        }
    }

    fn print(&self, wrong: bool) {
        let total: usize = self.0.values().sum();
        let right: usize = self.0.iter().filter(|((w, g), _)| w == g).map(|(_, n)| n).sum();
        let mut line =
            format!("  sessions {right} of {total} ({:.3}); precision / recall:", right as f32 / total as f32);
        for p in Pattern::ALL {
            let name = p.as_str();
            let hit = self.0.get(&(name.to_owned(), name.to_owned())).copied().unwrap_or(0);
            let read: usize = self.0.iter().filter(|((_, g), _)| g == name).map(|(_, n)| n).sum();
            let label: usize = self.0.iter().filter(|((w, _), _)| w == name).map(|(_, n)| n).sum();
            line += &format!(" {name} {:.2}/{:.2}", hit as f32 / read.max(1) as f32, hit as f32 / label.max(1) as f32);
        }
        println!("{line}");
        for ((want, got), n) in self.0.iter().filter(|((w, g), _)| wrong && w != g) {
            println!("    {want} read as {got}: {n}");
        }
    }
}

/// Session patterns from the messages' predicted kinds, against the labels.
fn sessions(
    root: &Path,
    name: &str,
    w: &[f32],
    (failure_at, explain_at): (f32, f32),
) -> Result<Confusion, Box<dyn std::error::Error>> {
    let raw = std::fs::read(root.join("../../tests/fixtures/transcripts").join(name))?;
    let doc: serde_json::Value = serde_json::from_slice(&raw)?;
    let mut confusion = Confusion::default();
    for session in doc["sessions"].as_array().ok_or("sessions")? {
        let mut s = Signals::default();
        let mut edited = false;
        for turn in session["turns"].as_array().ok_or("turns")? {
            let (f, v) = features(turn["user"].as_str().ok_or("user")?);
            let (question, failure, combined) =
                counts_as_at(probabilities(scores(&f, v, |k, b| w[k * BUCKETS + b as usize])), failure_at, explain_at);
            s.prompts += 1;
            s.questions += u32::from(question);
            s.questions_after_edit += u32::from(question && edited);
            s.error_reports += u32::from(failure);
            s.combined += u32::from(combined);
            let edits = u32::try_from(turn["edits"].as_u64().ok_or("edits")?)?;
            s.agent_edits += edits;
            edited |= edits > 0;
        }
        let got = s.pattern().map_or("none", Pattern::as_str).to_owned();
        let want = session["label"].as_str().ok_or("label")?.to_owned();
        *confusion.0.entry((want, got)).or_default() += 1;
    }
    Ok(confusion)
}

/// Softmax regression by AdaGrad over shuffled passes.
fn train(examples: &[Example], epochs: usize, l2: f32) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    // Rare kinds (code with an explanation, acknowledgements) weigh more, so the model does not
    // learn to ignore them.
    let mut counts = [0usize; 5];
    for e in examples {
        counts[e.2] += 1;
    }
    let class_weight: Vec<f32> =
        counts.iter().map(|&n| ((examples.len() as f32) / (5.0 * n.max(1) as f32)).sqrt()).collect();
    let mut w = vec![0.0f32; 5 * BUCKETS];
    let mut g2 = vec![1e-8f32; 5 * BUCKETS];
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut seed: u64 = 0x5EED;
    for _ in 0..epochs {
        // Fisher–Yates with splitmix64: the same order on every machine.
        for i in (1..order.len()).rev() {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            order.swap(i, usize::try_from(z % (i as u64 + 1))?);
        }
        for &i in &order {
            let (f, v, y) = &examples[i];
            let s = scores(f, *v, |k, b| w[k * BUCKETS + b as usize]);
            let max = s.iter().copied().fold(f32::MIN, f32::max);
            let exp: Vec<f32> = s.iter().map(|x| (x - max).exp()).collect();
            let total: f32 = exp.iter().sum();
            for (k, e) in exp.iter().enumerate() {
                let p = e / total;
                let grad = (p - if k == *y { 1.0 } else { 0.0 }) * class_weight[*y];
                for &b in f {
                    let j = k * BUCKETS + b as usize;
                    let g = grad * v + l2 * w[j];
                    g2[j] += g * g;
                    w[j] -= LEARNING_RATE * g / g2[j].sqrt();
                }
            }
        }
    }
    Ok(w)
}
