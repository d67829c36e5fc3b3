/// The request table and the message dispatch (messages are taken in arrival order; requests
/// run as tasks once the workspace they need is loaded).
module FsacDouble.Handlers

open System
open System.IO
open System.Text.Json.Nodes
open System.Threading
open System.Threading.Tasks
open System.Collections.Concurrent
open FSharp.Compiler.CodeAnalysis
open FSharp.Compiler.EditorServices
open FSharp.Compiler.Symbols
open FSharp.Compiler.Text
open FsacDouble.Json
open FsacDouble.Transport
open FsacDouble.Workspace
open FsacDouble.Server

let initializeResult () : JsonNode =
    let tokenTypes =
        [ "namespace"; "type"; "class"; "enum"; "interface"; "struct"; "typeParameter"; "parameter"; "variable"; "property"
          "enumMember"; "event"; "function"; "method"; "macro"; "keyword"; "modifier"; "comment"; "string"; "number"; "regexp"
          "operator"; "member"; "cexpr"; "text"; "module" ]
    let tokenModifiers =
        [ "declaration"; "definition"; "readonly"; "static"; "deprecated"; "abstract"; "async"; "modification"; "documentation"
          "defaultLibrary"; "mutable"; "disposable"; "extension" ]
    let strs xs = arr (xs |> List.map str)
    obj
        [ "capabilities",
          obj
              [ "textDocumentSync", obj [ "openClose", bool true; "change", num 2; "save", obj [ "includeText", bool true ] ]
                "hoverProvider", bool true
                "completionProvider", obj [ "resolveProvider", bool true; "triggerCharacters", strs [ "."; "'" ]; "workDoneProgress", bool false ]
                "signatureHelpProvider", obj [ "triggerCharacters", strs [ "("; ","; " " ]; "retriggerCharacters", strs [ ","; ")"; " " ]; "workDoneProgress", bool false ]
                "definitionProvider", bool true
                "typeDefinitionProvider", bool true
                "implementationProvider", bool true
                "referencesProvider", bool true
                "documentHighlightProvider", bool true
                "documentSymbolProvider", obj [ "label", str "F#"; "workDoneProgress", bool false ]
                "workspaceSymbolProvider", obj [ "resolveProvider", bool true; "workDoneProgress", bool false ]
                "codeActionProvider", obj [ "workDoneProgress", bool false ]
                "codeLensProvider", obj [ "resolveProvider", bool true; "workDoneProgress", bool false ]
                "documentFormattingProvider", bool true
                "documentRangeFormattingProvider", bool true
                "renameProvider", obj [ "prepareProvider", bool true; "workDoneProgress", bool false ]
                "foldingRangeProvider", bool true
                "selectionRangeProvider", bool true
                "callHierarchyProvider", bool true
                "semanticTokensProvider",
                obj [ "legend", obj [ "tokenTypes", strs tokenTypes; "tokenModifiers", strs tokenModifiers ]; "range", bool true; "full", bool true; "workDoneProgress", bool false ]
                "inlayHintProvider", obj [ "resolveProvider", bool false; "workDoneProgress", bool false ]
                "inlineValueProvider", obj [] ]
          "serverInfo", obj [ "name", str "FsAutoComplete"; "version", str "0.83.0" ] ]

let private cancellations = ConcurrentDictionary<string, CancellationTokenSource>()

let private edits (changes: (string * range list) list) (newText: string) =
    let documentChanges = asBool (capability [ "workspace"; "workspaceEdit"; "documentChanges" ]) = Some true
    let editsOf (ranges: range list) = arr (ranges |> List.map (fun r -> obj [ "range", lspRange r; "newText", str newText ]))
    if documentChanges then
        obj [ "documentChanges", arr (changes |> List.map (fun (f, rs) -> obj [ "textDocument", obj [ "uri", str (uriFor f); "version", num (version f) ]; "edits", editsOf rs ])) ]
    else
        obj [ "changes", obj (changes |> List.map (fun (f, rs) -> uriFor f, editsOf rs)) ]

let private isPlainIdentifier (s: string) =
    s.Length > 0 && (Char.IsLetter s[0] || s[0] = '_') && s |> Seq.forall (fun c -> Char.IsLetterOrDigit c || c = '_' || c = '\'')

/// The range of a use as written: a backticked name keeps its backticks (FSAC's fix-up).
let private writtenRange (file: string) (r: range) =
    let line = lineOf (text file) (r.StartLine - 1)
    if r.StartLine = r.EndLine && r.StartColumn >= 2 && r.EndColumn + 2 <= line.Length
       && line.Substring(r.StartColumn - 2, 2) = "``" && line.Substring(r.EndColumn, 2) = "``" then
        Range.mkRange r.FileName (Position.mkPos r.StartLine (r.StartColumn - 2)) (Position.mkPos r.EndLine (r.EndColumn + 2))
    else r

