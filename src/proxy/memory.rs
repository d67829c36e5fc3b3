//! The FSAC memory guard: FSAC's resident memory, sampled every few seconds, and the limit
//! that schedules a planned restart when crossed.
//!
//! On Linux the resident set comes from `/proc/<pid>/status` (`VmRSS`); elsewhere, and for
//! backends that are not processes (the in-memory test backends), it is "unknown" and the
//! limit never fires. A limit is a size (`4GiB`, `3000MB`, `512k`, plain bytes) or a share of
//! physical memory (`60%`, read from `/proc/meminfo`). Parsing is pure so that the flag, the
//! environment variable and the unit tests share one reader.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The flag and the environment variable that set the limit (named in every parse error).
pub const MEMORY_LIMIT_FLAG: &str = "--fsac-memory-limit";
pub const MEMORY_LIMIT_ENVIRONMENT_VARIABLE: &str = "FSLENS_FSAC_MEMORY_LIMIT";

/// How a limit was written: a size, or a percentage of physical memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MemoryLimitSpec {
    Bytes(u64),
    PercentOfPhysical(f64),
}

/// A resolved limit: the bytes it stands for and how the user wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryLimit {
    pub bytes: u64,
    pub written: String,
}

/// Reads a limit as the user wrote it. Units are case-insensitive; `k`/`m`/`g`/`t` and
/// `KB`/`MB`/`GB`/`TB` are powers of 1000, `KiB`/`MiB`/`GiB`/`TiB` powers of 1024.
pub fn parse_memory_limit_spec(text: &str) -> Result<MemoryLimitSpec, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("the limit is empty; write a size like 4GiB or 3000MB, or a share like 60%".to_owned());
    }
    if let Some(percent) = trimmed.strip_suffix('%') {
        let value: f64 =
            percent.trim().parse().map_err(|_| format!("{trimmed:?} is not a percentage (write e.g. 60%)"))?;
        if !(value > 0.0 && value <= 100.0) {
            return Err(format!("{trimmed:?}: a percentage of physical memory must be above 0 and at most 100"));
        }
        return Ok(MemoryLimitSpec::PercentOfPhysical(value));
    }
    let split =
        trimmed.find(|character: char| !(character.is_ascii_digit() || character == '.')).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let value: f64 =
        number.parse().map_err(|_| format!("{trimmed:?} is not a size (write e.g. 4GiB, 3000MB or 60%)"))?;
    let multiplier: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "{trimmed:?}: unknown unit {other:?} (use B, KB, MB, GB, TB, KiB, MiB, GiB, TiB or %)"
            ));
        }
    };
    let bytes = value * multiplier;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("{trimmed:?}: the limit must be at least one byte"));
    }
    Ok(MemoryLimitSpec::Bytes(bytes as u64))
}

/// Resolves a limit against the machine's physical memory (needed only for percentages).
pub fn resolve_memory_limit(text: &str, physical_bytes: Option<u64>) -> Result<MemoryLimit, String> {
    let bytes = match parse_memory_limit_spec(text)? {
        MemoryLimitSpec::Bytes(bytes) => bytes,
        MemoryLimitSpec::PercentOfPhysical(percent) => {
            let physical = physical_bytes.ok_or_else(|| {
                format!("{:?}: physical memory is unknown on this system, so give the limit as a size", text.trim())
            })?;
            ((physical as f64) * percent / 100.0) as u64
        }
    };
    Ok(MemoryLimit { bytes, written: text.trim().to_owned() })
}

/// The machine's physical memory (`MemTotal` in `/proc/meminfo`), when known.
pub fn physical_memory_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    kilobytes_field(&meminfo, "MemTotal:")
}

/// The resident memory of process `pid` (`VmRSS` in `/proc/<pid>/status`), when known.
pub async fn resident_bytes(pid: u32) -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let status = tokio::fs::read_to_string(format!("/proc/{pid}/status")).await.ok()?;
    kilobytes_field(&status, "VmRSS:")
}

