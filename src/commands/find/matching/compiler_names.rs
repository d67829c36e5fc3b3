//! The compiler's name and kind of a declaration: what a row of find names its symbol by.
//!
//! The syntax index names a declaration by its chain of containers (`Symbols.TaskResult`);
//! the compiler keeps apart what that chain can merge:
//!
//! * a module beside a type of its name without type parameters, in one namespace or module,
//!   compiles as `…Module` (implicitly since F# 4.1, `type Money = …` and `module Money = …`;
//!   explicitly with `[<CompilationRepresentation(CompilationRepresentationFlags.ModuleSuffix)>]`),
//!   and so does everything declared inside it (`Ns.MoneyModule.add`); beside a generic type
//!   the module keeps its name (FCS's `HasFSharpModuleSuffix` is false there);
//! * a member declared in an optional extension (`module LowPriority = type XBase with member
//!   _.Using …`) belongs to its enclosing module, not to the type: `Symbols.LowPriority.Using`,
//!   another symbol than the type's own `Symbols.XBase.Using`; one declared in an intrinsic
//!   augmentation (`type T with` beside `type T` in one file and namespace or module) is the
//!   type's own (`Argu.ArgumentParser.Create`);
//! * an active-pattern case is named by its pattern, `Parity.Patterns.(|Even|Odd|).Even`, as
//!   the compiler names the case where it is used (at its definition FCS gives the bare case
//!   name, which every pattern with that case shares);
//! * a field of an anonymous record type (`{| Quiet: bool |}`) belongs to no named type: a
//!   qualified query through the type around it (`Settings.Quiet`) does not name it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::syntax::SyntaxIndex;
use crate::syntax::model::{Declaration, DeclarationKind, FileIndex, NO_PARENT};

/// `symbolKind` on the wire: what kind of symbol a declaration is, in the compiler's terms
/// ([`DeclarationKind::symbol_kind`]; a `val` is a field in an implementation file).
pub fn symbol_kind(kind: DeclarationKind, path: &Path) -> &'static str {
    kind.symbol_kind(super::is_signature_file(path))
}

/// Is declaration `slot` of `file` an optional extension (`module LowPriority = type XBase
/// with …`), whose members the compiler gives to the enclosing module? An intrinsic
/// augmentation, `type T with` in the file and the namespace or module that declares `T` (after
/// it, as Argu's `type ArgumentParser with` follows `type ArgumentParser … and …`), is part of
/// `T`: its members are `T`'s (`Argu.ArgumentParser.Create`).
pub fn is_optional_extension(index: &SyntaxIndex, file: &FileIndex, slot: usize) -> bool {
    let Some(extension) = file.declarations.get(slot) else { return false };
    if extension.kind != DeclarationKind::TypeExtension {
        return false;
    }
    // A qualified name (`type Microsoft.FSharp.Control.AsyncBuilder with`) extends a type
    // declared elsewhere.
    if index.name(extension.name).contains('.') {
        return true;
    }
    !file.declarations.iter().any(|declaration| {
        declaration.parent == extension.parent
            && declaration.name == extension.name
            && declaration.kind.is_type()
            && declaration.kind != DeclarationKind::TypeExtension
    })
}

/// Is declaration `slot` of `file` a field of an anonymous record type (a record field whose
/// container is no record)?
pub fn is_anonymous_record_field(file: &FileIndex, slot: usize) -> bool {
    let Some(declaration) = file.declarations.get(slot) else { return false };
    declaration.kind == DeclarationKind::RecordField
        && file
            .declarations
            .get(declaration.parent as usize)
            .is_none_or(|parent| parent.kind != DeclarationKind::Record)
}

/// Works out the compiler's full names of declarations, remembering which module names a type
/// in another file makes `…Module`.
pub struct CompilerNames<'a> {
    index: &'a SyntaxIndex,
    /// The files read: where a type beside a module may be declared.
    files: &'a [PathBuf],
    text_of: &'a dyn Fn(&Path) -> Option<String>,
    /// By the module's index full name: whether some file declares a type of that full name.
    type_named: std::cell::RefCell<HashMap<String, bool>>,
}

