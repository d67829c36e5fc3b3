//! `fslens find` as a script runs it before FSAC exists: the real binary, with `--fsac`
//! naming a program that does not exist, so the syntax layer answers, and no cache.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The JSON answer of `fslens find ARGUMENTS --json` over the workspace at `root`.
pub fn syntax_find(root: &Path, arguments: &[&str]) -> Value {
    syntax_find_with(root, arguments, &[])
}

/// [`syntax_find`] with more environment variables.
pub fn syntax_find_with(root: &Path, arguments: &[&str], environment: &[(&str, &str)]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .arg("find")
        .args(arguments)
        .args(["--json", "--no-share", "--fsac", "/nonexistent/fsautocomplete-for-this-test", "--workspace"])
        .arg(root)
        .env("FSLENS_CACHE_DIR", "off")
        .env_remove("FSLENS_FSAC")
        .envs(environment.iter().copied())
        .output()
        .expect("run fslens find");
    assert!(output.status.success(), "fslens find failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("find prints JSON")
}
