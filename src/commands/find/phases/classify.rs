//! Classification: the sweep's locations become [`Site`]s — `definition`/`signature` where a
//! resolved declaration is, the syntax layer's five `field-*` kinds at a field's sites
//! (`field-reference` where it has none), `member-usage` for a member, else `reference` — kept
//! by the scope and attributed to a project. While FSAC cannot answer, the syntax index's
//! name matches stand in, attributed to a declaration only when the name is unambiguous.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::commands::find::matching::Declared;
use crate::commands::find::model::arguments::FindKind;
use crate::commands::find::model::budget::{BudgetStop, Segment};
use crate::commands::find::model::rows::{Site, SiteKind, SiteVia, sort_and_deduplicate};
use crate::commands::find::model::work::FileKey;
use crate::commands::find::phases::declarations::Resolved;
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::implementations::Implementations;
use crate::commands::find::phases::sweep::Swept;
use crate::commands::find::phases::target::Placement;
use crate::syntax::conditionals::inactive_branch_at;
use crate::syntax::model::{DeclarationKind, FieldSiteKind, Position, TextRange};

/// The sites of the segment (the whole match set unless the site budget cut it), sorted and
/// de-duplicated by (file, range), and where the budget stopped it.
pub fn sites(
    find: &FindRun,
    placement: &Placement,
    resolved: &Resolved,
    swept: &Swept,
    segment: Segment,
) -> (Vec<Site>, Option<BudgetStop>) {
    if find.fsac.ready {
        compiler_sites(find, placement, resolved, swept, segment)
    } else {
        syntactic_sites(find, placement, &resolved.declared, segment)
    }
}

/// The kinds of a declaration's own site: `definition`, and `signature` in a `.fsi`.
/// With FSAC: every location of the sweep, then every resolved declaration as a definition
/// site, swept or not. FSAC's answers come first, so a declaration FSAC confirmed keeps
/// `via: "fsac"` after de-duplication. The locations are grouped by file first (references
/// into the sweep's answers), and sites are formed one file at a time into the segment.
fn compiler_sites<'a>(
    find: &FindRun,
    placement: &Placement,
    resolved: &'a Resolved,
    swept: &'a Swept,
    mut segment: Segment,
) -> (Vec<Site>, Option<BudgetStop>) {
    let declared_at = resolved.slots_by_place(&find.work);
    let classifier =
        Classifier { find, placement, declared: &resolved.declared, declared_at, kind_mode: find.kind_mode() };
    // The places FSAC's references answered: code the compiler saw.
    let answered: HashSet<(&Path, TextRange)> = if resolved.anchor.is_some() {
        swept.anchor_answer.iter().map(|(path, range)| (path.as_path(), *range)).collect()
    } else {
        swept.answers.iter().flatten().map(|(path, range)| (path.as_path(), *range)).collect()
    };
    // An abstract member named with its implementations: the slot's rows are its own.
    let implementations = Implementations::of(find, resolved, swept);
    let mut by_file: BTreeMap<String, Vec<Located<'a>>> = BTreeMap::new();
    let mut display: HashMap<&'a Path, String> = HashMap::new();
    let mut locate = |located: Located<'a>| {
        if placement.keeps(located.path) {
            let file = display.entry(located.path).or_insert_with(|| find.model.display_path(located.path)).clone();
            by_file.entry(file).or_default().push(located);
        }
    };
    if resolved.anchor.is_some() {
        let name = resolved.position_name.as_deref();
        for (path, range) in &swept.anchor_answer {
            locate(Located { declaration: resolved.declared.first(), name, path, range: *range, via: SiteVia::Fsac });
        }
    } else {
        for (slot, (declaration, locations)) in resolved.declared.iter().zip(&swept.answers).enumerate() {
            for (path, range) in locations {
                if implementations.is_slot_row(slot, &(find.work.file_key(path), *range)) {
                    continue;
                }
                locate(Located { declaration: Some(declaration), name: None, path, range: *range, via: SiteVia::Fsac });
            }
        }
    }
    for declaration in &resolved.declared {
        let via = if declaration.sources.iter().any(|source| source.starts_with("fsac")) {
            SiteVia::Fsac
        } else {
            SiteVia::Syntax
        };
        let (path, range) = (&declaration.path, declaration.name_range);
        locate(Located { declaration: Some(declaration), name: None, path, range, via });
    }
    // The files only projects FSAC could not load compile were never swept: their rows are
    // the syntax layer's, as without FSAC.
    let mut unswept = failed_project_rows(find, placement, &resolved.declared);
    // The occurrences and declarations in code the compiler did not see (an `#if` branch
    // inactive under the project's defines) are rows of kind `inactive`.
    let mut inactive = inactive_rows(find, placement, &resolved.declared);
    let files: BTreeSet<String> = by_file.keys().chain(unswept.keys()).chain(inactive.keys()).cloned().collect();
    let total = files.len();
    for (number, file) in files.into_iter().enumerate() {
        if segment.before_start(&file) {
            continue;
        }
        let located = by_file.remove(&file).unwrap_or_default();
        let mut file_sites: Vec<Site> = located.iter().filter_map(|located| classifier.site(&file, located)).collect();
        let beside_headers = match located.first() {
            Some(first) => implementations.settle_declaration_places(
                &resolved.declared,
                &find.work.file_key(first.path),
                &mut file_sites,
            ),
            None => Vec::new(),
        };
        file_sites.extend(unswept.remove(&file).unwrap_or_default());
        let (file_path, file_inactive) = inactive.remove(&file).unwrap_or_default();
        merge_inactive(&mut file_sites, file_inactive, |range| {
            file_path.as_deref().is_some_and(|path| answered.contains(&(path, *range)))
        });
        offer_file_sites(find, &mut segment, &file, (file_sites, beside_headers), total - number - 1);
        if segment.stopped() {
            break;
        }
    }
    segment.finish()
}

