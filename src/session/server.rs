//! The session socket: binding (replacing stale sockets), accepting only this user's
//! connections, and connecting as a client.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

use crate::session::{SessionPathError, check_private_directory, current_uid, ensure_private_directory};

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
}

/// Binds the socket at `path`, creating its private directory; a stale socket (nobody
/// listening) is replaced, a live one is left alone.
pub fn bind(path: &Path) -> Result<BindOutcome, SessionSocketError> {
    let directory = path.parent().unwrap_or(Path::new("/"));
    ensure_private_directory(directory)?;
    let io_error = |source| SessionSocketError::Io { path: path.to_owned(), source };
    if std::fs::symlink_metadata(path).is_ok() {
        match std::os::unix::net::UnixStream::connect(path) {
            Ok(_) => return Ok(BindOutcome::AlreadyServed(path.to_owned())),
            Err(error) => {
                tracing::info!("replacing stale session socket {} ({error})", path.display());
                std::fs::remove_file(path).map_err(io_error)?;
            }
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

/// Connects to the session serving `path`, after checking that its directory is private.
/// `Ok(None)` when no session is listening.
pub async fn connect(path: &Path) -> Result<Option<UnixStream>, SessionSocketError> {
    let directory = path.parent().unwrap_or(Path::new("/"));
    if std::fs::symlink_metadata(directory).is_err() {
        return Ok(None);
    }
    check_private_directory(directory)?;
    match UnixStream::connect(path).await {
        Ok(stream) => Ok(Some(stream)),
        Err(error) if matches!(error.kind(), io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused) => Ok(None),
        Err(source) => Err(SessionSocketError::Io { path: path.to_owned(), source }),
    }
}
