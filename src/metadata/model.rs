//! The assembly model built from the tables: types (with nesting, kind, accessibility,
//! generic parameters, obsolete flag) and their members (methods, constructors, properties,
//! events, fields) with readable signatures, plus the type forwarders of facade assemblies.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::MetadataError;
use super::bytes::ByteReader;
use super::pe::{Streams, read_streams};
use super::signature::{
    GenericScope, MethodSignature, TypeNameSource, field_type, method_signature, property_signature, type_spec,
    without_arity,
};
use super::tables::{Coded, Tables, table};

/// Declared accessibility, as ECMA-335 flags spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Accessibility {
    Public,
    Protected,
    ProtectedInternal,
    Internal,
    PrivateProtected,
    Private,
}

impl Accessibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Accessibility::Public => "public",
            Accessibility::Protected => "protected",
            Accessibility::ProtectedInternal => "protected internal",
            Accessibility::Internal => "internal",
            Accessibility::PrivateProtected => "private protected",
            Accessibility::Private => "private",
        }
    }

    /// Reachable from another assembly (public, or protected through inheritance).
    pub fn is_visible_outside(self) -> bool {
        matches!(self, Accessibility::Public | Accessibility::Protected | Accessibility::ProtectedInternal)
    }

    fn rank(self) -> u8 {
        match self {
            Accessibility::Public => 5,
            Accessibility::ProtectedInternal => 4,
            Accessibility::Protected => 3,
            Accessibility::Internal => 2,
            Accessibility::PrivateProtected => 1,
            Accessibility::Private => 0,
        }
    }

    fn of_type(flags: u32) -> Accessibility {
        match flags & 0x7 {
            1 | 2 => Accessibility::Public,
            3 => Accessibility::Private,
            4 => Accessibility::Protected,
            6 => Accessibility::PrivateProtected,
            7 => Accessibility::ProtectedInternal,
            _ => Accessibility::Internal,
        }
    }

    fn of_member(flags: u16) -> Accessibility {
        match flags & 0x7 {
            6 => Accessibility::Public,
            5 => Accessibility::ProtectedInternal,
            4 => Accessibility::Protected,
            3 => Accessibility::Internal,
            2 => Accessibility::PrivateProtected,
            _ => Accessibility::Private,
        }
    }
}

/// What kind of member an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    Method,
    Constructor,
    Property,
    Event,
    Field,
}

impl MemberKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MemberKind::Method => "method",
            MemberKind::Constructor => "constructor",
            MemberKind::Property => "property",
            MemberKind::Event => "event",
            MemberKind::Field => "field",
        }
    }
}

/// One member of a type.
#[derive(Debug, Clone)]
pub struct MemberInfo {
    pub name: String,
    pub kind: MemberKind,
    pub signature: String,
    pub accessibility: Accessibility,
    pub is_static: bool,
    pub is_abstract: bool,
    pub is_obsolete: bool,
    pub generic_parameters: Vec<String>,
    /// Property and event accessors, and compiler-generated backing fields: listed in
    /// [`TypeInfo::method_names`] but not shown as members of their own.
    pub is_hidden: bool,
}

/// One type defined (or forwarded) by an assembly.
#[derive(Debug, Clone)]
pub struct TypeInfo {
    pub namespace: String,
    /// The metadata name, generic arity suffix included (``List`1``).
    pub metadata_name: String,
    /// The name without arity suffix.
    pub display_name: String,
    /// Namespace, enclosing types and name, dot-separated, without arity suffixes.
    pub full_name: String,
    /// Index of the enclosing type in [`Assembly::types`], for nested types.
    pub enclosing: Option<usize>,
    /// class, interface, struct, enum, delegate, module, record, union, exception, forwarder.
    pub kind: &'static str,
    pub accessibility: Accessibility,
    /// This type and every enclosing type are reachable from another assembly.
    pub is_visible_outside: bool,
    pub is_abstract: bool,
    pub is_obsolete: bool,
    pub generic_parameters: Vec<String>,
    /// `T : IComparable<T>, new()` for each constrained generic parameter.
    pub generic_constraints: Vec<String>,
    pub members: Vec<MemberInfo>,
    /// Every MethodDef name of the type, accessors and private methods included.
    pub method_names: Vec<String>,
    /// For a type forwarder: the assembly the type now lives in.
    pub forwarded_to: Option<String>,
}

