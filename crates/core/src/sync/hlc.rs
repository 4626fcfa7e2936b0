//! A hybrid logical clock: wall-clock milliseconds, plus a counter for changes made within the
//! same millisecond or after seeing a device whose clock runs ahead. A change made after another
//! was seen always sorts after it, whatever the machines' clocks say.

use serde::{Deserialize, Serialize};

/// One reading of the clock, written `[ms, n]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Hlc(pub i64, pub u32);

impl Hlc {
    /// The reading after `self` at wall time `now_ms`: the wall clock when it is ahead, else one
    /// more tick of the counter; a full counter carries into the milliseconds, so a reading is
    /// always later than the one before, even after a forged one.
    #[must_use]
    pub fn next(self, now_ms: i64) -> Self {
        if now_ms > self.0 {
            Self(now_ms, 0)
        } else if self.1 == u32::MAX {
            Self(self.0.saturating_add(1), 0)
        } else {
            Self(self.0, self.1 + 1)
        }
    }

    /// The later of the two: what the clock must be past once `other` has been seen.
    #[must_use]
    pub fn observe(self, other: Self) -> Self {
        self.max(other)
    }

    pub fn millis(self) -> i64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_is_always_later_than_the_one_before() {
        let start = Hlc(1_000, 0);
        assert_eq!(start.next(2_000), Hlc(2_000, 0));
        // A clock that went back, or two changes in one millisecond, still move forward.
        assert_eq!(start.next(500), Hlc(1_000, 1));
        assert_eq!(start.next(1_000), Hlc(1_000, 1));
        assert!(Hlc(1_000, 7) < Hlc(1_001, 0));
        // A full counter carries: the next reading is still later, never equal.
        let full = Hlc(1_000, u32::MAX);
        assert!(full.next(0) > full && full.next(0) == Hlc(1_001, 0));
    }

    #[test]
    fn seeing_a_clock_ahead_moves_ours_past_it() {
        let ours = Hlc(1_000, 0).observe(Hlc(9_000, 3));
        assert!(ours.next(1_001) > Hlc(9_000, 3));
    }
}
