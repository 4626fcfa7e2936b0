//! Doctor's look at the data: the database, its schema, pacing, and why the next stop would or
//! would not cue.

use devcoach_core::SessionId;
use devcoach_store::Store;

use super::{Inputs, Level, Section};
use crate::output::plural;

pub(super) fn database(inputs: &Inputs<'_>) -> Vec<Section> {
    let mut s = Section::new("Database & pacing");
    let peek = Store::peek(inputs.dir);
    if !peek.exists {
        s.add(
            Level::Warn,
            format!(
                "no database yet at {}: your agent offers onboarding at the end of a task (or run `devcoach setup`)",
                inputs.dir.db_path().display()
            ),
        );
        return vec![s];
    }
    let store = match Store::open_for_reading(inputs.dir) {
        Ok(Some(store)) => store,
        Ok(None) => return vec![s],
        Err(e) => {
            s.add(Level::Bad, e.to_string());
            return vec![s];
        }
    };
    if let Some(compat) = store.compat() {
        s.add(Level::Bad, compat.to_string());
    }
    let by = peek.upgraded_by.map(|v| format!(", last upgraded by devcoach {v}")).unwrap_or_default();
    match peek.schema {
        Some(v) if v < 6 => {
            s.add(Level::Info, format!("schema v{v}{by}: upgraded to v6 the next time devcoach writes"));
        }
        Some(v) => s.add(Level::Ok, format!("schema v{v}{by}")),
        None => s.add(Level::Bad, "the schema stamp cannot be read"),
    }
    if peek.schema.is_some_and(|v| v < 6) {
        return vec![s];
    }
    match store.profile() {
        Ok(p) if p.knowledge.is_empty() => {
            // In the words stats, the dashboard and the agent's resources use.
            let when = store
                .next_lesson(inputs.now)
                .map_or_else(|_| "next lesson after onboarding".to_owned(), |n| format!("next lesson {n}"));
            s.add(Level::Warn, format!("no knowledge profile yet: {when}; `devcoach setup` builds it now"));
        }
        Ok(p) => s.add(Level::Ok, format!("profile: {}", plural(p.knowledge.len(), "topic"))),
        Err(e) => s.add(Level::Bad, format!("cannot read the profile: {e}")),
    }
    if let Ok(settings) = store.settings() {
        let every = if settings.nudge_every == 0 {
            "a cue at every eligible stop".to_owned()
        } else {
            format!("a cue every {} stops ({})", settings.nudge_every, settings.nudge_scope.as_str())
        };
        s.add(
            Level::Info,
            format!(
                "settings: at most {} lessons a day, {} min apart, {every}",
                settings.max_per_day, settings.min_gap_minutes
            ),
        );
    }
    // Our table may be missing from a database only the TypeScript build has written: off.
    if store.work_insights().unwrap_or(false) {
        s.add(
            Level::Info,
            "work_insights on: at each agent stop, that session's transcript is read on this machine and only counts \
             and a pattern label are kept (`devcoach set work_insights off` stops it; `devcoach uninstall --data` deletes them)",
        );
    } else {
        s.add(
            Level::Info,
            "work_insights off (the default): agent transcripts are never opened; `devcoach set work_insights on` lets \
             devcoach show how you work with your agents (counts only, never your words)",
        );
    }
    for finding in devcoach_sync::health(&store, inputs.dir, inputs.now) {
        let level = match finding.health() {
            devcoach_sync::Health::Ok => Level::Ok,
            devcoach_sync::Health::Info => Level::Info,
            devcoach_sync::Health::Warn => Level::Warn,
            devcoach_sync::Health::Bad => Level::Bad,
        };
        s.add(level, sync_finding(&finding));
    }
    let sessions = store.nudge_sessions().unwrap_or_default();
    let latest = sessions.iter().max_by(|a, b| a.updated_at.cmp(&b.updated_at));
    match latest {
        Some(latest) => s.add(
            Level::Info,
            format!(
                "{} counting, {} in all; latest {} at {} ({})",
                plural(sessions.len(), "session"),
                plural(usize::try_from(sessions.iter().map(|n| n.interactions).sum::<i64>()).unwrap_or(0), "stop"),
                short(&latest.session_id),
                plural(usize::try_from(latest.interactions).unwrap_or(0), "stop"),
                latest.updated_at
            ),
        ),
        None => s.add(Level::Info, "no stops counted since the last lesson"),
    }
    if let Ok(cue) = store.cue_state() {
        if cue.pending {
            s.add(
                Level::Info,
                format!("a cue is waiting since {} (unanswered)", cue.last_cue_at.as_deref().unwrap_or("?")),
            );
        }
        if let Some(reason) = cue.last_skip_reason {
            s.add(Level::Info, format!("last skipped cue: {reason}"));
        }
    }
    let rate = store.rate_limit(inputs.now);
    if rate.allowed {
        s.add(Level::Ok, "rate limit: would allow a lesson now");
    } else {
        s.add(Level::Info, format!("rate limit: {}", rate.explain().unwrap_or_default()));
    }

    let mut verdict = Section::new("Verdict");
    let session_id = latest.map(|l| l.session_id.clone());
    let session = SessionId::from_payload(session_id.as_deref());
    if store.compat().is_some() {
        verdict.add(Level::Bad, "hooks stay silent: this database belongs to a newer devcoach");
    } else {
        // The same answer stats, the dashboard and the agent's resources give.
        if let Ok(next) = store.next_lesson(inputs.now) {
            verdict.add(Level::Info, format!("next lesson: {next}"));
        }
        match store.explain_cue(&session, inputs.now) {
            Ok(f) => {
                let whose = session_id
                    .as_deref()
                    .map_or_else(|| "a new session".to_owned(), |id| format!("session {}", short(id)));
                if f.would_cue {
                    verdict.add(Level::Ok, format!("the next stop in {whose} would cue a lesson"));
                } else if let devcoach_core::pacing::NextLesson::NeedsProfile(call) = &f.next {
                    let what = if *call == devcoach_core::pacing::OnboardingCall::Ask {
                        "would ask for onboarding"
                    } else {
                        "would stay quiet (onboarding asked already)"
                    };
                    verdict.add(Level::Info, format!("the next stop in {whose} {what}"));
                } else {
                    verdict.add(Level::Info, format!("the next stop in {whose} would stay quiet"));
                }
                for fact in &f.reasons {
                    // Offers left unanswered in a row point at an agent that cannot take them.
                    let level = if matches!(
                        fact,
                        devcoach_core::pacing::Outlook::Held(devcoach_core::pacing::Hold::BackedOff { .. })
                    ) {
                        Level::Warn
                    } else {
                        Level::Info
                    };
                    verdict.add(level, crate::hooks::reasons::outlook(fact));
                    if level == Level::Warn {
                        verdict.add(
                            Level::Info,
                            "the agent neither gave the lessons nor declined them: check it has devcoach's tools \
                             (its MCP server connected) and the skill (`devcoach install`)",
                        );
                    }
                }
            }
            Err(e) => verdict.add(Level::Bad, format!("cannot forecast the next stop: {e}")),
        }
    }
    verdict.add(
        Level::Info,
        format!("trace every hook decision with DEVCOACH_HOOK_DEBUG=1 → {}", inputs.dir.hook_log_path().display()),
    );
    vec![s, verdict]
}

