//! The workspace-wide index build that `fslens.symbolSearch` and `fslens.readSymbol` answer
//! from, run in the background so a call never blocks on it.
//!
//! One [`WarmWorkspace`] exists per workspace root in a session: the session owns a
//! [`WarmWorkspaces`] next to its syntax index and hands it to every command. The first call starts the
//! build on a thread of its own and is told `available: false` with a retry hint until it
//! finishes. Once built, a call answers at once from the index as it is; when the last full
//! refresh is older than [`REFRESH_AFTER`], the call also starts a background refresh that
//! re-reads the project model and re-indexes what changed (a file whose size and modification
//! time are unchanged costs a `stat`, see `syntax::index::DiskStamp`), so disk changes show up
//! in a later answer. Editor buffers are re-indexed before every answer.
//!
//! Test hook: when `FSLENS_TEST_INDEX_GATE` names a file, the first build does not finish
//! until that file exists, so a test can observe `available: false` without timing luck.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::commands::symbols::search::SearchTables;
use crate::syntax::{Overlay, SyntaxIndex};
use crate::workspace::WorkspaceModel;

/// A built index older than this is refreshed in the background by the next call.
pub const REFRESH_AFTER: Duration = Duration::from_secs(2);
/// The environment variable of the test hook (see the module documentation).
pub const INDEX_GATE_VARIABLE: &str = "FSLENS_TEST_INDEX_GATE";

/// Where the background build is.
#[derive(Clone)]
pub enum BuildPhase {
    /// The first build runs; `files` is known once the project model is read.
    Building {
        started: Instant,
        files: Option<usize>,
    },
    Ready(Arc<ReadyWorkspace>),
    /// The project model could not be read; the message says why.
    Failed(String),
}

/// What a finished build knows.
pub struct ReadyWorkspace {
    pub model: WorkspaceModel,
    pub files: Vec<PathBuf>,
    pub built_at: Instant,
    pub build_time: Duration,
    /// File → the names of the projects compiling it (a lookup per listed file, instead of a
    /// scan of every project's compile items).
    pub projects_by_file: std::collections::HashMap<PathBuf, Vec<String>>,
}

impl ReadyWorkspace {
    pub fn new(model: WorkspaceModel, files: Vec<PathBuf>, build_time: Duration) -> ReadyWorkspace {
        let mut projects_by_file: std::collections::HashMap<PathBuf, Vec<String>> = std::collections::HashMap::new();
        for project in &model.projects {
            for item in &project.compile_items {
                let names = projects_by_file.entry(item.path.clone()).or_default();
                if !names.contains(&project.name) {
                    names.push(project.name.clone());
                }
            }
        }
        ReadyWorkspace { model, files, built_at: Instant::now(), build_time, projects_by_file }
    }
}

/// The background build state for one index and root, and the search tables derived from it.
pub struct WarmWorkspace {
    root: PathBuf,
    phase: Mutex<BuildPhase>,
    refreshing: Mutex<bool>,
    pub tables: Mutex<SearchTables>,
}

/// The session's warm workspaces, out of a command's context (the session makes them, so they
/// are always there; a context without them gets an empty set that builds afresh).
pub fn of(context: &crate::commands::CommandContext) -> Arc<WarmWorkspaces> {
    context.warm_state().downcast::<WarmWorkspaces>().unwrap_or_else(|_| Arc::new(WarmWorkspaces::new(false)))
}

/// The warm workspaces of one session, by root (a session has one root; a list keeps the
/// lookup honest should that change).
#[derive(Default)]
pub struct WarmWorkspaces {
    entries: Mutex<Vec<Arc<WarmWorkspace>>>,
    /// See `ProxyConfig::index_in_background`.
    index_in_background: bool,
}

impl WarmWorkspaces {
    pub fn new(index_in_background: bool) -> WarmWorkspaces {
        WarmWorkspaces { entries: Mutex::default(), index_in_background }
    }

    /// The warm state for `root` and its finished build, if there is one (nothing is started).
    pub fn ready(&self, root: &Path) -> Option<(Arc<WarmWorkspace>, Arc<ReadyWorkspace>)> {
        let entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let warm = entries.iter().find(|warm| warm.root == root)?.clone();
        drop(entries);
        match warm.phase() {
            BuildPhase::Ready(ready) => Some((warm, ready)),
            _ => None,
        }
    }

