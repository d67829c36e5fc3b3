//! `fslens.deadCode` against the FSAC double (real MSBuild and FCS) on fixtures/dead: the
//! exact list of unused declarations (nothing kept alive by an attribute, a signature file, an
//! interface implementation, `nameof`, `typeof`, a string or a use from the other project
//! through InternalsVisibleTo is among them), what kept the others alive, what is not ruled
//! out, the bounds, and the compiler's word: the fixture still builds with every reported
//! declaration deleted.

use crate::support;
use fslens::commands::dead_code::{
    Accessibility, CandidateKind, DeadCodeAnswer, DeadCodeArguments, KeptAliveReason, NotRuledOutReason, Source,
};
use fslens::commands::find::answer::Via;
use fslens::commands::params::Bounded;
use fslens::commands::registry::Command;

use std::collections::BTreeMap;
use std::path::Path;

use support::double::{Editor, fixture_copy};

fn arguments() -> DeadCodeArguments {
    DeadCodeArguments {
        project_path: None,
        path: None,
        include_public: false,
        kinds: Vec::new(),
        max_candidates: Bounded::default(),
        timeout_ms: Default::default(),
    }
}

/// (full name, kind, accessibility, path, 1-based line, source) of every unused row, in order.
type UnusedKey = (String, CandidateKind, Accessibility, String, u32, Source);

fn unused_of(answer: &DeadCodeAnswer) -> Vec<UnusedKey> {
    answer
        .unused
        .iter()
        .map(|row| (row.full_name.clone(), row.kind, row.accessibility, row.path.clone(), row.line + 1, row.source))
        .collect()
}

fn unused(name: &str, kind: CandidateKind, access: Accessibility, path: &str, line: u32, source: Source) -> UnusedKey {
    (name.to_owned(), kind, access, path.to_owned(), line, source)
}

/// Each kept-alive reason with the full names it names.
fn kept_of(answer: &DeadCodeAnswer) -> BTreeMap<KeptAliveReason, Vec<String>> {
    answer
        .kept_alive
        .iter()
        .map(|group| {
            assert_eq!(group.count, group.sample.len(), "{group:?}");
            (group.reason, group.sample.iter().map(|named| named.full_name.clone()).collect())
        })
        .collect()
}

fn expected_private_and_internal() -> Vec<UnusedKey> {
    use Accessibility::{HiddenBySignature, Internal, Private};
    use CandidateKind::{Member, UnionCase, Value};
    vec![
        unused("Lib.Shapes.hiddenHelper", Value, HiddenBySignature, "Lib/Shapes.fs", 7, Source::Syntax),
        unused("Lib.Core.unusedPrivate", Value, Private, "Lib/Core.fs", 6, Source::Syntax),
        unused("Lib.Core.unusedInternal", Value, Internal, "Lib/Core.fs", 9, Source::Syntax),
        // Called only by itself.
        unused("Lib.Core.countdown", Value, Private, "Lib/Core.fs", 29, Source::Syntax),
        // App's own `helper` is another symbol: only FSAC tells them apart.
        unused("Lib.Core.helper", Value, Private, "Lib/Core.fs", 33, Source::Fsac),
        unused("Lib.Core.Greeter.Unused", Member, Private, "Lib/Core.fs", 43, Source::Syntax),
        unused("Lib.Core.Mode.Slow", UnionCase, Internal, "Lib/Core.fs", 57, Source::Syntax),
        unused("App.Program.appPrivateUnused", Value, Private, "App/Program.fs", 12, Source::Syntax),
    ]
}

