//! The one cursor grammar of every paged command: `<tag>.<offset>.<hex>[.<hex>…]` — a tag
//! naming the kind of cursor, the decimal offset of the first row of the next page, then one or
//! more lower- or upper-case hexadecimal fields binding the cursor to what it pages (a digest of
//! the query and the result stream; find adds its stream identity and the segment's first file).
//! A cursor is opaque to callers; this module alone reads and writes its text, and each paged
//! command checks the fields it wrote (`budget::page_offset`, find's `page::FindCursor`).

use serde::Serialize;
use sha2::{Digest, Sha256};

/// A cursor's parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub tag: String,
    pub offset: usize,
    /// Hexadecimal fields, as written.
    pub fields: Vec<String>,
}

impl Cursor {
    /// The text of a cursor. Tags are short lower-case names without `.`; fields are hex.
    pub fn encode(tag: &str, offset: usize, fields: &[&str]) -> String {
        let mut text = format!("{tag}.{offset}");
        for field in fields {
            text.push('.');
            text.push_str(field);
        }
        text
    }

    /// Reads a cursor's text; `None` for text not in the grammar (any input: it comes from a
    /// peer).
    pub fn decode(text: &str) -> Option<Cursor> {
        let mut parts = text.split('.');
        let tag = parts.next().filter(|tag| !tag.is_empty() && tag.bytes().all(|byte| byte.is_ascii_alphanumeric()))?;
        let offset = parts.next().filter(|offset| offset.bytes().all(|byte| byte.is_ascii_digit()))?.parse().ok()?;
        let fields: Vec<String> = parts.map(str::to_owned).collect();
        let hex = |field: &String| !field.is_empty() && field.bytes().all(|byte| byte.is_ascii_hexdigit());
        (!fields.is_empty() && fields.iter().all(hex)).then(|| Cursor { tag: tag.to_owned(), offset, fields })
    }
}

/// The one way a paged command binds its cursors to the result stream it pages: a SHA-256 over
/// the stream's parts in order, each part its compact JSON (or raw bytes, for parts that are
/// not values: a path, a score, a file's size and time) followed by a separator, written as
/// lowercase hex. A cursor whose stream identity differs from the current stream's is refused.
pub struct StreamIdentity(Sha256);

impl StreamIdentity {
    pub fn new() -> Self {
        StreamIdentity(Sha256::new())
    }

    /// Adds a part as its compact JSON is written (the same bytes, without building the text).
    pub fn add_serialized<T: Serialize + ?Sized>(&mut self, part: &T) {
        let _ = serde_json::to_writer(HashWriter(&mut self.0), part);
        self.0.update([0x1e]);
    }

    /// Adds a part that is not a JSON value, as its bytes.
    pub fn add_bytes(&mut self, part: &[u8]) {
        self.0.update(part);
        self.0.update([0x1e]);
    }

    /// The identity, as lowercase hex.
    pub fn finish(self) -> String {
        crate::syntax::cache::to_hex(&self.0.finalize())
    }
}

impl Default for StreamIdentity {
    fn default() -> Self {
        StreamIdentity::new()
    }
}

/// Bytes written into a hash.
struct HashWriter<'a>(&'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_and_anything_else_is_refused() {
        let text = Cursor::encode("page", 40, &["00ff", "AB"]);
        assert_eq!(text, "page.40.00ff.AB");
        assert_eq!(
            Cursor::decode(&text),
            Some(Cursor { tag: "page".into(), offset: 40, fields: vec!["00ff".into(), "AB".into()] })
        );
        for garbage in [
            "",
            "page",
            "page.1",
            "page.x.00",
            "page.-1.00",
            "page.1.zz",
            "page.1.00.",
            ".1.00",
            "pa-ge.1.00",
            "o1.0000",
        ] {
            assert_eq!(Cursor::decode(garbage), None, "{garbage}");
        }
        assert_eq!(Cursor::decode("page.99999999999999999999999.00"), None);
    }
}