/// The sites of uses FSAC's references missed and its definition at each proved (the file, the
/// range and the slot in `declared` of the declaration it resolves to), classified as FSAC's
/// locations are (`via: "fsac"`: the compiler resolved them), kept by the scope.
pub fn missed_use_sites<'a>(
    find: &FindRun,
    placement: &Placement,
    resolved: &Resolved,
    found: impl Iterator<Item = (&'a Path, TextRange, usize)>,
) -> Vec<Site> {
    let declared_at = resolved.slots_by_place(&find.work);
    let classifier =
        Classifier { find, placement, declared: &resolved.declared, declared_at, kind_mode: find.kind_mode() };
    found
        .filter(|(path, _, _)| placement.keeps(path))
        .filter_map(|(path, range, slot)| {
            let file = find.model.display_path(path);
            let declaration = resolved.declared.get(slot);
            classifier.site(&file, &Located { declaration, name: None, path, range, via: SiteVia::Fsac })
        })
        .collect()
}

/// The syntax layer's rows (every occurrence of a declared name, as [`syntactic_sites`] forms
/// them) in the files that only requested projects FSAC could not load compile: FSAC never
/// swept them, so without these rows a failed project would give fewer rows than no FSAC at
/// all. They are labelled `via: "syntax"` (`certain: false`).
fn failed_project_rows(find: &FindRun, placement: &Placement, declared: &[Declared]) -> BTreeMap<String, Vec<Site>> {
    let failed: HashSet<&Path> = find.failed_projects(declared).into_iter().map(|(project, _)| project).collect();
    let mut rows = BTreeMap::new();
    if failed.is_empty() || find.kind_mode() == FindKind::Definition {
        return rows;
    }
    let files: Vec<&PathBuf> =
        find.files().iter().filter(|path| placement.keeps(path) && placement.compiled_only_by(path, &failed)).collect();
    if files.is_empty() {
        return rows;
    }
    let names: BTreeSet<&str> = declared.iter().map(Declared::name).collect();
    let names: Vec<NameSites> = names.into_iter().map(|name| NameSites::new(find, declared, name)).collect();
    for path in files {
        let file = find.model.display_path(path);
        let mut sites = Vec::new();
        for name in &names {
            name.add_sites_in(find, placement, path, &file, &mut sites);
        }
        if !sites.is_empty() {
            rows.insert(file, sites);
        }
    }
    rows
}

