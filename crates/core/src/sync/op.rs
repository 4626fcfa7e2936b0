//! A change to one record, as a device logs it.

use std::collections::BTreeMap;
use std::fmt;

use crate::limits;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::hlc::Hlc;

/// A record's columns as they travel: SQL NULL is `null`, INTEGER and REAL are numbers, TEXT is a
/// string.
pub type Row = BTreeMap<String, Value>;

/// A record's key within its table: the key columns' values written as a JSON array, so equal
/// keys are equal strings whatever produced them.
pub type RecordKey = String;

/// A device's id: made once per data directory, lowercase letters, digits and dashes.
///
/// Held inline rather than as a `String`: every stamp of every merged column names its device,
/// and a join copies stamps hundreds of thousands of times.
#[derive(Clone)]
pub struct DeviceId {
    len: u8,
    bytes: [u8; limits::DEVICE_ID_CHARS],
}

impl DeviceId {
    pub fn new(raw: &str) -> Result<Self, String> {
        let ok = !raw.is_empty()
            && raw.len() <= limits::DEVICE_ID_CHARS
            && raw.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !ok {
            return Err(format!("{raw:?} is not a device id"));
        }
        let mut bytes = [0u8; limits::DEVICE_ID_CHARS];
        bytes[..raw.len()].copy_from_slice(raw.as_bytes());
        Ok(Self { len: u8::try_from(raw.len()).unwrap_or(0), bytes })
    }

    /// A device id from random bytes (the caller draws them: this crate does no I/O).
    pub fn from_random(bytes: [u8; 8]) -> Self {
        // Sixteen lowercase hex digits: always an id, so built directly (no failure to handle).
        let hex = super::segment::hex(&bytes);
        let mut id = [0u8; limits::DEVICE_ID_CHARS];
        id[..hex.len()].copy_from_slice(hex.as_bytes());
        Self { len: 16, bytes: id }
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored (checked in `new`).
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl PartialEq for DeviceId {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for DeviceId {}

impl PartialOrd for DeviceId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for DeviceId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for DeviceId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DeviceId").field(&self.as_str()).finish()
    }
}

impl Serialize for DeviceId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for DeviceId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = DeviceId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a device id")
            }
            fn visit_str<E: serde::de::Error>(self, raw: &str) -> Result<DeviceId, E> {
                DeviceId::new(raw).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visit)
    }
}

impl TryFrom<String> for DeviceId {
    type Error = String;
    fn try_from(raw: String) -> Result<Self, String> {
        Self::new(&raw)
    }
}

impl From<DeviceId> for String {
    fn from(id: DeviceId) -> Self {
        id.as_str().to_owned()
    }
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happened to the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// The record appeared with these columns (a new row, or one made again after a deletion).
    Create(Row),
    /// These columns took these values; dropped when the record no longer exists.
    Update(Row),
    /// A counter column moved by `delta`; dropped when the record no longer exists.
    Add { column: String, delta: i64 },
    /// The record was removed.
    Delete {},
}

/// One logged change: the device's own sequence number, its clock reading, and the record.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub device: DeviceId,
    pub seq: u64,
    pub at: Hlc,
    pub table: String,
    pub key: RecordKey,
    pub change: Change,
}

/// The key of a row: its key columns' values, in the table's key order.
pub fn record_key(row: &Row, key_columns: &[&str]) -> RecordKey {
    let values: Vec<&Value> = key_columns.iter().map(|c| row.get(*c).unwrap_or(&Value::Null)).collect();
    serde_json::to_string(&values).unwrap_or_default()
}

#[cfg(test)]
mod device_id_tests {
    use super::*;

    /// Built inline, an id reads, compares, sorts and travels as the text it is.
    #[test]
    fn a_device_id_is_its_text() {
        let drawn = DeviceId::from_random([0, 1, 0xab, 0xcd, 0xef, 0x10, 0x99, 0xff]);
        assert_eq!(drawn.as_str(), "0001abcdef1099ff");
        assert_eq!(drawn, DeviceId::new("0001abcdef1099ff").expect("id"));
        let (a, b) = (DeviceId::new("ab").expect("id"), DeviceId::new("a-long-id-that-sorts-after").expect("id"));
        assert_eq!(a.cmp(&b), "ab".cmp("a-long-id-that-sorts-after"));
        let json = serde_json::to_string(&a).expect("json");
        assert_eq!(json, "\"ab\"");
        assert_eq!(serde_json::from_str::<DeviceId>(&json).expect("back"), a);
        assert!(serde_json::from_str::<DeviceId>("\"UPPER\"").is_err());
        assert!(DeviceId::new(&"a".repeat(33)).is_err());
    }
}
