//! Which of the workspace's files a find indexes and reads: only those whose bytes contain a
//! name it looks for (`syntax::prefilter`), so its work follows the answer and not the
//! workspace, and a cold find for a rare name parses a handful of files instead of all.
//!
//! The names come in two rounds. Before resolution: the query's last segment (the field, the
//! member, or the owner of kind `members`; at a position, the identifier there), and kind
//! position's file itself. After resolution, the name of every declaration resolved that the
//! first round did not look for (a type's members, the compiler's declaration of the symbol
//! at a position), and every file FSAC answers with, are indexed too. A file outside the
//! candidates holds none of the names, so it can hold no declaration, site or field site the
//! find would list, and leaving it unread changes no answer.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::commands::CommandError;
use crate::commands::find::matching::{Declared, effective_kind, segments};
use crate::commands::find::model::answer::{FilesSearched, NAMES_LISTED};
use crate::commands::find::model::arguments::{FindArguments, FindKind};
use crate::commands::find::phases::position::ResolvedPosition;
use crate::syntax::prefilter::WantedName;
use crate::syntax::{Overlay, SyntaxIndex};
use crate::workspace::WorkspaceModel;

/// The workspace's files and the ones this find reads.
pub struct SearchedFiles {
    /// Every file of the workspace the index covers, in the model's order.
    pub workspace: Arc<Vec<PathBuf>>,
    /// The same files, for membership.
    pub in_workspace: HashSet<PathBuf>,
    /// The files indexed for this find, sorted by path.
    pub candidates: Vec<PathBuf>,
    /// The names scanned for so far.
    names: Vec<WantedName>,
    /// A qualified find: the files holding the name that are not read yet, until resolution
    /// says which of them can use what it resolved to.
    holding: Option<Vec<PathBuf>>,
    /// Files holding the name left unread because they cannot use what the query names.
    narrowed_out: Option<usize>,
    /// Over every scan: files read, files that could not be, and whether a name kept every file.
    scanned_files: usize,
    unreadable_files: usize,
    every_file_kept: bool,
}

/// The names a find looks for before resolution.
pub fn query_names(arguments: &FindArguments, position: Option<&ResolvedPosition>) -> Vec<WantedName> {
    let last_segment = |text: &str| segments(text).pop().filter(|segment| !segment.trim().is_empty());
    let named =
        |name: Option<String>, exact: bool| name.map(|name| WantedName { name, exact }).into_iter().collect::<Vec<_>>();
    match effective_kind(arguments) {
        FindKind::Position => named(position.and_then(|position| position.name.clone()), true),
        FindKind::Field => {
            let field = arguments.field.clone().or_else(|| arguments.query.as_deref().and_then(last_segment));
            named(field, arguments.exact)
        }
        FindKind::Members => match &arguments.member {
            Some(member) => named(Some(member.clone()), arguments.exact),
            // The members of a type: its declaring files and extensions name the type.
            None => named(arguments.query.as_deref().and_then(last_segment), true),
        },
        _ => named(arguments.query.as_deref().and_then(last_segment), arguments.exact),
    }
}

/// Indexes `paths` (read through `overlay`) on a blocking task.
pub async fn index_paths(index: &Arc<SyntaxIndex>, overlay: &Overlay, paths: Vec<PathBuf>) -> Result<(), CommandError> {
    let (index, overlay) = (index.clone(), overlay.clone());
    crate::commands::run_blocking(move || {
        index.index_paths(&paths, &overlay);
        Ok(())
    })
    .await
}

/// Scans the workspace's files for `names`, indexes the files that hold one (and `always`,
/// kind position's file), and says which they are.
pub async fn search(
    index: &Arc<SyntaxIndex>,
    overlay: &Overlay,
    workspace: Vec<PathBuf>,
    names: Vec<WantedName>,
    always: Option<&Path>,
) -> Result<SearchedFiles, CommandError> {
    let in_workspace: HashSet<PathBuf> = workspace.iter().cloned().collect();
    let workspace = Arc::new(workspace);
    let mut searched = SearchedFiles {
        workspace: workspace.clone(),
        in_workspace,
        candidates: Vec::new(),
        names: Vec::new(),
        holding: None,
        narrowed_out: None,
        scanned_files: 0,
        unreadable_files: 0,
        every_file_kept: false,
    };
    // Nothing to look for (a position on no identifier): only the position's file.
    if !names.is_empty() {
        searched.scan_round(index, overlay, workspace, names).await?;
    }
    if let Some(path) = always {
        searched.include_files(index, overlay, [path.to_path_buf()]).await?;
    }
    Ok(searched)
}

