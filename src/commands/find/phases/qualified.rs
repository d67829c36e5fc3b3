//! Occurrences the text shows to be another symbol's, ruled out before any of the find's
//! bounded requests is spent on them (a common name has hundreds):
//!
//! * a type variable, `'ok` or `^ok` (the index holds its name as an occurrence): never a use
//!   of a declaration;
//! * an occurrence another qualifier names: a module's value (a `let` of a module, a
//!   signature's `val`, a case of an active pattern either declares) is reached through its
//!   modules only, so `Q.name` is one of its uses
//!   only when `Q` is one of the modules or namespaces around the declaration (`AsyncResult.ok`
//!   for `FsToolkit.ErrorHandling.AsyncResult.ok`) or a module abbreviation that may stand for
//!   one; `Result.ok`, `Validation.ok` or `x.ok` is another symbol;
//! * a module value's name used bare inside a function or member with a parameter of that name
//!   (`let bindRequireTrue error x = … error …`): the parameter shadows it;
//! * an unqualified occurrence of a static member's name: F# names a static member qualified
//!   (`TaskSeq.item`, inside its type too), so `fun item -> item + 1` is another symbol, in a
//!   file without `open type`; and one qualified by a name that is neither its type's nor a
//!   type abbreviation's (`Int32.MaxValue` for a `type MaxValue`'s `static member MaxValue`);
//! * a module's name with type arguments after it (`Task<Option<int>>` beside a `module
//!   Option`): a type's, as no module takes any (FSAC's definition there can name the module);
//! * a module's name followed by `.x` where the module (read whole) declares no `x`: another
//!   module of that name (`Gen.int32` for the library's `Gen`, beside an `[<AutoOpen>]`
//!   module's own `Gen` declaring `uri`), as F# reaches `M.x` only through an `M` declaring `x`;
//! * an unqualified occurrence of an instance member's name (an abstract slot's and an
//!   implementation's too): F# reaches one only through a value (`this.front`, `q.Head`), so a
//!   local `front` is another symbol; but for a named argument, `T(front = …)`, which may set a
//!   property, and for a member that may be settable (`set` in its header) or a custom operation
//!   of a computation expression (used bare by its operation's name).
//!
//! Nothing is ruled out by its qualifier for a name any resolved declaration of which is not
//! such a value or sits where the parser could not read (its modules may be lost), nor for a
//! qualifier the workspace declares as a module without declarations of its own (`module R =
//! AsyncResult`).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::columns::exact_byte_at_column;
use crate::commands::find::matching::{Declared, plain_name, segments};
use crate::commands::find::model::rows::{Site, SiteKind, SiteVia, SourceLines, remove_rows};
use crate::commands::find::model::texts::{Texts, resolve_display};
use crate::commands::find::model::work::FileKey;
use crate::commands::find::phases::declarations::Resolved;
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::narrowing::named_through_modules;
use crate::syntax::model::{Declaration, DeclarationKind, FileIndex, HealthStatus, MisparseIndicator, TextRange};
use crate::syntax::words::is_identifier_byte;

/// One occurrence of a declared name no site covers.
#[derive(Clone, Debug)]
pub(super) struct Occurrence {
    pub(super) path: PathBuf,
    pub(super) range: TextRange,
}

/// What the text can rule out for the occurrences of one declared name.
enum NameRule {
    /// Nothing beyond type variables.
    Nothing,
    /// Every declaration is a module's value (or a case of a module's active pattern, which F#
    /// reaches the same way: `Deque.Nil`, never `Queue.Nil`): an occurrence qualified by none of these
    /// modules or namespaces (nor by a possible abbreviation) is another symbol.
    /// With the places of the modules around them (`Some`, when each declaration's own module
    /// says `[<RequireQualifiedAccess>]`), a bare occurrence outside all of them is another
    /// symbol too: such a module's values are written bare only inside it.
    ModuleValue(HashSet<String>, Option<Vec<(PathBuf, TextRange)>>),
    /// Every declaration is a static member, which F# always names qualified (`T.item`, inside
    /// the type too): an occurrence with no `.` before it is another symbol, in a file without
    /// `open type`. With the types they are declared in (`Some`, when the index read each
    /// one's), so is one qualified by another name (`Int32.MaxValue` for a `type MaxValue`'s
    /// `static member MaxValue`): a static member is reached through its type only (or an
    /// abbreviation of it, which the workspace would declare), never through a value.
    StaticMember(Option<HashSet<String>>),
    /// Every declaration is an instance member (see [the module](self)): an occurrence with no
    /// `.` before it is another symbol, unless it is a named argument.
    InstanceMember,
    /// Every declaration is a module: an occurrence with type arguments written after it
    /// (`Task<Option<int>>` beside a `module Option`) is a type's, as no module takes any.
    /// With the names declared inside the modules (`Some`, when every one was read whole), an
    /// occurrence followed by `.name` where none of them declares `name` is another module's
    /// of the same name: F# reaches `M.x` only through a module `M` that declares `x`
    /// (`Gen.int32` is the library's `Gen`, not the `Gen` of an `[<AutoOpen>] module GenUri`
    /// beside it, which declares `uri`).
    Module(Option<HashSet<String>>),
}

