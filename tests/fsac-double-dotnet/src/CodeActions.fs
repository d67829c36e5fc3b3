/// FSAC's code fixes for the diagnostics a `textDocument/codeAction` echoes, in FSAC's fix
/// order: ReplaceWithSuggestion, then MakeDeclarationMutable (protocol §5.7).
module FsacDouble.CodeActions

open System
open System.IO
open System.Text.Json.Nodes
open FSharp.Compiler.Symbols
open FSharp.Compiler.Text
open FsacDouble.Json
open FsacDouble.Workspace
open FsacDouble.Server

let private suggestionsIntro = "Maybe you want one of the following:"

let private keywords =
    set (("abstract and as assert base begin class default delegate do done downcast downto elif else end exception extern false finally fixed for fun function global if in inherit inline interface internal lazy let match member module mutable namespace new not null of open or override private public rec return select sig static struct then to true try type upcast use val void when while with yield const").Split(' '))

let private normalizeBackticks (name: string) =
    let bare = if name.StartsWith "``" && name.EndsWith "``" && name.Length > 4 then name.Substring(2, name.Length - 4) else name
    let plain = Text.RegularExpressions.Regex.IsMatch(bare, "^[A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_'\u00C0-\uFFFF]*$") && not (keywords.Contains bare)
    if plain then bare else $"``{bare}``"

let private replaceWithSuggestion (d: JsonNode) =
    match prop "message" d |> asString with
    | Some message when message.Contains suggestionsIntro ->
        message.Split([| '\n'; '\u001b' |]).[1..]
        |> Array.map (fun s -> s.Trim())
        |> Array.filter ((<>) "")
        |> Array.map normalizeBackticks
        |> Array.map (fun s -> $"Replace with '{s}'", "quickfix", d, [ obj [ "range", (prop "range" d).DeepClone(); "newText", str s ] ])
        |> List.ofArray
    | _ -> []

let private makeDeclarationMutable (file: string) (d: JsonNode) =
    async {
        let code = match prop "code" d with null -> "" | c -> (asString c |> Option.orElse (asInt c |> Option.map string) |> Option.defaultValue "")
        if code <> "27" then return []
        else
            match! optionsFor file with
            | None -> return []
            | Some options ->
                match! check options file with
                | None -> return []
                | Some(parse, results) ->
                    let start = prop "range" d |> prop "start"
                    let line0 = asInt (prop "line" start) |> Option.defaultValue 0
                    let ch = asInt (prop "character" start) |> Option.defaultValue 0
                    match identAt (text file) line0 ch with
                    | None -> return []
                    | Some(names, line, col, lineText) ->
                        match results.GetSymbolUseAtLocation(line, col, lineText, names) with
                        | Some u ->
                            match u.Symbol with
                            | :? FSharpMemberOrFunctionOrValue as m when not m.IsMutable ->
                                match Some m.DeclarationLocation with
                                | Some r when r.FileName = fcsName file && not (parse.IsPositionContainedInACurriedParameter r.Start) ->
                                    let at = obj [ "line", num (r.StartLine - 1); "character", num r.StartColumn ]
                                    return [ "Make declaration 'mutable'", "refactor", d, [ obj [ "range", obj [ "start", at; "end", at.DeepClone() ]; "newText", str "mutable " ] ] ]
                                | _ -> return []
                            | _ -> return []
                        | None -> return []
    }

let codeActions (p: JsonNode) =
    async {
        let uri = prop "textDocument" p |> prop "uri" |> asString |> Option.defaultValue ""
        let file = pathOf uri
        let diags = match prop "context" p |> prop "diagnostics" with :? JsonArray as a -> List.ofSeq a | _ -> []
        let first = diags |> List.collect replaceWithSuggestion
        let mutable second = []
        for d in diags do
            let! fixes = makeDeclarationMutable file d
            second <- second @ fixes
        let fixes = first @ second
        if fixes.IsEmpty then return jnull
        else
            let documentChanges = asBool (capability [ "workspace"; "workspaceEdit"; "documentChanges" ]) = Some true
            let version =
                match documents.TryGetValue file with
                | true, doc -> Some doc.Version
                | _ -> if File.Exists file then Some 0 else None
            return
                fixes
                |> List.map (fun (title, kind, diag, edits) ->
                    let edit =
                        if documentChanges then
                            let td = match version with Some v -> obj [ "uri", str uri; "version", num v ] | None -> obj [ "uri", str uri ]
                            obj [ "documentChanges", arr [ obj [ "textDocument", td; "edits", arr edits ] ] ]
                        else obj [ "changes", obj [ uri, arr edits ] ]
                    obj [ "title", str title; "kind", str kind; "diagnostics", arr [ diag.DeepClone() ]; "edit", edit ])
                |> arr
    }
