//! The verdict a find's ledger reaches: per project, what was swept, and from that the answer's
//! outcome, status and notes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::commands::blocking::BlockingReason;
use crate::commands::find::model::answer::{Outcome, ProjectRow, ProjectStatus, Status};
use crate::syntax::model::Position;

/// What the find established.
pub struct Verdict {
    pub per_project: Vec<ProjectRow>,
    /// Requested projects per `perProject` status.
    pub counts: BTreeMap<ProjectStatus, usize>,
    pub requested: usize,
    pub analyzed: usize,
    /// The workspace has no project: the shared `no_projects` reason.
    pub no_projects: Option<BlockingReason>,
    /// FSAC swept every requested project (the workspace has one).
    pub swept_complete: bool,
    /// Slots in `declared` of the declarations no references answer contained.
    pub missed: Vec<usize>,
    /// Slots in `declared` of the declarations the backend reported that the index could not
    /// confirm (`crossCheck.unconfirmedByIndex`).
    pub unconfirmed: Vec<usize>,
    /// Swept completely, nothing missed and nothing unconfirmed.
    pub coverage_complete: bool,
    /// Every resolver that was asked answered.
    pub resolution_answered: bool,
    pub outcome: Outcome,
    pub status: Status,
    pub matched: Option<bool>,
    /// What the answer could not establish, in words (after resolution's own notes).
    pub notes: Vec<String>,
    /// Each requested project FSAC could not load, and its remedy (`perProject[].remedy`).
    pub failed_remedies: Vec<(String, String)>,
    /// With nothing found: the files read that the grammar could not read whole and that hold
    /// the name, each with its first occurrence (none for a substring query) (`resolution.degradedFilesHoldingName`); one
    /// keeps the answer from being `not_found`.
    pub degraded_holders: Vec<(PathBuf, Option<Position>)>,
}

impl Verdict {
    /// The number of requested projects with this `perProject` status.
    pub fn count(&self, status: ProjectStatus) -> usize {
        self.counts.get(&status).copied().unwrap_or(0)
    }

    /// Whether the deadline cut the sweep short: with FSAC ready, a requested project timed
    /// out, was busy or was never started. Such an answer cannot be paged by cursor (another
    /// call may sweep more); every other answer can, partial or not.
    pub fn deadline_cut_sweep(&self, fsac_ready: bool) -> bool {
        fsac_ready
            && [ProjectStatus::TimedOut, ProjectStatus::Busy, ProjectStatus::NotStarted]
                .into_iter()
                .any(|status| self.count(status) > 0)
    }
}
