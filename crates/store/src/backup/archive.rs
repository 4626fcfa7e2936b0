//! Reading an untrusted ZIP: the entry count it declares (checked before the directory is
//! parsed), the central headers actually stored (so an end record that declares fewer entries
//! than the directory holds, such as a forged one hidden in the comment, cannot hide a second
//! copy of a name), and JSON arrays read one element at a time under byte caps, so no backup can
//! make a restore hold more than one element in memory.

use std::cell::Cell;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::rc::Rc;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

const EOCD: u32 = 0x0605_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
const ZIP64_EOCD: u32 = 0x0606_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The number of entries the archive's end records declare: the classic record's count, or the
/// ZIP64 record's when the classic one says "see ZIP64" (`0xffff`). `None` when no end record
/// can be found (the ZIP reader then refuses the file anyway).
pub(super) fn declared_entries<R: Read + Seek>(r: &mut R) -> io::Result<Option<u64>> {
    let len = r.seek(SeekFrom::End(0))?;
    // The classic record is 22 bytes plus a comment of up to 64 KiB.
    let tail_len = len.min(22 + u64::from(u16::MAX));
    r.seek(SeekFrom::Start(len - tail_len))?;
    let mut tail = Vec::new();
    r.by_ref().take(tail_len).read_to_end(&mut tail)?;
    let Some(at) = (0..tail.len().saturating_sub(21)).rev().find(|&i| u32_at(&tail, i) == Some(EOCD)) else {
        return Ok(None);
    };
    let classic = u16_at(&tail, at + 10);
    if classic != Some(u16::MAX) {
        return Ok(classic.map(u64::from));
    }
    // ZIP64: the locator sits right before the classic record and points at the ZIP64 record.
    let eocd_offset = len - tail_len + at as u64;
    let Some(locator_at) = eocd_offset.checked_sub(20) else { return Ok(None) };
    r.seek(SeekFrom::Start(locator_at))?;
    let mut locator = [0u8; 20];
    r.read_exact(&mut locator)?;
    if u32_at(&locator, 0) != Some(ZIP64_LOCATOR) {
        return Ok(Some(u64::from(u16::MAX)));
    }
    let Some(record_at) = u64_at(&locator, 8).filter(|&o| o < len) else { return Ok(None) };
    r.seek(SeekFrom::Start(record_at))?;
    let mut record = [0u8; 56];
    if r.read_exact(&mut record).is_err() || u32_at(&record, 0) != Some(ZIP64_EOCD) {
        return Ok(None);
    }
    Ok(u64_at(&record, 32))
}

/// How many central headers follow one another from `start`, counting at most `limit` (the
/// directory the ZIP reader parsed holds only as many as the end record it chose declares).
pub(super) fn central_headers<R: Read + Seek>(r: &mut R, start: u64, limit: u64) -> io::Result<u64> {
    let mut at = start;
    let mut count = 0;
    let mut header = [0u8; 46];
    while count < limit {
        r.seek(SeekFrom::Start(at))?;
        if r.read_exact(&mut header).is_err() || u32_at(&header, 0) != Some(CENTRAL_HEADER) {
            break;
        }
        let lengths = [28, 30, 32].map(|i| u64::from(u16_at(&header, i).unwrap_or(0)));
        at += 46 + lengths.iter().sum::<u64>();
        count += 1;
    }
    Ok(count)
}

/// Which cap a metered read went over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Over {
    Entry,
    Element,
    Total,
}

/// Counts the bytes a parser takes from an entry and stops at three caps: the entry's, one
/// element's (reset by the reader of an array before each element), and the whole backup's.
pub(super) struct Metered<R> {
    inner: BufReader<R>,
    entry: u64,
    entry_cap: u64,
    pub(super) element: Rc<Cell<u64>>,
    element_cap: u64,
    total: Rc<Cell<u64>>,
    total_cap: u64,
    pub(super) over: Rc<Cell<Option<Over>>>,
}

impl<R: Read> Metered<R> {
    pub(super) fn new(inner: R, entry_cap: u64, element_cap: u64, total: Rc<Cell<u64>>, total_cap: u64) -> Self {
        Self {
            inner: BufReader::new(inner),
            entry: 0,
            entry_cap,
            element: Rc::new(Cell::new(0)),
            element_cap,
            total,
            total_cap,
            over: Rc::new(Cell::new(None)),
        }
    }
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let n64 = n as u64;
        self.entry += n64;
        self.element.set(self.element.get() + n64);
        self.total.set(self.total.get() + n64);
        let over = if self.entry > self.entry_cap {
            Some(Over::Entry)
        } else if self.element.get() > self.element_cap {
            Some(Over::Element)
        } else if self.total.get() > self.total_cap {
            Some(Over::Total)
        } else {
            None
        };
        if let Some(o) = over {
            self.over.set(Some(o));
            return Err(io::Error::other("over a backup size cap"));
        }
        Ok(n)
    }
}

/// What an entry that should hold an array held.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Shape {
    Array,
    /// Valid JSON, but not an array.
    NotArray,
}

/// Why reading an array stopped.
pub(super) enum Stop<E> {
    /// The JSON is broken (or a cap was hit: see the reader's `over`).
    Json(serde_json::Error),
    /// The callback failed.
    Callback(E),
}

struct Elements<'a, F, E> {
    f: &'a mut F,
    element: Rc<Cell<u64>>,
    failed: &'a mut Option<E>,
}

impl<'de, F, E> Visitor<'de> for Elements<'_, F, E>
where
    F: FnMut(Value) -> Result<(), E>,
{
    type Value = Shape;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        loop {
            self.element.set(0);
            let Some(v) = seq.next_element::<Value>()? else { return Ok(Shape::Array) };
            if let Err(e) = (self.f)(v) {
                *self.failed = Some(e);
                return Err(serde::de::Error::custom("stopped"));
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Shape::NotArray)
    }

    fn visit_bool<X: serde::de::Error>(self, _: bool) -> Result<Shape, X> {
        Ok(Shape::NotArray)
    }

    fn visit_i64<X: serde::de::Error>(self, _: i64) -> Result<Shape, X> {
        Ok(Shape::NotArray)
    }

    fn visit_u64<X: serde::de::Error>(self, _: u64) -> Result<Shape, X> {
        Ok(Shape::NotArray)
    }

    fn visit_f64<X: serde::de::Error>(self, _: f64) -> Result<Shape, X> {
        Ok(Shape::NotArray)
    }

    fn visit_str<X: serde::de::Error>(self, _: &str) -> Result<Shape, X> {
        Ok(Shape::NotArray)
    }

    fn visit_unit<X: serde::de::Error>(self) -> Result<Shape, X> {
        Ok(Shape::NotArray)
    }
}

struct Seed<'a, F, E>(Elements<'a, F, E>);

impl<'de, F, E> DeserializeSeed<'de> for Seed<'_, F, E>
where
    F: FnMut(Value) -> Result<(), E>,
{
    type Value = Shape;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        d.deserialize_any(self.0)
    }
}

/// Hands each element of the JSON array in `reader` to `f`, one at a time.
pub(super) fn each_element<R: Read, E>(
    reader: Metered<R>,
    mut f: impl FnMut(Value) -> Result<(), E>,
) -> Result<Shape, Stop<E>> {
    let element = Rc::clone(&reader.element);
    let mut failed = None;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let shape = Seed(Elements { f: &mut f, element, failed: &mut failed }).deserialize(&mut de);
    if let Some(e) = failed {
        return Err(Stop::Callback(e));
    }
    let shape = shape.map_err(Stop::Json)?;
    de.end().map_err(Stop::Json)?;
    Ok(shape)
}