/// A `Name:   1234 kB` line of a procfs file, in bytes.
fn kilobytes_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(name))?;
    let kilobytes: u64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    kilobytes.checked_mul(1024)
}

/// The guard's settings.
#[derive(Debug, Clone)]
pub struct MemoryGuardConfig {
    /// Crossing this schedules a planned restart; `None` only watches.
    pub limit: Option<MemoryLimit>,
    /// How often FSAC's resident memory is read.
    pub sample_interval: Duration,
    /// How long a planned restart waits for pending editor requests before it answers them
    /// with `fsac_restarting` and restarts anyway.
    pub restart_grace: Duration,
}

impl Default for MemoryGuardConfig {
    fn default() -> Self {
        MemoryGuardConfig {
            limit: None,
            sample_interval: Duration::from_secs(5),
            restart_grace: Duration::from_secs(10),
        }
    }
}

/// What the guard knows of the current FSAC and what it decided.
#[derive(Debug)]
pub struct MemoryGuard {
    pub config: MemoryGuardConfig,
    /// The last sample of the current FSAC (`None`: unknown or not sampled yet).
    rss: Option<u64>,
    peak: Option<u64>,
    sampled_at: Option<Instant>,
    /// Whether the current backend can be measured at all.
    measurable: bool,
    /// Set when the limit was crossed and the restart has not happened yet.
    planned_since: Option<Instant>,
    planned_restarts: u64,
    last_planned_restart: Option<Value>,
}

impl MemoryGuard {
    pub fn new(config: MemoryGuardConfig) -> Self {
        MemoryGuard {
            config,
            rss: None,
            peak: None,
            sampled_at: None,
            measurable: false,
            planned_since: None,
            planned_restarts: 0,
            last_planned_restart: None,
        }
    }

    /// A new FSAC started: its samples start over.
    pub fn backend_started(&mut self, measurable: bool) {
        self.rss = None;
        self.peak = None;
        self.sampled_at = None;
        self.measurable = measurable;
    }

    /// Records a sample; returns true when it crosses the limit and no restart is planned yet.
    pub fn observe(&mut self, rss: Option<u64>, now: Instant) -> bool {
        self.rss = rss;
        self.sampled_at = Some(now);
        if let Some(rss) = rss {
            self.peak = Some(self.peak.map_or(rss, |peak| peak.max(rss)));
        }
        let over = matches!((rss, &self.config.limit), (Some(rss), Some(limit)) if rss > limit.bytes);
        if over && self.planned_since.is_none() {
            self.planned_since = Some(now);
            return true;
        }
        false
    }

    pub fn limit_bytes(&self) -> Option<u64> {
        self.config.limit.as_ref().map(|limit| limit.bytes)
    }

    pub fn rss(&self) -> Option<u64> {
        self.rss
    }

    /// Whether a planned restart waits for its moment.
    pub fn restart_planned(&self) -> bool {
        self.planned_since.is_some()
    }

    /// Whether the planned restart's grace period is over (pending requests no longer wait).
    pub fn grace_over(&self, now: Instant) -> bool {
        self.planned_since.is_some_and(|since| now.duration_since(since) >= self.config.restart_grace)
    }

    /// The planned restart is carried out now; `waited` tells whether requests were cut short.
    pub fn restarting(&mut self, now: Instant, requests_answered_restarting: usize) {
        let waited = self.planned_since.take().map(|since| now.duration_since(since));
        self.planned_restarts += 1;
        self.last_planned_restart = Some(json!({
            "reason": crate::lsp::ext::restart_reasons::MEMORY_LIMIT,
            "rssBytes": self.rss,
            "limitBytes": self.limit_bytes(),
            "waitedMs": waited.map(|waited| waited.as_millis() as u64),
            "requestsAnsweredRestarting": requests_answered_restarting,
        }));
    }

    /// The plan is dropped (FSAC exited on its own, or the session ends).
    pub fn forget_plan(&mut self) {
        self.planned_since = None;
    }

    pub fn planned_restarts(&self) -> u64 {
        self.planned_restarts
    }

