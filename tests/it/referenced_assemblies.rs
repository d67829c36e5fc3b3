//! `referencedSymbols`, `nugetTypes` and `nugetMembers` end to end over real assemblies: the
//! test builds a workspace whose `obj/project.assets.json` points at a packages folder holding
//! real assemblies copied from the SDK (its reference pack and its FSharp.Core) and from the
//! Fable.Core NuGet package, restored for real (never hand-made bytes).
//! The packages cover the cases users meet: an id that differs from its assembly's name
//! (Acme.FSharp.Runtime ships FSharp.Core.dll), a package whose compile asset is only `_._`
//! (Acme.Analyzers), a multi-assembly package (Acme.Platform: System.Reflection.Metadata + System.Console), a
//! package whose files are missing on disk (Acme.Missing) and one whose id equals its
//! assembly (Fable.Core). Each tool runs through `workspace/executeCommand` on the real binary
//! (with the FSAC double behind it), through the CLI, and through the MCP Python SDK client.

use crate::support;
use fslens::commands::registry::Command as FslensCommand;

use std::path::{Path, PathBuf};
use std::process::Command;

use fslens::commands::referenced::{ReferencedArguments, run};
use fslens::commands::registry::Command as Tool;
use fslens::metadata::read_assembly_file;
use fslens::metadata::restore::RestoreEnvironment;
use serde_json::{Value, json};
use support::double::{Editor, double_command, repository};

/// A real assembly by file name: Fable.Core from its NuGet package, the F# compiler's own
/// FSharp.Core, the rest from the SDK's reference pack.
fn reference_assembly(name: &str) -> PathBuf {
    match name {
        "Fable.Core.dll" => support::dotnet::package_file("Fable.Core", "4.3.0", "lib/netstandard2.0/Fable.Core.dll"),
        "FSharp.Core.dll" => support::dotnet::sdk_fsharp_core(),
        _ => support::dotnet::reference_assembly(name),
    }
}

/// (package id, version, [(asset path inside the package, source dll or None for `_._`)]).
type PackageSpec = (&'static str, &'static str, Vec<(&'static str, Option<&'static str>)>);

fn package_specs() -> Vec<PackageSpec> {
    vec![
        ("Fable.Core", "4.3.0", vec![("lib/netstandard2.0/Fable.Core.dll", Some("Fable.Core.dll"))]),
        ("Acme.FSharp.Runtime", "8.0.1", vec![("lib/netstandard2.1/FSharp.Core.dll", Some("FSharp.Core.dll"))]),
        ("Acme.Analyzers", "1.2.0", vec![("lib/netstandard2.0/_._", None)]),
        (
            "Acme.Platform",
            "2.0.0",
            vec![
                ("lib/netstandard2.0/System.Reflection.Metadata.dll", Some("System.Reflection.Metadata.dll")),
                ("lib/netstandard2.0/System.Console.dll", Some("System.Console.dll")),
            ],
        ),
        ("Acme.Missing", "0.1.0", vec![("lib/netstandard2.0/Acme.Missing.dll", None)]),
        (
            "Acme.Standard",
            "2.0.3",
            vec![
                ("ref/netstandard2.0/netstandard.dll", Some("netstandard.dll")),
                ("ref/netstandard2.0/System.Runtime.dll", Some("System.Runtime.dll")),
            ],
        ),
    ]
}

/// A workspace `<temp>/ws` with App/App.fsproj restored against `<temp>/packages`.
struct RestoredWorkspace {
    _temp: tempfile::TempDir,
    root: PathBuf,
    packages: PathBuf,
}

