//! `update_settings`.

use devcoach_core::settings::SettingUpdate;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Registry, WRITE, check_len};
use crate::ctx::Ctx;
use crate::dto::SettingsOut;

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SettingKeyArg {
    MaxPerDay,
    MinGapMinutes,
    NudgeEvery,
    NudgeScope,
    ShareName,
    WorkInsights,
}

impl SettingKeyArg {
    fn name(self) -> &'static str {
        match self {
            Self::MaxPerDay => "max_per_day",
            Self::MinGapMinutes => "min_gap_minutes",
            Self::NudgeEvery => "nudge_every",
            Self::NudgeScope => "nudge_scope",
            Self::ShareName => "share_name",
            Self::WorkInsights => "work_insights",
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpdateSettingsArgs {
    /// max_per_day: lessons in any 24 hours (1–20) · min_gap_minutes: minutes between lessons
    /// (0–1440) · nudge_every: agent stops between cues (0–1000, 0 = every eligible stop) ·
    /// nudge_scope: `session` or `global` · share_name: sender name on shared lessons (≤ 80
    /// characters, "" clears it) · work_insights: `on` or `off`, only as the learner said when
    /// asked (reads the agents' transcripts on this machine for how they work; counts only).
    pub key: SettingKeyArg,
    /// The new value as text: an integer, `session`/`global`, or a name.
    pub value: String,
}

pub(super) fn register(r: &mut Registry) {
    r.structured(
        ("update_settings", "Update Settings", WRITE),
        "Change one pacing or sharing setting when the learner asks (e.g. fewer lessons: max_per_day or min_gap_minutes). \
         Returns every setting.",
        |ctx: &Ctx, a: UpdateSettingsArgs| {
            check_len("value", &a.value, 200)?;
            if let SettingKeyArg::WorkInsights = a.key {
                let on = devcoach_core::settings::parse_on_off(&a.value)?;
                return ctx.with_store(|s| {
                    s.set_work_insights(on)?;
                    Ok(SettingsOut::of(s)?.into())
                });
            }
            let update = SettingUpdate::for_agent(a.key.name(), &a.value)?;
            ctx.with_store(|s| {
                s.apply_setting(&update)?;
                Ok(SettingsOut::of(s)?.into())
            })
        },
    );
}

#[cfg(test)]
mod mirror_tests {
    use devcoach_core::settings::SettingKey;

    use super::SettingKeyArg;
    use crate::tools::schema_lists::values;

    #[test]
    fn the_setting_keys_an_agent_may_write_are_cores() {
        // The original's keys an agent may write, then ours.
        let mut keys = SettingKey::AGENT_KEYS.map(SettingKey::as_str).to_vec();
        keys.push("work_insights");
        assert_eq!(values::<SettingKeyArg>(), keys);
    }
}
