//! The argument object of `fslens.find`, validated into [`FindArguments`], and the canonical
//! query identity that binds a cursor to its query.
//!
//! Argument names follow the seed tool (`query`, `kind`, `scope`, `exact`, `member`, `field`,
//! `path` + `line` + `word` [+ `occurrence`] or `character`, `contextLines`,
//! `includeDeclaration`, `includeInfo`, `includeSiteTypes`, `projectPath`, `maxResults`,
//! `timeoutMs`, `cursor`), plus `responseCharBudget` (a smaller page ceiling than the
//! 60,000 units, for callers with a tighter output limit). Every failure is a typed `invalid_argument` naming the argument.

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::commands::CommandError;
use crate::commands::arguments::{optional_bool, optional_integer, optional_string};
use crate::commands::budget::RESPONSE_HARD_CEILING;

/// Default and upper bound of `maxResults`.
pub const DEFAULT_MAX_RESULTS: usize = 80;
pub const MAX_MAX_RESULTS: usize = 1000;
/// Default `timeoutMs`: one monotonic budget for the whole request.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The largest accepted `timeoutMs` (one hour).
pub use crate::commands::arguments::MAX_TIMEOUT_MS;
/// `contextLines` above this are accepted and capped (reported as truncated).
pub const MAX_CONTEXT_LINES: usize = 8;

/// What the query names and which sites are wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindKind {
    /// Every declaration the query names; all site kinds.
    Auto,
    /// Every declaration the query names; definitions and plain references only.
    Symbol,
    /// The members (and record fields) of the types the query names.
    Members,
    /// Record and union fields named `field` (of the type the query names, when given).
    Field,
    /// Only the declarations themselves: no references sweep.
    Definition,
    /// The symbol at `path` + `line` + (`word` | `character`), as the compiler resolves it.
    Position,
}

impl FindKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FindKind::Auto => "auto",
            FindKind::Symbol => "symbol",
            FindKind::Members => "members",
            FindKind::Field => "field",
            FindKind::Definition => "definition",
            FindKind::Position => "position",
        }
    }

    fn parse(text: &str) -> Option<FindKind> {
        Some(match text {
            "auto" => FindKind::Auto,
            "symbol" => FindKind::Symbol,
            "members" => FindKind::Members,
            "field" => FindKind::Field,
            "definition" => FindKind::Definition,
            "position" => FindKind::Position,
            _ => return None,
        })
    }
}

/// Which projects are swept and which sites are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindScope {
    /// `workspace`, unless `projectPath` names one `.fsproj` (then `project`).
    Auto,
    Workspace,
    Project,
    File,
}

impl FindScope {
    pub fn as_str(self) -> &'static str {
        match self {
            FindScope::Auto => "auto",
            FindScope::Workspace => "workspace",
            FindScope::Project => "project",
            FindScope::File => "file",
        }
    }
}

/// The validated arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct FindArguments {
    pub query: Option<String>,
    pub kind: FindKind,
    pub scope: FindScope,
    pub exact: bool,
    pub member: Option<String>,
    pub field: Option<String>,
    pub path: Option<String>,
    pub line: Option<u32>,
    pub word: Option<String>,
    /// 1-based occurrence of `word` on the line (default 1).
    pub occurrence: u32,
    pub character: Option<u32>,
    pub context_lines_requested: usize,
    pub include_declaration: bool,
    pub include_info: bool,
    pub include_site_types: bool,
    pub project_path: Option<String>,
    pub max_results: usize,
    /// UTF-16 units the serialized answer may take (the page planner's ceiling).
    pub response_char_budget: usize,
    pub timeout: Duration,
    pub cursor: Option<String>,
}

/// The smallest `responseCharBudget`: room for the answer's metadata and a row.
pub const MIN_RESPONSE_CHAR_BUDGET: u64 = 2_000;

const KNOWN_ARGUMENTS: &[&str] = &[
    "query",
    "kind",
    "scope",
    "exact",
    "member",
    "field",
    "path",
    "line",
    "word",
    "occurrence",
    "character",
    "contextLines",
    "includeDeclaration",
    "includeInfo",
    "includeSiteTypes",
    "projectPath",
    "maxResults",
    "responseCharBudget",
    "timeoutMs",
    "cursor",
];