fn restored_workspace() -> RestoredWorkspace {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("ws");
    let packages = temp.path().join("packages");
    let project = root.join("App");
    std::fs::create_dir_all(project.join("obj")).unwrap();
    let mut references = String::new();
    let mut targets = serde_json::Map::new();
    let mut libraries = serde_json::Map::new();
    for (id, version, assets) in package_specs() {
        references.push_str(&format!("    <PackageReference Include=\"{id}\" Version=\"{version}\" />\n"));
        let relative = format!("{}/{version}", id.to_lowercase());
        let mut compile = serde_json::Map::new();
        for (asset, source) in assets {
            let target = packages.join(&relative).join(asset);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            match source {
                Some(dll) => {
                    std::fs::copy(reference_assembly(dll), &target).unwrap();
                }
                None if asset.ends_with("_._") => std::fs::write(&target, "").unwrap(),
                None => {} // listed by the restore, absent on disk
            }
            compile.insert(asset.to_owned(), json!({}));
        }
        targets.insert(format!("{id}/{version}"), json!({ "type": "package", "compile": compile, "runtime": compile }));
        libraries.insert(format!("{id}/{version}"), json!({ "type": "package", "path": relative, "files": [] }));
    }
    std::fs::write(
        project.join("App.fsproj"),
        format!(
            "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n  </PropertyGroup>\n  <ItemGroup>\n    <Compile Include=\"Program.fs\" />\n  </ItemGroup>\n  <ItemGroup>\n{references}  </ItemGroup>\n</Project>\n"
        ),
    )
    .unwrap();
    std::fs::write(project.join("Program.fs"), "module Program\n\nlet answer = 42\n").unwrap();
    let mut folders = serde_json::Map::new();
    folders.insert(format!("{}/", packages.display()), json!({}));
    let assets = json!({
        "version": 3,
        "targets": { "net8.0": targets },
        "libraries": libraries,
        "packageFolders": folders,
        "project": { "frameworks": { "net8.0": { "frameworkReferences": { "Microsoft.NETCore.App": {} } } } },
    });
    std::fs::write(project.join("obj/project.assets.json"), serde_json::to_string_pretty(&assets).unwrap()).unwrap();
    RestoredWorkspace { _temp: temp, root, packages }
}

/// No targeting pack: the framework must be reported unreadable, never silently skipped.
fn environment_without_dotnet() -> RestoreEnvironment {
    RestoreEnvironment { global_packages_folder: None, dotnet_roots: Vec::new() }
}

fn call(workspace: &Path, tool: Tool, argument: Value) -> Value {
    let arguments = ReferencedArguments::parse(tool, argument).expect("valid arguments");
    run(workspace, &arguments, &environment_without_dotnet()).expect("answer")
}

fn names(answer: &Value, list: &str, key: &str) -> Vec<String> {
    answer[list].as_array().unwrap().iter().map(|entry| entry[key].as_str().unwrap().to_owned()).collect()
}

/// Every page of an answer, following `nextCursor`: the `key` of each entry in `list`.
fn all_pages(workspace: &Path, tool: Tool, argument: Value, list: &str, key: &str) -> Vec<String> {
    let mut collected = Vec::new();
    let mut argument = argument;
    loop {
        let page = call(workspace, tool, argument.clone());
        collected.extend(names(&page, list, key));
        match page["nextCursor"].as_str() {
            Some(cursor) => argument["cursor"] = json!(cursor),
            None => return collected,
        }
    }
}

/// The public type full names of an assembly, straight from the reader.
fn public_types_of(dll: &str) -> Vec<String> {
    let assembly = read_assembly_file(&reference_assembly(dll)).unwrap();
    assembly.types.iter().filter(|info| info.is_visible_outside).map(|info| info.full_name.clone()).collect()
}

#[test]
fn nuget_types_resolves_package_ids_and_assembly_names_exactly() {
    let workspace = restored_workspace();
    let by_id =
        call(&workspace.root, Tool::NugetTypes, json!({ "packageId": "acme.fsharp.runtime", "maxResults": 2000 }));
    assert_eq!(by_id["via"], "metadata");
    assert_eq!(by_id["project"]["name"], "App");
    assert_eq!(by_id["restoreSource"]["kind"], "projectAssetsJson");
    assert_eq!(by_id["matchedPackage"], "Acme.FSharp.Runtime");
    assert_eq!(names(&by_id, "matchedAssemblies", "name"), ["FSharp.Core"]);
    let expected = public_types_of("FSharp.Core.dll");
    assert_eq!(by_id["total"], json!(expected.len()));
    let mut listed: Vec<String> = Vec::new();
    let mut page = by_id.clone();
    loop {
        listed.extend(names(&page, "types", "fullName"));
        let Some(cursor) = page["nextCursor"].as_str().map(str::to_owned) else { break };
        page = call(
            &workspace.root,
            Tool::NugetTypes,
            json!({ "packageId": "acme.fsharp.runtime", "maxResults": 2000, "cursor": cursor }),
        );
    }
    assert_eq!(listed, expected, "all pages together list every public type once, in order");
    assert!(by_id["types"].as_array().unwrap().iter().all(|entry| entry["accessibility"] != "internal"));

    // The assembly's simple name resolves too; a prefix never does.
    let by_assembly = call(&workspace.root, Tool::NugetTypes, json!({ "packageId": "FSharp.Core", "maxResults": 1 }));
    assert_eq!(by_assembly["total"], by_id["total"]);
    assert!(by_assembly["truncated"] == true && by_assembly["nextCursor"].is_string());
    let prefix = call(&workspace.root, Tool::NugetTypes, json!({ "packageId": "FSharp" }));
    assert_eq!(prefix["matchedAssemblies"], json!([]));
    assert!(prefix["hint"].as_str().unwrap().contains("never by prefix"), "{prefix}");
    let candidates = names(&prefix, "candidatePackages", "packageId");
    assert_eq!(candidates.first().map(String::as_str), Some("Acme.FSharp.Runtime"), "{candidates:?}");

    // Internal types appear only when asked for.
    let all = call(
        &workspace.root,
        Tool::NugetTypes,
        json!({ "packageId": "FSharp.Core", "includeNonPublic": true, "maxResults": 1 }),
    );
    assert!(all["total"].as_u64().unwrap() > by_id["total"].as_u64().unwrap());
}

