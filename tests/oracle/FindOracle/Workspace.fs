/// The compiler's view of a workspace: its projects (a solution at the root, else every
/// `.fsproj` below it), restored and loaded by a design-time build, checked with
/// FSharp.Compiler.Service in reference order (a project reference is the referenced project's
/// options, so uses across projects are the compiler's own), and every symbol the workspace
/// declares with all of its uses.
module Workspace

open System
open System.IO
open System.Text.RegularExpressions
open FSharp.Compiler.CodeAnalysis
open FSharp.Compiler.Symbols
open FsacDouble

/// `dotnet restore` of a solution or project, as a user does before FSAC loads it.
let private restoreSolution (path: string) =
    let result = ProjectLoader.runDotnet (Path.GetDirectoryName path) [ "restore"; path; "-nologo" ]
    if result.ExitCode <> 0 then
        failwithf "dotnet restore of %s failed (exit %d):\n%s%s" path result.ExitCode result.Stdout result.Stderr

let private skipped = set [ "bin"; "obj"; "node_modules"; ".git" ]

let rec private projectFilesBelow (directory: string) =
    seq {
        yield! Directory.EnumerateFiles(directory, "*.fsproj")
        for child in Directory.EnumerateDirectories directory do
            if not (skipped.Contains(Path.GetFileName child)) then yield! projectFilesBelow child
    }

/// The solution at the root (`.sln` or `.slnx`; the one with the most projects) and its F#
/// projects, else every `.fsproj` below the root.
let projectFiles (root: string) : string option * string list =
    let solutions =
        [ yield! Directory.EnumerateFiles(root, "*.sln"); yield! Directory.EnumerateFiles(root, "*.slnx") ]
        |> List.map (fun solution ->
            let text = File.ReadAllText solution
            let projects =
                [ for m in Regex.Matches(text, "\"([^\"]+\\.fsproj)\"") -> m.Groups[1].Value ]
                |> List.map (fun relative ->
                    Path.GetFullPath(Path.Combine(Path.GetDirectoryName solution, relative.Replace('\\', '/'))))
                |> List.filter File.Exists
                |> List.distinct
            solution, projects)
        |> List.filter (fun (_, projects) -> not (List.isEmpty projects))
    match solutions |> List.sortByDescending (fun (_, projects) -> List.length projects) with
    | (solution, projects) :: _ -> Some solution, projects
    | [] -> None, projectFilesBelow root |> Seq.map Path.GetFullPath |> Seq.sort |> List.ofSeq

/// One use of a symbol: the file (absolute) and the LSP range (0-based lines and UTF-16 columns).
type Use =
    { File: string
      StartLine: int
      StartColumn: int
      EndLine: int
      EndColumn: int
      IsDefinition: bool }

/// A symbol the workspace declares.
type Declared =
    { Key: string
      Kind: string
      DisplayName: string
      /// The names a user may write for it, dotted, most qualified first (the compiler's full
      /// name; for an extension member also the extended type's full name with the member).
      FullNames: string list
      /// The name of its parent (module, type, namespace) as `Parent.Name` queries use it.
      Parent: string option
      /// How an answer's row names it: the compiler's full name (a module's `Module` suffix
      /// included), normalized by [`normalizeLabel`].
      Label: string
      /// A module with the `Module` suffix: its label without it, which a row may carry with
      /// `symbolKind: module`.
      ModuleLabel: string option
      Declaration: Use
      Symbol: FSharpSymbol }

let private toUse (symbolUse: FSharpSymbolUse) =
    let range = symbolUse.Range
    { File = Path.GetFullPath range.FileName
      StartLine = range.StartLine - 1
      StartColumn = range.StartColumn
      EndLine = range.EndLine - 1
      EndColumn = range.EndColumn
      IsDefinition = symbolUse.IsFromDefinition }

let private lastSegment (path: string) =
    match path.LastIndexOf '.' with
    | -1 -> path
    | index -> path.Substring(index + 1)