/// A name argument must be a non-empty identifier path without whitespace or control
/// characters (double-backticked names may hold spaces).
fn check_name(name: &str, value: &str) -> Result<(), CommandError> {
    if value.trim().is_empty() {
        return Err(CommandError::invalid_argument(name, "must not be empty"));
    }
    if value.chars().any(char::is_control) {
        return Err(CommandError::invalid_argument(name, "must not contain control characters"));
    }
    if value.len() > 1024 {
        return Err(CommandError::invalid_argument(name, "longer than 1024 bytes"));
    }
    Ok(())
}

impl FindArguments {
    /// Validates the JSON argument object; every failure names the argument.
    pub fn from_json(arguments: &Value) -> Result<FindArguments, CommandError> {
        let empty = Map::new();
        let object = match arguments {
            Value::Object(object) => object,
            Value::Null => &empty,
            _ => return Err(CommandError::invalid_argument("arguments", "expected one JSON object")),
        };
        if let Some(unknown) = object.keys().find(|key| !KNOWN_ARGUMENTS.contains(&key.as_str())) {
            return Err(CommandError::invalid_argument(
                unknown,
                format!("unknown argument; expected one of {}", KNOWN_ARGUMENTS.join(", ")),
            ));
        }
        let query = optional_string(object, "query")?;
        let member = optional_string(object, "member")?;
        let field = optional_string(object, "field")?;
        let word = optional_string(object, "word")?;
        for (name, value) in [("query", &query), ("member", &member), ("field", &field), ("word", &word)] {
            if let Some(value) = value {
                check_name(name, value)?;
            }
        }
        let kind = match optional_string(object, "kind")?.as_deref() {
            None => FindKind::Auto,
            Some(text) => FindKind::parse(text).ok_or_else(|| {
                CommandError::invalid_argument(
                    "kind",
                    format!("expected auto, symbol, members, field, definition or position, got {text:?}"),
                )
            })?,
        };
        let scope = match optional_string(object, "scope")?.as_deref() {
            None | Some("auto") => FindScope::Auto,
            Some("workspace") => FindScope::Workspace,
            Some("project") => FindScope::Project,
            Some("file") => FindScope::File,
            Some(other) => {
                return Err(CommandError::invalid_argument(
                    "scope",
                    format!("expected auto, workspace, project or file, got {other:?}"),
                ));
            }
        };
        let path = optional_string(object, "path")?;
        let line = optional_integer(object, "line", 0, u64::from(u32::MAX))?.map(|line| line as u32);
        let character = optional_integer(object, "character", 0, u64::from(u32::MAX))?.map(|value| value as u32);
        let occurrence = optional_integer(object, "occurrence", 1, 100_000)?.map(|value| value as u32);
        let context_lines_requested = optional_integer(object, "contextLines", 0, 1000)?.unwrap_or(0) as usize;
        let max_results =
            optional_integer(object, "maxResults", 1, MAX_MAX_RESULTS as u64)?.unwrap_or(DEFAULT_MAX_RESULTS as u64);
        let response_char_budget =
            optional_integer(object, "responseCharBudget", MIN_RESPONSE_CHAR_BUDGET, RESPONSE_HARD_CEILING as u64)?
                .map_or(RESPONSE_HARD_CEILING, |budget| budget as usize);
        let timeout_ms = optional_integer(object, "timeoutMs", 0, MAX_TIMEOUT_MS)?.unwrap_or(DEFAULT_TIMEOUT_MS);
        let cursor = optional_string(object, "cursor")?;
        if cursor.as_deref().is_some_and(str::is_empty) {
            return Err(CommandError::invalid_argument("cursor", "must not be empty"));
        }
        let arguments = FindArguments {
            query,
            kind,
            scope,
            exact: optional_bool(object, "exact")?.unwrap_or(true),
            member,
            field,
            path,
            line,
            word,
            occurrence: occurrence.unwrap_or(1),
            character,
            context_lines_requested,
            include_declaration: optional_bool(object, "includeDeclaration")?.unwrap_or(true),
            include_info: optional_bool(object, "includeInfo")?.unwrap_or(false),
            include_site_types: optional_bool(object, "includeSiteTypes")?.unwrap_or(false),
            project_path: optional_string(object, "projectPath")?,
            max_results: max_results as usize,
            response_char_budget,
            timeout: Duration::from_millis(timeout_ms),
            cursor,
        };
        arguments.check_combinations(occurrence.is_some())?;
        Ok(arguments)
    }

