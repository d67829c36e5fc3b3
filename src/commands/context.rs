//! What a running command may ask of its session, and the one way it asks.
//!
//! A command runs as a task of its own; the session's state belongs to the main loop. The
//! command holds a [`CommandContext`] and sends the loop [`SessionRequest`]s through the
//! loop's [`SessionInbox`]; a request that wants an answer carries a oneshot reply channel,
//! which the loop answers exactly once (a reply channel dropped unanswered means the session
//! ended). Everything the context hands back is a plain value from `session_state`, so the
//! commands depend on no part of the proxy.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::{oneshot, watch};

use crate::commands::CommandError;
use crate::lsp::message::{RequestId, ResponseError};
use crate::session_state::analysis::AnalysisSnapshot;
use crate::session_state::proxy_ids::ProxyIds;
use crate::session_state::status::StatusSnapshot;
use crate::syntax::index::{Overlay, SyntaxIndex};

/// Who sent a request that fslens answers: the editor on stdio, or a client that joined the
/// session over its socket.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    Editor,
    Client(u64),
}

/// A running command is known by who asked and the id they used.
pub type CommandKey = (Origin, RequestId);

/// One document a what-if shows FSAC: its hypothetical text, and the editor's version the
/// text was computed from (`None`: the editor did not have it open). A buffer that changed
/// since is refused, so a hypothetical text is never built on an outdated one.
#[derive(Debug, Clone)]
pub struct WhatIfText {
    pub uri: String,
    pub text: String,
    pub editor_version: Option<i64>,
}

/// What a running command asks of the session's main loop. The loop answers every `reply`
/// exactly once; the requests without one are done without an answer.
pub enum SessionRequest {
    /// Send FSAC a request under the proxy id `id` (minted by the command) and answer it
    /// with FSAC's answer.
    BackendCall {
        owner: CommandKey,
        id: RequestId,
        method: String,
        params: Value,
        reply: oneshot::Sender<Result<Value, ResponseError>>,
    },
    /// The command stopped waiting for `id`: FSAC is told `$/cancelRequest`.
    CancelBackendCall { id: RequestId },
    /// What the session knows about FSAC now.
    Status { reply: oneshot::Sender<StatusSnapshot> },
    /// The same, with the public `fslens.status` object built at the same moment.
    StatusReport { reply: oneshot::Sender<(StatusSnapshot, Value)> },
    /// Restart FSAC now, forgetting earlier crashes (`fslens.restart`).
    Restart { reply: oneshot::Sender<Result<Value, CommandError>> },
    /// Make sure FSAC has `uri` open: the editor's buffer if open, else fslens opens it with
    /// `text` (and keeps it open until every command holding it is done).
    Acquire { owner: CommandKey, uri: String, text: String, reply: oneshot::Sender<Result<(), CommandError>> },
    /// The command no longer needs `uri` open in FSAC.
    Release { owner: CommandKey, uri: String },
    /// Snapshots of what FSAC said about these documents.
    Analysis { uris: Vec<String>, reply: oneshot::Sender<Vec<AnalysisSnapshot>> },
    /// Snapshots of every document FSAC published diagnostics for.
    AllAnalyses { reply: oneshot::Sender<Vec<AnalysisSnapshot>> },
    /// The editor's unsaved buffers, by path, for the syntax layer.
    EditorBuffers { reply: oneshot::Sender<Overlay> },
    /// The editor's text and version of each document it has open (`None`: not open).
    WhatIfEditorTexts { uris: Vec<String>, reply: oneshot::Sender<Vec<Option<(String, i64)>>> },
    /// Show FSAC hypothetical texts of these documents until the command ends (what-if check).
    WhatIfBegin {
        owner: CommandKey,
        documents: Vec<WhatIfText>,
        reply: oneshot::Sender<Result<Vec<i64>, CommandError>>,
    },
    /// Restore FSAC's view of every document the command overlaid, then reply.
    WhatIfEnd { owner: CommandKey, reply: oneshot::Sender<()> },
    /// Run `dotnet build` over these projects (`check` with `confirm: "build"`); the build is
    /// stopped when the command ends or the request's deadline passes.
    Build { owner: CommandKey, request: BuildRequest, reply: oneshot::Sender<BuildRun> },
    /// The files changed since a git revision in the session's workspace (committed and
    /// uncommitted, untracked files as added), with their text at the revision for the paths
    /// `wanted` keeps; git runs where programs are started (`proxy::backend::git_changes`).
    GitChanges { revision: String, wanted: fn(&Path) -> bool, reply: oneshot::Sender<Result<Vec<GitChange>, String>> },
    /// A request to the editor (e.g. `workspace/applyEdit`) under a proxy id.
    EditorRequest {
        owner: CommandKey,
        method: String,
        params: Value,
        capability: String,
        reply: oneshot::Sender<Result<Value, ResponseError>>,
    },
}

