//! Folding every device's changes into one set of rows, and finding what changed locally.
//!
//! The rules, per record:
//! - a column takes the value of the latest change (by clock, then device id) that set it;
//! - a counter column (`knowledge.confidence`) is the value it was created with plus every move
//!   made to it since, whichever device made them, kept within its range when stored;
//! - a deletion removes the record; a later update or move of it is dropped (the device that
//!   made it had not seen the deletion), and only making it again brings it back;
//! - a record that hangs from a lesson exists only while the lesson does;
//! - log rows (evidence, review history, checked answers) are their content: the union of every
//!   device's.
//!
//! The fold sorts first and skips repeats of a (device, sequence number), so it is a function of
//! the set of changes, not of the order they arrived in.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use super::hlc::Hlc;
use super::op::{Change, DeviceId, Op, RecordKey, Row};
use super::tables::SyncTable;

/// When a record was last written, and by whom: what orders two writes.
type Stamp = (Hlc, DeviceId);

/// Every record the changes leave, per table: counters unbounded (the range applies when they
/// are stored), records that hang from a lesson not yet checked against it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    tables: BTreeMap<String, BTreeMap<RecordKey, Row>>,
    /// When each record was last made or changed (for the one-per-value rule).
    stamps: HashMap<(String, RecordKey), Stamp>,
}

/// Folds `ops` (any order, repeats allowed) into the records they leave.
pub fn merge<'a>(ops: impl IntoIterator<Item = &'a Op>) -> Merged {
    let mut sorted: Vec<&Op> = ops.into_iter().collect();
    // Two machines writing as one device (a cloned disk, before either noticed) may number two
    // different changes alike: the change itself breaks the tie, so the order stays total.
    let text = |op: &Op| serde_json::to_string(&(&op.table, &op.key, &op.change)).unwrap_or_default();
    sorted.sort_by(|a, b| (a.at, &a.device, a.seq).cmp(&(b.at, &b.device, b.seq)).then_with(|| text(a).cmp(&text(b))));
    // A repeat is the same change read twice: dropped.
    sorted.dedup_by(|b, a| {
        a.at == b.at
            && a.device == b.device
            && a.seq == b.seq
            && a.table == b.table
            && a.key == b.key
            && a.change == b.change
    });
    let mut merged = Merged::default();
    merged.fold(sorted);
    merged
}

impl Merged {
    fn fold<'a>(&mut self, ops: impl IntoIterator<Item = &'a Op>) {
        for op in ops {
            let rows = self.tables.entry(op.table.clone()).or_default();
            match &op.change {
                Change::Create(fields) => {
                    self.stamps.insert((op.table.clone(), op.key.clone()), (op.at, op.device.clone()));
                    let row = rows.entry(op.key.clone()).or_default();
                    row.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                Change::Update(fields) => {
                    if let Some(row) = rows.get_mut(&op.key) {
                        row.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
                        self.stamps.insert((op.table.clone(), op.key.clone()), (op.at, op.device.clone()));
                    }
                }
                Change::Add { column, delta } => {
                    if let Some(row) = rows.get_mut(&op.key) {
                        let was = row.get(column).and_then(Value::as_i64).unwrap_or(0);
                        row.insert(column.clone(), Value::from(was.saturating_add(*delta)));
                    }
                }
                Change::Delete {} => {
                    rows.remove(&op.key);
                }
            }
        }
    }
}

/// The key a record has in a table keyed by one column holding `id`.
fn parent_key(id: &Value) -> RecordKey {
    serde_json::to_string(&[id]).unwrap_or_default()
}

impl Merged {
    /// The records of `table` that exist: counters unbounded, so a local move is measured
    /// against what the devices added up to.
    pub fn rows(&self, table: &SyncTable) -> BTreeMap<RecordKey, Row> {
        self.live(table).into_iter().map(|(k, row)| (k.clone(), row.clone())).collect()
    }

    /// The records of `table` that exist, borrowed (what a sync compares and writes from,
    /// without a second copy of the record).
    pub fn live(&self, table: &SyncTable) -> BTreeMap<&RecordKey, &Row> {
        let Some(rows) = self.tables.get(table.name) else { return BTreeMap::new() };
        let parents = table.parent.and_then(|(_, parent)| self.tables.get(parent));
        let mut live: BTreeMap<&RecordKey, &Row> = rows
            .iter()
            .filter(|(_, row)| match table.parent {
                Some((column, _)) => {
                    let id = row.get(column).unwrap_or(&Value::Null);
                    parents.is_some_and(|p| p.contains_key(&parent_key(id)))
                }
                None => true,
            })
            .collect();
        if let Some(column) = table.unique {
            // Per value, the record written last (then the greater key, so every device agrees).
            let mut best: BTreeMap<String, (&RecordKey, Option<&Stamp>)> = BTreeMap::new();
            for (key, row) in &live {
                let value = row.get(column).map(Value::to_string).unwrap_or_default();
                let stamp = self.stamps.get(&(table.name.to_owned(), (*key).clone()));
                let better = best.get(&value).is_none_or(|(k, s)| (stamp, *key) > (*s, *k));
                if better {
                    best.insert(value, (key, stamp));
                }
            }
            let keep: HashSet<&RecordKey> = best.values().map(|(k, _)| *k).collect();
            live.retain(|k, _| keep.contains(k));
        }
        live
    }

