/// The LSP server: lifecycle, workspace loading with FSAC's notifications, document sync with
/// background checks and diagnostics, and every request FSAC 0.83.0 advertises, answered by FCS.
module FsacDouble.Server

open System
open System.IO
open System.Text
open System.Text.Json.Nodes
open System.Threading
open System.Threading.Tasks
open System.Collections.Concurrent
open FSharp.Compiler.CodeAnalysis
open FSharp.Compiler.EditorServices
open FSharp.Compiler.Symbols
open FSharp.Compiler.Text
open FSharp.Compiler.Diagnostics
open FsacDouble.Json
open FsacDouble.Transport
open FsacDouble.Workspace

let INTERNAL_ERROR = -32603
let REQUEST_CANCELLED = -32800
let METHOD_NOT_FOUND = -32601
/// FSAC's LSP library reports unexpected handler exceptions with InvalidParams.
let FSAC_EXCEPTION_CODE = -32602

exception LspError of code: int * message: string
exception Cancelled

// ---- URIs ------------------------------------------------------------------------------------

let private bare =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/.-_~" |> Seq.map byte |> Set.ofSeq

/// A path as FSAC writes it in a URI: every byte but letters, digits and `+/.-_~` is %XX.
let uriOfPath (file: string) =
    let sb = StringBuilder()
    for b in Encoding.UTF8.GetBytes(file.Replace('\\', '/')) do
        if bare.Contains b then sb.Append(char b) |> ignore else sb.Append('%').Append(b.ToString "X2") |> ignore
    let e = sb.ToString()
    if e.StartsWith "//" then "file:" + e else "file:///" + e.TrimStart('/')

let pathOf (uri: string) =
    if not (uri.StartsWith "file:") then uri
    else
        try Path.GetFullPath(Uri(uri).LocalPath) with _ -> uri

let uriFor (file: string) =
    match documents.TryGetValue file with
    | true, d when not (d.Uri.StartsWith "file:") -> d.Uri
    | _ -> if file.StartsWith "untitled:" then file else uriOfPath file

// ---- state -----------------------------------------------------------------------------------

let mutable clientCaps: JsonNode = null
let mutable rootPath = Environment.CurrentDirectory
let mutable autoProjects: string list option = None
let mutable loadStarted = false
let mutable shutdownReceived = false
let firstLoad = TaskCompletionSource<unit>(TaskCreationOptions.RunContinuationsAsynchronously)
let mutable ready: Task = Task.CompletedTask
let private loadLock = new SemaphoreSlim(1, 1)

let capability (names: string list) = path names clientCaps
let canPublish () = not (isNull (capability [ "textDocument"; "publishDiagnostics" ]))

let envelope kind (data: JsonNode) = obj [ "content", str (serialize (obj [ "Kind", str kind; "Data", data ])) ]
let notifyWorkspace kind data = notify "fsharp/notifyWorkspace" (envelope kind data)

// ---- loading ---------------------------------------------------------------------------------

