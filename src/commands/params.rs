//! Typed command arguments: each command declares one argument struct with
//! `#[derive(Deserialize, JsonSchema)]`, and this module turns the wire's JSON into it.
//!
//! The struct is the single declaration of a command's arguments: [`parse_arguments`] reads
//! the `workspace/executeCommand` argument with it (a type error names the argument path and is
//! an `invalid_argument`), [`input_schema`] generates the MCP tool's input schema from it (doc
//! comments become descriptions, [`Bounded`] integers carry their bounds), and the CLI builds
//! the same struct from its flags. Cross-field rules live in each struct's
//! [`CommandArguments::validate`]. `null`, a missing argument and `[]` all mean `{}` (Neovim
//! encodes an empty Lua table as `[]`), and a member whose value is `null` is an absent one.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Value, json};

use crate::commands::CommandError;

/// The argument struct of one command.
pub trait CommandArguments: DeserializeOwned + JsonSchema {
    /// Rules that span several arguments; each failure names the argument at fault.
    fn validate(&self) -> Result<(), CommandError> {
        Ok(())
    }

    /// Reads the command's argument object (the table calls this before the handler).
    fn from_argument(argument: Value) -> Result<Self, CommandError> {
        parse_arguments(argument)
    }
}

/// Reads a command's argument object into its struct, then validates it.
pub fn parse_arguments<T: CommandArguments>(argument: Value) -> Result<T, CommandError> {
    let argument = match argument {
        Value::Null => json!({}),
        Value::Array(items) if items.is_empty() => json!({}),
        // A member written as `null` means "not given" (MCP clients and editors send it for an
        // unset optional value), so a defaulted argument gets its default.
        Value::Object(mut members) => {
            members.retain(|_, value| !value.is_null());
            Value::Object(members)
        }
        other => {
            return Err(CommandError::invalid_argument(
                "arguments",
                format!("expected one JSON object, got {}", value_kind(&other)),
            ));
        }
    };
    let parsed: T = serde_path_to_error::deserialize(argument).map_err(argument_error)?;
    parsed.validate()?;
    Ok(parsed)
}

/// A serde failure as an `invalid_argument` naming the argument's path (`edits[0].path`).
fn argument_error(error: serde_path_to_error::Error<serde_json::Error>) -> CommandError {
    let path = error.path().to_string();
    let message = error.inner().to_string();
    // serde reports an unknown or missing member on the object that holds it; the member's
    // own name is the argument the caller got wrong.
    let named = backticked_name(&message, "unknown field `").or_else(|| backticked_name(&message, "missing field `"));
    let argument = match (path.as_str(), named) {
        (".", Some(name)) => name.to_owned(),
        (".", None) => "arguments".to_owned(),
        (parent, Some(name)) if message.starts_with("missing field") => format!("{parent}.{name}"),
        (parent, Some(name)) if !parent.ends_with(name) => format!("{parent}.{name}"),
        (path, _) => path.to_owned(),
    };
    let message = if message.starts_with("unknown field") {
        // "unknown field `x`, expected one of `a`, `b`" reads better as the house message.
        match message.split_once(", expected ") {
            Some((_, expected)) => format!("unknown argument; expected {}", expected.replace('`', "")),
            None => "unknown argument".to_owned(),
        }
    } else if message.starts_with("missing field") {
        "required".to_owned()
    } else {
        message
    };
    CommandError::invalid_argument(&argument, message)
}

fn backticked_name<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?;
    rest.split('`').next()
}

fn value_kind(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("an array of {} item(s)", items.len()),
        Value::String(_) => "a string".to_owned(),
        Value::Number(number) => format!("the number {number}"),
        Value::Bool(flag) => format!("{flag}"),
        Value::Null => "null".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// The MCP input schema of an argument struct: inlined (no `$defs`), optional members without
/// a `null` alternative, and no `$schema`/`title` noise.
pub fn input_schema<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    drop_null_alternatives(&mut schema);
    tidy(&mut schema);
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
        object.remove("description");
        if !object.contains_key("properties") {
            object.insert("properties".to_owned(), json!({}));
        }
    }
    schema
}

