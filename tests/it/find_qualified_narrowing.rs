//! A cold qualified find (`A.B.f`) reads only the files that can use what it names: files
//! that can see the declaration (after it in compile order, or in a project that references
//! its project) and whose bytes write its qualifier. What the bytes cannot prove widens the set:
//! `[<AutoOpen>]`, a field reached through a value's type, a module abbreviation. The real
//! binary answers from the syntax layer (no FSAC, no cache, so every find is cold).

use std::path::Path;

use serde_json::Value;

use crate::support::syntax_find::syntax_find;

/// One project: its name, the projects it references, and its files in compile order as
/// (file name, text).
type ProjectSpec<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);

/// Writes `projects` under `root`, each in its own directory.
fn write_workspace(root: &Path, projects: &[ProjectSpec<'_>]) {
    for (name, references, files) in projects {
        let directory = root.join(name);
        std::fs::create_dir_all(&directory).unwrap();
        let items: String = files.iter().map(|(file, _)| format!("    <Compile Include=\"{file}\" />\n")).collect();
        let references: String = references
            .iter()
            .map(|reference| format!("    <ProjectReference Include=\"../{reference}/{reference}.fsproj\" />\n"))
            .collect();
        std::fs::write(
            directory.join(format!("{name}.fsproj")),
            format!(
                "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <ItemGroup>\n{items}  </ItemGroup>\n  <ItemGroup>\n{references}  </ItemGroup>\n</Project>\n"
            ),
        )
        .unwrap();
        for (file, text) in *files {
            std::fs::write(directory.join(file), text).unwrap();
        }
    }
}

/// (file, line, kind) of every site, sorted.
fn sites(answer: &Value) -> Vec<(String, u64, String)> {
    let mut sites: Vec<(String, u64, String)> = answer["sites"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer:#}"))
        .iter()
        .map(|site| {
            (
                site["file"].as_str().unwrap().to_owned(),
                site["range"]["start"]["line"].as_u64().unwrap(),
                site["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    sites.sort();
    sites
}

fn site(file: &str, line: u64, kind: &str) -> (String, u64, String) {
    (file.to_owned(), line, kind.to_owned())
}

const CORE: (&str, &str) = ("Core.fs", "module Acme.Core\n\nlet helper x = x + 1\n");

fn find_in(projects: &[ProjectSpec<'_>], query: &str) -> Value {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    write_workspace(&root, projects);
    syntax_find(&root, &[query, "--max-results", "200"])
}

#[test]
fn a_cold_qualified_find_reads_only_the_files_that_can_use_it() {
    let answer = find_in(
        &[
            (
                "Lib",
                &[],
                &[
                    // Before the declaration in compile order: it cannot use it (Core only in a comment).
                    ("Early.fs", "module Acme.Early\n// Core\nlet helper = 1\nlet early = helper\n"),
                    CORE,
                    // Another module's helper: it never names Core.
                    ("Other.fs", "module Acme.Other\n\nlet helper x = x * 2\nlet other = helper 1\n"),
                ],
            ),
            (
                "App",
                &["Lib"],
                &[
                    ("Uses.fs", "module App.Uses\n\nopen Acme.Core\n\nlet used = helper 1\n"),
                    ("Qualified.fs", "module App.Qualified\n\nlet helper = Acme.Core.helper 2\n"),
                    ("NoOpen.fs", "module App.NoOpen\n\nlet helper = 5\nlet plain = helper\n"),
                ],
            ),
            // A project that does not reference Lib cannot see it, whatever it opens.
            ("Side", &[], &[("Side.fs", "module Side.Side\n\nopen Acme.Core\n\nlet side = helper 1\n")]),
        ],
        "Acme.Core.helper",
    );
    assert_eq!(answer["outcome"], "found", "{answer:#}");
    assert_eq!(
        sites(&answer),
        [
            site("App/Qualified.fs", 2, "reference"),
            site("App/Uses.fs", 4, "reference"),
            site("Lib/Core.fs", 2, "definition")
        ],
        "{answer:#}"
    );
    let searched = &answer["filesSearched"];
    assert_eq!(searched["scannedFiles"], 7, "{searched}");
    assert_eq!(searched["candidateFiles"], 3, "{searched}");
    assert_eq!(searched["cannotUseFiles"], 4, "{searched}");
}

#[test]
fn a_name_only_the_declaring_file_declares_reads_every_file_that_holds_it() {
    // The files that can use `Acme.Core.helper` declare no other `helper`: a site elsewhere
    // could name it through a declaration nobody read, so every file holding it is read, as
    // an unqualified find does, and the site's symbol is named as before.
    let answer = find_in(
        &[
            ("Lib", &[], &[CORE]),
            ("App", &["Lib"], &[("Uses.fs", "module App.Uses\n\nopen Acme.Core\n\nlet used = helper 1\n")]),
            ("Side", &[], &[("Side.fs", "module Side.Side\n\nlet side = 1 // helper\n")]),
        ],
        "Acme.Core.helper",
    );
    assert_eq!(answer["filesSearched"]["candidateFiles"], 3, "{answer:#}");
    assert!(answer["filesSearched"].get("cannotUseFiles").is_none(), "{answer:#}");
    let used = answer["sites"].as_array().unwrap().iter().find(|site| site["file"] == "App/Uses.fs").unwrap();
    assert_eq!(used["symbolFullName"], "Acme.Core.helper", "{answer:#}");
}

#[test]
fn an_auto_open_module_is_used_without_its_name() {
    let answer = find_in(
        &[
            (
                "Lib",
                &[],
                &[
                    ("Auto.fs", "namespace Acme\n\n[<AutoOpen>]\nmodule Tools =\n    let tool x = x\n"),
                    ("Tools2.fs", "module Acme.Tools2\n\nlet tool x = x + 1\n"),
                ],
            ),
            ("App", &["Lib"], &[("UsesTool.fs", "module App.UsesTool\n\nopen Acme\n\nlet used = tool 1\n")]),
        ],
        "Acme.Tools.tool",
    );
    assert!(sites(&answer).contains(&site("App/UsesTool.fs", 4, "reference")), "{answer:#}");
}

#[test]
fn a_field_reached_through_a_value_is_found_where_its_record_is_never_named() {
    let answer = find_in(
        &[
            (
                "Lib",
                &[],
                &[
                    (
                        "Core.fs",
                        "module Acme.Core\n\ntype Point = { X: int; Y: int }\ntype Point3 = { X: int; Y: int; Z: int }\nlet origin: Point = { X = 0; Y = 0 }\n",
                    ),
                    ("Other.fs", "module Acme.Other\n\ntype Vector = { X: float }\n"),
                ],
            ),
            (
                "App",
                &["Lib"],
                &[("Reads.fs", "module App.Reads\n\nlet unused = 1\nlet x = Acme.Core.origin\nlet y = x.X\n")],
            ),
            ("Late", &["App"], &[("Far.fs", "module Late.Far\n\nlet far = App.Reads.x.X\n")]),
        ],
        "Acme.Core.Point.X",
    );
    let lines: Vec<(String, u64)> = sites(&answer).into_iter().map(|(file, line, _)| (file, line)).collect();
    assert!(lines.contains(&("Late/Far.fs".to_owned(), 2)), "{answer:#}");
    assert!(lines.contains(&("App/Reads.fs".to_owned(), 4)), "{answer:#}");
}

#[test]
fn a_module_abbreviation_stands_for_the_qualifier() {
    let answer = find_in(
        &[
            (
                "Lib",
                &[],
                &[
                    CORE,
                    ("Aliases.fs", "module Acme.Aliases\n\nmodule C = Acme.Core\n"),
                    ("Second.fs", "module Acme.Second\n\nopen Acme.Core\n\nlet helper = 2\n"),
                ],
            ),
            ("App", &["Lib"], &[("ViaAlias.fs", "module App.ViaAlias\n\nopen Acme.Aliases\n\nlet via = C.helper 3\n")]),
        ],
        "Acme.Core.helper",
    );
    assert!(sites(&answer).contains(&site("App/ViaAlias.fs", 4, "reference")), "{answer:#}");
}
