//! The file one device's changes travel in: gzip'd JSON Lines, a header line, one line per
//! change, and an end line carrying the SHA-256 of everything before it. A file a sync tool is
//! still copying has no end line (or a cut gzip stream) and is read as incomplete, never as
//! fewer changes.
//!
//! ```text
//! {"format":"devcoach-sync","version":1,"device":"3f…","first":41,"last":43,"prev":"9c…","written_at":"…","app":"0.1.0"}
//! {"seq":41,"at":[1764600000000,0],"table":"lessons","key":["l1"],"update":{"starred":1}}
//! {"seq":42,"at":[1764600000000,1],"table":"knowledge","key":["git"],"add":{"column":"confidence","delta":2}}
//! {"seq":43,"at":[1764600000000,2],"table":"lessons","key":["l2"],"delete":{}}
//! {"end":"5e…","ops":3}
//! ```

use std::io::{Read, Write};

use crate::limits;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::hlc::Hlc;
use super::op::{Change, DeviceId, Op};
use crate::limits::{SYNC_FILE_CHANGES, SYNC_OP_BYTES, SYNC_SEGMENT_BYTES};

/// The newest format this build reads: 1, a run of a device's changes; 2, a part of a
/// snapshot. A file of changes is still written as 1, so builds that know only 1 read it.
pub const FORMAT_VERSION: u32 = 2;
const CHANGES_VERSION: u32 = 1;
const SNAPSHOT_VERSION: u32 = 2;
const FORMAT: &str = "devcoach-sync";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub format: String,
    pub version: u32,
    pub device: DeviceId,
    /// The first and last sequence numbers in the file: every number between them in a file of
    /// changes; in a snapshot's part, the changes it keeps, in order, with gaps.
    pub first: u64,
    pub last: u64,
    /// The digest of the device's previous file: a gap or a second writer shows as a break.
    pub prev: Option<String>,
    pub written_at: String,
    pub app: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotPart>,
}

/// Which part of which snapshot a file is. A snapshot of a device's changes up to `upto` holds
/// each of its changes numbered up to there that still counts (one a later change of any
/// device's overrides is left out), unchanged, in `parts` files: once every part is in, the
/// device's older files add nothing and may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SnapshotPart {
    pub upto: u64,
    pub part: u32,
    pub parts: u32,
}

impl Header {
    pub fn new(device: DeviceId, first: u64, last: u64, prev: Option<String>, written_at: String) -> Self {
        Self {
            format: FORMAT.to_owned(),
            version: CHANGES_VERSION,
            device,
            first,
            last,
            prev,
            written_at,
            app: crate::APP_VERSION.to_owned(),
            snapshot: None,
        }
    }

    /// The header of a snapshot's part holding changes numbered `first..=last` (some of them).
    pub fn snapshot(
        device: DeviceId,
        first: u64,
        last: u64,
        prev: Option<String>,
        written_at: String,
        part: SnapshotPart,
    ) -> Self {
        Self { version: SNAPSHOT_VERSION, snapshot: Some(part), ..Self::new(device, first, last, prev, written_at) }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub header: Header,
    pub ops: Vec<Op>,
    /// SHA-256 of the file's text, what the next file's `prev` names.
    pub digest: String,
    /// The file's size unpacked: with the number of changes, what a round counts.
    pub text_bytes: usize,
}

/// Why a file was not read. None of them changes anything: the file is left for a later sync.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SegmentError {
    #[error("not a devcoach sync file")]
    Foreign,
    #[error("incomplete: it ends before its last line (a sync tool may still be copying it)")]
    Incomplete,
    #[error("damaged: {0}")]
    Damaged(String),
    #[error(
        "written by a newer devcoach (format {0}; this one reads {FORMAT_VERSION}): update devcoach on this machine"
    )]
    Newer(u32),
    #[error("larger than {} MiB", SYNC_SEGMENT_BYTES / (1024 * 1024))]
    TooLarge,
    #[error("holds more than {SYNC_FILE_CHANGES} changes, more than a devcoach writes in one file")]
    TooMany,
}

