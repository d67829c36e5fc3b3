//! A find reads only the files whose bytes hold a name it looks for (`syntax::prefilter`),
//! and must still list every site: the real binary, the syntax layer answering (`--fsac`
//! names a program that does not exist), on a workspace written here.

use std::path::Path;

use serde_json::Value;

use crate::support::syntax_find::syntax_find;

fn find(root: &Path, arguments: &[&str]) -> Value {
    syntax_find(root, arguments)
}

/// `(file, line, kind)` of every row.
fn rows(answer: &Value) -> Vec<(String, u64, String)> {
    answer["sites"]
        .as_array()
        .unwrap_or_else(|| panic!("no sites: {answer:#}"))
        .iter()
        .map(|site| {
            (
                site["file"].as_str().unwrap_or_default().to_owned(),
                site["range"]["start"]["line"].as_u64().unwrap_or_default(),
                site["kind"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// One project: a record with a member, a file that uses the member without naming the type,
/// an operator used in another file, and twenty files that mention none of them.
fn workspace() -> tempfile::TempDir {
    let directory = tempfile::tempdir().expect("temporary directory");
    let root = directory.path();
    let mut files = vec![
        (
            "Shapes.fs",
            "module Lib.Shapes\n\ntype Square =\n    { Side: float }\n    member this.Area = this.Side * this.Side\n",
        ),
        ("Uses.fs", "module Lib.Uses\n\nlet areaOf square = square.Area\nlet sideOf square = square.Side\n"),
        ("Ops.fs", "module Lib.Ops\n\nlet (>>=) value binder = Option.bind binder value\n"),
        ("Chain.fs", "module Lib.Chain\n\nopen Lib.Ops\n\nlet twice = Some 1 >>= (fun one -> Some (one * 2))\n"),
    ];
    let noise: Vec<(String, String)> = (0..20)
        .map(|slot| (format!("Noise{slot}.fs"), format!("module Lib.Noise{slot}\n\nlet quiet{slot} = {slot}\n")))
        .collect();
    files.extend(noise.iter().map(|(name, text)| (name.as_str(), text.as_str())));
    let items: String = files.iter().map(|(name, _)| format!("    <Compile Include=\"{name}\" />\n")).collect();
    std::fs::write(
        root.join("Lib.fsproj"),
        format!("<Project Sdk=\"Microsoft.NET.Sdk\">\n  <ItemGroup>\n{items}  </ItemGroup>\n</Project>\n"),
    )
    .unwrap();
    for (name, text) in files {
        std::fs::write(root.join(name), text).unwrap();
    }
    directory
}

#[test]
fn a_find_reads_the_files_holding_its_name_and_no_others() {
    let directory = workspace();
    let root = directory.path().canonicalize().unwrap();
    let answer = find(&root, &["Area"]);
    assert_eq!(answer["via"], "syntax", "{answer:#}");
    assert_eq!(
        rows(&answer),
        [("Shapes.fs".into(), 4, "definition".into()), ("Uses.fs".into(), 2, "member-usage".into())]
    );
    let searched = &answer["filesSearched"];
    assert_eq!(searched["workspaceFiles"], 24, "{searched:#}");
    assert_eq!(searched["scannedFiles"], 24, "{searched:#}");
    assert_eq!(searched["candidateFiles"], 2, "{searched:#}");
    assert_eq!(searched["everyFileKept"], false, "{searched:#}");

    // An operator is looked for by its characters.
    let operator = find(&root, &[">>="]);
    assert_eq!(
        rows(&operator),
        [("Chain.fs".into(), 4, "reference".into()), ("Ops.fs".into(), 2, "definition".into())]
    );
    assert_eq!(operator["filesSearched"]["candidateFiles"], 2);
    // A case-insensitive substring finds what the exact name would, and keeps reading only
    // the files that hold it in some case.
    // (`areaOf` holds it too.)
    let loose = find(&root, &["AREA", "--substring"]);
    let mut expected = rows(&answer);
    expected.insert(1, ("Uses.fs".into(), 2, "definition".into()));
    assert_eq!(rows(&loose), expected, "{loose:#}");
    assert_eq!(loose["filesSearched"]["candidateFiles"], 2);
}

#[test]
fn a_types_members_are_found_in_files_that_never_name_the_type() {
    let directory = workspace();
    let root = directory.path().canonicalize().unwrap();
    // `Uses.fs` names neither `Square` nor `Lib.Shapes`: the first scan (for `Square`) leaves
    // it out, the second (for the members resolved: `Side`, `Area`) brings it in.
    let answer = find(&root, &["Square", "--kind", "members"]);
    let found = rows(&answer);
    for expected in [
        ("Shapes.fs".to_owned(), 3, "definition".to_owned()),
        ("Shapes.fs".to_owned(), 4, "definition".to_owned()),
        ("Uses.fs".to_owned(), 2, "member-usage".to_owned()),
        ("Uses.fs".to_owned(), 3, "field-read".to_owned()),
    ] {
        assert!(found.contains(&expected), "{expected:?} missing from {found:?}: {answer:#}");
    }
    let names = answer["filesSearched"]["names"].as_array().unwrap().clone();
    assert_eq!(names[0], "Square", "{names:?}");
    assert!(names.contains(&"Area".into()) && names.contains(&"Side".into()), "{names:?}");
    assert_eq!(answer["filesSearched"]["candidateFiles"], 2, "{answer:#}");
}
