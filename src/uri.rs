//! File paths and `file:` URIs, converted through a real encoder.
//!
//! Editors and FSAC spell the same file differently (`%3A` after a drive letter, encoded
//! spaces, `#`, non-ASCII), so URIs are never compared byte-wise: [`canonical_uri`] turns any
//! spelling of a local file into one form.

use std::path::{Path, PathBuf};

use url::Url;

/// The `file:` URI of an absolute path.
pub fn path_to_uri(path: &Path) -> Option<String> {
    Url::from_file_path(path).ok().map(String::from)
}

/// The local path of a `file:` URI.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let url = Url::parse(uri).ok()?;
    if url.scheme() != "file" {
        return None;
    }
    url.to_file_path().ok()
}

/// One spelling per local file; other URIs (`untitled:`) are returned unchanged.
pub fn canonical_uri(uri: &str) -> String {
    uri_to_path(uri).and_then(|path| path_to_uri(&path)).unwrap_or_else(|| uri.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_awkward_paths() {
        for path in ["/work/a b/c#d.fs", "/tmp/100%/x.fs", "/home/é/Ünïcode.fsx", "/a/[x]?.fs"] {
            let uri = path_to_uri(Path::new(path)).unwrap();
            assert!(!uri.contains(' '), "{uri}");
            assert_eq!(uri_to_path(&uri).unwrap(), PathBuf::from(path), "{uri}");
        }
        assert_eq!(path_to_uri(Path::new("/a b/c#d.fs")).unwrap(), "file:///a%20b/c%23d.fs");
    }

    #[test]
    fn canonical_form_ignores_encoding_differences() {
        assert_eq!(canonical_uri("file:///a%20b/%63.fs"), canonical_uri("file:///a%20b/c.fs"));
        assert_eq!(canonical_uri("untitled:Untitled-1"), "untitled:Untitled-1");
        assert_eq!(uri_to_path("https://example.invalid/x"), None);
    }
}
