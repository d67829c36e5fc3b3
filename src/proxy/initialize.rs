//! The `initialize` handshake: what FSAC must be told, and what the editor must be told back.
//!
//! FSAC only pushes diagnostics to clients that declare `textDocument.publishDiagnostics`, and
//! only loads a workspace by itself when `initializationOptions.AutomaticWorkspaceInit` is set
//! (docs/fsac-protocol.md §2). fslens depends on both, so the editor's params are
//! completed (never overridden). FSAC advertises no commands, so fslens's own are added to
//! `executeCommandProvider` in FSAC's result.

use serde_json::{Map, Value, json};

use crate::commands::registry::Command;

/// Completes the editor's `initialize` params for FSAC. Returns the params to forward.
pub fn patch_params_for_fsac(mut params: Value) -> Value {
    let Some(object) = params.as_object_mut() else {
        return params;
    };
    let capabilities = object_member(object, "capabilities");
    let text_document = object_member(capabilities, "textDocument");
    object_member(text_document, "publishDiagnostics");

    // An editor that sends its own options (Ionide sends AutomaticWorkspaceInit: false and
    // drives fsharp/workspaceLoad itself) is left in charge of loading. Options that are not
    // an object cannot say so (FSAC reads them as absent), so they count as missing: kept,
    // nobody would load the workspace.
    let options_missing = match object.get("initializationOptions") {
        Some(Value::Object(options)) => options.is_empty(),
        _ => true,
    };
    if options_missing {
        object.insert("initializationOptions".to_owned(), json!({ "AutomaticWorkspaceInit": true }));
    }
    params
}

/// Whether FSAC will load the workspace by itself with these (patched) params.
pub fn automatic_workspace_init(params: &Value) -> bool {
    params.pointer("/initializationOptions/AutomaticWorkspaceInit").and_then(Value::as_bool).unwrap_or(false)
}

/// Adds fslens's commands to the `executeCommandProvider` of an `initialize` result.
pub fn patch_result_for_editor(mut result: Value) -> Value {
    let Some(object) = result.as_object_mut() else {
        return result;
    };
    let capabilities = object_member(object, "capabilities");
    let provider = object_member(capabilities, "executeCommandProvider");
    let commands = provider.entry("commands").or_insert_with(|| Value::Array(Vec::new()));
    if !commands.is_array() {
        *commands = Value::Array(Vec::new());
    }
    if let Value::Array(commands) = commands {
        // Each of ours exactly once: an editor registers every advertised id as a command,
        // and VS Code refuses to register an id twice.
        let mut seen = [false; Command::ALL.len()];
        commands.retain(|existing| match existing.as_str().and_then(|id| Command::ids().position(|ours| ours == id)) {
            Some(index) => !std::mem::replace(&mut seen[index], true),
            None => true,
        });
        for command in Command::ids() {
            if !commands.iter().any(|existing| existing == command) {
                commands.push(json!(command));
            }
        }
    }
    result
}

/// The `initialize` result fslens gives when no FSAC runs: only its own commands.
pub fn result_without_fsac() -> Value {
    patch_result_for_editor(json!({
        "capabilities": { "textDocumentSync": { "openClose": true, "change": 2 } },
        "serverInfo": { "name": "fslens", "version": env!("CARGO_PKG_VERSION") }
    }))
}