/// FSAC's `SymbolUse.Operator`: a use of an operator function (`op_…` compiled name, or a
/// display name `( … )` without inner spaces), not a constructor, property or active pattern.
let private isOperatorUse (u: FSharpSymbolUse) =
    match u.Symbol with
    | :? FSharpMemberOrFunctionOrValue as m when
        not m.IsConstructor && not m.IsPropertyGetterMethod && not m.IsPropertySetterMethod
        && not u.IsFromPattern && not m.IsActivePattern
        ->
        let name = m.DisplayName
        let operatorName =
            m.CompiledName.StartsWith("op_", StringComparison.Ordinal)
            || (name.StartsWith("( ", StringComparison.Ordinal) && name.EndsWith(" )", StringComparison.Ordinal) && name.Length > 4
                && name.Substring(2, name.Length - 4) |> Seq.forall (fun c -> c <> ' '))
        operatorName && (try m.FullType.IsFunctionType with _ -> false)
    | _ -> false

let private symbolOrNull (ctx: Context) position =
    symbolAt ctx position

let private known (uri: string) =
    let file = pathOf uri
    if not (documents.ContainsKey file) && (owners file).IsEmpty then raise (LspError(INTERNAL_ERROR, $"Couldn't find {file} in LoadedProjects"))
    file

let private enclosingCallable (file: string) (r: range) =
    navigationItems file
    |> List.filter (fun (i, _) ->
        (i.Kind = NavigationItemKind.Method || i.Kind = NavigationItemKind.Property || i.Kind = NavigationItemKind.Other || i.Kind = NavigationItemKind.Field)
        && Range.rangeContainsRange i.BodyRange r)
    |> List.sortBy (fun (i, _) -> -(i.BodyRange.StartLine))
    |> List.tryHead

let private callItem (name: string) (kind: int) (file: string) (r: range) (sel: range) : JsonNode =
    obj [ "name", str name; "kind", num kind; "uri", str (uriFor file); "range", lspRange r; "selectionRange", lspRange sel; "detail", str "" ]

let private rangeOfJson (file: string) (n: JsonNode) =
    let p (k: string) (f: string) = asInt (prop k n |> prop f) |> Option.defaultValue 0
    Range.mkRange (fcsName file) (Position.mkPos (p "start" "line" + 1) (p "start" "character")) (Position.mkPos (p "end" "line" + 1) (p "end" "character"))