#[tokio::test]
async fn the_unused_declarations_of_two_projects_exactly_and_why_the_others_live() {
    let workspace = fixture_copy("dead");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;

    let answer: DeadCodeAnswer = editor.execute_as(Command::DeadCode, arguments()).await;
    assert_eq!(unused_of(&answer), expected_private_and_internal(), "{answer:#?}");
    assert_eq!(answer.via, Via::Fsac, "{answer:#?}");
    assert_eq!(answer.projects, ["Lib/Lib.fsproj", "App/App.fsproj"]);
    let helper = answer.unused.iter().find(|row| row.name == "helper").unwrap();
    assert!(
        helper.evidence.contains("Lib/Lib.fsproj") && helper.evidence.contains("App/App.fsproj"),
        "the evidence names the projects FSAC swept: {helper:?}"
    );
    let countdown = answer.unused.iter().find(|row| row.name == "countdown").unwrap();
    assert_eq!(countdown.self_references, 1, "{countdown:?}");
    assert!(answer.unused.iter().all(|row| row.caveat.is_none()), "{answer:#?}");
    let kept = kept_of(&answer);
    assert_eq!(
        kept,
        BTreeMap::from([
            (KeptAliveReason::EntryPointAttribute, vec!["App.Program.main".to_owned()]),
            (KeptAliveReason::SerializationAttribute, vec!["Lib.Core.Settings.Token".to_owned()]),
            (KeptAliveReason::OverrideOrInterfaceImplementation, vec!["Lib.Core.Greeter.Greet".to_owned()]),
            (KeptAliveReason::NamedInString, vec!["Lib.Core.reflected".to_owned()]),
        ]),
        "{answer:#?}"
    );
    // App grants InternalsVisibleTo an assembly outside the workspace: its unused internal
    // value is not ruled out; Lib grants it only to App, which FSAC searched.
    let open: Vec<(&str, NotRuledOutReason)> =
        answer.not_ruled_out.iter().map(|row| (row.full_name.as_str(), row.reason)).collect();
    assert_eq!(open, [("App.Program.appInternalUnused", NotRuledOutReason::InternalsVisibleToOutside)]);
    assert!(answer.not_ruled_out[0].detail.contains("App.Tests"), "{answer:#?}");
    assert!(!answer.complete && answer.incomplete.len() == 1, "{answer:#?}");
    let counts = &answer.candidates;
    assert_eq!(counts.left_unchecked, 0);
    assert_eq!(counts.checked, counts.total);
    assert_eq!(counts.used + counts.unused + counts.kept_alive + counts.not_ruled_out, counts.checked, "{counts:?}");
    assert_eq!(counts.unused, 8);
    assert!(counts.asked_fsac >= 1, "{counts:?}");
    assert_eq!(counts.used_by_name_only, 0, "FSAC resolved every use: {counts:?}");

    // Public declarations too: the unused public one, with its caveat; the signature and the
    // abstract slot keep theirs alive.
    let public: DeadCodeAnswer =
        editor.execute_as(Command::DeadCode, DeadCodeArguments { include_public: true, ..arguments() }).await;
    let mut expected = expected_private_and_internal();
    expected.insert(
        7,
        unused("Lib.Core.publicUnused", CandidateKind::Value, Accessibility::Public, "Lib/Core.fs", 77, Source::Syntax),
    );
    assert_eq!(unused_of(&public), expected, "{public:#?}");
    let row = public.unused.iter().find(|row| row.name == "publicUnused").unwrap();
    assert!(row.caveat.as_deref().is_some_and(|caveat| caveat.contains("outside the workspace")), "{row:?}");
    let kept = kept_of(&public);
    assert_eq!(kept[&KeptAliveReason::SignatureFile], ["Lib.Shapes.area"], "{public:#?}");
    assert_eq!(kept[&KeptAliveReason::AbstractSlot], ["Lib.Core.IGreeter.Greet"], "{public:#?}");
    assert!(public.candidates.total > answer.candidates.total);

    // One file; one kind.
    let shapes: DeadCodeAnswer = editor
        .execute_as(Command::DeadCode, DeadCodeArguments { path: Some("Lib/Shapes.fs".to_owned()), ..arguments() })
        .await;
    assert_eq!(unused_of(&shapes), expected_private_and_internal()[..1], "{shapes:#?}");
    assert_eq!(shapes.projects, ["Lib/Lib.fsproj"]);
    let cases: DeadCodeAnswer = editor
        .execute_as(Command::DeadCode, DeadCodeArguments { kinds: vec![CandidateKind::UnionCase], ..arguments() })
        .await;
    assert_eq!(unused_of(&cases), expected_private_and_internal()[6..7], "{cases:#?}");

    // Bounded: the first three candidates are checked, the rest counted and said.
    let bounded: DeadCodeAnswer = editor
        .execute_as(Command::DeadCode, DeadCodeArguments { max_candidates: Bounded::clamped(3), ..arguments() })
        .await;
    assert_eq!(bounded.candidates.checked, 3, "{bounded:#?}");
    assert_eq!(bounded.candidates.left_unchecked, answer.candidates.total - 3);
    assert!(
        !bounded.complete && bounded.incomplete.iter().any(|why| why.contains("maxCandidates = 3")),
        "{bounded:#?}"
    );
    assert!(unused_of(&bounded).iter().all(|row| expected_private_and_internal().contains(row)), "{bounded:#?}");

    // An unknown project is a typed error naming the argument.
    let error = editor
        .execute(Command::DeadCode, DeadCodeArguments { project_path: Some("Nowhere".to_owned()), ..arguments() })
        .await;
    assert_eq!(error["error"]["data"]["argument"], "projectPath", "{error}");

    // The compiler's word: with every reported declaration deleted the workspace still builds.
    let copy = tempfile::tempdir().unwrap();
    copy_fixture(workspace.path(), copy.path());
    let mut doomed: Vec<(&str, u32)> = public.unused.iter().map(|row| (row.path.as_str(), row.line)).collect();
    doomed.sort_by(|one, other| other.cmp(one));
    for (path, line) in doomed {
        delete_declaration(&copy.path().join(path), line as usize);
    }
    let build = std::process::Command::new("dotnet")
        .args(["build", "App/App.fsproj", "-nologo", "-v:q"])
        .current_dir(copy.path())
        .output()
        .expect("run dotnet build");
    assert!(
        build.status.success(),
        "the fixture does not build without the reported declarations: {}",
        String::from_utf8_lossy(&build.stdout)
    );
}

