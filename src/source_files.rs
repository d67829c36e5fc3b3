//! Reading source files that a peer named: an editor, a session client or an agent.
//!
//! A path inside the workspace can still name something that is not a file: a FIFO blocks a
//! reader until somebody writes to it, and a device never ends. fslens reads such paths on
//! its main loop or on a command's task, where one blocked read would stall every message of
//! the session, the editor's included. So every read of a peer-named source file goes
//! through here, and anything but a regular file is refused before it is opened.
//!
//! This is also the one place where the bytes of a source file on disk become the text fslens
//! works with: the text it opens in FSAC, hashes for a check verdict, indexes in the syntax
//! layer and counts positions in. That text has no UTF-8 byte-order mark: editors strip it
//! before `didOpen`, FSAC strips it when it reads a file itself (.NET's `ReadAllText`), and
//! the F# lexer rejects a U+FEFF at the start of a file (FS0010). Keeping it would also shift
//! every line-1 column by one against what the editor and FSAC count.

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

/// The UTF-8 byte-order mark, which a source file may start with.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The bytes of a source file without the UTF-8 byte-order mark it may start with.
fn without_bom(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.starts_with(UTF8_BOM) {
        bytes.drain(..UTF8_BOM.len());
    }
    bytes
}

/// The source text of a file's bytes, as an editor or FSAC sees it: without a leading
/// byte-order mark; the rest must be UTF-8.
pub fn source_text(bytes: Vec<u8>) -> Result<String, std::string::FromUtf8Error> {
    String::from_utf8(without_bom(bytes))
}

/// The source text of a file's bytes without a leading byte-order mark, with invalid UTF-8
/// replaced.
pub fn source_text_lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(without_bom(bytes)) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    }
}

/// The source text of the regular file at `path` (see [`source_text`]), which must be UTF-8.
pub fn read_regular_text(path: &Path) -> io::Result<String> {
    source_text(read_regular_file(path)?).map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
}

/// The source text of the regular file at `path` (see [`source_text`]), with invalid UTF-8
/// replaced.
pub fn read_regular_text_lossy(path: &Path) -> io::Result<String> {
    Ok(source_text_lossy(read_regular_file(path)?))
}

/// A document's current text: the editor's `buffer` when it has the document open, else the
/// source text of the regular file at `path` (see [`read_regular_text`]). The one reader of
/// "the text as the editor and FSAC see it now"; the syntax index's `Overlay` and the commands
/// read through it.
pub fn current_text(buffer: Option<&str>, path: &Path) -> io::Result<String> {
    match buffer {
        Some(text) => Ok(text.to_owned()),
        None => read_regular_text(path),
    }
}

/// [`current_text`] with invalid UTF-8 on disk replaced (see [`read_regular_text_lossy`]).
pub fn current_text_lossy(buffer: Option<&str>, path: &Path) -> io::Result<String> {
    match buffer {
        Some(text) => Ok(text.to_owned()),
        None => read_regular_text_lossy(path),
    }
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

    #[test]
    fn a_leading_byte_order_mark_is_not_part_of_the_text() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("A.fs");
        std::fs::write(&file, b"\xEF\xBB\xBFmodule A\n").unwrap();
        assert_eq!(read_regular_text(&file).unwrap(), "module A\n");
        assert_eq!(read_regular_text_lossy(&file).unwrap(), "module A\n");
        // Only the first three bytes are a mark; a U+FEFF further on is text.
        assert_eq!(source_text(b"a\xEF\xBB\xBF".to_vec()).unwrap(), "a\u{feff}");
        assert_eq!(source_text_lossy(b"\xEF\xBB\xBF\xEF\xBB\xBF\xff".to_vec()), "\u{feff}\u{fffd}");
    }
}