/// Optional members accept `null` (it means absent), but a schema that says so on every member
/// only adds noise: `["string", "null"]` becomes `"string"`, and `anyOf: [S, {type: null}]`
/// becomes `S`.
fn drop_null_alternatives(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Array(types)) = object.get_mut("type") {
                types.retain(|kind| kind != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    object.insert("type".to_owned(), only);
                }
            }
            if let Some(Value::Array(alternatives)) = object.get("anyOf") {
                let kept: Vec<Value> = alternatives
                    .iter()
                    .filter(|alternative| alternative.get("type") != Some(&json!("null")))
                    .cloned()
                    .collect();
                if kept.len() == 1 && kept.len() < alternatives.len() {
                    object.remove("anyOf");
                    if let Value::Object(only) = &kept[0] {
                        for (key, value) in only {
                            object.entry(key.clone()).or_insert_with(|| value.clone());
                        }
                    }
                }
            }
            if let Some(Value::Array(choices)) = object.get_mut("enum") {
                choices.retain(|choice| !choice.is_null());
            }
            for value in object.values_mut() {
                drop_null_alternatives(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_alternatives),
        _ => {}
    }
}

/// Two readability fixes for agents: a doc comment's line breaks become spaces (paragraphs
/// stay), and a closed set of strings (`oneOf` of `const`s, what documented enum variants
/// generate) becomes one `enum`, the variants' own descriptions appended as `value: meaning`.
fn tidy(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Array(alternatives)) = object.get("oneOf") {
                // Documented variants come as `{const, description}`, undocumented ones grouped
                // as `{enum: [...]}`.
                let constants: Option<Vec<(Value, Option<String>)>> = alternatives
                    .iter()
                    .map(|alternative| {
                        let meaning = alternative.get("description").and_then(Value::as_str).map(str::to_owned);
                        if let Some(constant) = alternative.get("const") {
                            return Some(vec![(constant.clone(), meaning)]);
                        }
                        let values = alternative.get("enum")?.as_array()?;
                        Some(values.iter().map(|value| (value.clone(), None)).collect())
                    })
                    .collect::<Option<Vec<Vec<_>>>>()
                    .map(|groups| groups.into_iter().flatten().collect());
                if let Some(constants) = constants {
                    object.remove("oneOf");
                    let meanings: Vec<String> = constants
                        .iter()
                        .filter_map(|(value, meaning)| {
                            meaning.as_ref().map(|meaning| format!("{}: {meaning}", value.as_str().unwrap_or_default()))
                        })
                        .collect();
                    if constants.iter().all(|(value, _)| value.is_string()) {
                        object.insert("type".to_owned(), json!("string"));
                    }
                    object.insert(
                        "enum".to_owned(),
                        Value::Array(constants.into_iter().map(|(value, _)| value).collect()),
                    );
                    if !meanings.is_empty() {
                        let joined = meanings.join("; ");
                        let description = match object.get("description").and_then(Value::as_str) {
                            Some(own) => format!("{own} ({joined})"),
                            None => joined,
                        };
                        object.insert("description".to_owned(), json!(description));
                    }
                }
            }
            if let Some(Value::String(description)) = object.get_mut("description") {
                *description = unwrap_lines(description);
            }
            for value in object.values_mut() {
                tidy(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// A doc comment's text with single line breaks joined (blank lines kept as paragraphs).
fn unwrap_lines(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| paragraph.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// An integer argument bounded to `MIN..=MAX`, `DEFAULT` when a command gives it a default
/// (`#[serde(default)]`). Its schema carries the bounds; a value outside them is refused while
/// parsing, naming the argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bounded<const MIN: u64, const MAX: u64, const DEFAULT: u64 = MIN>(u64);

impl<const MIN: u64, const MAX: u64, const DEFAULT: u64> Bounded<MIN, MAX, DEFAULT> {
    /// The value, when it is inside the bounds.
    pub fn new(value: u64) -> Option<Self> {
        (MIN..=MAX).contains(&value).then_some(Bounded(value))
    }

    /// The value clamped into the bounds (for values built by fslens, such as CLI defaults).
    pub fn clamped(value: u64) -> Self {
        Bounded(value.clamp(MIN, MAX))
    }

    /// A CLI flag's value clamped into the bounds (`#[arg(value_parser = Bounded::parse_clamped)]`),
    /// for flags such as `--timeout-ms` that have always clamped rather than refused.
    pub fn parse_clamped(text: &str) -> Result<Self, String> {
        text.trim().parse::<u64>().map(Self::clamped).map_err(|error| error.to_string())
    }

    pub fn get(self) -> u64 {
        self.0
    }

    pub fn as_usize(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }

    pub fn as_u32(self) -> u32 {
        u32::try_from(self.0).unwrap_or(u32::MAX)
    }

    /// The value as milliseconds.
    pub fn as_duration_ms(self) -> std::time::Duration {
        std::time::Duration::from_millis(self.0)
    }
}

impl<const MIN: u64, const MAX: u64, const DEFAULT: u64> Default for Bounded<MIN, MAX, DEFAULT> {
    fn default() -> Self {
        Bounded(DEFAULT.clamp(MIN, MAX))
    }
}

impl<'de, const MIN: u64, const MAX: u64, const DEFAULT: u64> Deserialize<'de> for Bounded<MIN, MAX, DEFAULT> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        value
            .as_u64()
            .and_then(Self::new)
            .ok_or_else(|| serde::de::Error::custom(format!("expected an integer from {MIN} to {MAX}, got {value}")))
    }
}

impl<const MIN: u64, const MAX: u64, const DEFAULT: u64> Serialize for Bounded<MIN, MAX, DEFAULT> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

/// For CLI flags (clap parses a flag's text with `FromStr`): the same bounds as the wire.
impl<const MIN: u64, const MAX: u64, const DEFAULT: u64> std::str::FromStr for Bounded<MIN, MAX, DEFAULT> {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        text.trim()
            .parse::<u64>()
            .ok()
            .and_then(Self::new)
            .ok_or_else(|| format!("expected an integer from {MIN} to {MAX}, got {text:?}"))
    }
}