/// Requests; each returns the `result` JSON or raises LspError / Cancelled.
let requestHandler (method: string) (p: JsonNode) (ct: CancellationToken) : Async<JsonNode> option =
    let at f =
        Some(async {
            let uri, position = positionParams p
            let! ctx = openFile uri
            return! f ctx position
        })
    match method with
    | "textDocument/hover" ->
        at (fun ctx position ->
            async {
                match tooltipParts ctx position with
                | None
                | Some("", _) -> return jnull
                | Some(signature, docs) ->
                    let contents = Collections.Generic.List<JsonNode>()
                    contents.Add(obj [ "language", str "fsharp"; "value", str signature ])
                    contents.Add(str docs)
                    match symbolAt ctx position with
                    | Some u ->
                        if not (String.IsNullOrEmpty u.Symbol.FullName) then contents.Add(str $"*Full name: {u.Symbol.FullName}*")
                        contents.Add(str $"*Assembly: {u.Symbol.Assembly.SimpleName}*")
                    | None -> ()
                    return obj [ "contents", arr contents ]
            })
    | "fsharp/signature" ->
        at (fun ctx position ->
            async {
                match tooltipParts ctx position with
                | Some(signature, _) when signature <> "" -> return envelope "typesig" (str signature)
                | _ -> return jnull
            })
    | "textDocument/definition" ->
        at (fun ctx position ->
            async {
                match symbolAt ctx position with
                | Some u when droppedUses.ContainsKey(droppedKey (Path.GetFullPath ctx.File) u.Range.EndLine u.Range.EndColumn) -> return jnull
                | Some u ->
                    match declarationOf u.Symbol with
                    | Some r -> return location r
                    | None -> return jnull
                | None -> return jnull
            })
    | "textDocument/typeDefinition" ->
        at (fun ctx position ->
            async {
                match symbolAt ctx position with
                | None -> return raise (LspError(INTERNAL_ERROR, "Cannot find ident at this location"))
                | Some u ->
                    let entity =
                        match u.Symbol with
                        | :? FSharpEntity as e -> Some e
                        | :? FSharpMemberOrFunctionOrValue as m when m.IsConstructor -> m.DeclaringEntity
                        | :? FSharpMemberOrFunctionOrValue as m when not m.FullType.IsFunctionType && m.FullType.HasTypeDefinition -> Some m.FullType.TypeDefinition
                        | :? FSharpField as f when f.FieldType.HasTypeDefinition -> Some f.FieldType.TypeDefinition
                        | :? FSharpUnionCase as c -> Some c.ReturnType.TypeDefinition
                        | :? FSharpParameter as x when x.Type.HasTypeDefinition -> Some x.Type.TypeDefinition
                        | _ -> None
                    match entity with
                    | None -> return raise (LspError(INTERNAL_ERROR, "No type information for the symbol at this location"))
                    | Some e ->
                        match declarationOf e with
                        | Some r -> return location r
                        | None -> return jnull
            })
    | "textDocument/references" ->
        at (fun ctx position ->
            async {
                match symbolAt ctx position with
                | None -> return arr []
                | Some u ->
                    let! uses = findUses u.Symbol ctx ct None
                    // FSAC_DOUBLE_REFERENCES_DECLARATION_FILE_ONLY: asked at a declaration, the
                    // uses in other files are left out.
                    let asked = Path.GetFullPath ctx.File
                    let atDeclaration =
                        u.IsFromDefinition
                        || (u.Symbol.DeclarationLocation
                            |> Option.exists (fun r -> Path.GetFullPath r.FileName = asked && Range.rangeContainsRange r u.Range))
                    let uses =
                        if Faults.referencesDeclarationFileOnly && atDeclaration then
                            log $"FSAC_DOUBLE_REFERENCES_DECLARATION_FILE_ONLY: only the sites in {asked}"
                            uses |> List.filter (fun (f, _) -> Path.GetFullPath f = asked)
                        else uses
                    return arr (uses |> List.map (fun (f, r) -> obj [ "uri", str (uriFor f); "range", lspRange (writtenRange f r) ]))
            })
    | "textDocument/documentHighlight" ->
        at (fun ctx position ->
            async {
                match symbolAt ctx position with
                | None -> return arr []
                | Some u ->
                    let uses = ctx.Results.GetUsesOfSymbolInFile(u.Symbol, cancellationToken = ct)
                    let name = match u.Symbol.DisplayNameCore with "" | null -> u.Symbol.DisplayName | n -> n
                    return arr (uses |> Array.map (fun x -> obj [ "range", lspRange (writtenRange ctx.File (fixupRange ctx.File name x.Range)) ]))
            })
    | "textDocument/prepareRename" ->
        at (fun ctx position ->
            async {
                match symbolAt ctx position with
                | None -> return raise (LspError(FSAC_EXCEPTION_CODE, "Nothing to rename"))
                | Some u ->
                    match declaredInWorkspace u.Symbol with
                    | None -> return raise (LspError(FSAC_EXCEPTION_CODE, "Must be declared inside current workspace, but is external."))
                    | Some _ ->
                        let name = match u.Symbol.DisplayNameCore with "" | null -> u.Symbol.DisplayName | n -> n
                        return lspRange (writtenRange ctx.File (fixupRange ctx.File name u.Range))
            })
    | "textDocument/rename" ->
        at (fun ctx position ->
            async {
                let newName = prop "newName" p |> asString |> Option.defaultValue ""
                match symbolAt ctx position with
                | None -> return raise (LspError(FSAC_EXCEPTION_CODE, "Nothing to rename"))
                | Some u ->
                    match declaredInWorkspace u.Symbol with
                    | None -> return raise (LspError(FSAC_EXCEPTION_CODE, "Must be declared inside current workspace, but is external."))
                    | Some _ ->
                        // FSAC's adjustRenameSymbolNewName: an operator is renamed to an
                        // operator, written as it is (never backticked).
                        let written =
                            if isOperatorUse u then
                                if FSharp.Compiler.Syntax.PrettyNaming.IsOperatorDisplayName newName then newName
                                else raise (LspError(FSAC_EXCEPTION_CODE, $"'{newName}' is not a valid operator name!"))
                            elif isPlainIdentifier newName then newName
                            else $"``{newName.Trim('`')}``"
                        let! uses = findUses u.Symbol ctx ct None
                        let byFile = uses |> List.groupBy fst |> List.map (fun (f, rs) -> f, rs |> List.map (snd >> writtenRange f))
                        return edits byFile written
            })
    | "textDocument/completion" ->
        at (fun ctx position ->
            async {
                let line0 = asInt (prop "line" position) |> Option.defaultValue 0
                let ch = asInt (prop "character" position) |> Option.defaultValue 0
                let lineText = lineOf (text ctx.File) line0
                let partial = QuickParse.GetPartialLongNameEx(lineText, ch - 1)
                let decls = ctx.Results.GetDeclarationListInfo(Some ctx.Parse, line0 + 1, lineText, partial)
                let kind (g: FSharpGlyph) =
                    match g with
                    | FSharpGlyph.Class | FSharpGlyph.Struct | FSharpGlyph.Typedef | FSharpGlyph.Type | FSharpGlyph.Exception -> 7
                    | FSharpGlyph.Enum -> 13 | FSharpGlyph.EnumMember -> 20 | FSharpGlyph.Union -> 7
                    | FSharpGlyph.Interface -> 8 | FSharpGlyph.Module | FSharpGlyph.NameSpace -> 9
                    | FSharpGlyph.Method | FSharpGlyph.OverridenMethod | FSharpGlyph.ExtensionMethod -> 2
                    | FSharpGlyph.Property -> 10 | FSharpGlyph.Field -> 5 | FSharpGlyph.Event -> 23
                    | FSharpGlyph.Constant -> 21 | FSharpGlyph.Variable -> 6 | _ -> 1
                let items =
                    decls.Items
                    |> Array.mapi (fun i d ->
                        obj [ "label", str d.NameInList; "kind", num (kind d.Glyph); "insertText", str d.NameInCode; "filterText", str d.NameInList
                              "sortText", str (sprintf "%06d" i) ])
                return obj [ "isIncomplete", bool false; "items", arr items ]
            })
    | "completionItem/resolve"
    | "workspaceSymbol/resolve" -> Some(async { return (if isNull p then jnull else p.DeepClone()) })
    | "textDocument/signatureHelp" ->
        at (fun ctx position -> async { return SignatureHelp.signatureHelp ctx position (prop "context" p) })
    | "textDocument/implementation" ->
        at (fun ctx position ->
            async {
                match symbolAt ctx position with
                | None -> return arr []
                | Some u ->
                    // Implementations: the uses of the abstract slot that FCS marks as overrides or
                    // interface implementations, in every project that sees it.
                    let! uses = findImplementations u.Symbol ctx ct
                    let decl = declarationOf u.Symbol
                    return arr (uses |> List.filter (fun (f, r) -> Some r <> decl) |> List.map (fun (f, r) -> obj [ "uri", str (uriFor f); "range", lspRange r ]))
            })
    | "textDocument/documentSymbol" ->
        Some(async { return arr (documentSymbols (known (prop "textDocument" p |> prop "uri" |> asString |> Option.defaultValue ""))) })
    | "workspace/symbol" -> Some(async { return arr (workspaceSymbols (prop "query" p |> asString |> Option.defaultValue "") ct) })
    | "test/discoverTests" -> Some(TestExplorer.discoverTests ct)
    | "test/runTests" -> Some(TestExplorer.runTests p ct)
    | "textDocument/codeAction" -> Some(CodeActions.codeActions p)
    | "codeAction/resolve" -> None
    | "textDocument/codeLens" ->
        Some(async {
            let file = known (prop "textDocument" p |> prop "uri" |> asString |> Option.defaultValue "")
            let lenses =
                navigationItemsWithContainers file
                |> List.filter (fun (i, container) ->
                    match container with
                    | Some c when c.Kind = NavigationItemKind.Type -> (i.Kind = NavigationItemKind.Method || i.Kind = NavigationItemKind.Property) && not i.IsAbstract
                    | Some _ -> i.Kind = NavigationItemKind.Field || i.Kind = NavigationItemKind.Method || i.Kind = NavigationItemKind.Property
                    | None -> false)
                |> List.map (fun (i, _) ->
                    let r = Range.mkRange i.Range.FileName i.Range.Start (Position.mkPos i.Range.StartLine (i.Range.StartColumn + i.LogicalName.Length))
                    obj [ "range", lspRange r; "data", arr [ str (uriFor file); str "signature" ] ])
            return arr lenses
        })
    | "codeLens/resolve" ->
        Some(async {
            let lens = p.DeepClone()
            let uri = path [ "data" ] p |> fun d -> (try asString (d.AsArray()[0]) with _ -> None) |> Option.defaultValue ""
            let kind = path [ "data" ] p |> fun d -> (try asString (d.AsArray()[1]) with _ -> None) |> Option.defaultValue ""
            let file = pathOf uri
            let position = path [ "range"; "start" ] p
            let title =
                try
                    let ctx = openFile uri |> Async.RunSynchronously
                    let line0 = asInt (prop "line" position) |> Option.defaultValue 0
                    let lineText = lineOf (text file) line0
                    let ch = asInt (prop "character" position) |> Option.defaultValue 0
                    let identCol =
                        let words = System.Text.RegularExpressions.Regex.Matches(lineText, "[A-Za-z_][\\w']*") |> Seq.filter (fun m -> m.Index >= ch) |> List.ofSeq
                        let keywords = set [ "let"; "member"; "static"; "rec"; "inline"; "private"; "internal"; "public"; "mutable"; "abstract"; "override"; "default"; "val"; "this"; "x"; "_"; "and" ]
                        words |> List.tryFind (fun m -> not (keywords.Contains m.Value)) |> Option.map (fun m -> m.Index)
                    match identCol with
                    | Some c ->
                        match symbolAt ctx (obj [ "line", num line0; "character", num c ]) with
                        | Some u when kind = "signature" ->
                            match u.Symbol with
                            | :? FSharpMemberOrFunctionOrValue as m -> m.FullType.Format(u.DisplayContext)
                            | _ -> ""
                        | Some u ->
                            let uses = findUses u.Symbol ctx ct None |> Async.RunSynchronously
                            $"{uses.Length - 1} References"
                        | None -> ""
                    | None -> ""
                with _ -> ""
            lens["command"] <- obj [ "title", str title; "command", str "" ]
            return lens
        })
    | "textDocument/formatting"
    | "textDocument/rangeFormatting" -> Some(async { return jnull })
    | "textDocument/foldingRange" ->
        Some(async {
            let file = known (prop "textDocument" p |> prop "uri" |> asString |> Option.defaultValue "")
            let parse =
                checker.Value.ParseFile(fcsName file, SourceText.ofString (text file), { FSharpParsingOptions.Default with SourceFiles = [| fcsName file |] })
                |> Async.RunSynchronously
            let lines = (text file).Split('\n') |> Array.map (fun l -> l.TrimEnd('\r'))
            let ranges =
                Structure.getOutliningRanges lines parse.ParseTree
                |> Seq.filter (fun s -> s.CollapseRange.EndLine > s.CollapseRange.StartLine)
                |> Seq.map (fun s ->
                    let r = s.CollapseRange
                    let o = obj [ "startLine", num (r.StartLine - 1); "startCharacter", num r.StartColumn; "endLine", num (r.EndLine - 1); "endCharacter", num r.EndColumn ]
                    match s.Scope with
                    | Structure.Scope.Open -> o["kind"] <- str "imports"
                    | Structure.Scope.Comment | Structure.Scope.XmlDocComment -> o["kind"] <- str "comment"
                    | _ -> ()
                    o)
                |> Seq.distinctBy serialize
                // FSAC answers a set of ranges (Set.ofSeq: distinct, ordered by position).
                |> Seq.sortBy (fun o -> [ for k in [ "startLine"; "startCharacter"; "endLine"; "endCharacter" ] -> asInt (prop k o) |> Option.defaultValue 0 ])
            return arr ranges
        })
    | "textDocument/selectionRange" ->
        Some(async {
            let file = known (prop "textDocument" p |> prop "uri" |> asString |> Option.defaultValue "")
            let all = text file
            let lines = all.Split('\n')
            let positions = match prop "positions" p with :? JsonArray as a -> List.ofSeq a | _ -> []
            let rangeJ (l1, c1) (l2, c2) = obj [ "start", obj [ "line", num l1; "character", num c1 ]; "end", obj [ "line", num l2; "character", num c2 ] ]
            let result =
                positions
                |> List.map (fun pos ->
                    let line0 = asInt (prop "line" pos) |> Option.defaultValue 0
                    let ch = asInt (prop "character" pos) |> Option.defaultValue 0
                    let lineText = lineOf all line0
                    let whole = obj [ "range", rangeJ (0, 0) (lines.Length - 1, (lines |> Array.last).TrimEnd('\r').Length) ]
                    let line = obj [ "range", rangeJ (line0, 0) (line0, lineText.Length); "parent", whole ]
                    match QuickParse.GetCompleteIdentifierIsland true lineText ch with
                    | Some(island, endCol, _) ->
                        let start = max 0 (endCol - island.Length)
                        obj [ "range", rangeJ (line0, start) (line0, endCol); "parent", line ]
                    | None -> line)
            return arr result
        })
    | "textDocument/prepareCallHierarchy" ->
        at (fun ctx position ->
            async {
                match symbolAt ctx position with
                | None -> return jnull
                | Some u ->
                    match declarationOf u.Symbol with
                    | None -> return jnull
                    | Some r ->
                        let kind = match u.Symbol with :? FSharpMemberOrFunctionOrValue as m when m.IsMember -> 6 | _ -> 12
                        return arr [ callItem u.Symbol.DisplayName kind r.FileName r r ]
            })
    | "callHierarchy/incomingCalls" ->
        Some(async {
            let item = prop "item" p
            let uri = prop "uri" item |> asString |> Option.defaultValue ""
            let sel = prop "selectionRange" item |> prop "start"
            let! ctx = openFile uri
            match symbolAt ctx sel with
            | None -> return arr []
            | Some u ->
                let! uses = findUses u.Symbol ctx ct None
                let decl = declarationOf u.Symbol
                let calls =
                    uses
                    |> List.filter (fun (_, r) -> Some r <> decl)
                    |> List.choose (fun (f, r) -> enclosingCallable f r |> Option.map (fun (i, _) -> (f, i), r))
                    |> List.groupBy fst
                    |> List.map (fun ((f, i), rs) ->
                        obj [ "from", callItem i.LogicalName (if i.Kind = NavigationItemKind.Method then 6 else 12) f i.BodyRange i.Range
                              "fromRanges", arr (rs |> List.map (snd >> lspRange)) ])
                return arr calls
        })
    | "callHierarchy/outgoingCalls" ->
        Some(async {
            let item = prop "item" p
            let uri = prop "uri" item |> asString |> Option.defaultValue ""
            let! ctx = openFile uri
            // The item names its declaration; the calls are those made in that binding, body
            // included (the item's own range is the name alone).
            let named = rangeOfJson ctx.File (prop "selectionRange" item)
            let body =
                FSharp.Compiler.Syntax.ParsedInput.tryPick
                    (fun _ node ->
                        match node with
                        | FSharp.Compiler.Syntax.SyntaxNode.SynBinding binding when Range.rangeContainsPos binding.RangeOfHeadPattern named.Start ->
                            Some binding.RangeOfBindingWithRhs
                        | _ -> None)
                    named.Start
                    ctx.Parse.ParseTree
                |> Option.defaultValue named
            let uses =
                ctx.Results.GetAllUsesOfAllSymbolsInFile(ct)
                |> Seq.filter (fun u -> not u.IsFromDefinition && Range.rangeContainsRange body u.Range)
                |> Seq.filter (fun u ->
                    match u.Symbol with
                    | :? FSharpMemberOrFunctionOrValue as m -> (m.IsModuleValueOrMember || m.IsMember) && (declarationOf m).IsSome
                    | _ -> false)
                |> List.ofSeq
            let calls =
                uses
                |> List.groupBy (fun u -> (declarationOf u.Symbol).Value)
                |> List.map (fun (d, us) ->
                    let s = (List.head us).Symbol
                    let kind = match s with :? FSharpMemberOrFunctionOrValue as m when m.IsMember -> 6 | _ -> 12
                    obj [ "to", callItem s.DisplayName kind d.FileName d d; "fromRanges", arr (us |> List.map (fun u -> lspRange u.Range)) ])
            return arr calls
        })
    | "textDocument/semanticTokens/full"
    | "textDocument/semanticTokens/range" ->
        at (fun ctx _ ->
            async {
                // FSAC encodes FCS's semantic classification; the double encodes the same data.
                let items = ctx.Results.GetSemanticClassification(None) |> Array.filter (fun i -> i.Range.StartLine = i.Range.EndLine) |> Array.sortBy (fun i -> i.Range.StartLine, i.Range.StartColumn)
                let data = Collections.Generic.List<JsonNode>()
                let mutable prevLine = 0
                let mutable prevCol = 0
                for i in items do
                    let line = i.Range.StartLine - 1
                    let col = i.Range.StartColumn
                    let dl = line - prevLine
                    let dc = if dl = 0 then col - prevCol else col
                    for v in [ dl; dc; i.Range.EndColumn - i.Range.StartColumn; 0; 0 ] do
                        data.Add(num v)
                    prevLine <- line
                    prevCol <- col
                return obj [ "data", arr data ]
            })
    | "textDocument/inlayHint"
    | "textDocument/inlineValue" -> at (fun _ _ -> async { return arr [] })
    | _ -> None