/// A parsed assembly.
#[derive(Debug, Clone)]
pub struct Assembly {
    /// The assembly's simple name (Assembly table), else its module name without extension.
    pub name: String,
    pub version: String,
    pub runtime_version: String,
    pub types: Vec<TypeInfo>,
}

/// Reads an assembly file.
pub fn read_assembly_file(path: &Path) -> Result<Assembly, MetadataError> {
    let bytes = std::fs::read(path).map_err(|error| MetadataError::Io(format!("{}: {error}", path.display())))?;
    read_assembly(&bytes)
}

/// Reads an assembly from its bytes.
pub fn read_assembly(file: &[u8]) -> Result<Assembly, MetadataError> {
    let streams = read_streams(file)?;
    let tables = Tables::parse(streams.tables)?;
    let reader = Reader { streams: &streams, tables: &tables };
    reader.assembly()
}

/// Generic parameter owner → (number, flags, constraint TypeDefOrRef values) of each
/// constrained parameter.
type GenericConstraints = HashMap<(usize, u32), Vec<(u32, u32, Vec<u32>)>>;

/// Indexes built once per assembly so per-type lookups are not table scans.
struct OwnedLists {
    /// HasSemantics association → its accessor methods (row, semantics flags).
    accessors_by_association: HashMap<u32, Vec<(u32, u32)>>,
    property_maps: HashMap<u32, u32>,
    event_maps: HashMap<u32, u32>,
}

struct Reader<'r, 'a> {
    streams: &'r Streams<'a>,
    tables: &'r Tables<'a>,
}

/// CompilationMappingAttribute's SourceConstructFlags, for F# type kinds.
fn fsharp_kind(flags: u32) -> Option<&'static str> {
    match flags & 31 {
        1 => Some("union"),
        2 => Some("record"),
        5 => Some("exception"),
        7 => Some("module"),
        _ => None,
    }
}

impl<'r, 'a> Reader<'r, 'a> {
    fn string(&self, index: u32) -> Result<String, MetadataError> {
        let heap = self.streams.strings;
        let start = index as usize;
        if start >= heap.len() {
            return if start == 0 {
                Ok(String::new())
            } else {
                Err(MetadataError::malformed(format!("string index {index} is past the #Strings heap")))
            };
        }
        let mut reader = ByteReader::at(heap, start);
        Ok(String::from_utf8_lossy(reader.c_string("#Strings entry")?).into_owned())
    }

