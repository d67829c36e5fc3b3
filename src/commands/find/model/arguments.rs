//! The arguments of `fslens.find`, declared once as [`FindArguments`] (the wire, the MCP
//! schema and the CLI flags all come from it), and the canonical query identity that binds a
//! cursor to its query.
//!
//! Argument names follow the seed tool (`query`, `kind`, `scope`, `exact`, `member`, `field`,
//! `path` + `line` + `word` [+ `occurrence`] or `character`, `contextLines`,
//! `includeDeclaration`, `includeInfo`, `includeSiteTypes`, `projectPath`, `maxResults`,
//! `timeoutMs`, `cursor`), plus `responseCharBudget` (a smaller page ceiling than the
//! 60,000 units, for callers with a tighter output limit). Every failure is a typed
//! `invalid_argument` naming the argument; the rules that span several arguments are
//! [`FindArguments::validate`].

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::commands::budget::RESPONSE_HARD_CEILING;
use crate::commands::params::{Bounded, CommandArguments, Coordinate, TimeoutMs};

/// Default and upper bound of `maxResults`.
pub const DEFAULT_MAX_RESULTS: usize = 80;
pub const MAX_MAX_RESULTS: usize = 1000;
/// Default `timeoutMs`: one monotonic budget for the whole request.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The largest accepted `timeoutMs` (one hour).
pub use crate::commands::arguments::MAX_TIMEOUT_MS;
/// `contextLines` above this are accepted and capped (reported as truncated).
pub const MAX_CONTEXT_LINES: usize = 8;
/// The smallest `responseCharBudget`: room for the answer's metadata and a row.
pub const MIN_RESPONSE_CHAR_BUDGET: u64 = 2_000;

/// `maxResults`: rows per page.
pub type MaxResults = Bounded<1, { MAX_MAX_RESULTS as u64 }, { DEFAULT_MAX_RESULTS as u64 }>;
/// `responseCharBudget`: UTF-16 units the whole answer may take.
pub type ResponseCharBudget = Bounded<MIN_RESPONSE_CHAR_BUDGET, { RESPONSE_HARD_CEILING as u64 }>;
/// `timeoutMs` of find and fieldImpact.
pub type FindTimeoutMs = TimeoutMs<DEFAULT_TIMEOUT_MS>;
/// `contextLines`: accepted up to 1000, applied up to [`MAX_CONTEXT_LINES`].
pub type ContextLines = Bounded<0, 1000>;
/// `occurrence`: which whole-word match of `word` on the line, 1-based.
pub type Occurrence = crate::commands::arguments::Occurrence;

/// What the query names and which sites are wanted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum FindKind {
    /// every declaration the query names, all site kinds (with `field` as `field`, with
    /// `member` as `members`)
    #[default]
    Auto,
    /// definitions and plain `reference`s only, no classification
    Symbol,
    /// the members (and record fields) of the types the query names
    Members,
    /// record/union fields and a class's explicit `val` fields named `field` (of the type
    /// `query` names, when given), field sites only
    Field,
    /// the declarations only, no references sweep
    Definition,
    /// the symbol the compiler resolves at `path` + `line` + `word`/`character`
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
}

/// Which projects are swept and which sites are kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum FindScope {
    /// `project` when `projectPath` is one `.fsproj`, else `workspace`
    #[default]
    Auto,
    /// every project of the workspace (or of the solution `projectPath` names)
    Workspace,
    /// one project: `projectPath`, or the one project that compiles `path`
    Project,
    /// only the sites in `path`
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