fn short(session: &str) -> String {
    session.chars().take(8).collect()
}

/// Doctor's sentence for one of sync's findings.
fn sync_finding(finding: &devcoach_sync::Finding) -> String {
    use devcoach_sync::Finding;
    match finding {
        Finding::Off => "sync off: `devcoach sync init <folder|git-url>` keeps one record on all your machines".into(),
        Finding::On { transport, encrypted, name, device, last_sync } => {
            let how = if *encrypted { ", end-to-end encrypted" } else { "" };
            let last = last_sync.map_or_else(
                || "never synced".to_owned(),
                |at| format!("last synced {}", devcoach_core::time::iso_ms(at)),
            );
            format!("sync through {}{how}, as {name} ({device}); {last}", transport.describe())
        }
        Finding::FolderMissing { path } => {
            format!("the sync folder {} is missing or not set up (unmounted, or not synced here yet?)", path.display())
        }
        Finding::CloneMissing { url } => {
            format!("the clone of {url} is missing; the next `devcoach sync` clones it again")
        }
        Finding::Unreadable { first, more } => {
            let more =
                if *more > 0 { format!(" (and {more} more; see `devcoach sync status`)") } else { String::new() };
            format!("the sync folder holds a file that does not read: {} {}{more}", first.path.display(), first.what)
        }
        Finding::KeyMissing { path } => format!(
            "the sync key is missing from {}: run `devcoach sync off`, then `devcoach sync init` again with the passphrase",
            path.display()
        ),
        Finding::LastFailed { error } => format!("the last sync failed: {error}"),
        Finding::Stale => "no sync for over a week: run `devcoach sync`".into(),
        Finding::Refused { records } => {
            format!("{records} records from other devices could not be stored here (see `devcoach sync status`)")
        }
    }
}
