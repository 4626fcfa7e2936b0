//! Share codes written by the TypeScript devcoach (fflate, level 9) decode to their payloads;
//! our own encoding of each payload decodes back to it; every bad code is refused with its class.

use devcoach_core::share::payload::SharedLesson;
use devcoach_core::share::{ShareError, decode_code, encode_code, parse_shared_input};
use serde_json::Value;

use crate::fixtures;

fn load(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures().join("share").join(name)).expect("fixture");
    serde_json::from_str(&text).expect("json")
}

#[test]
fn public_codes_decode_to_their_payloads() {
    let codes = load("share-codes-public.json");
    assert!(codes.len() >= 4);
    for case in codes {
        let code = case["code"].as_str().expect("code");
        let decoded = decode_code(code).unwrap_or_else(|e| panic!("{code}: {e}"));
        let expected = SharedLesson::from_json(&case["payload"]).expect("fixture payload is valid");
        assert_eq!(decoded, expected);
        // Same JSON as the original payload, key for key.
        assert_eq!(decoded.to_json(), case["payload"], "{code}");
        // Our bytes differ from fflate's, but decode to the same payload.
        let ours = encode_code(&decoded);
        assert_eq!(decode_code(&ours).as_ref(), Ok(&expected));
        assert!(matches!(parse_shared_input(code), Ok(devcoach_core::share::SharedInput::Shared(p)) if p == expected));
    }
}

#[test]
fn bad_codes_are_refused_with_their_class() {
    for case in load("share-codes-bad.json") {
        let code = case["code"].as_str().expect("code");
        let got = decode_code(code);
        let ok = match case["expect"].as_str().expect("expect") {
            "too large" => got == Err(ShareError::TooLarge),
            "damaged" => got == Err(ShareError::Damaged),
            "newer format" => matches!(got, Err(ShareError::NewerFormat(_))),
            "not a valid lesson" => got == Err(ShareError::InvalidLesson),
            "not a code" => got == Err(ShareError::NotACode),
            other => panic!("unknown class {other}"),
        };
        assert!(ok, "{code}: expected {}, got {got:?}", case["expect"]);
    }
}
