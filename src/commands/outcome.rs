//! What an answer means, said by the command that gives it: definite, not definite, errors
//! found, or FSAC not running. The command line turns it into an exit code (`cli::contract`);
//! the wire and MCP carry the answer itself, which says the same in its own fields.

/// What kind of answer a command gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The answer is the definite one: `check`'s clean, a complete rename preview, tests that
    /// all passed, a doctor with nothing blocking.
    Definite,
    /// The command answered, but not definitely: `check`'s `unknown`, a preview that is not
    /// complete, `not_found`, `ambiguous`, `no_action`, an index still building.
    NotDefinite,
    /// A definite answer that something is wrong: `check`'s `errors`, a failed test, a
    /// signature declaring what its implementation lacks, a doctor check that is a problem.
    Errors,
    /// FSAC is not running (it crashed, or could not start): `status` says so.
    BackendDown,
}

/// An answer that says what it means. Most answers are always definite (the default).
pub trait Answered {
    /// What the answer means.
    fn outcome(&self) -> Outcome {
        Outcome::Definite
    }
}

/// `Definite` when `complete`, else `NotDefinite`.
pub fn definite_if(complete: bool) -> Outcome {
    if complete { Outcome::Definite } else { Outcome::NotDefinite }
}

/// An answer the table keeps untyped (`restart`) is always definite.
impl Answered for serde_json::Value {}
