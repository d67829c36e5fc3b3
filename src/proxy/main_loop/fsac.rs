//! FSAC's side of the loop: starting it, what it says, its exit and the restart that
//! replays the session into the next FSAC.
//!
//! When FSAC exits, every request still waiting for it is answered with an error at once
//! (invariant 4); the supervisor decides whether and when the next FSAC starts, and the replay
//! tells it the editor's `initialize`, `initialized`, configuration, workspace choice and open
//! documents again.

use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::commands::context::Origin;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::{Message, MessageKind, RequestId, ResponseError, error_codes};
use crate::proxy::backend::{BackendConnection, StderrTail, stderr_task};
use crate::proxy::initialize;
use crate::proxy::memory::MemoryGuard;
use crate::proxy::readiness::Readiness;
use crate::proxy::supervisor::Decision;
use crate::proxy::trace::Direction;

use super::memory_guard::{planned_restart_reason, restarting_error};
use super::peer_tasks::{backend_reader_task, writer_task};
use super::request_table::Completion;
use super::{Proxy, ProxyCall, RunningBackend};

impl Proxy {
    pub(super) fn start_backend(&mut self, connection: BackendConnection, replaying: bool) {
        self.backend_generations += 1;
        let generation = self.backend_generations;
        let (to_backend, queue) = mpsc::unbounded_channel();
        tokio::spawn(writer_task(connection.stdin, queue, "FSAC"));
        let tail = StderrTail::default();
        let stderr = connection.stderr.map(|stderr| tokio::spawn(stderr_task(stderr, tail.clone())));
        tokio::spawn(backend_reader_task(
            connection.stdout,
            self.limits,
            generation,
            self.events.clone(),
            stderr,
            tail,
            connection.exit,
        ));
        self.last_backend_pid = connection.pid;
        let measurable = self.launcher.as_ref().is_some_and(|launcher| launcher.measures_memory());
        self.memory.backend_started(measurable);
        let memory_sampler =
            connection.pid.filter(|_| measurable).map(|pid| self.spawn_memory_sampler(generation, pid));
        self.backend = Some(RunningBackend {
            generation,
            to_backend: Some(to_backend),
            pid: connection.pid,
            kill: connection.kill,
            started: Instant::now(),
            initialize_answered: false,
            replaying,
            memory_sampler,
        });
        self.last_heard_from_fsac = Instant::now();
        self.unresponsive = false;
        self.readiness = Readiness::starting();
        self.state_changed();
    }

    pub(super) fn on_backend_message(&mut self, message: Message) {
        self.tracer.record(Direction::FsacToProxy, message.bytes());
        self.last_heard_from_fsac = Instant::now();
        if self.unresponsive {
            self.unresponsive = false;
            self.state_changed();
        }
        match message.kind.clone() {
            MessageKind::Response { id, .. } => self.on_backend_response(id, message),
            MessageKind::Notification { method } => {
                match method.as_str() {
                    "fsharp/notifyWorkspace" | "$/progress" => {
                        let params = message.params().unwrap_or(Value::Null);
                        if self.readiness.observe_notification(&method, &params) {
                            self.state_changed();
                        }
                    }
                    "textDocument/publishDiagnostics" | "fsharp/documentAnalyzed" | "fsharp/fileParsed" => {
                        let params = message.params().unwrap_or(Value::Null);
                        let generation = self.backend_generations;
                        let uri = match method.as_str() {
                            "textDocument/publishDiagnostics" => self.analysis.observe_publish(&params, generation),
                            "fsharp/documentAnalyzed" => self.analysis.observe_analyzed(&params, generation),
                            _ => self.analysis.observe_parsed(&params, generation),
                        };
                        self.analysis_changes.send_modify(|sequence| *sequence += 1);
                        if !self.route_what_if_notification(uri.as_deref(), &method, &params, &message) {
                            return;
                        }
                        if self.is_proxy_document(uri) {
                            return;
                        }
                    }
                    // Sent after every parse, so also after fslens's own opens. Nothing else reads
                    // it, so with no document of fslens's own open (the usual case) its params,
                    // which list every test in the file, are not even parsed.
                    "fsharp/testDetected" if !self.proxy_documents.is_empty() => {
                        let params = message.params().unwrap_or(Value::Null);
                        if self.is_proxy_document(
                            params.get("file").and_then(Value::as_str).map(crate::uri::canonical_uri),
                        ) {
                            return;
                        }
                    }
                    "fsharp/testDetected"
                        if self.what_if.overlaid_count() > 0 && self.what_if_test_detection(&message) =>
                    {
                        return;
                    }
                    _ => {}
                }
                self.send_to_editor(&message);
            }
            MessageKind::Request { id, method } => self.forward_fsac_request(id, method, message),
        }
    }

    /// True for a document only fslens has open in FSAC (by canonical URI): the editor never
    /// hears FSAC's notifications about it.
    pub(super) fn is_proxy_document(&self, canonical_uri: Option<String>) -> bool {
        canonical_uri.is_some_and(|uri| self.proxy_documents.contains_key(&uri))
    }