let private entityFullName (entity: FSharpEntity) =
    try entity.FullName with _ -> entity.DisplayName

/// A symbol's full name as a label: generic arity (`` `1 ``), backticks, a nested type's `+`
/// and an operator's parentheses and spaces spelled one way, so the compiler's name and an
/// answer's `symbolFullName` compare.
let normalizeLabel (name: string) =
    let name = Regex.Replace(name, "`[0-9]+", "")
    // A generic type in a union case's full name: `Tree<_>.Leaf`.
    let name = Regex.Replace(name, "(?<=[A-Za-z0-9_'])<[_, ]*>", "")
    name.Replace("``", "").Replace('+', '.').Replace("(", "").Replace(")", "").Replace(" ", "")

/// The name a user writes for a type or module: its display name without type arguments
/// (FCS may display a generic type as `T<_>`, which nobody types in a query). Only type
/// arguments at the end are taken off: a module named in double backticks,
/// ``` ``Module with <Properties> tests`` ```, is written whole.
let private typableName (name: string) =
    match name.IndexOf '<' with
    | index when index > 0 && name.EndsWith ">" && not (name.StartsWith "(") -> name.Substring(0, index)
    | _ -> name

/// A name a user can type in a query: no compiler-generated characters (`@`, `$`, `<`, `>`
/// outside an operator or a name only double backticks can write, one with a space that
/// type arguments do not end), not empty.
let typable (name: string) =
    let operator = name.StartsWith "(" && name.EndsWith ")"
    let quoted = name.StartsWith "``" || (name.Contains ' ' && not (name.EndsWith ">"))
    name <> ""
    && not (name.Contains '@')
    && not (name.Contains '$')
    && (operator || quoted || not (name.Contains '<' || name.Contains '>'))

/// An entity's label: its full name, except that a module the compiler gives the `Module`
/// suffix (a non-generic type of the same name beside it) is named with it, as the compiler
/// compiles it. A generic type `T<'a>` (compiled ``T`1``) and a module `T` need no suffix:
/// their labels are the same, and only a row's `symbolKind` tells them apart.
let private entityLabel (entity: FSharpEntity) =
    let within (name: string) =
        match entity.AccessPath with
        | "" -> name
        | path -> path + "." + name
    if entity.IsFSharpModule && entity.HasFSharpModuleSuffix then within (entity.DisplayName + "Module")
    else
        try entity.FullName
        with _ ->
            // A type abbreviation has no compiled name: its access path and its own name.
            within entity.LogicalName

/// The label a row may also carry for a module with the `Module` suffix when the row's
/// `symbolKind` says module: its full name as displayed.
let private moduleDisplayLabel (entity: FSharpEntity) =
    if entity.IsFSharpModule && entity.HasFSharpModuleSuffix then
        try Some entity.FullName with _ -> None
    else None

/// A value's or member's label: its full name, except that the module it is declared in,
/// when the compiler gives that module the `Module` suffix, is named with it. FCS's `FullName`
/// of a value names its enclosing module by its display name (`Gen.Tr.map` for `map` of
/// `module Tr` compiled `TrModule`) but every module above it by its compiled name
/// (`Gen.TrModule.Deep.d`), as it names a field's type path (`Gen.TrModule.Inner.F`): the
/// compiled name is the one name every symbol inside the module shares.
let private valueLabel (value: FSharpMemberOrFunctionOrValue) =
    let fullName = try value.FullName with _ -> value.DisplayName
    match value.DeclaringEntity with
    | Some entity when entity.IsFSharpModule && entity.HasFSharpModuleSuffix ->
        let displayed =
            (match entity.AccessPath with
             | "" -> ""
             | path -> path + ".")
            + entity.DisplayName
            + "."
        if fullName.StartsWith displayed then entityLabel entity + "." + fullName.Substring displayed.Length
        else fullName
    | _ -> fullName

