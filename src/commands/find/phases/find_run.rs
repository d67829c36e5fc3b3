//! One find after its files are chosen: what the phases from resolution on read ([`FindRun`]),
//! FSAC as the find saw it, the deadline split for the sweep and the answer, and the clock of
//! the phases.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::find::matching::{Declared, effective_kind};
use crate::commands::find::model::arguments::{FindArguments, FindKind};
use crate::commands::find::model::work::Work;
use crate::commands::find::phases::candidates::SearchedFiles;
use crate::commands::find::phases::target::Target;
use crate::session_state::status::{ProjectError, ProjectLoad, StatusSnapshot};
use crate::syntax::model::DeclarationKind;
use crate::syntax::{Overlay, SyntaxIndex};
use crate::workspace::WorkspaceModel;

/// At most this much of the budget (5 %, at least 1 ms) is kept for building the answer.
pub const RESPONSE_ALLOWANCE_CAP: Duration = Duration::from_millis(250);

/// One find after indexing: what the phases read. The file texts they quote ([`Texts`]) go
/// beside it, since the phases fill its cache.
pub struct FindRun {
    pub arguments: FindArguments,
    pub context: CommandContext,
    pub root: PathBuf,
    pub model: WorkspaceModel,
    pub target: Target,
    pub index: Arc<SyntaxIndex>,
    /// The workspace's files, and the ones indexed and read for this find.
    pub searched: SearchedFiles,
    /// The editor's buffers as the find began (they win over the disk).
    pub overlay: Overlay,
    pub fsac: FsacView,
    /// Requests to FSAC end by this instant: the deadline less the answer's allowance.
    pub sweep_deadline: tokio::time::Instant,
    /// What the phases compared, and the paths they resolved.
    pub work: Work,
}

impl FindRun {
    /// The kind as run: `auto` with `field` runs as `field`, with `member` as `members`.
    pub fn kind_mode(&self) -> FindKind {
        effective_kind(&self.arguments)
    }

    /// The files this find reads (those that may hold a name it looks for), sorted.
    pub fn files(&self) -> &[PathBuf] {
        &self.searched.candidates
    }

    /// Brings one workspace file's index up to date now (a `stat` when it is).
    pub async fn index_now(&self, path: PathBuf) -> Result<(), CommandError> {
        if !self.in_workspace(&path) {
            return Ok(());
        }
        let (index, overlay) = (self.index.clone(), self.overlay.clone());
        crate::commands::run_blocking(move || {
            index.refresh_path(&path, &overlay);
            Ok(())
        })
        .await
    }

    /// Whether the index holds the declaration (its kind, at its name) read with certainty.
    pub fn indexed_with_certainty(&self, declaration: &Declared, kind: DeclarationKind) -> bool {
        self.index.file(&declaration.path).is_some_and(|file| {
            file.index.declarations.iter().any(|candidate| {
                candidate.kind == kind && candidate.name_range() == declaration.name_range && candidate.certain
            })
        })
    }

    /// Is `path` one of the workspace's files?
    pub fn in_workspace(&self, path: &Path) -> bool {
        self.searched.in_workspace.contains(path)
    }

    /// The requested projects FSAC never swept (with FSAC ready) that can see one of
    /// `declared` (compile its file or reference, transitively, a project that does; every
    /// unswept project when `declared` is empty), each with why: a load error FSAC reported,
    /// or no load at all (a project the solution FSAC opened does not hold). Their files were
    /// never swept, so their sites come from the syntax layer. One that can see none of them
    /// (by its project file, read whole) cannot use one, so its load is no gap in the answer.
    pub fn failed_projects(&self, declared: &[Declared]) -> Vec<(&Path, Unswept<'_>)> {
        self.failed_among(self.unswept_projects(), declared)
    }