/// The occurrences not ruled out (see [the module](self)), in order, and how many were.
pub(super) fn rule_out_by_text(
    find: &FindRun,
    texts: &mut Texts,
    resolved: &Resolved,
    occurrences: Vec<Occurrence>,
) -> (Vec<Occurrence>, usize) {
    let mut rules: HashMap<String, NameRule> = HashMap::new();
    let mut abbreviation: HashMap<(String, String), bool> = HashMap::new();
    let mut opens_types: HashMap<PathBuf, bool> = HashMap::new();
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
        if !rules.contains_key(&name) {
            let rule = name_rule(find, texts, resolved, &name);
            rules.insert(name.clone(), rule);
        }
        let other = match &rules[&name] {
            NameRule::Nothing => false,
            NameRule::ModuleValue(allowed, qualified_only) => match qualifier_before(texts, &occurrence) {
                Some(qualifier) => {
                    !allowed.contains(&qualifier)
                        && !query_segments.contains(&qualifier)
                        && !*abbreviation
                            .entry((qualifier.clone(), name.clone()))
                            .or_insert_with(|| may_abbreviate(find, texts, &qualifier, allowed))
                }
                None => {
                    unqualified(texts, &occurrence)
                        && (outside_every(find, qualified_only.as_deref(), &occurrence)
                            || shadowed_by_a_parameter(find, texts, &occurrence, &name))
                }
            },
            NameRule::StaticMember(types) => match qualifier_before(texts, &occurrence) {
                Some(qualifier) => types.as_ref().is_some_and(|types| {
                    !types.contains(&plain_name(&qualifier))
                        && !on_line(texts, &occurrence, qualified_by_a_type_variable).unwrap_or(true)
                        && !query_segments.contains(&qualifier)
                }),
                None => {
                    unqualified(texts, &occurrence)
                        && !*opens_types.entry(occurrence.path.clone()).or_insert_with(|| {
                            texts.text(&occurrence.path).is_none_or(|(text, _)| text.contains("open type"))
                        })
                }
            },
            NameRule::Module(contents) => {
                let end = occurrence.range.end.character;
                on_line(texts, &occurrence, |line, _| {
                    type_arguments_after(line, end)
                        || contents.as_ref().is_some_and(|names| {
                            member_after(line, end).is_some_and(|member| !names.contains(&plain_name(&member)))
                        })
                })
                .unwrap_or(false)
            }
            NameRule::InstanceMember => {
                unqualified(texts, &occurrence)
                    && !on_line(texts, &occurrence, |line, character| {
                        named_argument_in(line, character, occurrence.range.end.character)
                    })
                    .unwrap_or(true)
            }
        };
        if other {
            ruled_out += 1;
        } else {
            kept.push(occurrence);
        }
    }
    (kept, ruled_out)
}

/// Removes from `sites` the rows in code the loaded configuration does not compile (kind
/// `inactive`, read by the syntax layer, no declaration's) that the text shows to be another
/// symbol's, by the rules of [`rule_out_by_text`]: no compiler saw that code, but `Queue.empty`
/// or a bare `empty` outside a `[<RequireQualifiedAccess>] module DList` is no use of
/// `DList.empty` under any defines. How many were removed.
pub fn drop_inactive_rows_of_other_symbols(
    find: &FindRun,
    texts: &mut Texts,
    resolved: &Resolved,
    sites: &mut Vec<Site>,
) -> usize {
    let declarations: HashSet<(FileKey, TextRange)> =
        (resolved.declared.iter()).map(|declared| (find.work.file_key(&declared.path), declared.name_range)).collect();
    let candidates: Vec<(usize, Occurrence)> = (sites.iter().enumerate())
        .filter(|(_, site)| site.kind == SiteKind::Inactive && site.via == SiteVia::Syntax)
        .map(|(index, site)| (index, Occurrence { path: resolve_display(&find.root, &site.file), range: site.range }))
        .filter(|(_, occurrence)| !declarations.contains(&(find.work.file_key(&occurrence.path), occurrence.range)))
        .collect();
    if candidates.is_empty() {
        return 0;
    }
    let (indices, occurrences): (Vec<usize>, Vec<Occurrence>) = candidates.into_iter().unzip();
    let (kept, _) = rule_out_by_text(find, texts, resolved, occurrences);
    let kept: HashSet<(PathBuf, TextRange)> =
        kept.into_iter().map(|occurrence| (occurrence.path, occurrence.range)).collect();
    let other: HashSet<usize> = (indices.into_iter())
        .filter(|index| {
            let site = &sites[*index];
            !kept.contains(&(resolve_display(&find.root, &site.file), site.range))
        })
        .collect();
    remove_rows(sites, &other);
    other.len()
}

