//! What the loop tells about itself: the `fslens.status` object, the typed
//! `StatusSnapshot` commands decide on (both read from the same fields), and the
//! `fslens/status` notification sent on every change of state.

use std::time::Instant;

use serde_json::{Value, json};

use crate::lsp::ext;
use crate::lsp::message::Message;
use crate::session_state::status::StatusSnapshot;

use super::Proxy;

impl Proxy {
    /// What a command may know about FSAC now (read from the same fields as [`Proxy::status`]).
    pub(super) fn status_snapshot(&self) -> StatusSnapshot {
        StatusSnapshot {
            state: self.readiness.state(),
            reason: self.readiness.reason().map(str::to_owned),
            fsac_configured: self.launcher.is_some(),
            generation: self.backend_generations,
            fsac_running: self.backend.is_some(),
            stderr_tail: self.last_stderr_tail.clone(),
            restart_scheduled: self.restart_at.is_some(),
            projects_loaded: self.readiness.projects_loaded(),
            project_errors: self.readiness.project_errors().to_vec(),
            loaded_configurations: self.readiness.loaded_configurations(),
        }
    }

    /// The `fslens.status` object.
    pub(super) fn status(&self) -> Value {
        let mut documents: Vec<Value> = self
            .documents
            .iter()
            .map(|document| {
                json!({
                    "uri": document.uri,
                    "version": document.version,
                    "analyzedVersion": self.analysis.analyzed(&document.uri).and_then(|analyzed| analyzed.version),
                })
            })
            .collect();
        documents.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
        let mut status = self.readiness.to_json();
        let backend = self.backend.as_ref();
        status["fslensVersion"] = json!(env!("CARGO_PKG_VERSION"));
        status["workspaceRoot"] = json!(self.workspace_root.as_ref().map(|root| root.display().to_string()));
        status["fsac"] = json!({
            "command": self.launcher.as_ref().map(|launcher| launcher.describe()),
            "source": self.launcher.as_ref().and_then(|launcher| launcher.source()),
            "pid": backend.and_then(|backend| backend.pid).or(self.last_backend_pid),
            "running": backend.is_some(),
            "generation": self.backend_generations,
            "uptimeMs": backend.map(|backend| backend.started.elapsed().as_millis() as u64),
            "stderrTail": if self.last_stderr_tail.is_empty() { Value::Null } else { json!(self.last_stderr_tail) },
        });
        merge_object(&mut status["fsac"], self.memory.status_fields(Instant::now()));
        status["openDocuments"] = json!(documents);
        status["editor"] = json!({
            "initialized": self.initialize_received,
            "applyEdit": self.editor_capabilities.pointer("/workspace/applyEdit") == Some(&json!(true)),
        });
        status["documentsAnalyzed"] = json!(self.analysis.analyzed_count());
        status["fslensDocuments"] = json!(self.proxy_documents.len());
        status["pendingRequests"] = json!({
            "editorToFsac": self.editor_to_fsac.len(),
            "fsacToEditor": self.fsac_to_editor.len(),
            "proxyToFsac": self.proxy_to_fsac.len(),
            "commands": self.commands.len(),
        });
        status["uptimeMs"] = json!(self.started.elapsed().as_millis() as u64);
        status["supervisor"] = self.supervisor.to_json(Instant::now());
        // Planned restarts are counted apart from crashes and never trip the crash-loop stop.
        status["supervisor"]["plannedRestarts"] = json!(self.memory.planned_restarts());
        status["supervisor"]["nextRestartInMs"] = json!(
            self.restart_at.map(|at| at.saturating_duration_since(tokio::time::Instant::now()).as_millis() as u64)
        );
        status["unresponsive"] = json!(self.unresponsive);
        status["session"] = json!({
            "socket": self.session_socket.as_ref().map(|path| path.display().to_string()),
            "clients": self.clients.len(),
            "notShared": self.session_not_shared,
        });
        status["silentForMs"] =
            json!(self.backend.as_ref().map(|_| self.last_heard_from_fsac.elapsed().as_millis() as u64));
        status
    }

    pub(super) fn state_changed(&mut self) {
        self.changes.send_modify(|generation| *generation += 1);
        // The loaded projects travel with every change, so that a client which read them while
        // the workspace was loading (an empty list) has the full list once the state is ready.
        let projects_loaded = self.readiness.to_json()["projectsLoaded"].take();
        let notification = Message::notification(
            ext::notifications::STATUS,
            json!({
                "state": self.readiness.state(),
                "reason": self.readiness.reason(),
                "unresponsive": self.unresponsive,
                "generation": self.backend_generations,
                "projectsLoaded": projects_loaded,
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
}

/// Copies the members of `extra` into the object `target`.
pub(super) fn merge_object(target: &mut Value, extra: Value) {
    if let (Some(target), Value::Object(extra)) = (target.as_object_mut(), extra) {
        target.extend(extra);
    }
}
