//! The JSON-RPC envelope: just enough of a message to route it.
//!
//! A forwarded message is never re-serialized (docs/architecture.md, invariant 6). [`Message`] keeps the
//! original bytes and a classification read from the envelope — `id`, `method`, and whether a
//! response is an error. Only methods fslens intercepts are parsed further, on demand.

use bytes::Bytes;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// A JSON-RPC request id. LSP allows integers and strings; `null` appears only on error
/// responses to messages whose id could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    Number(i64),
    String(String),
    Null,
}

impl RequestId {
    pub fn to_json(&self) -> Value {
        match self {
            RequestId::Number(number) => json!(number),
            RequestId::String(string) => json!(string),
            RequestId::Null => Value::Null,
        }
    }

    fn from_json(value: &Value) -> Option<RequestId> {
        match value {
            Value::Number(number) => number.as_i64().map(RequestId::Number),
            Value::String(string) => Some(RequestId::String(string.clone())),
            Value::Null => Some(RequestId::Null),
            _ => None,
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(number) => write!(formatter, "{number}"),
            RequestId::String(string) => write!(formatter, "{string:?}"),
            RequestId::Null => formatter.write_str("null"),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        RequestId::from_json(&value).ok_or_else(|| de::Error::custom("request id must be an integer or a string"))
    }
}

/// What kind of JSON-RPC message a frame holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageKind {
    Request { id: RequestId, method: String },
    Notification { method: String },
    Response { id: RequestId, is_error: bool },
}

/// One JSON-RPC message: its original bytes plus its envelope.
#[derive(Debug, Clone)]
pub struct Message {
    pub kind: MessageKind,
    bytes: Bytes,
}

/// Why a frame body is not a JSON-RPC message.
#[derive(Debug, thiserror::Error)]
pub enum EnvelopeError {
    #[error("body is not UTF-8: {0}")]
    InvalidUtf8(std::str::Utf8Error),
    #[error("body is not valid JSON: {0}")]
    InvalidJson(serde_json::Error),
    #[error("message is neither a request, a notification nor a response")]
    NotAMessage,
    #[error("request id must be an integer or a string")]
    InvalidId,
}

/// The envelope members, borrowed from the body. `id` keeps its raw form so that an explicit
/// `"id": null` can be told apart from a missing id.
#[derive(Deserialize)]
struct RawEnvelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

impl Message {
    /// Classifies a frame body by its envelope.
    pub fn parse(bytes: Vec<u8>) -> Result<Message, EnvelopeError> {
        let kind = Message::classify(&bytes)?;
        Ok(Message::from_classified(kind, bytes))
    }

    /// Reads the envelope of a frame body without taking it, so a caller can still use the
    /// bytes when they are not a message.
    pub fn classify(bytes: &[u8]) -> Result<MessageKind, EnvelopeError> {
        // JSON text is UTF-8 by definition; serde_json does not check the parts it skips.
        std::str::from_utf8(bytes).map_err(EnvelopeError::InvalidUtf8)?;
        // A derived `Deserialize` also reads a struct from a JSON array, by position
        // (`[1,"initialize"]` would be a request): only an object is an envelope.
        if bytes.iter().find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r')) != Some(&b'{') {
            return Err(EnvelopeError::NotAMessage);
        }
        let envelope: RawEnvelope<'_> = serde_json::from_slice(bytes).map_err(EnvelopeError::InvalidJson)?;
        classify(&envelope)
    }

    /// Pairs bytes with the kind [`Message::classify`] found in them.
    pub fn from_classified(kind: MessageKind, bytes: Vec<u8>) -> Message {
        Message { kind, bytes: Bytes::from(bytes) }
    }

    /// Builds a message from a JSON value (for messages fslens writes itself).
    pub fn from_value(value: &Value) -> Result<Message, EnvelopeError> {
        Message::parse(serde_json::to_vec(value).map_err(EnvelopeError::InvalidJson)?)
    }

    pub fn request(id: RequestId, method: &str, params: Value) -> Message {
        let bytes = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .unwrap_or_default();
        Message { kind: MessageKind::Request { id, method: method.to_owned() }, bytes: Bytes::from(bytes) }
    }

    pub fn notification(method: &str, params: Value) -> Message {
        let bytes =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": method, "params": params})).unwrap_or_default();
        Message { kind: MessageKind::Notification { method: method.to_owned() }, bytes: Bytes::from(bytes) }
    }

    pub fn response_ok(id: RequestId, result: Value) -> Message {
        let bytes = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).unwrap_or_default();
        Message { kind: MessageKind::Response { id, is_error: false }, bytes: Bytes::from(bytes) }
    }

    pub fn response_error(id: RequestId, error: &ResponseError) -> Message {
        let bytes = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "error": error})).unwrap_or_default();
        Message { kind: MessageKind::Response { id, is_error: true }, bytes: Bytes::from(bytes) }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn shared_bytes(&self) -> Bytes {
        self.bytes.clone()
    }

    pub fn method(&self) -> Option<&str> {
        match &self.kind {
            MessageKind::Request { method, .. } | MessageKind::Notification { method } => Some(method),
            MessageKind::Response { .. } => None,
        }
    }

    /// Parses the `params` member; `Value::Null` when absent.
    pub fn params(&self) -> Result<Value, serde_json::Error> {
        self.member("params")
    }

    /// Parses the `result` member of a response; `Value::Null` when absent.
    pub fn result(&self) -> Result<Value, serde_json::Error> {
        self.member("result")
    }

    /// Parses the `error` member of an error response.
    pub fn error(&self) -> Option<ResponseError> {
        let value = self.member("error").ok()?;
        serde_json::from_value(value).ok()
    }

    fn member(&self, name: &str) -> Result<Value, serde_json::Error> {
        let members: std::collections::HashMap<String, &RawValue> = serde_json::from_slice(&self.bytes)?;
        match members.get(name) {
            Some(raw) => serde_json::from_str(raw.get()),
            None => Ok(Value::Null),
        }
    }

    /// The whole message as a JSON value (for intercepted messages that get rewritten).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_slice(&self.bytes)
    }
}