impl<const MIN: u64, const MAX: u64, const DEFAULT: u64> std::fmt::Display for Bounded<MIN, MAX, DEFAULT> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}", self.0)
    }
}

impl<const MIN: u64, const MAX: u64, const DEFAULT: u64> JsonSchema for Bounded<MIN, MAX, DEFAULT> {
    fn schema_name() -> Cow<'static, str> {
        Cow::Owned(format!("Integer{MIN}To{MAX}"))
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "integer", "minimum": MIN, "maximum": MAX })
    }
}

/// The largest `timeoutMs` any command takes: an hour.
pub use crate::commands::arguments::MAX_TIMEOUT_MS;

/// The argument object a CLI subcommand sends: its typed struct, serialized. The CLI builds the
/// struct with every field named (no `..Default::default()`), so a field added to a command's
/// arguments does not compile until the CLI says what it sends for it.
pub fn to_argument_object<T: Serialize>(arguments: &T) -> Value {
    serde_json::to_value(arguments).unwrap_or_else(|_| json!({}))
}

/// A `timeoutMs` argument: one deadline for the whole request, in milliseconds, `DEFAULT` when
/// absent.
pub type TimeoutMs<const DEFAULT: u64> = Bounded<0, MAX_TIMEOUT_MS, DEFAULT>;