    pub(super) fn on_backend_response(&mut self, id: RequestId, message: Message) {
        if let Completion::Waiting(call) = self.proxy_to_fsac.complete(&id) {
            let answer = match message.error() {
                Some(error) => Err(error),
                None => Ok(message.result().unwrap_or(Value::Null)),
            };
            match call {
                ProxyCall::Command { reply } => {
                    let _ = reply.send(answer);
                }
                ProxyCall::Client { client, id } => {
                    self.release_documents_of(&(Origin::Client(client), id.clone()));
                    let response = match answer {
                        Ok(result) => Message::response_ok(id, result),
                        Err(error) => Message::response_error(id, &error),
                    };
                    self.send_to_client(client, &response);
                }
                ProxyCall::RestartInitialize => self.on_restart_initialized(answer),
                ProxyCall::Ignored => {}
            }
            return;
        }
        let Completion::Waiting(pending) = self.editor_to_fsac.complete(&id) else {
            tracing::debug!("dropping FSAC's answer {id}: nothing is waiting for it (cancelled or answered already)");
            return;
        };
        if pending.method == "initialize" {
            if let Some(backend) = self.backend.as_mut() {
                backend.initialize_answered = true;
            }
            if !matches!(message.kind, MessageKind::Response { is_error: true, .. }) {
                self.supervisor_generation_answered = true;
                let result = initialize::patch_result_for_editor(message.result().unwrap_or(Value::Null));
                self.readiness.initialized(self.automatic_workspace_init);
                self.state_changed();
                return self.send_to_editor(&Message::response_ok(id, result));
            }
        }
        self.send_to_editor(&message);
    }

    pub(super) fn on_backend_exited(&mut self, code: Option<i32>, stderr_tail: String) {
        let Some(backend) = self.backend.take() else {
            return;
        };
        // A user-requested or planned restart is not a crash.
        let planned = std::mem::take(&mut self.planned_restart_underway);
        if !planned {
            self.memory.forget_plan();
        }
        let expected = self.exit_deadline.is_some() || self.shutdown_received || self.restart_requested || planned;
        tracing::info!("FSAC (pid {:?}) ended with {}", backend.pid, exit_code_text(code));
        self.last_stderr_tail = stderr_tail.clone();

        let exit = FsacExit { code, stderr_tail, planned, before_initialize: !backend.initialize_answered };
        let reason = exit.reason(&self.memory);
        if exit.before_initialize && !expected {
            self.readiness.failed_to_start(reason.clone());
        } else {
            self.readiness.exited(expected, reason.clone());
        }
        self.answer_what_waited_for(&exit, &reason);
        // FSAC's own requests to the editor can no longer be answered (the editor may still
        // answer them: those answers are dropped, see `forward_fsac_request`), and the
        // documents fslens had opened in it are gone with it.
        self.forget_fsac_requests();
        self.proxy_documents.clear();
        self.abandon_what_ifs();
        self.unresponsive = false;

        if self.restart_requested || planned {
            self.restart_requested = false;
            self.restart_at = Some(tokio::time::Instant::now());
        } else if !expected && self.initialize_params_for_fsac.is_some() && self.session_was_initialized() {
            self.supervise_crash(&reason);
        }
        self.state_changed();
    }

    /// Every request still waiting for the FSAC that exited is answered now (invariant 4):
    /// the editor's first, in id order, then fslens's own.
    fn answer_what_waited_for(&mut self, exit: &FsacExit, reason: &str) {
        let code = exit.code;
        let editor_answers = self.editor_to_fsac.fail_all(|pending| {
            if pending.method == "initialize" {
                ResponseError::new(error_codes::INTERNAL_ERROR, reason).with_data(json!({
                    "retry": false,
                    "errorKind": error_kinds::FSAC_STARTUP_FAILED,
                    "exitCode": code,
                    "stderrTail": exit.stderr_tail,
                }))
            } else if exit.planned {
                restarting_error(&pending.method, reason)
            } else {
                ResponseError::new(
                    error_codes::REQUEST_FAILED,
                    format!("{}: {reason} while this request was pending", pending.method),
                )
                .with_data(json!({ "errorKind": error_kinds::FSAC_EXITED, "exitCode": code }))
            }
        });
        let proxy_answers = self.proxy_to_fsac.fail_all(|_| {
            if exit.planned {
                restarting_error("the request", reason)
            } else {
                ResponseError::new(error_codes::REQUEST_FAILED, reason)
                    .with_data(json!({ "errorKind": error_kinds::FSAC_EXITED, "exitCode": code }))
            }
        });
        for (origin, answer) in editor_answers.into_iter().chain(proxy_answers) {
            self.send_to_origin(&origin, &answer);
        }
    }

    /// Whether the editor's initialize succeeded at some point, so a crash is a crash of a
    /// working session (and not a start-up failure the editor was already told about).
    pub(super) fn session_was_initialized(&self) -> bool {
        self.supervisor_generation_answered
    }