#[test]
fn placeholders_multi_assembly_packages_and_missing_files_are_told_apart() {
    let workspace = restored_workspace();
    let placeholder = call(&workspace.root, Tool::NugetTypes, json!({ "packageId": "Acme.Analyzers" }));
    assert_eq!(placeholder["matchedPackage"], "Acme.Analyzers");
    assert_eq!(placeholder["matchedAssemblies"], json!([]));
    assert!(placeholder["hint"].as_str().unwrap().contains("no compile-time reference"), "{placeholder}");
    assert!(placeholder.get("candidatePackages").is_none());

    let browser = call(&workspace.root, Tool::NugetTypes, json!({ "packageId": "Acme.Platform", "maxResults": 2000 }));
    assert_eq!(names(&browser, "matchedAssemblies", "name"), ["System.Console", "System.Reflection.Metadata"]);
    // The page closes on the response budget, not on maxResults, and says so.
    assert_eq!(browser["truncatedByBudget"], true);
    let expected = [public_types_of("System.Console.dll"), public_types_of("System.Reflection.Metadata.dll")].concat();
    let listed = all_pages(
        &workspace.root,
        Tool::NugetTypes,
        json!({ "packageId": "Acme.Platform", "maxResults": 2000 }),
        "types",
        "fullName",
    );
    assert!(listed == expected, "{} listed, {} expected", listed.len(), expected.len());
    // Narrowing to one assembly of the package by its simple name.
    let event_only =
        all_pages(&workspace.root, Tool::NugetTypes, json!({ "packageId": "System.Console" }), "types", "fullName");
    assert!(event_only == public_types_of("System.Console.dll"));

    // The missing package and the absent targeting pack make every answer incomplete.
    assert_eq!(browser["complete"], false);
    let unreadable = names(&browser, "unreadableReferences", "name");
    assert!(unreadable.iter().any(|name| name.starts_with("Acme.Missing/0.1.0")), "{unreadable:?}");
    assert!(unreadable.iter().any(|name| name == "Microsoft.NETCore.App"), "{unreadable:?}");
    let missing = call(&workspace.root, Tool::NugetTypes, json!({ "packageId": "Acme.Missing" }));
    assert!(missing["hint"].as_str().unwrap().contains("none of its assemblies could be read"), "{missing}");
}

