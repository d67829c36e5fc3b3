//! `fslens doctor` (and `fslens.doctor` in a session) on fixtures/doctor/: one fixture per
//! problem (an SDK pin nothing installed meets, a pin a `rollForward` policy makes fine, an
//! unrestored project, a paket repository without its restore targets, central package
//! management with a `Version` NuGet refuses) and a healthy one; FSAC found through `--fsac`
//! (the FSAC double) and found nowhere (an empty `PATH`); a second FSAC beside fslens; a session
//! directory open to others. The real binary runs on a copy of each fixture.

use std::path::Path;
use std::process::Output;

use crate::support;
use fslens::commands::doctor::{CheckId, CheckStatus, DoctorAnswer, DoctorCheck, RanIn};
use fslens::commands::registry::Command;
use serde_json::json;
use support::double::{Editor, double_command, fixture_copy};

/// `fslens doctor` on `workspace` with `arguments` added and `environment` set (`FSLENS_FSAC`
/// removed unless given), its sockets under `runtime`.
fn doctor(workspace: &Path, runtime: &Path, arguments: &[&str], environment: &[(&str, &str)]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"));
    command
        .arg("doctor")
        .args(arguments)
        .arg("--workspace")
        .arg(workspace)
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("FSLENS_FSAC")
        .env_remove("DOTNET_ROOT");
    for (name, value) in environment {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// The JSON answer and the text of `fslens doctor` with the double as FSAC, and both exit codes.
fn diagnose(workspace: &Path) -> (DoctorAnswer, i32, String, i32) {
    let runtime = tempfile::tempdir().unwrap();
    let fsac = double_command();
    let json = doctor(workspace, runtime.path(), &["--json", "--fsac", &fsac], &[]);
    let answer: DoctorAnswer = serde_json::from_slice(&json.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&json.stderr)));
    let text = doctor(workspace, runtime.path(), &["--fsac", &fsac], &[]);
    (answer, json.status.code().unwrap(), String::from_utf8(text.stdout).unwrap(), text.status.code().unwrap())
}

fn checks(answer: &DoctorAnswer, id: CheckId) -> Vec<&DoctorCheck> {
    answer.checks.iter().filter(|check| check.id == id).collect()
}

fn one(answer: &DoctorAnswer, id: CheckId) -> &DoctorCheck {
    let found = checks(answer, id);
    assert_eq!(found.len(), 1, "{id:?}: {answer:#?}");
    found[0]
}

/// A copy of fixtures/doctor/<name>; `restored` writes each project's `obj/project.assets.json`
/// as a restore would (the doctor only asks whether it is there).
fn fixture(name: &str, restored: &[&str]) -> tempfile::TempDir {
    let copy = fixture_copy(&format!("doctor/{name}"));
    for project_directory in restored {
        let obj = copy.path().join(project_directory).join("obj");
        std::fs::create_dir_all(&obj).unwrap();
        std::fs::write(obj.join("project.assets.json"), "{\"version\": 3}").unwrap();
    }
    copy
}

#[test]
fn a_healthy_workspace_blocks_nothing_and_exits_0() {
    let workspace = fixture("healthy", &["."]);
    let (answer, code, text, text_code) = diagnose(workspace.path());
    assert_eq!((code, text_code), (0, 0), "{text}");
    assert!(!answer.blocked);
    assert_eq!(answer.ran_in, RanIn::Files);
    for check in &answer.checks {
        assert!(matches!(check.status, CheckStatus::Ok | CheckStatus::Info), "{check:?}");
    }
    let fsac = one(&answer, CheckId::Fsac);
    assert!(fsac.message.contains("(from --fsac), version FsacDouble "), "{}", fsac.message);
    assert_eq!(one(&answer, CheckId::Restore).message, "Healthy.fsproj is restored");
    assert!(text.lines().any(|line| line.starts_with("ok       fsac: `dotnet ")), "{text}");
    assert!(text.lines().any(|line| line == "ok       restore: Healthy.fsproj is restored"), "{text}");
    assert!(text.ends_with("0 problem(s), 0 warning(s): nothing blocks this workspace\n"), "{text}");
}