/// The rule for `name`'s occurrences: see [`NameRule`].
fn name_rule(find: &FindRun, texts: &mut Texts, resolved: &Resolved, name: &str) -> NameRule {
    let named: Vec<&Declared> = resolved.declared.iter().filter(|declaration| declaration.name() == name).collect();
    if named.is_empty() {
        return NameRule::Nothing;
    }
    // Each a static member by its text, and one at least read with certainty (a signature the
    // parser read in part is its implementation's symbol).
    if named.iter().all(|declaration| is_static_member(texts, declaration))
        && named.iter().any(|declaration| find.indexed_with_certainty(declaration, DeclarationKind::Member))
    {
        return NameRule::StaticMember(static_member_types(find, &named));
    }
    if named.iter().all(|declaration| is_instance_member(texts, declaration))
        && named
            .iter()
            .any(|declaration| declaration.kind.is_some_and(|kind| find.indexed_with_certainty(declaration, kind)))
    {
        return NameRule::InstanceMember;
    }
    if named.iter().all(|declaration| declaration.kind == Some(DeclarationKind::Module)) {
        return NameRule::Module(module_contents(find, texts, &named));
    }
    match module_value_qualifiers(find, &named) {
        Some(allowed) => NameRule::ModuleValue(allowed, qualified_access_modules(find, texts, &named)),
        None => NameRule::Nothing,
    }
}

/// The places (file and range) of the module around each of `named`, when every one says
/// `[<RequireQualifiedAccess>]` in its header (read from the text between the module's range
/// start, where its attributes are, and its name) in a file whose declarations the grammar read
/// whole; `None` when one does not or cannot be read.
fn qualified_access_modules(
    find: &FindRun,
    texts: &mut Texts,
    named: &[&Declared],
) -> Option<Vec<(PathBuf, TextRange)>> {
    let mut places = Vec::new();
    for declared in named {
        let file = find.index.file(&declared.path)?;
        let declarations = &file.index.declarations;
        let own = declarations.iter().find(|candidate| {
            Some(candidate.kind) == declared.kind && candidate.name_range() == declared.name_range && candidate.certain
        })?;
        let module = declarations.get(own.parent as usize)?;
        if module.kind != DeclarationKind::Module || !module.certain {
            return None;
        }
        let (_, lines) = texts.text(&declared.path)?;
        // The module's range bounds the bare uses: it must be the one the compiler reads.
        if file.index.health.status != HealthStatus::Clean && !declarations_read_whole(&file.index, lines) {
            return None;
        }
        let name = module.name_range().start;
        let header: String = (module.range.start.line..=name.line).filter_map(|line| lines.line(line)).collect();
        if !header.contains("RequireQualifiedAccess") {
            return None;
        }
        places.push((declared.path.clone(), module.range));
    }
    Some(places)
}

/// Whether `modules` (see [`qualified_access_modules`]) are known and the occurrence lies in
/// none of them.
fn outside_every(find: &FindRun, modules: Option<&[(PathBuf, TextRange)]>, occurrence: &Occurrence) -> bool {
    modules.is_some_and(|modules| {
        !modules.iter().any(|(path, range)| {
            find.work.same_file(path, &occurrence.path)
                && range.start <= occurrence.range.start
                && occurrence.range.end <= range.end
        })
    })
}

/// The names a static member of `named` is reached through, in comparison form: the types (or
/// type extensions, `type System.Int32 with`) they are declared in, and every name the
/// workspace's text declares as an abbreviation of one ([`abbreviations_of`]); `None` when the
/// index did not read one's member with certainty under a type, or a file cannot be read.
fn static_member_types(find: &FindRun, named: &[&Declared]) -> Option<HashSet<String>> {
    let mut types = HashSet::new();
    for declared in named {
        let file = find.index.file(&declared.path)?;
        let declarations = &file.index.declarations;
        let member = declarations.iter().find(|candidate| {
            candidate.kind == DeclarationKind::Member
                && candidate.name_range() == declared.name_range
                && candidate.certain
        })?;
        let owner = declarations.get(member.parent as usize)?;
        if !(owner.kind.is_type() || owner.kind == DeclarationKind::TypeExtension) {
            return None;
        }
        types.insert(plain_name(&find.index.name(owner.name)));
    }
    let aliases = abbreviations_of(find, &types)?;
    types.extend(aliases);
    Some(types)
}

/// The names declared, anywhere in the workspace, as an abbreviation that writes one of `types`
/// on its right side (`type MV = MaxValue`, `and private Alias<'a> = Ns.MaxValue`, the right
/// side on the next line when the first ends at `=`), read from the text of every workspace
/// file holding a type's name, as an abbreviation must (the index holds only the files this
/// find reads). More than abbreviations may be read so (a record with a field of the type):
/// a name too many only keeps an occurrence. `None` when a file holding one cannot be read.
fn abbreviations_of(find: &FindRun, types: &HashSet<String>) -> Option<HashSet<String>> {
    let needles: Vec<String> = types.iter().filter(|name| !name.is_empty()).cloned().collect();
    let paths = &find.searched.workspace;
    let workers = find.index.options().worker_count(paths.len());
    let held = crate::syntax::prefilter::needles_held(paths, &find.overlay, &needles, workers);
    let mut aliases = HashSet::new();
    for (path, mask) in paths.iter().zip(held) {
        if mask == 0 {
            continue;
        }
        let text = find.overlay.current_text_lossy(path).ok()?;
        let lines: Vec<&str> = text.lines().collect();
        for (number, line) in lines.iter().enumerate() {
            let Some((name, right)) = abbreviation_header(line) else { continue };
            let right = if right.trim().is_empty() { lines.get(number + 1).copied().unwrap_or("") } else { right };
            if types.iter().any(|name| holds_word(right, name)) {
                aliases.insert(plain_name(name));
            }
        }
    }
    Some(aliases)
}

