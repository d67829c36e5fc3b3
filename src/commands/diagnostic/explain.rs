//! `fslens.explainDiagnostic`: one diagnostic the compiler reported, in full — FSAC's exact
//! message, code, severity and range, the line with a few lines around it, the related
//! information, what the code usually means (a short table of the common F# codes, written
//! for this tool) and which fixes FSAC offers for it.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::diagnostic::answer::{Blocked, ExplainedDiagnostic, Matched, OkStatus, Via};
use crate::commands::diagnostic::arguments::ExplainArguments;
use crate::commands::diagnostic::diagnostic_with_actions;

/// What a compiler code generally means and what usually fixes it.
struct CodeMeaning {
    code: u64,
    title: &'static str,
    meaning: &'static str,
    usual_fixes: &'static str,
}

/// The common F# compiler codes. The compiler's own message always comes first; this is the
/// background an agent or a newcomer needs to act on it.
const MEANINGS: &[CodeMeaning] = &[
    CodeMeaning {
        code: 1,
        title: "type mismatch",
        meaning: "An expression has a different type from the one its context needs (an argument, a return value, a branch of if/match, a list element).",
        usual_fixes: "Convert the value (int, float, string …), fix the argument order, or make all branches return the same type.",
    },
    CodeMeaning {
        code: 3,
        title: "value is not a function",
        meaning: "Something that is not a function is applied to an argument, often because of a missing operator or a negative literal read as subtraction.",
        usual_fixes: "Add the missing operator or parentheses; write `x - 1` rather than `x -1`.",
    },
    CodeMeaning {
        code: 10,
        title: "unexpected token (syntax error)",
        meaning: "The parser met a token it did not expect here; the real mistake is often just before the reported place (indentation, a missing `=`, `in` or parenthesis).",
        usual_fixes: "Check indentation and the line before; close brackets and strings.",
    },
    CodeMeaning {
        code: 20,
        title: "result implicitly ignored",
        meaning: "An expression in a sequence produces a value that is thrown away; F# asks for that to be explicit.",
        usual_fixes: "Pipe it to `ignore`, bind it with `let _ =`, or use `<-` if an assignment was meant (not `=`).",
    },
    CodeMeaning {
        code: 25,
        title: "incomplete pattern match",
        meaning: "A match does not cover every case of the value; at run time an unmatched value raises MatchFailureException.",
        usual_fixes: "Add the missing cases (the message names one) or a final wildcard `| _ ->`.",
    },
    CodeMeaning {
        code: 27,
        title: "value is not mutable",
        meaning: "`<-` assigns to a `let` binding that was not declared `mutable`.",
        usual_fixes: "Declare it `let mutable`, or compute a new value instead of assigning.",
    },
    CodeMeaning {
        code: 39,
        title: "name not defined",
        meaning: "A value, type, module, namespace, field or constructor name is not in scope here: misspelled, declared later in the compile order, in a module not opened, or in an unreferenced project or package.",
        usual_fixes: "Fix the spelling (the message may list suggestions), add an `open`, qualify the name, or reorder the project's files.",
    },
    CodeMeaning {
        code: 41,
        title: "no overload matches",
        meaning: "A method has several overloads and none accepts the given argument types, or more than one fits equally well.",
        usual_fixes: "Annotate or convert the arguments so exactly one overload applies.",
    },
    CodeMeaning {
        code: 64,
        title: "type variable constrained",
        meaning: "Code was written generically but is less generic than it looks: a type parameter was fixed to one concrete type by its use.",
        usual_fixes: "Remove the type parameter or the annotation that conflicts, or make the use generic.",
    },
    CodeMeaning {
        code: 72,
        title: "lookup on an object of indeterminate type",
        meaning: "A member or property is used on a value whose type inference has not determined yet at that point (type inference reads left to right).",
        usual_fixes: "Annotate the parameter's type, or pipe the value in (`xs |> List.map (fun x -> x.Name)`).",
    },
    CodeMeaning {
        code: 193,
        title: "type constraint mismatch",
        meaning: "A value is used where a different type (or a type with a different constraint) is required, often an interface or generic constraint not satisfied.",
        usual_fixes: "Upcast with `:>`, convert the value, or satisfy the constraint.",
    },
    CodeMeaning {
        code: 365,
        title: "abstract member not implemented",
        meaning: "A class inherits abstract members it does not implement.",
        usual_fixes: "Add `override` implementations for the listed members, or mark the class abstract.",
    },
    CodeMeaning {
        code: 366,
        title: "interface member not implemented",
        meaning: "An interface implementation lacks some of the interface's members.",
        usual_fixes: "Implement the members the message lists inside the `interface … with` block.",
    },
    CodeMeaning {
        code: 597,
        title: "successive arguments need parentheses",
        meaning: "A method application is followed by further arguments and needs parentheses to say what applies to what.",
        usual_fixes: "Wrap the method call in parentheses.",
    },
    CodeMeaning {
        code: 760,
        title: "IDisposable created without `new`",
        meaning: "An object that implements IDisposable is constructed without `new`, so its ownership is unclear.",
        usual_fixes: "Write `new T(...)`, usually with `use` to dispose it.",
    },
    CodeMeaning {
        code: 1182,
        title: "unused value",
        meaning: "A binding is never used (a warning when --warnon:1182 is set).",
        usual_fixes: "Remove it, or prefix its name with `_` to say it is unused on purpose.",
    },
    CodeMeaning {
        code: 3370,
        title: "deprecated reference-cell operator",
        meaning: "`!`, `:=`, `incr` or `decr` on a ref cell is discouraged in current F#.",
        usual_fixes: "Use `.Value` to read or assign the cell.",
    },
];

