//! The session socket: binding (replacing stale sockets and anything else planted at its
//! path), accepting only this user's connections, and connecting as a client only to a real
//! socket served by this user.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

use crate::session::{SessionPathError, check_private_directory, current_uid, ensure_private_directory};

/// A connection on the session socket, either end.
pub type SessionStream = UnixStream;
/// The reading half of a [`SessionStream`] (`into_split`).
pub type SessionReadHalf = tokio::net::unix::OwnedReadHalf;

/// A bound session socket. Dropping it removes the socket file.
pub struct SessionListener {
    listener: UnixListener,
    path: PathBuf,
    refused: u64,
}

/// The result of trying to serve a workspace's socket.
pub enum BindOutcome {
    Listening(SessionListener),
    /// A live session already serves this workspace.
    AlreadyServed(PathBuf),
}

/// Why a socket could not be bound or joined.
#[derive(Debug, thiserror::Error)]
pub enum SessionSocketError {
    #[error(transparent)]
    Directory(#[from] SessionPathError),
    #[error("session socket {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("session socket {path} is {what}, not a socket; refusing to use it")]
    NotASocket { path: PathBuf, what: &'static str },
    #[error("session socket {path} is served by uid {owner}, not by this user (uid {uid}); refusing to join")]
    ForeignServer { path: PathBuf, owner: u32, uid: u32 },
}

/// What is at a socket path, without following a symbolic link there.
fn kind_at(path: &Path) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let file_type = std::fs::symlink_metadata(path).ok()?.file_type();
    Some(if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_socket() {
        "socket"
    } else if file_type.is_dir() {
        "a directory"
    } else {
        "a file"
    })
}

/// Binds the socket at `path`, creating its private directory; a stale socket (nobody
/// listening) is replaced, a live one is left alone. Anything else at the path (a symbolic
/// link, a file) was not put there by a session and is removed: connecting through a planted
/// link could reach someone else's socket. A directory there is an error.
pub fn bind(path: &Path) -> Result<BindOutcome, SessionSocketError> {
    let directory = path.parent().unwrap_or(Path::new("/"));
    ensure_private_directory(directory)?;
    let io_error = |source| SessionSocketError::Io { path: path.to_owned(), source };
    match kind_at(path) {
        None => {}
        Some("socket") => match std::os::unix::net::UnixStream::connect(path) {
            Ok(_) => return Ok(BindOutcome::AlreadyServed(path.to_owned())),
            Err(error) => {
                tracing::info!("replacing stale session socket {} ({error})", path.display());
                std::fs::remove_file(path).map_err(io_error)?;
            }
        },
        Some("a directory") => {
            return Err(SessionSocketError::NotASocket { path: path.to_owned(), what: "a directory" });
        }
        Some(what) => {
            tracing::warn!("removing {what} planted at the session socket's path {}", path.display());
            std::fs::remove_file(path).map_err(io_error)?;
        }
    }
    let listener = UnixListener::bind(path).map_err(io_error)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io_error)?;
    Ok(BindOutcome::Listening(SessionListener { listener, path: path.to_owned(), refused: 0 }))
}

impl SessionListener {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Waits for the next connection from this user; connections from other users are
    /// closed at once and counted.
    pub async fn accept(&mut self) -> io::Result<UnixStream> {
        let uid = current_uid();
        loop {
            let (stream, _) = self.listener.accept().await?;
            match stream.peer_cred() {
                Ok(credentials) if credentials.uid() == uid => return Ok(stream),
                Ok(credentials) => {
                    self.refused += 1;
                    tracing::warn!(
                        "refused a session connection from uid {} (this session is uid {uid})",
                        credentials.uid()
                    );
                }
                Err(error) => {
                    self.refused += 1;
                    tracing::warn!("refused a session connection whose peer is unknown: {error}");
                }
            }
        }
    }
}

impl Drop for SessionListener {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Connects to the session serving `path`, after checking that its directory is private and
/// that the path is a socket itself (not a link to one); the server must run as this user.
/// `Ok(None)` when no session is listening.
pub async fn connect(path: &Path) -> Result<Option<UnixStream>, SessionSocketError> {
    let directory = path.parent().unwrap_or(Path::new("/"));
    if std::fs::symlink_metadata(directory).is_err() {
        return Ok(None);
    }
    check_private_directory(directory)?;
    match kind_at(path) {
        None => return Ok(None),
        Some("socket") => {}
        Some(what) => return Err(SessionSocketError::NotASocket { path: path.to_owned(), what }),
    }
    match UnixStream::connect(path).await {
        Ok(stream) => {
            let uid = current_uid();
            let owner = stream
                .peer_cred()
                .map(|credentials| credentials.uid())
                .map_err(|source| SessionSocketError::Io { path: path.to_owned(), source })?;
            if owner != uid {
                return Err(SessionSocketError::ForeignServer { path: path.to_owned(), owner, uid });
            }
            Ok(Some(stream))
        }
        Err(error) if matches!(error.kind(), io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused) => Ok(None),
        Err(source) => Err(SessionSocketError::Io { path: path.to_owned(), source }),
    }
}