/// `fslens dead-code --json` with no FSAC: the names written nowhere else are still found
/// unused by the syntax index; the others are counted used on name matches alone (Lib's
/// `helper`, whose name App's own `helper` shares, among them), and the answer says so.
#[test]
fn without_fsac_the_syntax_index_finds_what_is_never_written_and_the_answer_is_not_complete() {
    let workspace = fixture_copy("dead");
    let runtime = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["dead-code", "--json", "--fsac", "/nonexistent/fsautocomplete", "--workspace"])
        .arg(workspace.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let answer: DeadCodeAnswer = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "no answer ({error}): {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let by_syntax: Vec<UnusedKey> =
        expected_private_and_internal().into_iter().filter(|row| row.5 == Source::Syntax).collect();
    assert_eq!(unused_of(&answer), by_syntax, "{answer:#?}");
    assert_eq!((answer.via, answer.complete), (Via::Syntax, false), "{answer:#?}");
    assert!(answer.candidates.used_by_name_only >= 1, "{answer:#?}");
    assert!(answer.incomplete.iter().any(|why| why.contains("name matches alone")), "{answer:#?}");
    assert_eq!(output.status.code(), Some(2), "not definite");
}

/// Copies the fixture's sources and projects (not its `obj/` or `bin/`).
fn copy_fixture(from: &Path, to: &Path) {
    for project in ["Lib", "App"] {
        std::fs::create_dir_all(to.join(project)).unwrap();
        for entry in std::fs::read_dir(from.join(project)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, to.join(project).join(path.file_name().unwrap())).unwrap();
            }
        }
    }
}

/// Deletes the declaration whose name is on 0-based `line`: that line and the lines after it
/// indented deeper (its body, blank lines inside it included).
fn delete_declaration(path: &Path, line: usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let indent = |text: &str| text.len() - text.trim_start().len();
    let mut last = line;
    for (number, text) in lines.iter().enumerate().skip(line + 1) {
        if text.trim().is_empty() {
            continue;
        }
        if indent(text) <= indent(lines[line]) {
            break;
        }
        last = number;
    }
    let kept: Vec<&str> = lines[..line].iter().chain(&lines[last + 1..]).copied().collect();
    std::fs::write(path, kept.join("\n") + "\n").unwrap();
}