fn classify(envelope: &RawEnvelope<'_>) -> Result<MessageKind, EnvelopeError> {
    let id = match envelope.id {
        Some(raw) => {
            let value: Value = serde_json::from_str(raw.get()).map_err(EnvelopeError::InvalidJson)?;
            Some(RequestId::from_json(&value).ok_or(EnvelopeError::InvalidId)?)
        }
        None => None,
    };
    match (id, &envelope.method) {
        (Some(id), Some(method)) => Ok(MessageKind::Request { id, method: method.clone() }),
        (None, Some(method)) => Ok(MessageKind::Notification { method: method.clone() }),
        (Some(id), None) if envelope.result.is_some() || envelope.error.is_some() => {
            Ok(MessageKind::Response { id, is_error: envelope.error.is_some() })
        }
        _ => Err(EnvelopeError::NotAMessage),
    }
}

/// Looks for a request id in a body that could not be parsed as a message, so that a bad
/// request can still be answered. The body is read lossily (invalid UTF-8 replaced).
pub fn salvage_request_id(bytes: &[u8]) -> Option<RequestId> {
    let text = String::from_utf8_lossy(bytes);
    let value: Value = serde_json::from_str(&text).ok()?;
    let id = value.get("id")?;
    value.get("method")?;
    match RequestId::from_json(id)? {
        RequestId::Null => None,
        id => Some(id),
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ResponseError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ResponseError { code, message: message.into(), data: None }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// JSON-RPC and LSP error codes used by fslens.
pub mod error_codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// LSP: the server is not initialized yet.
    pub const SERVER_NOT_INITIALIZED: i64 = -32002;
    /// LSP: a request failed although its parameters were valid (e.g. FSAC went away).
    pub const REQUEST_FAILED: i64 = -32803;
    /// LSP: the request was cancelled by its sender.
    pub const REQUEST_CANCELLED: i64 = -32800;
    /// LSP: the document changed under the request, so its answer would be out of date.
    pub const CONTENT_MODIFIED: i64 = -32801;
    /// LSP: the server cancelled the request itself.
    pub const SERVER_CANCELLED: i64 = -32802;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Result<MessageKind, String> {
        Message::parse(text.as_bytes().to_vec()).map(|message| message.kind).map_err(|error| error.to_string())
    }

    #[test]
    fn classifies_envelopes() {
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
            Ok(MessageKind::Request { id: RequestId::Number(1), method: "initialize".into() })
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":"a","method":"x"}"#),
            Ok(MessageKind::Request { id: RequestId::String("a".into()), method: "x".into() })
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#),
            Ok(MessageKind::Notification { method: "$/cancelRequest".into() })
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":7,"result":null}"#),
            Ok(MessageKind::Response { id: RequestId::Number(7), is_error: false })
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#),
            Ok(MessageKind::Response { id: RequestId::Null, is_error: true })
        );
        assert!(kind(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#).is_err());
        assert!(kind(r#"{"jsonrpc":"2.0","id":[1],"method":"x"}"#).is_err());
        assert!(kind(r#"{"jsonrpc":"2.0"}"#).is_err());
        assert!(kind(r#"[1,2]"#).is_err());
        assert!(kind(" \r\n\t{\"id\":1,\"method\":\"x\"}").is_ok());
        assert!(kind("").is_err());
    }

    /// Found by the `envelope_classifier` fuzz target: the derived deserializer read an array
    /// as the envelope's members by position.
    #[test]
    fn arrays_are_not_envelopes() {
        for text in [r#"[1,"initialize"]"#, r#" [1,"initialize",null]"#, r#"["a",null,1]"#, r#"[null,"exit"]"#] {
            assert!(matches!(Message::classify(text.as_bytes()), Err(EnvelopeError::NotAMessage)), "{text}");
        }
    }

    #[test]
    fn keeps_bytes_and_reads_members_on_demand() {
        let text = r#"{"jsonrpc":"2.0","id":3,"method":"fsharp/x","params":{"b":1,"a":[2.50,"é"]}}"#;
        let message = Message::parse(text.as_bytes().to_vec()).unwrap();
        assert_eq!(message.bytes(), text.as_bytes());
        assert_eq!(message.params().unwrap(), json!({"a":[2.5,"é"],"b":1}));
        assert_eq!(message.result().unwrap(), Value::Null);
    }

    #[test]
    fn salvages_ids_from_bodies_with_invalid_utf8() {
        let mut body = br#"{"jsonrpc":"2.0","id":12,"method":"textDocument/hover","params":{"x":""#.to_vec();
        body.extend_from_slice(&[0xff, 0xfe]);
        body.extend_from_slice(br#""}}"#);
        assert!(Message::parse(body.clone()).is_err());
        assert_eq!(salvage_request_id(&body), Some(RequestId::Number(12)));
        assert_eq!(salvage_request_id(b"{nonsense"), None);
    }
}