let private projectData (p: Project) : JsonNode =
    let l = p.Loaded
    let dir = Path.GetDirectoryName p.Path
    let tfi = l.Property "TargetFrameworkIdentifier"
    let tfv = l.Property "TargetFrameworkVersion"
    let generated (f: string) =
        Path.GetFileName f = Path.GetFileNameWithoutExtension p.Path + ".AssemblyInfo.fs"
        || Path.GetFileName f = $"{tfi},Version={tfv}.AssemblyAttributes.fs"
        || f.EndsWith ".AssemblyInfo.fs" && f.Contains "/obj/"
    let files = l.SourceFiles |> List.filter (generated >> not)
    let link (f: string) = l.CompileItems |> List.tryPick (fun c -> if c.FullPath = f then c.Link else None)
    let virtualPath (f: string) =
        match link f with
        | Some link -> link.Replace('\\', '/')
        | None ->
            if f.StartsWith(dir + "/") then f.Substring(dir.Length + 1) else Path.GetFileName f
    let bool' name = String.Equals(l.Property name, "true", StringComparison.OrdinalIgnoreCase)
    let tfs = match l.Property "TargetFrameworks" with "" -> [ l.TargetFramework ] | s -> s.Split(';') |> List.ofArray
    obj
        [ "Project", str p.Path
          "Files", arr (files |> List.map str)
          "Output", str l.TargetPath
          "ProjectReferences", arr (l.ProjectReferences |> List.map (fun (r, f) -> obj [ "RelativePath", str r; "ProjectFileName", str f ]))
          "PackageReferences", arr (l.PackageReferences |> List.map (fun r -> obj [ "Name", str r.Name; "Version", str r.Version; "FullPath", str r.FullPath ]))
          "References", arr (l.References |> List.sortBy Path.GetFileName |> List.map str)
          "OutputType", str l.OutputType
          "Info",
          obj
              [ "IsTestProject", bool (bool' "IsTestProject")
                "Configuration", str (l.Property "Configuration")
                "IsPackable", bool (bool' "IsPackable")
                "TargetFramework", str l.TargetFramework
                "TargetFrameworkIdentifier", str tfi
                "TargetFrameworkVersion", str tfv
                "RestoreSuccess", bool true
                "TargetFrameworks", arr (tfs |> List.map str)
                "RunCmd",
                (match l.Property "RunCommand" with
                 | "" -> jnull
                 | c -> obj [ "Command", str c; "Arguments", str (l.Property "RunArguments") ])
                "IsPublishable", (match l.Property "IsPublishable" with "" -> jnull | v -> bool (v.ToLowerInvariant() = "true")) ]
          "Items", arr (files |> List.map (fun f -> obj [ "Name", str "Compile"; "FilePath", str f; "VirtualPath", str (virtualPath f); "Metadata", obj [] ]))
          "AdditionalInfo", obj [] ]

/// Loads `paths` with FSAC's notifications (protocol §6.2): projectLoading for each requested
/// path, progress, then depth-first per project projectLoading + project | error, then
/// workspaceLoad finished, then one testDetected per file.
let loadWorkspace (paths: string list) =
    task {
        do! loadLock.WaitAsync()
        try
            for p in paths do
                notifyWorkspace "projectLoading" (obj [ "Project", str p ])
            let mutable token = None
            if asBool (capability [ "window"; "workDoneProgress" ]) = Some true then
                let t = Guid.NewGuid().ToString()
                try
                    let! _ = request "window/workDoneProgress/create" (obj [ "token", str t ])
                    notify "$/progress" (obj [ "token", str t; "value", obj [ "kind", str "begin"; "title", str $"Loading {paths.Length} Projects" ] ])
                    token <- Some t
                with e -> log $"progress create refused: {e.Message}"
            if Faults.slowLoadMs > 0L then do! Task.Delay(int Faults.slowLoadMs)
            let loaded = Collections.Generic.List<Project>()
            let visited = Collections.Generic.HashSet<string>()
            let rec visit (p: string) =
                if visited.Add p then
                    notifyWorkspace "projectLoading" (obj [ "Project", str p ])
                    if not (File.Exists p) then
                        notifyWorkspace "error" (obj [ "Code", num 102; "Message", str $"couldn't find project {p}"; "AdditionalData", obj [ "Project", str p ] ])
                    elif not (p.EndsWith ".fsproj") then
                        notifyWorkspace "error" (obj [ "Code", num 102; "Message", str $"Project language not supported: {p}"; "AdditionalData", obj [ "Project", str p ] ])
                    else
                        match ProjectLoader.load p with
                        | Error e ->
                            notifyWorkspace "error" (obj [ "Code", num e.Code; "Message", str e.Message; "AdditionalData", obj [ "Project", str p ] ])
                        | Ok l ->
                            for _, r in l.ProjectReferences do
                                visit r
                            let project = { Loaded = l; Path = p; Options = Unchecked.defaultof<_> }
                            loaded.Add project
                            notifyWorkspace "project" (projectData project)
            for p in paths do
                visit (Path.GetFullPath p)
            projects <- List.ofSeq loaded
            buildOptions ()
            invalidate ()
            match token with
            | Some t -> notify "$/progress" (obj [ "token", str t; "value", obj [ "kind", str "end" ] ])
            | None -> ()
            notifyWorkspace "workspaceLoad" (obj [ "Status", str "finished" ])
            let files = projects |> List.collect (fun p -> p.Sources) |> List.distinct
            for f in files do
                notify "fsharp/testDetected" (obj [ "file", str (uriOfPath f); "tests", arr [] ])
            log $"loaded {projects.Length} projects"
            // Type-check the loaded files in the background (nothing is published), so that the
            // first requests find the compiler warm and the results cached, as after FSAC's
            // parse of all files; checks of open documents and requests go first.
            if not Faults.noChecks && not Faults.lazyCompiler then
                let loadedProjects = projects
                Task.Run(fun () ->
                    task {
                        let sw = Diagnostics.Stopwatch.StartNew()
                        // Parses first (workspace/symbol and documentSymbol read them), then checks.
                        for f in files do
                            try
                                let opts = { FSharpParsingOptions.Default with SourceFiles = [| fcsName f |] }
                                do! Async.StartAsTask(checker.Value.ParseFile(fcsName f, SourceText.ofString (text f), opts)) :> Task
                            with _ -> ()
                        for p in loadedProjects do
                            for f in p.Sources do
                                if p.Options.ProjectFileName = (owners f |> List.tryHead |> Option.map (fun o -> o.Path) |> Option.defaultValue "") then
                                    try do! Async.StartAsTask(check p.Options f) :> Task with _ -> ()
                        log $"background check of the loaded files: {sw.ElapsedMilliseconds} ms"
                    } :> Task) |> ignore
        finally
            loadLock.Release() |> ignore
    }

// ---- checks and diagnostics ------------------------------------------------------------------

let private severity (d: FSharpDiagnostic) =
    match d.Severity with
    | FSharpDiagnosticSeverity.Error -> Some 1
    | FSharpDiagnosticSeverity.Warning -> Some 2
    | FSharpDiagnosticSeverity.Info -> Some 3
    | _ -> None

let lspRange (r: range) : JsonNode =
    obj
        [ "start", obj [ "line", num (r.StartLine - 1); "character", num r.StartColumn ]
          "end", obj [ "line", num (r.EndLine - 1); "character", num r.EndColumn ] ]

let diagnosticJson (d: FSharpDiagnostic) : JsonNode =
    let o = JsonObject()
    o["range"] <- lspRange d.Range
    match severity d with
    | Some s -> o["severity"] <- num s
    | None -> ()
    if d.ErrorNumber > 0 then
        o["code"] <- num d.ErrorNumber
        o["codeDescription"] <- obj [ "href", str $"https://docs.microsoft.com/en-us/dotnet/fsharp/language-reference/compiler-messages/fs%04d{d.ErrorNumber}" ]
    o["source"] <- str "F# Compiler"
    o["message"] <- str (d.Message.Replace('\u001d', '\n'))
    o["relatedInformation"] <- arr []
    o

let diagnosticsOf (file: string) (parse: FSharpParseFileResults) (results: FSharpCheckFileResults) =
    let name = fcsName file
    let seen = Collections.Generic.HashSet<string>()
    [ for d in Array.append parse.Diagnostics results.Diagnostics do
          if d.Range.FileName = name || String.Equals(Path.GetFileName d.Range.FileName, Path.GetFileName name) && isScript file then
              let j = diagnosticJson d
              if seen.Add(serialize j) then yield j ]

let private dirty = ConcurrentQueue<string>()
/// The uses FSAC_DOUBLE_REFERENCES_DROP_LAST_USE left out of a references answer (file, end line,
/// end column): the planted fault is a backend that does not know those uses, so its definition
/// at one of them answers nothing too (else fslens would resolve the use and heal the fault).
let droppedUses = ConcurrentDictionary<string, bool>()
let droppedKey (file: string) (endLine: int) (endColumn: int) = $"{file}|{endLine}|{endColumn}"

let private dirtySet = ConcurrentDictionary<string, bool>()
let mutable private draining = 0

let checkAndPublish (file: string) =
    async {
        match! optionsFor file with
        | None -> log $"Couldn't find {file} in LoadedProjects"
        | Some options ->
            match documents.TryGetValue file, Faults.slowCheckFromVersion with
            | (true, d), Some v when Faults.slowCheckMs > 0L && int64 d.Version >= v -> do! Async.Sleep(int Faults.slowCheckMs)
            | _ -> ()
            if Faults.unanalysedFiles.Contains(Path.GetFileName file) then
                log $"FSAC_DOUBLE_UNANALYSED_FILES: reporting no check of {file}"
            else
                match! checkVersioned options file with
                | None -> log $"check of {file} aborted"
                | Some(parse, results, (checkedVersion, checkedLength)) ->
                    let uri = uriFor file
                    notify "fsharp/testDetected" (obj [ "file", str uri; "tests", arr [] ])
                    let diagnostics = diagnosticsOf file parse results
                    notify "fsharp/fileParsed" (obj [ "content", str uri ])
                    if canPublish () then
                        let p = obj [ "uri", str uri; "diagnostics", arr diagnostics ]
                        if Faults.diagnosticsVersion then p["version"] <- num checkedVersion
                        notify "textDocument/publishDiagnostics" p
                    match documents.TryGetValue file with
                    | true, _ when checkedLength > 0 ->
                        notify "fsharp/documentAnalyzed" (obj [ "textDocument", obj [ "uri", str uri; "version", num checkedVersion ] ])
                    | _ -> ()
    }

let ensureAutoLoad () =
    match autoProjects with
    | Some ps when not loadStarted ->
        loadStarted <- true
        let t = loadWorkspace ps
        ready <- t
        t.ContinueWith(fun (t: Task) ->
            if t.IsFaulted then log $"load failed: {t.Exception}"
            firstLoad.TrySetResult() |> ignore) |> ignore
    | _ -> ()

let rec scheduleCheck (file: string) =
    if not Faults.noChecks then
        if dirtySet.TryAdd(file, true) then dirty.Enqueue file
        if Interlocked.CompareExchange(&draining, 1, 0) = 0 then
            Task.Run(fun () ->
                task {
                    ensureAutoLoad ()
                    try do! ready with _ -> ()
                    let mutable next = Unchecked.defaultof<string>
                    while dirty.TryDequeue(&next) do
                        dirtySet.TryRemove next |> ignore
                        try do! Async.StartAsTask(checkAndPublish next)
                        with e -> log $"check of {next} failed: {e}"
                    draining <- 0
                    if not dirty.IsEmpty then scheduleCheck (match dirty.TryPeek() with | true, f -> f | _ -> "")
                } :> Task) |> ignore

// ---- symbol resolution -----------------------------------------------------------------------

let lineOf (text: string) (line0: int) =
    let lines = text.Split('\n')
    if line0 >= 0 && line0 < lines.Length then lines[line0].TrimEnd('\r') else ""

type Context = { File: string; Options: FSharpProjectOptions; Parse: FSharpParseFileResults; Results: FSharpCheckFileResults }

/// Context of a position request: the file must be open and belong to a loaded project.
let openFile (uri: string) =
    async {
        let file = pathOf uri
        if not (documents.ContainsKey file) then raise (LspError(INTERNAL_ERROR, $"No check results found for {file}"))
        match! optionsFor file with
        | None ->
            return raise (LspError(INTERNAL_ERROR, $"Couldn't find {file} in LoadedProjects. Have the projects loaded yet or have you tried restoring your project/solution?"))
        | Some options ->
            match! check options file with
            | None -> return raise (LspError(INTERNAL_ERROR, $"No check results found for {file}"))
            | Some(p, r) -> return { File = file; Options = options; Parse = p; Results = r }
    }

/// The symbol at an LSP position as FSAC finds it (`Lexer.findLongIdents`: identifiers,
/// operators, active patterns, type parameters): (names, FCS line, column at its end, line).
let identAt (text: string) (line0: int) (character: int) =
    let lineText = lineOf text line0
    Lexer.findLongIdents character lineText |> Option.map (fun (endCol, names) -> names, line0 + 1, endCol, lineText)

let symbolAt (ctx: Context) (position: JsonNode) =
    let line0 = asInt (prop "line" position) |> Option.defaultValue 0
    let ch = asInt (prop "character" position) |> Option.defaultValue 0
    match identAt (text ctx.File) line0 ch with
    | Some(names, line, col, lineText) -> ctx.Results.GetSymbolUseAtLocation(line, col, lineText, names)
    | None -> None

let positionParams (p: JsonNode) =
    let uri = prop "textDocument" p |> prop "uri" |> asString |> Option.defaultValue ""
    uri, prop "position" p

/// A declaration in the loaded sources (or an open script): FCS's declaration location when
/// the file is one the workspace knows.
let inWorkspace (file: string) =
    projects |> List.exists (fun p -> p.Sources |> List.contains file) || documents.ContainsKey file

/// The declaration of a symbol when its file is here (sources of the workspace, files scripts
/// load, open documents); null for the reference assemblies' symbols (FSAC decompiles those).
let declarationOf (symbol: FSharpSymbol) =
    match symbol.DeclarationLocation with
    | Some r when documents.ContainsKey r.FileName || File.Exists r.FileName -> Some r
    | _ -> None

/// A declaration inside the workspace: in a loaded project's sources, an open document, or a
/// file an open script loads (rename refuses anything else as external).
let declaredInWorkspace (symbol: FSharpSymbol) =
    match declarationOf symbol with
    | Some r when inWorkspace r.FileName -> Some r
    | Some r ->
        let loadedByScript =
            documents.Keys
            |> Seq.filter isScript
            |> Seq.exists (fun s ->
                let o = optionsForScript s |> Async.RunSynchronously
                o.SourceFiles |> Array.contains r.FileName)
        if loadedByScript then Some r else None
    | None -> None

let location (r: range) : JsonNode = obj [ "uri", str (uriFor r.FileName); "range", lspRange r ]

// ---- references ------------------------------------------------------------------------------

let private identifierName (symbol: FSharpSymbol) =
    let n = symbol.DisplayNameCore
    if String.IsNullOrEmpty n then symbol.DisplayName else n

/// FSAC's range fix-up (Tokenizer.tryFixupRange): FCS gives a qualified use (`s.Weight`,
/// `Operations.create`) the range of the whole long identifier; FSAC narrows it to the
/// symbol's own name, backticks included.
let fixupRange (file: string) (name: string) (r: range) =
    let line = lineOf (text file) (r.EndLine - 1)
    if r.EndColumn > line.Length || name = "" then r
    else
        let upTo = line.Substring(0, r.EndColumn)
        let startCol =
            if upTo.EndsWith("``" + name + "``") then Some(r.EndColumn - name.Length - 4)
            elif upTo.EndsWith name then Some(r.EndColumn - name.Length)
            else
                let from = if r.StartLine = r.EndLine then r.StartColumn else 0
                match upTo.LastIndexOf name with
                | i when i >= from -> Some i
                | _ -> None
        match startCol with
        | Some c when r.StartLine <> r.EndLine || c >= r.StartColumn ->
            let endCol = if upTo.EndsWith("``" + name + "``") then r.EndColumn else c + name.Length
            Range.mkRange r.FileName (Position.mkPos r.EndLine c) (Position.mkPos r.EndLine endCol)
        | _ -> r

/// Every use of `symbol` in the projects that can see its declaration (all projects for an
/// external symbol) and the open scripts; with `onlyFile`, that file only. Cancellable
/// between files (FSAC_DOUBLE_SWEEP_DELAY_MS pauses before each).
/// The uses of `symbol` that `keep` keeps (given the parse of the use's file), in every project
/// that sees its declaration.
let findUsesWhere (keep: FSharpParseFileResults -> FSharpSymbolUse -> bool) (symbol: FSharpSymbol) (origin: Context) (ct: CancellationToken) (onlyFile: string option) =
    async {
        let decl = symbol.DeclarationLocation |> Option.map (fun r -> r.FileName)
        let searchProjects =
            match decl with
            | Some f when inWorkspace f -> seeing f
            | _ -> projects
        let name = identifierName symbol
        let targets =
            [ for p in searchProjects do
                  for f in p.Sources do
                      if onlyFile.IsNone || onlyFile = Some f then yield p.Options, f
              // Open scripts: the script and every file its #load closure compiles.
              for KeyValue(f, _) in documents do
                  if isScript f then
                      let o = optionsForScript f |> Async.RunSynchronously
                      for source in o.SourceFiles do
                          let source = if source = fcsName f then f else source
                          if onlyFile.IsNone || onlyFile = Some source then yield o, source ]
            |> List.distinctBy (fun (o, f) -> o.ProjectFileName, f)
        // Every file of those projects is searched (FSAC_DOUBLE_SWEEP_DELAY_MS pauses before
        // each); a file whose text never names the symbol is not type-checked. An attribute is
        // written without its suffix (`[<Foo>]` for `FooAttribute`), and an indexer `Item` is
        // used as `x[i]` without its name: those files are all checked.
        let spellings =
            match symbol with
            | :? FSharpMemberOrFunctionOrValue as value when value.DisplayName = "Item" -> None
            | :? FSharpEntity as entity when name.EndsWith "Attribute" && name.Length > 9 ->
                Some [ name; name.Substring(0, name.Length - 9) ]
            | _ -> Some [ name ]
        let mayName (f: string) =
            match spellings with
            | None -> true
            | Some names -> names |> List.exists (fun spelling -> (text f).Contains spelling)
        let candidates = targets
        log $"references: sweep of {candidates.Length} files for {name}"
        let found = Collections.Generic.Dictionary<string, string * range * bool>()
        let mutable searched = 0
        for options, f in candidates do
            if Faults.sweepDelayMs > 0L then do! Async.AwaitTask(Task.Delay(int Faults.sweepDelayMs))
            if ct.IsCancellationRequested then
                log $"references: cancelled after searching {searched} files"
                raise Cancelled
            searched <- searched + 1
            if not (mayName f || isScript f) then () else
            match! check options f with
            | Some(parse, results) ->
                for u in results.GetUsesOfSymbolInFile(symbol) do
                    let file = if u.Range.FileName = fcsName f then f else Path.GetFullPath u.Range.FileName
                    if file = f && keep parse u then
                        let r = fixupRange file name u.Range
                        found[$"{file}|{r.StartLine}|{r.StartColumn}"] <- (file, r, u.IsFromDefinition)
            | None -> ()
        let sorted =
            found.Values
            |> Seq.filter (fun (f, _, _) -> not (Faults.referencesSkipSignatures && f.EndsWith ".fsi"))
            |> Seq.sortBy (fun (f, r, _) -> f, r.StartLine, r.StartColumn)
            |> List.ofSeq
        // FSAC_DOUBLE_REFERENCES_DROP_LAST_USE: the last site that is not a declaration is left out.
        let dropped =
            if Faults.referencesDropLastUse then
                sorted |> List.tryFindIndexBack (fun (_, _, isDefinition) -> not isDefinition)
            else None
        dropped |> Option.iter (fun index -> let (f, r, _) = sorted[index] in droppedUses[droppedKey f r.EndLine r.EndColumn] <- true)
        let all =
            sorted
            |> List.indexed
            |> List.filter (fun (index, _) -> Some index <> dropped)
            |> List.map (fun (_, (f, r, _)) -> f, r)
        log $"references: {all.Length} found in {searched} files"
        return all
    }

/// Every use of `symbol` in every project that sees its declaration.
let findUses symbol origin ct onlyFile = findUsesWhere (fun _ _ -> true) symbol origin ct onlyFile

/// FSAC's implementations (`Commands.symbolImplementationProject`): the uses that implement a
/// dispatch slot, or name the type where no type annotation is written.
let findImplementations symbol origin ct =
    findUsesWhere
        (fun parse u -> u.IsFromDispatchSlotImplementation || (u.IsFromType && not (parse.IsTypeAnnotationGivenAtPosition u.Range.Start)))
        symbol origin ct None

// ---- hover -----------------------------------------------------------------------------------

let taggedText (tt: TaggedText[]) = tt |> Array.map (fun t -> t.Text) |> String.concat ""

let xmlDocText (doc: FSharpXmlDoc) =
    match doc with
    | FSharpXmlDoc.FromXmlText x ->
        let lines = x.UnprocessedLines |> Array.map (fun l -> l.Trim())
        let joined = String.Join("\n", lines)
        let m = RegularExpressions.Regex.Match(joined, "<summary>([\\s\\S]*?)</summary>")
        (if m.Success then m.Groups[1].Value.Trim() else joined.Trim())
    | _ -> ""

let tooltipParts (ctx: Context) (position: JsonNode) =
    let line0 = asInt (prop "line" position) |> Option.defaultValue 0
    let ch = asInt (prop "character" position) |> Option.defaultValue 0
    match identAt (text ctx.File) line0 ch with
    | None -> None
    | Some(names, line, col, lineText) ->
        let (ToolTipText elements) = ctx.Results.GetToolTip(line, col, lineText, names, FSharp.Compiler.Tokenization.FSharpTokenTag.Identifier)
        elements
        |> List.tryPick (function
            | ToolTipElement.Group(first :: _) -> Some(first.MainDescription.Text, xmlDocText first.XmlDoc)
            | _ -> None)

// ---- navigation ------------------------------------------------------------------------------

/// FSAC's glyph → SymbolKind mapping (LspHelpers.fs).
let symbolKind (item: NavigationItem) =
    match item.Kind with
    | NavigationItemKind.Namespace -> 3
    | NavigationItemKind.ModuleFile
    | NavigationItemKind.Module -> 2
    | NavigationItemKind.Type -> 5
    | NavigationItemKind.Exception -> 5
    | NavigationItemKind.Property -> 7
    | NavigationItemKind.Field -> 8
    | NavigationItemKind.Method -> 6
    | NavigationItemKind.Other -> 13
    | _ -> 13

let private navigationCache = ConcurrentDictionary<string, string * NavigationTopLevelDeclaration[]>()

/// FCS's navigation items of a file's current text (cached per text).
let private navigationDeclarations (file: string) =
    let current = text file
    match navigationCache.TryGetValue file with
    | true, (t, d) when Object.ReferenceEquals(t, current) || t = current -> d
    | _ ->
        let parse =
            checker.Value.ParseFile(fcsName file, SourceText.ofString current, { FSharpParsingOptions.Default with SourceFiles = [| fcsName file |] })
            |> Async.RunSynchronously
        let d = parse.GetNavigationItems().Declarations
        navigationCache[file] <- (current, d)
        d

/// Navigation items of a file: (item, container name), flat, as FSAC lists them.
let navigationItems (file: string) =
    [ for d in navigationDeclarations file do
          yield d.Declaration, ""
          for n in d.Nested do
              yield n, d.Declaration.LogicalName ]

/// Navigation items with the item that contains each (None for top-level declarations).
let navigationItemsWithContainers (file: string) =
    [ for d in navigationDeclarations file do
          yield d.Declaration, None
          for n in d.Nested do
              yield n, Some d.Declaration ]

let documentSymbols (file: string) =
    navigationItems file
    |> List.map (fun (i, _) -> obj [ "name", str i.LogicalName; "kind", num (symbolKind i); "range", lspRange i.Range; "selectionRange", lspRange i.Range ])

let matchesQuery (name: string) (container: string) (query: string) =
    if query = "" then false
    else
        let parts = query.Split('.')
        let last = Array.last parts
        name.StartsWith(last, StringComparison.Ordinal)
        && (parts.Length = 1 || container = String.Join(".", parts[.. parts.Length - 2]))

let workspaceSymbols (query: string) (ct: CancellationToken) =
    if query = "" then []
    else
        let files = (projects |> List.collect (fun p -> p.Sources)) @ (documents.Keys |> List.ofSeq) |> List.distinct
        [ for f in files do
              if ct.IsCancellationRequested then raise Cancelled
              if File.Exists f || documents.ContainsKey f then
                  for i, container in navigationItems f do
                      if matchesQuery i.LogicalName container query then
                          yield obj [ "name", str i.LogicalName; "kind", num (symbolKind i); "location", obj [ "uri", str (uriFor f); "range", lspRange i.Range ]; "containerName", str container ] ]
