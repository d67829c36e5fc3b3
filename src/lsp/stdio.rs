//! The process's stdin and stdout as truly asynchronous streams.
//!
//! `tokio::io::stdin()` and `stdout()` hand every read and write to a blocking thread, which
//! costs a thread hand-off per frame. Editors connect language servers through pipes or
//! socket pairs, and both can be driven by the reactor directly: the descriptor is
//! duplicated (safely, through `OwnedFd`) and registered. Anything else (a terminal, a file)
//! falls back to tokio's blocking-thread streams, and so does every platform but Unix.

#[cfg(unix)]
use std::os::fd::AsFd;
#[cfg(unix)]
use std::os::unix::fs::FileTypeExt;

use tokio::io::{AsyncRead, AsyncWrite};

pub type BoxedReader = Box<dyn AsyncRead + Send + Unpin>;
pub type BoxedWriter = Box<dyn AsyncWrite + Send + Unpin>;

/// The process's standard input. Must be called inside a tokio runtime.
pub fn stdin() -> BoxedReader {
    #[cfg(unix)]
    match reactor_stream(std::io::stdin().as_fd()) {
        Some(Registered::Pipe(file)) => match tokio::net::unix::pipe::Receiver::from_file(file) {
            Ok(receiver) => return Box::new(receiver),
            Err(error) => tracing::debug!("stdin pipe not registered: {error}"),
        },
        Some(Registered::Socket(stream)) => return Box::new(stream),
        None => {}
    }
    Box::new(tokio::io::stdin())
}

/// The process's standard output. Must be called inside a tokio runtime.
pub fn stdout() -> BoxedWriter {
    #[cfg(unix)]
    match reactor_stream(std::io::stdout().as_fd()) {
        Some(Registered::Pipe(file)) => match tokio::net::unix::pipe::Sender::from_file(file) {
            Ok(sender) => return Box::new(sender),
            Err(error) => tracing::debug!("stdout pipe not registered: {error}"),
        },
        Some(Registered::Socket(stream)) => return Box::new(stream),
        None => {}
    }
    Box::new(tokio::io::stdout())
}

#[cfg(unix)]
enum Registered {
    Pipe(std::fs::File),
    Socket(tokio::net::UnixStream),
}

#[cfg(unix)]
fn reactor_stream(fd: std::os::fd::BorrowedFd<'_>) -> Option<Registered> {
    let owned = fd.try_clone_to_owned().ok()?;
    let file = std::fs::File::from(owned);
    let file_type = file.metadata().ok()?.file_type();
    if file_type.is_fifo() {
        return Some(Registered::Pipe(file));
    }
    if file_type.is_socket() {
        let stream = std::os::unix::net::UnixStream::from(std::os::fd::OwnedFd::from(file));
        stream.set_nonblocking(true).ok()?;
        return tokio::net::UnixStream::from_std(stream).ok().map(Registered::Socket);
    }
    None
}