/// Rows of kind `inactive`: every occurrence of a declared name, and every resolved
/// declaration, on a line of an `#if` branch inactive under the defines of every requested
/// project compiling the file ([`crate::workspace::defines`]), with the branch as `condition`.
/// The compiler behind FSAC never saw that code, so no references answer holds these sites.
fn inactive_rows(
    find: &FindRun,
    placement: &Placement,
    declared: &[Declared],
) -> BTreeMap<String, (Option<PathBuf>, Vec<Site>)> {
    let mut rows = BTreeMap::new();
    let mut defines_of: HashMap<&Path, BTreeSet<String>> = HashMap::new();
    let mut names: Option<Vec<NameSites>> = None;
    for path in find.files().iter().filter(|path| placement.keeps(path)) {
        let Some(file_index) = find.index.file(path) else { continue };
        let branches = &file_index.index.conditionals;
        let projects = placement.requested_compiling(path);
        // A `Compile` item whose condition names another target framework than the one FSAC
        // loads: the whole file is code the compiler did not see, for that project.
        let item_conditions: Vec<Option<Arc<str>>> = projects
            .iter()
            .map(|project| {
                let project = find.model.project(project)?;
                let condition = project.compile_items.iter().find(|item| item.path == *path)?.condition.as_deref()?;
                (crate::workspace::defines::compile_condition_holds(condition, project) == Some(false))
                    .then(|| Arc::from(format!("<Compile Condition=\"{condition}\">")))
            })
            .collect();
        if projects.is_empty() || (branches.is_empty() && item_conditions.iter().any(Option::is_none)) {
            continue;
        }
        for project in &projects {
            defines_of.entry(project).or_insert_with(|| {
                find.model.project(project).map(crate::workspace::defines::project_defines).unwrap_or_default()
            });
        }
        // Why a line is inactive, when it is inactive for every compiling project: the file's
        // item condition, else the branch around it.
        let inactive_at = |line: u32| -> Option<Arc<str>> {
            let mut why = None;
            for (project, item_condition) in projects.iter().zip(&item_conditions) {
                why = Some(match item_condition {
                    Some(condition) => condition.clone(),
                    None => Arc::from(inactive_branch_at(branches, line, &defines_of[project])?.display()),
                });
            }
            why
        };
        let file = find.model.display_path(path);
        let project = placement.project_of(path, &find.model);
        let mut file_rows = Vec::new();
        for declaration in declared.iter().filter(|declaration| find.work.same_file(&declaration.path, path)) {
            if let Some(condition) = inactive_at(declaration.name_range.start.line) {
                file_rows.push(Site {
                    file: file.clone(),
                    range: declaration.name_range,
                    kind: SiteKind::Inactive,
                    symbol_full_name: Some(declaration.symbol_full_name().to_owned()),
                    symbol_kind: declaration.symbol_kind(),
                    symbol_candidates: Arc::default(),
                    project: project.clone(),
                    via: SiteVia::Syntax,
                    condition: Some(condition),
                });
            }
        }
        if find.kind_mode() != FindKind::Definition {
            let names = names.get_or_insert_with(|| {
                let names: BTreeSet<&str> = declared.iter().map(Declared::name).collect();
                names.into_iter().map(|name| NameSites::new(find, declared, name)).collect()
            });
            for name in names.iter() {
                let mut sites = Vec::new();
                name.add_sites_in(find, placement, path, &file, &mut sites);
                for mut site in sites {
                    if let Some(condition) = inactive_at(site.range.start.line) {
                        site.kind = SiteKind::Inactive;
                        site.condition = Some(condition);
                        file_rows.push(site);
                    }
                }
            }
        }
        if !file_rows.is_empty() {
            rows.insert(file, (Some(path.clone()), file_rows));
        }
    }
    rows
}

