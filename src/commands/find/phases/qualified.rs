//! Occurrences the text shows to be another symbol's, ruled out before any of the find's
//! bounded requests is spent on them (a common name has hundreds):
//!
//! * a type variable, `'ok` or `^ok` (the index holds its name as an occurrence): never a use
//!   of a declaration;
//! * an occurrence another qualifier names: a module's value (a `let` of a module, a
//!   signature's `val`) is reached through its modules only, so `Q.name` is one of its uses
//!   only when `Q` is one of the modules or namespaces around the declaration (`AsyncResult.ok`
//!   for `FsToolkit.ErrorHandling.AsyncResult.ok`) or a module abbreviation that may stand for
//!   one; `Result.ok`, `Validation.ok` or `x.ok` is another symbol.
//!
//! Nothing is ruled out by its qualifier for a name any resolved declaration of which is not
//! such a value or sits where the parser could not read (its modules may be lost), nor for a
//! qualifier the workspace declares as a module without declarations of its own (`module R =
//! AsyncResult`).

use std::collections::{HashMap, HashSet};

use crate::commands::find::matching::{Declared, segments};
use crate::commands::find::model::texts::Texts;
use crate::commands::find::phases::declarations::Resolved;
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::narrowing::named_through_modules;
use crate::commands::find::phases::unseen::Occurrence;
use crate::syntax::model::DeclarationKind;
use crate::syntax::words::is_identifier_byte;

/// The occurrences not ruled out (see [the module](self)), in order, and how many were.
pub(super) fn rule_out_by_text(
    find: &FindRun,
    texts: &mut Texts,
    resolved: &Resolved,
    occurrences: Vec<Occurrence>,
) -> (Vec<Occurrence>, usize) {
    let mut qualifiers_of: HashMap<String, Option<HashSet<String>>> = HashMap::new();
    let mut abbreviation: HashMap<String, bool> = HashMap::new();
    let query_segments: HashSet<String> =
        find.arguments.query.as_deref().map(segments).unwrap_or_default().into_iter().collect();
    let mut kept = Vec::with_capacity(occurrences.len());
    let mut ruled_out = 0;
    for occurrence in occurrences {
        let Some(name) = text_at(texts, &occurrence).map(str::to_owned) else {
            kept.push(occurrence);
            continue;
        };
        if is_type_variable(texts, &occurrence) {
            ruled_out += 1;
            continue;
        }
        let allowed =
            qualifiers_of.entry(name.clone()).or_insert_with(|| module_value_qualifiers(find, resolved, &name));
        let other = allowed.as_ref().is_some_and(|allowed| {
            qualifier_before(texts, &occurrence).is_some_and(|qualifier| {
                !allowed.contains(&qualifier)
                    && !query_segments.contains(&qualifier)
                    && !*abbreviation.entry(qualifier.clone()).or_insert_with(|| may_abbreviate(find, &qualifier))
            })
        });
        if other {
            ruled_out += 1;
        } else {
            kept.push(occurrence);
        }
    }
    (kept, ruled_out)
}

/// The modules and namespaces around every resolved declaration named `name`, when each is a
/// module's value the parser read with certainty; `None` when one is anything else.
fn module_value_qualifiers(find: &FindRun, resolved: &Resolved, name: &str) -> Option<HashSet<String>> {
    let mut allowed = HashSet::new();
    for declaration in resolved.declared.iter().filter(|declaration| declaration.name() == name) {
        if !is_certain_module_value(find, declaration) {
            return None;
        }
        let mut chain = segments(&declaration.full_name);
        chain.pop();
        allowed.extend(chain);
        if let Some(compiler_name) = &declaration.compiler_name {
            let mut chain = segments(compiler_name);
            chain.pop();
            allowed.extend(chain);
        }
    }
    (!allowed.is_empty()).then_some(allowed)
}

