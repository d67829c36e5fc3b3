//! The Neovim plugin (editors/neovim) driven headless by Debian's `nvim` against fslens and
//! the FSAC double on a copy of fixtures/shipping: the user commands fill the quickfix list and
//! change the buffer. The driver is editors/neovim/test/headless.lua; it writes what it saw
//! as JSON and the assertions are here.
//!
//! `nvim` must be installed (scripts/test-editors.sh installs Debian's `neovim`, 0.7.2); a
//! missing `nvim` fails these tests, it does not skip them. `FSLENS_NVIM=/path/to/nvim` runs
//! them on another Neovim (`scripts/test-editors.sh --with-nvim-0.11` does, for the plugin's
//! `vim.lsp.start` path).

#![allow(clippy::print_stderr)] // timings go to stderr

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::double::{double_command, fixture_copy, repository};
use support::editors::{editor_program, run_with_deadline};
use support::markers::{markers_of, read_markers};

const NVIM_DEADLINE: Duration = Duration::from_secs(100);

fn nvim() -> PathBuf {
    editor_program(
        "FSLENS_NVIM",
        "nvim",
        "the Neovim plugin tests need Debian's neovim — run scripts/test-editors.sh (it runs \
         `apt-get install -y neovim`) or install it yourself",
    )
}

/// Runs the headless driver with `steps` on `workspace`; returns its JSON observations.
fn drive(workspace: &Path, steps: &str) -> Value {
    drive_with(workspace, steps, &[])
}

/// `drive` with extra environment for the driver (FSLENS_START).
fn drive_with(workspace: &Path, steps: &str, environment: &[(&str, &str)]) -> Value {
    let nvim = nvim();
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out.json");
    let log = scratch.path().join("fslens.log");
    let runtime = scratch.path().join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    let script = repository().join("editors/neovim/test/headless.lua");
    let mut command = Command::new(&nvim);
    command
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .current_dir(workspace)
        .env("FSLENS_PLUGIN", repository().join("editors/neovim"))
        .env("FSLENS_BIN", env!("CARGO_BIN_EXE_fslens"))
        .env("FSLENS_FSAC", double_command())
        .env("FSLENS_WORKSPACE", workspace)
        .env("FSLENS_OUT", &out)
        .env("FSLENS_LOG", &log)
        .env("FSLENS_STEPS", steps)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("XDG_STATE_HOME", scratch.path().join("state"))
        .env("XDG_DATA_HOME", scratch.path().join("data"))
        .env("XDG_CACHE_HOME", scratch.path().join("cache"))
        .envs(environment.iter().copied());
    let started = Instant::now();
    let output = run_with_deadline(&mut command, NVIM_DEADLINE, |_| {
        format!("fslens log:\n{}", std::fs::read_to_string(&log).unwrap_or_default())
    });
    let text = std::fs::read_to_string(&out).unwrap_or_else(|error| {
        panic!(
            "the driver wrote no result ({error}); nvim stdout: {} stderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let seen: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        seen["errors"],
        serde_json::json!([]),
        "the driver failed: {seen:#}\nfslens log:\n{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let messages = seen["messages"].as_str().unwrap_or_default();
    assert!(!messages.contains("deprecated"), "the plugin uses a deprecated API on this Neovim: {messages}");
    eprintln!("neovim {} ran steps {steps} in {:?}", seen["nvim"], started.elapsed());
    seen
}

fn canonical(path: &str) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path))
}