/// Adds one file's `inactive` rows to its sites. A references answer of FSAC holding the same
/// place proves the code compiled (the defines read were not the project's): its row stays
/// and the inactive one goes. Any other row there (a declaration the index or
/// `workspace/symbol` named, a failed project's row) becomes the inactive row.
fn merge_inactive(sites: &mut Vec<Site>, inactive: Vec<Site>, answered: impl Fn(&TextRange) -> bool) {
    for row in inactive {
        if answered(&row.range) {
            continue;
        }
        sites.retain(|site| site.range != row.range);
        sites.push(row);
    }
}

/// Offers one file's sites to the segment: without `includeDeclaration` the declaration sites
/// are dropped, then the rest sorted and de-duplicated, and the abstract member's rows beside
/// implementations' headers added (one place, two symbols: see [`Implementations`]).
fn offer_file_sites(
    find: &FindRun,
    segment: &mut Segment,
    file: &str,
    (mut sites, beside_headers): (Vec<Site>, Vec<Site>),
    files_after: usize,
) {
    let declarations_kept = |site: &Site| find.arguments.include_declaration || !site.kind.is_declaration();
    sites.retain(declarations_kept);
    sort_and_deduplicate(&mut sites);
    if !beside_headers.is_empty() {
        sites.extend(beside_headers.into_iter().filter(declarations_kept));
        sites.sort_by(Site::canonical_order);
    }
    segment.offer_file(file, sites, files_after);
}

/// One compiler-confirmed location, found for `declaration` (or, at a position the compiler
/// resolved to no source declaration, for `name`).
struct Located<'a> {
    declaration: Option<&'a Declared>,
    name: Option<&'a str>,
    path: &'a Path,
    range: TextRange,
    via: SiteVia,
}

/// What classifies a compiler-confirmed location.
struct Classifier<'a> {
    find: &'a FindRun,
    placement: &'a Placement,
    declared: &'a [Declared],
    /// The first of `declared` at each (file, name range).
    declared_at: HashMap<(FileKey, TextRange), usize>,
    kind_mode: FindKind,
}

impl Classifier<'_> {
    /// The site at a location (in `file`, its display path), unless the kind leaves it out.
    fn site(&self, file: &str, located: &Located<'_>) -> Option<Site> {
        let Located { declaration, name, path, range, via } = *located;
        let kind = self.kind_at(path, &range, declaration);
        if self.kind_mode == FindKind::Field && !kind.is_field() && !kind.is_declaration() {
            return None;
        }
        Some(Site {
            file: file.to_owned(),
            range,
            kind,
            symbol_full_name: declaration
                .map(|declaration| declaration.symbol_full_name().to_owned())
                .or(name.map(str::to_owned)),
            symbol_kind: declaration.and_then(Declared::symbol_kind),
            symbol_candidates: Arc::default(),
            project: self.placement.project_of(path, &self.find.model),
            via,
            condition: None,
        })
    }

    /// Any resolved declaration at this place makes it a declaration site, whichever
    /// declaration's sweep reported it: `signature` in a `.fsi`, else `definition`.
    fn kind_at(&self, path: &Path, range: &TextRange, declaration: Option<&Declared>) -> SiteKind {
        let work = &self.find.work;
        work.compared(1);
        let declared_here = self.declared_at.get(&(work.file_key(path), *range)).map(|slot| &self.declared[*slot]);
        if let Some(here) = declared_here {
            if here.is_signature() { SiteKind::Signature } else { SiteKind::Definition }
        } else if let Some(declaration) = declaration.filter(|declaration| declaration.is_field())
            && self.kind_mode != FindKind::Symbol
        {
            field_site_kind(&self.find.index, path, range, declaration.name()).unwrap_or(SiteKind::FieldReference)
        } else if declaration.is_some_and(Declared::is_member) && self.kind_mode != FindKind::Symbol {
            SiteKind::MemberUsage
        } else {
            SiteKind::Reference
        }
    }
}

