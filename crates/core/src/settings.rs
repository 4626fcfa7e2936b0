//! Settings: the seven keys every build shares, their defaults, how stored strings are read
//! back, and the one validator every front end uses before writing.

use std::fmt;

use crate::limits;
use serde::Serialize;
use thiserror::Error;

/// The rows a fresh database is seeded with (`INSERT OR IGNORE`, so existing values win).
pub const DEFAULTS: [(&str, &str); 7] = [
    ("max_per_day", "2"),
    ("min_gap_minutes", "240"),
    ("ui_theme", "system"),
    ("ui_home", "auto"),
    ("nudge_every", "10"),
    ("nudge_scope", "session"),
    ("share_name", ""),
];

/// The minimum gap stored in hours by the oldest builds.
pub const LEGACY_GAP_HOURS_KEY: &str = "min_hours_between";

/// Whether pacing counts stops per agent session or across all sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NudgeScope {
    Session,
    Global,
}

impl NudgeScope {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Global => "global",
        }
    }
}

/// The dashboard theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UiTheme {
    System,
    Dark,
    Light,
}

impl UiTheme {
    pub fn parse(raw: &str) -> Option<Self> {
        Some(match raw {
            "system" => Self::System,
            "dark" => Self::Dark,
            "light" => Self::Light,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::Dark => "dark",
            Self::Light => "light",
        }
    }
}

/// Where the dashboard's `/` lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UiHome {
    Auto,
    Lessons,
    Knowledge,
}

impl UiHome {
    pub fn parse(raw: &str) -> Option<Self> {
        Some(match raw {
            "auto" => Self::Auto,
            "lessons" => Self::Lessons,
            "knowledge" => Self::Knowledge,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Lessons => "lessons",
            Self::Knowledge => "knowledge",
        }
    }
}

/// The effective settings, read from the stored strings. Serialises to the shared shape
/// (`settings.json` in backups, the `settings` resource).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Settings {
    pub max_per_day: i64,
    pub min_gap_minutes: i64,
    pub ui_theme: UiTheme,
    pub ui_home: UiHome,
    /// Eligible stops between cues; 0 cues on every eligible stop.
    pub nudge_every: i64,
    pub nudge_scope: NudgeScope,
    /// The sender name proposed when sharing; `None` when unset.
    pub share_name: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_per_day: 2,
            min_gap_minutes: 240,
            ui_theme: UiTheme::System,
            ui_home: UiHome::Auto,
            nudge_every: 10,
            nudge_scope: NudgeScope::Session,
            share_name: None,
        }
    }
}

impl Settings {
    /// Reads stored `(key, value)` rows. Unknown keys are ignored and unreadable values fall
    /// back to their defaults, so a hand-edited row never breaks pacing.
    pub fn from_rows<'a>(rows: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut s = Self::default();
        let mut gap_minutes = None;
        let mut gap_hours = None;
        for (key, value) in rows {
            match key {
                "max_per_day" => s.max_per_day = parse_int_prefix(value).unwrap_or(s.max_per_day),
                "min_gap_minutes" => gap_minutes = Some(parse_int_prefix(value)),
                LEGACY_GAP_HOURS_KEY => gap_hours = parse_int_prefix(value),
                "ui_theme" => s.ui_theme = UiTheme::parse(value).unwrap_or(UiTheme::System),
                "ui_home" => s.ui_home = UiHome::parse(value).unwrap_or(UiHome::Auto),
                "nudge_every" => {
                    s.nudge_every = parse_int_prefix(value).filter(|n| *n >= 0).unwrap_or(10);
                }
                "nudge_scope" => {
                    s.nudge_scope = if value == "global" { NudgeScope::Global } else { NudgeScope::Session };
                }
                "share_name" => s.share_name = normalize_share_name(value),
                _ => {}
            }
        }
        s.min_gap_minutes = match (gap_minutes, gap_hours) {
            (Some(Some(m)), _) => m,
            (None, Some(h)) => h.saturating_mul(60),
            _ => 240,
        };
        s
    }
}

/// Trims a sender name and cuts it to [`limits::SHARE_NAME_CHARS`] characters; empty means unset.
pub fn normalize_share_name(raw: &str) -> Option<String> {
    let cut: String = raw.trim().chars().take(limits::SHARE_NAME_CHARS).collect();
    let cut = cut.trim_end().to_owned();
    (!cut.is_empty()).then_some(cut)
}

/// Reads the leading integer of a string as JavaScript's `parseInt(s, 10)` does (`"12abc"` is
/// 12, `"abc"` is nothing), which is how every build has read stored settings.
pub fn parse_int_prefix(raw: &str) -> Option<i64> {
    let s = raw.trim_start();
    let (sign, digits) = match s.as_bytes().first() {
        Some(b'-') => (-1, &s[1..]),
        Some(b'+') => (1, &s[1..]),
        _ => (1, s),
    };
    let end = digits.bytes().take_while(u8::is_ascii_digit).count();
    if end == 0 {
        return None;
    }
    digits[..end].parse::<i64>().ok().map(|n| n * sign)
}

