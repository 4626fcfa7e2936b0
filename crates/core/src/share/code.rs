//! The share code: `devcoach:lesson:1:` + unpadded base64url of the raw-deflated JSON payload.
//! Browsers decode it with `DecompressionStream("deflate-raw")`.

use std::io::{Read, Write};

use crate::limits;
use base64::Engine as _;
use base64::engine::general_purpose::{URL_SAFE_NO_PAD, URL_SAFE_NO_PAD_INDIFFERENT};
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;

use super::ShareError;
use super::payload::SharedLesson;

pub const PREFIX: &str = "devcoach:lesson:";
/// Inflate in slices this small, so a bomb is stopped as soon as it passes the budget.
const INFLATE_SLICE: usize = 512;

/// Encodes a payload into a code.
pub fn encode_code(payload: &SharedLesson) -> String {
    let json = payload.to_json().to_string();
    let mut enc = DeflateEncoder::new(Vec::new(), Compression::best());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(json.as_bytes());
    let bytes = enc.finish().unwrap_or_default();
    format!("{PREFIX}1:{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// The parts of a code: its format number and payload characters. Anything else is not a code.
pub fn split_code(text: &str) -> Result<(&str, &str), ShareError> {
    let rest = text.trim().strip_prefix(PREFIX).ok_or(ShareError::NotACode)?;
    let (version, payload) = rest.split_once(':').ok_or(ShareError::NotACode)?;
    let is_payload = |s: &str| !s.is_empty() && s.bytes().all(is_code_byte);
    if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) || !is_payload(payload) {
        return Err(ShareError::NotACode);
    }
    Ok((version, payload))
}

pub(crate) fn is_code_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Decodes a code. The text must be exactly one code (surrounding whitespace allowed).
pub fn decode_code(text: &str) -> Result<SharedLesson, ShareError> {
    let (version, payload) = split_code(text)?;
    if version.trim_start_matches('0') != "1" {
        return Err(ShareError::NewerFormat(version.trim_start_matches('0').to_owned()));
    }
    if payload.len() > limits::SHARE_CODE_CHARS {
        return Err(ShareError::TooLarge);
    }
    let raw = URL_SAFE_NO_PAD_INDIFFERENT.decode(payload).map_err(|_| ShareError::Damaged)?;
    let json = inflate_bounded(&raw, limits::SHARE_DECODED_BYTES)?;
    let value: serde_json::Value = serde_json::from_slice(&json).map_err(|_| ShareError::Damaged)?;
    SharedLesson::from_json(&value)
}

/// Inflates raw deflate, refusing as soon as the output passes `budget`.
fn inflate_bounded(raw: &[u8], budget: usize) -> Result<Vec<u8>, ShareError> {
    let mut decoder = DeflateDecoder::new(raw);
    let mut out = Vec::with_capacity(raw.len().saturating_mul(4).min(budget));
    let mut slice = [0u8; INFLATE_SLICE];
    loop {
        let n = decoder.read(&mut slice).map_err(|_| ShareError::Damaged)?;
        if n == 0 {
            break;
        }
        if out.len() + n > budget {
            return Err(ShareError::TooLarge);
        }
        out.extend_from_slice(&slice[..n]);
    }
    if decoder.total_in() < raw.len() as u64 {
        // Bytes after the end of the deflate stream: not something any encoder writes.
        return Err(ShareError::Damaged);
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;
    use crate::lesson::{Level, Platform};

    pub(crate) fn sample() -> SharedLesson {
        SharedLesson {
            title: "Rebase --onto".into(),
            summary: "Move only your commits.".into(),
            body: Some("Body with `code`.\n\n💡 *Senior tip:* check the range first.".into()),
            topic_id: "git".into(),
            categories: vec!["git".into(), "history, rewriting".into()],
            level: Level::Senior,
            task_context: Some("a squash-merged base".into()),
            project: None,
            branch: Some("feature/x".into()),
            commit_hash: None,
            repository: Some("acme/widgets".into()),
            repository_platform: Some(Platform::Gitlab),
            origin_id: "rebase-onto".into(),
            origin_timestamp: "2026-10-01T08:00:00Z".into(),
            shared_by: Some("Ada".into()),
            shared_at: "2026-10-02T00:00:00Z".into(),
            app_version: "0.1.0".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::sample;
    use super::*;

    #[test]
    fn round_trip_is_one_short_line() {
        let code = encode_code(&sample());
        assert!(code.starts_with("devcoach:lesson:1:"));
        assert!(code.len() < 1200, "{}", code.len());
        assert!(!code.contains('\n') && !code.contains('=') && !code.contains('+') && !code.contains('/'));
        assert_eq!(decode_code(&format!("  {code}\n")), Ok(sample()));
    }

    #[test]
    fn refusals() {
        assert_eq!(decode_code("devcoach:lessen:1:abc"), Err(ShareError::NotACode));
        assert_eq!(decode_code("devcoach:lesson:1:abc def"), Err(ShareError::NotACode));
        assert_eq!(decode_code("devcoach:lesson:x:abc"), Err(ShareError::NotACode));
        assert_eq!(decode_code("devcoach:lesson:1:"), Err(ShareError::NotACode));
        assert_eq!(decode_code("devcoach:lesson:2:abc"), Err(ShareError::NewerFormat("2".into())));
        assert_eq!(
            decode_code(&format!("devcoach:lesson:1:{}", "A".repeat(limits::SHARE_CODE_CHARS + 1))),
            Err(ShareError::TooLarge)
        );
        assert_eq!(decode_code("devcoach:lesson:1:A"), Err(ShareError::Damaged));
        let code = encode_code(&sample());
        assert_eq!(decode_code(&code[..code.len() - 20]), Err(ShareError::Damaged));
    }

    #[test]
    fn bombs_stop_at_the_budget() {
        let mut enc = DeflateEncoder::new(Vec::new(), Compression::best());
        enc.write_all(&vec![b' '; 40 * 1024 * 1024]).expect("write");
        let bomb = enc.finish().expect("finish");
        let code = format!("{PREFIX}1:{}", URL_SAFE_NO_PAD.encode(&bomb));
        assert!(code.len() < limits::SHARE_CODE_CHARS);
        assert_eq!(decode_code(&code), Err(ShareError::TooLarge));
    }

    #[test]
    fn valid_json_that_is_not_a_lesson() {
        let mut enc = DeflateEncoder::new(Vec::new(), Compression::best());
        enc.write_all(br#"{"format":"devcoach.lesson","version":1}"#).expect("write");
        let code = format!("{PREFIX}1:{}", URL_SAFE_NO_PAD.encode(enc.finish().expect("finish")));
        assert_eq!(decode_code(&code), Err(ShareError::InvalidLesson));
    }
}