    fn blob(&self, index: u32) -> Result<&'a [u8], MetadataError> {
        let heap = self.streams.blob;
        if index == 0 && heap.is_empty() {
            return Ok(&[]);
        }
        let mut reader = ByteReader::at(heap, index as usize);
        let length = reader.compressed_u32("#Blob length")? as usize;
        reader.take(length, "#Blob entry")
    }

    fn cell(&self, table_number: usize, row: u32, column: usize) -> Result<u32, MetadataError> {
        self.tables.cell(table_number, row, column)
    }

    /// A row of a list column, through the pointer table of `#-` streams when present.
    fn through_pointer(&self, pointer_table: usize, row: u32) -> Result<u32, MetadataError> {
        if self.tables.rows(pointer_table) > 0 { self.cell(pointer_table, row, 0) } else { Ok(row) }
    }

    /// The rows `[start, end)` that a list column of `owner_table` row `row` spans.
    fn list_range(
        &self,
        owner_table: usize,
        row: u32,
        column: usize,
        target_table: usize,
        pointer_table: usize,
    ) -> Result<Vec<u32>, MetadataError> {
        let list_length = if self.tables.rows(pointer_table) > 0 {
            self.tables.rows(pointer_table)
        } else {
            self.tables.rows(target_table)
        };
        let start = self.cell(owner_table, row, column)?;
        let end = if row < self.tables.rows(owner_table) {
            self.cell(owner_table, row + 1, column)?
        } else {
            list_length + 1
        };
        let end = end.min(list_length + 1);
        let mut rows = Vec::new();
        if start == 0 {
            return Ok(rows);
        }
        for position in start..end {
            rows.push(self.through_pointer(pointer_table, position)?);
        }
        Ok(rows)
    }

    /// Namespace and name of a TypeDef or TypeRef.
    fn type_identity(&self, table_number: usize, row: u32) -> Result<(String, String), MetadataError> {
        match table_number {
            table::TYPE_DEF => {
                Ok((self.string(self.cell(table_number, row, 2)?)?, self.string(self.cell(table_number, row, 1)?)?))
            }
            table::TYPE_REF => {
                Ok((self.string(self.cell(table_number, row, 2)?)?, self.string(self.cell(table_number, row, 1)?)?))
            }
            _ => Ok((String::new(), String::new())),
        }
    }

    fn assembly(&self) -> Result<Assembly, MetadataError> {
        let (name, version) = self.name_and_version()?;

        let type_count = self.tables.rows(table::TYPE_DEF);
        let mut enclosing_of: HashMap<u32, u32> = HashMap::new();
        for row in 1..=self.tables.rows(table::NESTED_CLASS) {
            enclosing_of.insert(self.cell(table::NESTED_CLASS, row, 0)?, self.cell(table::NESTED_CLASS, row, 1)?);
        }
        let generics = self.generic_parameters()?;
        let constraints = self.generic_constraints()?;
        let (obsolete, compilation_mapping) = self.attributes()?;
        let semantics = self.method_semantics()?;
        let mut accessors_by_association: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
        for (method, (flags, association)) in &semantics {
            accessors_by_association.entry(*association).or_default().push((*method, *flags));
        }
        let property_maps = self.map_rows(table::PROPERTY_MAP)?;
        let event_maps = self.map_rows(table::EVENT_MAP)?;
        let lists = OwnedLists { accessors_by_association, property_maps, event_maps };

        let mut types = Vec::with_capacity(type_count as usize);
        // Row 1 is the `<Module>` pseudo-type holding global members; it is not listed.
        let mut index_of_row: HashMap<u32, usize> = HashMap::new();
        for row in 2..=type_count {
            index_of_row.insert(row, (row - 2) as usize);
        }
        for row in 2..=type_count {
            let flags = self.cell(table::TYPE_DEF, row, 0)?;
            let metadata_name = self.string(self.cell(table::TYPE_DEF, row, 1)?)?;
            let namespace = self.string(self.cell(table::TYPE_DEF, row, 2)?)?;
            let extends = self.cell(table::TYPE_DEF, row, 3)?;
            let base = match Coded::TypeDefOrRef.decode(extends)? {
                (_, 0) => (String::new(), String::new()),
                (table_number, base_row) => self.type_identity(table_number, base_row)?,
            };
            let type_token = Coded::HasCustomAttribute.encode(table::TYPE_DEF, row).unwrap_or(u32::MAX);
            let mut kind = if flags & 0x20 != 0 {
                "interface"
            } else {
                match (base.0.as_str(), base.1.as_str()) {
                    ("System", "Enum") => "enum",
                    ("System", "ValueType") if !(namespace == "System" && metadata_name == "Enum") => "struct",
                    ("System", "MulticastDelegate") => "delegate",
                    _ => "class",
                }
            };
            if let Some(fsharp) = compilation_mapping.get(&type_token).copied().and_then(fsharp_kind) {
                kind = fsharp;
            }
            let type_parameters = generics.get(&(table::TYPE_DEF, row)).cloned().unwrap_or_default();
            let type_scope = GenericScope { type_parameters: &type_parameters, method_parameters: &[] };
            let generic_constraints = self.constraint_clauses(&constraints, (table::TYPE_DEF, row), type_scope)?;
            let scope_names = &type_parameters;
            let mut members = Vec::new();
            let mut method_names = Vec::new();
            for method_row in self.list_range(table::TYPE_DEF, row, 5, table::METHOD_DEF, table::METHOD_PTR)? {
                let method = self.method(
                    method_row,
                    scope_names,
                    &generics,
                    &constraints,
                    &obsolete,
                    semantics.contains_key(&method_row),
                )?;
                method_names.push(method.name.clone());
                members.push(method);
            }
            for field_row in self.list_range(table::TYPE_DEF, row, 4, table::FIELD, table::FIELD_PTR)? {
                members.push(self.field(field_row, scope_names, &obsolete)?);
            }
            members.extend(self.properties_and_events(row, scope_names, &obsolete, &lists)?);
            types.push(TypeInfo {
                display_name: without_arity(&metadata_name).to_owned(),
                full_name: String::new(),
                namespace,
                metadata_name,
                enclosing: enclosing_of.get(&row).and_then(|enclosing| index_of_row.get(enclosing).copied()),
                kind,
                accessibility: Accessibility::of_type(flags),
                is_visible_outside: false,
                is_abstract: flags & 0x80 != 0 && flags & 0x20 == 0,
                is_obsolete: obsolete.contains(&type_token),
                generic_parameters: type_parameters,
                generic_constraints,
                members,
                method_names,
                forwarded_to: None,
            });
        }
        name_nested_types(&mut types)?;
        types.extend(self.forwarders()?);
        Ok(Assembly { name, version, runtime_version: self.streams.runtime_version.clone(), types })
    }

    /// The assembly's name and version (`a.b.c.d`), or a module's name without its extension
    /// and no version.
    fn name_and_version(&self) -> Result<(String, String), MetadataError> {
        let name_and_version = if self.tables.rows(table::ASSEMBLY) > 0 {
            let version = (1..=4)
                .map(|column| self.cell(table::ASSEMBLY, 1, column).map(|part| part.to_string()))
                .collect::<Result<Vec<_>, _>>()?
                .join(".");
            (self.string(self.cell(table::ASSEMBLY, 1, 7)?)?, version)
        } else if self.tables.rows(table::MODULE) > 0 {
            let module = self.string(self.cell(table::MODULE, 1, 1)?)?;
            (module.trim_end_matches(".dll").trim_end_matches(".exe").to_owned(), String::new())
        } else {
            return Err(MetadataError::malformed("neither an Assembly nor a Module row"));
        };
        Ok(name_and_version)
    }

    /// Generic parameter names by owner (TypeDef or MethodDef row), in declaration order.
    fn generic_parameters(&self) -> Result<HashMap<(usize, u32), Vec<String>>, MetadataError> {
        let mut numbered: HashMap<(usize, u32), Vec<(u32, String)>> = HashMap::new();
        for row in 1..=self.tables.rows(table::GENERIC_PARAM) {
            let number = self.cell(table::GENERIC_PARAM, row, 0)?;
            let owner = Coded::TypeOrMethodDef.decode(self.cell(table::GENERIC_PARAM, row, 2)?)?;
            let name = self.string(self.cell(table::GENERIC_PARAM, row, 3)?)?;
            numbered.entry(owner).or_default().push((number, name));
        }
        Ok(numbered
            .into_iter()
            .map(|(owner, mut names)| {
                names.sort();
                (owner, names.into_iter().map(|(_, name)| name).collect())
            })
            .collect())
    }

    /// Constraints by owner: for each generic parameter (by number), its flags and the
    /// TypeDefOrRef values of its constraint types.
    fn generic_constraints(&self) -> Result<GenericConstraints, MetadataError> {
        let mut by_parameter: HashMap<u32, Vec<u32>> = HashMap::new();
        for row in 1..=self.tables.rows(table::GENERIC_PARAM_CONSTRAINT) {
            let parameter = self.cell(table::GENERIC_PARAM_CONSTRAINT, row, 0)?;
            by_parameter.entry(parameter).or_default().push(self.cell(table::GENERIC_PARAM_CONSTRAINT, row, 1)?);
        }
        let mut by_owner: GenericConstraints = HashMap::new();
        for row in 1..=self.tables.rows(table::GENERIC_PARAM) {
            let flags = self.cell(table::GENERIC_PARAM, row, 1)?;
            let types = by_parameter.remove(&row).unwrap_or_default();
            if flags & 0x1C == 0 && types.is_empty() {
                continue;
            }
            let number = self.cell(table::GENERIC_PARAM, row, 0)?;
            let owner = Coded::TypeOrMethodDef.decode(self.cell(table::GENERIC_PARAM, row, 2)?)?;
            by_owner.entry(owner).or_default().push((number, flags, types));
        }
        Ok(by_owner)
    }

    /// `T : IComparable<T>, new()` clauses of an owner's constrained generic parameters.
    fn constraint_clauses(
        &self,
        constraints: &GenericConstraints,
        owner: (usize, u32),
        scope: GenericScope<'_>,
    ) -> Result<Vec<String>, MetadataError> {
        let Some(parameters) = constraints.get(&owner) else { return Ok(Vec::new()) };
        let names = if owner.0 == table::METHOD_DEF { scope.method_parameters } else { scope.type_parameters };
        let mut clauses = Vec::new();
        for (number, flags, types) in parameters {
            let mut parts = Vec::new();
            if flags & 0x04 != 0 {
                parts.push("class".to_owned());
            }
            if flags & 0x08 != 0 {
                parts.push("struct".to_owned());
            }
            for constraint in types {
                let rendered = match Coded::TypeDefOrRef.decode(*constraint)? {
                    (_, 0) => continue,
                    (table::TYPE_SPEC, row) => {
                        type_spec(self.blob(self.cell(table::TYPE_SPEC, row, 0)?)?, self, scope, 0)?
                    }
                    (table_number, row) => self.type_name(table_number, row, 0)?,
                };
                // `struct` already implies System.ValueType.
                if !(rendered == "ValueType" && flags & 0x08 != 0) {
                    parts.push(rendered);
                }
            }
            if flags & 0x10 != 0 && flags & 0x08 == 0 {
                parts.push("new()".to_owned());
            }
            let name = names.get(*number as usize).cloned().unwrap_or_else(|| format!("T{number}"));
            clauses.push(format!("{name} : {}", parts.join(", ")));
        }
        Ok(clauses)
    }

    /// The HasCustomAttribute tokens marked `[Obsolete]`, and the SourceConstructFlags of
    /// F#'s `CompilationMappingAttribute` by token.
    #[allow(clippy::type_complexity)]
    fn attributes(&self) -> Result<(HashSet<u32>, HashMap<u32, u32>), MetadataError> {
        let mut obsolete = HashSet::new();
        let mut mapping = HashMap::new();
        let mut constructor_types: HashMap<u32, (String, String)> = HashMap::new();
        for row in 1..=self.tables.rows(table::CUSTOM_ATTRIBUTE) {
            let parent = self.cell(table::CUSTOM_ATTRIBUTE, row, 0)?;
            let constructor = self.cell(table::CUSTOM_ATTRIBUTE, row, 1)?;
            let attribute_type = match constructor_types.get(&constructor) {
                Some(found) => found.clone(),
                None => {
                    let found = self.attribute_type(constructor)?;
                    constructor_types.insert(constructor, found.clone());
                    found
                }
            };
            match (attribute_type.0.as_str(), attribute_type.1.as_str()) {
                ("System", "ObsoleteAttribute") => {
                    obsolete.insert(parent);
                }
                ("Microsoft.FSharp.Core", "CompilationMappingAttribute") => {
                    let value = self.blob(self.cell(table::CUSTOM_ATTRIBUTE, row, 2)?)?;
                    let mut reader = ByteReader::new(value);
                    if reader.u16("attribute prolog").ok() == Some(1)
                        && let Ok(flags) = reader.u32("SourceConstructFlags")
                    {
                        mapping.insert(parent, flags);
                    }
                }
                _ => {}
            }
        }
        Ok((obsolete, mapping))
    }

    /// Namespace and name of the type declaring an attribute constructor.
    fn attribute_type(&self, constructor: u32) -> Result<(String, String), MetadataError> {
        let (table_number, row) = Coded::CustomAttributeType.decode(constructor)?;
        if row == 0 {
            return Ok((String::new(), String::new()));
        }
        match table_number {
            table::MEMBER_REF => {
                let (parent_table, parent_row) =
                    Coded::MemberRefParent.decode(self.cell(table::MEMBER_REF, row, 0)?)?;
                if parent_row == 0 {
                    return Ok((String::new(), String::new()));
                }
                self.type_identity(parent_table, parent_row)
            }
            table::METHOD_DEF => {
                // The TypeDef whose method list holds this row.
                let mut owner = 0;
                for type_row in 1..=self.tables.rows(table::TYPE_DEF) {
                    if self.cell(table::TYPE_DEF, type_row, 5)? <= row {
                        owner = type_row;
                    } else {
                        break;
                    }
                }
                if owner == 0 { Ok((String::new(), String::new())) } else { self.type_identity(table::TYPE_DEF, owner) }
            }
            _ => Ok((String::new(), String::new())),
        }
    }

    /// MethodDef row → (semantics flags, HasSemantics association) of accessors.
    fn method_semantics(&self) -> Result<HashMap<u32, (u32, u32)>, MetadataError> {
        let mut semantics = HashMap::new();
        for row in 1..=self.tables.rows(table::METHOD_SEMANTICS) {
            let flags = self.cell(table::METHOD_SEMANTICS, row, 0)?;
            let method = self.cell(table::METHOD_SEMANTICS, row, 1)?;
            let association = self.cell(table::METHOD_SEMANTICS, row, 2)?;
            semantics.insert(method, (flags, association));
        }
        Ok(semantics)
    }

    fn method(
        &self,
        row: u32,
        type_parameters: &[String],
        generics: &HashMap<(usize, u32), Vec<String>>,
        constraints: &GenericConstraints,
        obsolete: &HashSet<u32>,
        is_accessor: bool,
    ) -> Result<MemberInfo, MetadataError> {
        let flags = self.cell(table::METHOD_DEF, row, 2)? as u16;
        let name = self.string(self.cell(table::METHOD_DEF, row, 3)?)?;
        let method_parameters = generics.get(&(table::METHOD_DEF, row)).cloned().unwrap_or_default();
        let scope = GenericScope { type_parameters, method_parameters: &method_parameters };
        let signature = method_signature(self.blob(self.cell(table::METHOD_DEF, row, 4)?)?, self, scope)?;
        let mut parameter_names: HashMap<u32, String> = HashMap::new();
        for parameter_row in self.list_range(table::METHOD_DEF, row, 5, table::PARAM, table::PARAM_PTR)? {
            let sequence = self.cell(table::PARAM, parameter_row, 1)?;
            parameter_names.insert(sequence, self.string(self.cell(table::PARAM, parameter_row, 2)?)?);
        }
        let is_static = flags & 0x10 != 0;
        let is_constructor = name == ".ctor" || name == ".cctor";
        let mut rendered =
            render_method(&name, is_static, is_constructor, &signature, &method_parameters, &parameter_names);
        for clause in self.constraint_clauses(constraints, (table::METHOD_DEF, row), scope)? {
            rendered.push_str(" where ");
            rendered.push_str(&clause);
        }
        Ok(MemberInfo {
            kind: if is_constructor { MemberKind::Constructor } else { MemberKind::Method },
            signature: rendered,
            accessibility: Accessibility::of_member(flags),
            is_static,
            is_abstract: flags & 0x400 != 0,
            is_obsolete: obsolete
                .contains(&Coded::HasCustomAttribute.encode(table::METHOD_DEF, row).unwrap_or(u32::MAX)),
            generic_parameters: method_parameters,
            is_hidden: is_accessor,
            name,
        })
    }

    fn field(
        &self,
        row: u32,
        type_parameters: &[String],
        obsolete: &HashSet<u32>,
    ) -> Result<MemberInfo, MetadataError> {
        let flags = self.cell(table::FIELD, row, 0)? as u16;
        let name = self.string(self.cell(table::FIELD, row, 1)?)?;
        let scope = GenericScope { type_parameters, method_parameters: &[] };
        let field_type = field_type(self.blob(self.cell(table::FIELD, row, 2)?)?, self, scope)?;
        let is_static = flags & 0x10 != 0;
        let is_literal = flags & 0x40 != 0;
        let prefix = match (is_literal, is_static) {
            (true, _) => "const ",
            (false, true) => "static ",
            _ => "",
        };
        Ok(MemberInfo {
            signature: format!("{prefix}{name} : {field_type}"),
            is_hidden: name.ends_with('@')
                || name.contains("k__BackingField")
                || flags & 0x400 != 0 && name == "value__",
            name,
            kind: MemberKind::Field,
            accessibility: Accessibility::of_member(flags),
            is_static,
            is_abstract: false,
            is_obsolete: obsolete.contains(&Coded::HasCustomAttribute.encode(table::FIELD, row).unwrap_or(u32::MAX)),
            generic_parameters: Vec::new(),
        })
    }

    /// TypeDef row → row of a map table (PropertyMap, EventMap) that owns its list.
    fn map_rows(&self, map_table: usize) -> Result<HashMap<u32, u32>, MetadataError> {
        let mut rows = HashMap::new();
        for map_row in 1..=self.tables.rows(map_table) {
            rows.insert(self.cell(map_table, map_row, 0)?, map_row);
        }
        Ok(rows)
    }

    /// A list owned through a map table by TypeDef `type_row`.
    fn mapped_list(
        &self,
        map_table: usize,
        map_rows: &HashMap<u32, u32>,
        type_row: u32,
        target_table: usize,
        pointer_table: usize,
    ) -> Result<Vec<u32>, MetadataError> {
        match map_rows.get(&type_row) {
            Some(map_row) => self.list_range(map_table, *map_row, 1, target_table, pointer_table),
            None => Ok(Vec::new()),
        }
    }

    fn properties_and_events(
        &self,
        type_row: u32,
        type_parameters: &[String],
        obsolete: &HashSet<u32>,
        lists: &OwnedLists,
    ) -> Result<Vec<MemberInfo>, MetadataError> {
        let mut members = Vec::new();
        let scope = GenericScope { type_parameters, method_parameters: &[] };
        // Accessors by association, for accessibility, staticness and abstractness.
        let accessors = |association: u32| -> Vec<(u32, u32)> {
            lists.accessors_by_association.get(&association).cloned().unwrap_or_default()
        };
        let summarize = |association: u32| -> Result<(Accessibility, bool, bool, Vec<&'static str>), MetadataError> {
            let mut best: Option<Accessibility> = None;
            let mut is_static = false;
            let mut is_abstract = false;
            let mut kinds = Vec::new();
            let mut list = accessors(association);
            list.sort_by_key(|(_, flags)| *flags);
            for (method, flags) in list {
                let method_flags = self.cell(table::METHOD_DEF, method, 2)? as u16;
                let accessibility = Accessibility::of_member(method_flags);
                if best.is_none_or(|current| accessibility.rank() > current.rank()) {
                    best = Some(accessibility);
                }
                is_static |= method_flags & 0x10 != 0;
                is_abstract |= method_flags & 0x400 != 0;
                match flags {
                    0x02 => kinds.push("get"),
                    0x01 => kinds.push("set"),
                    _ => {}
                }
            }
            kinds.sort_unstable();
            Ok((best.unwrap_or(Accessibility::Private), is_static, is_abstract, kinds))
        };
        for row in
            self.mapped_list(table::PROPERTY_MAP, &lists.property_maps, type_row, table::PROPERTY, table::PROPERTY_PTR)?
        {
            let name = self.string(self.cell(table::PROPERTY, row, 1)?)?;
            let signature = property_signature(self.blob(self.cell(table::PROPERTY, row, 2)?)?, self, scope)?;
            let association = Coded::HasSemantics.encode(table::PROPERTY, row).unwrap_or(u32::MAX);
            let (accessibility, is_static, is_abstract, kinds) = summarize(association)?;
            let index = if signature.parameters.is_empty() {
                String::new()
            } else {
                format!("[{}]", signature.parameters.join(", "))
            };
            let kinds: Vec<&str> = kinds.into_iter().rev().collect(); // get before set
            members.push(MemberInfo {
                signature: format!(
                    "{}{name}{index} : {} {{ {} }}",
                    if is_static { "static " } else { "" },
                    signature.return_type,
                    kinds.join("; ")
                ),
                name,
                kind: MemberKind::Property,
                accessibility,
                is_static,
                is_abstract,
                is_obsolete: obsolete
                    .contains(&Coded::HasCustomAttribute.encode(table::PROPERTY, row).unwrap_or(u32::MAX)),
                generic_parameters: Vec::new(),
                is_hidden: false,
            });
        }
        for row in self.mapped_list(table::EVENT_MAP, &lists.event_maps, type_row, table::EVENT, table::EVENT_PTR)? {
            let name = self.string(self.cell(table::EVENT, row, 1)?)?;
            let event_type = match Coded::TypeDefOrRef.decode(self.cell(table::EVENT, row, 2)?)? {
                (_, 0) => "obj".to_owned(),
                (table_number, event_row) => self.type_name(table_number, event_row, 0)?,
            };
            let association = Coded::HasSemantics.encode(table::EVENT, row).unwrap_or(u32::MAX);
            let (accessibility, is_static, is_abstract, _) = summarize(association)?;
            members.push(MemberInfo {
                signature: format!("{}event {name} : {event_type}", if is_static { "static " } else { "" }),
                name,
                kind: MemberKind::Event,
                accessibility,
                is_static,
                is_abstract,
                is_obsolete: obsolete
                    .contains(&Coded::HasCustomAttribute.encode(table::EVENT, row).unwrap_or(u32::MAX)),
                generic_parameters: Vec::new(),
                is_hidden: false,
            });
        }
        Ok(members)
    }

    /// Public type forwarders (ExportedType rows implemented by an AssemblyRef).
    fn forwarders(&self) -> Result<Vec<TypeInfo>, MetadataError> {
        let mut forwarded = Vec::new();
        for row in 1..=self.tables.rows(table::EXPORTED_TYPE) {
            let flags = self.cell(table::EXPORTED_TYPE, row, 0)?;
            let (implementation_table, implementation_row) =
                Coded::Implementation.decode(self.cell(table::EXPORTED_TYPE, row, 4)?)?;
            if implementation_table != table::ASSEMBLY_REF || implementation_row == 0 {
                continue;
            }
            let metadata_name = self.string(self.cell(table::EXPORTED_TYPE, row, 2)?)?;
            let namespace = self.string(self.cell(table::EXPORTED_TYPE, row, 3)?)?;
            let target = self.string(self.cell(table::ASSEMBLY_REF, implementation_row, 6)?)?;
            let display_name = without_arity(&metadata_name).to_owned();
            let accessibility = Accessibility::of_type(flags);
            forwarded.push(TypeInfo {
                full_name: if namespace.is_empty() {
                    display_name.clone()
                } else {
                    format!("{namespace}.{display_name}")
                },
                display_name,
                namespace,
                metadata_name,
                enclosing: None,
                kind: "forwarder",
                accessibility,
                is_visible_outside: accessibility.is_visible_outside(),
                is_abstract: false,
                is_obsolete: false,
                generic_parameters: Vec::new(),
                generic_constraints: Vec::new(),
                members: Vec::new(),
                method_names: Vec::new(),
                forwarded_to: Some(target),
            });
        }
        Ok(forwarded)
    }
}