    /// The records of `table` as the store holds them: counters within their range.
    pub fn store_rows(&self, table: &SyncTable) -> BTreeMap<RecordKey, Row> {
        let mut rows = self.rows(table);
        for row in rows.values_mut() {
            bound(table, row);
        }
        rows
    }
}

/// Puts each counter of `row` within its range.
pub fn bound(table: &SyncTable, row: &mut Row) {
    for counter in table.counters {
        if let Some(v) = row.get(counter.column).and_then(Value::as_i64) {
            row.insert(counter.column.to_owned(), Value::from(counter.clamp(v)));
        }
    }
}

/// The changes that take `shadow` (the merged records this store last matched, counters
/// unbounded) to `local` (the store now): what was written here since, by us or by any other
/// program.
pub fn diff(
    table: &SyncTable,
    shadow: &BTreeMap<&RecordKey, &Row>,
    local: &BTreeMap<RecordKey, Row>,
) -> Vec<(RecordKey, Change)> {
    let mut changes = Vec::new();
    for (key, now) in local {
        let Some(was) = shadow.get(key) else {
            changes.push((key.clone(), Change::Create(now.clone())));
            continue;
        };
        let mut fields = Row::new();
        for (column, value) in now {
            let before = was.get(column).unwrap_or(&Value::Null);
            if let Some(counter) = table.counter(column)
                && let (Some(v), Some(b)) = (value.as_i64(), before.as_i64())
            {
                // Measured against the bounded value the store was given, added to the unbounded
                // sum: a move the store shows is kept exactly.
                if v != counter.clamp(b) {
                    changes.push((key.clone(), Change::Add { column: column.clone(), delta: v.saturating_sub(b) }));
                }
                continue;
            }
            if value != before {
                fields.insert(column.clone(), value.clone());
            }
        }
        if !fields.is_empty() {
            changes.push((key.clone(), Change::Update(fields)));
        }
    }
    for key in shadow.keys() {
        if !local.contains_key(*key) {
            changes.push(((*key).clone(), Change::Delete {}));
        }
    }
    changes
}