/// Declares an argument struct with its own members followed by find's sweep arguments (which
/// projects, which file or position, context, paging, deadline), so `fslens.find` and
/// `fslens.fieldImpact` (which passes them to find unchanged) declare them once, and gives it
/// [`find_with`](FindArguments::find_with). A macro rather than a `#[serde(flatten)]` member:
/// serde's `deny_unknown_fields` does not see through a flattened struct, and an error inside
/// one loses the name of the argument it is about.
macro_rules! find_sweep_arguments {
    (
        // `all()` when the struct also derives `clap::Args` (its members are then CLI flags),
        // `any()` when it does not: each `#[arg]` below sits in `cfg_attr($cli, …)`.
        cli: $cli:meta;
        $(#[$attribute:meta])* pub struct $name:ident { $($own:tt)* }
    ) => {
        $crate::commands::arguments::symbol_position_arguments! {
            cli: $cli;
            $(#[$attribute])*
            pub struct $name {
                $($own)*
                /// Which projects are swept and which sites are kept; default `auto`. `project` needs
                /// `projectPath` or a `path` compiled by exactly one project; `file` needs `path`.
                #[serde(default)]
                #[cfg_attr($cli, arg(long, value_enum, default_value_t))]
                pub scope: $crate::commands::find::model::arguments::FindScope,
                /// Exact names (default). `false`: a case-insensitive substring match on the last
                /// segment (qualifiers still match exactly).
                #[serde(default = "crate::commands::find::arguments::yes")]
                #[cfg_attr($cli, arg(long = "substring", action = clap::ArgAction::SetFalse,
                    help = "Case-insensitive substring matching instead of exact names"))]
                pub exact: bool,
                /// The position's file (kind `position`, with `line` and `word` or `character`), or
                /// the file of scope `file`. Relative to the workspace root or absolute inside it;
                /// paths outside are refused.
                path?,
                /// Lines of context above and below each site; at most 8 are applied.
                #[serde(default)]
                #[cfg_attr($cli, arg(long, default_value_t))]
                pub context_lines: $crate::commands::find::model::arguments::ContextLines,
                /// `false` drops the `definition` and `signature` rows; default `true`.
                #[serde(default = "crate::commands::find::arguments::yes")]
                #[cfg_attr($cli, arg(long = "exclude-declaration", action = clap::ArgAction::SetFalse,
                    help = "Leave the declarations themselves out"))]
                pub include_declaration: bool,
                /// Add `access` and the rendered `signature` to `resolution.declarations`.
                #[serde(default)]
                #[cfg_attr($cli, arg(long))]
                pub include_info: bool,
                /// The projects to sweep: an `.fsproj` (path or project name) or an `.sln`/`.slnx` of
                /// the workspace. A path is relative to the workspace root or absolute inside it.
                #[serde(skip_serializing_if = "Option::is_none")]
                #[cfg_attr($cli, arg(long))]
                pub project_path: Option<String>,
                /// At most this many rows per page.
                #[serde(default)]
                #[cfg_attr($cli, arg(long, default_value_t))]
                pub max_results: $crate::commands::find::model::arguments::MaxResults,
                /// UTF-16 units the whole serialized answer may take; default 60000 (30000 through the
                /// MCP bridge, which sizes pages to its output). The page is the largest prefix of
                /// rows that fits; not part of the query a cursor is bound to.
                #[serde(skip_serializing_if = "Option::is_none")]
                #[cfg_attr($cli, arg(long))]
                pub response_char_budget: Option<$crate::commands::find::model::arguments::ResponseCharBudget>,
                /// UTF-8 bytes the whole serialized answer may take, for a transport with a byte limit
                /// (the MCP bridge passes 30000 to fit its 40 KiB output); no limit when absent. The
                /// page closes before either budget would be passed; not part of the query a cursor
                /// is bound to.
                #[serde(skip_serializing_if = "Option::is_none")]
                #[cfg_attr($cli, arg(long))]
                pub response_byte_budget: Option<$crate::commands::budget::PageByteBudget>,
                /// One deadline for the whole request, in milliseconds (5 % of it, at most 250 ms, is
                /// kept for building the answer).
                #[serde(default)]
                #[cfg_attr($cli, arg(long, default_value_t))]
                pub timeout_ms: $crate::commands::find::model::arguments::FindTimeoutMs,
                /// `nextCursor` of an earlier page of the same query.
                #[serde(skip_serializing_if = "Option::is_none")]
                #[cfg_attr($cli, arg(long))]
                pub cursor: Option<String>,
            }
        }

        impl $name {
            /// The `fslens.find` arguments with find's own members as given and the sweep
            /// arguments of `self`.
            pub fn find_with(&self, own: $crate::commands::find::model::arguments::FindOwnArguments)
                -> $crate::commands::find::model::arguments::FindArguments
            {
                let $crate::commands::find::model::arguments::FindOwnArguments {
                    query, kind, member, field, include_site_types,
                } = own;
                $crate::commands::find::model::arguments::FindArguments {
                    query,
                    kind,
                    member,
                    field,
                    include_site_types,
                    scope: self.scope,
                    exact: self.exact,
                    path: self.path.clone(),
                    line: self.line,
                    word: self.word.clone(),
                    occurrence: self.occurrence,
                    character: self.character,
                    context_lines: self.context_lines,
                    include_declaration: self.include_declaration,
                    include_info: self.include_info,
                    project_path: self.project_path.clone(),
                    max_results: self.max_results,
                    response_char_budget: self.response_char_budget,
                    response_byte_budget: self.response_byte_budget,
                    timeout_ms: self.timeout_ms,
                    cursor: self.cursor.clone(),
                }
            }
        }
    };
}
pub(crate) use find_sweep_arguments;

