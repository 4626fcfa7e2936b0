//! Our FSRS scheduler against vectors from py-fsrs, the reference implementation
//! (`scripts/fsrs-vectors.py`): intervals exactly, stability and difficulty within 1e-6.

use devcoach_core::fsrs::{Grade, Parameters, Scheduler};
use serde_json::Value;

use crate::fixtures;

#[test]
fn every_reference_vector_matches() {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("fsrs/reference-vectors.json")).expect("vectors"),
    )
    .expect("json");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 90, "the fixture lost cases");
    let mut checked = 0;
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let params: Vec<f64> =
            case["parameters"].as_array().expect("parameters").iter().filter_map(Value::as_f64).collect();
        let retention = case["desired_retention"].as_f64().expect("retention");
        let max = u32::try_from(case["maximum_interval"].as_u64().expect("max")).expect("u32");
        let scheduler =
            Scheduler::new(Parameters::new(&params).expect("parameters"), retention, max).expect("scheduler");
        let history: Vec<(u32, Grade)> = case["ratings"]
            .as_array()
            .expect("ratings")
            .iter()
            .zip(case["elapsed_days"].as_array().expect("elapsed"))
            .map(|(r, e)| {
                (
                    u32::try_from(e.as_u64().expect("days")).expect("u32"),
                    Grade::from_number(r.as_i64().expect("rating")).expect("grade"),
                )
            })
            .collect();
        let steps = scheduler.replay(history);
        let want = case["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), want.len(), "{name}");
        for (i, (got, want)) in steps.iter().zip(want).enumerate() {
            let close = |a: f64, b: &Value| (a - b.as_f64().expect("number")).abs() <= 1e-6;
            assert_eq!(
                u64::from(got.interval),
                want["interval"].as_u64().expect("interval"),
                "{name}, review {i}: interval"
            );
            assert!(close(got.memory.stability, &want["stability"]), "{name}, review {i}: stability {got:?} vs {want}");
            assert!(
                close(got.memory.difficulty, &want["difficulty"]),
                "{name}, review {i}: difficulty {got:?} vs {want}"
            );
            assert!(
                close(got.retrievability, &want["retrievability"]),
                "{name}, review {i}: retrievability {got:?} vs {want}"
            );
            checked += 1;
        }
    }
    assert!(checked > 400, "only {checked} reviews checked");
}