#[test]
fn nuget_members_lists_signatures_accessibility_and_obsolete_flags() {
    let workspace = restored_workspace();
    let members = call(
        &workspace.root,
        Tool::NugetMembers,
        json!({ "packageId": "Acme.FSharp.Runtime", "typeName": "Microsoft.FSharp.Collections.ListModule" }),
    );
    assert_eq!(names(&members, "matchedTypes", "fullName"), ["Microsoft.FSharp.Collections.ListModule"]);
    let assembly = read_assembly_file(&reference_assembly("FSharp.Core.dll")).unwrap();
    let list_module =
        assembly.types.iter().find(|info| info.full_name == "Microsoft.FSharp.Collections.ListModule").unwrap();
    let expected: Vec<String> = list_module
        .members
        .iter()
        .filter(|member| !member.is_hidden && member.accessibility.is_visible_outside())
        .map(|member| member.name.clone())
        .collect();
    assert_eq!(names(&members, "members", "name"), expected);
    assert!(expected.iter().any(|name| name == "Map") && expected.iter().any(|name| name == "Filter"));
    let map = members["members"].as_array().unwrap().iter().find(|member| member["name"] == "Map").unwrap();
    assert_eq!(map["kind"], "method");
    assert_eq!(map["isStatic"], true);
    assert_eq!(map["accessibility"], "public");
    assert!(map["signature"].as_str().unwrap().contains("list: FSharpList<T>"), "{map}");
    assert!(map["genericParameters"].as_array().unwrap().len() == 2);

    // A dotted tail and the display name resolve too; properties come with accessors.
    let option =
        call(&workspace.root, Tool::NugetMembers, json!({ "packageId": "FSharp.Core", "typeName": "fsharpoption" }));
    let value = option["members"].as_array().unwrap().iter().find(|member| member["name"] == "Value").unwrap();
    assert_eq!(value["kind"], "property");
    assert!(value["signature"].as_str().unwrap().contains("{ get }"), "{value}");

    // Obsolete members carry the flag (FSharp.Core marks some as [Obsolete]).
    let obsolete_type = assembly
        .types
        .iter()
        .find(|info| {
            info.is_visible_outside
                && info
                    .members
                    .iter()
                    .any(|member| member.is_obsolete && !member.is_hidden && member.accessibility.is_visible_outside())
        })
        .expect("FSharp.Core has an obsolete public member");
    let answer = call(
        &workspace.root,
        Tool::NugetMembers,
        json!({ "packageId": "FSharp.Core", "typeName": obsolete_type.full_name, "maxResults": 2000 }),
    );
    assert!(answer["members"].as_array().unwrap().iter().any(|member| member["isObsolete"] == true), "{answer}");

    // A facade's forwarder: the members come from the assembly it forwards to.
    let string = call(
        &workspace.root,
        Tool::NugetMembers,
        json!({ "packageId": "netstandard", "typeName": "System.String", "maxResults": 2000 }),
    );
    assert_eq!(string["matchedTypes"][0]["kind"], "forwarder", "{string}");
    assert_eq!(string["matchedTypes"][0]["resolvedIn"], "System.Runtime");
    let runtime = read_assembly_file(&reference_assembly("System.Runtime.dll")).unwrap();
    let string_type = runtime.types.iter().find(|info| info.full_name == "System.String").unwrap();
    let expected_string: Vec<String> = string_type
        .members
        .iter()
        .filter(|member| !member.is_hidden && member.accessibility.is_visible_outside())
        .map(|member| member.name.clone())
        .collect();
    assert!(expected_string.iter().any(|name| name == "Substring"));
    let listed = all_pages(
        &workspace.root,
        Tool::NugetMembers,
        json!({ "packageId": "netstandard", "typeName": "System.String" }),
        "members",
        "name",
    );
    assert!(listed == expected_string, "{} listed, {} expected", listed.len(), expected_string.len());
    assert!(string.get("hint").is_none(), "{}", string["hint"]);

    // A type the package does not have: the hint names the assembly searched.
    let miss =
        call(&workspace.root, Tool::NugetMembers, json!({ "packageId": "Fable.Core", "typeName": "ListModule" }));
    assert_eq!(miss["matchedTypes"], json!([]));
    assert!(miss["hint"].as_str().unwrap().contains("Fable.Core"), "{miss}");
}

