//! fslens's ECMA-335 reader against a second, independent reader: System.Reflection.Metadata,
//! the metadata reader the .NET runtime ships, driven by tests/metadata/MetadataDump (a small F#
//! program, built by the test through the real `dotnet`) over real assemblies of the installed
//! SDK: its reference pack and the FSharp.Core its compiler ships. For every TypeDef:
//! namespace, name, enclosing type and visibility; for every type its methods and fields in
//! table order with their accessibility, then its properties and events. Also: damaged copies
//! of a real assembly are errors, never panics.

use std::path::PathBuf;
use std::process::Command;

use crate::support::dotnet::{built_tool, reference_assembly, sdk_fsharp_core};
use fslens::metadata::{Assembly, MemberKind, read_assembly, read_assembly_file};
use serde_json::Value;

fn independent_dump(paths: &[PathBuf]) -> Value {
    let output = Command::new("dotnet")
        .arg(built_tool("metadata/MetadataDump"))
        .args(paths)
        .output()
        .expect("run the System.Reflection.Metadata dump");
    assert!(output.status.success(), "the metadata dump failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("the dump is JSON")
}

/// Our view in the dump's shape: one line per type, method and field.
fn our_lines(assembly: &Assembly) -> Vec<String> {
    let mut lines = Vec::new();
    for (index, info) in assembly.types.iter().enumerate() {
        if info.forwarded_to.is_some() {
            continue;
        }
        let enclosing_row = info.enclosing.map_or(0, |outer| outer + 2);
        lines.push(format!(
            "type {} {}.{} in {} {}",
            index + 2,
            info.namespace,
            info.metadata_name,
            enclosing_row,
            info.accessibility.as_str()
        ));
        for member in &info.members {
            match member.kind {
                MemberKind::Method | MemberKind::Constructor => {
                    lines.push(format!("  method {} {}", member.name, member.accessibility.as_str()))
                }
                MemberKind::Field => lines.push(format!("  field {} {}", member.name, member.accessibility.as_str())),
                MemberKind::Property => lines.push(format!("  property {}", member.name)),
                MemberKind::Event => lines.push(format!("  event {}", member.name)),
            }
        }
    }
    lines
}

fn their_lines(dump: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for info in dump["types"].as_array().expect("types") {
        lines.push(format!(
            "type {} {}.{} in {} {}",
            info["row"],
            info["namespace"].as_str().unwrap_or_default(),
            info["name"].as_str().unwrap_or_default(),
            info["enclosingRow"],
            info["visibility"].as_str().unwrap_or_default()
        ));
        for (key, prefix) in [("methods", "  method"), ("fields", "  field")] {
            for member in info[key].as_array().expect("members") {
                lines.push(format!(
                    "{prefix} {} {}",
                    member["name"].as_str().unwrap_or_default(),
                    member["access"].as_str().unwrap_or_default()
                ));
            }
        }
        for (key, prefix) in [("properties", "  property"), ("events", "  event")] {
            for name in info[key].as_array().expect("names") {
                lines.push(format!("{prefix} {}", name.as_str().unwrap_or_default()));
            }
        }
    }
    lines
}

#[test]
fn types_methods_and_fields_match_system_reflection_metadata_on_real_assemblies() {
    let mut paths = vec![sdk_fsharp_core()];
    for name in ["System.Runtime.dll", "netstandard.dll", "System.Collections.dll", "System.Linq.dll"] {
        paths.push(reference_assembly(name));
    }
    let dump = independent_dump(&paths);
    let mut compared_lines = 0;
    for path in &paths {
        let theirs = &dump[path.to_str().expect("utf-8 path")];
        let ours = read_assembly_file(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(Some(ours.name.as_str()), theirs["assembly"].as_str(), "{}", path.display());
        let (our_view, their_view) = (our_lines(&ours), their_lines(theirs));
        compared_lines += their_view.len();
        let first_difference = our_view.iter().zip(&their_view).position(|(a, b)| a != b);
        assert!(
            first_difference.is_none() && our_view.len() == their_view.len(),
            "{}: first difference at line {first_difference:?}: ours {:?}, System.Reflection.Metadata {:?} ({} vs {} lines)",
            path.display(),
            first_difference.map(|line| &our_view[line]),
            first_difference.map(|line| &their_view[line]),
            our_view.len(),
            their_view.len()
        );
    }
    assert!(compared_lines > 30_000, "only {compared_lines} lines compared");
}

#[test]
fn a_facade_assembly_lists_its_type_forwarders() {
    let facade = read_assembly_file(&reference_assembly("netstandard.dll")).expect("netstandard reads");
    let forwarded: Vec<_> = facade.types.iter().filter(|info| info.kind == "forwarder").collect();
    assert!(forwarded.len() > 100, "{} forwarders", forwarded.len());
    let string = forwarded.iter().find(|info| info.full_name == "System.String").expect("System.String forwarded");
    assert!(string.forwarded_to.as_deref().is_some_and(|target| !target.is_empty()));
}

#[test]
fn fsharp_core_reads_with_kinds_signatures_and_obsolete_flags() {
    let core = read_assembly_file(&sdk_fsharp_core()).expect("FSharp.Core reads");
    let find = |full_name: &str| {
        core.types.iter().find(|info| info.full_name == full_name).unwrap_or_else(|| panic!("{full_name} is listed"))
    };
    assert_eq!(find("Microsoft.FSharp.Collections.ListModule").kind, "module");
    assert_eq!(find("Microsoft.FSharp.Core.FSharpOption").kind, "union");
    assert_eq!(find("Microsoft.FSharp.Core.FSharpOption").generic_parameters, ["T"]);
    let map = find("Microsoft.FSharp.Collections.ListModule")
        .members
        .iter()
        .find(|member| member.name == "Map")
        .expect("List.map is listed");
    assert_eq!(map.kind, MemberKind::Method);
    assert!(map.is_static && map.signature.contains("mapping: FSharpFunc<T, TResult>"), "{}", map.signature);
    assert!(
        core.types.iter().flat_map(|info| &info.members).any(|member| member.is_obsolete),
        "some member is obsolete"
    );
}

#[test]
fn damaged_copies_of_a_real_assembly_are_errors_not_panics() {
    let bytes = std::fs::read(reference_assembly("System.Collections.dll")).expect("read");
    assert!(read_assembly(&bytes).is_ok());
    let mut failures = 0;
    for length in (0..bytes.len()).step_by(bytes.len() / 97 + 1) {
        if read_assembly(&bytes[..length]).is_err() {
            failures += 1;
        }
    }
    assert!(failures > 0);
    // Flip bytes across the file: whatever comes out, the reader returns instead of panicking.
    let mut state = 0x2545_F491_u32;
    for _ in 0..400 {
        let mut damaged = bytes.clone();
        for _ in 0..8 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let position = state as usize % damaged.len();
            damaged[position] = damaged[position].wrapping_add((state >> 24) as u8 | 1);
        }
        let _ = read_assembly(&damaged);
    }
}