/// The member `key` of `object` as an object, replacing a non-object value.
fn object_member<'a>(object: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let value = object.entry(key).or_insert_with(|| Value::Object(Map::new()));
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    match value {
        Value::Object(map) => map,
        _ => unreachable!("just replaced by an object"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn pretty(value: &Value) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn adds_what_fsac_needs_to_bare_params() {
        let patched = patch_params_for_fsac(json!({"processId": 1, "rootUri": "file:///w", "capabilities": {}}));
        expect![[r#"{"capabilities":{"textDocument":{"publishDiagnostics":{}}},"initializationOptions":{"AutomaticWorkspaceInit":true},"processId":1,"rootUri":"file:///w"}"#]]
            .assert_eq(&pretty(&patched));
        assert!(automatic_workspace_init(&patched));
    }

    #[test]
    fn keeps_the_editors_own_choices() {
        let patched = patch_params_for_fsac(json!({
            "capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": true}, "hover": {}}},
            "initializationOptions": {"AutomaticWorkspaceInit": false, "KeywordsAutocomplete": true}
        }));
        expect![[r#"{"capabilities":{"textDocument":{"hover":{},"publishDiagnostics":{"relatedInformation":true}}},"initializationOptions":{"AutomaticWorkspaceInit":false,"KeywordsAutocomplete":true}}"#]]
            .assert_eq(&pretty(&patched));
        assert!(!automatic_workspace_init(&patched));
    }

    #[test]
    fn repairs_malformed_members_and_leaves_non_objects_alone() {
        let patched = patch_params_for_fsac(json!({"capabilities": 5, "initializationOptions": {}}));
        expect![[r#"{"capabilities":{"textDocument":{"publishDiagnostics":{}}},"initializationOptions":{"AutomaticWorkspaceInit":true}}"#]]
            .assert_eq(&pretty(&patched));
        assert_eq!(patch_params_for_fsac(json!([1])), json!([1]));
    }

    /// Found by the `initialize_patcher` fuzz target: non-object options were forwarded as
    /// they were, so FSAC did not load the workspace and fslens left loading to the editor.
    #[test]
    fn options_that_are_not_an_object_count_as_missing() {
        for options in [json!([]), json!(["AutomaticWorkspaceInit"]), json!("x"), json!(true), json!(0)] {
            let patched = patch_params_for_fsac(json!({"capabilities": {}, "initializationOptions": options}));
            assert_eq!(patched["initializationOptions"], json!({"AutomaticWorkspaceInit": true}), "{options}");
            assert!(automatic_workspace_init(&patched));
        }
    }

    #[test]
    fn advertises_fslens_commands_next_to_fsac_capabilities() {
        let patched = patch_result_for_editor(json!({
            "capabilities": {"hoverProvider": true, "executeCommandProvider": {"commands": ["other"]}},
            "serverInfo": {"name": "FsAutoComplete", "version": "0.83.0"}
        }));
        expect![[r#"{"capabilities":{"executeCommandProvider":{"commands":["other","fslens.status","fslens.restart","fslens.doctor","fslens.find","fslens.testsForSymbol","fslens.fieldImpact","fslens.check","fslens.diagnostics","fslens.makeInternalVisible","fslens.outline","fslens.explainDiagnostic","fslens.diagnosticFixes","fslens.suggestOpen","fslens.referencedSymbols","fslens.nugetTypes","fslens.nugetMembers","fslens.symbolSearch","fslens.readSymbol","fslens.readEnclosing","fslens.rename","fslens.typeHierarchy","fslens.runTests","fslens.affectedTests","fslens.unionCaseImpact","fslens.signatureDrift","fslens.projectInspect","fslens.deadCode"]},"hoverProvider":true},"serverInfo":{"name":"FsAutoComplete","version":"0.83.0"}}"#]]
            .assert_eq(&pretty(&patched));
        let fresh = patch_result_for_editor(json!({"capabilities": {}}));
        assert_eq!(
            fresh["capabilities"]["executeCommandProvider"]["commands"],
            json!(Command::ids().collect::<Vec<_>>())
        );
        // Found by the `initialize_patcher` fuzz target: ids already advertised twice stayed twice.
        let doubled = patch_result_for_editor(json!({
            "capabilities": {"executeCommandProvider": {"commands": ["fslens.status", 1, "fslens.status", "other", "fslens.status"]}}
        }));
        expect![[r#"{"capabilities":{"executeCommandProvider":{"commands":["fslens.status",1,"other","fslens.restart","fslens.doctor","fslens.find","fslens.testsForSymbol","fslens.fieldImpact","fslens.check","fslens.diagnostics","fslens.makeInternalVisible","fslens.outline","fslens.explainDiagnostic","fslens.diagnosticFixes","fslens.suggestOpen","fslens.referencedSymbols","fslens.nugetTypes","fslens.nugetMembers","fslens.symbolSearch","fslens.readSymbol","fslens.readEnclosing","fslens.rename","fslens.typeHierarchy","fslens.runTests","fslens.affectedTests","fslens.unionCaseImpact","fslens.signatureDrift","fslens.projectInspect","fslens.deadCode"]}}}"#]]
            .assert_eq(&pretty(&doubled));
    }
}