    /// After a command that indexed part of the workspace: starts the full build for `root`
    /// (once per session) when the session indexes in the background.
    pub fn start_in_background(&self, index: &Arc<SyntaxIndex>, root: &Path) {
        if self.index_in_background {
            self.for_root(index, root);
        }
    }

    /// The warm state of `index` for `root`, starting its first build when there is none yet.
    pub fn for_root(&self, index: &Arc<SyntaxIndex>, root: &Path) -> Arc<WarmWorkspace> {
        let mut entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(warm) = entries.iter().find(|warm| warm.root == root) {
            return warm.clone();
        }
        let warm = Arc::new(WarmWorkspace {
            root: root.to_path_buf(),
            phase: Mutex::new(BuildPhase::Building { started: Instant::now(), files: None }),
            refreshing: Mutex::new(true),
            tables: Mutex::new(SearchTables::new()),
        });
        entries.push(warm.clone());
        drop(entries);
        spawn_build(warm.clone(), index.clone(), true);
        warm
    }
}

impl WarmWorkspace {
    pub fn phase(&self) -> BuildPhase {
        self.phase.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    pub fn refreshing(&self) -> bool {
        *self.refreshing.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// After a failed build (say the root was unreadable), the next call starts a new one.
    pub fn retry_after_failure(self: &Arc<Self>, index: &Arc<SyntaxIndex>) {
        let mut phase = self.phase.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !matches!(*phase, BuildPhase::Failed(_)) {
            return;
        }
        *phase = BuildPhase::Building { started: Instant::now(), files: None };
        drop(phase);
        *self.refreshing.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = true;
        spawn_build(self.clone(), index.clone(), true);
    }

    /// Starts a background refresh when the last one is older than [`REFRESH_AFTER`] and none
    /// runs; returns whether one runs now.
    pub fn refresh_if_old(self: &Arc<Self>, index: &Arc<SyntaxIndex>) -> bool {
        let BuildPhase::Ready(ready) = self.phase() else { return self.refreshing() };
        let mut refreshing = self.refreshing.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if *refreshing {
            return true;
        }
        if ready.built_at.elapsed() < REFRESH_AFTER {
            return false;
        }
        *refreshing = true;
        drop(refreshing);
        spawn_build(self.clone(), index.clone(), false);
        true
    }
}

fn spawn_build(warm: Arc<WarmWorkspace>, index: Arc<SyntaxIndex>, first: bool) {
    let worker = warm.clone();
    let spawned =
        std::thread::Builder::new().name("symbol_index_task".to_owned()).spawn(move || build(&worker, &index, first));
    if let Err(error) = spawned {
        *warm.phase.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) =
            BuildPhase::Failed(format!("cannot start the indexing thread: {error}"));
        *warm.refreshing.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = false;
    }
}

fn build(warm: &WarmWorkspace, index: &SyntaxIndex, first: bool) {
    let started = Instant::now();
    // The snapshot loads (once per index) while the project model is read.
    let outcome = std::thread::scope(|scope| {
        let _ = std::thread::Builder::new()
            .name("snapshot_load_task".to_owned())
            .spawn_scoped(scope, || index.load_snapshot(&warm.root));
        crate::workspace::load_workspace(&warm.root)
    });
    let next = match outcome {
        Ok(model) => {
            let files = model.files_to_index();
            tracing::debug!("workspace model of {} read in {:?}", warm.root.display(), started.elapsed());
            if first {
                *warm.phase.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) =
                    BuildPhase::Building { started, files: Some(files.len()) };
            }
            // Disk text only: editor buffers are applied by each call before it answers, and
            // files indexed from a buffer are left as they are (the call re-checks them).
            index.index_workspace(&warm.root, &files, &Overlay::new());
            if first {
                wait_for_test_gate();
            }
            BuildPhase::Ready(Arc::new(ReadyWorkspace::new(model, files, started.elapsed())))
        }
        Err(error) => BuildPhase::Failed(format!("{error:#}")),
    };
    *warm.phase.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = next;
    *warm.refreshing.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = false;
}

fn wait_for_test_gate() {
    let Some(gate) = std::env::var_os(INDEX_GATE_VARIABLE) else { return };
    let gate = PathBuf::from(gate);
    // Bounded, so a forgotten gate cannot hang a session for good.
    let give_up = Instant::now() + Duration::from_secs(120);
    while !gate.exists() && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(20));
    }
}