/// Runs a request handler with FSAC's error mapping, after the workspace it needs is loaded.
let runRequest (id: JsonNode) (method: string) (p: JsonNode) =
    let key = id.ToJsonString()
    let cts = new CancellationTokenSource()
    cancellations[key] <- cts
    Task.Run(fun () ->
        task {
            try
                try
                    ensureAutoLoad ()
                    do! ready
                    if cts.IsCancellationRequested then raise Cancelled
                    if Faults.handlerStartDelayMs > 0L then
                        log $"handler of {method} {key} starts in {Faults.handlerStartDelayMs} ms"
                        do! Task.Delay(int Faults.handlerStartDelayMs)
                    match requestHandler method p cts.Token with
                    | None -> respondError id METHOD_NOT_FOUND $"Method not found: {method}"
                    | Some work ->
                        // The token goes to the handlers, which check it between steps (the references sweep
                        // logs how far it got), rather than to the async machinery.
                        let sw = Diagnostics.Stopwatch.StartNew()
                        let! result = Async.StartAsTask work
                        if sw.ElapsedMilliseconds > 200L then log $"{method} took {sw.ElapsedMilliseconds} ms"
                        if cts.IsCancellationRequested then raise Cancelled
                        respond id result
                with e ->
                    let rec unwrap (e: exn) =
                        match e with
                        | :? AggregateException as a when a.InnerExceptions.Count = 1 -> unwrap a.InnerException
                        | _ -> e
                    match unwrap e with
                    | Cancelled
                    | :? OperationCanceledException -> respondError id REQUEST_CANCELLED "The request was cancelled."
                    // Cancelled before it failed: FSAC's handlers are F# asyncs started with the
                    // request's token, which is checked at every bind, so a request cancelled before
                    // it got far enough to fail answers -32800 (as when a didClose that followed
                    // the cancel took the file away: No check results found).
                    | _ when cts.IsCancellationRequested -> respondError id REQUEST_CANCELLED "The request was cancelled."
                    | LspError(code, message) -> respondError id code message
                    | e ->
                        log $"handler {method} failed: {e}"
                        respondError id FSAC_EXCEPTION_CODE e.Message
            finally
                cancellations.TryRemove key |> ignore
        } :> Task) |> ignore