#[test]
fn referenced_symbols_searches_every_readable_assembly_and_rejects_bad_input() {
    let workspace = restored_workspace();
    let answer = call(&workspace.root, Tool::ReferencedSymbols, json!({ "query": "option", "maxResults": 1000 }));
    let expected: Vec<String> = [
        "Fable.Core.dll",
        "FSharp.Core.dll",
        "System.Reflection.Metadata.dll",
        "System.Console.dll",
        "netstandard.dll",
        "System.Runtime.dll",
    ]
    .iter()
    .flat_map(|dll| {
        let assembly = read_assembly_file(&reference_assembly(dll)).unwrap();
        assembly
            .types
            .into_iter()
            .filter(|info| info.is_visible_outside && info.full_name.to_lowercase().contains("option"))
            .map(|info| info.full_name)
            .collect::<Vec<_>>()
    })
    .collect();
    let mut found = names(&answer, "symbols", "fullName");
    let mut expected_sorted = expected.clone();
    found.sort();
    expected_sorted.sort();
    assert_eq!(found, expected_sorted);
    assert!(found.iter().any(|name| name == "Microsoft.FSharp.Core.FSharpOption"));
    assert_eq!(answer["searchedAssemblies"], 6);
    // netstandard forwards System.String to System.Runtime, which is searched too: listed once.
    let strings =
        all_pages(&workspace.root, Tool::ReferencedSymbols, json!({ "query": "System.String" }), "symbols", "fullName");
    assert_eq!(strings.iter().filter(|name| *name == "System.String").count(), 1, "{strings:?}");

    let invalid = |argument: Value, tool: Tool| {
        ReferencedArguments::parse(tool, argument).expect_err("invalid").data()["argument"].clone()
    };
    assert_eq!(invalid(json!({}), Tool::ReferencedSymbols), "query");
    assert_eq!(invalid(json!({ "query": "  " }), Tool::ReferencedSymbols), "query");
    assert_eq!(invalid(json!({ "packageId": "X" }), Tool::NugetMembers), "typeName");
    assert_eq!(invalid(json!({ "packageId": "X", "maxResults": 5000 }), Tool::NugetTypes), "maxResults");
    assert_eq!(invalid(json!({ "packageId": "X", "typo": 1 }), Tool::NugetTypes), "typo");
    let arguments =
        ReferencedArguments::parse(Tool::NugetTypes, json!({ "packageId": "X", "projectPath": "Nope" })).unwrap();
    let error = run(&workspace.root, &arguments, &environment_without_dotnet()).expect_err("unknown project");
    assert_eq!(error.data()["argument"], "projectPath");
    let foreign = call(&workspace.root, Tool::NugetTypes, json!({ "packageId": "Fable.Core", "maxResults": 1 }));
    let arguments = ReferencedArguments::parse(
        Tool::NugetTypes,
        json!({ "packageId": "Acme.Platform", "maxResults": 1, "cursor": foreign["nextCursor"] }),
    )
    .unwrap();
    let error = run(&workspace.root, &arguments, &environment_without_dotnet()).expect_err("foreign cursor");
    assert_eq!(error.data()["argument"], "cursor");
}

#[test]
fn without_restore_output_the_global_packages_folder_is_read() {
    let workspace = restored_workspace();
    std::fs::remove_file(workspace.root.join("App/obj/project.assets.json")).unwrap();
    std::fs::remove_dir_all(workspace.packages.join("acme.missing")).unwrap();
    let environment =
        RestoreEnvironment { global_packages_folder: Some(workspace.packages.clone()), dotnet_roots: Vec::new() };
    let arguments =
        ReferencedArguments::parse(Tool::NugetTypes, json!({ "packageId": "Fable.Core", "maxResults": 2000 })).unwrap();
    let answer = run(&workspace.root, &arguments, &environment).unwrap();
    assert_eq!(answer["restoreSource"]["kind"], "globalPackagesFolder");
    assert_eq!(names(&answer, "types", "fullName"), public_types_of("Fable.Core.dll"));
    let unreadable = names(&answer, "unreadableReferences", "name");
    assert!(unreadable.iter().any(|name| name.starts_with("Acme.Missing")), "{unreadable:?}");
}

