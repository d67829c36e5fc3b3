//! The `fileGlob` argument of `fslens.check`: a glob over workspace-relative paths, compiled
//! once by the `globset` crate. `*` and `?` stay inside one path segment, `**` spans segments
//! (also none: `lib/**/*.fs` matches `lib/A.fs`), matching is case-sensitive; `[abc]` and
//! `{a,b}` are globset's classes and alternatives.

use std::borrow::Cow;

use globset::{GlobBuilder, GlobMatcher};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A compiled `fileGlob`, with the text it was written as.
#[derive(Debug, Clone)]
pub struct FileGlob {
    written: String,
    matcher: GlobMatcher,
}

impl FileGlob {
    pub fn as_str(&self) -> &str {
        &self.written
    }

    /// Whether a workspace-relative path (with `/` separators) matches.
    pub fn matches(&self, relative_path: &str) -> bool {
        self.matcher.is_match(relative_path)
    }
}

impl std::str::FromStr for FileGlob {
    type Err = String;

    fn from_str(written: &str) -> Result<Self, String> {
        let glob = GlobBuilder::new(written)
            .literal_separator(true)
            .build()
            .map_err(|error| format!("not a glob: {}", error.kind()))?;
        Ok(FileGlob { written: written.to_owned(), matcher: glob.compile_matcher() })
    }
}

impl<'de> Deserialize<'de> for FileGlob {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let written = String::deserialize(deserializer)?;
        written.parse().map_err(serde::de::Error::custom)
    }
}

impl Serialize for FileGlob {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.written)
    }
}

impl JsonSchema for FileGlob {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("FileGlob")
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

#[cfg(test)]
mod tests {
    use super::FileGlob;

    fn glob_matches(glob: &str, path: &str) -> bool {
        glob.parse::<FileGlob>().expect("a glob").matches(path)
    }

    #[test]
    fn globs_match_segments_and_trees() {
        assert!(glob_matches("src/**/*.fs", "src/App/Program.fs"));
        assert!(glob_matches("src/**/*.fs", "src/A.fs"));
        assert!(glob_matches("**/Types.fs", "src/Domain/Types.fs"));
        assert!(!glob_matches("src/*.fs", "src/App/Program.fs"));
        assert!(glob_matches("tests/?hip*", "tests/Shipping"));
        assert!(!glob_matches("*.fsx", "a/b.fsx"));
        assert!(glob_matches("*.fsx", "b.fsx"));
        assert!(glob_matches("src/**", "src/App/Deep/Program.fs"));
        assert!(glob_matches("**", "src/A.fs"));
        assert!(glob_matches("**/*.fs", "A.fs"), "`**/` also matches no directory");
        assert!(!glob_matches("src/?.fs", "src//.fs"), "`?` never matches the separator");
        // globset matches bytes: `?` is one byte, so a non-ASCII character takes `*` (or one
        // `?` per UTF-8 byte), as with the hand-written matcher before it.
        assert!(glob_matches("src/*.fs", "src/é.fs"));
        assert!(!glob_matches("src/*.fs", "src/A.fsi"));
        assert!(!glob_matches("Src/*.fs", "src/A.fs"), "matching is case-sensitive");
        assert!(glob_matches("tests/**/Shipping.Tests/*.fs", "tests/Shipping.Tests/Tests.fs"));
    }

    #[test]
    fn a_malformed_glob_is_refused_with_the_reason() {
        let error = "src/[A.fs".parse::<FileGlob>().unwrap_err();
        assert!(error.contains("not a glob"), "{error}");
        assert_eq!("src/*.fs".parse::<FileGlob>().unwrap().as_str(), "src/*.fs");
    }
}
