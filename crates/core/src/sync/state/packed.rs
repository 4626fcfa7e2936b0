//! The compact form the store keeps a record's merge state in.
//!
//! A join writes one state per record and reads each back once; as JSON that was a fifth of a
//! join's time (every value escaped, then parsed into a tree again). This form is the same
//! pieces, each stamp written once and named by its place, in plain bytes: lengths and
//! integers as LEB128 varints, signed ones zigzagged, text as its length and its bytes.
//!
//! The first byte says which form a stored state is in; [`decode`] takes only this one (the
//! store reads older states, kept as JSON text, through serde). Whatever the bytes, decoding
//! never reads past them, holds at most one value per byte read, and never nests deeper than
//! [`MAX_DEPTH`]: a damaged state reads as `None`.

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};

use super::{RecordState, Set, Stamp};
use crate::sync::hlc::Hlc;
use crate::sync::op::DeviceId;

/// The first byte of a state in this form (JSON text starts with `{`).
pub const FORM: u8 = 1;

/// How deep a value may nest (a synced column holds a plain value; a few levels leave room).
const MAX_DEPTH: usize = 16;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const INT: u8 = 3;
const UINT: u8 = 4;
const FLOAT: u8 = 5;
const TEXT: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;

/// The low seven bits of `n`.
fn low7(n: u64) -> u8 {
    u8::try_from(n & 0x7f).unwrap_or(0)
}

struct Out(Vec<u8>);

impl Out {
    fn uint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.push(low7(n) | 0x80);
            n >>= 7;
        }
        self.0.push(low7(n));
    }

    fn int(&mut self, n: i64) {
        // Zigzag: small magnitudes either side of zero take few bytes.
        self.uint(n.cast_unsigned().wrapping_shl(1) ^ (n >> 63).cast_unsigned());
    }

    fn text(&mut self, text: &str) {
        self.uint(text.len() as u64);
        self.0.extend_from_slice(text.as_bytes());
    }

    fn place(&mut self, place: Option<usize>) {
        self.uint(place.map_or(0, |p| p as u64 + 1));
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.0.push(NULL),
            Value::Bool(false) => self.0.push(FALSE),
            Value::Bool(true) => self.0.push(TRUE),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    self.0.push(INT);
                    self.int(i);
                } else if let Some(u) = n.as_u64() {
                    self.0.push(UINT);
                    self.uint(u);
                } else {
                    self.0.push(FLOAT);
                    self.0.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
                }
            }
            Value::String(s) => {
                self.0.push(TEXT);
                self.text(s);
            }
            Value::Array(items) => {
                self.0.push(ARRAY);
                self.uint(items.len() as u64);
                for item in items {
                    self.value(item);
                }
            }
            Value::Object(map) => {
                self.0.push(OBJECT);
                self.uint(map.len() as u64);
                for (k, v) in map {
                    self.text(k);
                    self.value(v);
                }
            }
        }
    }
}

/// `state` in this form.
pub fn encode(state: &RecordState) -> Vec<u8> {
    // Most of a record's columns share the stamp of the change that made it: each stamp is
    // written once, in the order first met, and named by its place.
    fn place(stamp: &Stamp, stamps: &[&Stamp]) -> usize {
        stamps.iter().position(|s| **s == *stamp).unwrap_or(stamps.len())
    }
    let mut stamps: Vec<&Stamp> = Vec::new();
    let all = state
        .deleted
        .iter()
        .chain(&state.creates)
        .chain(&state.touched)
        .chain(state.columns.values().map(|set| &set.at))
        .chain(state.moves.values().flatten().map(|(at, _)| at));
    for stamp in all {
        if place(stamp, &stamps) == stamps.len() {
            stamps.push(stamp);
        }
    }
    let mut out = Out(Vec::with_capacity(256));
    out.0.push(FORM);
    out.uint(stamps.len() as u64);
    for Stamp(Hlc(ms, n), device, seq, digest) in &stamps {
        out.int(*ms);
        out.uint(u64::from(*n));
        out.text(device.as_str());
        out.uint(*seq);
        out.0.extend_from_slice(&digest.to_le_bytes());
    }
    out.place(state.deleted.as_ref().map(|d| place(d, &stamps)));
    out.uint(state.creates.len() as u64);
    for at in &state.creates {
        out.uint(place(at, &stamps) as u64);
    }
    out.place(state.touched.as_ref().map(|t| place(t, &stamps)));
    out.uint(state.columns.len() as u64);
    for (column, set) in &state.columns {
        out.text(column);
        out.uint(place(&set.at, &stamps) as u64);
        out.value(&set.value);
    }
    out.uint(state.moves.len() as u64);
    for (column, moves) in &state.moves {
        out.text(column);
        out.uint(moves.len() as u64);
        for (at, delta) in moves {
            out.uint(place(at, &stamps) as u64);
            out.int(*delta);
        }
    }
    out.0
}

struct In<'a>(&'a [u8]);