    fn check_combinations(&self, occurrence_given: bool) -> Result<(), CommandError> {
        match self.kind {
            FindKind::Position => {
                if self.path.is_none() {
                    return Err(CommandError::invalid_argument("path", "kind position needs path, line and word"));
                }
                if self.line.is_none() {
                    return Err(CommandError::invalid_argument("line", "kind position needs a 0-based line"));
                }
                match (&self.word, self.character) {
                    (None, None) => {
                        return Err(CommandError::invalid_argument(
                            "word",
                            "kind position needs word (optionally with occurrence) or character",
                        ));
                    }
                    (Some(_), Some(_)) => {
                        return Err(CommandError::invalid_argument(
                            "character",
                            "give either word (with occurrence) or character, not both",
                        ));
                    }
                    _ => {}
                }
                if occurrence_given && self.word.is_none() {
                    return Err(CommandError::invalid_argument("occurrence", "occurrence counts matches of word"));
                }
            }
            FindKind::Field => {
                if self.query.is_none() && self.field.is_none() {
                    return Err(CommandError::invalid_argument("field", "kind field needs field (or query)"));
                }
            }
            _ => {
                if self.query.is_none() {
                    return Err(CommandError::invalid_argument(
                        "query",
                        "required (except for kind field with field, and kind position)",
                    ));
                }
                for (name, given) in [
                    ("line", self.line.is_some()),
                    ("word", self.word.is_some()),
                    ("character", self.character.is_some()),
                    ("occurrence", occurrence_given),
                ] {
                    if given {
                        return Err(CommandError::invalid_argument(name, "only kind position takes a position"));
                    }
                }
            }
        }
        if self.member.is_some() && !matches!(self.kind, FindKind::Members | FindKind::Auto) {
            return Err(CommandError::invalid_argument("member", "member restricts kind members (or auto)"));
        }
        if self.field.is_some() && !matches!(self.kind, FindKind::Field | FindKind::Auto) {
            return Err(CommandError::invalid_argument("field", "field restricts kind field (or auto)"));
        }
        if self.scope == FindScope::File && self.path.is_none() {
            return Err(CommandError::invalid_argument("path", "scope file needs a path"));
        }
        Ok(())
    }

    /// `contextLines` as applied (capped at [`MAX_CONTEXT_LINES`]).
    pub fn context_lines_applied(&self) -> usize {
        self.context_lines_requested.min(MAX_CONTEXT_LINES)
    }

    /// The canonical query: every argument that shapes the result stream, defaults
    /// materialised, `path`/`projectPath` as normalised by the caller. `cursor`,
    /// `maxResults`, `responseCharBudget` and `timeoutMs` are left out, so pages may change
    /// size and the remaining time may grow without changing the logical query.
    pub fn canonical_query(&self, normalized_path: Option<&str>, normalized_project: Option<&str>) -> Value {
        json!({
            "v": 2,
            "tool": "find",
            "query": self.query,
            "kind": self.kind.as_str(),
            "scope": self.scope.as_str(),
            "exact": self.exact,
            "member": self.member,
            "field": self.field,
            "path": normalized_path,
            "line": self.line,
            "word": self.word,
            "occurrence": if self.word.is_some() { Some(self.occurrence) } else { None },
            "character": self.character,
            "contextLines": self.context_lines_applied(),
            "includeDeclaration": self.include_declaration,
            "includeInfo": self.include_info,
            "includeSiteTypes": self.include_site_types,
            "projectPath": normalized_project,
        })
    }
}

