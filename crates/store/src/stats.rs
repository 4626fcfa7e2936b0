//! Counts for `stats`.

use chrono::{DateTime, Duration, Utc};
use devcoach_core::rate_limit::day_window_start;
use devcoach_core::stats::{Stats, extremes};
use devcoach_core::time::lesson_stamp;

use crate::{Result, Store, knowledge, lessons};

impl Store {
    pub fn stats(&self, now: DateTime<Utc>) -> Result<Stats> {
        let conn = self.conn();
        let total_lessons = lessons::count_all(conn)?;
        let lessons_today = lessons::count_own_since(conn, &lesson_stamp(day_window_start(now)))?;
        let lessons_this_week = lessons::count_own_since(conn, &lesson_stamp(now - Duration::days(7)))?;
        let imported_lessons = conn.query_row("SELECT COUNT(*) FROM lessons WHERE imported = 1", [], |r| r.get(0))?;
        let profile = knowledge::read_profile(conn)?;
        let (weakest_topics, strongest_topics) = extremes(&profile.knowledge);
        Ok(Stats {
            total_lessons,
            lessons_today,
            lessons_this_week,
            imported_lessons,
            weakest_topics,
            strongest_topics,
        })
    }
}