/// The latest clock reading a change may carry (the year 9999), and the most one change may move
/// a counter (the map's numbers are 0–10; the sum of every device's moves stays far below this).
const MAX_CLOCK_MS: i64 = 253_402_300_799_999;
/// The highest sequence number a file may carry (what the store keeps as a signed integer).
const MAX_SEQ: u64 = i64::MAX as u64;

#[derive(Serialize)]
struct Line {
    seq: u64,
    at: Hlc,
    table: String,
    key: Vec<Value>,
    #[serde(flatten)]
    change: Change,
}

/// Read by hand rather than derived: a derived reader of the flattened change first copies
/// every value of the line into an intermediate tree, which doubled the cost of reading a file.
/// It reads what the derived one read: the first key naming a kind of change is the change,
/// other keys are passed over, a field given twice is refused.
impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "snake_case")]
        enum Field {
            Seq,
            At,
            Table,
            Key,
            Create,
            Update,
            Add,
            Delete,
            #[serde(other)]
            Other,
        }
        #[derive(Deserialize)]
        struct AddBody {
            column: String,
            delta: i64,
        }
        #[derive(Deserialize)]
        struct Empty {}
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Line;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a change")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Line, A::Error> {
                use serde::de::{Error, IgnoredAny};
                fn once<T, E: Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
                    if slot.replace(value).is_some() {
                        return Err(E::duplicate_field(name));
                    }
                    Ok(())
                }
                let (mut seq, mut at, mut table, mut key, mut change) = (None, None, None, None, None);
                while let Some(field) = map.next_key::<Field>()? {
                    match field {
                        Field::Seq => once(&mut seq, map.next_value()?, "seq")?,
                        Field::At => once(&mut at, map.next_value()?, "at")?,
                        Field::Table => once(&mut table, map.next_value()?, "table")?,
                        Field::Key => once(&mut key, map.next_value()?, "key")?,
                        Field::Create | Field::Update | Field::Add | Field::Delete if change.is_some() => {
                            map.next_value::<IgnoredAny>()?;
                        }
                        Field::Create => change = Some(Change::Create(map.next_value()?)),
                        Field::Update => change = Some(Change::Update(map.next_value()?)),
                        Field::Add => {
                            let AddBody { column, delta } = map.next_value()?;
                            change = Some(Change::Add { column, delta });
                        }
                        Field::Delete => {
                            map.next_value::<Empty>()?;
                            change = Some(Change::Delete {});
                        }
                        Field::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Line {
                    seq: seq.ok_or_else(|| A::Error::missing_field("seq"))?,
                    at: at.ok_or_else(|| A::Error::missing_field("at"))?,
                    table: table.ok_or_else(|| A::Error::missing_field("table"))?,
                    key: key.ok_or_else(|| A::Error::missing_field("key"))?,
                    change: change.ok_or_else(|| A::Error::custom("no kind of change in the line"))?,
                })
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

#[derive(Serialize, Deserialize)]
struct End {
    end: String,
    ops: u64,
}

pub use crate::encoding::hex;

/// The file for `ops` (all of `header.device`, numbered `header.first..=header.last`).
pub fn encode(header: &Header, ops: &[Op]) -> (Vec<u8>, String) {
    let mut text = Vec::new();
    let push = |value: &dyn erased::Json, text: &mut Vec<u8>| {
        text.extend_from_slice(value.json().as_bytes());
        text.push(b'\n');
    };
    push(header, &mut text);
    for op in ops {
        let key: Vec<Value> = serde_json::from_str(&op.key).unwrap_or_default();
        let line = Line { seq: op.seq, at: op.at, table: op.table.clone(), key, change: op.change.clone() };
        push(&line, &mut text);
    }
    let body_digest = hex(&Sha256::digest(&text));
    push(&End { end: body_digest, ops: ops.len() as u64 }, &mut text);
    let digest = hex(&Sha256::digest(&text));
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    // Writing to a Vec cannot fail.
    let _ = gz.write_all(&text);
    (gz.finish().unwrap_or_default(), digest)
}

mod erased {
    /// One line of the file, whatever it holds.
    pub trait Json {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_default()
        }
    }
}