#[test]
fn neovim_plugin_attaches_checks_and_makes_visible() {
    let workspace = fixture_copy("shipping");
    let seen = drive(workspace.path(), "unit,empty_arguments,check,make_visible");
    assert_eq!(seen["steps"]["unit"]["ok"], true, "the plugin's helpers: {seen:#}");

    // `arguments = { {} }` reaches fslens as `[[]]` and is the empty argument object.
    let empty = &seen["steps"]["empty_arguments"];
    assert_eq!(empty["encoded"], "[[]]", "Neovim's encoding of {{ {{}} }}: {empty:#}");
    assert_eq!(empty["error"], Value::Null, "{empty:#}");
    assert_eq!(empty["state"], "ready", "{empty:#}");

    // Attached as F# (0.7 does not know the filetype: the plugin registers it), rooted at the
    // solution rather than the nearer project, with readiness in the statusline.
    assert_eq!(seen["filetype"], "fsharp");
    assert_eq!(canonical(seen["root_dir"].as_str().unwrap()), canonical(workspace.path().to_str().unwrap()));
    assert_eq!(seen["statusline"], "fslens: ready");

    // :FslensCheck on the buffer with an unsaved type error: the error is in the quickfix list.
    let check = &seen["steps"]["check"];
    assert_eq!(check["verdict"], "errors", "{check:#}");
    let quickfix = check["quickfix"].as_array().unwrap();
    assert_eq!(quickfix.len(), 1, "{check:#}");
    let entry = &quickfix[0];
    let program = workspace.path().join("src/Shipping.App/Program.fs");
    assert_eq!(canonical(entry["file"].as_str().unwrap()), canonical(program.to_str().unwrap()));
    assert_eq!(entry["lnum"], check["edited_line"]);
    assert_eq!(entry["type"], "E");
    let text = entry["text"].as_str().unwrap();
    assert!(text.starts_with("FS0001 ") && text.contains("expected to have type"), "{text}");
    // The column is the start of the offending argument, "heavy" (1-based bytes).
    let line = std::fs::read_to_string(&program).unwrap().lines().nth(6).unwrap().replace("12.5", "\"heavy\"");
    assert_eq!(entry["col"].as_u64().unwrap() as usize, line.find("\"heavy\"").unwrap() + 1, "{line}");
    assert!(check["message"].as_str().unwrap().contains("errors"), "the verdict is announced: {check}");
    assert_eq!(check["saved"].as_str().unwrap(), "    let s = create \"Books\" 12.5 \"Lyon\"", "nothing is saved");

    // :FslensMakeVisible changes the buffer, not the disk.
    let visible = &seen["steps"]["make_visible"];
    assert_eq!(visible["status"], "ok", "{visible:#}");
    assert_eq!(visible["before"], "type private Hidden = { Code: int }");
    assert_eq!(visible["after"], "type internal Hidden = { Code: int }");
    assert_eq!(visible["modified"], true);
    assert_eq!(visible["on_disk"], "type private Hidden = { Code: int }");
    // With a project name, the declaring project's buffer gets InternalsVisibleTo.
    assert_eq!(visible["expose_status"], "ok", "{visible:#}");
    assert_eq!(visible["member_after"], "    member internal this.Check() = balance >= 0");
    let project = visible["project_buffer_lines"].as_array().unwrap();
    assert!(
        project.iter().any(|line| line.as_str().unwrap().contains("<InternalsVisibleTo Include=\"Shipping.Tests\" />")),
        "{visible:#}"
    );
    assert_eq!(seen["statusline_last"], "fslens: ready");
}