/// The syntax layer's field-site kind at `range` in `path`, for a field called `name`.
fn field_site_kind(index: &crate::syntax::SyntaxIndex, path: &Path, range: &TextRange, name: &str) -> Option<SiteKind> {
    let file = index.file(path)?;
    let id = index.interner().lookup(name)?;
    file.index
        .field_sites
        .iter()
        .find(|site| site.field == id && site.start == range.start)
        .map(|site| site.kind.into())
}

/// Syntactic sites while FSAC cannot answer: the resolved declarations, then every
/// identifier occurrence (or field site) with the same name, attributed to a declaration
/// only when the name is unambiguous in the workspace. Formed one file at a time in the
/// canonical order, so the segment holds no site past the budget's cut.
fn syntactic_sites(
    find: &FindRun,
    placement: &Placement,
    declared: &[Declared],
    mut segment: Segment,
) -> (Vec<Site>, Option<BudgetStop>) {
    let mut declaration_sites: HashMap<String, Vec<Site>> = HashMap::new();
    let mut files: BTreeMap<String, &Path> = BTreeMap::new();
    for declaration in declared.iter().filter(|declaration| placement.keeps(&declaration.path)) {
        let file = find.model.display_path(&declaration.path);
        files.entry(file.clone()).or_insert(&declaration.path);
        declaration_sites.entry(file.clone()).or_default().push(Site {
            file,
            range: declaration.name_range,
            kind: if declaration.is_signature() { SiteKind::Signature } else { SiteKind::Definition },
            symbol_full_name: Some(declaration.symbol_full_name().to_owned()),
            symbol_kind: declaration.symbol_kind(),
            symbol_candidates: Arc::default(),
            project: placement.project_of(&declaration.path, &find.model),
            via: SiteVia::Syntax,
            condition: None,
        });
    }
    let names: Vec<NameSites> = if find.kind_mode() == FindKind::Definition {
        Vec::new()
    } else {
        let names: BTreeSet<&str> = declared.iter().map(Declared::name).collect();
        names.into_iter().map(|name| NameSites::new(find, declared, name)).collect()
    };
    if !names.is_empty() {
        for path in find.files().iter().filter(|path| placement.keeps(path)) {
            files.entry(find.model.display_path(path)).or_insert(path);
        }
    }
    let total = files.len();
    for (number, (file, path)) in files.into_iter().enumerate() {
        if segment.before_start(&file) {
            continue;
        }
        let mut file_sites = declaration_sites.remove(&file).unwrap_or_default();
        for name in &names {
            name.add_sites_in(find, placement, path, &file, &mut file_sites);
        }
        offer_file_sites(find, &mut segment, &file, (file_sites, Vec::new()), total - number - 1);
        if segment.stopped() {
            break;
        }
    }
    segment.finish()
}

/// What every occurrence of one name shares: the places of its declarations (listed already),
/// its attribution, and whether it names a field or a member.
struct NameSites<'a> {
    name: &'a str,
    declaration_places: HashSet<(PathBuf, TextRange)>,
    symbol: Option<String>,
    symbol_kind: Option<&'static str>,
    /// One shared list per name: every site of an ambiguous name points at it.
    symbol_candidates: Arc<Vec<String>>,
    is_field: bool,
    is_member: bool,
}

