//! The rate limit: at most `max_per_day` own lessons in any 24 hours, and at least
//! `min_gap_minutes` since the last own lesson. Shared (imported) lessons never count.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::settings::Settings;

/// Whether a new lesson may be cued now, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RateLimit {
    pub allowed: bool,
    /// The original's words for the MCP answer (kept as they were, for agents reading both).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why a lesson must wait, as data for front ends that phrase it themselves.
    #[serde(skip)]
    pub denial: Option<Denial>,
}

/// Why the rate limit holds a lesson back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// `count` lessons in the last 24 hours, `max` allowed.
    DailyLimit { count: i64, max: i64 },
    /// The newest lesson is `since_minutes` old (negative: stamped in the future); lessons are at
    /// least `gap_minutes` apart, `remaining_minutes` to go.
    TooSoon { since_minutes: i64, gap_minutes: i64, remaining_minutes: i64 },
}

/// The words every front end shows a person (the MCP answer keeps the original's `reason`).
impl std::fmt::Display for Denial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::time::hours_minutes;
        match *self {
            Self::DailyLimit { count, max } => {
                write!(f, "daily limit reached: {count} of {max} lessons in the last 24 hours")
            }
            Self::TooSoon { since_minutes, gap_minutes, remaining_minutes } => {
                let when = if since_minutes < 0 {
                    format!("stamped {} in the future", hours_minutes(since_minutes))
                } else {
                    format!("{} ago", hours_minutes(since_minutes))
                };
                write!(
                    f,
                    "too soon: the last lesson was {when}; lessons are at least {} apart ({} to go)",
                    hours_minutes(gap_minutes),
                    hours_minutes(remaining_minutes.max(0))
                )
            }
        }
    }
}

impl RateLimit {
    /// What a person is told: the phrased denial, else the reason as given (a failed check).
    pub fn explain(&self) -> Option<String> {
        self.denial.map(|d| d.to_string()).or_else(|| self.reason.clone())
    }

    pub fn allowed() -> Self {
        Self { allowed: true, reason: None, denial: None }
    }

    fn denied(reason: String, denial: Denial) -> Self {
        Self { allowed: false, reason: Some(reason), denial: Some(denial) }
    }

    /// When the check itself failed: coaching must not stop because of it.
    pub fn check_failed(err: &dyn std::fmt::Display) -> Self {
        Self { allowed: true, reason: Some(format!("Rate limit check failed: {err}")), denial: None }
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
        return RateLimit::denied(
            format!("Daily limit reached ({own_in_last_24h}/{max} lessons in the last 24h)"),
            Denial::DailyLimit { count: own_in_last_24h, max },
        );
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
    let since = if elapsed < 0.0 { -js_round(-elapsed) } else { js_round(elapsed) };
    RateLimit::denied(
        format!(
            "Too soon: last lesson {ago}, minimum interval is {}h {}m ({}h {}m remaining)",
            gap_minutes.div_euclid(60),
            gap_minutes.rem_euclid(60),
            remaining.div_euclid(60),
            remaining.rem_euclid(60),
        ),
        Denial::TooSoon { since_minutes: since, gap_minutes, remaining_minutes: remaining },
    )
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
    fn people_read_one_duration_format() {
        let r = check(&settings(5, 240), 1, Some(now() - Duration::minutes(180)), now());
        assert_eq!(
            r.explain().as_deref(),
            Some("too soon: the last lesson was 3h 0m ago; lessons are at least 4h 0m apart (1h 0m to go)")
        );
        let r = check(&settings(2, 240), 2, None, now());
        assert_eq!(r.explain().as_deref(), Some("daily limit reached: 2 of 2 lessons in the last 24 hours"));
        assert_eq!(crate::time::hours_minutes(45), "45m");
        assert_eq!(crate::time::hours_minutes(1565), "26h 5m");
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