    /// The memory fields of `fslens.status`'s `fsac` object.
    pub fn status_fields(&self, now: Instant) -> Value {
        json!({
            "rssBytes": self.rss,
            "rssPeakBytes": self.peak,
            "rssSource": if self.measurable && cfg!(target_os = "linux") { "procfs" } else { "unknown" },
            "rssSampledAgoMs": self.sampled_at.map(|at| now.duration_since(at).as_millis() as u64),
            "memoryLimitBytes": self.limit_bytes(),
            "memoryLimit": self.config.limit.as_ref().map(|limit| limit.written.clone()),
            "memorySampleIntervalMs": self.config.sample_interval.as_millis() as u64,
            "plannedRestarts": self.planned_restarts,
            "plannedRestartPending": self.planned_since.is_some(),
            "lastPlannedRestart": self.last_planned_restart,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_percentages_are_read() {
        let bytes = |text| match parse_memory_limit_spec(text).unwrap() {
            MemoryLimitSpec::Bytes(bytes) => bytes,
            other => panic!("{other:?}"),
        };
        assert_eq!(bytes("4GiB"), 4 * 1024 * 1024 * 1024);
        assert_eq!(bytes("3000MB"), 3_000_000_000);
        assert_eq!(bytes("512 mib"), 512 * 1024 * 1024);
        assert_eq!(bytes("1.5G"), 1_500_000_000);
        assert_eq!(bytes("123456"), 123_456);
        assert_eq!(parse_memory_limit_spec("60%").unwrap(), MemoryLimitSpec::PercentOfPhysical(60.0));
        assert_eq!(resolve_memory_limit("50%", Some(8_000)).unwrap().bytes, 4_000);
        assert_eq!(resolve_memory_limit(" 2k ", None).unwrap(), MemoryLimit { bytes: 2000, written: "2k".into() });
    }

    #[test]
    fn bad_limits_say_what_is_wrong() {
        for (text, expected) in [
            ("", "empty"),
            ("lots", "not a size"),
            ("4 parsecs", "unknown unit"),
            ("0", "at least one byte"),
            ("150%", "at most 100"),
            ("-3%", "above 0"),
            ("x%", "not a percentage"),
        ] {
            let error = parse_memory_limit_spec(text).unwrap_err();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
        assert!(resolve_memory_limit("60%", None).unwrap_err().contains("physical memory is unknown"));
    }

    #[test]
    fn procfs_fields_are_read_in_bytes() {
        let status = "Name:\tnode\nVmPeak:\t  900 kB\nVmRSS:\t  123456 kB\nThreads:\t7\n";
        assert_eq!(kilobytes_field(status, "VmRSS:"), Some(123_456 * 1024));
        assert_eq!(kilobytes_field(status, "VmSwap:"), None);
        assert_eq!(kilobytes_field("VmRSS: lots kB", "VmRSS:"), None);
    }

    #[test]
    fn crossing_the_limit_plans_one_restart_until_it_happens() {
        let limit = Some(MemoryLimit { bytes: 100, written: "100".into() });
        let mut guard = MemoryGuard::new(MemoryGuardConfig { limit, ..MemoryGuardConfig::default() });
        let now = Instant::now();
        guard.backend_started(true);
        assert!(!guard.observe(Some(50), now));
        assert!(guard.observe(Some(150), now));
        assert!(!guard.observe(Some(200), now), "a second crossing plans nothing new");
        assert!(guard.restart_planned());
        assert!(!guard.grace_over(now));
        assert!(guard.grace_over(now + Duration::from_secs(11)));
        guard.restarting(now, 0);
        assert_eq!(guard.planned_restarts(), 1);
        guard.backend_started(true);
        assert_eq!(guard.status_fields(now)["rssPeakBytes"], Value::Null);
        assert!(!guard.observe(None, now), "an unknown size never crosses");
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn this_process_has_a_resident_size() {
        let rss = resident_bytes(std::process::id()).await.unwrap();
        assert!(rss > 1024 * 1024, "{rss}");
        assert!(physical_memory_bytes().unwrap() > rss);
    }
}
