//! One record's merge, kept as a small state that takes changes one at a time in any order.
//!
//! [`merge`](super::merge::merge) sorts every change ever made and folds them; a store that
//! keeps the result cannot redo that at each sync without reading the whole history again, and a
//! change that arrives late (a device that was offline for a week) may sort anywhere among those
//! already folded. This state holds exactly what a change arriving at any position can still
//! affect, so folding one more change is cheap and the order of arrival never matters:
//!
//! - the latest deletion: every change before it can never count again, and is forgotten;
//! - the creations after it: the record exists when there is one, and columns count only from
//!   the first of them (an update made while the record did not exist is dropped);
//! - per column, the latest change that set it (an earlier set can never win again);
//! - per counter column, the moves made after its latest set (a set before a move would not undo
//!   it; a move before the set is overwritten and forgotten).
//!
//! Each piece only ever keeps the later of two stamps, or a set of stamps, so folding is
//! commutative and a repeat changes nothing: the property test checks it against `merge`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::hlc::Hlc;
use super::op::{Change, DeviceId, Op, Row};

pub mod packed;

/// What orders two changes: the clock, then the device, its sequence number, and (for two
/// machines that wrote as one device before either noticed) a digest of the change itself.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Stamp(pub Hlc, pub DeviceId, pub u64, pub u64);

impl Stamp {
    pub fn of(op: &Op) -> Self {
        // The change's JSON text, hashed as it is written (no copy of it is kept).
        let mut hasher = Digesting(Sha256::new());
        let _ = serde_json::to_writer(&mut hasher, &(&op.table, &op.key, &op.change));
        let digest = hasher.0.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        Self(op.at, op.device.clone(), op.seq, u64::from_be_bytes(first))
    }
}

struct Digesting(Sha256);

impl std::io::Write for Digesting {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A column's latest set.
#[derive(Debug, Clone, PartialEq)]
struct Set {
    at: Stamp,
    value: Value,
}

/// One record's merge state. See the module's comment for what each part keeps and why.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(from = "Stored")]
pub struct RecordState {
    deleted: Option<Stamp>,
    /// After `deleted`, ascending.
    creates: Vec<Stamp>,
    /// The latest creation or update after `deleted` (what the one-per-value rule orders by).
    touched: Option<Stamp>,
    columns: BTreeMap<String, Set>,
    /// Per column, the moves after its latest set and after `deleted`, ascending.
    moves: BTreeMap<String, Vec<(Stamp, i64)>>,
}

/// How the store keeps a [`RecordState`]: each stamp written once (`s`) and named by its place
/// there, since most of a record's columns share the stamp of the change that made it.
#[derive(Default, Deserialize)]
struct Stored {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    s: Vec<Stamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    d: Option<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    c: Vec<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    t: Option<usize>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    v: BTreeMap<String, (usize, Value)>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    m: BTreeMap<String, Vec<(usize, i64)>>,
}

/// [`Stored`] borrowed from a state, so writing one copies none of its values.
#[derive(Default, Serialize)]
struct StoredRef<'a> {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    s: Vec<&'a Stamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    d: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    c: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    t: Option<usize>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    v: BTreeMap<&'a str, (usize, &'a Value)>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    m: BTreeMap<&'a str, Vec<(usize, i64)>>,
}

impl Serialize for RecordState {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fn index<'a>(stamp: &'a Stamp, table: &mut Vec<&'a Stamp>) -> usize {
            table.iter().position(|s| **s == *stamp).unwrap_or_else(|| {
                table.push(stamp);
                table.len() - 1
            })
        }
        let mut s = Vec::new();
        let mut stored = StoredRef { d: self.deleted.as_ref().map(|d| index(d, &mut s)), ..StoredRef::default() };
        stored.c = self.creates.iter().map(|c| index(c, &mut s)).collect();
        stored.t = self.touched.as_ref().map(|t| index(t, &mut s));
        stored.v = self.columns.iter().map(|(k, set)| (k.as_str(), (index(&set.at, &mut s), &set.value))).collect();
        stored.m = self
            .moves
            .iter()
            .map(|(k, moves)| (k.as_str(), moves.iter().map(|(at, delta)| (index(at, &mut s), *delta)).collect()))
            .collect();
        stored.s = s;
        stored.serialize(serializer)
    }
}