/// A 0-based line or UTF-16 column.
pub type Coordinate = Bounded<0, { u32::MAX as u64 }>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A command's arguments, as the commands declare theirs.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Example {
        /// The name to look for.
        name: Option<String>,
        /// Results per page.
        #[serde(default)]
        max_results: Bounded<1, 1000, 80>,
        #[serde(default)]
        timeout_ms: TimeoutMs<60_000>,
        #[serde(default)]
        scope: ExampleScope,
        #[serde(default)]
        edits: Vec<ExampleEdit>,
    }

    #[derive(Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[serde(rename_all = "camelCase")]
    enum ExampleScope {
        #[default]
        Auto,
        File,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct ExampleEdit {
        path: String,
    }

    impl CommandArguments for Example {
        fn validate(&self) -> Result<(), CommandError> {
            if self.scope == ExampleScope::File && self.name.is_none() {
                return Err(CommandError::invalid_argument("name", "scope file needs a name"));
            }
            Ok(())
        }
    }

    fn refused(argument: Value) -> (String, String) {
        let error = parse_arguments::<Example>(argument).expect_err("must be refused");
        assert_eq!(error.kind(), "invalid_argument");
        (error.data()["argument"].as_str().unwrap_or_default().to_owned(), error.to_string())
    }

    #[test]
    fn null_and_an_empty_array_are_the_empty_object() {
        for empty in [Value::Null, json!([]), json!({})] {
            let parsed = parse_arguments::<Example>(empty).expect("the empty argument");
            assert_eq!(parsed.max_results.get(), 80);
            assert_eq!(parsed.timeout_ms.get(), 60_000);
            assert_eq!(parsed.scope, ExampleScope::Auto);
            assert!(parsed.name.is_none() && parsed.edits.is_empty());
        }
        let parsed = parse_arguments::<Example>(json!({"maxResults": null, "scope": null, "name": null}))
            .expect("null members are absent ones");
        assert_eq!((parsed.max_results.get(), parsed.name), (80, None));
        let parsed = parse_arguments::<Example>(json!({"edits": [{"path": "a.fs"}]})).expect("an edit");
        assert_eq!(parsed.edits[0].path, "a.fs");
        assert_eq!(refused(json!([1])).0, "arguments");
        assert_eq!(refused(json!("x")).0, "arguments");
    }

    #[test]
    fn every_failure_names_the_argument_path() {
        assert_eq!(refused(json!({"maxResults": 0})).0, "maxResults");
        assert!(refused(json!({"maxResults": 0})).1.contains("from 1 to 1000"));
        assert_eq!(refused(json!({"maxResults": "ten"})).0, "maxResults");
        assert_eq!(refused(json!({"name": 3})).0, "name");
        assert_eq!(refused(json!({"scope": "galaxy"})).0, "scope");
        assert!(refused(json!({"scope": "galaxy"})).1.contains("auto"));
        assert_eq!(refused(json!({"nmae": "x"})).0, "nmae");
        assert!(refused(json!({"nmae": "x"})).1.contains("unknown argument"), "{}", refused(json!({"nmae": "x"})).1);
        assert_eq!(refused(json!({"edits": [{"path": 1}]})).0, "edits[0].path");
        assert_eq!(refused(json!({"edits": [{}]})).0, "edits[0].path");
        assert_eq!(refused(json!({"edits": [{"path": "a", "extra": 1}]})).0, "edits[0].extra");
        assert_eq!(refused(json!({"scope": "file"})).0, "name", "validate() runs after parsing");
    }

    #[test]
    fn the_schema_carries_types_bounds_defaults_enums_and_descriptions() {
        let schema = input_schema::<Example>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        let properties = &schema["properties"];
        assert_eq!(properties["name"]["type"], "string");
        assert_eq!(properties["name"]["description"], "The name to look for.");
        assert_eq!(properties["maxResults"]["minimum"], 1);
        assert_eq!(properties["maxResults"]["maximum"], 1000);
        assert_eq!(properties["maxResults"]["default"], 80);
        assert_eq!(properties["timeoutMs"]["maximum"], MAX_TIMEOUT_MS);
        assert_eq!(properties["scope"]["enum"], json!(["auto", "file"]));
        assert!(schema.get("$defs").is_none(), "subschemas are inlined: {schema}");
    }
}