/// What the oracle asks about, and how a user names it; `None` for what is left out (locals,
/// parameters, generated code, constructors, property accessors, anonymous record fields).
/// The kind, the parent's name, the full names and the label.
let private describeAll (symbol: FSharpSymbol) : (string * string option * string list * string) option =
    let fullName () = try symbol.FullName with _ -> symbol.DisplayName
    let parentName (entity: FSharpEntity) = typableName entity.DisplayName
    match symbol with
    | :? FSharpEntity as entity when entity.IsNamespace ->
        let parent = entity.DeclaringEntity |> Option.map parentName
        Some("namespace", parent, [ fullName () ], fullName ())
    | :? FSharpEntity as entity ->
        let kind = if entity.IsFSharpModule then "module" else "type"
        let parent =
            match entity.DeclaringEntity with
            | Some parent -> Some(parentName parent)
            | None ->
                match entity.Namespace with
                | Some space -> Some(lastSegment space)
                | None -> None
        Some(kind, parent, [ fullName () ], entityLabel entity)
    | :? FSharpMemberOrFunctionOrValue as value ->
        // A property is defined by its getter (`member _.P = …`); a setter's uses are the
        // getter's too, so setters are left to their getter.
        if not value.IsModuleValueOrMember || value.IsCompilerGenerated || value.IsConstructor
           || value.IsPropertySetterMethod
           || value.IsEventAddMethod || value.IsEventRemoveMethod then
            None
        else
            let kind = if value.IsMember || value.IsExtensionMember then "member" else "value"
            let parent = value.DeclaringEntity |> Option.map parentName
            let extended =
                if value.IsExtensionMember then
                    match value.ApparentEnclosingEntity with
                    | Some extended -> (try [ entityFullName extended + "." + value.DisplayName ] with _ -> [])
                    | None -> []
                else []
            Some(kind, parent, fullName () :: extended, valueLabel value)
    | :? FSharpUnionCase as case ->
        let parent =
            if case.ReturnType.HasTypeDefinition then Some(parentName case.ReturnType.TypeDefinition) else None
        Some("union-case", parent, [ fullName () ], fullName ())
    | :? FSharpField as field ->
        if field.IsAnonRecordField || field.IsCompilerGenerated || field.IsUnionCaseField then None
        else
            Some("field", field.DeclaringEntity |> Option.map parentName, [ fullName () ], fullName ())
    | :? FSharpActivePatternCase as case ->
        // At its definition a case's `FullName` is the bare case name; its label is made in
        // [`check`] from its pattern's (see [`activePatternCaseLabel`]).
        Some("active-pattern-case", case.Group.DeclaringEntity |> Option.map parentName, [ fullName () ], fullName ())
    | _ -> None

/// [`describeAll`] of what a user can ask: a symbol whose own name or parent's name a user
/// cannot type (a generated name) is left out.
let private describe (symbol: FSharpSymbol) =
    describeAll symbol
    |> Option.filter (fun (_, parent, _, _) ->
        typable symbol.DisplayName && (parent |> Option.forall typable))

/// An active-pattern case's label: FCS's `FullName` of the case where it is used, its
/// pattern's full name and the case (`Parity.Patterns.(|Even|Odd|).Even`; `Item.ActivePatternCase`
/// in FCS's `FullNameOfItem`). At its definition FCS gives the bare case name (`Even`, an
/// `Item.ActivePatternResult`), a name every pattern with a case `Even` shares. `patterns`: the
/// active patterns declared, where, their labels and the modules declaring them; a case lies
/// in its pattern's name. The case's parent is its pattern's module: a user writes the case
/// qualified by it (`Patterns.Even`, in a pattern), and so the oracle asks it (FCS names no
/// declaring entity of a case's group).
let private activePatternCaseLabel
    (patterns: (FSharp.Compiler.Text.range * string * string option) list)
    (symbol: Declared)
    =
    match symbol.Symbol with
    | :? FSharpActivePatternCase as case ->
        let declared = case.DeclarationLocation
        patterns
        |> List.tryFind (fun (pattern, _, _) ->
            Path.GetFullPath pattern.FileName = Path.GetFullPath declared.FileName
            && FSharp.Compiler.Text.Range.rangeContainsRange pattern declared)
        |> Option.map (fun (_, label, parent) ->
            { symbol with
                Label = normalizeLabel (label + "." + case.DisplayName)
                Parent = parent |> Option.filter typable |> Option.orElse symbol.Parent })
        |> Option.defaultValue symbol
    | _ -> symbol