impl<'a> NameSites<'a> {
    fn new(find: &FindRun, declared: &[Declared], name: &'a str) -> NameSites<'a> {
        let all_same_named = find.index.find_declarations_in(name, find.files());
        let declaration_places =
            all_same_named.iter().map(|hit| (hit.path.clone(), hit.declaration.name_range())).collect();
        // The symbols the name may stand for, as the compiler tells them apart: a module beside
        // a type of its name is a symbol of its own (`…Module`), though the index names both alike.
        let symbols: BTreeSet<(String, bool)> = all_same_named
            .iter()
            .map(|hit| (hit.full_name.clone(), hit.declaration.kind == DeclarationKind::Module))
            .collect();
        let spelled = |(full_name, module): &(String, bool)| {
            let beside_a_type = *module && symbols.contains(&(full_name.clone(), false));
            if beside_a_type { format!("{full_name}Module") } else { full_name.clone() }
        };
        let mut candidates: Vec<String> = symbols.iter().map(spelled).collect();
        candidates.sort();
        candidates.dedup();
        // Files left unread because they cannot use what a qualified query names may still
        // declare the name: one declaration among the files read does not make it unambiguous.
        let unambiguous = symbols.len() == 1 && find.searched.narrowed_out() == 0;
        let (symbol, symbol_kind, symbol_candidates) = match symbols.iter().next() {
            Some((full_name, module)) if unambiguous => {
                // The resolved declaration's own name and kind, when it is the one.
                let resolved = declared.iter().find(|declaration| {
                    declaration.full_name == *full_name
                        && (declaration.kind == Some(DeclarationKind::Module)) == *module
                });
                let kind = all_same_named.first().map(|hit| {
                    crate::commands::find::matching::compiler_names::symbol_kind(hit.declaration.kind, &hit.path)
                });
                match resolved {
                    Some(declaration) => (
                        Some(declaration.symbol_full_name().to_owned()),
                        declaration.symbol_kind().or(kind),
                        Arc::default(),
                    ),
                    None => (candidates.pop(), kind, Arc::default()),
                }
            }
            _ => (None, None, Arc::new(candidates)),
        };
        let is_field = declared.iter().any(|declaration| declaration.name() == name && declaration.is_field());
        let is_member = declared.iter().any(|declaration| declaration.name() == name && declaration.is_member());
        NameSites { name, declaration_places, symbol, symbol_kind, symbol_candidates, is_field, is_member }
    }

    /// Every occurrence of the name in `path` (or, for a field, each of its field sites) that
    /// is not a declaration.
    fn add_sites_in(&self, find: &FindRun, placement: &Placement, path: &Path, file: &str, sites: &mut Vec<Site>) {
        let (index, kind_mode) = (&find.index, find.kind_mode());
        let paths = [path.to_path_buf()];
        let hits = index.find_occurrences_in(self.name, &paths);
        if hits.is_empty() {
            return;
        }
        let field_kinds: HashMap<(u32, u32), FieldSiteKind> = if self.is_field {
            index
                .find_field_sites_in(self.name, &paths)
                .into_iter()
                .map(|hit| ((hit.site.start.line, hit.site.start.character), hit.site.kind))
                .collect()
        } else {
            HashMap::new()
        };
        let project = placement.project_of(path, &find.model);
        for hit in hits {
            let end = Position { line: hit.position.line, character: hit.position.character + hit.length };
            let range = TextRange { start: hit.position, end };
            if self.declaration_places.contains(&(hit.path, range)) {
                continue; // a declaration: listed already when it was resolved
            }
            let field_kind = field_kinds.get(&(hit.position.line, hit.position.character));
            let kind = match (field_kind, kind_mode) {
                (Some(kind), mode) if mode != FindKind::Symbol => SiteKind::from(*kind),
                (None, FindKind::Field) => continue,
                _ if self.is_member && kind_mode != FindKind::Symbol => SiteKind::MemberUsage,
                _ => SiteKind::Reference,
            };
            sites.push(Site {
                file: file.to_owned(),
                range,
                kind,
                symbol_full_name: self.symbol.clone(),
                symbol_kind: self.symbol_kind,
                symbol_candidates: self.symbol_candidates.clone(),
                project: project.clone(),
                via: SiteVia::Syntax,
                condition: None,
            });
        }
    }
}
