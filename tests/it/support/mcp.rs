//! For the tests that drive `fslens mcp` with the official MCP Python SDK: the interpreter
//! that has the pinned SDK, and running one of the scenario scripts in tests/mcp/.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::double::{double_command, repository};

/// The MCP SDK version the tests pin (scripts/test-mcp.sh installs it).
pub const MCP_SDK_VERSION: &str = "2.3.0";

/// The Python interpreter with the pinned MCP SDK (`FSLENS_MCP_PYTHON`, else the venv
/// `scripts/test-mcp.sh --prepare` makes), or a failure that says how to get one.
pub fn python_with_sdk() -> PathBuf {
    let python = std::env::var_os("FSLENS_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repository().join("target/mcp-venv/bin/python"));
    let probe =
        Command::new(&python).args(["-c", "import importlib.metadata as m, mcp; print(m.version('mcp'))"]).output();
    match probe {
        Ok(output) if output.status.success() => {
            let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
            assert_eq!(
                version,
                MCP_SDK_VERSION,
                "{} has mcp {version}; the tests pin {MCP_SDK_VERSION}: run scripts/test-mcp.sh",
                python.display()
            );
            python
        }
        _ => panic!(
            "the MCP Python SDK is missing: {} cannot import `mcp`. Run `scripts/test-mcp.sh --prepare` \
             (it creates target/mcp-venv with mcp=={MCP_SDK_VERSION}), or set FSLENS_MCP_PYTHON to a python that has it.",
            python.display()
        ),
    }
}

/// Runs `tests/mcp/<script>` (with `arguments`) against `fslens mcp` on `workspace`, the FSAC
/// double behind it, and returns the JSON report the script prints as its last line.
/// `FSLENS_MCP_REPORT_DIR` keeps each report (`<script>-<arguments>.json`) for reading after
/// the run.
pub fn run_scenario<V: AsRef<OsStr>>(
    script: &str,
    arguments: &[&str],
    workspace: &Path,
    runtime: &Path,
    environment: &[(&str, V)],
) -> Value {
    let mut command = Command::new(python_with_sdk());
    command
        .arg(repository().join("tests/mcp").join(script))
        .args(arguments)
        .current_dir(repository().join("tests/mcp"))
        .env("PYTHONPATH", repository().join("tests/mcp"))
        .env("FSLENS_BIN", env!("CARGO_BIN_EXE_fslens"))
        .env("FSLENS_WORKSPACE", workspace)
        .env("FSLENS_FSAC_COMMAND", double_command())
        .env("XDG_RUNTIME_DIR", runtime);
    for (name, value) in environment {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{script} {arguments:?} failed:\n{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    if let Some(directory) = std::env::var_os("FSLENS_MCP_REPORT_DIR") {
        let suffix: String = arguments.iter().map(|argument| format!("-{argument}")).collect();
        let name = format!("{}{suffix}.json", script.trim_end_matches(".py"));
        let _ = std::fs::write(Path::new(&directory).join(name), last);
    }
    serde_json::from_str(last).unwrap_or_else(|error| panic!("no report ({error}): {stdout}\n{stderr}"))
}

/// The body of the tool answer the report keeps under `key`, which must not be an error.
pub fn tool_body<'a>(report: &'a Value, key: &str) -> &'a Value {
    assert_eq!(report[key]["isError"], json!(false), "{key}: {}", report[key]);
    &report[key]["body"]
}