fn is_certain_module_value(find: &FindRun, declaration: &Declared) -> bool {
    let Some(kind) = declaration.kind else { return false };
    if !matches!(kind, DeclarationKind::Let | DeclarationKind::Val) || !named_through_modules(&find.index, declaration)
    {
        return false;
    }
    find.index.file(&declaration.path).is_some_and(|file| {
        file.index.declarations.iter().any(|candidate| {
            candidate.kind == kind && candidate.name_range() == declaration.name_range && candidate.certain
        })
    })
}

/// Whether the workspace declares a module named `qualifier` with no declaration of its own
/// (an abbreviation, `module R = AsyncResult`, reads so), or one the parser could not read.
fn may_abbreviate(find: &FindRun, qualifier: &str) -> bool {
    find.index.find_declarations_in(qualifier, find.files()).into_iter().any(|hit| {
        hit.declaration.kind == DeclarationKind::Module
            && find.index.file(&hit.path).is_none_or(|file| {
                let declarations = &file.index.declarations;
                let slot = declarations.iter().position(|candidate| {
                    candidate.kind == DeclarationKind::Module && candidate.name_range() == hit.declaration.name_range()
                });
                !hit.declaration.certain
                    || slot.is_none_or(|slot| !declarations.iter().any(|child| child.parent as usize == slot))
            })
    })
}

/// The occurrence's own text.
fn text_at<'a>(texts: &'a mut Texts, occurrence: &Occurrence) -> Option<&'a str> {
    let (_, lines) = texts.text(&occurrence.path)?;
    let line = lines.line(occurrence.range.start.line)?;
    let start = byte_column(line, occurrence.range.start.character)?;
    let end = byte_column(line, occurrence.range.end.character)?;
    line.get(start..end)
}

/// The identifier written just before the occurrence and a `.` (`Result` of `Result.ok`,
/// backticks taken off), on its line; `None` when the occurrence is not qualified so.
fn qualifier_before(texts: &mut Texts, occurrence: &Occurrence) -> Option<String> {
    let (_, lines) = texts.text(&occurrence.path)?;
    let line = lines.line(occurrence.range.start.line)?;
    let before = line.get(..byte_column(line, occurrence.range.start.character)?)?;
    let before = before.strip_suffix('.')?;
    if let Some(quoted) = before.strip_suffix("``") {
        let open = quoted.rfind("``")?;
        return Some(quoted[open + 2..].to_owned()).filter(|name| !name.is_empty());
    }
    let length = before.bytes().rev().take_while(|byte| is_identifier_byte(*byte)).count();
    let qualifier = &before[before.len() - length..];
    // An identifier starts with a letter or `_`; `1.ok` or `..ok` is no qualifier.
    qualifier.chars().next().is_some_and(|first| first.is_alphabetic() || first == '_').then(|| qualifier.to_owned())
}

/// Whether the occurrence is a type variable's name: `'` or `^` just before it, not ending
/// an identifier (`x'` is one identifier).
fn is_type_variable(texts: &mut Texts, occurrence: &Occurrence) -> bool {
    let Some((_, lines)) = texts.text(&occurrence.path) else { return false };
    let Some(line) = lines.line(occurrence.range.start.line) else { return false };
    let Some(before) = byte_column(line, occurrence.range.start.character).and_then(|at| line.get(..at)) else {
        return false;
    };
    let Some(rest) = before.strip_suffix(['\'', '^']) else { return false };
    !rest.bytes().next_back().is_some_and(is_identifier_byte)
}

/// The byte offset of a UTF-16 column in `line`.
fn byte_column(line: &str, character: u32) -> Option<usize> {
    let mut units = 0u32;
    for (offset, character_here) in line.char_indices() {
        if units == character {
            return Some(offset);
        }
        units += character_here.len_utf16() as u32;
    }
    (units == character).then_some(line.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_columns_count_utf16_units() {
        assert_eq!(byte_column("a.ok", 2), Some(2));
        assert_eq!(byte_column("é.ok", 2), Some(3));
        assert_eq!(byte_column("😀.ok", 3), Some(5));
        assert_eq!(byte_column("ab", 2), Some(2));
        assert_eq!(byte_column("ab", 3), None);
    }
}