/// The declared name and the text after `=` of a line `type Name … = …` or `and Name … = …`
/// (attributes and access written before the name).
fn abbreviation_header(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim_start();
    let rest = trimmed.strip_prefix("type ").or_else(|| trimmed.strip_prefix("and "))?;
    let (left, right) = rest.split_once('=')?;
    let mut left = left.trim_start();
    while let Some(attributes) = left.strip_prefix("[<") {
        left = attributes.split_once(">]")?.1.trim_start();
    }
    for modifier in ["private ", "internal ", "public "] {
        left = left.strip_prefix(modifier).map_or(left, str::trim_start);
    }
    let name = match left.strip_prefix("``") {
        Some(quoted) => &left[..quoted.find("``")? + 4],
        None => &left[..left.bytes().take_while(|byte| is_identifier_byte(*byte)).count()],
    };
    (!name.is_empty()).then_some((name, right))
}

/// Whether `text` holds `word` with no identifier character on either side.
fn holds_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].bytes().next_back();
        let after = text[at + word.len()..].bytes().next();
        !before.is_some_and(is_identifier_byte) && !after.is_some_and(is_identifier_byte)
    })
}

/// The names declared inside the modules `named` (at any depth: a nested `[<AutoOpen>]`
/// module's values are reached through the module too, and a union's cases and a record's
/// fields of a type inside it may be), in comparison form; `None` when one module is not a
/// declaration the parser read with certainty in a file whose declarations it read whole
/// ([`declarations_read_whole`]).
fn module_contents(find: &FindRun, texts: &mut Texts, named: &[&Declared]) -> Option<HashSet<String>> {
    let mut names = HashSet::new();
    for declared in named {
        let file = find.index.file(&declared.path)?;
        if file.index.health.status != HealthStatus::Clean {
            let (_, lines) = texts.text(&declared.path)?;
            if !declarations_read_whole(&file.index, lines) {
                return None;
            }
        }
        let declarations = &file.index.declarations;
        let module = declarations.iter().find(|candidate| {
            candidate.kind == DeclarationKind::Module
                && candidate.name_range() == declared.name_range
                && candidate.certain
        })?;
        let inside = |candidate: &&Declaration| {
            !std::ptr::eq(*candidate, module)
                && module.range.start <= candidate.range.start
                && candidate.range.end <= module.range.end
        };
        names.extend(declarations.iter().filter(inside).map(|inner| plain_name(&find.index.name(inner.name))));
    }
    Some(names)
}

/// Whether every declaration of a file the parser did not read cleanly was read all the same:
/// each place it found fault with (an error region, or a silent misparse of an expression:
/// `xs[i]` read as a list application, `a[i] <- v`, a one-line `match`) lies in the body of a
/// `let` or member it read with certainty, after its name, and an error region spans no line
/// indented as far left as that declaration (where a sibling declaration would start). A body
/// declares nothing reached from outside it, so the module's contents are whole
/// (fsharp-hedgehog's `Gen.Randomize.fs`, whose `shuffled[i] <- shuffled[j]` degrades the file).
/// A declaration keyword read as an identifier, or an error at the root, is never so.
fn declarations_read_whole(index: &FileIndex, lines: &SourceLines) -> bool {
    let health = &index.health;
    if health.status != HealthStatus::Degraded || health.root_is_error {
        return false;
    }
    let in_a_body = |region: TextRange| {
        index.declarations.iter().find(|declaration| {
            matches!(declaration.kind, DeclarationKind::Let | DeclarationKind::Member)
                && declaration.certain
                && declaration.name_range().end <= region.start
                && region.end <= declaration.range.end
        })
    };
    let misparses_in_bodies = health.misparses.iter().all(|finding| {
        finding.indicator != MisparseIndicator::KeywordAsIdentifier && in_a_body(finding.region).is_some()
    });
    misparses_in_bodies
        && health.error_regions.iter().all(|region| {
            in_a_body(*region).is_some_and(|body| {
                (region.start.line + 1..=region.end.line).all(|number| {
                    lines.line(number).is_none_or(|line| {
                        let indent = line.len() - line.trim_start().len();
                        line.trim().is_empty() || indent > body.range.start.character as usize
                    })
                })
            })
        })
}