/// [`search`] for a qualified name (`A.B.f`, see `narrowing`): the files holding `f` are
/// found, and only those whose bytes also hold every qualifier segment (the files that can
/// declare it) are indexed; [`SearchedFiles::narrow_to_users`] adds the files that can use
/// what resolution found.
pub async fn search_qualified(
    index: &Arc<SyntaxIndex>,
    overlay: &Overlay,
    workspace: Vec<PathBuf>,
    names: Vec<WantedName>,
    qualifier: Vec<String>,
) -> Result<SearchedFiles, CommandError> {
    let in_workspace: HashSet<PathBuf> = workspace.iter().cloned().collect();
    let workspace = Arc::new(workspace);
    let (index, overlay, paths, wanted) = (index.clone(), overlay.clone(), workspace.clone(), names.clone());
    let (scanned, declaring, holding) = crate::commands::run_blocking(move || {
        let workers = index.options().worker_count(paths.len());
        // One read of each file: whether it holds the name, and which qualifier segments.
        let (scanned, masks) = crate::syntax::prefilter::NamePrefilter::for_names(&wanted)
            .candidates_holding(&paths, &overlay, workers, &qualifier);
        let every = if qualifier.len() >= 64 { u64::MAX } else { (1u64 << qualifier.len()) - 1 };
        let (mut declaring, mut holding) = (Vec::new(), Vec::new());
        for (path, mask) in scanned.candidates.iter().zip(masks) {
            if mask & every == every { declaring.push(path.clone()) } else { holding.push(path.clone()) }
        }
        index.index_paths(&declaring, &overlay);
        Ok((scanned, declaring, holding))
    })
    .await?;
    let mut searched = SearchedFiles {
        workspace,
        in_workspace,
        candidates: Vec::new(),
        names,
        holding: Some(holding),
        narrowed_out: None,
        scanned_files: scanned.scanned_files,
        unreadable_files: scanned.unreadable,
        every_file_kept: scanned.kept_every_file,
    };
    searched.add(declaring);
    Ok(searched)
}

impl SearchedFiles {
    /// A qualified find after resolution: indexes the files holding the name that can use one
    /// of `declared` (see `narrowing`) and counts the others. A syntactic site names its
    /// symbol when one declaration in the workspace has its name; files left unread may declare
    /// it, so the narrowing holds only when the files read already declare every name twice
    /// or more (under different full names). Otherwise every file holding the name is read,
    /// as an unqualified find does.
    pub async fn narrow_to_users(
        &mut self,
        index: &Arc<SyntaxIndex>,
        overlay: &Overlay,
        model: &WorkspaceModel,
        declared: &[Declared],
    ) -> Result<(), CommandError> {
        let Some(holding) = self.holding.take() else { return Ok(()) };
        let (index, overlay, model, workspace) =
            (index.clone(), overlay.clone(), model.clone(), self.workspace.clone());
        // The files read to resolve that declare none of `declared` are users like any other.
        let declaring: HashSet<PathBuf> = declared.iter().map(|declaration| declaration.path.clone()).collect();
        let (kept, mut pool): (Vec<PathBuf>, Vec<PathBuf>) =
            std::mem::take(&mut self.candidates).into_iter().partition(|path| declaring.contains(path));
        // Only the files holding the name that resolution did not read need indexing.
        let unindexed: HashSet<PathBuf> = holding.iter().cloned().collect();
        pool.extend(holding);
        let declared = declared.to_vec();
        let total = pool.len();
        let read = kept.clone();
        let (users, narrowed) = crate::commands::run_blocking(move || {
            let names: HashSet<&str> = declared.iter().map(Declared::name).collect();
            let ambiguous_in = |files: &[PathBuf]| {
                names.iter().all(|name| {
                    let full_names: HashSet<String> =
                        index.find_declarations_in(name, files).into_iter().map(|hit| hit.full_name).collect();
                    full_names.len() >= 2
                })
            };
            // Nothing resolved (the declaring file's index may have lost it in an error region):
            // no file can be ruled out, so every file holding the name is read.
            if declared.is_empty() {
                index.index_paths(&pool, &overlay);
                return Ok((pool, false));
            }
            // Every file is indexed already and even all of them declare a name once: the
            // narrowing cannot hold, whichever files can use the symbol.
            if unindexed.is_empty() {
                let mut all = read.clone();
                all.extend(pool.iter().cloned());
                all.sort();
                if !ambiguous_in(&all) {
                    return Ok((pool, false));
                }
            }
            let mut users = crate::commands::find::phases::narrowing::files_that_can_use(
                &index, &overlay, &model, &workspace, &declared, &pool,
            );
            let not_indexed = |paths: &[PathBuf]| -> Vec<PathBuf> {
                paths.iter().filter(|path| unindexed.contains(*path)).cloned().collect()
            };
            index.index_paths(&not_indexed(&users), &overlay);
            let mut read = read;
            read.extend(users.iter().cloned());
            read.sort();
            let ambiguous = ambiguous_in(&read);
            if !ambiguous {
                let read: HashSet<&PathBuf> = users.iter().collect();
                let rest: Vec<PathBuf> = not_indexed(&pool).into_iter().filter(|path| !read.contains(path)).collect();
                index.index_paths(&rest, &overlay);
                users = pool;
            }
            Ok((users, ambiguous))
        })
        .await?;
        self.narrowed_out = narrowed.then(|| total - users.len());
        self.add(kept);
        self.add(users);
        Ok(())
    }

