//! Session sharing: a running proxy listens on a Unix socket so that other clients (the MCP
//! bridge, CLI commands) join its warm FSAC instead of starting their own.
//!
//! The socket lives in `$XDG_RUNTIME_DIR/fslens/` or else `/tmp/fslens-<uid>/`, named from the
//! SHA-256 of the canonical workspace root. The directory must be ours, a real directory and
//! closed to group and others (0700); the socket is 0600; every connection's peer uid is
//! checked. Nothing said over the socket can choose a program, a workspace or an environment.
//!
//! The socket and the ownership checks are Unix's (`server`, and the private directory below):
//! elsewhere `server` is `unsupported.rs`, the same interface with no socket, whose `bind` says
//! so with a typed error (docs/platforms.md).

#[cfg(unix)]
pub mod server;
#[cfg(not(unix))]
#[path = "unsupported.rs"]
pub mod server;

use std::io;
#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Why the runtime directory or socket cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SessionPathError {
    #[error("session directory {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("session directory {path} is a symbolic link; refusing to use it")]
    Symlink { path: PathBuf },
    #[error("session directory {path} is not a directory")]
    NotADirectory { path: PathBuf },
    #[error("session directory {path} belongs to uid {owner}, not to this user (uid {uid})")]
    WrongOwner { path: PathBuf, owner: u32, uid: u32 },
    #[error("session directory {path} has mode {mode:o}; group and others must have no access (0700)")]
    TooOpen { path: PathBuf, mode: u32 },
}

/// This process's real user id.
#[cfg(unix)]
pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// The directory that holds session sockets, chosen from the environment given.
pub fn runtime_directory(xdg_runtime_dir: Option<&std::ffi::OsStr>) -> PathBuf {
    match xdg_runtime_dir.filter(|value| !value.is_empty()) {
        Some(runtime) => Path::new(runtime).join("fslens"),
        #[cfg(unix)]
        None => std::env::temp_dir().join(format!("fslens-{}", current_uid())),
        // No user id to name it by; nothing is bound there (server::bind is unsupported).
        #[cfg(not(unix))]
        None => std::env::temp_dir().join("fslens"),
    }
}

/// The socket path for a workspace root (canonicalized by the caller).
pub fn socket_path(directory: &Path, canonical_root: &Path) -> PathBuf {
    let digest = Sha256::digest(canonical_root.as_os_str().as_encoded_bytes());
    let name: String = digest.iter().take(16).map(|byte| format!("{byte:02x}")).collect();
    directory.join(format!("{name}.sock"))
}

/// Creates the session directory (0700) or checks an existing one: a real directory, owned by
/// this user, with no group or other access.
#[cfg(unix)]
pub fn ensure_private_directory(path: &Path) -> Result<(), SessionPathError> {
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(source) => return Err(SessionPathError::Io { path: path.to_owned(), source }),
    }
    check_private_directory(path)
}

/// Checks that `path` is a private directory of this user, without creating anything.
#[cfg(unix)]
pub fn check_private_directory(path: &Path) -> Result<(), SessionPathError> {
    let metadata =
        std::fs::symlink_metadata(path).map_err(|source| SessionPathError::Io { path: path.to_owned(), source })?;
    if metadata.file_type().is_symlink() {
        return Err(SessionPathError::Symlink { path: path.to_owned() });
    }
    if !metadata.is_dir() {
        return Err(SessionPathError::NotADirectory { path: path.to_owned() });
    }
    let uid = current_uid();
    if metadata.uid() != uid {
        return Err(SessionPathError::WrongOwner { path: path.to_owned(), owner: metadata.uid(), uid });
    }
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(SessionPathError::TooOpen { path: path.to_owned(), mode });
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn socket_names_depend_only_on_the_root() {
        let directory = Path::new("/run/user/1/fslens");
        let a = socket_path(directory, Path::new("/w/a"));
        assert_eq!(a, socket_path(directory, Path::new("/w/a")));
        assert_ne!(a, socket_path(directory, Path::new("/w/b")));
        assert_eq!(a.extension().unwrap(), "sock");
        assert_eq!(a.file_name().unwrap().len(), 37);
        assert_eq!(runtime_directory(Some("/run/user/1".as_ref())), PathBuf::from("/run/user/1/fslens"));
        assert!(runtime_directory(None).to_string_lossy().contains(&format!("fslens-{}", current_uid())));
    }

    #[test]
    fn refuses_symlinked_open_and_foreign_directories() {
        let temporary = tempfile::tempdir().unwrap();
        let private = temporary.path().join("private");
        ensure_private_directory(&private).unwrap();
        assert_eq!(std::fs::metadata(&private).unwrap().permissions().mode() & 0o777, 0o700);

        let open = temporary.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o770)).unwrap();
        assert!(matches!(ensure_private_directory(&open), Err(SessionPathError::TooOpen { mode: 0o770, .. })));

        let link = temporary.path().join("link");
        std::os::unix::fs::symlink(&private, &link).unwrap();
        assert!(matches!(ensure_private_directory(&link), Err(SessionPathError::Symlink { .. })));

        let file = temporary.path().join("file");
        std::fs::write(&file, "").unwrap();
        assert!(matches!(ensure_private_directory(&file), Err(SessionPathError::NotADirectory { .. })));
    }
}