/// `fslens find` on the command line: the same arguments as flags.
#[derive(Clone, Debug, clap::Args)]
pub struct FindCliArgs {
    /// What to find: a name, `Type.Member`, or a fully qualified name.
    pub query: Option<String>,
    /// auto | symbol | members | field | definition | position
    #[arg(long)]
    pub kind: Option<String>,
    /// auto | workspace | project | file
    #[arg(long)]
    pub scope: Option<String>,
    /// Case-insensitive substring matching instead of exact names.
    #[arg(long)]
    pub substring: bool,
    /// For kind members: only this member.
    #[arg(long)]
    pub member: Option<String>,
    /// For kind field: the field name.
    #[arg(long)]
    pub field: Option<String>,
    /// A file: the position's file (kind position) or the file of scope file.
    #[arg(long)]
    pub path: Option<String>,
    /// 0-based line of the position.
    #[arg(long)]
    pub line: Option<u32>,
    /// The word at the position.
    #[arg(long)]
    pub word: Option<String>,
    /// Which occurrence of the word on the line (1-based).
    #[arg(long)]
    pub occurrence: Option<u32>,
    /// 0-based UTF-16 character of the position (instead of word).
    #[arg(long)]
    pub character: Option<u32>,
    /// Lines of context above and below each site (at most 8 applied).
    #[arg(long)]
    pub context_lines: Option<u32>,
    /// Leave the declarations themselves out.
    #[arg(long)]
    pub exclude_declaration: bool,
    /// Add signatures and access of the resolved declarations.
    #[arg(long)]
    pub include_info: bool,
    /// Add the field's type at each field site.
    #[arg(long)]
    pub include_site_types: bool,
    /// A project (.fsproj path or name) or solution to sweep.
    #[arg(long)]
    pub project_path: Option<String>,
    /// At most this many sites per page (1..1000, default 80).
    #[arg(long)]
    pub max_results: Option<u32>,
    /// Plan each page to fit this many UTF-16 units of JSON (2000..60000, default 60000):
    /// for a caller whose output limit is smaller than fslens's own.
    #[arg(long)]
    pub response_char_budget: Option<u32>,
    /// The deadline for the whole request (and for FSAC to load), in milliseconds.
    #[arg(long, default_value_t = DEFAULT_TIMEOUT_MS)]
    pub timeout_ms: u64,
    /// Continue from a previous page's nextCursor.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Print the JSON answer instead of a readable summary.
    #[arg(long)]
    pub json: bool,
}

