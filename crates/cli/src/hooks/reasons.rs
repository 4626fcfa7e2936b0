//! The words for pacing's reasons: one line each, for the hook trace (`hook.log`) and `doctor`.
//! The engine in core decides with data; this is the only place that phrases it.

use devcoach_core::pacing::{Count, Hold, OnboardingCall, Outlook, Reason};
use devcoach_core::rate_limit::RateLimit;

/// Why a stop cued or stayed quiet: `paced (2/5)`, `cue (5/5)`, `rate limited: …`.
pub fn decision(reason: &Reason) -> String {
    match reason {
        Reason::PlanMode => "plan mode (not counted)".to_owned(),
        Reason::NotOnboarded(call) => onboarding(*call),
        Reason::Held(held) => hold(*held),
        Reason::CourseActive => COURSE_ACTIVE.to_owned(),
        Reason::Paced(c) => format!("paced ({})", count(*c)),
        Reason::RateLimited(rate) => limited(rate),
        Reason::Due(Some(c)) => format!("cue ({})", count(*c)),
        Reason::Due(None) => "cue (pacing disabled: nudge_every=0)".to_owned(),
    }
}

/// One fact the forecast of the next stop rests on.
pub fn outlook(fact: &Outlook) -> String {
    match fact {
        Outlook::NotOnboarded(call) => format!("no knowledge topics yet: {}", onboarding(*call)),
        Outlook::Held(held) => hold(*held),
        Outlook::CourseActive => COURSE_ACTIVE.to_owned(),
        Outlook::NextStop(c) if c.reached() => {
            format!("pacing: next stop reaches the threshold ({})", count(*c))
        }
        Outlook::NextStop(c) => format!("pacing: next stop would be {}", count(*c)),
        Outlook::PacingOff => "pacing disabled (nudge_every=0) — every eligible stop cues".to_owned(),
        Outlook::Rate(rate) if rate.allowed => match &rate.reason {
            // A failed check lets coaching go on; the trace still says it failed.
            Some(why) => format!("rate limit: allowed ({why})"),
            None => "rate limit: allowed".to_owned(),
        },
        Outlook::Rate(rate) => limited(rate),
    }
}

const COURSE_ACTIVE: &str = "course in progress (lesson cues paused, not counted)";

fn count(c: Count) -> String {
    let across = match c.across {
        Some(a) if a.warm_up => format!("; {}/{} since onboarding (first lesson)", a.stops, a.threshold),
        Some(a) => format!("; {}/{} across sessions", a.stops, a.threshold),
        None => String::new(),
    };
    format!("{}/{}{}{across}", c.stops, c.threshold, if c.retry_window { " (retry window)" } else { "" })
}

fn onboarding(call: OnboardingCall) -> String {
    use devcoach_core::time::hours_minutes;
    match call {
        OnboardingCall::Ask => "onboarding not complete: asking for a profile".to_owned(),
        OnboardingCall::AskedThisSession => "onboarding not complete: asked already in this session".to_owned(),
        OnboardingCall::Postponed { minutes } => {
            format!("onboarding postponed by the learner: asked again in {}", hours_minutes(minutes))
        }
        OnboardingCall::AskedToday { minutes } => {
            format!("onboarding not complete: asked today, again in {}", hours_minutes(minutes))
        }
    }
}

fn hold(held: Hold) -> String {
    use devcoach_core::time::hours_minutes;
    match held {
        Hold::BackedOff { streak, minutes } => {
            format!("held back: {streak} cues in a row went unanswered (paused {} more)", hours_minutes(minutes))
        }
        Hold::CueCap { cap, minutes } => {
            format!("held back: {cap} cues in the last 24 hours, the most a day (next in {})", hours_minutes(minutes))
        }
    }
}

fn limited(rate: &RateLimit) -> String {
    format!("rate limited: {}", rate.explain().as_deref().unwrap_or("denied"))
}

#[cfg(test)]
mod tests {
    use devcoach_core::rate_limit::Denial;

    use super::*;

    fn c(stops: i64, threshold: i64, retry_window: bool) -> Count {
        Count { stops, threshold, retry_window, across: None }
    }

    #[test]
    fn each_reason_in_one_line() {
        assert_eq!(decision(&Reason::Paced(c(2, 5, false))), "paced (2/5)");
        assert_eq!(decision(&Reason::Due(Some(c(3, 3, true)))), "cue (3/3 (retry window))");
        assert_eq!(decision(&Reason::Due(None)), "cue (pacing disabled: nudge_every=0)");
        let denied = RateLimit {
            allowed: false,
            reason: Some("Daily limit reached (2/2 lessons in the last 24h)".into()),
            denial: Some(Denial::DailyLimit { count: 2, max: 2 }),
        };
        assert_eq!(
            decision(&Reason::RateLimited(denied.clone())),
            "rate limited: daily limit reached: 2 of 2 lessons in the last 24 hours"
        );
        assert_eq!(
            outlook(&Outlook::Rate(denied)),
            decision(&Reason::RateLimited(RateLimit {
                allowed: false,
                reason: None,
                denial: Some(Denial::DailyLimit { count: 2, max: 2 }),
            }))
        );
        assert_eq!(outlook(&Outlook::NextStop(c(1, 2, false))), "pacing: next stop would be 1/2");
        assert_eq!(outlook(&Outlook::NextStop(c(2, 2, false))), "pacing: next stop reaches the threshold (2/2)");
        assert_eq!(
            outlook(&Outlook::Rate(RateLimit::check_failed(&"disk I/O error"))),
            "rate limit: allowed (Rate limit check failed: disk I/O error)"
        );
        let across = Count {
            across: Some(devcoach_core::pacing::Across { stops: 14, threshold: 20, warm_up: false }),
            ..c(3, 10, false)
        };
        assert_eq!(decision(&Reason::Paced(across)), "paced (3/10; 14/20 across sessions)");
        assert_eq!(
            decision(&Reason::Held(Hold::BackedOff { streak: 3, minutes: 90 })),
            "held back: 3 cues in a row went unanswered (paused 1h 30m more)"
        );
        for r in [
            Reason::PlanMode,
            Reason::NotOnboarded(OnboardingCall::Ask),
            Reason::NotOnboarded(OnboardingCall::Postponed { minutes: 600 }),
            Reason::CourseActive,
        ] {
            let line = decision(&r);
            assert!(!line.is_empty() && !line.contains('\n'), "{r:?}");
        }
    }
}
