//! The differential oracle (tests/oracle/FindOracle, F# on FSharp.Compiler.Service) over our
//! fixture solutions: every symbol they declare asked of fslens `find` through one session in
//! front of the FSAC double, each answer judged against the compiler's own
//! `GetUsesOfSymbol` over the projects' real compiler options, per compiler symbol the query
//! names (each row goes to the symbol its `symbolFullName` names; a row matches a use it lies
//! inside or ends with). No answer may say complete
//! while its sites differ from the compiler's; and a double that drops one use
//! (`FSAC_DOUBLE_REFERENCES_DROP_LAST_USE`) must be caught, or the oracle proves nothing.

use fslens::commands::registry::Command as FslensCommand;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::dotnet::built_tool;
use crate::support::double::{Editor, double_command, fixture_copy, found_sites};

/// Runs the oracle over `workspace` (a copy: it restores in place) with the double behind
/// fslens; its exit code, its table and its JSON report.
fn run_oracle(workspace: &Path, environment: &[(&str, &str)], extra_arguments: &[&str]) -> (Output, Value) {
    run_oracle_with(&double_command(), workspace, environment, extra_arguments)
}

fn run_oracle_with(
    fsac: &str,
    workspace: &Path,
    environment: &[(&str, &str)],
    extra_arguments: &[&str],
) -> (Output, Value) {
    let report = workspace.join("oracle-report.json");
    let mut command = Command::new("dotnet");
    command
        .arg(built_tool("oracle/FindOracle"))
        .arg("--workspace")
        .arg(workspace)
        .arg("--fslens")
        .arg(env!("CARGO_BIN_EXE_fslens"))
        .arg("--fsac")
        .arg(fsac)
        .arg("--json")
        .arg(&report)
        .args(extra_arguments)
        .env("XDG_RUNTIME_DIR", workspace);
    for (name, value) in environment {
        command.env(name, value);
    }
    let output = command.output().expect("run the oracle");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|error| {
        panic!(
            "the oracle wrote no report ({error}); exit {:?}\n{}\n{}",
            output.status.code(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, serde_json::from_str(&text).expect("the report is JSON"))
}

fn judgements_with<'a>(report: &'a Value, verdict: &str) -> Vec<&'a Value> {
    report["judgements"].as_array().unwrap().iter().filter(|judgement| judgement["verdict"] == verdict).collect()
}

/// Whether fslens's rows name their compiler symbol (`symbolFullName` the
/// compiler's full name, a module's `Module` suffix included, and `symbolKind`). Until they
/// do, an answer whose rows are the compiler's sites but labelled with one symbol for all (a
/// type and its module) is judged wrong while complete, as it must be, and the
/// fixture runs below tolerate exactly that (`mergedEqual`: the sites are right with the labels
/// ignored) and nothing else. When rows carry their symbol, this is `true` and every fixture
/// run is strict.
const ROWS_NAME_THEIR_SYMBOL: bool = true;

/// The checks every fixture run makes: no answer says complete while the compiler disagrees,
/// the oracle exits 0, the fixture builds clean and nothing failed. Returns the oracle's table.
fn assert_no_wrong_answer(output: &Output, report: &Value) -> String {
    let stdout = assert_no_wrong_answer_on_any_code(output, report);
    assert_eq!(report["compilerErrors"], 0, "the fixture builds clean");
    stdout
}

/// [`assert_no_wrong_answer`] for a fixture whose code may have errors on purpose (a broken
/// file, many errors, a missing compile item): the compiler's uses are still the judge.
fn assert_no_wrong_answer_on_any_code(output: &Output, report: &Value) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let wrong: Vec<_> = judgements_with(report, "wrong-while-complete")
        .into_iter()
        .filter(|judgement| ROWS_NAME_THEIR_SYMBOL || judgement["mergedEqual"] != true)
        .collect();
    assert!(wrong.is_empty(), "{stdout}\n{}", serde_json::to_string_pretty(&wrong).unwrap());
    if ROWS_NAME_THEIR_SYMBOL || judgements_with(report, "wrong-while-complete").is_empty() {
        assert_eq!(output.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    }
    assert!(judgements_with(report, "failed").is_empty(), "{stdout}");
    stdout
}

