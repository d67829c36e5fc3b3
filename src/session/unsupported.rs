//! The session socket where fslens has none (every platform but Unix; compiled as
//! `session::server` there, with the same interface as `server.rs`). A session then serves only
//! its editor: `bind` answers [`SessionSocketError::Unsupported`], which the proxy reports as
//! "cannot share this session" (`fslens.status`), and `connect` finds no session, so each CLI
//! command and `fslens mcp` starts its own. What a port needs (a named pipe per workspace,
//! restricted to this user) is in docs/platforms.md. Untested: no such target is built here.

use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::session::SessionPathError;

/// A connection on the session socket: none can exist here (the type has no values).
pub enum SessionStream {}

/// The reading half of a [`SessionStream`].
pub enum SessionReadHalf {}

/// The writing half of a [`SessionStream`].
pub enum SessionWriteHalf {}

impl SessionStream {
    pub fn into_split(self) -> (SessionReadHalf, SessionWriteHalf) {
        match self {}
    }
}

impl AsyncRead for SessionReadHalf {
    fn poll_read(self: Pin<&mut Self>, _: &mut Context<'_>, _: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match *self.get_mut() {}
    }
}

impl AsyncWrite for SessionWriteHalf {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
        match *self.get_mut() {}
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        match *self.get_mut() {}
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        match *self.get_mut() {}
    }
}

/// A bound session socket: none can exist here.
pub struct SessionListener {
    never: std::convert::Infallible,
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
    #[error(
        "session socket {path}: sharing a session is not supported on this platform yet (Unix only; docs/platforms.md)"
    )]
    Unsupported { path: PathBuf },
}

/// Always [`SessionSocketError::Unsupported`]: this platform has no session socket.
pub fn bind(path: &Path) -> Result<BindOutcome, SessionSocketError> {
    Err(SessionSocketError::Unsupported { path: path.to_owned() })
}

impl SessionListener {
    pub fn path(&self) -> &Path {
        match self.never {}
    }

    pub async fn accept(&mut self) -> io::Result<SessionStream> {
        match self.never {}
    }
}

/// No session can be listening here: always `Ok(None)`, so the caller starts its own.
pub async fn connect(_path: &Path) -> Result<Option<SessionStream>, SessionSocketError> {
    Ok(None)
}
