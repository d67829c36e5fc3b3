//! The arguments of the three diagnostic tools, as typed structs: the fields that choose a
//! diagnostic (`path` + `line` + `character`, `code`, `index`, or a `diagnostic` of a check
//! answer) are declared once by [`diagnostic_arguments!`] and each tool adds its own.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{Selector, parse_code, parse_code_text};
use crate::commands::CommandError;
use crate::commands::params::{Bounded, CommandArguments, Coordinate, TimeoutMs};

/// A diagnostic code: `"FS0039"`, `"39"` or `39` (sent on as the number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiagnosticCode(pub u64);

impl<'de> Deserialize<'de> for DiagnosticCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        parse_code(&value).map(DiagnosticCode).ok_or_else(|| {
            serde::de::Error::custom(format!("expected a code like \"FS0039\", \"39\" or 39, got {value}"))
        })
    }
}

impl Serialize for DiagnosticCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

impl std::str::FromStr for DiagnosticCode {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        parse_code_text(text)
            .map(DiagnosticCode)
            .ok_or_else(|| format!("expected a code like FS0039 or 39, got {text:?}"))
    }
}

impl JsonSchema for DiagnosticCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("DiagnosticCode")
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["string", "integer"] })
    }
}

/// One element of a `fslens.check` answer's `diagnostics`, passed back as is: its `file`, the
/// start of its `range` and its `code` select the diagnostic (the rest is not read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckDiagnostic {
    pub file: String,
    pub line: u32,
    pub character: Option<u32>,
    pub code: Option<u64>,
}

/// What selects in a check diagnostic, as check writes it: `{file, range: {start: {line,
/// character}}, code}` (its other members are not read).
#[derive(Deserialize, Serialize)]
struct CheckDiagnosticSelector<Code> {
    file: String,
    range: StartOfRange,
    #[serde(default)]
    code: Option<Code>,
}

#[derive(Deserialize, Serialize)]
struct StartOfRange {
    start: Start,
}

#[derive(Deserialize, Serialize)]
struct Start {
    line: u32,
    #[serde(default)]
    character: Option<u32>,
}

fn check_diagnostic<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<CheckDiagnostic>, D::Error> {
    // Read from the value as a whole, so a refusal names the `diagnostic` argument, not a
    // member inside it.
    let value = Value::deserialize(deserializer)?;
    let Some(written) = Option::<CheckDiagnosticSelector<Value>>::deserialize(&value).map_err(|error| {
        serde::de::Error::custom(format!(
            "expected a check diagnostic with `file`, `range.start.line` and `code`: {error}"
        ))
    })?
    else {
        return Ok(None);
    };
    Ok(Some(CheckDiagnostic {
        file: written.file,
        line: written.range.start.line,
        character: written.range.start.character,
        code: written.code.as_ref().and_then(parse_code),
    }))
}

fn check_diagnostic_as_check_writes_it<S: Serializer>(
    diagnostic: &Option<CheckDiagnostic>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    diagnostic
        .as_ref()
        .map(|diagnostic| CheckDiagnosticSelector {
            file: diagnostic.file.clone(),
            range: StartOfRange { start: Start { line: diagnostic.line, character: diagnostic.character } },
            code: diagnostic.code,
        })
        .serialize(serializer)
}

/// Declares a diagnostic tool's argument struct: the selector fields every tool takes, then
/// the tool's own, and `selector()` reading the selector fields.
macro_rules! diagnostic_arguments {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$field_meta:meta])* pub $field:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, clap::Args)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $name {
            /// The file with the diagnostic (required with `line` unless `diagnostic`).
            /// Relative to the workspace root or absolute inside it; paths outside are refused.
            #[serde(skip_serializing_if = "Option::is_none")]
            #[arg(long)]
            pub path: Option<String>,
            /// 0-based line of the diagnostic (required with `path` unless `diagnostic`); a
            /// diagnostic matches when its range covers the line.
            #[serde(skip_serializing_if = "Option::is_none")]
            #[arg(long)]
            pub line: Option<Coordinate>,
            /// 0-based UTF-16 column that must lie inside the diagnostic's range.
            #[serde(skip_serializing_if = "Option::is_none")]
            #[arg(long)]
            pub character: Option<Coordinate>,
            /// Only a diagnostic with this code: FS0039, "39" or 39.
            #[serde(skip_serializing_if = "Option::is_none")]
            #[arg(long)]
            pub code: Option<DiagnosticCode>,
            /// Among several matches, which one (0-based, in FSAC's order; default 0).
            #[serde(skip_serializing_if = "Option::is_none")]
            #[arg(long)]
            pub index: Option<Bounded<0, 10_000>>,
            /// Instead of path/line: one diagnostic of a check answer, as is (its `file`,
            /// `range.start` and `code` select it).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[serde(deserialize_with = "check_diagnostic", serialize_with = "check_diagnostic_as_check_writes_it")]
            #[schemars(with = "Option<serde_json::Map<String, Value>>")]
            #[arg(skip)]
            pub diagnostic: Option<CheckDiagnostic>,
            /// One deadline for waiting on FSAC's load and analysis and its code actions, in
            /// milliseconds.
            #[serde(default)]
            #[arg(long, default_value_t, value_parser = TimeoutMs::<60_000>::parse_clamped)]
            pub timeout_ms: TimeoutMs<60_000>,
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl $name {
            /// The diagnostic the selector fields name: `diagnostic`, or `path` + `line`
            /// (`None` when neither path nor line is given and `optional` allows that).
            pub fn selector(&self, optional: bool) -> Result<Option<Selector>, CommandError> {
                selector_of(
                    SelectorFields {
                        path: self.path.as_deref(),
                        line: self.line,
                        character: self.character,
                        code: self.code,
                        index: self.index,
                        diagnostic: self.diagnostic.as_ref(),
                    },
                    optional,
                )
            }
        }
    };
}

