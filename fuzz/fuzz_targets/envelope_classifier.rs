//! Fuzzes the JSON-RPC envelope classifier and the request-id salvager.
//!
//! Every input is used twice:
//! 1. As a frame body: `Message::classify`, `Message::parse` and `salvage_request_id` never
//!    panic. When classification succeeds, the body is UTF-8 JSON whose top level is an
//!    object, the kind equals the one an independent model reads from that object,
//!    `Message::parse` agrees and keeps the bytes, its members can be read, re-classifying the
//!    re-serialized object gives the same kind, and a request's id is what
//!    `salvage_request_id` finds.
//! 2. As a recipe for an envelope (id, method, result, error and extra members of every JSON
//!    type, in any order, with keys sometimes written with escapes): the classification is
//!    exactly the one the model predicts, errors included.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use fslens::lsp::message::{EnvelopeError, Message, MessageKind, RequestId, salvage_request_id};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

/// What the model expects for a parsed JSON object.
#[derive(Debug, PartialEq)]
enum Model {
    Kind(MessageKind),
    InvalidJson,
    InvalidId,
    NotAMessage,
}

fn request_id(value: &Value) -> Option<RequestId> {
    match value {
        Value::Number(number) => number.as_i64().map(RequestId::Number),
        Value::String(string) => Some(RequestId::String(string.clone())),
        Value::Null => Some(RequestId::Null),
        _ => None,
    }
}

/// The JSON-RPC reading of an envelope, written independently of the library.
fn model(object: &Map<String, Value>) -> Model {
    let method = match object.get("method") {
        None | Some(Value::Null) => None,
        Some(Value::String(method)) => Some(method.clone()),
        Some(_) => return Model::InvalidJson,
    };
    let id = match object.get("id") {
        None => None,
        Some(id) => match request_id(id) {
            Some(id) => Some(id),
            None => return Model::InvalidId,
        },
    };
    let has_result = object.contains_key("result");
    let has_error = object.contains_key("error");
    match (id, method) {
        (Some(id), Some(method)) => Model::Kind(MessageKind::Request { id, method }),
        (None, Some(method)) => Model::Kind(MessageKind::Notification { method }),
        (Some(id), None) if has_result || has_error => Model::Kind(MessageKind::Response { id, is_error: has_error }),
        _ => Model::NotAMessage,
    }
}

fn model_of_error(error: &EnvelopeError) -> Model {
    match error {
        EnvelopeError::InvalidJson(_) | EnvelopeError::InvalidUtf8(_) => Model::InvalidJson,
        EnvelopeError::InvalidId => Model::InvalidId,
        EnvelopeError::NotAMessage => Model::NotAMessage,
    }
}