    pub(super) fn supervise_crash(&mut self, reason: &str) {
        match self.supervisor.on_crash(Instant::now()) {
            Decision::RestartAfter(backoff) => {
                self.restart_at = Some(tokio::time::Instant::now() + backoff);
                let message = format!("{reason}; fslens restarts it in {:.1} s", backoff.as_secs_f64());
                self.readiness.exited(false, message.clone());
                self.show_message(2, &format!("F# language server: {message}."));
            }
            Decision::GiveUp { crashes_in_window } => {
                self.restart_at = None;
                let message = format!(
                    "{reason}; FSAC crashed {crashes_in_window} times within {} s, so fslens stopped restarting it \
                     (run the command fslens.restart to try again)",
                    self.supervisor.to_json(Instant::now())["windowSeconds"]
                );
                self.readiness.exited(false, message.clone());
                self.show_message(1, &format!("F# language server: {message}."));
            }
        }
    }

    /// Starts a new FSAC and replays the session into it.
    pub(super) fn restart_backend(&mut self) {
        self.restart_at = None;
        if self.exit_deadline.is_some() || self.backend.is_some() {
            return;
        }
        let (Some(launcher), Some(root), Some(params)) =
            (self.launcher.as_mut(), self.workspace_root.clone(), self.initialize_params_for_fsac.clone())
        else {
            return;
        };
        match launcher.launch(&root) {
            Ok(connection) => {
                self.supervisor.restarted();
                self.start_backend(connection, true);
                let id = self.next_backend_id();
                self.proxy_to_fsac.register(id.clone(), None, ProxyCall::RestartInitialize);
                self.send_to_backend(&Message::request(id, "initialize", params));
            }
            Err(error) => {
                let reason = format!("fslens could not restart FSAC: {error:#}");
                self.supervise_crash(&reason);
                self.state_changed();
            }
        }
    }

    /// The restarted FSAC answered `initialize`: tell it what the editor told the old one.
    pub(super) fn on_restart_initialized(&mut self, answer: Result<Value, ResponseError>) {
        if let Err(error) = answer {
            tracing::warn!("the restarted FSAC refused initialize: {}", error.message);
            self.kill_backend_for_restart();
            return;
        }
        if let Some(backend) = self.backend.as_mut() {
            backend.initialize_answered = true;
            backend.replaying = false;
        }
        self.readiness.initialized(self.automatic_workspace_init);
        if let Some(initialized) = self.replay_initialized.clone() {
            self.send_to_backend(&initialized);
        }
        if let Some(configuration) = self.replay_configuration.clone() {
            self.send_to_backend(&configuration);
        }
        if let Some(load) = self.replay_workspace_load.clone() {
            let id = self.next_backend_id();
            self.proxy_to_fsac.register(id.clone(), None, ProxyCall::Ignored);
            self.send_to_backend(&Message::request(id, "fsharp/workspaceLoad", load));
        }
        let mut documents: Vec<_> = self.documents.iter().cloned().collect();
        documents.sort_by(|a, b| a.uri.cmp(&b.uri));
        for document in documents {
            let open = Message::notification(
                "textDocument/didOpen",
                json!({ "textDocument": {
                    "uri": document.uri,
                    "languageId": document.language_id,
                    "version": document.version,
                    "text": document.text,
                }}),
            );
            self.send_to_backend(&open);
        }
        self.show_message(3, "F# language server: FSAC restarted; open documents were sent to it again.");
        self.state_changed();
    }

    pub(super) fn kill_backend_for_restart(&mut self) {
        if let Some(backend) = self.backend.as_mut()
            && let Some(kill) = backend.kill.take()
        {
            let _ = kill.send(());
        }
    }

    /// Marks the session unresponsive when FSAC stays silent while requests wait for it.
    pub(super) fn check_responsiveness(&mut self) {
        let waiting = !self.editor_to_fsac.is_empty() || !self.proxy_to_fsac.is_empty();
        let silent = self.last_heard_from_fsac.elapsed();
        let unresponsive = self.backend.is_some() && waiting && silent >= self.unresponsive_after;
        if unresponsive != self.unresponsive {
            self.unresponsive = unresponsive;
            if unresponsive {
                tracing::warn!("FSAC has been silent for {silent:?} with requests pending");
            }
            self.state_changed();
        }
    }
}

/// How an FSAC process ended.
struct FsacExit {
    code: Option<i32>,
    stderr_tail: String,
    /// A planned restart (the memory guard) killed it.
    planned: bool,
    /// It never answered `initialize`.
    before_initialize: bool,
}

impl FsacExit {
    /// Why FSAC is gone, as the session's readiness and the failed requests say it.
    fn reason(&self, memory: &MemoryGuard) -> String {
        let code_text = exit_code_text(self.code);
        if self.planned {
            planned_restart_reason(memory)
        } else if self.before_initialize {
            format!(
                "FSAC exited before answering initialize ({code_text}); its stderr ends with:\n{}",
                self.stderr_tail
            )
        } else {
            format!("FSAC exited ({code_text})")
        }
    }
}

fn exit_code_text(code: Option<i32>) -> String {
    code.map_or("no exit code (killed by a signal)".to_owned(), |code| format!("exit code {code}"))
}