/// The name written after UTF-16 column `end` of `line` and a `.` at once (`int32` of
/// `Gen.int32`, backticks kept); `None` when no identifier follows so (an operator, a line end).
fn member_after(line: &str, end: u32) -> Option<String> {
    let after = line.get(exact_byte_at_column(line, end)?..)?.strip_prefix('.')?;
    if let Some(quoted) = after.strip_prefix("``") {
        let close = quoted.find("``")?;
        return Some(format!("``{}``", &quoted[..close])).filter(|name| name.len() > 4);
    }
    let length = after.bytes().take_while(|byte| is_identifier_byte(*byte)).count();
    let member = &after[..length];
    member.chars().next().is_some_and(|first| first.is_alphabetic() || first == '_').then(|| member.to_owned())
}

/// Whether a `<` follows UTF-16 column `end` of `line` at once: type arguments (`Option<int>`).
fn type_arguments_after(line: &str, end: u32) -> bool {
    exact_byte_at_column(line, end).and_then(|at| line.as_bytes().get(at)) == Some(&b'<')
}

/// Whether the declaration is an instance member, an abstract slot or an implementation that
/// F# names only through a value: its header says neither `static` nor `set`, and no
/// `CustomOperation` attribute is on it or the line above (a computation expression's custom
/// operation is used bare).
fn is_instance_member(texts: &mut Texts, declaration: &Declared) -> bool {
    let Some(kind) = declaration.kind else { return false };
    if !matches!(kind, DeclarationKind::Member | DeclarationKind::Override | DeclarationKind::AbstractMember) {
        return false;
    }
    let words = header_words(texts, declaration);
    if words.is_empty() || words.iter().any(|word| matches!(word.as_str(), "static" | "set" | "val")) {
        return false;
    }
    let line = declaration.name_range.start.line;
    let Some((_, lines)) = texts.text(&declaration.path) else { return false };
    let attributes = [line.checked_sub(1), Some(line)].into_iter().flatten().filter_map(|line| lines.line(line));
    !attributes.into_iter().any(|text| text.contains("CustomOperation"))
}

/// Whether the occurrence (UTF-16 columns `start..end` of `line`) is written as a named
/// argument, `(name = …` or `, name = …`, which may set a property of that name.
fn named_argument_in(line: &str, start: u32, end: u32) -> bool {
    let (Some(start), Some(end)) = (exact_byte_at_column(line, start), exact_byte_at_column(line, end)) else {
        return true;
    };
    let before = line[..start].trim_end();
    let after = line[end..].trim_start();
    (before.ends_with('(') || before.ends_with(',')) && after.starts_with('=') && !after.starts_with("==")
}

/// The modules and namespaces around every declaration of `named`, when each is a module's
/// value the parser read with certainty; `None` when one is anything else.
fn module_value_qualifiers(find: &FindRun, named: &[&Declared]) -> Option<HashSet<String>> {
    let mut allowed = HashSet::new();
    for declaration in named {
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
    matches!(kind, DeclarationKind::Let | DeclarationKind::Val | DeclarationKind::ActivePatternCase)
        && named_through_modules(&find.index, declaration)
        && find.indexed_with_certainty(declaration, kind)
}

/// Whether the declaration is a member whose header, read from the text, says `static`.
fn is_static_member(texts: &mut Texts, declaration: &Declared) -> bool {
    if declaration.kind != Some(DeclarationKind::Member) {
        return false;
    }
    // `static` as a word before the header's first `member`.
    let words = header_words(texts, declaration);
    let member = words.iter().position(|word| word == "member");
    member.is_some_and(|member| words[..member].iter().any(|word| word == "static"))
}

/// The words of a declaration's header (`static member inline X`, `override _.Y`), read from
/// its file's text; empty when the text or the header cannot be had.
pub(super) fn header_words(texts: &mut Texts, declaration: &Declared) -> Vec<String> {
    let Some((start, end)) = declaration.header_bytes else { return Vec::new() };
    let Some((text, _)) = texts.text(&declaration.path) else { return Vec::new() };
    let Some(header) = text.get(start as usize..end as usize) else { return Vec::new() };
    header
        .split(|character: char| !(character.is_alphanumeric() || character == '_'))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether the workspace declares a module named `qualifier` that may stand for one of the
/// modules `allowed` names: one the parser could not read, or one with no declaration of its
/// own (an abbreviation, `module R = AsyncResult`, reads so) unless its line shows it to
/// abbreviate a module of another name that is no abbreviation itself (FSharp.Control.TaskSeq's
/// `module Internal = TaskSeqInternal`: `Internal.map` is never `Async.map`).
fn may_abbreviate(find: &FindRun, texts: &mut Texts, qualifier: &str, allowed: &HashSet<String>) -> bool {
    let bare = |name: &str| {
        let mut holders = find.index.find_declarations_in(name, find.files()).into_iter();
        holders.any(|hit| hit.declaration.kind == DeclarationKind::Module && !declares_its_own(find, &hit))
    };
    let hits = find.index.find_declarations_in(qualifier, find.files());
    hits.into_iter().any(|hit| {
        if hit.declaration.kind != DeclarationKind::Module || declares_its_own(find, &hit) {
            return false;
        }
        let occurrence = Occurrence { path: hit.path.clone(), range: hit.declaration.name_range() };
        let target = on_line(texts, &occurrence, |line, _| abbreviated_module(line, qualifier)).flatten();
        match target {
            Some(target) => allowed.contains(&target) || bare(&target),
            None => true,
        }
    })
}

/// Whether the index read `hit`, a module, with certainty and with declarations of its own.
fn declares_its_own(find: &FindRun, hit: &crate::syntax::index::DeclarationHit) -> bool {
    find.index.file(&hit.path).is_some_and(|file| {
        let declarations = &file.index.declarations;
        let slot = declarations.iter().position(|candidate| {
            candidate.kind == DeclarationKind::Module && candidate.name_range() == hit.declaration.name_range()
        });
        hit.declaration.certain
            && slot.is_some_and(|slot| declarations.iter().any(|child| child.parent as usize == slot))
    })
}

/// The last name of the module a line `module [access] Name = A.B.Target` abbreviates
/// (`Target`), when the line is exactly that (a comment after it allowed); `None` otherwise.
fn abbreviated_module(line: &str, name: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix("module ")?.trim_start();
    let rest = ["private ", "internal ", "public "]
        .iter()
        .find_map(|access| rest.strip_prefix(access))
        .unwrap_or(rest)
        .trim_start();
    let right = rest.strip_prefix(name)?.trim_start().strip_prefix('=')?;
    let right = right.split("//").next().unwrap_or("").trim();
    // `module M = begin … end` (and `struct`, `sig`) opens a body: no abbreviation.
    let path_like = !right.is_empty()
        && !["begin", "struct", "sig"].contains(&right)
        && right.split('.').all(|segment| {
            segment.chars().next().is_some_and(|first| first.is_alphabetic() || first == '_')
                && segment.chars().all(|character| character.is_alphanumeric() || character == '_' || character == '\'')
        });
    path_like.then(|| right.rsplit('.').next().unwrap_or(right).to_owned())
}

/// The occurrence's own text.
fn text_at<'a>(texts: &'a mut Texts, occurrence: &Occurrence) -> Option<&'a str> {
    let (_, lines) = texts.text(&occurrence.path)?;
    let line = lines.line(occurrence.range.start.line)?;
    let start = exact_byte_at_column(line, occurrence.range.start.character)?;
    let end = exact_byte_at_column(line, occurrence.range.end.character)?;
    line.get(start..end)
}