impl<'a> CompilerNames<'a> {
    pub fn new(
        index: &'a SyntaxIndex,
        files: &'a [PathBuf],
        text_of: &'a dyn Fn(&Path) -> Option<String>,
    ) -> CompilerNames<'a> {
        CompilerNames { index, files, text_of, type_named: Default::default() }
    }

    /// The compiler's full name of declaration `slot` of the file at `path`; `None` when the
    /// index does not hold it.
    pub fn full_name(&self, path: &Path, slot: usize) -> Option<String> {
        let file = self.index.file(path)?;
        let declarations = &file.index.declarations;
        let target = declarations.get(slot)?;
        let extension = (target.parent != NO_PARENT
            && is_optional_extension(self.index, &file.index, target.parent as usize))
        .then_some(target.parent as usize);
        let mut text = None;
        let mut parts = Vec::new();
        for link in file.index.declaration_chain(slot) {
            // A member of a type extension: the extended type's segments go.
            if Some(link) == extension && link != slot {
                continue;
            }
            let declaration = &declarations[link];
            // An active-pattern case is named by its pattern: `M.(|Even|Odd|).Even`.
            if link == slot && declaration.kind == DeclarationKind::ActivePatternCase {
                parts.extend(self.active_pattern_of(&file.index, declaration));
            }
            let mut name = self.index.name(declaration.name).to_string();
            if declaration.kind == DeclarationKind::Module && self.module_suffixed(path, &file.index, link, &mut text) {
                name.push_str("Module");
            }
            parts.push(name);
        }
        Some(parts.join("."))
    }

    /// The name of the active pattern (`(|Even|Odd|)`) an active-pattern case belongs to: the
    /// sibling declaration the index made the case from, with the same range.
    fn active_pattern_of(&self, file: &FileIndex, case: &Declaration) -> Option<String> {
        file.declarations.iter().find_map(|declaration| {
            let name = self.index.name(declaration.name);
            (declaration.kind != DeclarationKind::ActivePatternCase
                && declaration.parent == case.parent
                && declaration.range == case.range
                && name.starts_with("(|"))
            .then(|| name.to_string())
        })
    }

    /// Does module `slot` compile with the `Module` suffix: a type of its name beside it, or
    /// the attribute that asks for it on the lines right above it?
    fn module_suffixed(&self, path: &Path, file: &FileIndex, slot: usize, text: &mut Option<Option<String>>) -> bool {
        let module = &file.declarations[slot];
        let text = text.get_or_insert_with(|| (self.text_of)(path));
        let beside_in_file = file.declarations.iter().enumerate().any(|(other, declaration)| {
            other != slot
                && declaration.parent == module.parent
                && declaration.name == module.name
                && declaration.kind.is_type()
                && declaration.kind != DeclarationKind::TypeExtension
                && !text.as_deref().is_some_and(|text| is_generic(text, declaration))
        });
        if beside_in_file {
            return true;
        }
        if text.as_deref().is_some_and(|text| asks_for_module_suffix(text, module.name_start.line)) {
            return true;
        }
        // In a namespace, a type of the module's name may be declared in another file.
        let in_namespace = file
            .declarations
            .get(module.parent as usize)
            .is_some_and(|parent| parent.kind == DeclarationKind::Namespace);
        if !in_namespace {
            return false;
        }
        let full_name = self.index.full_name(file, slot);
        if let Some(known) = self.type_named.borrow().get(&full_name) {
            return *known;
        }
        let name = self.index.name(module.name);
        let found = self.index.find_declarations_in(&name, self.files).into_iter().any(|hit| {
            hit.declaration.kind.is_type()
                && hit.declaration.kind != DeclarationKind::TypeExtension
                && hit.full_name == full_name
                && !(self.text_of)(&hit.path).is_some_and(|text| is_generic(&text, &hit.declaration))
        });
        self.type_named.borrow_mut().insert(full_name, found);
        found
    }
}

/// Is the type `declaration` of `text` generic (`type Tree<'T> =`, `type 'T Tree =`)? Only a
/// type without type parameters gives a module of its name the `Module` suffix: `Tree<'T>`
/// compiles as ``Tree`1``, beside `Tree`.
fn is_generic(text: &str, declaration: &Declaration) -> bool {
    let lines = crate::documents::LineIndex::new(text);
    let at =
        crate::documents::Position { line: declaration.name_start.line, character: declaration.name_start.character };
    let start = lines.offset(text, at).min(text.len());
    let mut units = 0usize;
    let end = text[start..]
        .char_indices()
        .find(|(_, character)| {
            let past_the_name = units >= usize::from(declaration.name_length);
            units += character.len_utf16();
            past_the_name
        })
        .map_or(text.len(), |(byte, _)| start + byte);
    let line_start = text[..start].rfind('\n').map_or(0, |newline| newline + 1);
    text[end..].trim_start().starts_with('<') || text[line_start..start].contains('\'')
}

/// Does the module declared on line `line` of `text` carry `ModuleSuffix` in the attribute
/// lines right above it (or on its own line)?
fn asks_for_module_suffix(text: &str, line: u32) -> bool {
    let lines: Vec<&str> = text.lines().take(line as usize + 1).collect();
    let Some((own, above)) = lines.split_last() else { return false };
    if own.contains("ModuleSuffix") {
        return true;
    }
    above
        .iter()
        .rev()
        .take_while(|line| {
            let trimmed = line.trim_start();
            trimmed.starts_with("[<") || trimmed.starts_with("///") || trimmed.starts_with("//")
        })
        .any(|line| line.contains("ModuleSuffix"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_suffix_attribute_is_read_from_the_lines_above() {
        let text = "namespace N\n\n/// Doc\n[<CompilationRepresentation(CompilationRepresentationFlags.ModuleSuffix)>]\n[<RequireQualifiedAccess>]\nmodule Option =\n    let x = 1\nmodule Other =\n    let y = 2\n";
        assert!(asks_for_module_suffix(text, 5));
        assert!(!asks_for_module_suffix(text, 7));
        assert!(asks_for_module_suffix("[<CompilationRepresentation(ModuleSuffix)>] module M =\n", 0));
    }

    /// Only a type without type parameters gives a module of its name the `Module` suffix.
    #[test]
    fn a_generic_type_is_told_from_its_text() {
        let declaration = |line: u32, character: u32, length: u16| Declaration {
            kind: DeclarationKind::Class,
            access: crate::syntax::model::Access::Default,
            name: crate::syntax::model::NameId(0),
            parent: NO_PARENT,
            range: Default::default(),
            name_start: crate::syntax::model::Position { line, character },
            name_length: length,
            header_bytes: (0, 0),
            certain: true,
        };
        let text = "type Tree<'T> = Leaf of 'T\ntype Folder <'T>() = class end\ntype 'T Box = B of 'T\ntype Plain = P\ntype Sum = A | B of list<int>\n";
        assert!(is_generic(text, &declaration(0, 5, 4)));
        assert!(is_generic(text, &declaration(1, 5, 6)));
        assert!(is_generic(text, &declaration(2, 8, 3)));
        assert!(!is_generic(text, &declaration(3, 5, 5)));
        assert!(!is_generic(text, &declaration(4, 5, 3)));
    }
}