fn check_body(data: &[u8]) {
    let salvaged = salvage_request_id(data);
    if let Some(id) = &salvaged {
        assert_ne!(*id, RequestId::Null, "salvaged a null id");
        let value: Value = serde_json::from_str(&String::from_utf8_lossy(data)).expect("salvaged from non-JSON");
        assert!(value.get("method").is_some(), "salvaged an id from a body without a method");
    }
    let Ok(kind) = Message::classify(data) else {
        assert!(Message::parse(data.to_vec()).is_err(), "parse accepts what classify refuses");
        return;
    };
    let text = std::str::from_utf8(data).expect("classified a body that is not UTF-8");
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        // JSON's grammar allows a number like `-3e700`; only serde_json's `Value` refuses it
        // (out of f64's range). The proxy passes such bytes on untouched, as it should.
        Err(error) if error.to_string().starts_with("number out of range") => return,
        Err(error) => panic!("classified a body that is not JSON: {error}"),
    };
    let Value::Object(object) = &value else {
        panic!("classified a JSON {} as a message: {kind:?}", type_name(&value));
    };
    assert_eq!(Model::Kind(kind.clone()), model(object), "classification differs from the model");

    let message = Message::parse(data.to_vec()).expect("classify accepts what parse refuses");
    assert_eq!(message.kind, kind);
    assert_eq!(message.bytes(), data, "the message does not keep its bytes");
    assert_eq!(message.params().expect("params of a message"), object.get("params").cloned().unwrap_or(Value::Null));
    assert_eq!(message.result().expect("result of a message"), object.get("result").cloned().unwrap_or(Value::Null));
    let _ = message.error();
    assert_eq!(message.to_value().expect("a message is JSON"), value);

    let again = serde_json::to_vec(&value).expect("serialize");
    assert_eq!(Message::classify(&again).ok(), Some(kind.clone()), "re-classifying the re-serialized body differs");

    if let MessageKind::Request { id, .. } = &kind
        && *id != RequestId::Null
    {
        assert_eq!(salvaged.as_ref(), Some(id), "salvage misses the id of a well-formed request");
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A small arbitrary JSON value, as text.
fn json_text(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<String> {
    let choice = if depth == 0 { u.int_in_range(0..=6u8)? } else { u.int_in_range(0..=8u8)? };
    Ok(match choice {
        0 => "null".to_owned(),
        1 => bool::arbitrary(u)?.to_string(),
        2 => i64::arbitrary(u)?.to_string(),
        3 => u64::arbitrary(u)?.to_string(),
        4 => {
            let number = f64::arbitrary(u)?;
            if number.is_finite() { serde_json::to_string(&number).expect("finite float") } else { "1.5".to_owned() }
        }
        5 => ["1.0", "-0", "1e3", "12E-1", "0.0"][u.choose_index(5)?].to_owned(),
        6 => serde_json::to_string(&String::arbitrary(u)?).expect("string"),
        7 => {
            let len = u.int_in_range(0..=3)?;
            let items: arbitrary::Result<Vec<String>> = (0..len).map(|_| json_text(u, depth - 1)).collect();
            format!("[{}]", items?.join(","))
        }
        _ => {
            let len = u.int_in_range(0..=3)?;
            let mut members = Vec::new();
            for _ in 0..len {
                let key = serde_json::to_string(&String::arbitrary(u)?).expect("key");
                members.push(format!("{key}:{}", json_text(u, depth - 1)?));
            }
            format!("{{{}}}", members.join(","))
        }
    })
}

/// A key as JSON text, sometimes with an escaped first letter (`"\u0069d"` is `"id"`).
fn key_text(u: &mut Unstructured<'_>, key: &str) -> arbitrary::Result<String> {
    Ok(if bool::arbitrary(u)? {
        let mut chars = key.chars();
        let first = chars.next().expect("non-empty key");
        format!("\"\\u{:04x}{}\"", first as u32, chars.as_str())
    } else {
        format!("\"{key}\"")
    })
}

/// Builds an envelope from the input and checks that it classifies exactly as modelled.
fn check_recipe(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let mut members: Vec<(String, String)> = Vec::new();
    for key in ["jsonrpc", "id", "method", "params", "result", "error"] {
        if bool::arbitrary(u)? {
            let value = match (key, u.int_in_range(0..=3u8)?) {
                ("jsonrpc", _) => "\"2.0\"".to_owned(),
                ("id", 0) => i64::arbitrary(u)?.to_string(),
                ("id", 1) => serde_json::to_string(&String::arbitrary(u)?).expect("string"),
                ("method", 0 | 1) => serde_json::to_string(&String::arbitrary(u)?).expect("string"),
                ("error", 0 | 1) => r#"{"code":-32601,"message":"no"}"#.to_owned(),
                _ => json_text(u, 2)?,
            };
            members.push((key_text(u, key)?, value));
        }
    }
    for _ in 0..u.int_in_range(0..=2)? {
        let key = serde_json::to_string(&String::arbitrary(u)?).expect("key");
        if ["\"id\"", "\"method\"", "\"result\"", "\"error\""].contains(&key.as_str()) {
            continue;
        }
        members.push((key, json_text(u, 2)?));
    }
    // Any order of members, with JSON whitespace here and there.
    let mut ordered = Vec::new();
    while !members.is_empty() {
        let index = u.choose_index(members.len())?;
        ordered.push(members.remove(index));
    }
    let space = [" ", "", "\n", "\t", "\r\n "][u.choose_index(5)?];
    let text = format!(
        "{space}{{{space}{}{space}}}{space}",
        ordered.iter().map(|(key, value)| format!("{key}{space}:{space}{value}")).collect::<Vec<_>>().join(",")
    );

    let value: Value = serde_json::from_str(&text).expect("the recipe writes valid JSON");
    let Value::Object(object) = &value else { unreachable!("the recipe writes an object") };
    let want = model(object);
    let got = match Message::classify(text.as_bytes()) {
        Ok(kind) => Model::Kind(kind),
        Err(error) => model_of_error(&error),
    };
    assert_eq!(got, want, "envelope {text}");
    check_body(text.as_bytes());
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    check_body(data);
    let _ = check_recipe(&mut Unstructured::new(data));
});