diagnostic_arguments! {
    /// The arguments of `fslens.explainDiagnostic`.
    pub struct ExplainArguments {}
}

impl CommandArguments for ExplainArguments {
    fn validate(&self) -> Result<(), CommandError> {
        self.selector(false).map(|_| ())
    }
}

diagnostic_arguments! {
    /// The arguments of `fslens.diagnosticFixes`.
    pub struct FixesArguments {
        /// Send one fix to the editor as workspace/applyEdit (not on the command line, which
        /// has no editor to apply it in).
        #[serde(default)]
        #[arg(skip)]
        pub apply: bool,
        /// Which fix to apply (0-based); needed with `apply` when there are several, refused
        /// without `apply`.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(skip)]
        pub fix_index: Option<Bounded<0, 1000>>,
    }
}

impl CommandArguments for FixesArguments {
    fn validate(&self) -> Result<(), CommandError> {
        if self.fix_index.is_some() && !self.apply {
            return Err(CommandError::invalid_argument("fixIndex", "only used with apply: true"));
        }
        self.selector(false).map(|_| ())
    }
}

diagnostic_arguments! {
    /// The arguments of `fslens.suggestOpen`.
    pub struct SuggestOpenArguments {
        /// The unresolved name (optionally qualified: Text.shout keeps only declarations in a
        /// container ending with Text); or give path + line of its FS0039. With a name, `path`
        /// alone says which file the `open` is for.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// At most this many suggestions.
        #[serde(default)]
        #[arg(skip)]
        pub max_results: Bounded<1, 200, 20>,
    }
}

impl SuggestOpenArguments {
    /// The FS0039 to read the name from and ask FSAC's fixes for; `None` with only a name
    /// (and perhaps the `path` the `open` is for). The code defaults to 39.
    pub fn fs0039_selector(&self) -> Result<Option<Selector>, CommandError> {
        let positioned = self.line.is_some() || self.diagnostic.is_some();
        if self.name.is_some() && !positioned {
            return Ok(None);
        }
        let mut selector = self.selector(false)?;
        if let Some(selector) = selector.as_mut()
            && selector.code.is_none()
        {
            selector.code = Some(39);
        }
        Ok(selector)
    }
}

impl CommandArguments for SuggestOpenArguments {
    fn validate(&self) -> Result<(), CommandError> {
        if self.name.as_deref().is_some_and(|name| name.trim().is_empty()) {
            return Err(CommandError::invalid_argument("name", "is empty"));
        }
        let positioned = self.line.is_some() || self.diagnostic.is_some();
        if self.name.is_none() && !positioned && self.path.is_none() {
            return Err(CommandError::invalid_argument(
                "name",
                "give the unresolved name, or path + line of its FS0039",
            ));
        }
        self.fs0039_selector().map(|_| ())
    }
}

/// The selector fields of any of the three structs.
struct SelectorFields<'a> {
    path: Option<&'a str>,
    line: Option<Coordinate>,
    character: Option<Coordinate>,
    code: Option<DiagnosticCode>,
    index: Option<Bounded<0, 10_000>>,
    diagnostic: Option<&'a CheckDiagnostic>,
}

