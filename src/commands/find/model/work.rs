//! How much comparing a find did, counted (not timed): declarations compared with
//! declarations (or with the compiler's locations), and paths resolved on disk to tell whether
//! two spellings name one file. A find whose work grows with the square of the declarations
//! that share its name shows it here at any size, on a busy machine too; the answer carries
//! the counts as `workCounts` when `FSLENS_FIND_COUNT_WORK` is set (the scale tests read them).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

/// Set (to anything) to add `workCounts` to a find's answer.
pub const COUNT_WORK_VARIABLE: &str = "FSLENS_FIND_COUNT_WORK";

/// The counters of one find, and the paths it resolved.
#[derive(Default)]
pub struct Work {
    declaration_comparisons: AtomicU64,
    paths_resolved: AtomicU64,
    /// Each path's canonical form (`None`: it cannot be resolved), looked up once per find.
    canonical: Mutex<HashMap<PathBuf, Option<PathBuf>>>,
}

/// A file as [`Work::file_key`] names it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileKey {
    OnDisk(PathBuf),
    Unresolved(PathBuf),
}

/// `workCounts`.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkCounts {
    /// Declarations compared with a declaration or a location, one pair at a time.
    pub declaration_comparisons: u64,
    /// Paths resolved on disk (`canonicalize`) to compare files.
    pub paths_resolved: u64,
}

impl Work {
    /// Counts `count` comparisons of a declaration with another declaration or a location.
    pub fn compared(&self, count: usize) {
        self.declaration_comparisons.fetch_add(count as u64, Ordering::Relaxed);
    }

    /// Do the two paths name one file? Equal spellings do; otherwise each path is resolved on
    /// disk once per find (symbolic links followed) and the results compared.
    pub fn same_file(&self, left: &Path, right: &Path) -> bool {
        if left == right {
            return true;
        }
        let (left, right) = (self.canonical(left), self.canonical(right));
        left.is_some() && left == right
    }

    /// A key equal for two paths exactly when [`Work::same_file`] says they name one file:
    /// the file on disk when the path resolves, else the path as written. Lookups by this key
    /// replace comparing every path with every other.
    pub fn file_key(&self, path: &Path) -> FileKey {
        match self.canonical(path) {
            Some(resolved) => FileKey::OnDisk(resolved),
            None => FileKey::Unresolved(path.to_path_buf()),
        }
    }

    fn canonical(&self, path: &Path) -> Option<PathBuf> {
        let mut known = self.canonical.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(found) = known.get(path) {
            return found.clone();
        }
        self.paths_resolved.fetch_add(1, Ordering::Relaxed);
        let resolved = path.canonicalize().ok();
        known.insert(path.to_path_buf(), resolved.clone());
        resolved
    }

    /// The counts so far, when the environment asks for them.
    pub fn counts_if_asked(&self) -> Option<WorkCounts> {
        std::env::var_os(COUNT_WORK_VARIABLE).map(|_| self.counts())
    }

    pub fn counts(&self) -> WorkCounts {
        WorkCounts {
            declaration_comparisons: self.declaration_comparisons.load(Ordering::Relaxed),
            paths_resolved: self.paths_resolved.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_resolved_once_and_links_name_their_target() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("A.fs");
        std::fs::write(&file, "module A\n").unwrap();
        let link = directory.path().join("B.fs");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let missing = directory.path().join("Missing.fs");
        let work = Work::default();
        assert!(work.same_file(&file, &file));
        assert!(work.same_file(&file, &link));
        assert!(work.same_file(&link, &file));
        assert!(!work.same_file(&file, &missing));
        assert!(!work.same_file(&missing, &directory.path().join("Other.fs")));
        assert_eq!(work.counts().paths_resolved, 4);
        for (left, right) in [(&file, &link), (&file, &missing), (&missing, &missing), (&link, &link)] {
            assert_eq!(work.file_key(left) == work.file_key(right), work.same_file(left, right), "{left:?} {right:?}");
        }
        assert_eq!(work.counts().paths_resolved, 4);
    }
}