impl TypeNameSource for Reader<'_, '_> {
    fn type_name(&self, table_number: usize, row: u32, depth: usize) -> Result<String, MetadataError> {
        match table_number {
            table::TYPE_DEF | table::TYPE_REF => {
                let (_, name) = self.type_identity(table_number, row)?;
                Ok(without_arity(&name).to_owned())
            }
            table::TYPE_SPEC => {
                let blob = self.blob(self.cell(table::TYPE_SPEC, row, 0)?)?;
                type_spec(blob, self, GenericScope::default(), depth)
            }
            other => Err(MetadataError::malformed(format!("a signature refers to table {other:#x}"))),
        }
    }
}

fn render_method(
    name: &str,
    is_static: bool,
    is_constructor: bool,
    signature: &MethodSignature,
    generic_parameters: &[String],
    parameter_names: &HashMap<u32, String>,
) -> String {
    let parameters: Vec<String> = signature
        .parameters
        .iter()
        .enumerate()
        .map(|(index, parameter_type)| match parameter_names.get(&(index as u32 + 1)) {
            Some(parameter_name) if !parameter_name.is_empty() => format!("{parameter_name}: {parameter_type}"),
            _ => parameter_type.clone(),
        })
        .collect();
    let generics =
        if generic_parameters.is_empty() { String::new() } else { format!("<{}>", generic_parameters.join(", ")) };
    if is_constructor {
        format!("{}new({})", if is_static { "static " } else { "" }, parameters.join(", "))
    } else {
        format!(
            "{}{name}{generics}({}) : {}",
            if is_static { "static " } else { "" },
            parameters.join(", "),
            signature.return_type
        )
    }
}

/// Full names and outside visibility follow the enclosing chain (bounded: a cycle in
/// NestedClass is malformed input, not a reason to loop).
fn name_nested_types(types: &mut [TypeInfo]) -> Result<(), MetadataError> {
    for index in 0..types.len() {
        let mut parts = vec![types[index].display_name.clone()];
        let mut visible = types[index].accessibility.is_visible_outside();
        let mut namespace = types[index].namespace.clone();
        let mut current = types[index].enclosing;
        let mut steps = 0;
        while let Some(outer) = current {
            steps += 1;
            if steps > 64 || outer == index {
                return Err(MetadataError::malformed("a cycle among nested types"));
            }
            parts.push(types[outer].display_name.clone());
            visible &= types[outer].accessibility.is_visible_outside();
            namespace = types[outer].namespace.clone();
            current = types[outer].enclosing;
        }
        if !namespace.is_empty() {
            parts.push(namespace);
        }
        parts.reverse();
        types[index].full_name = parts.join(".");
        types[index].is_visible_outside = visible;
    }
    Ok(())
}