#[test]
fn the_cli_prints_each_tool() {
    let workspace = restored_workspace();
    let cli = |arguments: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
            .arg("--workspace")
            .arg(&workspace.root)
            .args(arguments)
            .env("NUGET_PACKAGES", workspace.root.join("no-such-folder"))
            .env("DOTNET_ROOT", workspace.root.join("no-dotnet"))
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = cli(&["nuget-types", "Acme.Platform", "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(names(&answer, "matchedAssemblies", "name"), ["System.Console", "System.Reflection.Metadata"]);

    let (code, stdout, stderr) = cli(&["nuget-members", "FSharp.Core", "ListModule"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("static Map<T, TResult>(mapping: FSharpFunc<T, TResult>, list: FSharpList<T>)"),
        "{stdout}"
    );
    assert!(stdout.contains("INCOMPLETE"), "the plain text says references were unreadable: {stdout}");

    let (code, stdout, stderr) = cli(&["referenced-symbols", "FSharpOption", "--max-results", "1", "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["returned"], 1);

    let (code, stdout, _) = cli(&["nuget-types", "Acme.Analyzers"]);
    assert_eq!(code, Some(2), "a miss exits 2");
    assert!(stdout.contains("no compile-time reference"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_commands_answer_through_the_proxy() {
    let workspace = restored_workspace();
    let runtime = tempfile::tempdir().unwrap();
    // FSAC takes a minute to load the workspace: the metadata commands do not wait for it.
    let mut editor =
        Editor::start(&workspace.root, runtime.path(), &double_command(), &[("FSAC_DOUBLE_SLOW_LOAD_MS", "60000")])
            .await;
    let started = std::time::Instant::now();
    let types =
        editor.execute(FslensCommand::NugetTypes, json!({ "packageId": "Acme.FSharp.Runtime", "maxResults": 3 })).await;
    let result = &types["result"];
    assert_eq!(result["via"], "metadata", "{types}");
    assert_eq!(result["returned"], 3);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "answered without waiting for FSAC");
    let status = editor.execute(FslensCommand::Status, json!({})).await;
    assert_ne!(status["result"]["state"], "ready", "FSAC was still loading: {status}");
    let next = editor
        .execute(
            FslensCommand::NugetTypes,
            json!({ "packageId": "Acme.FSharp.Runtime", "maxResults": 3, "cursor": result["nextCursor"] }),
        )
        .await;
    let all = public_types_of("FSharp.Core.dll");
    assert_eq!(names(&next["result"], "types", "fullName"), all[3..6].to_vec());

    let members = editor
        .execute(FslensCommand::NugetMembers, json!({ "packageId": "Fable.Core", "typeName": "EraseAttribute" }))
        .await;
    assert_eq!(names(&members["result"], "members", "kind"), ["constructor", "constructor"], "{members}");

    let symbols = editor
        .execute(FslensCommand::ReferencedSymbols, json!({ "query": "ConsoleKeyInfo", "maxResults": 1000 }))
        .await;
    let assemblies: Vec<String> = names(&symbols["result"], "symbols", "assembly");
    assert!(!assemblies.is_empty() && assemblies.iter().all(|name| name == "System.Console"), "{assemblies:?}");

    let error = editor.execute(FslensCommand::NugetMembers, json!({ "packageId": "Fable.Core" })).await;
    assert_eq!(error["error"]["code"], -32602, "{error}");
    assert_eq!(error["error"]["data"]["argument"], "typeName");
}

#[test]
fn the_mcp_tools_answer_for_an_agent() {
    let workspace = restored_workspace();
    let runtime = tempfile::tempdir().unwrap();
    let no_environment: &[(&str, &str)] = &[];
    let report =
        support::mcp::run_scenario("referenced_scenarios.py", &[], &workspace.root, runtime.path(), no_environment);
    let body = |key: &str| support::mcp::tool_body(&report, key).clone();
    assert!(!report["defaultTools"].as_array().unwrap().contains(&json!("nuget_types")), "{}", report["defaultTools"]);
    assert_eq!(body("activate")["activated"], json!(["assemblies"]));
    assert_eq!(report["tools"]["nuget_members"]["required"], json!(["packageId", "typeName"]));
    assert_eq!(report["tools"]["referenced_symbols"]["required"], json!(["query"]));

    let first = body("symbols");
    let second = body("symbolsNext");
    assert_eq!(first["returned"], 5);
    let mut both = names(&first, "symbols", "fullName");
    both.extend(names(&second, "symbols", "fullName"));
    let unique: std::collections::BTreeSet<&String> = both.iter().collect();
    assert_eq!(unique.len(), both.len(), "pages do not repeat entries");

    assert_eq!(body("typesById")["total"], body("typesByAssembly")["total"]);
    assert!(body("typesPlaceholder")["hint"].as_str().unwrap().contains("no compile-time reference"));
    let miss = body("typesMiss");
    assert_eq!(miss["matchedAssemblies"], json!([]));
    assert!(!miss["candidatePackages"].as_array().unwrap().is_empty());
    let members = body("members");
    assert!(names(&members, "members", "name").contains(&"Map".to_owned()));

    let pages = report["broadPages"].as_array().unwrap();
    assert!(pages.len() > 1, "the broad query needs several pages: {}", pages.len());
    let mut seen = Vec::new();
    for page in pages {
        assert_eq!(page["isError"], false);
        assert_eq!(page["cut"], false, "the bridge cut a page of {} bytes", page["bytes"]);
        assert_eq!(page["returned"], json!(page["names"].as_array().unwrap().len()));
        seen.extend(page["names"].as_array().unwrap().iter().map(|name| name.as_str().unwrap().to_owned()));
    }
    assert_eq!(json!(seen.len()), pages[0]["total"], "every entry arrives once over the pages");
    assert_eq!(report["membersMissingArgument"]["isError"], true);
    assert_eq!(report["membersMissingArgument"]["body"]["error"]["errorKind"], "invalid_argument");
}

#[test]
fn the_metadata_reader_is_pure() {
    let directory = repository().join("src/metadata");
    let mut checked = 0;
    for entry in std::fs::read_dir(&directory).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for forbidden in ["tokio::", "crate::lsp", "crate::proxy", "crate::commands", "unsafe {", "unsafe fn"] {
            assert!(!text.contains(forbidden), "{} mentions {forbidden}", entry.path().display());
        }
        checked += 1;
    }
    assert!(checked >= 7, "{checked} files checked");
}

/// A copy of `fixtures/nuget-restore` restored by the real `dotnet restore`: the metadata
/// commands read what the SDK wrote (obj/project.assets.json, the global packages folder, the
/// SDK's targeting pack), nothing hand-made.
#[test]
fn the_commands_read_a_real_dotnet_restore() {
    let workspace = support::double::fixture_copy("nuget-restore");
    support::dotnet::restore(&workspace.path().join("App/App.fsproj"));
    let environment = RestoreEnvironment::from_process();
    let ask = |tool: Tool, argument: Value| {
        let arguments = ReferencedArguments::parse(tool, argument).expect("valid arguments");
        run(workspace.path(), &arguments, &environment).expect("answer")
    };

    let types = ask(Tool::NugetTypes, json!({ "packageId": "Newtonsoft.Json", "maxResults": 2000 }));
    assert_eq!(types["restoreSource"]["kind"], "projectAssetsJson", "{types}");
    assert_eq!(types["matchedPackage"], "Newtonsoft.Json");
    let assemblies = types["matchedAssemblies"].as_array().unwrap();
    assert_eq!(names(&types, "matchedAssemblies", "name"), ["Newtonsoft.Json"]);
    // The same assembly, read straight from where the restore put it.
    let dll = assemblies[0]["path"].as_str().expect("the assembly's path");
    assert!(dll.contains("newtonsoft.json/13.0.4/"), "{dll}");
    let assembly = read_assembly_file(Path::new(dll)).unwrap();
    let expected: Vec<String> =
        assembly.types.iter().filter(|info| info.is_visible_outside).map(|info| info.full_name.clone()).collect();
    assert!(expected.iter().any(|name| name == "Newtonsoft.Json.JsonConvert"), "{expected:?}");
    assert_eq!(names(&types, "types", "fullName"), expected);
    assert_eq!(types["complete"], true, "every reference of a real restore is readable: {types}");

    let members = ask(Tool::NugetMembers, json!({ "packageId": "Newtonsoft.Json", "typeName": "JsonConvert" }));
    let member_names = names(&members, "members", "name");
    assert!(member_names.iter().any(|name| name == "SerializeObject"), "{member_names:?}");

    // The framework comes from the SDK's targeting pack: System.String is found there.
    let strings = ask(Tool::ReferencedSymbols, json!({ "query": "System.String", "maxResults": 1000 }));
    assert!(names(&strings, "symbols", "fullName").iter().any(|name| name == "System.String"), "{strings}");
    // The package's own type, found in the package's assembly (System.Text.Json's
    // JsonConverter matches the query too: a substring search).
    let converters = ask(Tool::ReferencedSymbols, json!({ "query": "JsonConvert", "maxResults": 1000 }));
    let symbols = converters["symbols"].as_array().unwrap();
    let convert = symbols.iter().find(|symbol| symbol["fullName"] == "Newtonsoft.Json.JsonConvert");
    assert_eq!(convert.map(|symbol| &symbol["assembly"]), Some(&json!("Newtonsoft.Json")), "{converters}");
}