/// `read` of the occurrence's line and its UTF-16 column; `None` when the line cannot be read.
fn on_line<T>(texts: &mut Texts, occurrence: &Occurrence, read: impl FnOnce(&str, u32) -> T) -> Option<T> {
    let (_, lines) = texts.text(&occurrence.path)?;
    Some(read(lines.line(occurrence.range.start.line)?, occurrence.range.start.character))
}

/// Whether the occurrence (at UTF-16 column `character` of `line`) is qualified by a type
/// variable, `'T.MaxValue` or `^T.MaxValue`: a call through a constraint, which any type's
/// member may answer.
fn qualified_by_a_type_variable(line: &str, character: u32) -> bool {
    let Some(before) = exact_byte_at_column(line, character).and_then(|at| line.get(..at)) else { return true };
    let Some(before) = before.strip_suffix('.') else { return false };
    let length = before.bytes().rev().take_while(|byte| is_identifier_byte(*byte)).count();
    let (rest, qualifier) = before.split_at(before.len() - length);
    qualifier.starts_with('\'') || rest.ends_with('^')
}

/// The identifier written just before the occurrence and a `.` (`Result` of `Result.ok`,
/// backticks taken off), on its line; `None` when the occurrence is not qualified so.
fn qualifier_before(texts: &mut Texts, occurrence: &Occurrence) -> Option<String> {
    on_line(texts, occurrence, qualifier_in).flatten()
}

/// [`qualifier_before`] on one line, the occurrence at UTF-16 column `character`.
fn qualifier_in(line: &str, character: u32) -> Option<String> {
    let before = line.get(..exact_byte_at_column(line, character)?)?;
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

/// Whether a function or member around the occurrence declares a parameter of its name
/// (`let setError (error: 'e) … = … error …`): the occurrence is that parameter or a use of it,
/// never the module's value it shadows. Parameters are read from the header's text: `(name: …)`,
/// `(name)`, in a tuple, or curried `let f name x =`.
fn shadowed_by_a_parameter(find: &FindRun, texts: &mut Texts, occurrence: &Occurrence, name: &str) -> bool {
    let Some(file) = find.index.file(&occurrence.path) else { return false };
    let Some((text, _)) = texts.text(&occurrence.path) else { return false };
    let at = occurrence.range.start;
    file.index.declarations.iter().any(|declaration| {
        matches!(declaration.kind, DeclarationKind::Let | DeclarationKind::Member | DeclarationKind::Override)
            && declaration.certain
            && declaration.range.start <= at
            && at < declaration.range.end
            && text
                .get(declaration.header_bytes.0 as usize..declaration.header_bytes.1 as usize)
                .is_some_and(|header| declares_parameter(header, name))
    })
}

/// Whether `header` declares the parameter `name`: the word with `(` or `,` before it and
/// `:`, `)` or `,` after it (spaces aside).
fn declares_parameter(header: &str, name: &str) -> bool {
    let bytes = header.as_bytes();
    let mut from = 0;
    while let Some(found) = header[from..].find(name) {
        let start = from + found;
        let end = start + name.len();
        from = end;
        if bytes.get(end).is_some_and(|byte| is_identifier_byte(*byte))
            || start.checked_sub(1).is_some_and(|before| is_identifier_byte(bytes[before]))
        {
            continue;
        }
        let before = header[..start].trim_end().chars().next_back();
        let after = header[end..].trim_start().chars().next();
        if (matches!(before, Some('(' | ',')) && matches!(after, Some(':' | ')' | ',')))
            || curried_parameter(&header[..start])
        {
            return true;
        }
    }
    false
}

/// Whether a word after `prefix` is a curried parameter, `let f error x =`: the prefix holds,
/// outside brackets, no `:` or `=` and, past the keywords, the function's name at least.
fn curried_parameter(prefix: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "let", "inline", "rec", "private", "internal", "public", "member", "static", "override", "default", "and",
        "abstract", "mutable",
    ];
    let mut depth = 0u32;
    let mut outside = String::new();
    for character in prefix.chars() {
        match character {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            ':' | '=' if depth == 0 => return false,
            _ if depth == 0 => outside.push(character),
            _ => {}
        }
    }
    depth == 0
        && prefix.ends_with(char::is_whitespace)
        && outside.split_whitespace().any(|word| !KEYWORDS.contains(&word))
}

