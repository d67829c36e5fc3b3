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

use serde::Serialize;

use crate::commands::CommandError;
use crate::commands::find::resolve::{effective_kind, identifier_at, segments};
use crate::commands::find::{FindArguments, FindKind, ResolvedPosition};
use crate::syntax::prefilter::{NamePrefilter, Prefiltered, WantedName};
use crate::syntax::{Overlay, SyntaxIndex};

/// The workspace's files and the ones this find reads.
pub(super) struct SearchedFiles {
    /// Every file of the workspace the index covers, in the model's order.
    pub workspace: Arc<Vec<PathBuf>>,
    /// The same files, for membership.
    pub in_workspace: HashSet<PathBuf>,
    /// The files indexed for this find, sorted by path.
    pub candidates: Vec<PathBuf>,
    /// The names scanned for so far.
    pub names: Vec<WantedName>,
    pub account: FilesSearched,
}

/// `filesSearched`: how many files the byte scan read and how many it kept.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilesSearched {
    /// Files of the workspace the syntax index covers.
    pub workspace_files: usize,
    /// Files whose bytes were scanned for the names.
    pub scanned_files: usize,
    /// Files indexed and read for this find: those holding a name, and the files FSAC
    /// answered with.
    pub candidate_files: usize,
    /// Files that could not be read (kept as candidates; their index says why).
    pub unreadable_files: usize,
    /// True when a name no byte scan can decide (a case-insensitive non-ASCII name, an
    /// operator by substring) made every file a candidate.
    pub every_file_kept: bool,
    /// The names scanned for (the first [`NAMES_LISTED`]).
    pub names: Vec<String>,
    /// How many more names were scanned for than `names` lists.
    #[serde(skip_serializing_if = "is_zero")]
    pub names_omitted: usize,
}

/// At most this many names are listed in `filesSearched.names` (a substring query may
/// resolve to hundreds of names, and the list must not take the page's room).
const NAMES_LISTED: usize = 10;

fn is_zero(count: &usize) -> bool {
    *count == 0
}

impl FilesSearched {
    fn list_names<'a>(&mut self, names: impl IntoIterator<Item = &'a WantedName>) {
        for name in names {
            if self.names.len() < NAMES_LISTED {
                self.names.push(name.name.clone());
            } else {
                self.names_omitted += 1;
            }
        }
    }
}

/// The names a find looks for before resolution.
pub(super) fn query_names(arguments: &FindArguments, position: Option<&ResolvedPosition>) -> Vec<WantedName> {
    let last_segment = |text: &str| segments(text).pop().filter(|segment| !segment.trim().is_empty());
    let named =
        |name: Option<String>, exact: bool| name.map(|name| WantedName { name, exact }).into_iter().collect::<Vec<_>>();
    match effective_kind(arguments) {
        FindKind::Position => {
            let Some(position) = position else { return Vec::new() };
            let line = position.text.lines().nth(position.line as usize).unwrap_or("");
            named(identifier_at(line, position.character).or(position.word.clone()), true)
        }
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

/// Scans the workspace's files for `names`, indexes the files that hold one (and `always`,
/// kind position's file), and says which they are.
pub(super) async fn search(
    index: &Arc<SyntaxIndex>,
    overlay: &Overlay,
    workspace: Vec<PathBuf>,
    names: Vec<WantedName>,
    always: Option<&Path>,
) -> Result<SearchedFiles, CommandError> {
    let in_workspace: HashSet<PathBuf> = workspace.iter().cloned().collect();
    let workspace = Arc::new(workspace);
    // Nothing to look for (a position on no identifier): only the position's file.
    let scanned =
        if names.is_empty() { Prefiltered::default() } else { scan(index, overlay, workspace.clone(), &names).await? };
    let mut searched = SearchedFiles {
        account: FilesSearched {
            workspace_files: workspace.len(),
            every_file_kept: scanned.kept_every_file,
            ..FilesSearched::default()
        },
        workspace,
        in_workspace,
        candidates: Vec::new(),
        names,
    };
    searched.account.list_names(&searched.names);
    searched.absorb_scan(&scanned);
    let mut found = scanned.candidates;
    if let Some(path) = always.filter(|path| searched.in_workspace.contains(*path)) {
        found.push(path.to_path_buf());
    }
    searched.index_and_add(index, overlay, found).await?;
    Ok(searched)
}

impl SearchedFiles {
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
        if new_names.is_empty() || self.account.every_file_kept {
            return Ok(());
        }
        let known: HashSet<&PathBuf> = self.candidates.iter().collect();
        let unread: Vec<PathBuf> = self.workspace.iter().filter(|path| !known.contains(path)).cloned().collect();
        let scanned = scan(index, overlay, Arc::new(unread), &new_names).await?;
        self.account.every_file_kept |= scanned.kept_every_file;
        self.account.list_names(&new_names);
        self.names.extend(new_names);
        self.absorb_scan(&scanned);
        self.index_and_add(index, overlay, scanned.candidates).await
    }

    /// Indexes the workspace files among `paths` (files FSAC answered with) that are not
    /// candidates yet, and adds them.
    pub async fn include_files(
        &mut self,
        index: &Arc<SyntaxIndex>,
        overlay: &Overlay,
        paths: impl IntoIterator<Item = PathBuf>,
    ) -> Result<(), CommandError> {
        let in_workspace = paths.into_iter().filter(|path| self.in_workspace.contains(path)).collect();
        self.index_and_add(index, overlay, in_workspace).await
    }

    fn absorb_scan(&mut self, scanned: &Prefiltered) {
        self.account.scanned_files += scanned.scanned_files;
        self.account.unreadable_files += scanned.unreadable;
    }

    /// Indexes the paths that are not candidates yet and adds them, keeping the list sorted.
    async fn index_and_add(
        &mut self,
        index: &Arc<SyntaxIndex>,
        overlay: &Overlay,
        mut paths: Vec<PathBuf>,
    ) -> Result<(), CommandError> {
        let known: HashSet<&PathBuf> = self.candidates.iter().collect();
        paths.retain(|path| !known.contains(path));
        paths.sort();
        paths.dedup();
        if paths.is_empty() {
            return Ok(());
        }
        {
            let (index, overlay, paths) = (index.clone(), overlay.clone(), paths.clone());
            crate::commands::run_blocking(move || {
                index.index_paths(&paths, &overlay);
                Ok(())
            })
            .await?;
        }
        self.candidates.extend(paths);
        self.candidates.sort();
        self.account.candidate_files = self.candidates.len();
        Ok(())
    }
}

/// The byte scan of `paths` for `names` on the index's worker count, off the routing thread.
async fn scan(
    index: &Arc<SyntaxIndex>,
    overlay: &Overlay,
    paths: Arc<Vec<PathBuf>>,
    names: &[WantedName],
) -> Result<Prefiltered, CommandError> {
    let prefilter = NamePrefilter::for_names(names);
    let workers = index.options().worker_count(paths.len());
    let overlay = overlay.clone();
    crate::commands::run_blocking(move || Ok(prefilter.candidates(&paths, &overlay, workers))).await
}
