//! Totally ordered simulated time, and the key that orders waiting stages.

use std::cmp::Ordering;

/// A simulated time in seconds, ordered by [`f64::total_cmp`] (the engine
/// only produces finite, non-negative times).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Time(pub f64);

impl Eq for Time {}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Time {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Priority of an eligible stage: earliest eligible time, then the activity's
/// tie-break value, then the stage index (smaller first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Priority {
    pub eligible: Time,
    pub tie: u32,
    pub stage: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_time_wins_then_tie_then_stage() {
        let p = |t, tie, stage| Priority { eligible: Time(t), tie, stage };
        assert!(p(1.0, 9, 9) < p(2.0, 0, 0));
        assert!(p(1.0, 0, 9) < p(1.0, 1, 0));
        assert!(p(1.0, 1, 0) < p(1.0, 1, 1));
        assert!(Time(0.0) < Time(f64::MIN_POSITIVE));
    }
}