/// `ops` cut into the runs one file each holds: at most [`SYNC_FILE_CHANGES`] changes and about
/// half of [`SYNC_SEGMENT_BYTES`] unpacked, so every file a devcoach writes reads back.
pub fn split(ops: &[Op]) -> Vec<&[Op]> {
    let mut runs = Vec::new();
    let (mut start, mut bytes) = (0, 0usize);
    for (i, op) in ops.iter().enumerate() {
        let size = serde_json::to_string(&op.change).map_or(0, |t| t.len()) + op.key.len() + 128;
        if i > start && (i - start >= SYNC_FILE_CHANGES || bytes + size > SYNC_SEGMENT_BYTES / 2) {
            runs.push(&ops[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += size;
    }
    if start < ops.len() {
        runs.push(&ops[start..]);
    }
    runs
}

/// Whether a change line has the shape a devcoach writes — the line, its clock, its key and its
/// columns, each of those holding plain values — checked on the bytes before parsing, so a
/// line of nested arrays (a few bytes of text, many times that once parsed) is refused
/// without ever being built.
fn flat(line: &[u8]) -> bool {
    let (mut in_string, mut escaped) = (false, false);
    let (mut depth, mut opened, mut colons) = (0usize, 0usize, 0usize);
    for &b in line {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                opened += 1;
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b':' => colons += 1,
            _ => {}
        }
        // The line's object, then `at` and `key` (arrays) and the change's columns (an object).
        if depth > 2 || opened > 4 || colons > limits::SYNC_COLUMNS {
            return false;
        }
    }
    true
}

/// Reads a file written by [`encode`], checking every line against the header and the end
/// line's digest.
pub fn decode(bytes: &[u8]) -> Result<Segment, SegmentError> {
    if bytes.len() < 2 || bytes[..2] != [0x1f, 0x8b] {
        return Err(SegmentError::Foreign);
    }
    let mut text = Vec::new();
    let read = GzDecoder::new(bytes).take(SYNC_SEGMENT_BYTES as u64 + 1).read_to_end(&mut text);
    match read {
        Ok(_) if text.len() > SYNC_SEGMENT_BYTES => return Err(SegmentError::TooLarge),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Err(SegmentError::Incomplete),
        Err(_) => return Err(SegmentError::Damaged("its compressed data does not read back".into())),
    }
    let digest = hex(&Sha256::digest(&text));
    let damaged = |what: &str| SegmentError::Damaged(what.to_owned());
    // Each line with the offset it starts at; the last piece (after the final newline) is empty
    // in a whole file.
    let mut lines = text.split(|b| *b == b'\n').scan(0usize, |offset, line| {
        let start = *offset;
        *offset += line.len() + 1;
        Some((start, line))
    });
    let (_, first) = lines.next().ok_or(SegmentError::Foreign)?;
    // A header is a few short fields: a longer one (a huge value hidden in it, which the store
    // would keep with the file's name) is refused before it is parsed.
    if first.len() > limits::SYNC_HEADER_BYTES || !flat(first) {
        return Err(damaged("its header is not one devcoach writes"));
    }
    let probe: Value = serde_json::from_slice(first).map_err(|_| SegmentError::Foreign)?;
    if probe.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(SegmentError::Foreign);
    }
    match probe.get("version").and_then(Value::as_u64) {
        Some(v) if v > u64::from(FORMAT_VERSION) => {
            return Err(SegmentError::Newer(u32::try_from(v).unwrap_or(u32::MAX)));
        }
        _ => {}
    }
    let header: Header =
        serde_json::from_value(probe).map_err(|e| SegmentError::Damaged(format!("its header: {e}")))?;
    // Numbers past what a store keeps (a signed 64-bit integer) are no numbers a devcoach
    // writes: refused before any arithmetic on them.
    if header.first == 0 || header.last < header.first || header.last > MAX_SEQ {
        return Err(damaged("its header numbers no changes"));
    }
    // A snapshot's part keeps some of the numbers of a range, in order; a file of changes every
    // number of its range, one after another.
    let snapshot = match (header.version, header.snapshot) {
        (SNAPSHOT_VERSION, Some(part)) => {
            if part.parts == 0 || part.parts > limits::SYNC_SNAPSHOT_PARTS || part.part == 0 || part.part > part.parts {
                return Err(damaged("its header numbers its part of a snapshot wrongly"));
            }
            if header.last > part.upto || part.upto > MAX_SEQ {
                return Err(damaged("its snapshot holds changes past its own end"));
            }
            true
        }
        (CHANGES_VERSION, None) => false,
        _ => return Err(damaged("its header does not say what kind of file it is")),
    };
    if !snapshot && header.last - header.first >= SYNC_FILE_CHANGES as u64 {
        return Err(SegmentError::TooMany);
    }
    let mut ops = Vec::new();
    let mut expected = header.first;
    loop {
        let Some((start, line)) = lines.next().filter(|(_, l)| !l.is_empty()) else {
            return Err(SegmentError::Incomplete);
        };
        if line.len() > SYNC_OP_BYTES {
            return Err(damaged("a change is larger than a change can be"));
        }
        if line.starts_with(b"{\"end\"") {
            let end: End = serde_json::from_slice(line).map_err(|_| damaged("its end line"))?;
            if end.end != hex(&Sha256::digest(&text[..start])) {
                return Err(damaged("its digest does not match its contents"));
            }
            let through = ops.last().map(|o: &Op| o.seq);
            // A snapshot of a device none of whose changes still counts holds none: its one
            // part names the snapshot's end alone.
            let empty_part = ops.is_empty() && header.first == header.last;
            let whole = if snapshot { through == Some(header.last) || empty_part } else { expected == header.last + 1 };
            if end.ops != ops.len() as u64 || !whole {
                return Err(damaged("it holds a different number of changes than it says"));
            }
            if start + line.len() + 1 != text.len() {
                return Err(damaged("something follows its end line"));
            }
            break;
        }
        if !flat(line) {
            return Err(damaged("a change holds a nested value or too many columns"));
        }
        if ops.len() >= SYNC_FILE_CHANGES {
            return Err(SegmentError::TooMany);
        }
        let line: Line =
            serde_json::from_slice(line).map_err(|e| SegmentError::Damaged(format!("change {expected}: {e}")))?;
        let in_order = if snapshot && !ops.is_empty() { line.seq >= expected } else { line.seq == expected };
        if !in_order || line.seq > header.last || line.seq > MAX_SEQ {
            return Err(damaged("its changes are out of sequence"));
        }
        if line.table.is_empty() || line.table.len() > 64 {
            return Err(damaged("a change names no table"));
        }
        // A clock before 1970 or a counter moved by more than any record holds is no change a
        // devcoach makes: refused whole, so no sum or clock downstream can overflow.
        if line.at.0 < 0 || line.at.0 > MAX_CLOCK_MS {
            return Err(damaged("a change's clock is out of range"));
        }
        if let Change::Add { delta, .. } = &line.change
            && delta.unsigned_abs() > limits::SYNC_DELTA
        {
            return Err(damaged("a change moves a counter further than any record holds"));
        }
        let key = serde_json::to_string(&line.key).map_err(|_| damaged("a change's key"))?;
        ops.push(Op {
            device: header.device.clone(),
            seq: line.seq,
            at: line.at,
            table: line.table,
            key,
            change: line.change,
        });
        expected = line.seq + 1;
    }
    Ok(Segment { header, ops, digest, text_bytes: text.len() })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn ops(device: &DeviceId) -> Vec<Op> {
        let op = |seq, key: &str, change| Op {
            device: device.clone(),
            seq,
            at: Hlc(1_000, u32::try_from(seq).unwrap_or(0)),
            table: "lessons".into(),
            key: key.into(),
            change,
        };
        vec![
            op(
                5,
                "[\"l1\"]",
                Change::Create([("id".to_owned(), json!("l1")), ("title".to_owned(), json!("Lifetimes ✓"))].into()),
            ),
            op(6, "[\"l1\"]", Change::Add { column: "confidence".into(), delta: -2 }),
            op(7, "[\"l2\"]", Change::Delete {}),
        ]
    }

    fn ops_one() -> Op {
        Op {
            device: DeviceId::new("ab12").expect("id"),
            seq: 1,
            at: Hlc(1_000, 0),
            table: "lessons".into(),
            key: "[\"l1\"]".into(),
            change: Change::Delete {},
        }
    }

    /// A snapshot's part keeps some of a range's numbers, in order, none past the snapshot's
    /// end; a file of changes must keep them all; a part may hold none at all.
    #[test]
    fn a_snapshot_part_reads_with_gaps_and_nothing_else_does() {
        let device = DeviceId::new("ab12").expect("id");
        let all = ops(&device);
        let kept = vec![all[0].clone(), all[2].clone()];
        let part = SnapshotPart { upto: 9, part: 1, parts: 2 };
        let header = Header::snapshot(device.clone(), 5, 7, None, "x".into(), part);
        let read = decode(&encode(&header, &kept).0).expect("a part with a gap");
        assert_eq!((read.ops, read.header.snapshot), (kept.clone(), Some(part)));
        // The same gap in a file of changes is refused.
        assert!(decode(&encode(&Header::new(device.clone(), 5, 7, None, "x".into()), &kept).0).is_err());
        // Out of order, past its end, a part numbered wrongly, or a snapshot without version 2.
        let backwards = vec![all[2].clone(), all[0].clone()];
        assert!(decode(&encode(&header, &backwards).0).is_err());
        let past = Header::snapshot(device.clone(), 5, 7, None, "x".into(), SnapshotPart { upto: 6, ..part });
        assert!(decode(&encode(&past, &kept).0).is_err());
        let wrong = Header::snapshot(device.clone(), 5, 7, None, "x".into(), SnapshotPart { part: 3, ..part });
        assert!(decode(&encode(&wrong, &kept).0).is_err());
        let old_kind = Header { version: 1, ..header.clone() };
        assert!(decode(&encode(&old_kind, &kept).0).is_err());
        // Numbers past what a store keeps are refused before any arithmetic on them.
        let huge = Op { seq: u64::MAX, ..all[0].clone() };
        let far = Header::snapshot(
            device.clone(),
            u64::MAX,
            u64::MAX,
            None,
            "x".into(),
            SnapshotPart { upto: u64::MAX, part: 1, parts: 1 },
        );
        assert!(decode(&encode(&far, std::slice::from_ref(&huge)).0).is_err());
        assert!(
            decode(&encode(&Header::new(device.clone(), u64::MAX, u64::MAX, None, "x".into()), &[huge]).0).is_err()
        );
        // Nothing of the device's still counts: one empty part names the end.
        let empty = Header::snapshot(device, 9, 9, None, "x".into(), SnapshotPart { upto: 9, part: 1, parts: 1 });
        assert!(decode(&encode(&empty, &[]).0).expect("empty part").ops.is_empty());
    }

    /// A line of nested values (a few bytes that would take gigabytes once parsed) is refused
    /// before it is parsed; a devcoach's own lines, strings full of brackets included, read.
    #[test]
    fn a_nested_value_is_refused_before_it_is_built() {
        let device = DeviceId::new("ab12").expect("id");
        let odd = "[[{{\\\"]]}}:::".repeat(50);
        let fine = Op {
            device: device.clone(),
            seq: 1,
            at: Hlc(1_000, 0),
            table: "lessons".into(),
            key: "[\"l1\"]".into(),
            change: Change::Create([("title".to_owned(), json!(odd)), ("id".to_owned(), json!("l1"))].into()),
        };
        let header = Header::new(device.clone(), 1, 1, None, "x".into());
        assert_eq!(decode(&encode(&header, std::slice::from_ref(&fine)).0).expect("reads").ops, vec![fine.clone()]);
        let nested = Op { change: Change::Update([("title".to_owned(), json!([[0, 0], [0]]))].into()), ..fine.clone() };
        let too_wide = Op { change: Change::Update((0..200).map(|i| (format!("c{i}"), json!(0))).collect()), ..fine };
        for op in [nested, too_wide] {
            let err = decode(&encode(&header, std::slice::from_ref(&op)).0).expect_err("refused");
            assert!(err.to_string().contains("nested value or too many columns"), "{err}");
        }
        // Nor in the header, which the store keeps with the file's name.
        let mut long = Header::new(device, 1, 1, None, "x".repeat(2_000));
        let one = ops_one();
        assert!(decode(&encode(&long, std::slice::from_ref(&one)).0).is_err(), "a long header");
        long.written_at = "x".into();
        assert!(decode(&encode(&long, &[one]).0).is_ok());
    }

    /// A device with more to send than one file may hold writes several files, each of which
    /// reads back; a file claiming more changes than that is refused before any is read.
    #[test]
    fn files_hold_at_most_their_share_and_a_larger_one_is_refused() {
        let device = DeviceId::new("ab12").expect("id");
        let n = 2 * SYNC_FILE_CHANGES as u64 + 1;
        let many: Vec<Op> = (1..=n)
            .map(|seq| Op {
                device: device.clone(),
                seq,
                at: Hlc(1_000, 0),
                table: "knowledge".into(),
                key: format!("[\"t{seq}\"]"),
                change: Change::Add { column: "confidence".into(), delta: 1 },
            })
            .collect();
        let runs = split(&many);
        assert_eq!(runs.iter().map(|r| r.len()).collect::<Vec<_>>(), [SYNC_FILE_CHANGES, SYNC_FILE_CHANGES, 1]);
        for run in &runs {
            let header = Header::new(device.clone(), run[0].seq, run[run.len() - 1].seq, None, "x".into());
            assert_eq!(decode(&encode(&header, run).0).expect("reads").ops.len(), run.len());
        }
        // Big changes: cut by size, each file well under the unpacked cap.
        let body = "x".repeat(3 * 1024 * 1024);
        let big: Vec<Op> = (1..=30u64)
            .map(|seq| Op {
                device: device.clone(),
                seq,
                at: Hlc(1_000, 0),
                table: "lessons".into(),
                key: format!("[\"l{seq}\"]"),
                change: Change::Create([("body".to_owned(), json!(body))].into()),
            })
            .collect();
        let runs = split(&big);
        assert!(
            runs.len() >= 3 && runs.iter().all(|r| r.len() * body.len() <= SYNC_SEGMENT_BYTES / 2),
            "{}",
            runs.len()
        );
        assert_eq!(runs.iter().map(|r| r.len()).sum::<usize>(), 30);
        let over = SYNC_FILE_CHANGES + 1;
        let header = Header::new(device, 1, over as u64, None, "x".into());
        assert!(matches!(decode(&encode(&header, &many[..over]).0), Err(SegmentError::TooMany)));
    }

    #[test]
    fn a_file_reads_back_as_written() {
        let device = DeviceId::new("ab12").expect("id");
        let header = Header::new(device.clone(), 5, 7, Some("prev".into()), "2026-12-01T00:00:00.000Z".into());
        let (bytes, digest) = encode(&header, &ops(&device));
        let segment = decode(&bytes).expect("reads");
        assert_eq!(segment.header, header);
        assert_eq!(segment.ops, ops(&device));
        assert_eq!(segment.digest, digest);
    }

    #[test]
    fn a_cut_file_is_incomplete_and_a_changed_one_damaged() {
        let device = DeviceId::new("ab12").expect("id");
        let header = Header::new(device.clone(), 5, 7, None, String::new());
        let (bytes, _) = encode(&header, &ops(&device));
        for cut in [10, bytes.len() / 2, bytes.len() - 1] {
            assert_eq!(decode(&bytes[..cut]), Err(SegmentError::Incomplete), "cut at {cut}");
        }
        assert_eq!(decode(b"hello"), Err(SegmentError::Foreign));
        // Rewritten text with the end line left as it was: the digest catches it.
        let mut text = String::new();
        GzDecoder::new(bytes.as_slice()).read_to_string(&mut text).expect("text");
        let forged = text.replace("Lifetimes", "Lifeforms");
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(forged.as_bytes()).expect("gz");
        assert!(matches!(decode(&gz.finish().expect("gz")), Err(SegmentError::Damaged(_))));
        // And the text without its end line is incomplete.
        let cut = text.rsplit_once("{\"end\"").expect("end").0;
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(cut.as_bytes()).expect("gz");
        assert_eq!(decode(&gz.finish().expect("gz")), Err(SegmentError::Incomplete));
    }

    #[test]
    fn a_newer_format_says_so() {
        let text = "{\"format\":\"devcoach-sync\",\"version\":9,\"device\":\"a\"}\n";
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(text.as_bytes()).expect("gz");
        assert_eq!(decode(&gz.finish().expect("gz")), Err(SegmentError::Newer(9)));
    }

    /// The line as serde's derived reader takes it (what files were read with before the hand
    /// reader): both must agree on every line, well formed or not.
    #[derive(Deserialize)]
    struct Derived {
        seq: u64,
        at: Hlc,
        table: String,
        key: Vec<Value>,
        #[serde(flatten)]
        change: Change,
    }

    type Parsed = Option<(u64, Hlc, String, Vec<Value>, Change)>;

    fn both(text: &str) -> (Parsed, Parsed) {
        let mine = serde_json::from_str::<Line>(text).ok().map(|l| (l.seq, l.at, l.table, l.key, l.change));
        let theirs = serde_json::from_str::<Derived>(text).ok().map(|l| (l.seq, l.at, l.table, l.key, l.change));
        (mine, theirs)
    }

    #[test]
    fn the_hand_reader_reads_a_line_as_the_derived_one_did() {
        let lines = [
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"create":{"id":"l1","n":2}}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"update":{"title":"x"}}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"add":{"column":"n","delta":-3}}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"add":["n",4]}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"delete":{}}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"delete":{"x":1}}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"delete":[]}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"extra":[1,2],"delete":{}}"#,
            r#"{"delete":{},"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"create":{"id":"l1"}}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"create":{"id":"l1"},"delete":{}}"#,
            r#"{"seq":1,"seq":2,"at":[5,0],"table":"lessons","key":["l1"],"delete":{}}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"]}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","delete":{}}"#,
            r#"{"seq":-1,"at":[5,0],"table":"lessons","key":["l1"],"delete":{}}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"create":5}"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"add":{"column":"n"}}"#,
            r#"[1,[5,0],"lessons",["l1"]]"#,
            r#"{"seq":1,"at":[5,0],"table":"lessons","key":["l1"],"Delete":{}}"#,
        ];
        for line in lines {
            let (mine, theirs) = both(line);
            assert_eq!(mine, theirs, "{line}");
        }
        // The first kind of change named counts; the well-formed ones read.
        assert!(matches!(both(lines[8]).0, Some((_, _, _, _, Change::Delete {}))));
        assert!(both(lines[0]).0.is_some());
        assert!(both(lines[10]).0.is_none(), "a field twice is refused");
    }

    proptest! {
        /// Every line a devcoach writes reads back the same through either reader.
        #[test]
        fn every_written_line_reads_alike(seq in 0u64..1_000_000, ms in 0i64..4_000_000_000_000, n in any::<i64>(),
                                          text in ".{0,40}", pick in 0usize..4) {
            let change = match pick {
                0 => Change::Create([("id".to_owned(), Value::from(text.clone())), ("n".to_owned(), Value::from(n))].into()),
                1 => Change::Update([("title".to_owned(), Value::from(text.clone()))].into()),
                2 => Change::Add { column: text.clone(), delta: n },
                _ => Change::Delete {},
            };
            let line = Line { seq, at: Hlc(ms, 3), table: "lessons".into(), key: vec![Value::from(text)], change };
            let written = serde_json::to_string(&line).expect("written");
            let (mine, theirs) = both(&written);
            prop_assert!(mine.is_some());
            prop_assert_eq!(mine, theirs);
        }
    }

    proptest! {
        #[test]
        fn decoding_any_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
            let _ = decode(&bytes);
        }
    }
}