/// The verdicts of every judgement of `query` (overloads are asked once each).
fn verdicts_of(report: &Value, query: &str) -> Vec<String> {
    report["judgements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|judgement| judgement["query"] == query)
        .map(|judgement| judgement["verdict"].as_str().unwrap().to_owned())
        .collect()
}

/// Asserts every judgement of `query` is exact; until rows name their symbol
/// ([`ROWS_NAME_THEIR_SYMBOL`]), an answer wrong only by its labels passes too.
fn assert_exact(report: &Value, query: &str, stdout: &str) {
    let judged: Vec<_> =
        report["judgements"].as_array().unwrap().iter().filter(|judgement| judgement["query"] == query).collect();
    assert!(!judged.is_empty(), "{query} was not judged: {stdout}");
    for judgement in judged {
        let labelling_only = judgement["verdict"] == "wrong-while-complete" && judgement["mergedEqual"] == true;
        assert!(
            judgement["verdict"] == "exact" || (!ROWS_NAME_THEIR_SYMBOL && labelling_only),
            "{query}: {judgement}\n{stdout}"
        );
    }
}

/// The shipping solution, every symbol: among them a namespace used from another project
/// (`open Shipping.Domain` in Shipping.App), which the compiler counts as a use.
#[test]
fn no_find_on_the_shipping_solution_says_complete_while_the_compiler_disagrees() {
    let workspace = fixture_copy("shipping");
    let (output, report) = run_oracle_with(&double_command(), workspace.path(), &[], &[]);
    let stdout = assert_no_wrong_answer(&output, &report);
    let judged = report["judgements"].as_array().unwrap();
    assert!(judged.len() >= 60, "every declared symbol is asked: {}", judged.len());
    assert!(judgements_with(&report, "exact").len() >= 50, "{stdout}");
}

#[test]
fn the_oracle_catches_a_backend_that_drops_one_use() {
    let workspace = fixture_copy("shipping");
    // A sample of 20 symbols (seeded) is enough to meet symbols with uses.
    let (output, report) = run_oracle(
        workspace.path(),
        &[("FSAC_DOUBLE_REFERENCES_DROP_LAST_USE", "1")],
        &["--max-symbols", "20", "--seed", "7"],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let wrong = judgements_with(&report, "wrong-while-complete");
    assert!(!wrong.is_empty(), "{stdout}");
    // Each wrong answer lacks the use the double dropped from each references answer (one per
    // declaration asked: a namespace is declared in every file that names it), and adds nothing.
    for judgement in &wrong {
        let missing = judgement["missing"].as_array().unwrap().len();
        let declarations = if judgement["kind"] == "namespace" { usize::MAX } else { 1 };
        assert!((1..=declarations).contains(&missing), "{judgement}");
        assert_eq!(judgement["extra"], serde_json::json!([]), "{judgement}");
    }
}

/// fixtures/referee only loads for real: a NuGet package, `REFEREE_STRICT` from
/// `Directory.Build.props`, a project with two target frameworks and compile items for one of
/// them. Behind the .NET double, whatever fslens says complete is the compiler's answer, and a
/// name declared twice across `#if`/`#else` or across target frameworks is partial.
#[test]
fn no_find_on_the_referee_solution_says_complete_while_the_compiler_disagrees() {
    let workspace = fixture_copy("referee");
    let (output, report) = run_oracle_with(&double_command(), workspace.path(), &[], &[]);
    let stdout = assert_no_wrong_answer(&output, &report);
    // Declared in Modern.fs (net10.0, loaded) and in Legacy.fs (netstandard2.0 only): fslens
    // says partial, and its rows in Legacy.fs, a file the checked configuration does not
    // compile, are outside the oracle's view (set aside), so the rows it can judge are equal.
    assert_eq!(verdicts_of(&report, "Platform.describe"), ["partial-but-equal"], "{stdout}");
    let describe =
        report["judgements"].as_array().unwrap().iter().find(|judgement| judgement["query"] == "Platform.describe");
    let outside = describe.map(|judgement| judgement["outsideProjects"].clone()).unwrap_or_default();
    let outside = outside.as_array().unwrap_or_else(|| panic!("Platform.describe was not judged: {stdout}"));
    assert!(
        !outside.is_empty() && outside.iter().all(|site| site.as_str().is_some_and(|site| site.contains("Legacy.fs"))),
        "{outside:?}"
    );
    // Used from three projects, one of them through a NuGet package's API, and in Strict.fs's
    // `#else` of `#if REFEREE_STRICT`, which the build (REFEREE_STRICT defined) never compiles:
    // that use is an `inactive` row, so the answer is not complete; the oracle sets it aside
    // (the compiler's view cannot judge it), and every other row is the compiler's.
    assert_eq!(verdicts_of(&report, "Core.Order"), ["partial-but-equal"], "{stdout}");
    let order = report["judgements"].as_array().unwrap().iter().find(|judgement| judgement["query"] == "Core.Order");
    let order = order.unwrap_or_else(|| panic!("Core.Order was not judged: {stdout}"));
    assert_eq!(order["missing"], serde_json::json!([]), "{order}");
    assert_eq!(order["extra"], serde_json::json!([]), "{order}");
    assert_eq!(order["inactive"], serde_json::json!(["src/Core/Strict.fs:8:27"]), "{order}");
}

/// fixtures/builders: a builder whose constructor is `internal ()`, extension members declared
/// in modules (the compiler's name is the module's, `MaybeExtensions.Source`), a sibling
/// builder with members of the same names, and a one-line `try … finally` in a member body
/// that tree-sitter-fsharp cannot read, which loses the sibling's `type ListBuilder() =` line.
/// Before: `MaybeExtensions.Source` and everything of `ListBuilder` answered `not_found`
/// while complete.
/// `Loops.fsi`/`Loops.fs`: an extension of FSharp.Core's `AsyncBuilder` in module
/// `AsyncLoops`, named qualified in the implementation and short in the signature, both in
/// regions the grammar cannot read (a signature's extension member after a `val`, an indented
/// `#if` in the implementation). Before: `AsyncLoops.For` answered `not_found` while complete
/// (the compiler: 2 sites), as AsyncSeq's `AsyncSeqExtensions.For` did.
#[test]
fn no_find_on_the_builders_fixture_says_complete_while_the_compiler_disagrees() {
    let workspace = fixture_copy("builders");
    let (output, report) = run_oracle_with(&double_command(), workspace.path(), &[], &[]);
    let stdout = assert_no_wrong_answer(&output, &report);
    assert_eq!(verdicts_of(&report, "MaybeExtensions.Source").len(), 1, "{stdout}");
    assert_exact(&report, "MaybeExtensions.Source", &stdout);
    assert_eq!(verdicts_of(&report, "MaybeBuilder.Bind").len(), 1, "{stdout}");
    assert_exact(&report, "MaybeBuilder.Bind", &stdout);
    // Asked at its implementation and at its signature.
    assert_eq!(verdicts_of(&report, "AsyncLoops.For").len(), 2, "{stdout}");
    assert_exact(&report, "AsyncLoops.For", &stdout);
}

/// fixtures/augmentations: intrinsic augmentations (`type T with` in the file and the
/// namespace or module that declares `T`), whose members the compiler gives to the type, as
/// Argu's `ArgumentParser.Create` (after a recursive group with a generic sibling of the same
/// name) and `UnionArgInfo`'s `UnionCaseArgInfo.ToArgumentCaseInfo` (in an `[<AutoOpen>]`
/// module). Before: their rows were labelled with the enclosing namespace or module
/// (`Schemas.Create`, `Schemas.Cases.ToPublic`), as an optional extension's are, while
/// complete.
#[test]
fn the_members_of_an_intrinsic_augmentation_are_named_by_their_type() {
    let workspace = fixture_copy("augmentations");
    let (output, report) = run_oracle_with(&double_command(), workspace.path(), &[], &[]);
    let stdout = assert_no_wrong_answer(&output, &report);
    for (query, label) in [
        ("Parser.Create", "Schemas.Parser.Create"),
        ("CaseInfo.ToPublic", "Schemas.Cases.CaseInfo.ToPublic"),
        ("CaseInfo.IsTop", "Schemas.Cases.CaseInfo.IsTop"),
    ] {
        assert_eq!(verdicts_of(&report, query).len(), 1, "{query}: {stdout}");
        assert_exact(&report, query, &stdout);
        let judgement = report["judgements"].as_array().unwrap().iter().find(|judgement| judgement["query"] == query);
        let judgement = judgement.unwrap_or_else(|| panic!("{query} was not judged: {stdout}"));
        let labels: Vec<_> = judgement["symbols"].as_array().unwrap().iter().map(|symbol| &symbol["label"]).collect();
        assert_eq!(labels, [label], "{judgement}");
    }
}

/// fixtures/implicit-module-name: a record field `Index` and, in no project, a script
/// `docs/index.fsx` without a `module` line (the implicit module `Index`), as Argu has. Before:
/// `Entry.Index` answered the compiler's sites but partial, its note saying the implicit module's
/// uses were not searched, though a qualified query cannot name a top-level module.
#[test]
fn a_qualified_query_is_not_kept_partial_by_an_implicit_module_of_its_last_name() {
    let workspace = fixture_copy("implicit-module-name");
    let (output, report) = run_oracle_with(&double_command(), workspace.path(), &[], &[]);
    let stdout = assert_no_wrong_answer(&output, &report);
    assert_eq!(verdicts_of(&report, "Entry.Index").len(), 1, "{stdout}");
    assert_exact(&report, "Entry.Index", &stdout);
}

/// fixtures/inline-il: inline IL `(# "" a : 'b #)` (as FSharp.UMX writes it) before a class of
/// overloaded members, and inline IL over two lines that the grammar still cannot read, before
/// a class at column 0 and a second `namespace`. Before: the members after the first were
/// partial (their container lost), `Widening.Widener` answered `not_found` while complete (the
/// index read it inside `module private Conv` and dropped FSAC's declaration), and
/// `Widener.widen` and `Narrower.narrow` were complete under the wrong names. Every symbol is
/// exact now.
#[test]
fn every_find_on_the_inline_il_fixture_is_exact() {
    assert_every_find_exact(
        "inline-il",
        &["Tag.mark", "Tag.strip", "Tags.Tag", "Widening.Widener", "Widener.widen", "Narrower.narrow"],
        25,
    );
}

/// fixtures/directives: FSharp.Control.AsyncSeq's layout, an indented `#if` between a module's
/// bindings and one opened among a type extension's members and closed after the next
/// declaration, before a generic class with an implicit constructor (`new Runner<_>(…)`) and a
/// class whose `let rec` is used in its member. tree-sitter-fsharp fails at the directives to
/// the end of the module; the index reads the file again with its directive lines blanked
/// (what it reads is pinned by `syntax_index::directives_among_declarations_keep_the_containers_after_them`).
/// On AsyncSeq itself, where the failure made the whole 3,000-line file one error region,
/// `AsyncSeq.OptimizedIterAsyncEnumerator` answered `not_found` while complete and
/// `OptimizedCollectEnumerator.moveNextLoop` was complete under a name without its module;
/// this small copy of the layout the recovery already read well, and every symbol stays exact.
#[test]
fn every_find_on_the_directives_fixture_is_exact() {
    assert_every_find_exact(
        "directives",
        &["Flow.Runner", "Counter.countLoop", "Flow.delay", "Flow.Shout", "Flow.twice"],
        10,
    );
}

/// fixtures/signature-extensions: a builder whose `Bind` extension members live in modules
/// `LowPriority` and `HighPriority`, declared in a `.fsi` as FSharp.Control.TaskSeq declares
/// its builder; the signature grammar cannot read `LowPriority`'s member, so the index's only
/// `Bind` in the `.fsi` is `HighPriority`'s. Before: `find LowPriority.Bind` paired the `.fs`
/// member with that one signature of its name (the fallback for a file the parser could not
/// read whole), answered `HighPriority`'s signature as its own, lost its own signature and its
/// use, and said complete. A candidate whose qualified name the implementation file declares
/// too is that declaration's partner, never this one's.
#[test]
fn every_find_on_the_signature_extensions_fixture_is_exact() {
    assert_every_find_exact(
        "signature-extensions",
        &["LowPriority.Bind", "HighPriority.Bind", "FlowBuilder.Return"],
        15,
    );
}

/// fixtures/signature-region: the builder layout of FSharp.Control.TaskSeq's
/// `TaskSeqBuilder.fsi`, which tree-sitter-fsharp 0.3.12's signature grammar reads as one error
/// region, putting `LowPriority`'s `Bind` among the class's own members while it reads
/// `HighPriority`'s two. Before: `find LowPriority.Bind` found no signature to pair the
/// implementation with (three `Bind`s in the `.fsi`), took FSAC's row at the signature for
/// another member's declaration and dropped it, and with it the call whose definition FSAC
/// gives there: one site, complete, where the compiler has three. Every symbol is exact now.
#[test]
fn every_find_on_the_signature_region_fixture_is_exact() {
    assert_every_find_exact("signature-region", &["LowPriority.Bind", "HighPriority.Bind", "PipeBuilder.Using"], 15);
}

/// fixtures/measures: types declared without `=` — units of measure `[<Measure>] type km`
/// and `type mi`, used as `float<km>`, `1.0<km>` and `0.621371<mi/km>` in other files, and a
/// signature's abstract `type Route` whose implementation is a record. Before: the syntax
/// index held no declaration for any of them (tree-sitter-fsharp reads them as a
/// `type_declaration`), so `find Measures.km` answered `not_found` while complete, where the
/// compiler has the declaration and every use. Every symbol is exact now.
#[test]
fn every_find_on_the_measures_fixture_is_exact() {
    assert_every_find_exact("measures", &["Measures.km", "Measures.mi", "Measures.Route"], 3);
}

/// fixtures/quoted-modules: top-level modules named in double backticks inside a dotted name,
/// as test projects name them (``module Quoted.Tests.``Bug #42 -- asynchronous`` ``, and one
/// whose quoted name holds parentheses), beside `namespace Quoted.Tests` and `module
/// Quoted.Tests.Use` in other files. The oracle asks each name as a user writes it, in
/// backticks. Before: the declaration's last segment could not be placed (backticks), so FSAC
/// was asked at its first segment, namespace `Quoted`, and every `namespace Quoted.Tests` /
/// `module Quoted.Tests.X` line was answered as the module's.
#[test]
fn every_find_on_the_quoted_modules_fixture_is_exact() {
    assert_every_find_exact(
        "quoted-modules",
        &["Tests.``Bug #42 -- asynchronous``", "Tests.``Release notes (v2)``", "Tests.Shared"],
        8,
    );
}

/// fixtures/interface-calls: two classes implement `IStep.Next` in `interface IStep with`
/// blocks, called through the interface seventy-odd times. F# implements interfaces
/// explicitly, so the compiler counts no call as `Counter.Next`'s: its one site is its
/// declaration. Before: FSAC's references at the implementation (the slot's uses) were settled
/// by one definition request per call, 64 at most, and the rest kept the answer partial.
#[test]
fn every_find_on_the_interface_calls_fixture_is_exact() {
    assert_every_find_exact("interface-calls", &["Counter.Next", "Doubler.Next", "IStep.Next"], 6);
}

/// fixtures/signature-shims: a signature file laid out as FSharp.Control.TaskSeq's `Utils.fsi`:
/// a `type ValueTask with static member inline Done: ValueTask` extension, then modules of
/// `val inline`s, one under `[<System.Obsolete "…">]`. tree-sitter-fsharp 0.3.12 reads it as one
/// error region whose tree still holds some `val`s, at the top, outside every module. Before:
/// `Task.toValueTask`'s and `Task.ofValueTask`'s signatures lost their module (partial, the
/// signature unconfirmed), `ValueTaskExtensions.Done` its type extension, and `val inline f`
/// declared a symbol named `inline`. Every symbol is exact now.
#[test]
fn every_find_on_the_signature_shims_fixture_is_exact() {
    assert_every_find_exact(
        "signature-shims",
        &["Task.toValueTask", "Task.ofValueTask", "ValueTaskExtensions.Done", "ValueTask.FromResult"],
        12,
    );
}

/// fixtures/signature-namespace: `namespace Sig.Api` in a `.fsi` and its `.fs`, opened and
/// written qualified in `Use.fs` (beside `Microsoft.FSharp.Collections.List`). Before: the
/// signature pairing added each namespace line again at its whole name, `Sig.Api`, so FSAC was
/// also asked at `Sig` (namespace `Sig`'s uses, labelled `Sig.Api`) and the two declarations it
/// did not return there made the answer partial, nine rows where the compiler has four.
#[test]
fn every_find_on_the_signature_namespace_fixture_is_exact() {
    assert_every_find_exact("signature-namespace", &["Sig.Api", "Calc.add"], 3);
}

/// fixtures/trailing-comments: `type RoseTree<'T> = //{ Root: 'T; … }` with the union's cases
/// on the next lines (FSharpx.Collections' `BinaryRoseTree`), and a record written alike. The
/// grammar read each as an error region and lost every case, field and member: before,
/// `RoseTree.GetHashCode` answered `not_found` while complete, `RoseTree.Size` and
/// `Settings.Deeper` were partial. Every symbol is exact now.
#[test]
fn every_find_on_the_trailing_comments_fixture_is_exact() {
    assert_every_find_exact(
        "trailing-comments",
        &["RoseTree.GetHashCode", "RoseTree.Size", "RoseTree.Branch", "Settings.Deeper", "Settings.Depth"],
        14,
    );
}

/// fixtures/keyword-misparse: a class whose members are indented one column past its
/// `inherit` line (as fsharp-hedgehog's `PropertyTestRunner` is written). F# compiles it;
/// tree-sitter-fsharp reads `static member val Instance …` and the override as arguments of
/// the base constructor, with no error, so the index held no member and called the file
/// clean: `Runner.Instance` and `Runner.Invoke` were `not_found`, complete. The keywords read
/// as identifiers mark the class a suspected misparse: FSAC's declarations there are kept.
/// Each member's own line, read as the lines of an error region are, declares it exactly
/// where FSAC puts it, which confirms it: the answers are exact (before: partial, the
/// declarations listed as `suspected_misparse`, as fsharp-hedgehog's were).
#[test]
fn members_the_grammar_reads_as_arguments_are_confirmed_by_their_lines() {
    assert_every_find_exact(
        "keyword-misparse",
        &["Runners.Runner", "RunnerBase.Invoke", "Runner.Instance", "Runner.Invoke"],
        4,
    );
}

/// fixtures/module-type-arguments: `module Kit.Option` beside FSharp.Core's `Option<'T>`,
/// which `Use.fs` writes as `Task<Option<int>>` (FsToolkit.ErrorHandling's `TaskOptionCE.fs`).
/// FSAC's definition at that `Option` names the module, so `find Kit.Option` took the two
/// type arguments for uses FSAC's references missed (`ok`, 4 uses where the compiler has 2).
/// No module takes type arguments: the text rules them out.
#[test]
fn every_find_on_the_module_type_arguments_fixture_is_exact() {
    assert_every_find_exact(
        "module-type-arguments",
        &["Kit.Option", "Option.orDefault", "``Checks with <Angles> inside``.Marker"],
        8,
    );
}

/// fixtures/declaration-ranges: a record field `Holder.Check` in a file after a type
/// abbreviation `Check<'a>` (with a doc comment) and a `[<RequireQualifiedAccess>] module
/// Check` (FsToolkit.ErrorHandling's `TaskValidationStateMachineData.Validation` beside
/// `Validation.fs`). FSAC's `workspace/symbol` lists the type and the module with ranges that
/// start at the doc comment and the attribute, in a file the qualified find never read: both
/// were kept as unconfirmed declarations named `Check` (partial, 5 rows where the field has 3).
/// The file FSAC names is read, and a range holding a declaration of the name is that one.
#[test]
fn every_find_on_the_declaration_ranges_fixture_is_exact() {
    assert_every_find_exact("declaration-ranges", &["Holder.Check", "Kit.Check", "Check.pass"], 6);
}

/// fixtures/signature-patterns: a module whose active patterns are declared in a signature
/// file (`val (|Cons|Nil|): …` and `val (|Single|_|): …` in `Stack.fsi`, as
/// FSharpx.Collections declares `Deque`'s and `ByteString`'s). The compiler service does not
/// link a signature's active-pattern cases to the implementation's: FSAC's references at the
/// implementation's `Cons` never hold the signature's, and at a use of `Single` they hold the
/// implementation's or not, by which of its type checks answers. Before: `Stack.Cons` and
/// `Stack.Nil` partial ("FSAC's references miss 1 declaration"), `Stack.Single` partial on
/// some runs; a case is now confirmed through its partner. A union `Cells` with a case `Nil`
/// beside the pattern (FSharpx.Collections' `DListData.Nil` beside `DList`'s `(|Cons|Nil|)`):
/// the signature's `Nil` was asked at the first `Nil` of another file, the union case's, and
/// its answer gave the union's uses to the pattern (wrong while complete once the partner
/// confirmed the signature); an answer at a use holding no declaration of the case is dropped.
/// A single-case `(|Items|)` nothing matches on (FSharpx.Collections' `ByteString.(|BS|)`) is
/// asked at its clip, where FSAC answers for the whole pattern: before, partial ("FSAC's
/// references miss 1 declaration").
#[test]
fn every_find_on_the_signature_patterns_fixture_is_exact() {
    assert_every_find_exact(
        "signature-patterns",
        &["Stack.Cons", "Stack.Nil", "Stack.Single", "Stack.depth", "Queue.Nil", "Queue.Items"],
        23,
    );
}

/// fixtures/module-members: the library's `module Gen` (with `Gen.Operators`) and, in an
/// `[<AutoOpen>] module GenUri`, a second `module Gen` declaring `uri` and `host` (as
/// fsharp-hedgehog's `Gen.Network.fs`), used 40 times as `Gen.int32` and twice as `Gen.uri`
/// in a file that opens both and `Gen.Operators`. FSAC's references of the library's `Gen`
/// hold the `Gen` of `open Gen.Operators`, a site of both modules, so they rule out none of
/// its occurrences for `GenUri.Gen`: before, 97 occurrences past the request bound, partial.
/// `Gen.int32` is now ruled out by its text, as `GenUri.Gen` declares no `int32`. So for
/// `GenShuffle.Gen`, in a file whose faults lie in expressions only (`a[0] <- a[1]`, as
/// fsharp-hedgehog's `Gen.Randomize.fs`): before, partial, 100 occurrences past the bound.
#[test]
fn every_find_on_the_module_members_fixture_is_exact() {
    assert_every_find_exact(
        "module-members",
        &["GenUri.Gen", "GenShuffle.Gen", "Gens.Gen", "Gen.uri", "Gen.int32"],
        24,
    );
}

/// fixtures/module-line-branches: files whose top-level module line differs by configuration
/// (`#if FABLE_COMPILER` / `module Pairs.Tuple` / `#else` / `module internal Pairs.Tuple` /
/// `#endif`, as fsharp-hedgehog writes `Tuple.fs` and `Lazy.fs`, one with an attribute). The
/// grammar reads each module line as an empty module and the file's values as top-level ones
/// of no module: `find Tuple.mapSnd` and `Lazy.map` answered `not_found`, complete. The values
/// are the last module line's now; the modules' own answers stay partial for the line in the
/// inactive branch.
#[test]
fn the_values_after_module_lines_in_if_branches_are_the_modules() {
    let workspace = fixture_copy("module-line-branches");
    let (output, report) = run_oracle_with(&double_command(), workspace.path(), &[], &[]);
    let stdout = assert_no_wrong_answer(&output, &report);
    for query in ["Tuple.mapSnd", "Tuple.mapFst", "Lazy.map", "Lazy.func", "Use.later"] {
        assert_exact(&report, query, &stdout);
    }
}

/// fixtures/interface-slots: `IQueue.Snoc` implemented in the `interface IQueue<'T> with` of
/// two queues that have a class member `Snoc` each, and a pattern `(|Snoc|Nil|)` in a module
/// `Batched` beside the type. The oracle asks an active-pattern case by its pattern's module,
/// as a user writes it in a pattern (`Batched.Snoc`, which names the member too); the bare
/// `Snoc` is asked in tests/it/find_slots.rs.
#[test]
fn every_find_on_the_interface_slots_fixture_is_exact() {
    assert_every_find_exact("interface-slots", &["Batched.Snoc", "IQueue.Snoc", "Bankers.Snoc", "Batched.Nil"], 20);
}

/// The oracle over a fixture with the FSAC double: no wrong answer, each of `queries` asked and
/// exact, at least `at_least` symbols asked, and every one exact.
fn assert_every_find_exact(fixture: &str, queries: &[&str], at_least: usize) {
    let workspace = fixture_copy(fixture);
    let (output, report) = run_oracle_with(&double_command(), workspace.path(), &[], &[]);
    let stdout = assert_no_wrong_answer(&output, &report);
    let judged = report["judgements"].as_array().unwrap();
    for query in queries {
        assert!(judged.iter().any(|judgement| judgement["query"] == *query), "{query} is asked: {stdout}");
        assert_exact(&report, query, &stdout);
    }
    assert!(judged.len() >= at_least, "every declared symbol is asked: {stdout}");
    assert_eq!(judgements_with(&report, "exact").len(), judged.len(), "{stdout}");
}

/// Runs the oracle on `workspace` judging `answers` (`--answers`: no fslens is started).
fn judge_answers(workspace: &Path, answers: &Value, extra_arguments: &[&str]) -> (Output, Value) {
    let file = workspace.join("oracle-answers.json");
    std::fs::write(&file, answers.to_string()).unwrap();
    let report = workspace.join("oracle-report.json");
    let output = Command::new("dotnet")
        .arg(built_tool("oracle/FindOracle"))
        .arg("--workspace")
        .arg(workspace)
        .arg("--answers")
        .arg(&file)
        .arg("--json")
        .arg(&report)
        .args(extra_arguments)
        .output()
        .expect("run the oracle");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|error| {
        panic!("the oracle wrote no report ({error}): {}", String::from_utf8_lossy(&output.stderr))
    });
    (output, serde_json::from_str(&text).expect("the report is JSON"))
}

/// A row of a crafted find answer: `file`, an LSP range and the symbol it names (its full name
/// and, when given, its kind).
fn row(file: &str, start: (u64, u64), end: (u64, u64), label: &str, kind: Option<&str>) -> Value {
    let mut row = json!({
        "file": file,
        "range": { "start": { "line": start.0, "character": start.1 }, "end": { "line": end.0, "character": end.1 } },
        "symbolFullName": label,
    });
    if let Some(kind) = kind {
        row["symbolKind"] = json!(kind);
    }
    row
}

fn position(value: &Value) -> (u64, u64) {
    (value["line"].as_u64().unwrap(), value["character"].as_u64().unwrap())
}

/// The judgement of the crafted answer `name`.
fn judged<'a>(report: &'a Value, name: &str) -> &'a Value {
    let found = report["judgements"].as_array().unwrap().iter().find(|judgement| judgement["answer"] == name);
    found.unwrap_or_else(|| panic!("no judgement of the answer {name}: {report}"))
}