impl From<Stored> for RecordState {
    /// A place that names no stamp (a damaged row) drops what it dates: the state only loses
    /// what it cannot order, never invents an order.
    fn from(stored: Stored) -> Self {
        let at = |i: usize| stored.s.get(i).cloned();
        Self {
            deleted: stored.d.and_then(at),
            creates: stored.c.iter().filter_map(|i| at(*i)).collect(),
            touched: stored.t.and_then(at),
            columns: stored.v.into_iter().filter_map(|(k, (i, value))| Some((k, Set { at: at(i)?, value }))).collect(),
            moves: stored
                .m
                .into_iter()
                .map(|(k, moves)| (k, moves.into_iter().filter_map(|(i, d)| Some((at(i)?, d))).collect()))
                .collect(),
        }
    }
}

impl RecordState {
    /// Takes one more change to this record, made at any time.
    pub fn fold(&mut self, op: &Op) {
        self.take(Stamp::of(op), Cow::Borrowed(&op.change));
    }

    /// As [`RecordState::fold`], keeping the change's values rather than copying them.
    pub fn fold_owned(&mut self, op: Op) {
        let at = Stamp::of(&op);
        self.take(at, Cow::Owned(op.change));
    }

    fn take(&mut self, at: Stamp, change: Cow<'_, Change>) {
        if self.deleted.as_ref().is_some_and(|d| at <= *d) {
            // Before (or the same as) the latest deletion: it can never count.
            return;
        }
        match &*change {
            Change::Delete {} => {
                self.creates.retain(|c| *c > at);
                self.columns.retain(|_, set| set.at > at);
                for moves in self.moves.values_mut() {
                    moves.retain(|(m, _)| *m > at);
                }
                self.moves.retain(|_, moves| !moves.is_empty());
                if self.touched.as_ref().is_some_and(|t| *t < at) {
                    self.touched = None;
                }
                self.deleted = Some(at);
            }
            Change::Create(_) | Change::Update(_) => {
                if matches!(&*change, Change::Create(_))
                    && let Err(i) = self.creates.binary_search(&at)
                {
                    self.creates.insert(i, at.clone());
                }
                self.touch(&at);
                match change {
                    Cow::Owned(Change::Create(fields) | Change::Update(fields)) => {
                        for (column, value) in fields {
                            if self.wins(&column, &at) {
                                self.put(column, &at, value);
                            }
                        }
                    }
                    Cow::Borrowed(Change::Create(fields) | Change::Update(fields)) => {
                        for (column, value) in fields {
                            if self.wins(column, &at) {
                                self.put(column.clone(), &at, value.clone());
                            }
                        }
                    }
                    _ => {}
                }
            }
            Change::Add { column, delta } => {
                if self.columns.get(column).is_some_and(|set| set.at > at) {
                    return;
                }
                let moves = self.moves.entry(column.clone()).or_default();
                if let Err(i) = moves.binary_search_by(|(m, _)| m.cmp(&at)) {
                    moves.insert(i, (at, *delta));
                }
            }
        }
    }

    fn touch(&mut self, at: &Stamp) {
        if self.touched.as_ref().is_none_or(|t| at > t) {
            self.touched = Some(at.clone());
        }
    }

    /// Whether a set of `column` stamped `at` outranks the one held.
    fn wins(&self, column: &str, at: &Stamp) -> bool {
        self.columns.get(column).is_none_or(|set| set.at < *at)
    }

    fn put(&mut self, column: String, at: &Stamp, value: Value) {
        if let Some(moves) = self.moves.get_mut(&column) {
            moves.retain(|(m, _)| m > at);
            if moves.is_empty() {
                self.moves.remove(&column);
            }
        }
        self.columns.insert(column, Set { at: at.clone(), value });
    }