/// The members of [`FindArguments`] that are find's own, not its sweep arguments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FindOwnArguments {
    pub query: Option<String>,
    pub kind: FindKind,
    pub member: Option<String>,
    pub field: Option<String>,
    pub include_site_types: bool,
}

find_sweep_arguments! {
    cli: all();
    /// The arguments of `fslens.find`, and the flags of `fslens find` (the query is
    /// positional; `--substring` and `--exclude-declaration` say `exact` and
    /// `includeDeclaration` false).
    #[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema, clap::Args)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct FindArguments {
        /// The symbol: a name, `Type.Member`, or a fully qualified name
        /// (`Shipping.Domain.Shipment.Weight`); its dotted segments must be a suffix of the
        /// declaration's full name. Required except for kind `field` with `field`, and kind
        /// `position`.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub query: Option<String>,
        /// What the query names and which sites are wanted; default `auto`.
        #[serde(default)]
        #[arg(long, value_enum, default_value_t)]
        pub kind: FindKind,
        /// With kind `members`: only this member.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub member: Option<String>,
        /// With kind `field`: the field's name.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub field: Option<String>,
        /// Add `siteType` to every field row: the field's type at that site as FSAC's hover
        /// gives it (at most 200 characters), with the `siteTypes` ledger and `siteTypesNote`.
        #[serde(default)]
        #[arg(long)]
        pub include_site_types: bool,
    }
}

pub(crate) fn yes() -> bool {
    true
}