#[test]
fn an_sdk_pin_nothing_installed_meets_is_a_problem_with_the_install_command() {
    let workspace = fixture("sdk-missing", &["."]);
    let (answer, code, text, text_code) = diagnose(workspace.path());
    assert_eq!((code, text_code), (1, 1), "{text}");
    assert!(answer.blocked);
    let pin = one(&answer, CheckId::GlobalJson);
    assert_eq!(pin.status, CheckStatus::Problem);
    assert!(pin.message.starts_with("global.json pins SDK 99.0.100 (rollForward latestPatch), which no installed SDK"));
    assert_eq!(
        pin.fix.as_deref(),
        Some("curl -sSL https://dot.net/v1/dotnet-install.sh | bash -s -- --version 99.0.100")
    );
    assert_eq!(pin.path.as_deref(), Some("global.json"));
    assert!(text.contains("problem  global_json: global.json pins SDK 99.0.100"), "{text}");
    assert!(
        text.contains("         fix: curl -sSL https://dot.net/v1/dotnet-install.sh | bash -s -- --version 99.0.100\n"),
        "{text}"
    );
}

#[test]
fn a_roll_forward_policy_that_reaches_an_installed_sdk_is_fine() {
    let workspace = fixture("sdk-roll-forward", &["."]);
    let (answer, code, text, _) = diagnose(workspace.path());
    let pin = one(&answer, CheckId::GlobalJson);
    assert_eq!(pin.status, CheckStatus::Ok, "{pin:?}");
    assert!(pin.message.starts_with("global.json pins SDK 8.0.100 (rollForward latestMajor): SDK "), "{}", pin.message);
    assert!(pin.message.ends_with(" is used"), "{}", pin.message);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn an_unrestored_project_is_a_problem_with_its_restore_command() {
    let workspace = fixture("unrestored", &[]);
    let (answer, code, text, text_code) = diagnose(workspace.path());
    assert_eq!((code, text_code), (1, 1));
    let restore = one(&answer, CheckId::Restore);
    assert_eq!(restore.status, CheckStatus::Problem);
    assert_eq!(restore.fix.as_deref(), Some("dotnet restore Unrestored.fsproj"));
    assert!(
        text.contains(
            "problem  restore: Unrestored.fsproj is not restored (no obj/project.assets.json): FSAC cannot load it\n         fix: dotnet restore Unrestored.fsproj\n"
        ),
        "{text}"
    );
    // Nothing else is wrong in this fixture.
    let others: Vec<_> = answer
        .checks
        .iter()
        .filter(|check| check.status == CheckStatus::Problem && check.id != CheckId::Restore)
        .collect();
    assert!(others.is_empty(), "{others:?}");
}

#[test]
fn unrestored_projects_of_one_solution_are_one_problem_restoring_the_solution() {
    let workspace = fixture("unrestored-solution", &[]);
    let (answer, code, text, _) = diagnose(workspace.path());
    assert_eq!(code, 1, "{text}");
    let restore = one(&answer, CheckId::Restore);
    assert_eq!(restore.status, CheckStatus::Problem);
    assert_eq!(restore.fix.as_deref(), Some("dotnet restore Ledger.slnx"));
    assert_eq!(
        restore.message,
        "2 project(s) of Ledger.slnx are not restored (no obj/project.assets.json), so FSAC cannot load them: \
         src/Ledger/Ledger.fsproj, src/Report/Report.fsproj"
    );
    assert!(text.contains("         fix: dotnet restore Ledger.slnx\n"), "{text}");

    // One left unrestored is that project's own problem again, beside the restored one.
    let workspace = fixture("unrestored-solution", &["src/Ledger"]);
    let (answer, _, text, _) = diagnose(workspace.path());
    let restores = checks(&answer, CheckId::Restore);
    assert_eq!(restores.len(), 2, "{text}");
    assert_eq!(restores[0].message, "src/Ledger/Ledger.fsproj is restored");
    assert_eq!(restores[1].fix.as_deref(), Some("dotnet restore src/Report/Report.fsproj"), "{text}");
}

#[test]
fn a_paket_repository_without_its_restore_targets_is_a_problem() {
    let workspace = fixture("paket", &["src/Lib"]);
    let (answer, code, text, _) = diagnose(workspace.path());
    assert_eq!(code, 1);
    let paket = one(&answer, CheckId::Paket);
    assert_eq!(paket.status, CheckStatus::Problem);
    assert_eq!(paket.fix.as_deref(), Some("dotnet tool restore && dotnet paket restore"));
    assert_eq!(paket.path.as_deref(), Some(".paket/Paket.Restore.targets"));
    assert!(text.contains("         fix: dotnet tool restore && dotnet paket restore\n"), "{text}");

    std::fs::create_dir_all(workspace.path().join(".paket")).unwrap();
    std::fs::write(workspace.path().join(".paket/Paket.Restore.targets"), "<Project />").unwrap();
    let (answer, code, _, _) = diagnose(workspace.path());
    assert_eq!(one(&answer, CheckId::Paket).status, CheckStatus::Ok);
    assert_eq!(code, 0, "{answer:#?}");
}

#[test]
fn central_package_management_is_said_and_a_version_nuget_refuses_is_a_problem() {
    let workspace = fixture("central-packages", &["src/App", "src/Lib"]);
    let (answer, code, text, _) = diagnose(workspace.path());
    assert_eq!(code, 1);
    let central = checks(&answer, CheckId::CentralPackages);
    assert_eq!(central.len(), 2, "{central:?}");
    assert_eq!(central[0].status, CheckStatus::Info);
    assert_eq!(central[0].path.as_deref(), Some("Directory.Packages.props"));
    assert_eq!(central[1].status, CheckStatus::Problem);
    assert_eq!(central[1].path.as_deref(), Some("src/App/App.fsproj"), "only App writes a Version");
    assert!(
        central[1].message.contains("Newtonsoft.Json has Version=\"13.0.3\"") && central[1].message.contains("NU1008")
    );
    assert!(central[1].fix.as_deref().is_some_and(|fix| fix.starts_with("remove Version=\"13.0.3\"")));
    assert!(text.contains("info     central_packages: central package management: Directory.Packages.props"), "{text}");
}

#[test]
fn fsac_found_nowhere_is_a_problem_with_the_install_command() {
    let workspace = fixture("healthy", &["."]);
    let runtime = tempfile::tempdir().unwrap();
    let output = doctor(workspace.path(), runtime.path(), &["--json"], &[("PATH", "")]);
    assert_eq!(output.status.code(), Some(1));
    let answer: DoctorAnswer = serde_json::from_slice(&output.stdout).unwrap();
    let fsac = one(&answer, CheckId::Fsac);
    assert_eq!(fsac.status, CheckStatus::Problem);
    assert!(fsac.message.starts_with("no FSAC found"), "{}", fsac.message);
    assert_eq!(fsac.fix.as_deref(), Some("dotnet tool install --global fsautocomplete"));
    // No dotnet on PATH: no SDK either.
    assert_eq!(one(&answer, CheckId::DotnetSdk).status, CheckStatus::Problem);
    let text = doctor(workspace.path(), runtime.path(), &[], &[("PATH", "")]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("problem  fsac: no FSAC found"), "{text}");
    assert!(text.contains("         fix: dotnet tool install --global fsautocomplete\n"), "{text}");
}

#[test]
fn the_json_answer_types_each_check() {
    let workspace = fixture("unrestored", &[]);
    let runtime = tempfile::tempdir().unwrap();
    let output = doctor(workspace.path(), runtime.path(), &["--json", "--fsac", &double_command()], &[]);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["ranIn"], json!("files"));
    assert_eq!(value["blocked"], json!(true));
    let restore = value["checks"].as_array().unwrap().iter().find(|check| check["id"] == json!("restore")).unwrap();
    assert_eq!(
        restore,
        &json!({
            "id": "restore",
            "status": "problem",
            "message": "Unrestored.fsproj is not restored (no obj/project.assets.json): FSAC cannot load it",
            "fix": "dotnet restore Unrestored.fsproj",
            "path": "Unrestored.fsproj",
        })
    );
    for check in value["checks"].as_array().unwrap() {
        assert!(check["fix"].is_null() || check["fix"].is_string(), "{check}");
        assert!(["ok", "info", "warning", "problem"].contains(&check["status"].as_str().unwrap()), "{check}");
    }
}

