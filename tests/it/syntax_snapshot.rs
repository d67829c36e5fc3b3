//! The workspace snapshot (`syntax::snapshot`): a new index of a workspace built before starts
//! from one file, keeps every file whose stamp is settled and unchanged without reading it,
//! reads again what changed, forgets what left the workspace, leaves editor buffers alone,
//! and ignores a snapshot it cannot use.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use fslens::syntax::cache::CacheSetting;
use fslens::syntax::snapshot::snapshot_path;
use fslens::syntax::{DeadlinePolicy, IndexOptions, Overlay, SyntaxIndex};

/// Writes `text` to `root/relative`, last modified an hour ago (a settled stamp).
fn write_settled(root: &Path, relative: &str, text: &str) -> PathBuf {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write");
    set_modified(&path, SystemTime::now() - Duration::from_secs(3600));
    path
}

fn set_modified(path: &Path, modified: SystemTime) {
    let file = std::fs::File::options().write(true).open(path).expect("open");
    file.set_modified(modified).expect("set mtime");
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path).expect("stat").modified().expect("mtime")
}

fn new_index(cache: &Path) -> SyntaxIndex {
    SyntaxIndex::new(IndexOptions {
        threads: 2,
        cache: CacheSetting::Directory(cache.to_path_buf()),
        deadline: DeadlinePolicy::default(),
    })
}

fn declared(index: &SyntaxIndex, path: &Path) -> Vec<String> {
    let file = index.file(path).expect("indexed");
    file.index.declarations.iter().map(|declaration| index.name(declaration.name).to_string()).collect()
}

struct Workspace {
    root: tempfile::TempDir,
    cache: tempfile::TempDir,
    files: Vec<PathBuf>,
}

fn workspace() -> Workspace {
    let root = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let files = vec![
        write_settled(
            root.path(),
            "src/A.fs",
            "module A\ntype R = { X: int; Y: int }\nlet make () = { X = 1; Y = 2 }\n",
        ),
        write_settled(root.path(), "src/B.fs", "module B\nlet bump (r: A.R) = { r with X = r.X + 1 }\n"),
        write_settled(root.path(), "src/C.fsi", "module C\nval hidden: int\n"),
    ];
    Workspace { root, cache, files }
}

#[test]
fn a_new_index_starts_from_the_snapshot_and_reads_only_what_changed() {
    let space = workspace();
    let root = space.root.path();
    let cold = new_index(space.cache.path());
    let first = cold.index_workspace(root, &space.files, &Overlay::new());
    assert_eq!((first.parsed, first.snapshot_files), (3, 0));

    // A new index: every entry comes from the snapshot, none from a per-file lookup.
    let warm = new_index(space.cache.path());
    let second = warm.index_workspace(root, &space.files, &Overlay::new());
    assert_eq!((second.snapshot_files, second.unchanged, second.parsed, second.cache_hits), (3, 3, 0, 0));
    let sites = |index: &SyntaxIndex| {
        let hits = index.find_field_sites("X");
        hits.iter().map(|hit| (hit.path.clone(), hit.site.start, hit.site.kind, hit.certain)).collect::<Vec<_>>()
    };
    assert!(!sites(&cold).is_empty());
    assert_eq!(sites(&warm), sites(&cold), "the snapshot's field sites answer as the parsed ones");
    assert_eq!(declared(&warm, &space.files[1]), ["B", "bump"]);

    // Same size, same settled time: trusted without reading, exactly as a refresh in one
    // session trusts its stamps (the snapshot still has the old text, which is how we know).
    let b = &space.files[1];
    let old_time = modified(b);
    std::fs::write(b, "module B\nlet bamp (r: A.R) = { r with X = r.X + 1 }\n").expect("write");
    set_modified(b, old_time);
    let trusted = new_index(space.cache.path());
    trusted.index_workspace(root, &space.files, &Overlay::new());
    assert_eq!(declared(&trusted, b), ["B", "bump"]);

    // A new modification time: read again, and the answer shows the new text.
    set_modified(b, old_time + Duration::from_secs(60));
    let after_edit = new_index(space.cache.path());
    let third = after_edit.index_workspace(root, &space.files, &Overlay::new());
    assert_eq!((third.snapshot_files, third.unchanged, third.parsed), (3, 2, 1));
    assert_eq!(declared(&after_edit, b), ["B", "bamp"]);

    // The edited file was written back to the snapshot: the next index keeps all three.
    let fourth = new_index(space.cache.path()).index_workspace(root, &space.files, &Overlay::new());
    assert_eq!((fourth.unchanged, fourth.parsed, fourth.cache_hits), (3, 0, 0));

    // A file that left the workspace is not in the index, though the snapshot has it.
    let fewer = new_index(space.cache.path());
    fewer.index_workspace(root, &space.files[..2], &Overlay::new());
    assert!(fewer.file(&space.files[2]).is_none());
    assert_eq!(fewer.file_count(), 2);
}