    /// Files holding the name that this find left unread because they cannot use it.
    pub fn narrowed_out(&self) -> usize {
        self.narrowed_out.unwrap_or(0)
    }

    /// `filesSearched` as it stands.
    pub fn account(&self) -> FilesSearched {
        FilesSearched {
            workspace_files: self.workspace.len(),
            scanned_files: self.scanned_files,
            candidate_files: self.candidates.len(),
            unreadable_files: self.unreadable_files,
            every_file_kept: self.every_file_kept,
            cannot_use_files: self.narrowed_out,
            names: self.names.iter().take(NAMES_LISTED).map(|name| name.name.clone()).collect(),
            names_omitted: self.names.len().saturating_sub(NAMES_LISTED),
        }
    }

    /// Looks for `names` the find has not looked for yet, in the files not read yet, and
    /// indexes those that hold one.
    pub async fn widen_to_names(
        &mut self,
        index: &Arc<SyntaxIndex>,
        overlay: &Overlay,
        names: impl IntoIterator<Item = String>,
    ) -> Result<(), CommandError> {
        let mut new_names: Vec<WantedName> = Vec::new();
        for name in names {
            let wanted = WantedName::exact(name);
            if !self.names.contains(&wanted) && !new_names.contains(&wanted) {
                new_names.push(wanted);
            }
        }
        if new_names.is_empty() || self.every_file_kept {
            return Ok(());
        }
        let known: HashSet<&PathBuf> = self.candidates.iter().collect();
        let unread: Vec<PathBuf> = self.workspace.iter().filter(|path| !known.contains(path)).cloned().collect();
        self.scan_round(index, overlay, Arc::new(unread), new_names).await
    }

    /// Indexes the workspace files among `paths` (files FSAC answered with, kind position's
    /// file) that are not candidates yet, and adds them.
    pub async fn include_files(
        &mut self,
        index: &Arc<SyntaxIndex>,
        overlay: &Overlay,
        paths: impl IntoIterator<Item = PathBuf>,
    ) -> Result<(), CommandError> {
        let known: HashSet<&PathBuf> = self.candidates.iter().collect();
        let new: Vec<PathBuf> =
            paths.into_iter().filter(|path| self.in_workspace.contains(path) && !known.contains(path)).collect();
        if new.is_empty() {
            return Ok(());
        }
        index_paths(index, overlay, new.clone()).await?;
        self.add(new);
        Ok(())
    }

    /// One scan of `paths` for `names`, the files that may hold one indexed on the same
    /// blocking task (`prefilter::index_files_holding`), and added.
    async fn scan_round(
        &mut self,
        index: &Arc<SyntaxIndex>,
        overlay: &Overlay,
        paths: Arc<Vec<PathBuf>>,
        names: Vec<WantedName>,
    ) -> Result<(), CommandError> {
        let (index, overlay, wanted) = (index.clone(), overlay.clone(), names.clone());
        let scanned = crate::commands::run_blocking(move || {
            Ok(crate::syntax::prefilter::index_files_holding(&index, &paths, &overlay, &wanted))
        })
        .await?;
        self.names.extend(names);
        self.scanned_files += scanned.scanned_files;
        self.unreadable_files += scanned.unreadable;
        self.every_file_kept |= scanned.kept_every_file;
        self.add(scanned.candidates);
        Ok(())
    }

    /// Adds files to the candidates, keeping them sorted and distinct.
    fn add(&mut self, paths: Vec<PathBuf>) {
        self.candidates.extend(paths);
        self.candidates.sort();
        self.candidates.dedup();
    }
}