    /// The record these changes leave (counters unbounded), and when it was last made or changed;
    /// `None` when it does not exist.
    pub fn row(&self) -> Option<(Row, &Stamp)> {
        let first = self.creates.first()?;
        let mut row = Row::new();
        for (column, set) in &self.columns {
            if set.at >= *first {
                row.insert(column.clone(), set.value.clone());
            }
        }
        add_moves(&mut row, counted_moves(&self.columns, &self.moves, first));
        let touched = self.touched.as_ref().unwrap_or(first);
        Some((row, touched))
    }

    /// As [`RecordState::row`], taking the values rather than copying them.
    pub fn into_row(mut self) -> Option<(Row, Stamp)> {
        let first = self.creates.first()?.clone();
        let moves = counted_moves(&self.columns, &self.moves, &first);
        let mut row = Row::new();
        for (column, set) in std::mem::take(&mut self.columns) {
            if set.at >= first {
                row.insert(column, set.value);
            }
        }
        add_moves(&mut row, moves);
        let touched = self.touched.unwrap_or(first);
        Some((row, touched))
    }

    /// Whether the change stamped `at` still counts here: the latest deletion, a creation after
    /// it, the latest creation or update, the latest set of a column, or a counter's move after
    /// its column's latest set. A change that does not can never count again, whatever arrives
    /// later (what overrode it is later still), so a device's snapshot leaves it out.
    pub fn holds(&self, at: &Stamp) -> bool {
        self.deleted.as_ref() == Some(at)
            || self.touched.as_ref() == Some(at)
            || self.creates.binary_search(at).is_ok()
            || self.columns.values().any(|set| set.at == *at)
            || self.moves.values().any(|moves| moves.binary_search_by(|(m, _)| m.cmp(at)).is_ok())
    }

    /// Whether the record exists: [`RecordState::row`] is `Some`, without building the row.
    pub fn exists(&self) -> bool {
        !self.creates.is_empty()
    }

    /// Whether any change at all is held (a record that was deleted still is).
    pub fn is_empty(&self) -> bool {
        self.deleted.is_none() && self.creates.is_empty() && self.columns.is_empty() && self.moves.is_empty()
    }
}

/// Per counter column, the moves that count: after the column's set when that set counts, else
/// after the creation.
fn counted_moves<'a>(
    columns: &BTreeMap<String, Set>,
    moves: &'a BTreeMap<String, Vec<(Stamp, i64)>>,
    first: &Stamp,
) -> Vec<(&'a String, Vec<i64>)> {
    let mut counted = Vec::new();
    for (column, moves) in moves {
        let after = columns.get(column).map(|s| &s.at).filter(|at| *at >= first).unwrap_or(first);
        let deltas: Vec<i64> = moves.iter().filter(|(m, _)| m > after).map(|(_, d)| *d).collect();
        if !deltas.is_empty() {
            counted.push((column, deltas));
        }
    }
    counted
}

