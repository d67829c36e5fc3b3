//! The memory guard and planned restarts.
//!
//! Kept apart from the rest of the loop so that they move as one piece: FSAC's memory is
//! sampled by a task per FSAC generation; a sample past the limit plans a restart, which is
//! carried out when no editor request waits for FSAC (or when the grace period is over,
//! answering what still waits with `fsac_restarting`). The restart itself is the crash
//! restart's replay, without the back-off and without counting as a crash.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::task::AbortHandle;

use crate::lsp::ext;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::{Message, ResponseError, error_codes};
use crate::proxy::memory::MemoryGuard;

use super::{Event, Proxy};

impl Proxy {
    pub(super) fn spawn_memory_sampler(&self, generation: u64, pid: u32) -> AbortHandle {
        let events = self.events.clone();
        let interval = self.memory.config.sample_interval.max(Duration::from_millis(10));
        let task = tokio::spawn(async move {
            loop {
                let rss = crate::proxy::memory::resident_bytes(pid).await;
                if events.send(Event::MemorySample { generation, rss }).is_err() {
                    return;
                }
                tokio::time::sleep(interval).await;
            }
        });
        task.abort_handle()
    }

    pub(super) fn on_memory_sample(&mut self, generation: u64, rss: Option<u64>) {
        if self.backend.as_ref().map(|backend| backend.generation) != Some(generation) {
            return;
        }
        // The FSAC being restarted on purpose is still sampled until it is gone: what it uses
        // meanwhile plans nothing more (it would announce a second restart of the same FSAC).
        if self.planned_restart_underway {
            return;
        }
        let crossed = self.memory.observe(rss, Instant::now());
        if !crossed {
            return;
        }
        if !self.session_was_initialized() || self.exit_deadline.is_some() || self.shutdown_received {
            // Nothing to replay into a new FSAC yet, or the session is ending anyway.
            self.memory.forget_plan();
            return;
        }
        self.announce_planned_restart();
    }

    /// Tells the editor (`window/showMessage`, `fslens/status` with reason `memory_limit`) and
    /// every session client that FSAC will be restarted.
    pub(super) fn announce_planned_restart(&mut self) {
        let rss = self.memory.rss().unwrap_or_default();
        let limit = self.memory.limit_bytes().unwrap_or_default();
        let text = format!(
            "FSAC uses {} of memory, over the limit of {} (--fsac-memory-limit); fslens restarts it as soon as              no request is pending (at most {:.0} s from now) and sends it the open documents again",
            mebibytes(rss),
            mebibytes(limit),
            self.memory.config.restart_grace.as_secs_f64()
        );
        tracing::warn!("{text}");
        self.show_message(2, &format!("F# language server: {text}."));
        self.send_restart_announcement(&text, "planned");
    }

    /// A `fslens/status` notification saying why FSAC is (being) restarted on purpose.
    pub(super) fn send_restart_announcement(&mut self, text: &str, phase: &str) {
        let notification = Message::notification(
            ext::notifications::STATUS,
            json!({
                "state": self.readiness.state(),
                "reason": ext::restart_reasons::MEMORY_LIMIT,
                "message": text,
                "plannedRestart": phase,
                "rssBytes": self.memory.rss(),
                "memoryLimitBytes": self.memory.limit_bytes(),
                "unresponsive": self.unresponsive,
                "generation": self.backend_generations,
            }),
        );
        if self.initialize_received {
            self.send_to_editor(&notification);
        }
        let clients: Vec<u64> = self.clients.keys().copied().collect();
        for client in clients {
            self.send_to_client(client, &notification);
        }
    }

    /// Carries out a planned restart once no editor request waits for FSAC, or once the grace
    /// period is over.
    pub(super) fn carry_out_planned_restart_when_due(&mut self) {
        if !self.memory.restart_planned() || self.planned_restart_underway {
            return;
        }
        let Some(backend) = self.backend.as_ref() else {
            return self.memory.forget_plan();
        };
        if backend.replaying || self.exit_deadline.is_some() || self.shutdown_received {
            return;
        }
        let now = Instant::now();
        let pending = self.editor_to_fsac.len();
        if pending > 0 && !self.memory.grace_over(now) {
            return;
        }
        self.memory.restarting(now, pending);
        self.planned_restart_underway = true;
        let text = planned_restart_reason(&self.memory);
        tracing::warn!("{text}");
        self.send_restart_announcement(&text, "restarting");
        if let Some(backend) = self.backend.as_mut() {
            // Nothing more is sent to this FSAC: what arrives meanwhile gets `fsac_unavailable`
            // (documents go to the new FSAC with the replay).
            backend.to_backend = None;
        }
        self.kill_backend_for_restart();
    }
}

/// The reason a planned restart gives: FSAC's memory against the limit.
pub(super) fn planned_restart_reason(memory: &MemoryGuard) -> String {
    format!(
        "fslens restarted FSAC on purpose: its memory ({}) crossed the limit of {} (reason {})",
        mebibytes(memory.rss().unwrap_or_default()),
        mebibytes(memory.limit_bytes().unwrap_or_default()),
        ext::restart_reasons::MEMORY_LIMIT
    )
}

/// The answer to a request still waiting for FSAC when a planned restart happens.
pub(super) fn restarting_error(what: &str, reason: &str) -> ResponseError {
    ResponseError::new(error_codes::REQUEST_FAILED, format!("{what}: {reason}; ask again once it is back"))
        .with_data(json!({ "errorKind": error_kinds::FSAC_RESTARTING, "reason": ext::restart_reasons::MEMORY_LIMIT }))
}

pub(super) fn mebibytes(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1024.0 * 1024.0))
}