/// Whether something other than a `.` comes before the occurrence on its line (an occurrence
/// first on its line may continue a `.` of the line above: not unqualified).
fn unqualified(texts: &mut Texts, occurrence: &Occurrence) -> bool {
    on_line(texts, occurrence, unqualified_in).unwrap_or(false)
}

/// [`unqualified`] on one line, the occurrence at UTF-16 column `character`.
fn unqualified_in(line: &str, character: u32) -> bool {
    let Some(before) = exact_byte_at_column(line, character).and_then(|at| line.get(..at)) else { return false };
    let before = before.trim_end();
    !before.is_empty() && !before.ends_with('.')
}

/// Whether the occurrence is a type variable's name: `'` or `^` just before it, not ending
/// an identifier (`x'` is one identifier).
fn is_type_variable(texts: &mut Texts, occurrence: &Occurrence) -> bool {
    on_line(texts, occurrence, type_variable_in).unwrap_or(false)
}

/// [`is_type_variable`] on one line, the occurrence at UTF-16 column `character`.
fn type_variable_in(line: &str, character: u32) -> bool {
    let Some(before) = exact_byte_at_column(line, character).and_then(|at| line.get(..at)) else { return false };
    let Some(rest) = before.strip_suffix(['\'', '^']) else { return false };
    !rest.bytes().next_back().is_some_and(is_identifier_byte)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_argument_is_an_opening_bracket_or_comma_then_the_name_then_one_equals_sign() {
        let line = "let s = Settable(front = 3, back = 4) in front = back || f (front == 1)";
        let column = |word: &str, nth: usize| line.match_indices(word).nth(nth).unwrap().0 as u32;
        let named = |start: u32, length: u32| named_argument_in(line, start, start + length);
        assert!(named(column("front", 0), 5));
        assert!(named(column("back", 0), 4));
        assert!(!named(column("front", 1), 5), "a comparison outside a call");
        assert!(!named(column("front", 2), 5), "`==` is no named argument");
    }

    #[test]
    fn a_file_with_faults_inside_bodies_only_has_its_declarations_read_whole() {
        let whole = |text: &str| {
            let entry = crate::syntax::describe::index_text(text, crate::syntax::GrammarKind::Implementation).unwrap();
            assert_eq!(entry.index.health.status, HealthStatus::Degraded, "{text}");
            declarations_read_whole(&entry.index, &SourceLines::new(text))
        };
        // An error inside `f`'s body, a misparse (`a[0] <- a[1]`) inside `g`'s.
        assert!(whole("module M =\n    let f x =\n        let y = (x + )\n        y\n    let g = 2\n"));
        assert!(whole("module M =\n    let g (a: int[]) =\n        a[0] <- a[1]\n        a\n    let h = 3\n"));
        // An error where a declaration would start, and one in a body the parser is unsure of.
        assert!(!whole("module M =\n    let f x = 1\n    type = \n    let g = 2\n"));
        assert!(!whole("module M =\n    let f x =\n        let y = [ x;; ]\n    let g = 2\n"));
    }

    #[test]
    fn a_qualifier_is_the_identifier_before_the_dot() {
        assert_eq!(qualifier_in("x |> Result.ok", 12).as_deref(), Some("Result"));
        assert_eq!(qualifier_in("Ns.AsyncResult.ok 1", 15).as_deref(), Some("AsyncResult"));
        assert_eq!(qualifier_in("``My Module``.ok", 14).as_deref(), Some("My Module"));
        assert_eq!(qualifier_in("é.ok", 2).as_deref(), Some("é"));
        assert_eq!(qualifier_in("ok 1", 0), None);
        assert_eq!(qualifier_in("f ok", 2), None);
        assert_eq!(qualifier_in("[1..ok]", 4), None);
        assert_eq!(qualifier_in("(f x).ok", 6), None);
        assert_eq!(qualifier_in("1.ok", 2), None);
    }

    #[test]
    fn an_unqualified_occurrence_has_something_but_a_dot_before_it() {
        assert!(unqualified_in("fun item -> sum + item", 4));
        assert!(unqualified_in("fun item -> sum + item", 18));
        assert!(!unqualified_in("TaskSeq.item 3 xs", 8));
        assert!(!unqualified_in("TaskSeq. item 3 xs", 9));
        assert!(!unqualified_in("    item", 4));
    }

    #[test]
    fn a_parameter_is_read_from_a_header() {
        assert!(declares_parameter("let inline setError\n        (error: 'errorOutput)\n        : R =", "error"));
        assert!(declares_parameter("let f (a, error) =", "error"));
        assert!(declares_parameter("member _.M(x: int, error) =", "error"));
        assert!(!declares_parameter("let f (x: error) =", "error"));
        assert!(!declares_parameter("let f (errors: int) =", "error"));
        assert!(declares_parameter("let f error =", "error"));
        assert!(declares_parameter("let inline bindRequireEqual y error x =", "error"));
        assert!(declares_parameter("member this.M (x: int) error =", "error"));
        assert!(!declares_parameter("let inline error x =", "error"));
        assert!(!declares_parameter("let f (x: int) : error =", "error"));
        assert!(!declares_parameter("let f<'a> =", "a"));
        assert!(!declares_parameter("let error (x: 'error) =", "error"));
    }

    #[test]
    fn type_arguments_follow_at_once() {
        assert!(type_arguments_after("let f () : Task<Option<int>> =", 22));
        assert!(!type_arguments_after("Option.map f x", 6));
        assert!(!type_arguments_after("x < Option", 10));
    }

    #[test]
    fn the_member_after_a_module_name_is_the_identifier_after_its_dot() {
        assert_eq!(member_after("let! x = Gen.int32 range", 12).as_deref(), Some("int32"));
        assert_eq!(member_after("Gen.``a b`` 3", 3).as_deref(), Some("``a b``"));
        assert_eq!(member_after("Gen.(<!>) f", 3), None);
        assert_eq!(member_after("open Hedgehog.Gen", 17), None);
        assert_eq!(member_after("Gen .int32", 3), None);
        assert_eq!(member_after("Gen.1", 3), None);
        assert_eq!(member_after("Gen.", 3), None);
    }

    #[test]
    fn a_module_abbreviation_line_gives_the_last_name_of_its_module() {
        assert_eq!(abbreviated_module("module Internal = TaskSeqInternal", "Internal"), Some("TaskSeqInternal".into()));
        assert_eq!(abbreviated_module("  module private L = A.B.Lenient // short", "L"), Some("Lenient".into()));
        assert_eq!(abbreviated_module("module O = Outcome'", "O"), Some("Outcome'".into()));
        // A body, a body on the next lines, another module's line: no abbreviation read.
        assert_eq!(abbreviated_module("module M = begin", "M"), None);
        assert_eq!(abbreviated_module("module Internal =", "Internal"), None);
        assert_eq!(abbreviated_module("module Other = Target", "Internal"), None);
        assert_eq!(abbreviated_module("module M = A.(+)", "M"), None);
    }

    #[test]
    fn an_abbreviation_header_gives_its_name_and_right_side() {
        assert_eq!(abbreviation_header("type MV = MaxValue"), Some(("MV", " MaxValue")));
        assert_eq!(
            abbreviation_header("  and private Alias<'a> = Ns.MaxValue<'a>"),
            Some(("Alias", " Ns.MaxValue<'a>"))
        );
        assert_eq!(abbreviation_header("type [<Obsolete>] internal Old ="), Some(("Old", "")));
        assert_eq!(abbreviation_header("type ``A b`` = MaxValue"), Some(("``A b``", " MaxValue")));
        assert_eq!(abbreviation_header("let x = MaxValue"), None);
        assert!(holds_word(" Ns.MaxValue<'a>", "MaxValue"));
        assert!(!holds_word(" MaxValues", "MaxValue"));
    }

    #[test]
    fn a_type_variable_qualifier_is_a_quote_or_caret_before_it() {
        assert!(qualified_by_a_type_variable("let m = 'T.MaxValue", 11));
        assert!(qualified_by_a_type_variable("(^a.MaxValue)", 4));
        assert!(!qualified_by_a_type_variable("Int32.MaxValue", 6));
        assert!(!qualified_by_a_type_variable("x'.MaxValue", 3));
    }

    #[test]
    fn a_type_variable_is_a_quote_or_caret_before_the_name() {
        assert!(type_variable_in("(value: 'ok)", 9));
        assert!(type_variable_in("when ^ok: (member M: unit)", 6));
        assert!(!type_variable_in("let ok = 1", 4));
        assert!(!type_variable_in("x'ok", 2));
        assert!(!type_variable_in("'ok", 0));
    }
}