#[cfg(test)]
pub(super) mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::super::hlc::Hlc;
    use super::super::op::DeviceId;
    use super::super::tables::synced;
    use super::*;

    pub(in crate::sync) fn row(pairs: &[(&str, Value)]) -> Row {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
    }

    fn op(device: &str, seq: u64, ms: i64, table: &str, key: &str, change: Change) -> Op {
        Op {
            device: DeviceId::new(device).expect("id"),
            seq,
            at: Hlc(ms, 0),
            table: table.to_owned(),
            key: format!("[\"{key}\"]"),
            change,
        }
    }

    fn lesson(id: &str) -> Change {
        Change::Create(row(&[("id", json!(id)), ("title", json!("t")), ("starred", json!(0))]))
    }

    #[test]
    fn a_star_on_a_lesson_deleted_elsewhere_is_dropped_whichever_came_first() {
        let lessons = synced("lessons").expect("lessons");
        let create = op("a", 1, 10, "lessons", "l1", lesson("l1"));
        let star = op("a", 2, 30, "lessons", "l1", Change::Update(row(&[("starred", json!(1))])));
        let delete = op("b", 1, 20, "lessons", "l1", Change::Delete {});
        let early_star = Op { at: Hlc(15, 0), ..star.clone() };
        for ops in [vec![&create, &star, &delete], vec![&delete, &early_star, &create]] {
            assert!(merge(ops).rows(lessons).is_empty());
        }
    }

    #[test]
    fn confidence_moved_on_two_devices_adds_both_moves_and_is_stored_within_range() {
        let knowledge = synced("knowledge").expect("knowledge");
        let create = op(
            "a",
            1,
            10,
            "knowledge",
            "git",
            Change::Create(row(&[("topic", json!("git")), ("confidence", json!(7))])),
        );
        let up_a = op("a", 2, 20, "knowledge", "git", Change::Add { column: "confidence".into(), delta: 2 });
        let up_b = op("b", 1, 21, "knowledge", "git", Change::Add { column: "confidence".into(), delta: 3 });
        let merged = merge([&create, &up_a, &up_b]);
        assert_eq!(merged.rows(knowledge)["[\"git\"]"]["confidence"], json!(12));
        assert_eq!(merged.store_rows(knowledge)["[\"git\"]"]["confidence"], json!(10));
        // The store shows 10; lowering it to 9 there is a move of 3 from the sum.
        let local = merged.store_rows(knowledge).into_iter().map(|(k, mut r)| {
            r.insert("confidence".into(), json!(9));
            (k, r)
        });
        let changes = diff(knowledge, &merged.live(knowledge), &local.collect());
        assert_eq!(changes, vec![("[\"git\"]".to_owned(), Change::Add { column: "confidence".into(), delta: -3 })]);
    }

    #[test]
    fn a_review_of_a_deleted_lesson_is_not_kept() {
        let log = synced("ext_review_log").expect("log");
        let create = op("a", 1, 10, "lessons", "l1", lesson("l1"));
        let review = op(
            "a",
            2,
            30,
            "ext_review_log",
            "r",
            Change::Create(row(&[("lesson_id", json!("l1")), ("grade", json!(3))])),
        );
        assert_eq!(merge([&create, &review]).rows(log).len(), 1);
        let delete = op("b", 1, 20, "lessons", "l1", Change::Delete {});
        assert!(merge([&create, &review, &delete]).rows(log).is_empty());
    }

    #[test]
    fn diff_then_merge_gives_back_the_local_rows() {
        let lessons = synced("lessons").expect("lessons");
        let shadow = merge([&op("a", 1, 10, "lessons", "l1", lesson("l1"))]);
        let mut local = shadow.store_rows(lessons);
        local.get_mut("[\"l1\"]").expect("row").insert("starred".into(), json!(1));
        local.insert("[\"l2\"]".into(), row(&[("id", json!("l2")), ("title", json!("u")), ("starred", json!(0))]));
        let changes = diff(lessons, &shadow.live(lessons), &local);
        assert_eq!(changes.len(), 2);
        let mut ops = vec![op("a", 1, 10, "lessons", "l1", lesson("l1"))];
        for (i, (key, change)) in changes.into_iter().enumerate() {
            ops.push(Op { key, ..op("a", 2 + i as u64, 40, "lessons", "", change) });
        }
        assert_eq!(merge(&ops).store_rows(lessons), local);
    }

    /// Three devices each make a history of changes to a few shared records (seeing some of the
    /// others' changes first, as syncs in between would let them); any interleaving and any
    /// repetition of the union merges to the same records.
    ///
    /// Also the histories `state`'s property test folds one change at a time: creations with and
    /// without a confidence, moves, updates of the confidence and of another column, deletions.
    pub(in crate::sync) fn histories(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<Op>> {
        let change = prop_oneof![
            (0..3i64).prop_map(|c| Change::Create(row(&[("topic", json!("t")), ("confidence", json!(c + 4))]))),
            Just(Change::Create(row(&[("topic", json!("t"))]))),
            (-3..4i64).prop_map(|d| Change::Add { column: "confidence".into(), delta: d }),
            (0..2i64).prop_map(|s| Change::Update(row(&[("updated_at", json!(s))]))),
            (0..11i64).prop_map(|c| Change::Update(row(&[("confidence", json!(c))]))),
            Just(Change::Delete {}),
        ];
        prop::collection::vec((0..3usize, 0..3usize, 0..40i64, change), len).prop_map(|steps| {
            let mut seqs = [0u64; 3];
            steps
                .into_iter()
                .map(|(device, key, ms, change)| {
                    seqs[device] += 1;
                    Op {
                        device: DeviceId::new(["a", "b", "c"][device]).expect("id"),
                        seq: seqs[device],
                        at: Hlc(ms, u32::try_from(seqs[device]).unwrap_or(0)),
                        table: "knowledge".into(),
                        key: format!("[\"k{key}\"]"),
                        change,
                    }
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn any_order_and_any_repetition_merge_to_the_same_records(
            ops in histories(1..40),
            order in prop::collection::vec(any::<prop::sample::Index>(), 0..80),
            repeats in prop::collection::vec(any::<prop::sample::Index>(), 0..20),
        ) {
            let knowledge = synced("knowledge").expect("knowledge");
            let reference = merge(&ops).store_rows(knowledge);
            let mut shuffled: Vec<&Op> = ops.iter().collect();
            for (i, pick) in order.iter().enumerate() {
                let len = shuffled.len();
                shuffled.swap(i % len, pick.index(len));
            }
            for pick in &repeats {
                shuffled.push(&ops[pick.index(ops.len())]);
            }
            prop_assert_eq!(merge(shuffled).store_rows(knowledge), reference);
        }
    }
}
