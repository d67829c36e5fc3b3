//! The workspace snapshot: the whole syntax index of one workspace root in one cache file,
//! so a new process starts warm with one read and one `stat` per file instead of reading,
//! hashing and looking up every file's cache entry.
//!
//! A snapshot holds the interner's names once and, per file indexed from disk, its path, the
//! [`DiskStamp`] of the text it was built from and its [`FileIndex`] numbered against those
//! names. Loading puts every entry in the index as if this process had read it; the index's
//! own stamp rule then decides per file (see `SyntaxIndex::index_one`): a file whose size and
//! modification time are those of the snapshot, and were settled when it was read, is kept
//! without reading it, any other is read again (and looked up in the per-content cache). So a
//! snapshot is trusted exactly as far as a refresh within one session trusts its own stamps.
//!
//! Snapshots live in the versioned cache directory (`workspaces/<sha256 of the root>.snapshot`),
//! carry their own format number and the root they describe, and are written to a temporary
//! name and renamed into place. A missing, unreadable, foreign or stale-format snapshot is
//! ignored: it only ever saves work, it never changes an answer.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::syntax::cache::{to_hex, write_atomically};
use crate::syntax::index::DiskStamp;
use crate::syntax::model::{FileIndex, INDEX_FORMAT_VERSION};
use crate::syntax::parse::GRAMMAR_VERSION;

/// Bumped whenever the layout below changes (the index format has its own number).
const SNAPSHOT_FORMAT: u32 = 1;
const MAGIC: &str = "fslens-workspace-snapshot";

/// What identifies a snapshot as one this build can read for this root.
#[derive(Serialize, Deserialize, PartialEq, Eq)]
struct Header {
    magic: String,
    snapshot_format: u32,
    index_format: u32,
    grammar: String,
    root: String,
}

/// The root as snapshots name it: absolute and lexically normal, so `.`, `./ws/` and the
/// absolute path of one workspace share one snapshot.
fn normal_root(root: &Path) -> PathBuf {
    crate::workspace::paths::normalize_lexically(&std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf()))
}

impl Header {
    fn for_root(root: &Path) -> Option<Header> {
        let root = normal_root(root);
        Some(Header {
            magic: MAGIC.to_owned(),
            snapshot_format: SNAPSHOT_FORMAT,
            index_format: INDEX_FORMAT_VERSION,
            grammar: GRAMMAR_VERSION.to_owned(),
            root: root.to_str()?.to_owned(),
        })
    }
}

/// One file of a snapshot as written (borrowed from the live index).
#[derive(Serialize)]
pub struct SnapshotFileRef<'a> {
    pub path: &'a str,
    pub stamp: DiskStamp,
    pub index: &'a FileIndex,
}

/// One file of a snapshot as read back.
#[derive(Deserialize)]
pub struct SnapshotFile {
    pub path: PathBuf,
    pub stamp: DiskStamp,
    pub index: FileIndex,
}

#[derive(Serialize)]
struct SnapshotRef<'a> {
    header: Header,
    names: &'a [Arc<str>],
    files: &'a [SnapshotFileRef<'a>],
}

/// A snapshot read back: names in the snapshot's own numbering, and the files.
pub struct LoadedSnapshot {
    pub names: Vec<String>,
    pub files: Vec<SnapshotFile>,
    pub bytes: usize,
}

/// Where the snapshot of `root` lives under the cache directory `directory`.
pub fn snapshot_path(directory: &Path, root: &Path) -> PathBuf {
    let digest = Sha256::digest(normal_root(root).as_os_str().as_encoded_bytes());
    directory.join("workspaces").join(format!("{}.snapshot", to_hex(&digest)))
}

/// Reads the snapshot of `root`, or `None` when there is none this build can use.
pub fn load(directory: &Path, root: &Path) -> Option<LoadedSnapshot> {
    let bytes = fs::read(snapshot_path(directory, root)).ok()?;
    // The header is read first, and a foreign or stale one ends it there: a snapshot of another
    // format is never decoded as this one (postcard writes the fields one after another).
    let (header, rest) = postcard::take_from_bytes::<Header>(&bytes).ok()?;
    if Some(&header) != Header::for_root(root).as_ref() {
        return None;
    }
    let (names, rest) = postcard::take_from_bytes::<Vec<String>>(rest).ok()?;
    let (files, rest) = postcard::take_from_bytes::<Vec<SnapshotFile>>(rest).ok()?;
    rest.is_empty().then_some(LoadedSnapshot { names, files, bytes: bytes.len() })
}

/// Writes the snapshot of `root` atomically; returns its size in bytes. `names` is the
/// interner's table the files' ids point into.
pub fn store(
    directory: &Path,
    root: &Path,
    names: &[Arc<str>],
    files: &[SnapshotFileRef<'_>],
) -> anyhow::Result<usize> {
    let header = Header::for_root(root).context("the workspace root is not valid UTF-8")?;
    let bytes = postcard::to_stdvec(&SnapshotRef { header, names, files }).context("serializing the snapshot")?;
    write_atomically(&snapshot_path(directory, root), &bytes)?;
    Ok(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::model::{FileHealth, GrammarKind, HealthStatus};
    use std::time::SystemTime;

    fn one_file(directory: &Path, root: &Path) -> usize {
        let index = FileIndex::empty(
            GrammarKind::Implementation,
            [7; 32],
            3,
            1,
            FileHealth::failed(HealthStatus::Failed, "empty".into()),
        );
        let stamp = DiskStamp { len: 3, modified: SystemTime::UNIX_EPOCH, read_at: SystemTime::UNIX_EPOCH };
        let path = root.join("A.fs");
        let files = [SnapshotFileRef { path: path.to_str().unwrap(), stamp, index: &index }];
        store(directory, root, &[Arc::from("x")], &files).unwrap()
    }

    #[test]
    fn a_snapshot_reads_back_for_its_own_root_only() {
        let cache = tempfile::tempdir().unwrap();
        let (root, other) = (cache.path().join("ws"), cache.path().join("other"));
        let bytes = one_file(cache.path(), &root);
        let loaded = load(cache.path(), &root).expect("its own root reads it back");
        assert_eq!((loaded.names, loaded.files.len(), loaded.bytes), (vec!["x".to_owned()], 1, bytes));
        // The same bytes under another root's name: the header names the root, so it is refused.
        fs::create_dir_all(snapshot_path(cache.path(), &other).parent().unwrap()).unwrap();
        fs::copy(snapshot_path(cache.path(), &root), snapshot_path(cache.path(), &other)).unwrap();
        assert!(load(cache.path(), &other).is_none());
    }

    #[test]
    fn a_cut_short_or_extended_snapshot_is_ignored() {
        let cache = tempfile::tempdir().unwrap();
        let root = cache.path().join("ws");
        one_file(cache.path(), &root);
        let path = snapshot_path(cache.path(), &root);
        let whole = fs::read(&path).unwrap();
        fs::write(&path, &whole[..whole.len() - 1]).unwrap();
        assert!(load(cache.path(), &root).is_none(), "cut short");
        fs::write(&path, [whole.as_slice(), b"!"].concat()).unwrap();
        assert!(load(cache.path(), &root).is_none(), "bytes after the files");
        fs::write(&path, &whole).unwrap();
        assert!(load(cache.path(), &root).is_some());
    }
}
