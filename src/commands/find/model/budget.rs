//! The memory budget for a find's sites, and the segments it cuts the stream into.
//!
//! Sites are kept in canonical order (file, then position), so the stream can be cut at a file
//! boundary and resumed from the next file. A find holds at most [`SITE_BUDGET_BYTES`] of sites
//! (their estimated heap size, [`estimated_bytes`]); when a workspace has more, the find stops at
//! the last file that fits, answers with the rows of that *segment*, and its last page's cursor
//! resumes at the first file left (`siteBudget.resumesAtFile`), where the next request forms the
//! next segment under the same budget. Without FSAC the syntax layer's sites are collected file
//! by file, so nothing past the cut is ever materialised; with FSAC the sweep's locations are held
//! already (bounded by the frame limit), and their sites are formed file by file the same way.

use serde::Serialize;

use crate::commands::find::model::rows::Site;

/// What a find may hold for its sites: 64 MiB, whatever the workspace.
pub const SITE_BUDGET_BYTES: usize = 64 << 20;
/// Overrides [`SITE_BUDGET_BYTES`] (bytes): for tests that need a small budget on a small fixture.
pub const SITE_BUDGET_VARIABLE: &str = "FSLENS_FIND_SITE_BUDGET_BYTES";

/// The budget in force: the variable's value when it is a positive number, else the default.
pub fn site_budget_bytes() -> usize {
    std::env::var(SITE_BUDGET_VARIABLE)
        .ok()
        .and_then(|value| value.trim().parse::<usize>().ok())
        .filter(|bytes| *bytes > 0)
        .unwrap_or(SITE_BUDGET_BYTES)
}

/// A site's estimated heap share: the struct and the strings it owns (the shared candidate list
/// of an ambiguous name is counted once per name, not per site).
pub fn estimated_bytes(site: &Site) -> usize {
    std::mem::size_of::<Site>()
        + site.file.len()
        + site.symbol_full_name.as_ref().map_or(0, String::len)
        + site.project.as_ref().map_or(0, String::len)
}

/// `siteBudget`: where the budget cut the stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetStop {
    pub budget_bytes: usize,
    /// Estimated bytes of the sites this segment holds.
    pub held_bytes: usize,
    /// The first file whose sites are not in this segment: the last page's cursor resumes there.
    pub resumes_at_file: String,
    /// Files from `resumesAtFile` on that may hold sites (their occurrences were not formed).
    pub files_left: usize,
}

/// The segment a find forms: files from `from_file` (a resume cursor's) on, until the budget.
pub struct Segment {
    budget_bytes: usize,
    from_file: Option<String>,
    held_bytes: usize,
    sites: Vec<Site>,
    stop: Option<BudgetStop>,
}

impl Segment {
    pub fn new(budget_bytes: usize, from_file: Option<String>) -> Segment {
        Segment { budget_bytes, from_file, held_bytes: 0, sites: Vec::new(), stop: None }
    }

    /// Whether the file (display path) is before the segment's first file.
    pub fn before_start(&self, file: &str) -> bool {
        self.from_file.as_deref().is_some_and(|from| file < from)
    }

    pub fn stopped(&self) -> bool {
        self.stop.is_some()
    }

    /// Offers one file's sites (sorted, de-duplicated). Taken while the budget holds, and always
    /// when the segment is empty (a segment makes progress by at least one file); else the
    /// segment stops here, `files_left` counting this file and the ones the caller still has.
    pub fn offer_file(&mut self, file: &str, sites: Vec<Site>, files_after: usize) {
        if self.stop.is_some() || sites.is_empty() || self.before_start(file) {
            return;
        }
        let bytes: usize = sites.iter().map(estimated_bytes).sum();
        if !self.sites.is_empty() && self.held_bytes + bytes > self.budget_bytes {
            self.stop = Some(BudgetStop {
                budget_bytes: self.budget_bytes,
                held_bytes: self.held_bytes,
                resumes_at_file: file.to_owned(),
                files_left: 1 + files_after,
            });
            return;
        }
        self.held_bytes += bytes;
        self.sites.extend(sites);
    }

    pub fn finish(self) -> (Vec<Site>, Option<BudgetStop>) {
        (self.sites, self.stop)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::syntax::model::{Position, TextRange};

    /// Cuts sorted, de-duplicated sites into the segment, one file at a time.
    fn segment_of_sorted(sites: Vec<Site>, segment: Segment) -> (Vec<Site>, Option<BudgetStop>) {
        let mut by_file: BTreeMap<String, Vec<Site>> = BTreeMap::new();
        for site in sites {
            by_file.entry(site.file.clone()).or_default().push(site);
        }
        let mut segment = segment;
        let mut left = by_file.len();
        for (file, file_sites) in by_file {
            left -= 1;
            segment.offer_file(&file, file_sites, left);
            if segment.stopped() {
                break;
            }
        }
        segment.finish()
    }

    fn site(file: &str, line: u32) -> Site {
        let start = Position { line, character: 0 };
        Site {
            file: file.to_owned(),
            range: TextRange { start, end: Position { line, character: 3 } },
            kind: crate::commands::find::model::rows::SiteKind::Reference,
            symbol_full_name: Some("M.x".into()),
            symbol_kind: None,
            symbol_candidates: std::sync::Arc::default(),
            project: None,
            via: crate::commands::find::model::rows::SiteVia::Syntax,
            condition: None,
        }
    }

    #[test]
    fn the_budget_cuts_at_a_file_boundary_and_a_resume_starts_at_the_cut() {
        let one = estimated_bytes(&site("a.fs", 0));
        let sites = vec![site("a.fs", 0), site("a.fs", 1), site("b.fs", 0), site("b.fs", 1), site("c.fs", 0)];
        // Room for three sites: a.fs fits, b.fs would pass the budget.
        let (kept, stop) = segment_of_sorted(sites.clone(), Segment::new(3 * one, None));
        assert_eq!(kept.len(), 2);
        let stop = stop.expect("stopped");
        assert_eq!((stop.resumes_at_file.as_str(), stop.files_left, stop.held_bytes), ("b.fs", 2, 2 * one));
        // The resumed segment starts at b.fs and takes the rest.
        let (kept, stop) = segment_of_sorted(sites.clone(), Segment::new(3 * one, Some("b.fs".into())));
        assert_eq!(kept.iter().map(|site| site.file.as_str()).collect::<Vec<_>>(), ["b.fs", "b.fs", "c.fs"]);
        assert_eq!(stop, None);
        // A file larger than the whole budget is still taken when it comes first.
        let (kept, stop) = segment_of_sorted(sites, Segment::new(1, None));
        assert_eq!((kept.len(), stop.map(|stop| stop.resumes_at_file)), (2, Some("b.fs".to_owned())));
    }
}