/// A settings key that may be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKey {
    MaxPerDay,
    MinGapMinutes,
    NudgeEvery,
    NudgeScope,
    ShareName,
    /// Dashboard only.
    UiTheme,
    /// Dashboard only.
    UiHome,
}

impl SettingKey {
    /// Every key, in the order `settings` lists them (the CLI's `set` and the dashboard take all).
    pub const ALL: [SettingKey; 7] = [
        Self::MaxPerDay,
        Self::MinGapMinutes,
        Self::NudgeEvery,
        Self::NudgeScope,
        Self::ShareName,
        Self::UiTheme,
        Self::UiHome,
    ];

    /// The keys an agent may change (`update_settings`, as in the original).
    pub const AGENT_KEYS: [SettingKey; 5] =
        [Self::MaxPerDay, Self::MinGapMinutes, Self::NudgeEvery, Self::NudgeScope, Self::ShareName];

    pub fn parse(raw: &str) -> Option<Self> {
        Some(match raw {
            "max_per_day" => Self::MaxPerDay,
            "min_gap_minutes" => Self::MinGapMinutes,
            "nudge_every" => Self::NudgeEvery,
            "nudge_scope" => Self::NudgeScope,
            "share_name" => Self::ShareName,
            "ui_theme" => Self::UiTheme,
            "ui_home" => Self::UiHome,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::MaxPerDay => "max_per_day",
            Self::MinGapMinutes => "min_gap_minutes",
            Self::NudgeEvery => "nudge_every",
            Self::NudgeScope => "nudge_scope",
            Self::ShareName => "share_name",
            Self::UiTheme => "ui_theme",
            Self::UiHome => "ui_home",
        }
    }

    /// The accepted integer range, for the numeric keys.
    pub fn range(self) -> Option<(i64, i64)> {
        match self {
            Self::MaxPerDay => Some((1, 20)),
            Self::MinGapMinutes => Some((0, 1440)),
            Self::NudgeEvery => Some((0, 1000)),
            _ => None,
        }
    }
}

impl fmt::Display for SettingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a settings write was refused. The texts are what an agent or user reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SettingError {
    #[error(
        "Unknown setting '{0}' (expected one of: max_per_day, min_gap_minutes, nudge_every, nudge_scope, share_name)"
    )]
    UnknownKey(String),
    #[error("Value must be an integer, got '{0}'")]
    NotAnInteger(String),
    #[error("{key} must be between {min} and {max}")]
    OutOfRange { key: SettingKey, min: i64, max: i64 },
    #[error("nudge_scope must be 'session' or 'global'")]
    BadScope,
    #[error("share_name must be at most {} characters", limits::SHARE_NAME_CHARS)]
    ShareNameTooLong,
    #[error("ui_theme must be 'system', 'dark' or 'light'")]
    BadTheme,
    #[error("ui_home must be 'auto', 'lessons' or 'knowledge'")]
    BadHome,
    #[error("work_insights is 'on' or 'off', got '{0}'")]
    NotOnOff(String),
}

/// Our on/off settings (`work_insights`): exactly `on` or `off`, around spaces.
pub fn parse_on_off(value: &str) -> Result<bool, SettingError> {
    match value.trim() {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(SettingError::NotOnOff(other.to_owned())),
    }
}

/// A validated write: the key and the exact string to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingUpdate {
    pub key: SettingKey,
    pub stored: String,
}

impl SettingUpdate {
    /// Validates a write of one of the agent-settable keys (`update_settings`, `devcoach set`).
    pub fn for_agent(key: &str, value: &str) -> Result<Self, SettingError> {
        match SettingKey::parse(key) {
            Some(k) if SettingKey::AGENT_KEYS.contains(&k) => Self::new(k, value),
            _ => Err(SettingError::UnknownKey(key.to_owned())),
        }
    }

