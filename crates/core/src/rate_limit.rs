//! The rate limit: at most `max_per_day` own lessons in any 24 hours, and at least
//! `min_gap_minutes` since the last own lesson. Shared (imported) lessons never count.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::settings::Settings;

/// Whether a new lesson may be cued now, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RateLimit {
    pub allowed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl RateLimit {
    pub fn allowed() -> Self {
        Self { allowed: true, reason: None }
    }

    fn denied(reason: String) -> Self {
        Self { allowed: false, reason: Some(reason) }
    }

    /// When the check itself failed: coaching must not stop because of it.
    pub fn check_failed(err: &dyn std::fmt::Display) -> Self {
        Self { allowed: true, reason: Some(format!("Rate limit check failed: {err}")) }
    }
}

/// The start of the rolling 24-hour window the daily limit counts.
pub fn day_window_start(now: DateTime<Utc>) -> DateTime<Utc> {
    now - Duration::hours(24)
}

/// Decides from the count of own lessons since [`day_window_start`] and the newest own lesson.
pub fn check(
    settings: &Settings,
    own_in_last_24h: i64,
    last_own: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> RateLimit {
    let max = settings.max_per_day;
    if own_in_last_24h >= max {
        return RateLimit::denied(format!("Daily limit reached ({own_in_last_24h}/{max} lessons in the last 24h)"));
    }
    let Some(last) = last_own else {
        return RateLimit::allowed();
    };
    #[allow(clippy::cast_precision_loss)]
    let elapsed = (now - last).num_milliseconds() as f64 / 60_000.0;
    #[allow(clippy::cast_precision_loss)]
    let gap = settings.min_gap_minutes as f64;
    if elapsed >= gap {
        return RateLimit::allowed();
    }
    let gap_minutes = settings.min_gap_minutes;
    #[allow(clippy::cast_possible_truncation)]
    let remaining = (gap - elapsed).trunc() as i64;
    let ago = if elapsed < 0.0 {
        format!("in {}m (future timestamp)", js_round(-elapsed))
    } else {
        format!("{}m ago", js_round(elapsed))
    };
    RateLimit::denied(format!(
        "Too soon: last lesson {ago}, minimum interval is {}h {}m ({}h {}m remaining)",
        gap_minutes.div_euclid(60),
        gap_minutes.rem_euclid(60),
        remaining.div_euclid(60),
        remaining.rem_euclid(60),
    ))
}

/// Rounds half up, as JavaScript's `Math.round` does, so messages read the same in both builds.
#[allow(clippy::cast_possible_truncation)]
fn js_round(x: f64) -> i64 {
    (x + 0.5).floor() as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::parse_timestamp;

    fn now() -> DateTime<Utc> {
        parse_timestamp("2026-11-30T12:00:00Z").expect("fixed now")
    }

    fn settings(max: i64, gap: i64) -> Settings {
        Settings { max_per_day: max, min_gap_minutes: gap, ..Settings::default() }
    }

    #[test]
    fn nothing_yet_is_allowed() {
        assert_eq!(check(&settings(2, 240), 0, None, now()), RateLimit::allowed());
    }

    #[test]
    fn daily_limit_is_reached_at_exactly_max() {
        let r = check(&settings(2, 0), 2, Some(now() - Duration::hours(5)), now());
        assert!(!r.allowed);
        assert_eq!(r.reason.as_deref(), Some("Daily limit reached (2/2 lessons in the last 24h)"));
        assert!(check(&settings(2, 0), 1, Some(now() - Duration::hours(5)), now()).allowed);
    }

    #[test]
    fn gap_is_satisfied_at_exactly_min_gap() {
        assert!(check(&settings(5, 240), 1, Some(now() - Duration::minutes(240)), now()).allowed);
        let r = check(&settings(5, 240), 1, Some(now() - Duration::seconds(240 * 60 - 1)), now());
        assert!(!r.allowed);
        assert_eq!(
            r.reason.as_deref(),
            Some("Too soon: last lesson 240m ago, minimum interval is 4h 0m (0h 0m remaining)")
        );
    }

    #[test]
    fn too_soon_message_shape() {
        let r = check(&settings(5, 90), 1, Some(now() - Duration::seconds(25 * 60 + 30)), now());
        assert_eq!(
            r.reason.as_deref(),
            Some("Too soon: last lesson 26m ago, minimum interval is 1h 30m (1h 4m remaining)")
        );
    }

    #[test]
    fn future_timestamps_are_reported() {
        let r = check(&settings(5, 60), 0, Some(now() + Duration::minutes(10)), now());
        assert_eq!(
            r.reason.as_deref(),
            Some("Too soon: last lesson in 10m (future timestamp), minimum interval is 1h 0m (1h 10m remaining)")
        );
    }

    #[test]
    fn zero_gap_never_blocks() {
        assert!(check(&settings(5, 0), 1, Some(now()), now()).allowed);
    }

    #[test]
    fn failures_fail_open() {
        let r = RateLimit::check_failed(&"disk I/O error");
        assert!(r.allowed);
        assert_eq!(r.reason.as_deref(), Some("Rate limit check failed: disk I/O error"));
    }
}