type Checked =
    { Root: string
      Solution: string option
      Projects: FsacDouble.ProjectLoader.LoadedProject list
      Errors: (string * string) list
      Symbols: Declared list
      /// Every project's check results.
      Results: FSharpCheckProjectResults list
      Sources: Set<string> }

/// The compiler's uses of a symbol in every project of the workspace (`GetUsesOfSymbol`, so
/// the compiler's own notion of the same symbol: a constructor call is a use of its type),
/// in the workspace's source files, each range once. The ranges are the compiler's: a
/// qualified use `M.f` starts at `M`, a generic application `T<'a>` ends after its type
/// arguments (over several lines when they are); the judge matches by containment.
let usesOf (workspace: Checked) (symbol: Declared) : Use list =
    workspace.Results
    |> List.collect (fun results -> results.GetUsesOfSymbol symbol.Symbol |> Array.map toUse |> List.ofArray)
    |> List.filter (fun used -> workspace.Sources.Contains used.File)
    |> List.distinctBy (fun used -> used.File, used.StartLine, used.StartColumn, used.EndLine, used.EndColumn)

/// Restores, loads and checks the workspace; every symbol declared in its source files.
let check (root: string) (restore: bool) (log: string -> unit) : Checked =
    let solution, projectFiles = projectFiles root
    if List.isEmpty projectFiles then failwithf "no F# project under %s" root
    match solution with
    | _ when not restore -> ()
    | Some solution -> restoreSolution solution
    | None -> projectFiles |> List.iter restoreSolution
    let loaded =
        projectFiles
        |> List.map (fun project ->
            log $"loading {Path.GetRelativePath(root, project)}"
            match ProjectLoader.load project with
            | Ok loaded -> loaded
            | Error problem -> failwithf "loading %s failed (FSAC error %d): %s" project problem.Code problem.Message)
    let byOutput =
        loaded
        |> List.collect (fun project ->
            [ project.TargetPath, project; project.Property "TargetRefPath", project ]
            |> List.filter (fun (path, _) -> path <> ""))
        |> List.map (fun (path, project) -> Path.GetFullPath path, project)
        |> dict
    let options = Collections.Generic.Dictionary<string, FSharpProjectOptions>()
    let rec optionsOf (project: ProjectLoader.LoadedProject) : FSharpProjectOptions =
        match options.TryGetValue project.ProjectFile with
        | true, known -> known
        | _ ->
            let referenced =
                project.OtherOptions
                |> List.choose (fun option ->
                    if option.StartsWith "-r:" then
                        let path = Path.GetFullPath(option.Substring 3)
                        match byOutput.TryGetValue path with
                        | true, other when other.ProjectFile <> project.ProjectFile ->
                            Some(FSharpReferencedProject.FSharpReference(path, optionsOf other))
                        | _ -> None
                    else None)
                |> Array.ofList
            let made =
                { ProjectFileName = project.ProjectFile
                  ProjectId = None
                  SourceFiles = Array.ofList project.SourceFiles
                  OtherOptions = Array.ofList project.OtherOptions
                  ReferencedProjects = referenced
                  IsIncompleteTypeCheckEnvironment = false
                  UseScriptResolutionRules = false
                  LoadTime = DateTime.Now
                  UnresolvedReferences = None
                  OriginalLoadReferences = []
                  Stamp = None }
            options[project.ProjectFile] <- made
            made
    let checker = FSharpChecker.Create(keepAssemblyContents = false, keepAllBackgroundResolutions = false)
    let sources = loaded |> List.collect (fun project -> project.SourceFiles) |> Set.ofList
    // What the workspace declares: a compile item a package adds (the test SDK's
    // `AutoGeneratedProgram`, under ~/.nuget) is code the user does not own or index.
    let underRoot (file: string) =
        file.StartsWith(Path.TrimEndingDirectorySeparator(Path.GetFullPath root) + string Path.DirectorySeparatorChar)
    let symbols = Collections.Generic.Dictionary<string, Declared>()
    // Every active pattern declared (`(|Even|Odd|)`): where, and its label.
    let patterns = ResizeArray<FSharp.Compiler.Text.range * string * string option>()
    let errors = ResizeArray()
    let results =
        [ for project in loaded do
              log $"checking {Path.GetRelativePath(root, project.ProjectFile)} ({project.TargetFramework})"
              let previous = Environment.CurrentDirectory
              Environment.CurrentDirectory <- Path.GetDirectoryName project.ProjectFile
              let results = checker.ParseAndCheckProject(optionsOf project) |> Async.RunSynchronously
              Environment.CurrentDirectory <- previous
              for diagnostic in results.Diagnostics do
                  if diagnostic.Severity = FSharp.Compiler.Diagnostics.FSharpDiagnosticSeverity.Error then
                      errors.Add(project.ProjectFile, $"{diagnostic.Range.FileName}({diagnostic.StartLine},{diagnostic.StartColumn}): FS{diagnostic.ErrorNumber:D4} {diagnostic.Message}")
              for symbolUse in results.GetAllUsesOfAllSymbols() do
                  let symbol = symbolUse.Symbol
                  match symbol with
                  | :? FSharpMemberOrFunctionOrValue as value when value.IsActivePattern && symbolUse.IsFromDefinition ->
                      let parent =
                          value.DeclaringEntity
                          |> Option.map (fun entity -> typableName entity.DisplayName)
                      patterns.Add(value.DeclarationLocation, valueLabel value, parent)
                  | _ -> ()
                  match symbol.DeclarationLocation with
                  | Some declaration when
                      symbolUse.IsFromDefinition
                      && sources.Contains(Path.GetFullPath declaration.FileName)
                      && underRoot (Path.GetFullPath declaration.FileName) ->
                      match describe symbol with
                      | Some(kind, parent, fullNames, label) ->
                          let key =
                              $"{kind}|{Path.GetFullPath declaration.FileName}|{declaration.StartLine}|{declaration.StartColumn}|{symbol.DisplayName}"
                          if not (symbols.ContainsKey key) then
                              symbols[key] <-
                                  { Key = key
                                    Kind = kind
                                    DisplayName = symbol.DisplayName
                                    FullNames = fullNames
                                    Parent = parent
                                    Label = normalizeLabel label
                                    ModuleLabel =
                                      match symbol with
                                      | :? FSharpEntity as entity -> moduleDisplayLabel entity |> Option.map normalizeLabel
                                      | _ -> None
                                    Declaration =
                                      { File = Path.GetFullPath declaration.FileName
                                        StartLine = declaration.StartLine - 1
                                        StartColumn = declaration.StartColumn
                                        EndLine = declaration.EndLine - 1
                                        EndColumn = declaration.EndColumn
                                        IsDefinition = true }
                                    Symbol = symbol }
                      | None -> ()
                  | _ -> ()
              yield results ]
    { Root = root
      Solution = solution
      Projects = loaded
      Errors = List.ofSeq errors
      Symbols =
        symbols.Values
        |> List.ofSeq
        |> List.map (activePatternCaseLabel (List.ofSeq patterns))
        |> List.sortBy (fun symbol -> symbol.Key)
      Results = results
      Sources = sources }