    /// Validates a write of any key (the dashboard can also set the theme and home page).
    pub fn new(key: SettingKey, value: &str) -> Result<Self, SettingError> {
        let stored = match key {
            SettingKey::MaxPerDay | SettingKey::MinGapMinutes | SettingKey::NudgeEvery => {
                let n = parse_int_prefix(value).ok_or_else(|| SettingError::NotAnInteger(value.to_owned()))?;
                let (min, max) = key.range().unwrap_or((i64::MIN, i64::MAX));
                if !(min..=max).contains(&n) {
                    return Err(SettingError::OutOfRange { key, min, max });
                }
                n.to_string()
            }
            SettingKey::NudgeScope => match value {
                "session" | "global" => value.to_owned(),
                _ => return Err(SettingError::BadScope),
            },
            SettingKey::ShareName => {
                if value.trim().chars().count() > limits::SHARE_NAME_CHARS {
                    return Err(SettingError::ShareNameTooLong);
                }
                normalize_share_name(value).unwrap_or_default()
            }
            SettingKey::UiTheme => UiTheme::parse(value).ok_or(SettingError::BadTheme)?.as_str().to_owned(),
            SettingKey::UiHome => UiHome::parse(value).ok_or(SettingError::BadHome)?.as_str().to_owned(),
        };
        Ok(Self { key, stored })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_off_takes_exactly_those_words() {
        assert_eq!(parse_on_off(" on "), Ok(true));
        assert_eq!(parse_on_off("off"), Ok(false));
        for bad in ["On", "yes", "1", ""] {
            assert_eq!(parse_on_off(bad), Err(SettingError::NotOnOff(bad.to_owned())));
        }
    }

    #[test]
    fn defaults_when_nothing_is_stored() {
        assert_eq!(Settings::from_rows([]), Settings::default());
        let from_seed = Settings::from_rows(DEFAULTS);
        assert_eq!(from_seed, Settings::default());
    }

    #[test]
    fn legacy_hours_become_minutes_only_without_minutes() {
        assert_eq!(Settings::from_rows([("min_hours_between", "3")]).min_gap_minutes, 180);
        assert_eq!(Settings::from_rows([("min_hours_between", "3"), ("min_gap_minutes", "15")]).min_gap_minutes, 15);
        assert_eq!(Settings::from_rows([("min_gap_minutes", "junk")]).min_gap_minutes, 240);
    }

    #[test]
    fn stored_values_are_read_leniently() {
        let s = Settings::from_rows([
            ("max_per_day", "7 lessons"),
            ("ui_theme", "purple"),
            ("ui_home", "knowledge"),
            ("nudge_every", "-4"),
            ("nudge_scope", "GLOBAL"),
            ("share_name", "  Ada  "),
        ]);
        assert_eq!(s.max_per_day, 7);
        assert_eq!(s.ui_theme, UiTheme::System);
        assert_eq!(s.ui_home, UiHome::Knowledge);
        assert_eq!(s.nudge_every, 10);
        assert_eq!(s.nudge_scope, NudgeScope::Session);
        assert_eq!(s.share_name.as_deref(), Some("Ada"));
        assert_eq!(Settings::from_rows([("share_name", "   ")]).share_name, None);
    }

    #[test]
    fn int_prefix_matches_parse_int() {
        assert_eq!(parse_int_prefix("12abc"), Some(12));
        assert_eq!(parse_int_prefix("  -3"), Some(-3));
        assert_eq!(parse_int_prefix("5.9"), Some(5));
        assert_eq!(parse_int_prefix("abc"), None);
        assert_eq!(parse_int_prefix("-"), None);
        assert_eq!(parse_int_prefix(""), None);
    }

    #[track_caller]
    fn refused(key: &str, value: &str, message: &str) {
        let err = SettingUpdate::for_agent(key, value).expect_err("should be refused");
        assert_eq!(err.to_string(), message);
    }

    #[track_caller]
    fn stored(key: &str, value: &str, expect: &str) {
        assert_eq!(SettingUpdate::for_agent(key, value).map(|u| u.stored), Ok(expect.to_owned()));
    }

    #[test]
    fn ranges_are_inclusive() {
        stored("max_per_day", "1", "1");
        stored("max_per_day", "20", "20");
        refused("max_per_day", "0", "max_per_day must be between 1 and 20");
        refused("max_per_day", "21", "max_per_day must be between 1 and 20");
        stored("min_gap_minutes", "0", "0");
        stored("min_gap_minutes", "1440", "1440");
        refused("min_gap_minutes", "1441", "min_gap_minutes must be between 0 and 1440");
        stored("nudge_every", "0", "0");
        stored("nudge_every", "1000", "1000");
        refused("nudge_every", "-1", "nudge_every must be between 0 and 1000");
        stored("nudge_every", "7.5", "7");
        refused("nudge_every", "often", "Value must be an integer, got 'often'");
    }

    #[test]
    fn scope_share_name_and_unknown_keys() {
        stored("nudge_scope", "global", "global");
        refused("nudge_scope", "team", "nudge_scope must be 'session' or 'global'");
        stored("share_name", "  Grace Hopper ", "Grace Hopper");
        stored("share_name", "   ", "");
        stored("share_name", &"x".repeat(80), &"x".repeat(80));
        refused("share_name", &"x".repeat(81), "share_name must be at most 80 characters");
        assert!(matches!(SettingUpdate::for_agent("ui_theme", "dark"), Err(SettingError::UnknownKey(_))));
        assert!(matches!(SettingUpdate::for_agent("colour", "1"), Err(SettingError::UnknownKey(_))));
        assert_eq!(SettingUpdate::new(SettingKey::UiTheme, "dark").map(|u| u.stored), Ok("dark".into()));
        assert_eq!(SettingUpdate::new(SettingKey::UiHome, "nowhere"), Err(SettingError::BadHome));
    }
}