fn selector_of(fields: SelectorFields<'_>, optional: bool) -> Result<Option<Selector>, CommandError> {
    if let Some(from_check) = fields.diagnostic {
        return Ok(Some(Selector {
            path: from_check.file.clone(),
            line: from_check.line,
            character: from_check.character,
            code: from_check.code,
            index: None,
        }));
    }
    let (path, line) = match (fields.path, fields.line) {
        (Some(path), Some(line)) => (path.to_owned(), line.as_u32()),
        (None, None) if optional => return Ok(None),
        (None, _) => return Err(CommandError::invalid_argument("path", "required: the file with the diagnostic")),
        (Some(_), None) => {
            return Err(CommandError::invalid_argument("line", "required: the diagnostic's 0-based line"));
        }
    };
    Ok(Some(Selector {
        path,
        line,
        character: fields.character.map(Coordinate::as_u32),
        code: fields.code.map(|code| code.0),
        index: fields.index.map(Bounded::as_usize),
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::commands::params::parse_arguments;

    fn blamed<T: CommandArguments + std::fmt::Debug>(argument: Value) -> String {
        match parse_arguments::<T>(argument.clone()) {
            Err(CommandError::InvalidArgument { argument, .. }) => argument,
            other => panic!("{argument} was accepted or failed otherwise: {other:?}"),
        }
    }

    #[test]
    fn the_selector_needs_path_and_line_and_names_what_is_wrong() {
        assert_eq!(blamed::<ExplainArguments>(json!({"line": 3})), "path");
        assert_eq!(blamed::<ExplainArguments>(json!({"path": "A.fs"})), "line");
        assert_eq!(blamed::<ExplainArguments>(json!({"path": "A.fs", "line": 1, "code": "E42"})), "code");
        assert_eq!(blamed::<ExplainArguments>(json!({"path": "A.fs", "line": 1, "index": 10_001})), "index");
        assert_eq!(blamed::<ExplainArguments>(json!({"path": "A.fs", "line": 1, "apply": true})), "apply");
        assert_eq!(blamed::<ExplainArguments>(json!({"diagnostic": {"range": {}}})), "diagnostic");
        let from_check: ExplainArguments = parse_arguments(json!({"diagnostic": {"file": "src/A.fs", "range": {"start": {"line": 4, "character": 15}, "end": {"line": 4, "character": 20}}, "code": 39, "message": "m"}})).unwrap();
        let selector = from_check.selector(false).unwrap().unwrap();
        assert_eq!(
            (selector.path.as_str(), selector.line, selector.character, selector.code),
            ("src/A.fs", 4, Some(15), Some(39))
        );
        let written: ExplainArguments = parse_arguments(json!({"path": "A.fs", "line": 2, "code": "FS0027"})).unwrap();
        assert_eq!(written.selector(false).unwrap().unwrap().code, Some(27));
    }

    #[test]
    fn fixes_and_suggest_open_add_their_own_rules() {
        assert_eq!(blamed::<FixesArguments>(json!({"path": "A.fs", "line": 1, "fixIndex": 0})), "fixIndex");
        assert_eq!(
            blamed::<FixesArguments>(json!({"path": "A.fs", "line": 1, "apply": true, "fixIndex": 1001})),
            "fixIndex"
        );
        assert!(
            parse_arguments::<FixesArguments>(json!({"path": "A.fs", "line": 1, "apply": true, "fixIndex": 0})).is_ok()
        );
        assert_eq!(blamed::<SuggestOpenArguments>(json!({})), "name");
        assert_eq!(blamed::<SuggestOpenArguments>(json!({"name": " "})), "name");
        assert_eq!(blamed::<SuggestOpenArguments>(json!({"path": "A.fs"})), "line");
        assert_eq!(blamed::<SuggestOpenArguments>(json!({"name": "x", "maxResults": 201})), "maxResults");
        let named: SuggestOpenArguments = parse_arguments(json!({"name": "shout", "path": "A.fs"})).unwrap();
        assert!(named.fs0039_selector().unwrap().is_none(), "a name and a path: no FS0039 to read");
        let positioned: SuggestOpenArguments = parse_arguments(json!({"path": "A.fs", "line": 3})).unwrap();
        assert_eq!(positioned.fs0039_selector().unwrap().unwrap().code, Some(39));
        assert_eq!(positioned.max_results.get(), 20);
    }

    #[test]
    fn the_schemas_share_the_selector_and_add_their_own() {
        let explain = crate::commands::params::input_schema::<ExplainArguments>();
        let keys =
            |schema: &Value| -> Vec<String> { schema["properties"].as_object().unwrap().keys().cloned().collect() };
        let mut expected = vec!["character", "code", "diagnostic", "index", "line", "path", "timeoutMs"];
        expected.sort();
        let mut explain_keys = keys(&explain);
        explain_keys.sort();
        assert_eq!(explain_keys, expected);
        assert_eq!(explain["properties"]["code"]["type"], json!(["string", "integer"]));
        assert_eq!(explain["properties"]["diagnostic"]["type"], json!("object"));
        let fixes = crate::commands::params::input_schema::<FixesArguments>();
        assert_eq!(fixes["properties"]["fixIndex"]["maximum"], json!(1000));
        let suggest = crate::commands::params::input_schema::<SuggestOpenArguments>();
        assert_eq!(suggest["properties"]["maxResults"]["default"], json!(20));
    }
}