/// Per-symbol judging and site matching by containment, on answers crafted from the
/// compiler's own uses (so they do not depend on what fslens answers today). fixtures/qualifiers
/// declares `type Tree<'T>` (compiled ``Tree`1``) and `module Tree` in one namespace: two
/// symbols of one full name, told apart by their kind; the query `Trees.Tree` names both.
/// Rows as long as the name lie inside the compiler's ranges (`Qualifiers.Trees.Folder.total`
/// starts at `Qualifiers`, a row `total` at its end); one row spans from its line's start to
/// the use's end (it ends where the use ends).
/// - rows naming their symbol (full name and `symbolKind`): exact; the same answer saying
///   partial: partial-but-equal, with the answer's `notes` in the report;
/// - rows without `symbolKind` (one label for both, today's answer): wrong while complete,
///   though the sites are right with the labels ignored (`mergedEqual`);
/// - every row labelled the type: wrong while complete;
/// - a module row dropped: wrong while complete, one site missing;
/// - a row where the compiler has no use: wrong while complete, one row extra;
/// - a row in a script beside the projects (`play.fsx`, its own `Tree`, as FsToolkit.ErrorHandling
///   keeps a `playground.fsx`): outside the compiler's view, set aside (`outsideProjects`), the
///   answer exact;
/// - a row of kind `inactive` (code the loaded configuration does not compile) where the
///   compiler has no use: set aside (`inactive`), the partial answer partial-but-equal.
#[test]
fn the_oracle_judges_each_symbol_a_query_names_against_the_rows_labelled_with_it() {
    let workspace = fixture_copy("qualifiers");
    std::fs::write(workspace.path().join("play.fsx"), "type Tree = Leaf\n").unwrap();
    let mut longer_than_the_name = 0;
    let nothing = json!({ "status": "ok", "sites": [] });
    let empty = json!({ "answers": [
        { "query": "Trees.Tree", "name": "empty", "answer": nothing },
        { "query": "Folder.total", "name": "empty-total", "answer": nothing },
    ] });
    let (_, report) = judge_answers(workspace.path(), &empty, &[]);
    // `Folder.total`'s use `Qualifiers.Trees.Folder.total` starts at `Qualifiers`: a row
    // `total` at its end lies inside it.
    let total = &judged(&report, "empty-total")["symbols"][0];
    assert_eq!(total["label"], "Qualifiers.Trees.Folder.total", "{total}");
    let mut totals = Vec::new();
    for site in total["compilerSites"].as_array().unwrap() {
        let used = &site[0];
        let (start, end) = (position(&used["range"]["start"]), position(&used["range"]["end"]));
        if end != (start.0, start.1 + 5) {
            longer_than_the_name += 1;
        }
        totals.push(row(
            used["file"].as_str().unwrap(),
            (end.0, end.1 - 5),
            end,
            "Qualifiers.Trees.Folder.total",
            Some("value"),
        ));
    }
    let empty = judged(&report, "empty");
    assert_eq!(empty["verdict"], "wrong-while-complete", "{empty}");
    let symbols = empty["symbols"].as_array().unwrap();
    let kinds: Vec<_> =
        symbols.iter().map(|symbol| (symbol["label"].as_str().unwrap(), symbol["kind"].as_str().unwrap())).collect();
    assert_eq!(kinds, [("Qualifiers.Trees.Tree", "module"), ("Qualifiers.Trees.Tree", "type")], "{empty}");
    let label = "Qualifiers.Trees.Tree";

    // One row per compiler site: `Tree` at the start of its first use.
    let (mut split, mut unkinded, mut all_type) = (Vec::new(), Vec::new(), Vec::new());
    for symbol in symbols {
        let kind = symbol["kind"].as_str().unwrap();
        for (index, site) in symbol["compilerSites"].as_array().unwrap().iter().enumerate() {
            let used = &site[0];
            let file = used["file"].as_str().unwrap();
            let (start, end) = (position(&used["range"]["start"]), position(&used["range"]["end"]));
            if end != (start.0, start.1 + 4) {
                longer_than_the_name += 1;
            }
            let (start, end) =
                if index == 0 && kind == "type" { ((start.0, 0), end) } else { (start, (start.0, start.1 + 4)) };
            split.push(row(file, start, end, label, Some(kind)));
            unkinded.push(row(file, start, end, label, None));
            all_type.push(row(file, start, end, label, Some("type")));
        }
    }
    assert!(longer_than_the_name > 0, "no compiler range is longer than the name: containment is not tested");
    let mut dropped_one = split.clone();
    let module_row = dropped_one.iter().position(|row| row["symbolKind"] == "module").unwrap();
    dropped_one.remove(module_row);
    let mut outside = split.clone();
    outside.push(row("Qualifiers/Use.fs", (0, 0), (0, 4), label, Some("type")));
    let mut script = split.clone();
    script.push(row("play.fsx", (0, 5), (0, 9), "Tree", Some("type")));
    let mut inactive = split.clone();
    let mut inactive_row = row("Qualifiers/Use.fs", (0, 0), (0, 4), label, Some("type"));
    inactive_row["kind"] = json!("inactive");
    inactive.push(inactive_row);
    let answer = |status: &str, sites: &[Value]| json!({ "status": status, "sites": sites });
    let answers = json!({ "answers": [
        { "query": "Trees.Tree", "name": "split", "answer": answer("ok", &split) },
        { "query": "Trees.Tree", "name": "split-partial",
          "answer": { "status": "partial", "sites": &split, "notes": ["the deadline ran out"] } },
        { "query": "Trees.Tree", "name": "unkinded", "answer": answer("ok", &unkinded) },
        { "query": "Trees.Tree", "name": "all-type", "answer": answer("ok", &all_type) },
        { "query": "Trees.Tree", "name": "dropped-one", "answer": answer("ok", &dropped_one) },
        { "query": "Trees.Tree", "name": "outside", "answer": answer("ok", &outside) },
        { "query": "Trees.Tree", "name": "script", "answer": answer("ok", &script) },
        { "query": "Trees.Tree", "name": "inactive", "answer": answer("partial", &inactive) },
        { "query": "Trees.Tree", "name": "unswept",
          "answer": { "status": "partial", "sites": &split,
                      "paginationIncompleteReason": "the sweep ran out of time",
                      "coverage": { "projectsAnalyzed": 0, "projectsRequested": 1 },
                      "scopeNote": "0 of 1 project analyzed before the deadline" } },
        { "query": "Trees.Tree", "name": "swept",
          "answer": { "status": "partial", "sites": &split, "notes": ["a type error"],
                      "coverage": { "projectsAnalyzed": 1, "projectsRequested": 1 },
                      "scopeNote": "1 project swept" } },
        { "query": "Folder.total", "name": "total", "answer": answer("ok", &totals) },
    ] });
    let (output, report) = judge_answers(workspace.path(), &answers, &["--no-restore"]);
    assert_eq!(output.status.code(), Some(1), "wrong answers make the oracle exit 1: {report}");
    assert_eq!(judged(&report, "split")["verdict"], "exact", "{report}");
    assert_eq!(judged(&report, "total")["verdict"], "exact", "{report}");
    let split_partial = judged(&report, "split-partial");
    assert_eq!(split_partial["verdict"], "partial-but-equal", "{report}");
    // A judgement that is not exact keeps the answer's own words on why.
    assert_eq!(split_partial["notes"], json!(["the deadline ran out"]), "{split_partial}");
    assert_eq!(judged(&report, "split").get("notes"), None, "{report}");
    // A page cut short and a sweep that left a project out say so outside `notes`: both are
    // kept; a scope note of a sweep that covered every project is no reason.
    let unswept = judged(&report, "unswept");
    assert_eq!(
        unswept["notes"],
        json!([
            "paginationIncompleteReason: the sweep ran out of time",
            "scopeNote: 0 of 1 project analyzed before the deadline"
        ]),
        "{unswept}"
    );
    assert_eq!(judged(&report, "swept")["notes"], json!(["a type error"]), "{report}");
    for name in ["unkinded", "all-type"] {
        let merged = judged(&report, name);
        assert_eq!(merged["verdict"], "wrong-while-complete", "{merged}");
        assert_eq!(merged["mergedEqual"], true, "{merged}");
    }
    let dropped_one = judged(&report, "dropped-one");
    assert_eq!(dropped_one["verdict"], "wrong-while-complete", "{dropped_one}");
    assert_eq!(
        (dropped_one["missing"].as_array().unwrap().len(), dropped_one["extra"].as_array().unwrap().len()),
        (1, 0)
    );
    let outside = judged(&report, "outside");
    assert_eq!(outside["verdict"], "wrong-while-complete", "{outside}");
    assert_eq!(outside["extra"], json!(["Qualifiers/Use.fs:1:5"]), "{outside}");
    assert_eq!(outside["missing"], json!([]), "{outside}");
    let script = judged(&report, "script");
    assert_eq!(script["verdict"], "exact", "{script}");
    assert_eq!(script["outsideProjects"], json!(["play.fsx:1:10"]), "{script}");
    assert_eq!(judged(&report, "split")["outsideProjects"], json!([]), "{report}");
    let inactive = judged(&report, "inactive");
    assert_eq!(inactive["verdict"], "partial-but-equal", "{inactive}");
    assert_eq!(inactive["inactive"], json!(["Qualifiers/Use.fs:1:5"]), "{inactive}");
}

