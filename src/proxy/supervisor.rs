//! The restart policy for FSAC: back off after each crash and stop after a crash loop.
//!
//! After an unexpected exit FSAC is restarted after 1 s, doubling per crash in the window up
//! to 30 s. A sixth crash within three minutes stops the restarts until the user asks for one
//! (`fslens.restart`), so a broken setup does not spin forever.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How restarts are paced.
#[derive(Debug, Clone, Copy)]
pub struct RestartPolicy {
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    pub window: Duration,
    /// Crashes within `window` that are still restarted; one more stops restarts.
    pub max_crashes_in_window: usize,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
            window: Duration::from_secs(180),
            max_crashes_in_window: 5,
        }
    }
}

/// What to do after a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    RestartAfter(Duration),
    GiveUp { crashes_in_window: usize },
}

/// Crash history and the decision it leads to.
#[derive(Debug, Clone)]
pub struct Supervisor {
    policy: RestartPolicy,
    crashes: VecDeque<Instant>,
    total_crashes: u64,
    restarts: u64,
    stopped: bool,
}

impl Supervisor {
    pub fn new(policy: RestartPolicy) -> Self {
        Supervisor { policy, crashes: VecDeque::new(), total_crashes: 0, restarts: 0, stopped: false }
    }

    /// Records a crash at `now` and decides whether and when to restart.
    pub fn on_crash(&mut self, now: Instant) -> Decision {
        self.total_crashes += 1;
        self.crashes.push_back(now);
        while self.crashes.front().is_some_and(|&crash| now.duration_since(crash) > self.policy.window) {
            self.crashes.pop_front();
        }
        let in_window = self.crashes.len();
        if in_window > self.policy.max_crashes_in_window {
            self.stopped = true;
            return Decision::GiveUp { crashes_in_window: in_window };
        }
        let doublings = (in_window.saturating_sub(1)).min(30) as u32;
        let backoff = self.policy.initial_backoff.saturating_mul(1u32 << doublings).min(self.policy.max_backoff);
        Decision::RestartAfter(backoff)
    }

    pub fn restarted(&mut self) {
        self.restarts += 1;
    }

    /// Forgets the crash history (the user asked for a restart).
    pub fn reset(&mut self) {
        self.crashes.clear();
        self.stopped = false;
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    pub fn to_json(&self, now: Instant) -> serde_json::Value {
        let in_window = self.crashes.iter().filter(|&&crash| now.duration_since(crash) <= self.policy.window).count();
        serde_json::json!({
            "crashes": self.total_crashes,
            "crashesInWindow": in_window,
            "windowSeconds": self.policy.window.as_secs(),
            "maxCrashesInWindow": self.policy.max_crashes_in_window,
            "restarts": self.restarts,
            "stopped": self.stopped,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backs_off_doubling_and_gives_up_on_the_sixth_crash_in_the_window() {
        let mut supervisor = Supervisor::new(RestartPolicy::default());
        let start = Instant::now();
        let decisions: Vec<Decision> =
            (0..6).map(|crash| supervisor.on_crash(start + Duration::from_secs(crash * 10))).collect();
        let seconds = |secs| Decision::RestartAfter(Duration::from_secs(secs));
        assert_eq!(
            decisions,
            vec![
                seconds(1),
                seconds(2),
                seconds(4),
                seconds(8),
                seconds(16),
                Decision::GiveUp { crashes_in_window: 6 }
            ]
        );
        assert!(supervisor.is_stopped());
        supervisor.reset();
        assert_eq!(supervisor.on_crash(start + Duration::from_secs(61)), seconds(1));
    }

    #[test]
    fn old_crashes_leave_the_window_and_backoff_is_capped() {
        let policy = RestartPolicy { max_crashes_in_window: 100, ..RestartPolicy::default() };
        let mut supervisor = Supervisor::new(policy);
        let start = Instant::now();
        for crash in 0..10 {
            supervisor.on_crash(start + Duration::from_secs(crash));
        }
        assert_eq!(
            supervisor.on_crash(start + Duration::from_secs(11)),
            Decision::RestartAfter(Duration::from_secs(30))
        );
        // Four minutes later the earlier crashes no longer count.
        assert_eq!(
            supervisor.on_crash(start + Duration::from_secs(400)),
            Decision::RestartAfter(Duration::from_secs(1))
        );
    }
}
