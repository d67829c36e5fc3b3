//! Fuzzes the `initialize` patchers with arbitrary JSON.
//!
//! The input is parsed as JSON when it is JSON (so the seeds are readable); every input is
//! also used as a recipe for a JSON value biased towards the members the patchers touch. For
//! each value, both patchers never panic and:
//! - params (`patch_params_for_fsac`): a non-object comes back unchanged; an object comes
//!   back with `capabilities.textDocument.publishDiagnostics` an object (the editor's own kept
//!   when it was one), `initializationOptions` a non-empty object (the editor's own kept when
//!   it was one), every other member unchanged, and `automatic_workspace_init` true exactly
//!   when the options were filled in or the editor asked for it;
//! - result (`patch_result_for_editor`): a non-object comes back unchanged; an object comes
//!   back with `capabilities.executeCommandProvider.commands` an array holding every fslens
//!   command id exactly once and every other entry FSAC sent, in order;
//! - patching twice equals patching once, for both.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use fslens::commands::registry::Command;
use fslens::proxy::initialize::{automatic_workspace_init, patch_params_for_fsac, patch_result_for_editor};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

const KEYS: &[&str] = &[
    "capabilities",
    "textDocument",
    "publishDiagnostics",
    "initializationOptions",
    "AutomaticWorkspaceInit",
    "executeCommandProvider",
    "commands",
    "hoverProvider",
    "processId",
];

/// An arbitrary JSON value whose keys and strings are often the ones the patchers look at.
fn value(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Value> {
    let top = if depth == 0 { 5 } else { 7 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(bool::arbitrary(u)?),
        2 => json!(i64::arbitrary(u)?),
        3 => json!(f64::arbitrary(u)?),
        4 => Value::String(String::arbitrary(u)?),
        5 => {
            let mut ids: Vec<&str> = Command::ids().collect();
            ids.push("fsharp.other");
            Value::String(ids[u.choose_index(ids.len())?].to_owned())
        }
        6 => {
            let len = u.int_in_range(0..=4)?;
            Value::Array((0..len).map(|_| value(u, depth - 1)).collect::<arbitrary::Result<_>>()?)
        }
        _ => {
            let mut map = Map::new();
            for _ in 0..u.int_in_range(0..=4)? {
                let key = if bool::arbitrary(u)? { String::arbitrary(u)? } else { KEYS[u.choose_index(KEYS.len())?].to_owned() };
                map.insert(key, value(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

fn object_at<'a>(value: &'a Value, path: &str) -> &'a Map<String, Value> {
    value.pointer(path).and_then(Value::as_object).unwrap_or_else(|| panic!("{path} is not an object in {value}"))
}

fn check_params(input: &Value) {
    let once = patch_params_for_fsac(input.clone());
    let twice = patch_params_for_fsac(once.clone());
    assert_eq!(twice, once, "patching params is not idempotent for {input}");
    let Some(before) = input.as_object() else {
        assert_eq!(&once, input, "a non-object was changed");
        return;
    };
    object_at(&once, "/capabilities/textDocument/publishDiagnostics");
    if let Some(Value::Object(own)) = input.pointer("/capabilities/textDocument/publishDiagnostics") {
        assert_eq!(object_at(&once, "/capabilities/textDocument/publishDiagnostics"), own, "the editor's publishDiagnostics changed");
    }
    // Capabilities the editor declared are completed, never dropped or changed.
    if let Some(Value::Object(own)) = input.get("capabilities") {
        let patched = object_at(&once, "/capabilities");
        for (key, member) in own {
            if key != "textDocument" {
                assert_eq!(patched.get(key), Some(member), "capability {key} changed");
            }
        }
        if let Some(Value::Object(own)) = own.get("textDocument") {
            let patched = object_at(&once, "/capabilities/textDocument");
            for (key, member) in own {
                if key != "publishDiagnostics" {
                    assert_eq!(patched.get(key), Some(member), "textDocument capability {key} changed");
                }
            }
        }
    }
    let options = object_at(&once, "/initializationOptions");
    assert!(!options.is_empty(), "initializationOptions left empty");
    let own_options = match input.get("initializationOptions") {
        Some(Value::Object(own)) if !own.is_empty() => Some(own),
        _ => None,
    };
    match own_options {
        Some(own) => {
            assert_eq!(options, own, "the editor's initializationOptions changed");
            assert_eq!(
                automatic_workspace_init(&once),
                own.get("AutomaticWorkspaceInit") == Some(&Value::Bool(true)),
                "automatic_workspace_init does not follow the editor's choice"
            );
        }
        None => assert!(automatic_workspace_init(&once), "options were filled in without AutomaticWorkspaceInit"),
    }
    let patched = once.as_object().expect("object stays an object");
    for (key, member) in before {
        if key != "capabilities" && key != "initializationOptions" {
            assert_eq!(patched.get(key), Some(member), "member {key} changed");
        }
    }
    assert_eq!(patched.len(), before.len() + usize::from(!before.contains_key("capabilities")) + usize::from(!before.contains_key("initializationOptions")));
}

fn check_result(input: &Value) {
    let once = patch_result_for_editor(input.clone());
    let twice = patch_result_for_editor(once.clone());
    assert_eq!(twice, once, "patching the result is not idempotent for {input}");
    let Some(before) = input.as_object() else {
        assert_eq!(&once, input, "a non-object was changed");
        return;
    };
    let list = once
        .pointer("/capabilities/executeCommandProvider/commands")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no commands array in {once}"));
    for id in Command::ids() {
        let count = list.iter().filter(|entry| entry.as_str() == Some(id)).count();
        assert_eq!(count, 1, "{id} advertised {count} times in {once}");
    }
    // What FSAC advertised is kept, in order (ours aside).
    let ours = |entry: &&Value| entry.as_str().is_some_and(|id| Command::ids().any(|known| known == id));
    let theirs: Vec<&Value> = match input.pointer("/capabilities/executeCommandProvider/commands") {
        Some(Value::Array(own)) => own.iter().filter(|entry| !ours(entry)).collect(),
        _ => Vec::new(),
    };
    let kept: Vec<&Value> = list.iter().filter(|entry| !ours(entry)).collect();
    assert_eq!(kept, theirs, "FSAC's commands were not kept");
    if let Some(Value::Object(own)) = input.pointer("/capabilities/executeCommandProvider") {
        let patched = object_at(&once, "/capabilities/executeCommandProvider");
        for (key, member) in own {
            if key != "commands" {
                assert_eq!(patched.get(key), Some(member), "executeCommandProvider.{key} changed");
            }
        }
    }
    let patched = once.as_object().expect("object stays an object");
    for (key, member) in before {
        if key != "capabilities" {
            assert_eq!(patched.get(key), Some(member), "member {key} changed");
        }
    }
}

fn check(input: &Value) {
    check_params(input);
    check_result(input);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(parsed) = serde_json::from_slice::<Value>(data) {
        check(&parsed);
    }
    if let Ok(built) = value(&mut Unstructured::new(data), 5) {
        check(&built);
    }
});