impl<'a> In<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn uint(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    fn int(&mut self) -> Option<i64> {
        let n = self.uint()?;
        Some((n >> 1).cast_signed() ^ (n & 1).cast_signed().wrapping_neg())
    }

    /// A count of things each at least one byte long: never more than the bytes left.
    fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.uint()?).ok()?;
        (n <= self.0.len()).then_some(n)
    }

    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (taken, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(taken)
    }

    fn text(&mut self) -> Option<&'a str> {
        let n = self.count()?;
        std::str::from_utf8(self.bytes(n)?).ok()
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        Some(match self.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            INT => Value::from(self.int()?),
            UINT => Value::from(self.uint()?),
            FLOAT => {
                let bytes: [u8; 8] = self.bytes(8)?.try_into().ok()?;
                Value::Number(Number::from_f64(f64::from_le_bytes(bytes))?)
            }
            TEXT => Value::String(self.text()?.to_owned()),
            ARRAY if depth < MAX_DEPTH => {
                let n = self.count()?;
                // Grown as items are read, not reserved from the count: nested arrays would
                // otherwise each reserve for the whole of what is left.
                let mut items = Vec::new();
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                Value::Array(items)
            }
            OBJECT if depth < MAX_DEPTH => {
                let n = self.count()?;
                let mut map = Map::new();
                for _ in 0..n {
                    let key = self.text()?.to_owned();
                    map.insert(key, self.value(depth + 1)?);
                }
                Value::Object(map)
            }
            _ => return None,
        })
    }
}

/// A state written by [`encode`]; `None` when the bytes are not one.
pub fn decode(bytes: &[u8]) -> Option<RecordState> {
    let mut input = In(bytes);
    if input.byte()? != FORM {
        return None;
    }
    let n = input.count()?;
    // A stamp takes at least 12 bytes: never more reserved than the bytes could hold.
    let mut stamps = Vec::with_capacity(n.min(input.0.len() / 12));
    for _ in 0..n {
        let ms = input.int()?;
        let counter = u32::try_from(input.uint()?).ok()?;
        let device = DeviceId::new(input.text()?).ok()?;
        let seq = input.uint()?;
        let digest = u64::from_le_bytes(input.bytes(8)?.try_into().ok()?);
        stamps.push(Stamp(Hlc(ms, counter), device, seq, digest));
    }
    let at = |input: &mut In<'_>| -> Option<Stamp> { stamps.get(usize::try_from(input.uint()?).ok()?).cloned() };
    let place = |input: &mut In<'_>| -> Option<Option<Stamp>> {
        match input.uint()? {
            0 => Some(None),
            p => stamps.get(usize::try_from(p - 1).ok()?).cloned().map(Some),
        }
    };
    let deleted = place(&mut input)?;
    let mut creates = Vec::new();
    for _ in 0..input.count()? {
        creates.push(at(&mut input)?);
    }
    let touched = place(&mut input)?;
    let mut columns = BTreeMap::new();
    for _ in 0..input.count()? {
        let column = input.text()?.to_owned();
        let stamp = at(&mut input)?;
        let value = input.value(0)?;
        columns.insert(column, Set { at: stamp, value });
    }
    let mut moves = BTreeMap::new();
    for _ in 0..input.count()? {
        let column = input.text()?.to_owned();
        let mut list = Vec::new();
        for _ in 0..input.count()? {
            let stamp = at(&mut input)?;
            list.push((stamp, input.int()?));
        }
        moves.insert(column, list);
    }
    if !input.0.is_empty() {
        return None;
    }
    Some(RecordState { deleted, creates, touched, columns, moves })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::sync::op::{Change, Op, Row};

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
            ".{0,30}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(".{0,6}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn op(seq: u64, ms: i64, device: &str, change: Change) -> Op {
        Op {
            device: DeviceId::new(device).expect("id"),
            seq,
            at: Hlc(ms, 0),
            table: "lessons".into(),
            key: "[\"l1\"]".into(),
            change,
        }
    }

    proptest! {
        /// Whatever a record's columns hold, a packed state reads back as itself.
        #[test]
        fn a_packed_state_reads_back(columns in prop::collection::btree_map("[a-z_]{1,12}", value(), 0..8),
                                     deltas in prop::collection::vec(any::<i32>(), 0..4),
                                     deleted in any::<bool>()) {
            let mut state = RecordState::default();
            if deleted {
                state.fold(&op(1, 5, "b", Change::Delete {}));
            }
            state.fold(&op(2, 10, "a", Change::Create(columns.clone().into_iter().collect::<Row>())));
            for (i, delta) in deltas.iter().enumerate() {
                let i = u32::try_from(i).expect("few");
                state.fold(&op(3 + u64::from(i), 20 + i64::from(i), "c", Change::Add { column: "n".into(), delta: i64::from(*delta) }));
            }
            let bytes = encode(&state);
            prop_assert_eq!(decode(&bytes), Some(state));
        }

        /// Any bytes, a packed state cut short, or one with a byte changed: never a panic, and
        /// never more allocated than the bytes could hold.
        #[test]
        fn any_bytes_decode_without_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..256),
                                            cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>(),
                                            to in any::<u8>()) {
            let _ = decode(&bytes);
            let mut state = RecordState::default();
            state.fold(&op(1, 10, "a", Change::Create(
                [("id".to_owned(), json!("l1")), ("tags".to_owned(), json!(["a", {"b": 1.5}]))].into())));
            let good = encode(&state);
            prop_assert!(decode(&good[..cut.index(good.len())]).is_none());
            let mut changed = good.clone();
            changed[flip.index(good.len())] = to;
            let _ = decode(&changed);
        }
    }

    #[test]
    fn a_huge_count_is_refused_before_anything_is_allocated() {
        // A count of 2^62 stamps in two bytes' worth of input.
        let bytes = [FORM, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40];
        assert_eq!(decode(&bytes), None);
        // Nesting past the bound.
        let mut deep = vec![FORM, 0, 0, 0, 0, 1, 1, b'x', 0];
        deep.extend(std::iter::repeat_n([ARRAY, 1], 40).flatten());
        deep.push(NULL);
        deep.push(0);
        assert_eq!(decode(&deep), None);
    }
}