#[test]
fn a_session_directory_open_to_others_is_a_problem_with_chmod() {
    use std::os::unix::fs::PermissionsExt;
    let workspace = fixture("healthy", &["."]);
    let runtime = tempfile::tempdir().unwrap();
    let directory = runtime.path().join("fslens");
    std::fs::create_dir(&directory).unwrap();
    std::fs::set_permissions(&directory, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = doctor(workspace.path(), runtime.path(), &["--json", "--fsac", &double_command()], &[]);
    assert_eq!(output.status.code(), Some(1));
    let answer: DoctorAnswer = serde_json::from_slice(&output.stdout).unwrap();
    let socket = one(&answer, CheckId::SessionSocket);
    assert_eq!(socket.status, CheckStatus::Problem);
    assert!(socket.message.contains("has mode 755"), "{}", socket.message);
    assert_eq!(socket.fix.as_deref(), Some(format!("chmod 700 {}", directory.display()).as_str()));
}

#[cfg(target_os = "linux")]
#[test]
fn a_second_fsac_in_the_workspace_is_a_warning() {
    let workspace = fixture("healthy", &["."]);
    let root = workspace.path().canonicalize().unwrap();
    // A process whose command line is `fsautocomplete`, started in the workspace as an editor
    // starts its own FSAC.
    let mut second = std::process::Command::new("bash")
        .args(["-c", "exec -a fsautocomplete sleep 60"])
        .current_dir(&root)
        .spawn()
        .unwrap();
    let pid = second.id();
    // Wait until the exec has happened (the command line is `fsautocomplete 60`).
    for _ in 0..100 {
        let line = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if line.starts_with(b"fsautocomplete\0") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (answer, code, text, _) = diagnose(&root);
    let _ = second.kill();
    let _ = second.wait();
    let check = one(&answer, CheckId::SecondServer);
    assert_eq!(check.status, CheckStatus::Warning, "{check:?}");
    assert!(check.message.contains(&format!("pid {pid} `fsautocomplete 60`")), "{}", check.message);
    assert_eq!(code, 0, "a warning blocks nothing: {text}");
    assert!(text.contains("warning  second_server: another FSAC serves this workspace"), "{text}");
}

#[tokio::test]
async fn on_the_wire_the_session_runs_the_same_checks_with_its_own_fsac() {
    let workspace = fixture("unrestored", &[]);
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(workspace.path(), runtime.path(), &double_command(), &[]).await;
    let answer: DoctorAnswer = editor.execute_as(Command::Doctor, json!({})).await;
    editor.stop().await;
    assert_eq!(answer.ran_in, RanIn::Session);
    let fsac = one(&answer, CheckId::Fsac);
    assert_eq!(fsac.status, CheckStatus::Ok, "{fsac:?}");
    assert!(fsac.message.contains("runs in the session, pid "), "{}", fsac.message);
    assert_eq!(one(&answer, CheckId::Restore).fix.as_deref(), Some("dotnet restore Unrestored.fsproj"));
    // The session's FSAC is behind fslens: no second server.
    assert_eq!(one(&answer, CheckId::SecondServer).status, CheckStatus::Ok);
    assert!(answer.blocked);
}
