//! Reading a command's JSON argument object: every failure is a typed `invalid_argument`
//! naming the argument, with what was expected and what came.

use serde_json::{Map, Value};

use crate::commands::CommandError;

/// The argument object; `null` counts as `{}`.
pub fn object_of(argument: &Value) -> Result<&Map<String, Value>, CommandError> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match argument {
        Value::Object(object) => Ok(object),
        Value::Null => Ok(EMPTY.get_or_init(Map::new)),
        _ => Err(CommandError::invalid_argument("arguments", "expected one JSON object")),
    }
}

/// Refuses the first member that is not in `known`.
pub fn reject_unknown(object: &Map<String, Value>, known: &[&str]) -> Result<(), CommandError> {
    match object.keys().find(|key| !known.contains(&key.as_str())) {
        Some(unknown) => Err(CommandError::invalid_argument(
            unknown,
            format!("unknown argument; expected one of {}", known.join(", ")),
        )),
        None => Ok(()),
    }
}

pub fn optional_string(object: &Map<String, Value>, name: &str) -> Result<Option<String>, CommandError> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(CommandError::invalid_argument(name, format!("expected a string, got {other}"))),
    }
}

pub fn optional_bool(object: &Map<String, Value>, name: &str) -> Result<Option<bool>, CommandError> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(value)) => Ok(Some(*value)),
        Some(other) => Err(CommandError::invalid_argument(name, format!("expected true or false, got {other}"))),
    }
}

/// The largest `timeoutMs` any command takes: an hour.
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// The `timeoutMs` argument (0 to [`MAX_TIMEOUT_MS`]) as a duration, `default_ms` when absent.
pub fn timeout_argument(object: &Map<String, Value>, default_ms: u64) -> Result<std::time::Duration, CommandError> {
    Ok(std::time::Duration::from_millis(
        optional_integer(object, "timeoutMs", 0, MAX_TIMEOUT_MS)?.unwrap_or(default_ms),
    ))
}

pub fn optional_integer(
    object: &Map<String, Value>,
    name: &str,
    minimum: u64,
    maximum: u64,
) -> Result<Option<u64>, CommandError> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => match value.as_u64() {
            Some(number) if (minimum..=maximum).contains(&number) => Ok(Some(number)),
            _ => Err(CommandError::invalid_argument(
                name,
                format!("expected an integer from {minimum} to {maximum}, got {value}"),
            )),
        },
    }
}

/// A string argument that must be one of `choices`; absent means the first one.
pub fn one_of<T: Copy>(value: Option<String>, argument: &str, choices: &[(&str, T)]) -> Result<T, CommandError> {
    let Some((_, default)) = choices.first() else {
        return Err(CommandError::Internal(format!("{argument} has no choices")));
    };
    let Some(value) = value else { return Ok(*default) };
    choices.iter().find(|(name, _)| *name == value).map(|(_, choice)| *choice).ok_or_else(|| {
        let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
        CommandError::invalid_argument(argument, format!("expected one of {}, got {value:?}", names.join(", ")))
    })
}

/// The one rule for a position given by column or by word: exactly one of `character` (a
/// 0-based UTF-16 column) and `word` (an identifier on the line), blamed on `character`.
pub fn character_or_word(character: Option<u32>, word: Option<&str>) -> Result<(), CommandError> {
    match (character, word) {
        (None, None) => Err(CommandError::invalid_argument("character", "give character (0-based UTF-16) or word")),
        (Some(_), Some(_)) => Err(CommandError::invalid_argument("character", "give character or word, not both")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn failures_name_the_argument() {
        let object = json!({"a": 1, "b": "x", "c": -3});
        let object = object_of(&object).unwrap();
        assert_eq!(optional_string(object, "a").unwrap_err().data()["argument"], json!("a"));
        assert_eq!(optional_bool(object, "b").unwrap_err().data()["argument"], json!("b"));
        assert_eq!(optional_integer(object, "c", 0, 9).unwrap_err().data()["argument"], json!("c"));
        assert_eq!(reject_unknown(object, &["a", "b"]).unwrap_err().data()["argument"], json!("c"));
        assert_eq!(
            one_of(Some("z".into()), "mode", &[("x", 1), ("y", 2)]).unwrap_err().data()["argument"],
            json!("mode")
        );
        assert_eq!(one_of(None, "mode", &[("x", 1), ("y", 2)]).unwrap(), 1);
        assert!(object_of(&json!(null)).unwrap().is_empty());
        assert_eq!(object_of(&json!([1])).unwrap_err().data()["argument"], json!("arguments"));
    }
}