#[test]
fn the_snapshot_names_its_root_in_any_spelling_and_no_other() {
    let space = workspace();
    let root = space.root.path();
    new_index(space.cache.path()).index_workspace(root, &space.files, &Overlay::new());
    // The same root spelled with a trailing `.` shares the snapshot.
    let dotted = root.join(".");
    let same = new_index(space.cache.path()).index_workspace(&dotted, &space.files, &Overlay::new());
    assert_eq!(same.snapshot_files, 3);
    // Another root (here the directory holding the files) has no snapshot yet.
    let other = new_index(space.cache.path()).index_workspace(&root.join("src"), &space.files, &Overlay::new());
    assert_eq!((other.snapshot_files, other.cache_hits), (0, 3));
}

#[test]
fn an_unusable_snapshot_is_ignored_and_the_per_file_cache_answers() {
    let space = workspace();
    let root = space.root.path();
    let index = new_index(space.cache.path());
    index.index_workspace(root, &space.files, &Overlay::new());
    let directory = index.cache_directory().expect("cache on").to_path_buf();
    let path = snapshot_path(&directory, root);
    let bytes = std::fs::read(&path).expect("snapshot written");
    for broken in [b"not a snapshot at all".to_vec(), bytes[..bytes.len() / 2].to_vec()] {
        std::fs::write(&path, &broken).expect("break the snapshot");
        let fallback = new_index(space.cache.path());
        let stats = fallback.index_workspace(root, &space.files, &Overlay::new());
        assert_eq!((stats.snapshot_files, stats.cache_hits, stats.parsed), (0, 3, 0));
        assert_eq!(declared(&fallback, &space.files[0]), ["A", "R", "X", "Y", "make"]);
        // ... and the build wrote a good one again.
        let again = new_index(space.cache.path()).index_workspace(root, &space.files, &Overlay::new());
        assert_eq!(again.snapshot_files, 3);
    }
}

#[test]
fn editor_buffers_indexed_before_the_load_are_kept_and_never_written_to_the_snapshot() {
    let space = workspace();
    let root = space.root.path();
    new_index(space.cache.path()).index_workspace(root, &space.files, &Overlay::new());

    let index = new_index(space.cache.path());
    let mut overlay = Overlay::new();
    overlay.insert(space.files[0].clone(), "module A\nlet unsaved = 1\n");
    index.index_paths(std::slice::from_ref(&space.files[0]), &overlay);
    let stats = index.index_workspace(root, &space.files, &Overlay::new());
    assert_eq!(stats.snapshot_files, 2, "the buffer's file is not replaced by the snapshot's entry");
    assert_eq!(declared(&index, &space.files[0]), ["A", "unsaved"]);

    // Saving the snapshot (this build changed nothing on disk, so force one) leaves the
    // buffer out: a new index reads that file from the disk (its per-content cache entry).
    index.save_snapshot(root, &space.files).expect("save");
    let fresh = new_index(space.cache.path());
    let reloaded = fresh.index_workspace(root, &space.files, &Overlay::new());
    assert_eq!((reloaded.snapshot_files, reloaded.cache_hits), (2, 1));
    assert_eq!(declared(&fresh, &space.files[0]), ["A", "R", "X", "Y", "make"]);
}