let private fileOfDoc (p: JsonNode) = prop "textDocument" p |> prop "uri" |> asString |> Option.defaultValue "" |> pathOf

let private applyChange (text: string) (change: JsonNode) =
    match prop "range" change with
    | null -> prop "text" change |> asString |> Option.defaultValue ""
    | r ->
        let offset (pos: JsonNode) =
            let line = asInt (prop "line" pos) |> Option.defaultValue 0
            let ch = asInt (prop "character" pos) |> Option.defaultValue 0
            let mutable o = 0
            let mutable l = 0
            while l < line && o < text.Length do
                let nl = text.IndexOf('\n', o)
                if nl < 0 then o <- text.Length else o <- nl + 1
                l <- l + 1
            min text.Length (o + ch)
        let s = offset (prop "start" r)
        let e = max s (offset (prop "end" r))
        text.Substring(0, s) + (prop "text" change |> asString |> Option.defaultValue "") + text.Substring(e)

let private resolvePath (where: string) =
    if where.StartsWith "file:" then pathOf where else Path.GetFullPath(Path.Combine(rootPath, where))

let startLoad (paths: string list) =
    loadStarted <- true
    let t = loadWorkspace paths
    ready <- t
    t.ContinueWith(fun (_: Task) ->
        firstLoad.TrySetResult() |> ignore
        for KeyValue(f, _) in documents do
            scheduleCheck f) |> ignore
    t

