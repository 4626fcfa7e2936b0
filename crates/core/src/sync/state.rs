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

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::hlc::Hlc;
use super::op::{Change, DeviceId, Op, Row};

/// What orders two changes: the clock, then the device, its sequence number, and (for two
/// machines that wrote as one device before either noticed) a digest of the change itself.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Stamp(pub Hlc, pub DeviceId, pub u64, pub u64);

impl Stamp {
    pub fn of(op: &Op) -> Self {
        let text = serde_json::to_string(&(&op.table, &op.key, &op.change)).unwrap_or_default();
        let digest = Sha256::digest(text.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        Self(op.at, op.device.clone(), op.seq, u64::from_be_bytes(first))
    }
}

/// A column's latest set.
#[derive(Debug, Clone, PartialEq)]
struct Set {
    at: Stamp,
    value: Value,
}

/// One record's merge state. See the module's comment for what each part keeps and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "Stored", from = "Stored")]
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
#[derive(Default, Serialize, Deserialize)]
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

impl From<RecordState> for Stored {
    fn from(state: RecordState) -> Self {
        let mut stored = Self::default();
        let index = |stamp: Stamp, table: &mut Vec<Stamp>| match table.iter().position(|s| *s == stamp) {
            Some(i) => i,
            None => {
                table.push(stamp);
                table.len() - 1
            }
        };
        let mut s = Vec::new();
        stored.d = state.deleted.map(|d| index(d, &mut s));
        stored.c = state.creates.into_iter().map(|c| index(c, &mut s)).collect();
        stored.t = state.touched.map(|t| index(t, &mut s));
        stored.v = state.columns.into_iter().map(|(k, set)| (k, (index(set.at, &mut s), set.value))).collect();
        stored.m = state
            .moves
            .into_iter()
            .map(|(k, moves)| (k, moves.into_iter().map(|(at, delta)| (index(at, &mut s), delta)).collect()))
            .collect();
        stored.s = s;
        stored
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
        let at = Stamp::of(op);
        if self.deleted.as_ref().is_some_and(|d| at <= *d) {
            // Before (or the same as) the latest deletion: it can never count.
            return;
        }
        match &op.change {
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
            Change::Create(fields) => {
                if let Err(i) = self.creates.binary_search(&at) {
                    self.creates.insert(i, at.clone());
                }
                self.touch(&at);
                self.set(&at, fields);
            }
            Change::Update(fields) => {
                self.touch(&at);
                self.set(&at, fields);
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

    fn set(&mut self, at: &Stamp, fields: &Row) {
        for (column, value) in fields {
            if self.columns.get(column).is_some_and(|set| set.at >= *at) {
                continue;
            }
            self.columns.insert(column.clone(), Set { at: at.clone(), value: value.clone() });
            if let Some(moves) = self.moves.get_mut(column) {
                moves.retain(|(m, _)| m > at);
                if moves.is_empty() {
                    self.moves.remove(column);
                }
            }
        }
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
        for (column, moves) in &self.moves {
            // Moves count after the column's set when that set counts, else after the creation.
            let after = self.columns.get(column).map(|s| &s.at).filter(|at| *at >= first).unwrap_or(first);
            let mut counted = moves.iter().filter(|(m, _)| m > after).peekable();
            if counted.peek().is_none() {
                continue;
            }
            let base = row.get(column).and_then(Value::as_i64).unwrap_or(0);
            let sum = counted.fold(base, |sum, (_, delta)| sum.saturating_add(*delta));
            row.insert(column.clone(), Value::from(sum));
        }
        let touched = self.touched.as_ref().unwrap_or(first);
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
                    // Kept in the store between two syncs.
                    let text = serde_json::to_string(&states).expect("stored");
                    states = serde_json::from_str(&text).expect("read back");
                }
                states.entry(op.key.clone()).or_default().fold(op);
            }
            for state in states.values() {
                let back: RecordState = serde_json::from_str(&serde_json::to_string(state).expect("stored")).expect("read");
                prop_assert_eq!(&back, state);
            }
            let folded: BTreeMap<String, Row> =
                states.iter().filter_map(|(k, s)| s.row().map(|(r, _)| (k.clone(), r))).collect();
            for state in states.values() {
                prop_assert_eq!(state.exists(), state.row().is_some());
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
}