/// Every page of an answer is judged, and a page refused with `retrySameCursor: true` is asked
/// again with the same cursor, twice at most, as the refusal tells a client to. Scripted
/// exchanges (`--answers`' `exchange`: the replies to the oracle's successive `find` calls, each
/// checked against the cursor it must be asked with) over `Folder.total`'s compiler sites, cut
/// into two pages:
/// - the second page refused once, then given: exact (every site, from both pages);
/// - refused twice, then given: exact;
/// - refused three times: failed (the oracle gives up after two retries);
/// - refused without `retrySameCursor`: failed, not asked again;
/// - the first page alone: failed (the oracle asks for its `nextCursor`, past the script).
#[test]
fn the_oracle_follows_every_page_and_asks_a_refused_cursor_again() {
    let workspace = fixture_copy("qualifiers");
    let nothing = json!({ "status": "ok", "sites": [] });
    let (_, report) = judge_answers(
        workspace.path(),
        &json!({ "answers": [{ "query": "Folder.total", "name": "empty", "answer": nothing }] }),
        &[],
    );
    let sites = judged(&report, "empty")["symbols"][0]["compilerSites"].as_array().unwrap().clone();
    assert!(sites.len() >= 2, "two pages need two sites: {report}");
    let rows: Vec<Value> = sites
        .iter()
        .map(|site| {
            let used = &site[0];
            let end = position(&used["range"]["end"]);
            row(used["file"].as_str().unwrap(), (end.0, end.1 - 5), end, "Qualifiers.Trees.Folder.total", Some("value"))
        })
        .collect();
    let (first, second) = rows.split_at(1);
    let first_page = json!({ "result": { "status": "ok", "sites": first, "nextCursor": "c1" }, "cursor": null });
    let second_page = json!({ "result": { "status": "ok", "sites": second }, "cursor": "c1" });
    let refusal = |retry: bool| {
        json!({ "error": { "code": -32803, "message": "the sweep has not validated the cursor yet",
                           "data": { "retrySameCursor": retry } },
                "cursor": "c1" })
    };
    let answers = json!({ "answers": [
        { "query": "Folder.total", "name": "retried-once",
          "exchange": [first_page, refusal(true), second_page] },
        { "query": "Folder.total", "name": "retried-twice",
          "exchange": [first_page, refusal(true), refusal(true), second_page] },
        { "query": "Folder.total", "name": "refused-thrice",
          "exchange": [first_page, refusal(true), refusal(true), refusal(true), second_page] },
        { "query": "Folder.total", "name": "refused-for-good",
          "exchange": [first_page, refusal(false), second_page] },
        { "query": "Folder.total", "name": "first-page-only", "exchange": [first_page] },
    ] });
    let (_, report) = judge_answers(workspace.path(), &answers, &["--no-restore"]);
    for name in ["retried-once", "retried-twice"] {
        let judgement = judged(&report, name);
        assert_eq!(judgement["verdict"], "exact", "{judgement}");
        assert_eq!(judgement["symbols"][0]["fslensRows"].as_u64(), Some(rows.len() as u64), "{judgement}");
    }
    for name in ["refused-thrice", "refused-for-good"] {
        let judgement = judged(&report, name);
        assert_eq!(judgement["verdict"], "failed", "{judgement}");
        assert!(judgement["error"].as_str().is_some_and(|error| error.contains("validated the cursor")), "{judgement}");
    }
    let judgement = judged(&report, "first-page-only");
    assert_eq!(judgement["verdict"], "failed", "{judgement}");
    assert!(judgement["error"].as_str().is_some_and(|error| error.contains("no reply left")), "{judgement}");
}