/// What a check asks the session to build: `dotnet build` of each project in turn (its
/// references come with it), in the workspace root, until `deadline`.
#[derive(Debug, Clone)]
pub struct BuildRequest {
    pub workspace_root: PathBuf,
    pub projects: Vec<PathBuf>,
    pub deadline: tokio::time::Instant,
}

/// One project's `dotnet build`: its exit code and everything it wrote.
#[derive(Debug, Clone)]
pub struct ProjectBuildOutput {
    pub project: PathBuf,
    /// `None`: ended by a signal.
    pub exit_code: Option<i32>,
    pub output: String,
}

/// What the build run gave.
#[derive(Debug, Clone)]
pub enum BuildRun {
    /// Every project's build ran to its end.
    Finished { builds: Vec<ProjectBuildOutput>, elapsed_ms: u64 },
    /// The deadline passed during a build (which was stopped); the builds before it are kept.
    TimedOut { builds: Vec<ProjectBuildOutput>, elapsed_ms: u64 },
    /// `dotnet` could not be started, or the temporary folder not made.
    CannotStart(String),
}

/// One file git says changed since a revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitChange {
    /// Absolute path in the workspace.
    pub path: PathBuf,
    /// Its text at the revision; `None` when it did not exist then (added, untracked) or its
    /// text was not asked for.
    pub before: Option<String>,
}

/// The session ended: its main loop takes no more requests.
#[derive(Debug, Clone, Copy)]
pub struct SessionEnded;

/// Where a command's requests go: the session's main loop (which implements this over its
/// own event queue, so a command's requests keep their order among the loop's other events).
pub trait SessionInbox: Send + Sync {
    fn post(&self, request: SessionRequest) -> Result<(), SessionEnded>;
}

/// The symbol tools' workspace-wide index builds (`commands::symbols::warmup::WarmWorkspaces`),
/// which the session keeps across commands. The context holds them without naming their type,
/// so that the shared bottom of the commands (errors, context, arguments, outcome, params)
/// imports no command and no import circle runs through it; `symbols::warmup::of` reads them.
pub type WarmState = Arc<dyn std::any::Any + Send + Sync>;

/// The parts of a session a command is given when it starts.
pub struct SessionHandles {
    pub inbox: Arc<dyn SessionInbox>,
    pub ids: Arc<ProxyIds>,
    /// Bumped whenever the session state changes (readiness, FSAC start or exit).
    pub changes: watch::Receiver<u64>,
    /// Bumped whenever FSAC publishes diagnostics or reports an analysis.
    pub analysis_changes: watch::Receiver<u64>,
    pub syntax_index: Arc<SyntaxIndex>,
    pub warm_workspaces: WarmState,
    /// The workspace root (`None` until the editor's `initialize` set it).
    pub workspace_root: Option<PathBuf>,
}

/// What a command handler may ask of the session. Cloning is cheap.
#[derive(Clone)]
pub struct CommandContext {
    inbox: Arc<dyn SessionInbox>,
    owner: CommandKey,
    ids: Arc<ProxyIds>,
    changes: watch::Receiver<u64>,
    analysis_changes: watch::Receiver<u64>,
    syntax_index: Arc<SyntaxIndex>,
    warm_workspaces: WarmState,
    workspace_root: Option<PathBuf>,
}

fn session_ended() -> CommandError {
    CommandError::Internal("the session ended".to_owned())
}

impl CommandContext {
    /// The context of the command `owner`.
    pub fn new(owner: CommandKey, session: SessionHandles) -> Self {
        CommandContext {
            inbox: session.inbox,
            owner,
            ids: session.ids,
            changes: session.changes,
            analysis_changes: session.analysis_changes,
            syntax_index: session.syntax_index,
            warm_workspaces: session.warm_workspaces,
            workspace_root: session.workspace_root,
        }
    }