/// Neovim's (major, minor) version from `nvim --version`.
fn nvim_version() -> (u64, u64) {
    let output = Command::new(nvim()).arg("--version").output().expect("nvim --version");
    let text = String::from_utf8_lossy(&output.stdout);
    let version = text.lines().next().and_then(|line| line.strip_prefix("NVIM v")).unwrap_or_default();
    let mut parts = version.split('.').map(|part| part.parse::<u64>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// Neovim 0.11's convention: `vim.lsp.config("fslens", { cmd = … })` and
/// `vim.lsp.enable("fslens")` with no setup() find editors/neovim/lsp/fslens.lua on the
/// runtimepath, start fslens for the F# buffer, root it at the solution and define the
/// commands, which then check and make visible as with setup().
#[test]
#[ignore = "needs Neovim 0.11+ (vim.lsp.enable): scripts/test-editors.sh --with-nvim-0.11 runs it on 0.11.4, or \
            FSLENS_NVIM=/path/to/nvim-0.11 cargo test --test it editors_neovim:: -- --include-ignored"]
fn neovim_0_11_lsp_enable_starts_fslens_without_setup() {
    let (major, minor) = nvim_version();
    assert!(
        (major, minor) >= (0, 11),
        "Neovim {major}.{minor} has no vim.lsp.enable (0.11+): FSLENS_NVIM names the Neovim to run"
    );
    let workspace = fixture_copy("shipping");
    let seen = drive_with(workspace.path(), "check,make_visible", &[("FSLENS_START", "enable")]);
    assert_eq!(seen["lsp_enable"], true, "{seen:#}");
    assert_eq!(seen["filetype"], "fsharp");
    assert_eq!(canonical(seen["root_dir"].as_str().unwrap()), canonical(workspace.path().to_str().unwrap()));
    assert_eq!(seen["statusline"], "fslens: ready");
    let check = &seen["steps"]["check"];
    assert_eq!(check["verdict"], "errors", "{check:#}");
    assert_eq!(check["quickfix"].as_array().map(Vec::len), Some(1), "{check:#}");
    let visible = &seen["steps"]["make_visible"];
    assert_eq!(visible["after"], "type internal Hidden = { Code: int }", "{visible:#}");
    assert_eq!(visible["on_disk"], "type private Hidden = { Code: int }");
    assert_eq!(visible["expose_status"], "ok", "{visible:#}");
}

#[test]
fn neovim_find_fills_the_quickfix_list_with_every_site() {
    let workspace = fixture_copy("shipping");
    let seen = drive(workspace.path(), "find");
    let find = &seen["steps"]["find"];
    assert_eq!(find["error"], Value::Null, "{find:#}");

    // Expected: every marker of Shipment.Weight (not Parcel.Weight), from the fixture itself.
    let expected = shipment_weight_sites(workspace.path());
    assert!(expected.len() > 5, "the fixture marks Shipment.Weight: {expected:?}");
    assert_eq!(quickfix_sites(&find["quickfix"]), expected, "find at the cursor: {find:#}");
    assert_eq!(find["outcome"], "found");
    for entry in find["quickfix"].as_array().unwrap() {
        assert!(entry["text"].as_str().unwrap().contains("Weight"), "{entry}");
    }
    assert_eq!(find["query_error"], Value::Null, "{find:#}");
    assert_eq!(quickfix_sites(&find["query_quickfix"]), expected, "find by query, in pages of 5: {find:#}");
    assert!(find["query_pages"].as_u64().unwrap() > 1, "the plugin followed nextCursor: {find:#}");
}

/// Every site the fixture marks for Shipment.Weight (not Parcel.Weight), 1-based as in a
/// quickfix list.
fn shipment_weight_sites(workspace: &Path) -> BTreeSet<(PathBuf, u64, u64)> {
    markers_of(&read_markers(workspace), "Shipping.Domain.Shipment.Weight")
        .into_iter()
        .map(|marker| {
            (canonical(marker.file.to_str().unwrap()), u64::from(marker.line) + 1, u64::from(marker.character) + 1)
        })
        .collect()
}

/// The file, line and column of each entry of a quickfix list the plugin filled.
fn quickfix_sites(entries: &Value) -> BTreeSet<(PathBuf, u64, u64)> {
    entries
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                canonical(entry["file"].as_str().unwrap()),
                entry["lnum"].as_u64().unwrap(),
                entry["col"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn neovim_field_impact_fills_the_quickfix_list_with_every_field_site() {
    let workspace = fixture_copy("shipping");
    let seen = drive(workspace.path(), "field_impact");
    let impact = &seen["steps"]["field_impact"];
    assert_eq!(impact["error"], Value::Null, "{impact:#}");
    let expected = shipment_weight_sites(workspace.path());
    assert_eq!(quickfix_sites(&impact["quickfix"]), expected, "{impact:#}");
}

/// `:FslensRename` at a use of `create` in another project than its declaration: fslens sends
/// the rename as one applyEdit, Neovim applies it to both buffers, and nothing is saved.
#[test]
fn neovim_rename_changes_every_buffer_and_no_file() {
    let workspace = fixture_copy("shipping");
    let seen = drive(workspace.path(), "rename");
    let rename = &seen["steps"]["rename"];
    assert_eq!(rename["error"], Value::Null, "{rename:#}");
    assert_eq!(rename["applied"], true, "{rename:#}");
    assert_eq!(rename["complete"], true, "{rename:#}");
    // The declaration, the use in the app and three in the tests project.
    assert_eq!(rename["total_edits"], 5, "{rename:#}");
    assert_eq!(rename["after"], "    let s = makeShipment \"Books\" 12.5 \"Lyon\"", "{rename:#}");
    assert_eq!(rename["modified"], true);
    assert_eq!(rename["on_disk"], "    let s = create \"Books\" 12.5 \"Lyon\"");
    assert!(
        rename["declaration_after"].as_str().unwrap_or_default().starts_with("let makeShipment (name: string)"),
        "{rename:#}"
    );
    assert!(rename["declaration_on_disk"].as_str().unwrap().starts_with("let create (name: string)"), "{rename:#}");
    assert_eq!(rename["quickfix"], serde_json::json!([]), "{rename:#}");
}

/// `:FslensCallers` on `create`'s declaration: every call site, in the app and the tests
/// project, in the quickfix list with the caller's name.
#[test]
fn neovim_callers_fills_the_quickfix_list_with_every_call_site() {
    let workspace = fixture_copy("shipping");
    let seen = drive(workspace.path(), "callers");
    let callers = &seen["steps"]["callers"];
    assert_eq!(callers["error"], Value::Null, "{callers:#}");
    let sites: BTreeSet<(PathBuf, u64, String)> = callers["quickfix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let text = item["text"].as_str().unwrap();
            (
                canonical(item["file"].as_str().unwrap()),
                item["lnum"].as_u64().unwrap(),
                text.split(':').next().unwrap().to_owned(),
            )
        })
        .collect();
    let root = workspace.path();
    let program = canonical(root.join("src/Shipping.App/Program.fs").to_str().unwrap());
    let tests = canonical(root.join("tests/Shipping.Tests/ShipmentTests.fs").to_str().unwrap());
    let lines: BTreeSet<(PathBuf, u64)> = sites.iter().map(|(file, line, _)| (file.clone(), *line)).collect();
    assert_eq!(
        lines,
        BTreeSet::from([(program, 7), (tests.clone(), 8), (tests.clone(), 14), (tests, 21)]),
        "{callers:#}"
    );
    assert!(sites.iter().all(|(_, _, label)| label.starts_with("called from ")), "{callers:#}");
}

/// `:FslensCallees` on `run`: the calls it makes, `create` among them, each at its line in
/// Program.fs.
#[test]
fn neovim_callees_fills_the_quickfix_list_with_the_calls_made() {
    let workspace = fixture_copy("shipping");
    let seen = drive(workspace.path(), "callees");
    let callees = &seen["steps"]["callees"];
    assert_eq!(callees["error"], Value::Null, "{callees:#}");
    let entries = callees["quickfix"].as_array().unwrap();
    let program = canonical(workspace.path().join("src/Shipping.App/Program.fs").to_str().unwrap());
    assert!(!entries.is_empty(), "{callees:#}");
    for entry in entries {
        assert_eq!(canonical(entry["file"].as_str().unwrap()), program, "{entry}");
    }
    assert!(
        entries.iter().any(|entry| entry["lnum"] == 7 && entry["text"].as_str().unwrap().starts_with("calls create: ")),
        "{callees:#}"
    );
}

/// `:FslensImplementations` on an interface member, then `:FslensTypeHierarchy` on the interface,
/// in fixtures/implementations (rooted at the
/// directory above both projects through `root_markers = { ".git" }`): the two classes and the
/// object expression that implement it, in both projects.
#[test]
fn neovim_implementations_fill_the_quickfix_list_across_projects() {
    let workspace = fixture_copy("implementations");
    std::fs::create_dir_all(workspace.path().join(".git")).unwrap();
    let seen = drive_with(
        workspace.path(),
        "implementations,type_hierarchy",
        &[("FSLENS_FIRST_FILE", "Shapes/Shapes.fs"), ("FSLENS_ROOT_MARKERS", ".git")],
    );
    let implementations = &seen["steps"]["implementations"];
    assert_eq!(implementations["error"], Value::Null, "{implementations:#}");
    let sites: BTreeSet<(PathBuf, u64)> = implementations["quickfix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| (canonical(entry["file"].as_str().unwrap()), entry["lnum"].as_u64().unwrap()))
        .collect();
    let file = |relative: &str| canonical(workspace.path().join(relative).to_str().unwrap());
    let expected: BTreeSet<(PathBuf, u64)> =
        [(file("Shapes/Shapes.fs"), 12), (file("Plugins/Plugins.fs"), 7), (file("Plugins/Plugins.fs"), 12)].into();
    assert_eq!(sites, expected, "{implementations:#}");
    let hierarchy = &seen["steps"]["type_hierarchy"];
    assert_eq!(hierarchy["error"], Value::Null, "{hierarchy:#}");
    let rows: BTreeSet<(PathBuf, u64, String)> = hierarchy["quickfix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            let label = entry["text"].as_str().unwrap().split(':').next().unwrap().to_owned();
            (canonical(entry["file"].as_str().unwrap()), entry["lnum"].as_u64().unwrap(), label)
        })
        .collect();
    let subtypes: BTreeSet<(PathBuf, u64, String)> =
        [(file("Shapes/Shapes.fs"), 11), (file("Plugins/Plugins.fs"), 6), (file("Plugins/Plugins.fs"), 11)]
            .into_iter()
            .map(|(file, line)| (file, line, "subtype".to_owned()))
            .collect();
    assert_eq!(rows, subtypes, ":FslensTypeHierarchy on IShape: {hierarchy:#}");
}

/// The 1-based number of the first line of `file` holding `needle`.
fn line_holding(file: &Path, needle: &str) -> u64 {
    let text = std::fs::read_to_string(file).unwrap();
    let index = text.lines().position(|line| line.contains(needle)).unwrap_or_else(|| panic!("{needle:?} in {file:?}"));
    index as u64 + 1
}

/// `:FslensTestsForSymbol` on `needle` in fixtures/editors (built with the real `dotnet build`,
/// as FSAC builds nothing): its two tests in the quickfix list at their names. Then
/// `:FslensRunTests` runs that list's tests through fslens.runTests: the failing one is the
/// list, at its failing frame with VSTest's message; from that list it runs the same tests again;
/// and with a name, the tests of `clampReading` (found first), which pass: an empty list.
#[test]
fn neovim_tests_for_symbol_and_run_tests_fill_the_quickfix_list() {
    nvim();
    let workspace = fixture_copy("editors");
    let root = workspace.path();
    let output = Command::new("dotnet")
        .args(["build", "--nologo", "-v", "quiet", "tests/Gauges.Xunit/Gauges.Xunit.fsproj"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(output.status.success(), "dotnet build: {}", String::from_utf8_lossy(&output.stdout));
    let seen = drive_with(root, "tests_for_symbol,run_tests", &[("FSLENS_FIRST_FILE", "src/Gauges/Dial.fs")]);

    let tests_file = root.join("tests/Gauges.Xunit/DialTests.fs");
    let tests_path = canonical(tests_file.to_str().unwrap());
    let found = &seen["steps"]["tests_for_symbol"];
    assert_eq!(found["error"], Value::Null, "{found:#}");
    assert_eq!(found["complete"], true, "{found:#}");
    let entries: BTreeSet<(PathBuf, u64, String)> = found["quickfix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                canonical(entry["file"].as_str().unwrap()),
                entry["lnum"].as_u64().unwrap(),
                entry["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: BTreeSet<(PathBuf, u64, String)> = ["needle doubles the reading", "needle of one points at three"]
        .into_iter()
        .map(|name| (tests_path.clone(), line_holding(&tests_file, &format!("``{name}``")), format!("{name} [xunit]")))
        .collect();
    assert_eq!(entries, expected, "{found:#}");
    assert!(found["title"].as_str().unwrap().contains("Gauges.Dial.needle"), "{found:#}");
    assert!(found["message"].as_str().unwrap().contains("2 test(s) reach Gauges.Dial.needle"), "{found:#}");

    let run = &seen["steps"]["run_tests"];
    assert_eq!(run["error"], Value::Null, "{run:#}");
    assert_eq!((&run["totals"]["passed"], &run["totals"]["failed"]), (&Value::from(1), &Value::from(1)), "{run:#}");
    let ran: BTreeSet<&str> = run["ran"].as_array().unwrap().iter().map(|name| name.as_str().unwrap()).collect();
    assert_eq!(
        ran,
        BTreeSet::from([
            "Gauges.Xunit.DialTests.needle doubles the reading",
            "Gauges.Xunit.DialTests.needle of one points at three"
        ]),
        "the quickfix list's tests and no other: {run:#}"
    );
    let failures = run["quickfix"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{run:#}");
    let failure = &failures[0];
    assert_eq!(canonical(failure["file"].as_str().unwrap()), tests_path);
    assert_eq!(failure["lnum"].as_u64().unwrap(), line_holding(&tests_file, "Assert.Equal(3, pointed)"), "{run:#}");
    assert_eq!(failure["type"], "E");
    let text = failure["text"].as_str().unwrap();
    assert!(
        text.starts_with("Gauges.Xunit.DialTests.needle of one points at three: Assert.Equal() Failure")
            && text.contains("Expected: 3"),
        "{text}"
    );
    assert!(run["message"].as_str().unwrap().contains("1 passed, 1 failed"), "{run:#}");
    assert_eq!(run["again_totals"], run["totals"], "the failures' list runs the same tests again: {run:#}");

    assert_eq!(run["by_name_error"], Value::Null, "{run:#}");
    assert_eq!(
        (&run["by_name_totals"]["passed"], &run["by_name_totals"]["failed"]),
        (&Value::from(1), &Value::from(0))
    );
    assert_eq!(run["by_name_quickfix"], serde_json::json!([]), "{run:#}");
    assert!(run["by_name_message"].as_str().unwrap().contains("1 passed, 0 failed"), "{run:#}");
}

fn git(root: &Path, arguments: &[&str]) {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(arguments)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {arguments:?}: {}", String::from_utf8_lossy(&output.stderr));
}

/// `:FslensAffectedTests! HEAD` and `:FslensAffectedTests` on fixtures/tested-reach (restored, a
/// git repository of one commit) whose `Ledger.total` lost its `List.distinct` on disk (the
/// xUnit tests built after): the run's list has the xUnit fact calling `total` failing at its
/// frame with its reason, the one calling `summary` passing, the Expecto case not run (no test
/// SDK); then an unsaved edit of `Parsing.normalize` (not written) lists the tests reaching it
/// at their names, each with the chain from `normalize`. Other test projects of the fixture
/// may add entries; these must be there.
#[test]
fn neovim_affected_tests_list_the_tests_a_change_reaches_then_run_them() {
    nvim();
    let workspace = fixture_copy("tested-reach");
    let root = workspace.path().canonicalize().unwrap();
    support::dotnet::restore(&root.join("Calc.sln"));
    std::fs::write(root.join(".gitignore"), "bin/\nobj/\n").unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "the fixture"]);
    let ledger = root.join("src/Calc/Ledger.fs");
    let text = std::fs::read_to_string(&ledger).unwrap();
    std::fs::write(&ledger, text.replacen(" |> List.distinct", "", 1)).unwrap();
    let output = Command::new("dotnet")
        .args(["build", "--nologo", "-v", "quiet", "tests/Calc.Xunit/Calc.Xunit.fsproj"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(output.status.success(), "dotnet build: {}", String::from_utf8_lossy(&output.stdout));
    let seen = drive_with(&root, "affected_tests", &[("FSLENS_FIRST_FILE", "src/Calc/Parsing.fs")]);
    let step = &seen["steps"]["affected_tests"];
    let rows = |key: &str| -> Vec<(PathBuf, u64, String, String)> {
        step[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| {
                (
                    canonical(entry["file"].as_str().unwrap()),
                    entry["lnum"].as_u64().unwrap(),
                    entry["type"].as_str().unwrap().to_owned(),
                    entry["text"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let xunit = root.join("tests/Calc.Xunit/LedgerTests.fs");
    let expecto = root.join("tests/Calc.Expecto/ReportTests.fs");
    let (parsing, ledger_path, report) = ("src/Calc/Parsing.fs", "src/Calc/Ledger.fs", "src/Calc/Report.fs");
    let test_line = |file: &Path, name: &str| line_holding(file, name);

    // The run: each selected test's result, the failure at its frame, with its reason.
    assert_eq!(step["run_error"], Value::Null, "{step:#}");
    let ran = rows("run_quickfix");
    let total = test_line(&xunit, "``total counts distinct entries``");
    let failure = ran
        .iter()
        .find(|row| row.3.starts_with("Calc.Xunit.LedgerTests.total counts distinct entries: "))
        .unwrap_or_else(|| panic!("the failing fact: {step:#}"));
    assert_eq!(
        (&failure.0, failure.1, failure.2.as_str()),
        (&xunit, test_line(&xunit, "Assert.Equal(2"), "E"),
        "{step:#}"
    );
    assert!(
        failure.3.contains("Expected: 2")
            && failure.3.ends_with(&format!(
                "← body changed: total ({ledger_path}:3) → total counts distinct entries (tests/Calc.Xunit/LedgerTests.fs:{total})"
            )),
        "{failure:?}"
    );
    let summary = test_line(&xunit, "``summary says the total``");
    assert!(
        ran.contains(&(
            xunit.clone(),
            summary,
            "I".to_owned(),
            format!(
                "Calc.Xunit.LedgerTests.summary says the total: passed ← body changed: total ({ledger_path}:3) → summary \
                 ({report}:3) → summary says the total (tests/Calc.Xunit/LedgerTests.fs:{summary})"
            )
        )),
        "{ran:#?}"
    );
    let expecto_line = test_line(&expecto, "\"summary of two\"");
    assert!(
        ran.iter().any(|row| row.0 == expecto
            && row.1 == expecto_line
            && row.2 == "W"
            && row.3.starts_with("summary of two: not run ← ")),
        "the Expecto case is listed, not run: {ran:#?}"
    );
    assert!(step["run_title"].as_str().unwrap().contains("results"), "{step:#}");
    let message = step["run_message"].as_str().unwrap();
    assert!(message.contains("failed") && message.contains("not run"), "{message}");

    // The unsaved edit: the tests reaching normalize, each at its name with its chain.
    assert_eq!(step["error"], Value::Null, "{step:#}");
    assert_eq!((&step["source"], &step["complete"]), (&Value::from("buffers"), &Value::from(true)), "{step:#}");
    assert!(step["saved"].as_str().unwrap().contains("ToLowerInvariant"), "not written: {step:#}");
    let listed = rows("quickfix");
    let normalize = format!("normalize ({parsing}:3) → total ({ledger_path}:3)");
    for expected in [
        (
            xunit.clone(),
            total,
            format!(
                "total counts distinct entries [xunit] ← body changed: {normalize} → total counts distinct entries (tests/Calc.Xunit/LedgerTests.fs:{total})"
            ),
        ),
        (
            xunit.clone(),
            summary,
            format!(
                "summary says the total [xunit] ← body changed: {normalize} → summary ({report}:3) → summary says the total (tests/Calc.Xunit/LedgerTests.fs:{summary})"
            ),
        ),
        (
            expecto.clone(),
            expecto_line,
            format!(
                "summary of two [expecto] ← body changed: {normalize} → summary ({report}:3) → summary of two (tests/Calc.Expecto/ReportTests.fs:{expecto_line})"
            ),
        ),
    ] {
        assert!(
            listed.contains(&(expected.0.clone(), expected.1, "I".to_owned(), expected.2.clone())),
            "{expected:?} in {listed:#?}"
        );
    }
    assert!(
        listed.iter().all(|row| !row.3.starts_with("count counts every entry") && !row.3.starts_with("count of none")),
        "Ledger.count is not reached: {listed:#?}"
    );
    let message = step["message"].as_str().unwrap();
    assert!(message.contains("reached by the change (unsaved buffers; complete)"), "{message}");
    assert!(message.contains(":FslensAffectedTests! runs them"), "{message}");
}

/// The quickfix list as (file, line, text) rows.
fn quickfix_rows(step: &Value) -> Vec<(PathBuf, u64, String)> {
    step["quickfix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                canonical(entry["file"].as_str().unwrap()),
                entry["lnum"].as_u64().unwrap(),
                entry["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `:FslensDeadCode` on fixtures/dead: exactly the unused declarations tests/it/dead_code.rs
/// asserts, each at its name with its kind and accessibility, and a message saying the answer
/// is not complete (App's internal value is not ruled out); `:FslensSignatureDrift` on
/// Lib/Shapes.fs: its two values Shapes.fsi does not declare. Then `:FslensUnionCaseImpact add`
/// on fixtures/union's `Shape`: the three matches that miss the new case (FS0025) and the one
/// that takes it through its catch-all arm, and nothing written.
#[test]
fn neovim_dead_code_signature_drift_and_union_case_impact_fill_the_quickfix_list() {
    let dead = fixture_copy("dead");
    let root = dead.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let seen = drive_with(
        root,
        "dead_code,signature_drift",
        &[("FSLENS_FIRST_FILE", "Lib/Core.fs"), ("FSLENS_ROOT_MARKERS", ".git")],
    );
    let file = |relative: &str| canonical(root.join(relative).to_str().unwrap());
    let found = &seen["steps"]["dead_code"];
    assert_eq!(found["error"], Value::Null, "{found:#}");
    let rows: Vec<(PathBuf, u64, String)> = quickfix_rows(found)
        .into_iter()
        .map(|(path, line, text)| (path, line, text.split(':').next().unwrap().to_owned()))
        .collect();
    // tests/it/dead_code.rs's expected_private_and_internal(), in the answer's order.
    let expected: Vec<(PathBuf, u64, String)> = [
        ("Lib/Shapes.fs", 7, "hiddenHelper (value, hiddenBySignature)"),
        ("Lib/Core.fs", 6, "unusedPrivate (value, private)"),
        ("Lib/Core.fs", 9, "unusedInternal (value, internal)"),
        ("Lib/Core.fs", 29, "countdown (value, private)"),
        ("Lib/Core.fs", 33, "helper (value, private)"),
        ("Lib/Core.fs", 43, "Unused (member, private)"),
        ("Lib/Core.fs", 57, "Slow (unionCase, internal)"),
        ("App/Program.fs", 12, "appPrivateUnused (value, private)"),
    ]
    .into_iter()
    .map(|(path, line, text)| (file(path), line, text.to_owned()))
    .collect();
    assert_eq!(rows, expected, "{found:#}");
    assert_eq!((&found["complete"], &found["not_ruled_out"]), (&Value::from(false), &Value::from(1)), "{found:#}");
    let message = found["message"].as_str().unwrap();
    assert!(message.contains("8 unused declaration(s) (NOT complete); 1 not ruled out"), "{message}");

    let drift = &seen["steps"]["signature_drift"];
    assert_eq!(drift["error"], Value::Null, "{drift:#}");
    let items: Vec<(PathBuf, u64, String)> = drift["quickfix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            assert_eq!(entry["col"], 5, "at the name: {entry}");
            assert_eq!(entry["type"], "W", "{entry}");
            let text = entry["text"].as_str().unwrap().split(" — ").next().unwrap().to_owned();
            (canonical(entry["file"].as_str().unwrap()), entry["lnum"].as_u64().unwrap(), text)
        })
        .collect();
    let shapes = file("Lib/Shapes.fs");
    assert_eq!(
        items,
        [
            (shapes.clone(), 4, "Lib.Shapes.scale (value): not in Lib/Shapes.fsi".to_owned()),
            (shapes, 7, "Lib.Shapes.hiddenHelper (value): not in Lib/Shapes.fsi".to_owned())
        ],
        "{drift:#}"
    );
    assert!(drift["message"].as_str().unwrap().contains("2 implementation-only, 0 signature-only"), "{drift:#}");

    let union = fixture_copy("union");
    let root = union.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let seen = drive_with(
        root,
        "union_case_impact",
        &[("FSLENS_FIRST_FILE", "Geometry/Shape.fs"), ("FSLENS_ROOT_MARKERS", ".git")],
    );
    let impact = &seen["steps"]["union_case_impact"];
    assert_eq!(impact["error"], Value::Null, "{impact:#}");
    assert_eq!(impact["complete"], true, "{impact:#}");
    let shape = root.join("Geometry/Shape.fs");
    let render = root.join("App/Render.fs");
    let at = |path: &Path, needle: &str, function: &str| {
        (canonical(path.to_str().unwrap()), line_holding(path, needle), format!("FS0025 incompleteMatch in {function}"))
    };
    // tests/it/union_impact.rs's three matches: at the `match`/`function` keyword.
    let expected: BTreeSet<(PathBuf, u64, String)> = [
        at(&shape, "match shape with", "area"),
        at(&render, "let describe", "describe"),
        at(&render, "    function", "corners"),
    ]
    .into_iter()
    .map(|(path, line, text)| if text.ends_with("describe") { (path, line + 1, text) } else { (path, line, text) })
    .collect();
    let entries = impact["quickfix"].as_array().unwrap();
    let errors: BTreeSet<(PathBuf, u64, String)> = quickfix_rows(impact)
        .into_iter()
        .filter(|(_, _, text)| text.starts_with("FS"))
        .map(|(path, line, text)| {
            assert!(text.contains("'Triangle"), "{text}");
            (path, line, text.split(':').next().unwrap().to_owned())
        })
        .collect();
    assert_eq!(errors, expected, "{impact:#}");
    // Then the wildcard match, a warning: isRound's `| _ -> false` takes the new case.
    assert_eq!(entries.len(), 4, "{impact:#}");
    let wildcard = &entries[3];
    assert_eq!(canonical(wildcard["file"].as_str().unwrap()), canonical(render.to_str().unwrap()));
    assert_eq!(wildcard["lnum"].as_u64().unwrap(), line_holding(&render, "let isRound") + 1, "{impact:#}");
    assert_eq!(wildcard["type"], "W");
    assert!(wildcard["text"].as_str().unwrap().starts_with("wildcard match in isRound"), "{impact:#}");
    let message = impact["message"].as_str().unwrap();
    assert!(
        message.contains("breaks 3 place(s), 1 wildcard match(es)") && message.contains("(complete; nothing written)"),
        "{message}"
    );
    assert_eq!(impact["unchanged"], true, "nothing written, the buffer untouched: {impact:#}");
    assert!(impact["refused"].as_str().unwrap().starts_with("usage: "), "{impact:#}");
}