fn add_moves(row: &mut Row, counted: Vec<(&String, Vec<i64>)>) {
    for (column, deltas) in counted {
        let base = row.get(column).and_then(Value::as_i64).unwrap_or(0);
        let sum = deltas.iter().fold(base, |sum, delta| sum.saturating_add(*delta));
        row.insert(column.clone(), Value::from(sum));
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::super::merge::merge;
    use super::super::merge::tests::{histories, row};
    use super::super::tables::synced;
    use super::*;

    proptest! {
        /// Folding one change at a time, in any order and with repeats, leaves every record as
        /// `merge` of the whole set does; a round trip through the stored form changes nothing.
        #[test]
        fn folding_in_any_order_is_the_merge(
            ops in histories(1..60),
            order in prop::collection::vec(any::<prop::sample::Index>(), 0..80),
            repeats in prop::collection::vec(any::<prop::sample::Index>(), 0..20),
            stored_at in any::<prop::sample::Index>(),
        ) {
            let knowledge = synced("knowledge").expect("knowledge");
            let reference = merge(&ops).rows(knowledge);
            let mut shuffled: Vec<&Op> = ops.iter().collect();
            for (i, pick) in order.iter().enumerate() {
                let len = shuffled.len();
                shuffled.swap(i % len, pick.index(len));
            }
            for pick in &repeats {
                shuffled.push(&ops[pick.index(ops.len())]);
            }
            let halfway = stored_at.index(shuffled.len());
            let mut states: BTreeMap<String, RecordState> = BTreeMap::new();
            for (i, op) in shuffled.iter().enumerate() {
                if i == halfway {
                    // Kept in the store between two syncs: packed, or as JSON by an earlier build.
                    if i % 2 == 0 {
                        let text = serde_json::to_string(&states).expect("stored");
                        states = serde_json::from_str(&text).expect("read back");
                    } else {
                        for state in states.values_mut() {
                            *state = packed::decode(&packed::encode(state)).expect("read back");
                        }
                    }
                }
                // Either way of taking a change is the same fold.
                let state = states.entry(op.key.clone()).or_default();
                if i % 2 == 0 { state.fold(op) } else { state.fold_owned((*op).clone()) }
            }
            for state in states.values() {
                let back: RecordState = serde_json::from_str(&serde_json::to_string(state).expect("stored")).expect("read");
                prop_assert_eq!(&back, state);
                let packed_back = packed::decode(&packed::encode(state));
                prop_assert_eq!(packed_back.as_ref(), Some(state));
            }
            let folded: BTreeMap<String, Row> =
                states.iter().filter_map(|(k, s)| s.row().map(|(r, _)| (k.clone(), r))).collect();
            for state in states.values() {
                prop_assert_eq!(state.exists(), state.row().is_some());
                prop_assert_eq!(state.clone().into_row(), state.row().map(|(r, s)| (r, s.clone())));
            }
            prop_assert_eq!(folded, reference);
        }
    }

    proptest! {
        /// A snapshot of device `a`'s changes, made from what a device has applied (every change
        /// of `a`'s and some of the others'), keeps only `a`'s changes that still count there.
        /// Folded with every other change, and with any of the dropped ones (a device that had
        /// applied them before the snapshot), in any order, it gives the merge of everything.
        #[test]
        fn a_snapshot_of_what_still_counts_merges_as_the_whole_history(
            ops in histories(1..60),
            applied in prop::collection::vec(any::<bool>(), 60),
            before in prop::collection::vec(any::<bool>(), 60),
            order in prop::collection::vec(any::<prop::sample::Index>(), 0..80),
        ) {
            let knowledge = synced("knowledge").expect("knowledge");
            let reference = merge(&ops).rows(knowledge);
            let mine = |op: &Op| op.device.as_str() == "a";
            let mut here: BTreeMap<String, RecordState> = BTreeMap::new();
            for (i, op) in ops.iter().enumerate() {
                if mine(op) || applied[i % applied.len()] {
                    here.entry(op.key.clone()).or_default().fold(op);
                }
            }
            let kept = |op: &Op| here.get(&op.key).is_some_and(|s| s.holds(&Stamp::of(op)));
            let mut folded: Vec<&Op> = ops
                .iter()
                .enumerate()
                .filter(|(i, op)| !mine(op) || kept(op) || before[i % before.len()])
                .map(|(_, op)| op)
                .collect();
            for (i, pick) in order.iter().enumerate() {
                if folded.is_empty() {
                    break;
                }
                let len = folded.len();
                folded.swap(i % len, pick.index(len));
            }
            let mut states: BTreeMap<String, RecordState> = BTreeMap::new();
            for op in folded {
                states.entry(op.key.clone()).or_default().fold(op);
            }
            let rows: BTreeMap<String, Row> =
                states.iter().filter_map(|(k, s)| s.row().map(|(r, _)| (k.clone(), r))).collect();
            prop_assert_eq!(rows, reference);
        }
    }

    #[test]
    fn a_late_deletion_forgets_what_came_before_it() {
        let op = |seq: u64, ms: i64, change: Change| Op {
            device: DeviceId::new("a").expect("id"),
            seq,
            at: Hlc(ms, 0),
            table: "knowledge".into(),
            key: "[\"git\"]".into(),
            change,
        };
        let mut state = RecordState::default();
        state.fold(&op(1, 10, Change::Create(row(&[("topic", json!("git")), ("confidence", json!(4))]))));
        state.fold(&op(2, 20, Change::Add { column: "confidence".into(), delta: 2 }));
        assert_eq!(state.row().expect("alive").0["confidence"], json!(6));
        state.fold(&op(3, 30, Change::Delete {}));
        assert!(state.row().is_none());
        assert_eq!(state, RecordState { deleted: state.deleted.clone(), ..RecordState::default() });
        // A move made before the deletion, arriving late, is dropped; a creation after it counts.
        state.fold(&op(4, 25, Change::Add { column: "confidence".into(), delta: 5 }));
        state.fold(&op(5, 40, Change::Create(row(&[("topic", json!("git")), ("confidence", json!(1))]))));
        assert_eq!(state.row().expect("made again").0["confidence"], json!(1));
    }

    /// What the store keeps is read back by every later build and by the previous one: its
    /// layout (each stamp once, named by place) and each stamp's digest (of the change's JSON
    /// text) are pinned.
    #[test]
    fn the_stored_form_and_the_digest_are_pinned() {
        let device = DeviceId::new("dev-1").expect("id");
        let op = |seq: u64, ms: i64, change: Change| Op {
            device: device.clone(),
            seq,
            at: Hlc(ms, 0),
            table: "knowledge".into(),
            key: "[\"rust\"]".into(),
            change,
        };
        let create = op(1, 1_000, Change::Create(row(&[("topic_id", json!("rust")), ("confidence", json!(3))])));
        let add = op(2, 2_000, Change::Add { column: "confidence".into(), delta: 2 });
        let digest = |op: &Op| {
            let text = serde_json::to_string(&(&op.table, &op.key, &op.change)).expect("text");
            let hash = Sha256::digest(text.as_bytes());
            u64::from_be_bytes(hash[..8].try_into().expect("eight bytes"))
        };
        assert_eq!(Stamp::of(&create).3, digest(&create));
        let mut state = RecordState::default();
        state.fold(&create);
        state.fold(&add);
        let text = serde_json::to_string(&state).expect("stored");
        let expected = format!(
            "{{\"s\":[[[1000,0],\"dev-1\",1,{}],[[2000,0],\"dev-1\",2,{}]],\"c\":[0],\"t\":0,\
             \"v\":{{\"confidence\":[0,3],\"topic_id\":[0,\"rust\"]}},\"m\":{{\"confidence\":[[1,2]]}}}}",
            digest(&create),
            digest(&add)
        );
        assert_eq!(text, expected);
        let back: RecordState = serde_json::from_str(&text).expect("read back");
        assert_eq!(back, state);
        // The packed form: the stamps (clock zigzagged, device, number, digest), the deletion's
        // place (none), the creations, the latest touch, the columns, the moves.
        let packed = packed::encode(&state);
        let digests: Vec<u8> = [digest(&create), digest(&add)].iter().flat_map(|d| d.to_le_bytes()).collect();
        let mut expected = vec![packed::FORM, 2, 0xd0, 0x0f, 0, 5];
        expected.extend(b"dev-1");
        expected.push(1);
        expected.extend(&digests[..8]);
        expected.extend([0xa0, 0x1f, 0, 5]);
        expected.extend(b"dev-1");
        expected.push(2);
        expected.extend(&digests[8..]);
        expected.extend([0, 1, 0, 1, 2, 10]);
        expected.extend(b"confidence");
        expected.extend([0, 3, 6]);
        expected.extend([8]);
        expected.extend(b"topic_id");
        expected.extend([0, 6, 4]);
        expected.extend(b"rust");
        expected.extend([1, 10]);
        expected.extend(b"confidence");
        expected.extend([1, 1, 4]);
        assert_eq!(packed, expected);
        assert_eq!(packed::decode(&packed), Some(state));
    }
}