    /// The session's workspace root; an error while the editor has not set one yet.
    pub fn workspace_root(&self) -> Result<&Path, CommandError> {
        self.workspace_root
            .as_deref()
            .ok_or_else(|| CommandError::Internal("the session has no workspace root yet".to_owned()))
    }

    /// What the session knows about FSAC now.
    pub async fn status(&self) -> Result<StatusSnapshot, CommandError> {
        self.ask(|reply| SessionRequest::Status { reply }).await
    }

    /// The same, with the public `fslens.status` object built at the same moment.
    pub async fn status_report(&self) -> Result<(StatusSnapshot, Value), CommandError> {
        self.ask(|reply| SessionRequest::StatusReport { reply }).await
    }

    /// Makes sure FSAC has `uri` open (see [`SessionRequest::Acquire`]). The document is
    /// released when the command ends, or earlier with [`CommandContext::release_document`].
    pub async fn acquire_document(&self, uri: &str, text: String) -> Result<(), CommandError> {
        let (owner, uri) = (self.owner.clone(), uri.to_owned());
        self.ask(|reply| SessionRequest::Acquire { owner, uri, text, reply }).await?
    }

    pub fn release_document(&self, uri: &str) {
        let _ = self.post(SessionRequest::Release { owner: self.owner.clone(), uri: uri.to_owned() });
    }

    /// The files changed since `revision` in the workspace (see [`SessionRequest::GitChanges`]);
    /// git's own complaint (an unknown revision, no repository) as the error text.
    pub async fn git_changes(
        &self,
        revision: &str,
        wanted: fn(&Path) -> bool,
    ) -> Result<Result<Vec<GitChange>, String>, CommandError> {
        let revision = revision.to_owned();
        self.ask(|reply| SessionRequest::GitChanges { revision, wanted, reply }).await
    }

    /// The editor's open buffers as a syntax overlay (they win over the files on disk).
    pub async fn editor_buffers(&self) -> Result<Overlay, CommandError> {
        self.ask(|reply| SessionRequest::EditorBuffers { reply }).await
    }

    /// Sends a request to the editor and waits for its answer. Fails at once when no editor
    /// has initialized the session, or when it did not declare `capability` (a JSON pointer
    /// into its client capabilities, e.g. `/workspace/applyEdit`) as true.
    pub async fn editor_request(
        &self,
        method: &str,
        params: impl Serialize,
        capability: &str,
        deadline: tokio::time::Instant,
    ) -> Result<Result<Value, ResponseError>, CommandError> {
        let params = wire_params(method, params)?;
        let (owner, method, capability) = (self.owner.clone(), method.to_owned(), capability.to_owned());
        self.ask_until(Some(deadline), |reply| SessionRequest::EditorRequest {
            owner,
            method,
            params,
            capability,
            reply,
        })
        .await
    }

    /// The session's syntax index (kept warm across commands).
    pub fn syntax_index(&self) -> Arc<SyntaxIndex> {
        self.syntax_index.clone()
    }

    /// The session's workspace-wide index builds for the symbol tools (kept across commands),
    /// read as their type by `commands::symbols::warmup::of`.
    pub fn warm_state(&self) -> WarmState {
        self.warm_workspaces.clone()
    }

    /// What FSAC has said about the analysis of each document.
    pub async fn analysis(&self, uris: Vec<String>) -> Result<Vec<AnalysisSnapshot>, CommandError> {
        self.ask(|reply| SessionRequest::Analysis { uris, reply }).await
    }

    /// Snapshots of every document FSAC has published diagnostics for in this session.
    pub async fn all_analyses(&self) -> Result<Vec<AnalysisSnapshot>, CommandError> {
        self.ask(|reply| SessionRequest::AllAnalyses { reply }).await
    }

    /// Waits until FSAC publishes diagnostics or reports an analysis, or the session state
    /// changes.
    pub async fn analysis_changed(&mut self) -> Result<(), CommandError> {
        tokio::select! {
            changed = self.analysis_changes.changed() => changed,
            changed = self.changes.changed() => changed,
        }
        .map_err(|_| session_ended())
    }

    /// Restarts FSAC now, forgetting earlier crashes (`fslens.restart`).
    pub async fn restart_backend(&self) -> Result<Value, CommandError> {
        self.ask(|reply| SessionRequest::Restart { reply }).await?
    }

