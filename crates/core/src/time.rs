//! Timestamps in the two text forms the database holds, and the period cutoffs.
//!
//! Lessons carry `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds, never in the future); every other
//! stamp (knowledge, pacing, courses, migrations) carries milliseconds, as JavaScript's
//! `toISOString()` writes them. Both sort correctly as strings, which the queries rely on.

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc};
use thiserror::Error;

/// A lesson timestamp could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("cannot read the timestamp {0:?}: expected ISO 8601 such as 2026-05-01T14:30:00Z")]
pub struct TimestampError(pub String);

/// The lesson form: `2026-05-01T14:30:00Z`.
/// A span of minutes as devcoach writes every duration: "45m", "3h 0m", "26h 5m".
pub fn hours_minutes(minutes: i64) -> String {
    let m = minutes.unsigned_abs();
    if m < 60 { format!("{m}m") } else { format!("{}h {}m", m / 60, m % 60) }
}

pub fn lesson_stamp(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The millisecond form used by every other table: `2026-05-01T14:30:00.123Z`.
pub fn iso_ms(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Reads any stored or user-given ISO 8601 timestamp (with or without zone, date-only, space
/// separator). A value without a zone is UTC.
pub fn parse_timestamp(raw: &str) -> Result<DateTime<Utc>, TimestampError> {
    parse_inner(raw.trim()).ok_or_else(|| TimestampError(raw.to_owned()))
}

/// Normalises a lesson timestamp: UTC, whole seconds, and clamped to `now` (a model has no clock
/// and a future stamp would break the minimum gap).
pub fn normalize_lesson_timestamp(raw: &str, now: DateTime<Utc>) -> Result<String, TimestampError> {
    let at = parse_timestamp(raw)?;
    Ok(lesson_stamp(at.min(now)))
}

fn parse_inner(s: &str) -> Option<DateTime<Utc>> {
    parse_stored(s.as_bytes()).or_else(|| parse_general(s))
}

fn parse_general(s: &str) -> Option<DateTime<Utc>> {
    let (date_part, rest) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let date = parse_date(date_part)?;
    let Some(rest) = rest else {
        return Some(Utc.from_utc_datetime(&date.and_time(NaiveTime::MIN)));
    };
    let (time_part, offset) = split_zone(rest)?;
    let time = parse_time(time_part)?;
    let local = date.and_time(time);
    let at = offset.from_local_datetime(&local).single()?;
    Some(at.with_timezone(&Utc))
}

/// The form every stamp is stored in (`2026-05-01T14:30:00Z`, `2026-05-01T14:30:00.123Z`), read
/// by position: a list reads one per row, and the general reader below costs ten times as much.
/// Anything else (or a fraction past nanoseconds) is left to the general reader, which gives the
/// same instant for these forms.
fn parse_stored(s: &[u8]) -> Option<DateTime<Utc>> {
    if s.len() < 20 || [s[4], s[7], s[10], s[13], s[16]] != *b"--T::" || s.last() != Some(&b'Z') {
        return None;
    }
    let number = |from: usize, to: usize| {
        s[from..to].iter().try_fold(0_u32, |n, b| b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0')))
    };
    let nanos = match &s[19..s.len() - 1] {
        [] => 0,
        [b'.', digits @ ..] if !digits.is_empty() && digits.len() <= 9 && digits.iter().all(u8::is_ascii_digit) => {
            (0..9).fold(0_u32, |n, i| n * 10 + digits.get(i).map_or(0, |b| u32::from(b - b'0')))
        }
        _ => return None,
    };
    let date = NaiveDate::from_ymd_opt(i32::try_from(number(0, 4)?).ok()?, number(5, 7)?, number(8, 10)?)?;
    let time = NaiveTime::from_hms_nano_opt(number(11, 13)?, number(14, 16)?, number(17, 19)?, nanos)?;
    Some(Utc.from_utc_datetime(&date.and_time(time)))
}

fn parse_date(s: &str) -> Option<NaiveDate> {
    let mut parts = s.splitn(3, '-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if y.len() != 4 || m.len() != 2 || d.len() != 2 || !all_digits(y) || !all_digits(m) || !all_digits(d) {
        return None;
    }
    NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
}

/// Splits `HH:MM[:SS[.fff]]` from a trailing `Z`, `±HH:MM` or `±HHMM`.
fn split_zone(s: &str) -> Option<(&str, FixedOffset)> {
    if let Some(t) = s.strip_suffix(['Z', 'z']) {
        return Some((t, FixedOffset::east_opt(0)?));
    }
    if let Some(i) = s.rfind(['+', '-']) {
        let zone = &s[i + 1..];
        let digits: String = zone.chars().filter(|c| *c != ':').collect();
        if digits.len() == 4 && all_digits(&digits) && (zone.len() == 4 || zone.len() == 5) {
            let hours: i32 = digits[..2].parse().ok()?;
            let minutes: i32 = digits[2..].parse().ok()?;
            let secs = hours * 3600 + minutes * 60;
            let offset =
                if s.as_bytes()[i] == b'-' { FixedOffset::west_opt(secs)? } else { FixedOffset::east_opt(secs)? };
            return Some((&s[..i], offset));
        }
    }
    Some((s, FixedOffset::east_opt(0)?))
}

fn parse_time(s: &str) -> Option<NaiveTime> {
    let (clock, fraction) = match s.split_once('.') {
        Some((c, f)) => (c, Some(f)),
        None => (s, None),
    };
    let mut parts = clock.split(':');
    let h = parts.next()?;
    let m = parts.next()?;
    let sec = parts.next().unwrap_or("00");
    if parts.next().is_some() || [h, m, sec].iter().any(|p| p.len() != 2 || !all_digits(p)) {
        return None;
    }
    let nanos = match fraction {
        Some(f) if !f.is_empty() && all_digits(f) => {
            let mut digits: String = f.chars().take(9).collect();
            while digits.len() < 9 {
                digits.push('0');
            }
            digits.parse().ok()?
        }
        Some(_) => return None,
        None => 0,
    };
    NaiveTime::from_hms_nano_opt(h.parse().ok()?, m.parse().ok()?, sec.parse().ok()?, nanos)
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The `period` filter of the lessons list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Today,
    Week,
    Month,
    Year,
    All,
}

impl Period {
    pub const NAMES: [&'static str; 5] = ["today", "week", "month", "year", "all"];

    pub fn parse(raw: &str) -> Option<Self> {
        Some(match raw {
            "today" => Self::Today,
            "week" => Self::Week,
            "month" => Self::Month,
            "year" => Self::Year,
            "all" => Self::All,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The earliest timestamp inside the period: UTC midnight for `today`, a rolling 7/30/365
    /// days otherwise, none for `all`.
    pub fn cutoff(self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self {
            Self::Today => Some(Utc.from_utc_datetime(&now.date_naive().and_time(NaiveTime::MIN))),
            Self::Week => Some(now - Duration::days(7)),
            Self::Month => Some(now - Duration::days(30)),
            Self::Year => Some(now - Duration::days(365)),
            Self::All => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        parse_timestamp("2026-11-30T12:00:00Z").expect("fixed now")
    }

    #[track_caller]
    fn check(raw: &str, expect: &str) {
        assert_eq!(normalize_lesson_timestamp(raw, now()).as_deref(), Ok(expect), "input {raw:?}");
    }

    #[test]
    fn naive_values_are_utc() {
        check("2026-05-01T14:30:00", "2026-05-01T14:30:00Z");
        check("2026-05-01 14:30:00", "2026-05-01T14:30:00Z");
        check("2026-05-01T14:30", "2026-05-01T14:30:00Z");
    }

    #[test]
    fn offsets_are_converted() {
        check("2026-05-01T14:30:00+02:00", "2026-05-01T12:30:00Z");
        check("2026-05-01T14:30:00-0130", "2026-05-01T16:00:00Z");
        check("2026-05-01T14:30:00.987Z", "2026-05-01T14:30:00Z");
    }

    #[test]
    fn date_only_is_midnight() {
        check("2026-05-01", "2026-05-01T00:00:00Z");
        check("  2026-05-01  ", "2026-05-01T00:00:00Z");
    }

    #[test]
    fn future_is_clamped_to_now() {
        check("2030-01-01T00:00:00Z", "2026-11-30T12:00:00Z");
        check("2026-11-30T12:00:01Z", "2026-11-30T12:00:00Z");
    }

    #[test]
    fn garbage_is_refused() {
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "2026-05-01T25:00:00",
            "2026/05/01",
            "2026-05-01Tnoon",
            "1714570200",
        ] {
            assert!(normalize_lesson_timestamp(bad, now()).is_err(), "{bad:?} should be refused");
        }
    }

    proptest::proptest! {
        /// The stored form read by position gives the general reader's instant, and every
        /// stamp we write takes that path.
        #[test]
        fn the_stored_form_reads_as_the_general_reader_reads_it(
            y in 0_u32..10_000, mo in 0_u32..14, d in 0_u32..33, h in 0_u32..26, mi in 0_u32..62, sec in 0_u32..62,
            fraction in proptest::option::of("[0-9]{0,12}"),
        ) {
            let stamp = format!(
                "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}{}Z",
                fraction.map(|f| format!(".{f}")).unwrap_or_default()
            );
            if let Some(fast) = parse_stored(stamp.as_bytes()) {
                proptest::prop_assert_eq!(Some(fast), parse_general(&stamp), "{}", stamp);
            }
            if let Some(at) = parse_general(&stamp) {
                for written in [lesson_stamp(at), iso_ms(at)] {
                    proptest::prop_assert_eq!(parse_stored(written.as_bytes()), Some(parse_general(&written).unwrap_or(at)));
                }
            }
        }
    }

    #[test]
    fn stamps_have_the_two_shapes() {
        let at = parse_timestamp("2026-05-01T14:30:00.5Z").expect("valid");
        assert_eq!(lesson_stamp(at), "2026-05-01T14:30:00Z");
        assert_eq!(iso_ms(at), "2026-05-01T14:30:00.500Z");
    }

    #[test]
    fn period_cutoffs() {
        let n = now();
        assert_eq!(Period::Today.cutoff(n).map(lesson_stamp).as_deref(), Some("2026-11-30T00:00:00Z"));
        assert_eq!(Period::Week.cutoff(n).map(lesson_stamp).as_deref(), Some("2026-11-23T12:00:00Z"));
        assert_eq!(Period::Month.cutoff(n).map(lesson_stamp).as_deref(), Some("2026-10-31T12:00:00Z"));
        assert_eq!(Period::Year.cutoff(n).map(lesson_stamp).as_deref(), Some("2025-11-30T12:00:00Z"));
        assert_eq!(Period::All.cutoff(n), None);
        for name in Period::NAMES {
            assert_eq!(Period::parse(name).map(Period::as_str), Some(name));
        }
        assert_eq!(Period::parse("decade"), None);
    }
}