/// A name argument must be a non-empty identifier path without whitespace or control
/// characters (double-backticked names may hold spaces).
pub fn check_name(name: &str, value: &str) -> Result<(), CommandError> {
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

impl CommandArguments for FindArguments {
    /// The names are checked, then the rules that span several arguments.
    fn validate(&self) -> Result<(), CommandError> {
        for (name, value) in
            [("query", &self.query), ("member", &self.member), ("field", &self.field), ("word", &self.word)]
        {
            if let Some(value) = value {
                check_name(name, value)?;
            }
        }
        if self.cursor.as_deref().is_some_and(str::is_empty) {
            return Err(CommandError::invalid_argument("cursor", "must not be empty"));
        }
        self.check_combinations()
    }
}

impl FindArguments {
    fn check_combinations(&self) -> Result<(), CommandError> {
        let occurrence_given = self.occurrence.is_some();
        match self.kind {
            FindKind::Position => {
                if self.path.is_none() {
                    return Err(CommandError::invalid_argument("path", "kind position needs path, line and word"));
                }
                if self.line.is_none() {
                    return Err(CommandError::invalid_argument("line", "kind position needs a 0-based line"));
                }
                if let Some(position) = self.position() {
                    position.validate()?;
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

    /// The line of kind position (0 when absent: `validate` refuses that).
    pub fn line(&self) -> u32 {
        self.line.map_or(0, Coordinate::as_u32)
    }

    pub fn character(&self) -> Option<u32> {
        self.character.map(Coordinate::as_u32)
    }

    /// `occurrence` as applied: 1 when absent.
    pub fn occurrence(&self) -> u32 {
        self.occurrence.unwrap_or_default().as_u32()
    }

    /// A find of `own` with every sweep argument at its default.
    pub fn new(own: FindOwnArguments) -> FindArguments {
        let FindOwnArguments { query, kind, member, field, include_site_types } = own;
        FindArguments {
            query,
            kind,
            member,
            field,
            include_site_types,
            scope: FindScope::default(),
            exact: true,
            path: None,
            line: None,
            word: None,
            occurrence: None,
            character: None,
            context_lines: ContextLines::default(),
            include_declaration: true,
            include_info: false,
            project_path: None,
            max_results: MaxResults::default(),
            response_char_budget: None,
            response_byte_budget: None,
            timeout_ms: FindTimeoutMs::default(),
            cursor: None,
        }
    }

    pub fn timeout(&self) -> Duration {
        self.timeout_ms.as_duration_ms()
    }

    pub fn max_results(&self) -> usize {
        self.max_results.as_usize()
    }

    /// The page planner's ceiling: `responseCharBudget`, or the hard ceiling.
    pub fn response_char_budget(&self) -> usize {
        self.response_char_budget.map_or(RESPONSE_HARD_CEILING, ResponseCharBudget::as_usize)
    }

    /// The room of one page: `responseCharBudget` (or the hard ceiling) in UTF-16 units and
    /// `responseByteBudget` in UTF-8 bytes.
    pub fn page_budget(&self) -> crate::commands::budget::PageBudget {
        crate::commands::budget::PageBudget {
            units: self.response_char_budget(),
            bytes: self.response_byte_budget.map(crate::commands::budget::PageByteBudget::as_usize),
        }
    }

    /// `contextLines` as asked.
    pub fn context_lines_requested(&self) -> usize {
        self.context_lines.as_usize()
    }

    /// `contextLines` as applied (capped at [`MAX_CONTEXT_LINES`]).
    pub fn context_lines_applied(&self) -> usize {
        self.context_lines_requested().min(MAX_CONTEXT_LINES)
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
            "line": self.line.map(Coordinate::as_u32),
            "word": self.word,
            "occurrence": if self.word.is_some() { Some(self.occurrence()) } else { None },
            "character": self.character(),
            "contextLines": self.context_lines_applied(),
            "includeDeclaration": self.include_declaration,
            "includeInfo": self.include_info,
            "includeSiteTypes": self.include_site_types,
            "projectPath": normalized_project,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::params::parse_arguments;

    fn parsed(value: Value) -> Result<FindArguments, CommandError> {
        parse_arguments::<FindArguments>(value)
    }

    #[test]
    fn new_arguments_are_the_wires_defaults() {
        let own = FindOwnArguments { query: Some("A.b".into()), kind: FindKind::Definition, ..Default::default() };
        assert_eq!(FindArguments::new(own), parsed(serde_json::json!({"query": "A.b", "kind": "definition"})).unwrap());
    }

    fn argument_of(value: Value) -> String {
        let error = parsed(value).expect_err("must be rejected");
        assert_eq!(error.kind(), "invalid_argument", "{error}");
        error.data()["argument"].as_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn defaults_are_materialised() {
        let arguments = parsed(json!({"query": "Weight"})).unwrap();
        assert_eq!(arguments.kind, FindKind::Auto);
        assert_eq!(arguments.scope, FindScope::Auto);
        assert!(arguments.exact && arguments.include_declaration && !arguments.include_info);
        assert_eq!(arguments.max_results(), DEFAULT_MAX_RESULTS);
        assert_eq!(arguments.response_char_budget(), RESPONSE_HARD_CEILING);
        assert_eq!(arguments.timeout(), Duration::from_millis(DEFAULT_TIMEOUT_MS));
        let explicit = parsed(json!({
            "query": "Weight", "kind": "auto", "scope": "auto", "exact": true, "includeDeclaration": true,
            "maxResults": 3, "timeoutMs": 5, "responseCharBudget": 4000
        }))
        .unwrap();
        // maxResults, responseCharBudget and timeoutMs do not change the logical query.
        assert_eq!(arguments.canonical_query(None, None), explicit.canonical_query(None, None));
    }

    /// The canonical query's identity is what a cursor carries: these hashes are the ones the
    /// hand-written parser produced, so a cursor issued before the arguments were typed still
    /// binds to the same logical query.
    #[test]
    fn the_canonical_query_identity_is_unchanged_by_the_typed_arguments() {
        let identity = |value: Value| {
            let arguments = parsed(value).unwrap();
            crate::commands::find::model::cursor::identity_of(
                &arguments.canonical_query(Some("src/A.fs"), Some("p.fsproj")),
            )
        };
        assert_eq!(
            identity(json!({"query": "Weight"})),
            "1f22080a87b596206e54c33b9c0e914efb94bc2a2f6e74830de4c89a6f47c928"
        );
        assert_eq!(
            identity(json!({"kind": "position", "path": "A.fs", "line": 3, "word": "x", "occurrence": 2,
                            "contextLines": 50, "exact": false, "includeInfo": true})),
            "97a57f1460ac6e471e4370b5ce67482a3e4585019ea083967894cb00f4db2541"
        );
        assert_eq!(
            identity(json!({"kind": "field", "field": "F", "scope": "project", "includeSiteTypes": true,
                            "includeDeclaration": false, "maxResults": 5})),
            "42b72710da268a94aafa53b696e06ee046ca82dda28c124d5e568fc887a0ad60"
        );
    }

    #[test]
    fn every_argument_has_a_command_line_flag() {
        use clap::Parser;
        #[derive(Parser)]
        struct Find {
            #[command(flatten)]
            arguments: FindArguments,
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
            "--context-lines=1",
            "--exclude-declaration",
            "--include-info",
            "--include-site-types",
            "--project-path=p.fsproj",
            "--max-results=5",
            "--response-char-budget=4000",
            "--response-byte-budget=5000",
            "--timeout-ms=9",
            "--cursor=c",
        ]);
        let arguments = crate::commands::params::to_argument_object(&flags.arguments);
        let mut given: Vec<&str> = arguments.as_object().unwrap().keys().map(String::as_str).collect();
        // `--character` is the position's other column, refused beside `--word` by the flags.
        let column = Find::parse_from(["find", "--kind=position", "--path=a.fs", "--line=1", "--character=3"]);
        assert_eq!(column.arguments.character(), Some(3));
        assert!(Find::try_parse_from(["find", "--word=w", "--character=3"]).is_err());
        given.push("character");
        let schema = crate::commands::params::input_schema::<FindArguments>();
        let known: Vec<&str> = schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
        let (mut given, mut known) = (given, known);
        given.sort_unstable();
        known.sort_unstable();
        assert_eq!(given, known);
        assert_eq!(arguments["responseCharBudget"], json!(4000));
        assert_eq!((arguments["exact"].clone(), arguments["includeDeclaration"].clone()), (json!(false), json!(false)));
        assert_eq!((arguments["kind"].clone(), arguments["scope"].clone()), (json!("position"), json!("file")));
        // What the flags send reads back as the same arguments (these flags together are
        // refused by validate(), which the session runs: only the reading is checked here).
        let read_back: FindArguments = serde_json::from_value(arguments).unwrap();
        assert_eq!(read_back, flags.arguments.clone());
        // Without flags, the CLI sends the defaults.
        let bare = Find::parse_from(["find", "Weight"]).arguments;
        assert_eq!(bare, parsed(json!({"query": "Weight"})).unwrap());
        assert!(Find::try_parse_from(["find", "--kind=everything"]).is_err());
        assert!(Find::try_parse_from(["find", "--max-results=0"]).is_err());
    }

    #[test]
    fn the_schema_carries_enums_bounds_defaults_and_descriptions() {
        let schema = crate::commands::params::input_schema::<FindArguments>();
        let properties = &schema["properties"];
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(properties["kind"]["enum"], json!(["auto", "symbol", "members", "field", "definition", "position"]));
        assert_eq!(properties["scope"]["enum"], json!(["auto", "workspace", "project", "file"]));
        assert_eq!(properties["scope"]["default"], json!("auto"));
        assert_eq!(properties["exact"]["default"], json!(true));
        assert_eq!(properties["includeDeclaration"]["default"], json!(true));
        assert_eq!(properties["maxResults"]["default"], json!(80));
        assert_eq!(properties["maxResults"]["maximum"], json!(1000));
        assert_eq!(properties["responseCharBudget"]["minimum"], json!(2000));
        assert_eq!(properties["responseCharBudget"]["maximum"], json!(60000));
        assert_eq!(properties["timeoutMs"]["default"], json!(120_000));
        assert_eq!(properties["occurrence"]["minimum"], json!(1));
        assert_eq!(properties["line"]["type"], json!("integer"));
        for (name, property) in properties.as_object().unwrap() {
            assert!(property["description"].as_str().is_some_and(|text| !text.is_empty()), "{name}: {property}");
        }
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
        assert_eq!(argument_of(json!({"query": "X", "responseCharBudget": 100})), "responseCharBudget");
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
        // Neither word nor character: the one rule of a position blames `character`.
        assert_eq!(argument_of(json!({"kind": "position", "path": "A.fs", "line": 1})), "character");
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
        assert_eq!(argument_of(json!([1])), "arguments");
    }

    #[test]
    fn accepted_shapes() {
        let field = parsed(json!({"kind": "field", "field": "Weight"})).unwrap();
        assert_eq!(field.kind, FindKind::Field);
        let position = parsed(json!({"kind": "position", "path": "A.fs", "line": 0, "word": "x"})).unwrap();
        assert_eq!(position.occurrence(), 1);
        let capped = parsed(json!({"query": "X", "contextLines": 50})).unwrap();
        assert_eq!((capped.context_lines_requested(), capped.context_lines_applied()), (50, 8));
        // Neovim sends an empty table as `[]`; `null` is the empty object too.
        for empty in [Value::Null, json!([])] {
            assert_eq!(argument_of(empty), "query", "the empty argument reads as {{}}");
        }
    }
}