/// The table of the oracle's reports (`scripts/lib/oracle_table.py`, the closing note's
/// table): a partial answer whose judged rows are the compiler's and whose only reason is
/// inactive code counts as "inactive only" and in "exact where judged"; one with another
/// reason, or with rows the compiler disagrees with, does not; each reason class is counted
/// per library, and a note no class names is shown in its own words.
#[test]
fn the_oracle_table_counts_inactive_only_answers_and_the_reasons_per_library() {
    let directory = tempfile::tempdir().unwrap();
    let judgement = |verdict: &str, notes: &[&str], inactive: &[&str]| json!({ "verdict": verdict, "kind": "value", "elapsedMs": 1000, "notes": notes, "inactive": inactive });
    let inactive_note = "1 site(s) are in code inactive under the defines the project was loaded with";
    let report = json!({ "symbolsDeclared": 10, "judgements": [
        judgement("exact", &[], &[]),
        judgement("exact", &[], &[]),
        judgement("partial-but-equal", &[inactive_note], &["A.fs:1:5"]),
        judgement("partial-but-equal", &[inactive_note, "the deadline passed"], &["A.fs:2:5"]),
        judgement("honestly-partial", &[inactive_note], &["A.fs:3:5"]),
        judgement("partial-but-equal", &["a reason 12 nobody classified (here)"], &[]),
    ] });
    std::fs::write(directory.path().join("Lib.json"), report.to_string()).unwrap();
    let output = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/lib/oracle_table.py"))
        .arg(directory.path())
        .output()
        .expect("run python3");
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{table}{}", String::from_utf8_lossy(&output.stderr));
    // symbols, exact, wrong, partial but equal, honestly partial, failed, exact %, inactive
    // only, exact where judged %.
    assert!(table.contains("| Lib (6 of 10) | 6 | 2 | 0 | 3 | 1 | 0 | 33.3 % | 1 | 50.0 % |"), "{table}");
    assert!(table.contains("| inactive code | 3 | Lib 3 |"), "{table}");
    assert!(table.contains("| deadline | 1 | Lib 1 |"), "{table}");
    assert!(table.contains("| a reason  nobody classified | 1 | Lib 1 |"), "{table}");
}