    /// FSAC's state once it has loaded the workspace, or once waiting can no longer change it
    /// (FSAC absent or crashed), or at `deadline`, whichever comes first.
    pub async fn status_when_ready(&mut self, deadline: tokio::time::Instant) -> Result<StatusSnapshot, CommandError> {
        loop {
            let status = self.status().await?;
            if !status.state.can_become_ready() {
                return Ok(status);
            }
            match tokio::time::timeout_at(deadline, self.state_changed()).await {
                Ok(changed) => changed?,
                Err(_) => return Ok(status),
            }
        }
    }

    /// Waits until the session state changes (readiness, FSAC start or exit).
    pub async fn state_changed(&mut self) -> Result<(), CommandError> {
        self.changes.changed().await.map_err(|_| session_ended())
    }

    /// Sends a request to FSAC with a proxy id and waits for its answer until `deadline`.
    /// When the deadline passes first, FSAC is sent `$/cancelRequest` for it.
    pub async fn backend_request(
        &self,
        method: &str,
        params: impl Serialize,
        deadline: tokio::time::Instant,
    ) -> Result<Result<Value, ResponseError>, CommandError> {
        let params = wire_params(method, params)?;
        let id = self.ids.mint();
        let (owner, call_id, method) = (self.owner.clone(), id.clone(), method.to_owned());
        let answer = self
            .ask_until(Some(deadline), |reply| SessionRequest::BackendCall {
                owner,
                id: call_id,
                method,
                params,
                reply,
            })
            .await;
        if matches!(answer, Err(CommandError::Timeout)) {
            let _ = self.post(SessionRequest::CancelBackendCall { id });
        }
        answer
    }

    /// Runs `dotnet build` over `request`'s projects (the session starts the process) and
    /// waits for what it gave; the build is stopped at the request's deadline.
    pub async fn run_build(&self, request: BuildRequest) -> Result<BuildRun, CommandError> {
        let owner = self.owner.clone();
        self.ask(|reply| SessionRequest::Build { owner, request, reply }).await
    }

    /// The editor's text and version of each of `uris` it has open.
    pub async fn what_if_editor_texts(&self, uris: Vec<String>) -> Result<Vec<Option<(String, i64)>>, CommandError> {
        self.ask(|reply| SessionRequest::WhatIfEditorTexts { uris, reply }).await
    }

    /// Shows FSAC the hypothetical texts (at versions fslens owns) until
    /// [`CommandContext::end_what_if`] or the command's end; returns the version of each.
    pub async fn begin_what_if(&self, documents: Vec<WhatIfText>) -> Result<Vec<i64>, CommandError> {
        let owner = self.owner.clone();
        self.ask(|reply| SessionRequest::WhatIfBegin { owner, documents, reply }).await?
    }

    /// Restores FSAC's view of every document this command overlaid and applies the editor
    /// changes held meanwhile; returns once that was sent.
    pub async fn end_what_if(&self) -> Result<(), CommandError> {
        let owner = self.owner.clone();
        self.ask(|reply| SessionRequest::WhatIfEnd { owner, reply }).await
    }

    /// Sends the main loop the request `make(reply)` and waits for its answer.
    async fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> SessionRequest) -> Result<T, CommandError> {
        self.ask_until(None, make).await
    }

    /// Sends the main loop the request `make(reply)` and waits for its answer, until
    /// `deadline` if there is one (then the answer is [`CommandError::Timeout`]).
    async fn ask_until<T>(
        &self,
        deadline: Option<tokio::time::Instant>,
        make: impl FnOnce(oneshot::Sender<T>) -> SessionRequest,
    ) -> Result<T, CommandError> {
        let (reply, answer) = oneshot::channel();
        self.post(make(reply))?;
        let answer = match deadline {
            Some(deadline) => tokio::time::timeout_at(deadline, answer).await.map_err(|_| CommandError::Timeout)?,
            None => answer.await,
        };
        answer.map_err(|_| session_ended())
    }

    fn post(&self, request: SessionRequest) -> Result<(), CommandError> {
        self.inbox.post(request).map_err(|SessionEnded| session_ended())
    }
}

/// A request's typed parameters as they go on the wire.
fn wire_params(method: &str, params: impl Serialize) -> Result<Value, CommandError> {
    serde_json::to_value(params)
        .map_err(|error| CommandError::Internal(format!("the parameters of {method} could not be written: {error}")))
}
