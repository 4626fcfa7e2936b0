//! A change to one record, as a device logs it.

use std::collections::BTreeMap;
use std::fmt;

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
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct DeviceId(String);

/// The most characters a device id may have.
pub const DEVICE_ID_CHARS: usize = 32;

impl DeviceId {
    pub fn new(raw: &str) -> Result<Self, String> {
        let ok = !raw.is_empty()
            && raw.len() <= DEVICE_ID_CHARS
            && raw.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if ok { Ok(Self(raw.to_owned())) } else { Err(format!("{raw:?} is not a device id")) }
    }

    /// A device id from random bytes (the caller draws them: this crate does no I/O).
    pub fn from_random(bytes: [u8; 8]) -> Self {
        Self(super::segment::hex(&bytes))
    }

    pub fn as_str(&self) -> &str {
        &self.0
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
        id.0
    }
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
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