/// The oracle asks an extension member by its module (`AsyncLoops.For`); a user also writes
/// the extended type (`AsyncBuilder.For`). Both resolve to the same two sites, complete.
#[tokio::test]
async fn an_extension_member_in_an_error_region_is_found_by_its_type_and_by_its_module() {
    let workspace = fixture_copy("builders");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(workspace.path(), runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let expected = BTreeSet::from([
        ("Builders/Loops.fs".to_owned(), 15, 17, "definition".to_owned()),
        ("Builders/Loops.fsi".to_owned(), 14, 15, "signature".to_owned()),
    ]);
    for query in ["AsyncBuilder.For", "AsyncLoops.For"] {
        let answer = editor.execute_result(FslensCommand::Find, json!({ "query": query })).await;
        assert_eq!(answer["status"], "ok", "{query}: {answer}");
        let sites: BTreeSet<_> = found_sites(&answer)
            .into_iter()
            .map(|(file, line, character, kind, _)| (file, line, character, kind))
            .collect();
        assert_eq!(sites, expected, "{query}: {answer}");
    }
    editor.stop().await;
}

/// fixtures/qualifiers: modules declaring the same short names (`A.map`, `AOption.map`,
/// `BOption.ok`), a generic type and a module of one name (`Tree`), a property and an
/// anonymous record field of one name (`Settings.Quiet`), namespaces named by their segments,
/// a `#if !FABLE_COMPILER` branch at column 0 inside a module, and a module abbreviation named
/// like a module of another namespace (`Options.Internal`: before, the abbreviation's target's
/// uses were listed as its own, complete), an attribute used without its suffix from another
/// file and an indexer used as `lookup["abc"]` (before: the .NET double skipped files whose
/// text does not spell the name, so `MarkerAttribute` and `Lookup.Item` lost those uses while
/// complete). Before: `find Qualifiers`
/// (a namespace only ever declared dotted, `namespace Qualifiers.Options`) answered
/// `not_found` while complete, and `Qualifiers.Options` / `Qualifiers.Use` were asked of FSAC
/// at their first segment (namespace `Qualifiers`).
/// `Folds.fs` is a file whose root the grammar cannot read (a one-line `try … finally` in a
/// member body before an abstract class's slots), as AsyncSeq.fs is: FSAC's `workspace/symbol`
/// lists an abstract member at its signature's type. Before: `Folder.FoldAsync` and
/// `Folder.MapAsync` answered that range as a fourth site and `Folder.Items` the uses of `'T`
/// (its type starts there), all while complete.
#[test]
fn no_find_on_the_qualifiers_fixture_says_complete_while_the_compiler_disagrees() {
    let workspace = fixture_copy("qualifiers");
    let (output, report) = run_oracle_with(&double_command(), workspace.path(), &[], &[]);
    let stdout = assert_no_wrong_answer(&output, &report);
    // A generic type and its module (`Tree<'T>`, compiled ``Tree`1``, and `module Tree`, no suffix): two
    // symbols, each judged against the rows labelled with it.
    let tree = report["judgements"].as_array().unwrap().iter().filter(|judgement| judgement["query"] == "Trees.Tree");
    for judgement in tree {
        let symbols: Vec<_> = judgement["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|symbol| (symbol["label"].as_str().unwrap(), symbol["kind"].as_str().unwrap()))
            .collect();
        assert_eq!(symbols, [("Qualifiers.Trees.Tree", "module"), ("Qualifiers.Trees.Tree", "type")], "{judgement}");
        if ROWS_NAME_THEIR_SYMBOL {
            assert_eq!(judgement["verdict"], "exact", "{judgement}");
        } else {
            // Today's rows are right but all labelled `Qualifiers.Trees.Tree` without a
            // `symbolKind`: each symbol gets the other's rows, wrong while complete.
            assert_eq!(judgement["verdict"], "wrong-while-complete", "{judgement}");
            assert_eq!(judgement["mergedEqual"], true, "{judgement}");
        }
    }
    for query in [
        "Qualifiers",
        "Qualifiers.Options",
        "Qualifiers.Use",
        "AOption.map",
        "A.map",
        "BOption.ok",
        "Settings.Quiet",
        "Folder.FoldAsync",
        "Folder.MapAsync",
        "Folder.Items",
    ] {
        assert_eq!(verdicts_of(&report, query).len(), 1, "{query}: {stdout}");
        assert_exact(&report, query, &stdout);
    }
    // The `#else` branch's `Stamp` is no use of the active one: listed as an inactive row, so
    // never complete; the oracle sets it aside, and the rest is the compiler's.
    assert_eq!(verdicts_of(&report, "Clock.Stamp"), ["partial-but-equal"], "{stdout}");
    let stamp = report["judgements"].as_array().unwrap().iter().find(|judgement| judgement["query"] == "Clock.Stamp");
    let stamp = stamp.unwrap_or_else(|| panic!("Clock.Stamp was not judged: {stdout}"));
    assert!(!stamp["inactive"].as_array().unwrap().is_empty(), "{stamp}");
}

/// Every other fixture solution, every symbol it declares, judged behind the .NET double (its
/// projects loaded with their real defines): no answer says complete while the compiler
/// disagrees. Before: `let rec … and helper` (union-patterns) answered `not_found` while
/// complete; members of `interface I with` (implementations) answered the interface's uses
/// as theirs while complete; a file's implicit module (`Empty` of an empty `Empty.fs`, `Program`
/// of bom) answered `not_found` while complete.
macro_rules! judged_fixtures {
    ($($test:ident => $fixture:literal,)*) => {$(
        #[test]
        fn $test() {
            let workspace = fixture_copy($fixture);
            let (output, report) = run_oracle_with(&double_command(), workspace.path(), &[], &[]);
            assert_no_wrong_answer_on_any_code(&output, &report);
            assert!(
                !judgements_with(&report, "exact").is_empty(),
                "{}: the oracle judged nothing exact, so it judged nothing:\n{}",
                $fixture,
                String::from_utf8_lossy(&output.stdout)
            );
        }
    )*};
}

judged_fixtures! {
    oracle_active_patterns => "active-patterns",
    oracle_bom => "bom",
    oracle_broken => "broken",
    oracle_builder_in_error_region => "builder-in-error-region",
    oracle_code_actions => "code-actions",
    oracle_conditional_and_operators => "conditional-and-operators",
    oracle_diagnostic_fixes => "diagnostic-fixes",
    oracle_empty_file => "empty-file",
    oracle_error_regions => "error-regions",
    oracle_implementations => "implementations",
    oracle_long_lines => "long-lines",
    oracle_many_errors => "many-errors",
    oracle_missing_compile_item => "missing-compile-item",
    oracle_names => "names",
    oracle_namespace_segment => "namespace-segment",
    oracle_nuget_restore => "nuget-restore",
    oracle_rename => "rename",
    oracle_scripts => "scripts",
    oracle_signatures => "signatures",
    oracle_slots => "slots",
    oracle_symbol_search => "symbol-search",
    oracle_tested => "tested",
    oracle_tested_builder => "tested-builder",
    oracle_union_patterns => "union-patterns",
    oracle_what_if => "what-if",
    oracle_wide_text => "wide-text",
}
