//! One deadline for a piece of work that asks several things in turn (a command's finds, a
//! what-if check after them): the instant it ends, and what is left of it for the next
//! request. Plain `std` time; imports nothing of fslens, so any layer can use it.

use std::time::{Duration, Instant};

/// The instant by which a piece of work must be done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Deadline(Instant);

impl Deadline {
    /// The deadline `budget` after `started`.
    pub fn after(started: Instant, budget: Duration) -> Self {
        Deadline(started + budget)
    }

    /// The deadline at `instant`.
    pub fn at(instant: Instant) -> Self {
        Deadline(instant)
    }

    /// Has the deadline passed?
    pub fn passed(self) -> bool {
        Instant::now() >= self.0
    }

    /// What is left of the deadline, at least 1 ms: a request sent with it still gets a
    /// deadline of its own rather than none.
    pub fn remaining(self) -> Duration {
        self.0.saturating_duration_since(Instant::now()).max(Duration::from_millis(1))
    }

    /// [`Deadline::remaining`] in whole milliseconds (at least 1).
    pub fn remaining_ms(self) -> u64 {
        u64::try_from(self.remaining().as_millis()).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_leaves_one_millisecond() {
        let deadline = Deadline::at(Instant::now() - Duration::from_secs(1));
        assert!(deadline.passed());
        assert_eq!(deadline.remaining(), Duration::from_millis(1));
        assert_eq!(deadline.remaining_ms(), 1);
    }

    #[test]
    fn a_future_deadline_leaves_at_most_its_budget() {
        let deadline = Deadline::after(Instant::now(), Duration::from_secs(60));
        assert!(!deadline.passed());
        let left = deadline.remaining_ms();
        assert!((59_000..=60_000).contains(&left), "{left}");
    }
}