    /// [`FindRun::failed_projects`] among `unswept` (what [`FindRun::unswept_projects`] gave).
    pub fn failed_among<'a>(
        &'a self,
        unswept: Vec<(&'a Path, Unswept<'a>)>,
        declared: &[Declared],
    ) -> Vec<(&'a Path, Unswept<'a>)> {
        if declared.is_empty() || unswept.is_empty() {
            return unswept;
        }
        let mut seeing: HashMap<&Path, HashSet<PathBuf>> = HashMap::new();
        for declaration in declared {
            seeing.entry(declaration.path.as_path()).or_insert_with(|| {
                crate::commands::find::phases::ledger::projects_seeing(&self.model, &declaration.path)
            });
        }
        // Only a project file fslens read whole says what it compiles and references.
        let read_whole = |project: &Path| {
            self.model
                .projects
                .iter()
                .any(|known| known.path == project && known.errors.is_empty() && !known.compile_items.is_empty())
        };
        unswept
            .into_iter()
            .filter(|(project, _)| !read_whole(project) || seeing.values().any(|projects| projects.contains(*project)))
            .collect()
    }

    /// Every requested project FSAC never swept (with FSAC ready), each with why.
    pub fn unswept_projects(&self) -> Vec<(&Path, Unswept<'_>)> {
        if !self.fsac.ready {
            return Vec::new();
        }
        let status = &self.fsac.status;
        let names = |fsac_name: &str, project: &Path, display: &str| {
            Path::new(fsac_name) == project || fsac_name.ends_with(display)
        };
        self.target
            .projects
            .iter()
            .filter_map(|project| {
                let display = self.model.display_path(project);
                if let Some(error) = status.project_errors.iter().find(|error| names(&error.project, project, &display))
                {
                    return Some((project.as_path(), Unswept::LoadError(error)));
                }
                // FSAC names every project it loaded (`fsharp/notifyWorkspace` kind `project`);
                // one it named none of was never asked for, when it named any.
                matches!(status.load_of(project), ProjectLoad::NotLoaded)
                    .then_some((project.as_path(), Unswept::NotLoaded))
            })
            .collect()
    }
}

/// Why FSAC never swept a requested project.
#[derive(Clone, Copy, Debug)]
pub enum Unswept<'a> {
    /// FSAC tried to load it and reported this error.
    LoadError(&'a ProjectError),
    /// FSAC loaded other projects and not this one: the workspace it opened (its solution)
    /// does not hold it, so FSAC's references never cover its files.
    NotLoaded,
}

impl Unswept<'_> {
    /// The project's reason in the answer.
    pub fn reason(&self) -> String {
        match self {
            Unswept::LoadError(error) => format!("FSAC could not load the project: {}", error.message),
            Unswept::NotLoaded => "FSAC did not load the project: the solution it opened does not hold it, so \
                                   FSAC's references never cover its files"
                .to_owned(),
        }
    }

    /// What makes FSAC sweep the project: its restore when FSAC says it was never restored
    /// (code 100), the MSBuild error to fix, or a solution that holds it. Never a longer
    /// deadline: waiting does not load it.
    pub fn remedy(&self, project: &str) -> String {
        match self {
            Unswept::LoadError(ProjectError { code: Some(100), .. }) => format!("run `dotnet restore {project}`"),
            Unswept::LoadError(error) => format!("fix {project} so that MSBuild can load it ({})", error.message),
            Unswept::NotLoaded => {
                format!("add {project} to the solution FSAC opens (`dotnet sln add {project}`)")
            }
        }
    }
}

/// FSAC as the session's status described it when the find began.
pub struct FsacView {
    pub status: StatusSnapshot,
    /// `absent`, `starting`, `loading`, `ready` or `crashed`.
    pub state: String,
    pub ready: bool,
}

impl FsacView {
    pub async fn read(context: &CommandContext) -> Result<FsacView, CommandError> {
        let status = context.status().await?;
        let state = status.state.as_str().to_owned();
        Ok(FsacView { ready: state == "ready", state, status })
    }
}

/// The request's one deadline, split: FSAC is asked until `sweep`, the rest (5 %, at most
/// [`RESPONSE_ALLOWANCE_CAP`]) is kept for building the answer.
pub struct Deadlines {
    pub timeout: Duration,
    pub allowance: Duration,
    pub sweep: tokio::time::Instant,
}

impl Deadlines {
    pub fn for_timeout(timeout: Duration) -> Deadlines {
        let deadline = tokio::time::Instant::now() + timeout;
        let allowance = if timeout.is_zero() {
            Duration::ZERO
        } else {
            (timeout / 20).clamp(Duration::from_millis(1), RESPONSE_ALLOWANCE_CAP)
        };
        Deadlines { timeout, allowance, sweep: deadline - allowance }
    }
}

/// `timingsMs`: the milliseconds each phase took.
pub struct PhaseClock {
    pub since: Instant,
    pub timings: BTreeMap<&'static str, u64>,
}

impl PhaseClock {
    pub fn start() -> PhaseClock {
        PhaseClock { since: Instant::now(), timings: BTreeMap::new() }
    }

    /// Records the time since the previous lap as `phase`.
    pub fn lap(&mut self, phase: &'static str) {
        let now = Instant::now();
        self.timings.insert(phase, now.duration_since(self.since).as_millis() as u64);
        self.since = now;
    }
}
