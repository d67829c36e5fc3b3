//! Reading source files that a peer named: an editor, a session client or an agent.
//!
//! A path inside the workspace can still name something that is not a file: a FIFO blocks a
//! reader until somebody writes to it, and a device never ends. fslens reads such paths on
//! its main loop or on a command's task, where one blocked read would stall every message of
//! the session, the editor's included. So every read of a peer-named source file goes
//! through here, and anything but a regular file is refused before it is opened.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The bytes of the regular file at `path`; any other kind of file is an `InvalidInput` error.
/// The kind is asked of the opened file, not of the path, so a path swapped for a FIFO
/// between a check and the open cannot block the read.
pub fn read_regular_file(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_without_waiting(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Opens `path` for reading without waiting: opening a FIFO for reading otherwise waits for a
/// writer. `O_NONBLOCK` changes nothing for reading a regular file.
#[cfg(unix)]
fn open_without_waiting(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)
}

/// Elsewhere no path names a FIFO that blocks its opener; the caller asks the opened file
/// its kind, so checking the path first as well would be the same question twice.
#[cfg(not(unix))]
fn open_without_waiting(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// The text of the regular file at `path`, which must be UTF-8.
pub fn read_regular_text(path: &Path) -> io::Result<String> {
    String::from_utf8(read_regular_file(path)?).map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
}

/// The text of the regular file at `path`, with invalid UTF-8 replaced.
pub fn read_regular_text_lossy(path: &Path) -> io::Result<String> {
    let bytes = read_regular_file(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_refused_and_files_are_read() {
        let directory = tempfile::tempdir().unwrap();
        let error = read_regular_text(directory.path()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        let file = directory.path().join("A.fs");
        std::fs::write(&file, b"let a = 1\n\xff").unwrap();
        assert_eq!(read_regular_text(&file).unwrap_err().kind(), io::ErrorKind::InvalidData);
        assert_eq!(read_regular_text_lossy(&file).unwrap(), "let a = 1\n\u{fffd}");
    }
}