impl FindCliArgs {
    /// The `fslens.find` argument object these flags stand for.
    pub fn to_arguments(&self) -> Value {
        let mut arguments = Map::new();
        let mut put = |name: &str, value: Option<Value>| {
            if let Some(value) = value {
                arguments.insert(name.to_owned(), value);
            }
        };
        put("query", self.query.as_ref().map(|value| json!(value)));
        put("kind", self.kind.as_ref().map(|value| json!(value)));
        put("scope", self.scope.as_ref().map(|value| json!(value)));
        put("exact", self.substring.then_some(json!(false)));
        put("member", self.member.as_ref().map(|value| json!(value)));
        put("field", self.field.as_ref().map(|value| json!(value)));
        put("path", self.path.as_ref().map(|value| json!(value)));
        put("line", self.line.map(|value| json!(value)));
        put("word", self.word.as_ref().map(|value| json!(value)));
        put("occurrence", self.occurrence.map(|value| json!(value)));
        put("character", self.character.map(|value| json!(value)));
        put("contextLines", self.context_lines.map(|value| json!(value)));
        put("includeDeclaration", self.exclude_declaration.then_some(json!(false)));
        put("includeInfo", self.include_info.then_some(json!(true)));
        put("includeSiteTypes", self.include_site_types.then_some(json!(true)));
        put("projectPath", self.project_path.as_ref().map(|value| json!(value)));
        put("maxResults", self.max_results.map(|value| json!(value)));
        put("responseCharBudget", self.response_char_budget.map(|value| json!(value)));
        put("timeoutMs", Some(json!(self.timeout_ms)));
        put("cursor", self.cursor.as_ref().map(|value| json!(value)));
        Value::Object(arguments)
    }
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn input_schema() -> Option<serde_json::Value> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argument_of(value: Value) -> String {
        let error = FindArguments::from_json(&value).expect_err("must be rejected");
        assert_eq!(error.kind(), "invalid_argument", "{error}");
        error.data()["argument"].as_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn defaults_are_materialised() {
        let arguments = FindArguments::from_json(&json!({"query": "Weight"})).unwrap();
        assert_eq!(arguments.kind, FindKind::Auto);
        assert_eq!(arguments.scope, FindScope::Auto);
        assert!(arguments.exact && arguments.include_declaration && !arguments.include_info);
        assert_eq!(arguments.max_results, DEFAULT_MAX_RESULTS);
        assert_eq!(arguments.timeout, Duration::from_millis(DEFAULT_TIMEOUT_MS));
        let explicit = FindArguments::from_json(&json!({
            "query": "Weight", "kind": "auto", "scope": "auto", "exact": true, "includeDeclaration": true,
            "maxResults": 3, "timeoutMs": 5
        }))
        .unwrap();
        // maxResults and timeoutMs do not change the logical query.
        assert_eq!(arguments.canonical_query(None, None), explicit.canonical_query(None, None));
    }

    #[test]
    fn every_argument_has_a_command_line_flag() {
        use clap::Parser;
        #[derive(Parser)]
        struct Find {
            #[command(flatten)]
            arguments: FindCliArgs,
        }
        let flags = Find::parse_from([
            "find",
            "Weight",
            "--kind=position",
            "--scope=file",
            "--substring",
            "--member=M",
            "--field=F",
            "--path=a.fs",
            "--line=1",
            "--word=w",
            "--occurrence=2",
            "--character=3",
            "--context-lines=1",
            "--exclude-declaration",
            "--include-info",
            "--include-site-types",
            "--project-path=p.fsproj",
            "--max-results=5",
            "--response-char-budget=4000",
            "--timeout-ms=9",
            "--cursor=c",
        ]);
        let arguments = flags.arguments.to_arguments();
        let mut given: Vec<&str> = arguments.as_object().unwrap().keys().map(String::as_str).collect();
        let mut known = KNOWN_ARGUMENTS.to_vec();
        given.sort_unstable();
        known.sort_unstable();
        assert_eq!(given, known);
        assert_eq!(arguments["responseCharBudget"], json!(4000));
        FindArguments::from_json(&json!({"query": "Weight", "responseCharBudget": 4000})).unwrap();
    }

    #[test]
    fn every_bad_argument_is_named() {
        assert_eq!(argument_of(json!({})), "query");
        assert_eq!(argument_of(json!({"query": ""})), "query");
        assert_eq!(argument_of(json!({"query": 7})), "query");
        assert_eq!(argument_of(json!({"query": "a\u{0}b"})), "query");
        assert_eq!(argument_of(json!({"query": "X", "kind": "everything"})), "kind");
        assert_eq!(argument_of(json!({"query": "X", "scope": "galaxy"})), "scope");
        assert_eq!(argument_of(json!({"query": "X", "scope": "file"})), "path");
        assert_eq!(argument_of(json!({"query": "X", "maxResults": 0})), "maxResults");
        assert_eq!(argument_of(json!({"query": "X", "maxResults": 1001})), "maxResults");
        assert_eq!(argument_of(json!({"query": "X", "timeoutMs": -1})), "timeoutMs");
        assert_eq!(argument_of(json!({"query": "X", "timeoutMs": "soon"})), "timeoutMs");
        assert_eq!(argument_of(json!({"query": "X", "exact": "yes"})), "exact");
        assert_eq!(argument_of(json!({"query": "X", "contextLines": -2})), "contextLines");
        assert_eq!(argument_of(json!({"query": "X", "cursor": ""})), "cursor");
        assert_eq!(argument_of(json!({"query": "X", "line": 3})), "line");
        assert_eq!(argument_of(json!({"query": "X", "kind": "definition", "member": "M"})), "member");
        assert_eq!(argument_of(json!({"query": "X", "kind": "symbol", "field": "F"})), "field");
        assert_eq!(argument_of(json!({"qeury": "X"})), "qeury");
        assert_eq!(argument_of(json!({"kind": "field"})), "field");
        assert_eq!(argument_of(json!({"kind": "position", "line": 1, "word": "x"})), "path");
        assert_eq!(argument_of(json!({"kind": "position", "path": "A.fs", "word": "x"})), "line");
        assert_eq!(argument_of(json!({"kind": "position", "path": "A.fs", "line": 1})), "word");
        assert_eq!(
            argument_of(json!({"kind": "position", "path": "A.fs", "line": 1, "word": "x", "character": 2})),
            "character"
        );
        assert_eq!(
            argument_of(json!({"kind": "position", "path": "A.fs", "line": 1, "character": 2, "occurrence": 2})),
            "occurrence"
        );
        assert_eq!(
            argument_of(json!({"kind": "position", "path": "A.fs", "line": 1, "word": "x", "occurrence": 0})),
            "occurrence"
        );
        assert!(FindArguments::from_json(&json!([1])).is_err());
    }

    #[test]
    fn accepted_shapes() {
        let field = FindArguments::from_json(&json!({"kind": "field", "field": "Weight"})).unwrap();
        assert_eq!(field.kind, FindKind::Field);
        let position =
            FindArguments::from_json(&json!({"kind": "position", "path": "A.fs", "line": 0, "word": "x"})).unwrap();
        assert_eq!(position.occurrence, 1);
        let capped = FindArguments::from_json(&json!({"query": "X", "contextLines": 50})).unwrap();
        assert_eq!((capped.context_lines_requested, capped.context_lines_applied()), (50, 8));
    }
}