/// What `meaning` says of a code: the curated summary, or that the table does not know it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Meaning {
    pub known: bool,
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub meaning: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usual_fixes: Option<String>,
    pub via: Curated,
}

/// `meaning.via`: the summary is fslens's own table, not the compiler's.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Curated {
    Curated,
}

/// The curated explanation of a code, or a note that the table does not know it.
pub fn meaning_of(code: Option<u64>) -> Meaning {
    match code.and_then(|code| MEANINGS.iter().find(|meaning| meaning.code == code)) {
        Some(meaning) => Meaning {
            known: true,
            code: Some(format!("FS{:04}", meaning.code)),
            title: Some(meaning.title.to_owned()),
            meaning: meaning.meaning.to_owned(),
            usual_fixes: Some(meaning.usual_fixes.to_owned()),
            via: Curated::Curated,
        },
        None => Meaning {
            known: false,
            code: code.map(|code| format!("FS{code:04}")),
            title: None,
            meaning: "fslens has no summary for this code; the compiler's message above is the authority.".to_owned(),
            usual_fixes: None,
            via: Curated::Curated,
        },
    }
}

/// The answer of `fslens.explainDiagnostic`: the diagnostic explained, or `unknown`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum ExplainAnswer {
    Explained(Box<Explanation>),
    Unknown(Blocked),
}

/// `status: "ok"`: the diagnostic was found.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    pub status: OkStatus,
    pub via: Via,
    /// The diagnostic with its line, context lines, related information and FSAC's original.
    pub diagnostic: ExplainedDiagnostic,
    pub meaning: Meaning,
    pub fixes: FixesSummary,
    #[serde(flatten)]
    pub matched: Matched,
    pub note: String,
    pub elapsed_ms: u64,
}

/// Which fixes FSAC offers, by title.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct FixesSummary {
    /// `null` when FSAC gave no answer.
    pub count: Option<usize>,
    pub titles: Vec<String>,
    pub via: Via,
    pub complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

pub async fn explain_diagnostic(
    arguments: ExplainArguments,
    mut context: CommandContext,
) -> Result<ExplainAnswer, CommandError> {
    let started = Instant::now();
    let Some(selector) = arguments.selector(false)? else {
        return Err(CommandError::invalid_argument("path", "required"));
    };
    let timeout = arguments.timeout_ms.as_duration_ms();
    let (located, actions) = match diagnostic_with_actions(&mut context, &selector, timeout, started).await? {
        Ok(found) => found,
        Err(unknown) => return Ok(ExplainAnswer::Unknown(unknown)),
    };
    let fixes = match actions {
        Ok(actions) => {
            let titles: Vec<String> = actions.into_iter().map(|action| action.title).collect();
            FixesSummary { count: Some(titles.len()), titles, via: Via::Fsac, complete: true, reason: None }
        }
        Err(why) => {
            FixesSummary { count: None, titles: Vec::new(), via: Via::Fsac, complete: false, reason: Some(why) }
        }
    };
    let code = super::published_code(&located.diagnostic);
    Ok(ExplainAnswer::Explained(Box::new(Explanation {
        status: OkStatus::Ok,
        via: Via::Fsac,
        diagnostic: located.describe(),
        meaning: meaning_of(code),
        fixes,
        matched: located.matched.clone(),
        note: "the message, code and range are the compiler's, as FSAC published them; `meaning` is fslens's summary of the code".to_owned(),
        elapsed_ms: started.elapsed().as_millis() as u64,
    })))
}

/// Definite when the diagnostic was explained, not definite for `unknown`.
impl crate::commands::outcome::Answered for ExplainAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(matches!(self, ExplainAnswer::Explained(_)))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn the_table_covers_the_common_codes_once_each() {
        for code in [1, 3, 10, 20, 25, 27, 39, 41, 64, 72, 193, 365, 366, 1182] {
            assert!(meaning_of(Some(code)).known, "FS{code:04}");
        }
        let mut codes: Vec<u64> = MEANINGS.iter().map(|meaning| meaning.code).collect();
        codes.dedup();
        assert_eq!(codes.len(), MEANINGS.len());
        assert!(!meaning_of(Some(9999)).known);
        let unknown = serde_json::to_value(meaning_of(Some(9999))).unwrap();
        assert_eq!(unknown["code"], serde_json::json!("FS9999"));
        assert!(unknown.get("title").is_none() && unknown.get("usualFixes").is_none());
        assert_eq!(serde_json::to_value(meaning_of(None)).unwrap()["code"], Value::Null);
    }
}