/// One message, in arrival order.
let dispatch (message: JsonObject) =
    let method = field "method" message |> asString |> Option.defaultValue ""
    let p = field "params" message
    let id = field "id" message
    let isRequest = message.ContainsKey "id" && method <> ""
    if method = "" then resolveServerRequest message |> ignore
    else
        match method with
        | "initialize" ->
            clientCaps <- (match prop "capabilities" p with null -> JsonObject() :> JsonNode | c -> c)
            let root =
                match prop "rootUri" p |> asString with
                | Some u -> Some(pathOf u)
                | None -> prop "rootPath" p |> asString
            root |> Option.iter (fun r -> rootPath <- r)
            let opts = prop "initializationOptions" p
            if asBool (prop "AutomaticWorkspaceInit" opts) = Some true && root.IsSome then
                let deep = asInt (prop "WorkspaceModePeekDeepLevel" opts) |> Option.defaultValue 2
                let excluded = match prop "ExcludeProjectDirectories" opts with :? JsonArray as a -> a |> Seq.choose asString |> List.ofSeq | _ -> []
                let chosen = Solutions.chooseAutomatic (Solutions.peek root.Value deep excluded)
                autoProjects <- Some chosen
                ready <- firstLoad.Task
                log $"AutomaticWorkspaceInit: {chosen.Length} projects under {root.Value}"
            let result = initializeResult ()
            if Faults.slowInitializeMs > 0L then
                Task.Delay(int Faults.slowInitializeMs).ContinueWith(fun (_: Task) -> respond id result) |> ignore
            else respond id result
        | "initialized" -> ensureAutoLoad ()
        | "shutdown" ->
            shutdownReceived <- true
            respond id jnull
        | "exit" ->
            Thread.Sleep 50
            exit (if shutdownReceived then 0 else 1)
        | "$/cancelRequest" ->
            match prop "id" p with
            | null -> ()
            | cid ->
                match cancellations.TryGetValue(cid.ToJsonString()) with
                | true, cts -> cts.Cancel()
                | _ -> ()
        | "fsharp/workspacePeek" ->
            let dir = prop "directory" p |> asString |> Option.defaultValue rootPath
            let deep = asInt (prop "deep" p) |> Option.defaultValue 2
            let excluded = match prop "excludedDirs" p with :? JsonArray as a -> a |> Seq.choose asString |> List.ofSeq | _ -> []
            respond id (envelope "workspacePeek" (obj [ "Found", Solutions.peekForWire (Solutions.peek dir deep excluded) ]))
        | "fsharp/workspaceLoad" ->
            let paths =
                match prop "textDocuments" p with
                | :? JsonArray as a -> a |> Seq.map (fun d -> prop "uri" d |> asString |> Option.defaultValue "" |> resolvePath) |> List.ofSeq
                | _ -> []
            let t = startLoad paths
            t.ContinueWith(fun (_: Task) -> respond id (envelope "workspaceLoad" (obj [ "Status", str "finished" ]))) |> ignore
        | "fsharp/project" ->
            let where = prop "project" p |> prop "uri" |> asString |> Option.defaultValue ""
            let paths = (projects |> List.map (fun x -> x.Path)) @ [ resolvePath where ] |> List.distinct
            let t = startLoad paths
            t.ContinueWith(fun (_: Task) -> respondError id METHOD_NOT_FOUND "Method not found") |> ignore
        | "textDocument/didOpen" ->
            let td = prop "textDocument" p
            let uri = prop "uri" td |> asString |> Option.defaultValue ""
            let file = pathOf uri
            if not (documents.ContainsKey file) then
                documents[file] <-
                    { Uri = uri
                      Text = prop "text" td |> asString |> Option.defaultValue ""
                      Version = asInt (prop "version" td) |> Option.defaultValue 0
                      Stamp = nextStamp () }
                refreshDependents file
                invalidate ()
                scheduleCheck file
        | "textDocument/didChange" ->
            let file = fileOfDoc p
            match documents.TryGetValue file with
            | true, d ->
                let changes = match prop "contentChanges" p with :? JsonArray as a -> List.ofSeq a | _ -> []
                let text' = changes |> List.fold applyChange d.Text
                let v = asInt (prop "textDocument" p |> prop "version") |> Option.defaultValue d.Version
                documents[file] <- { d with Text = text'; Version = v; Stamp = nextStamp () }
                refreshDependents file
                invalidate ()
                scheduleCheck file
            | _ -> ()
        | "textDocument/didSave" ->
            let file = fileOfDoc p
            match documents.TryGetValue file, prop "text" p |> asString with
            | (true, d), Some t -> documents[file] <- { d with Text = t; Stamp = nextStamp () }
            | _ -> ()
            refreshDependents file
            invalidate ()
            if documents.ContainsKey file then scheduleCheck file
            for project in seeing file do
                let own = project.Sources
                let after =
                    if own |> List.contains file then own |> List.skipWhile ((<>) file) |> List.skip 1 else own
                for f in after do
                    if (owners f |> List.tryHead |> Option.map (fun o -> o.Path)) = Some project.Path then scheduleCheck f
            if asBool (capability [ "workspace"; "codeLens"; "refreshSupport" ]) = Some true then
                notifyWithoutParams "workspace/codeLens/refresh"
        | "textDocument/didClose" ->
            let file = fileOfDoc p
            match documents.TryGetValue file with
            | true, _ ->
                let reported = uriFor file
                documents.TryRemove file |> ignore
                refreshDependents file
                invalidate ()
                if not (File.Exists file) && canPublish () then
                    notify "textDocument/publishDiagnostics" (obj [ "uri", str reported; "diagnostics", arr [] ])
            | _ -> ()
        | "workspace/didChangeWatchedFiles" ->
            match prop "changes" p with
            | :? JsonArray as changes ->
                for c in changes do
                    if asInt (prop "type" c) = Some 3 then
                        match prop "uri" c |> asString with
                        | Some uri ->
                            let file = pathOf uri
                            documents.TryRemove file |> ignore
                            if not (File.Exists file) && canPublish () then
                                notify "textDocument/publishDiagnostics" (obj [ "uri", str (uriFor file); "diagnostics", arr [] ])
                        | None -> ()
            | _ -> ()
            invalidate ()
        | _ when isRequest -> runRequest id method p
        | _ -> () // unknown notifications are ignored
