/// Dumps the TypeDefs of .NET assemblies with System.Reflection.Metadata: the independent
/// source that tests/it/metadata_against_srm.rs compares fslens's ECMA-335 reader with.
///
///     dotnet MetadataDump.dll A.dll [B.dll …]
///
/// Prints one JSON object: {"<path>": {"assembly": name, "types": [...]}}, each type with its
/// namespace, name, the row of its enclosing type (0 when not nested), its visibility, its
/// methods and fields with their accessibility, and its property and event names, in table
/// order. The `<Module>` row (row 1) is left out.
module MetadataDump

open System.IO
open System.Reflection
open System.Reflection.Metadata
open System.Reflection.Metadata.Ecma335
open System.Reflection.PortableExecutable
open System.Text.Json.Nodes

let typeVisibility (attributes: TypeAttributes) =
    match attributes &&& TypeAttributes.VisibilityMask with
    | TypeAttributes.Public
    | TypeAttributes.NestedPublic -> "public"
    | TypeAttributes.NestedPrivate -> "private"
    | TypeAttributes.NestedFamily -> "protected"
    | TypeAttributes.NestedAssembly -> "internal"
    | TypeAttributes.NestedFamANDAssem -> "private protected"
    | TypeAttributes.NestedFamORAssem -> "protected internal"
    | _ -> "internal"

/// Method and field access share their encoding (ECMA-335 II.23.1.5 and II.23.1.10).
let memberAccess (access: int) =
    match access with
    | 1 -> "private"
    | 2 -> "private protected"
    | 3 -> "internal"
    | 4 -> "protected"
    | 5 -> "protected internal"
    | 6 -> "public"
    | _ -> "private" // PrivateScope (compiler-controlled)

let entry (name: string) (access: string) =
    JsonObject(dict [ "name", JsonValue.Create name :> JsonNode; "access", JsonValue.Create access :> JsonNode ])

let dump (path: string) : JsonNode =
    use stream = File.OpenRead path
    use pe = new PEReader(stream)
    let reader = pe.GetMetadataReader()
    let text (handle: StringHandle) = reader.GetString handle
    let types = JsonArray()
    for handle in reader.TypeDefinitions do
        let row = MetadataTokens.GetRowNumber(TypeDefinitionHandle.op_Implicit handle: EntityHandle)
        if row <> 1 then
            let definition = reader.GetTypeDefinition handle
            let declaring = definition.GetDeclaringType()
            let enclosingRow =
                if declaring.IsNil then 0
                else MetadataTokens.GetRowNumber(TypeDefinitionHandle.op_Implicit declaring: EntityHandle)
            let methods = JsonArray()
            for methodHandle in definition.GetMethods() do
                let m = reader.GetMethodDefinition methodHandle
                methods.Add(entry (text m.Name) (memberAccess (int (m.Attributes &&& MethodAttributes.MemberAccessMask))))
            let fields = JsonArray()
            for fieldHandle in definition.GetFields() do
                let f = reader.GetFieldDefinition fieldHandle
                fields.Add(entry (text f.Name) (memberAccess (int (f.Attributes &&& FieldAttributes.FieldAccessMask))))
            let properties = JsonArray()
            for propertyHandle in definition.GetProperties() do
                properties.Add(JsonValue.Create(text (reader.GetPropertyDefinition propertyHandle).Name))
            let events = JsonArray()
            for eventHandle in definition.GetEvents() do
                events.Add(JsonValue.Create(text (reader.GetEventDefinition eventHandle).Name))
            let info = JsonObject()
            info["row"] <- JsonValue.Create row
            info["namespace"] <- JsonValue.Create(text definition.Namespace)
            info["name"] <- JsonValue.Create(text definition.Name)
            info["enclosingRow"] <- JsonValue.Create enclosingRow
            info["visibility"] <- JsonValue.Create(typeVisibility definition.Attributes)
            info["methods"] <- methods
            info["fields"] <- fields
            info["properties"] <- properties
            info["events"] <- events
            types.Add info
    let result = JsonObject()
    result["assembly"] <-
        if reader.IsAssembly then JsonValue.Create(text (reader.GetAssemblyDefinition().Name)) :> JsonNode else null
    result["types"] <- types
    result

[<EntryPoint>]
let main arguments =
    let all = JsonObject()
    for path in arguments do
        all[path] <- dump path
    stdout.Write(all.ToJsonString())
    0
