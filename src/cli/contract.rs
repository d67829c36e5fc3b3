//! What the CLI subcommands promise a script. Every outcome has an exit code that says which
//! kind of outcome it is, and with `--json` every outcome, a failure included, is one JSON
//! object on stdout: an answer, or a failure carrying its `errorKind`. A failure is carried from
//! wherever it happened (the session's JSON-RPC error, a command's typed error, a flag clap
//! refused) to `main` as a [`Failure`], so its kind is never reduced to a line of text.

use serde_json::{Value, json};

use crate::failure::Failure;
use crate::lsp::ext::error_kinds;

/// The exit codes of the CLI subcommands (docs/commands.md, "Exit codes").
pub mod exit_codes {
    /// The command answered, and the answer is the definite one (`check`: clean).
    pub const SUCCESS: u8 = 0;
    /// `check`'s verdict `errors` (the code has compiler errors), and `run-tests` with a
    /// failed test. Nothing else exits with 1.
    pub const CHECK_ERRORS: u8 = 1;
    /// The command answered, but not definitely: `check`'s `unknown`, a rename preview that is
    /// not complete, `not_found`, `ambiguous`, `no_action`, an index still building.
    pub const NOT_DEFINITE: u8 = 2;
    /// `fslens status`: FSAC is not running (it crashed, or could not start).
    pub const FSAC_NOT_RUNNING: u8 = 3;
    /// The request was refused: a bad flag or argument, a path outside the workspace or
    /// missing, a stale or foreign cursor, a position on no symbol. Asking again unchanged
    /// gives the same answer.
    pub const BAD_INPUT: u8 = 64;
    /// fslens (or FSAC behind it) failed to answer: a deadline, FSAC unavailable or gone, the
    /// session unreachable, a fault in fslens. Asking again may help.
    pub const FAILED: u8 = 70;
}

/// The `errorKind`s that mean the request itself was refused ([`exit_codes::BAD_INPUT`]).
const BAD_INPUT_KINDS: &[&str] = &[
    error_kinds::INVALID_ARGUMENT,
    error_kinds::INVALID_PATH,
    error_kinds::FIND_CURSOR_INVALID,
    error_kinds::FIND_CURSOR_QUERY_MISMATCH,
    error_kinds::FIND_CURSOR_STALE,
    error_kinds::NO_SYMBOL_AT_POSITION,
    error_kinds::NO_DIAGNOSTIC_AT_POSITION,
    error_kinds::NO_PROJECT,
    error_kinds::RENAME_FILES_CHANGED,
];

/// What the command line makes of a [`Failure`]: a clap refusal as one, its exit code and its
/// `--json` object.
impl Failure {
    /// A command line clap refused (an unknown flag, a value of the wrong type, a missing
    /// argument): `invalid_argument`, naming the flag when clap says which.
    pub fn usage(error: &clap::Error) -> Failure {
        let argument = error.get(clap::error::ContextKind::InvalidArg).map(|value| value.to_string());
        let message = error.kind().as_str().map(str::to_owned).unwrap_or_else(|| "the command line was refused".into());
        let detail = error.to_string();
        let first_line = detail.lines().next().unwrap_or_default().trim_start_matches("error: ").to_owned();
        let mut failure = Failure::invalid_argument(
            argument.as_deref().unwrap_or("arguments"),
            if first_line.is_empty() { message } else { first_line },
        );
        if let Some(data) = failure.data.as_mut() {
            data["usage"] = json!(detail.trim_end());
        }
        failure
    }

    /// Which exit code the failure gives: [`exit_codes::BAD_INPUT`] when the request itself
    /// was refused, else [`exit_codes::FAILED`].
    pub fn exit_code(&self) -> u8 {
        if BAD_INPUT_KINDS.contains(&self.error_kind.as_str()) { exit_codes::BAD_INPUT } else { exit_codes::FAILED }
    }

    /// The failure as the one JSON object `--json` prints: `errorKind`, `message`, `code`,
    /// `data` (the session's typed data, or null) and `exitCode`.
    pub fn to_json(&self) -> Value {
        json!({
            "errorKind": self.error_kind,
            "message": self.message,
            "code": self.code,
            "data": self.data,
            "exitCode": self.exit_code(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_request_and_a_failure_get_different_exit_codes() {
        let refused = Failure::invalid_argument("line", "the file has 3 lines");
        assert_eq!(refused.exit_code(), exit_codes::BAD_INPUT);
        assert_eq!(refused.to_json()["data"]["argument"], "line");
        assert_eq!(refused.to_json()["errorKind"], "invalid_argument");
        let failed = Failure::new(error_kinds::TIMEOUT, "the deadline passed");
        assert_eq!(failed.exit_code(), exit_codes::FAILED);
        let untyped = Failure::of(&anyhow::anyhow!("the session closed"));
        assert_eq!(untyped.exit_code(), exit_codes::FAILED);
    }
}
