/// textDocument/signatureHelp as FSAC computes it (SignatureHelp.getSignatureHelpFor): by the
/// character before the caret (or the trigger character), a curried function application or
/// a parenthesised method call, both read from FCS's parse tree and check results.
module FsacDouble.SignatureHelp

open System
open System.Text.Json.Nodes
open FSharp.Compiler.EditorServices
open FSharp.Compiler.Symbols
open FSharp.Compiler.Syntax
open FSharp.Compiler.Text
open FsacDouble.Json
open FsacDouble.Workspace
open FsacDouble.Server

type private Kind =
    | MethodCall
    | FunctionApplication

/// FCS positions: 1-based lines, 0-based columns.
let private charAt (lines: string[]) (p: pos) =
    if p.Line >= 1 && p.Line <= lines.Length && p.Column >= 0 && p.Column < lines[p.Line - 1].Length then Some(lines[p.Line - 1][p.Column])
    else None

let private prevPos (lines: string[]) (p: pos) =
    if p.Column > 0 then Some(Position.mkPos p.Line (p.Column - 1))
    elif p.Line > 1 then Some(Position.mkPos (p.Line - 1) lines[p.Line - 2].Length)
    else None

let private nextPos (lines: string[]) (p: pos) =
    if p.Line >= 1 && p.Line <= lines.Length && p.Column < lines[p.Line - 1].Length then Some(Position.mkPos p.Line (p.Column + 1))
    elif p.Line < lines.Length then Some(Position.mkPos (p.Line + 1) 0)
    else None

/// The character before `p` and its position, going back across lines ('\n' between them).
let private prevChar (lines: string[]) (p: pos) =
    match prevPos lines p with
    | Some q -> Some(q, (match charAt lines q with Some c -> c | None -> '\n'))
    | None -> None

let private line (lines: string[]) (p: pos) = if p.Line >= 1 && p.Line <= lines.Length then lines[p.Line - 1] else ""

let private functionApplication (ctx: Context) (lines: string[]) (caret: pos) (endOfPreviousIdent: pos) =
    let parse = ctx.Parse
    let results = ctx.Results
    let applicationEnd =
        if parse.IsPosContainedInApplication endOfPreviousIdent then
            parse.TryRangeOfFunctionOrMethodBeingApplied endOfPreviousIdent |> Option.map (fun r -> r.End)
        else Some endOfPreviousIdent
    match applicationEnd with
    | None -> None
    | Some symbolEnd ->
        let lineStr = line lines symbolEnd
        match QuickParse.GetCompleteIdentifierIsland true lineStr (max 0 (symbolEnd.Column - 1)) with
        | None -> None
        | Some(island, endCol, _) ->
            let idents = island.Split('.') |> List.ofArray
            match results.GetSymbolUseAtLocation(symbolEnd.Line, endCol, lineStr, idents) with
            | Some symbolUse ->
                match symbolUse.Symbol with
                | :? FSharpMemberOrFunctionOrValue as mfv when
                    not (PrettyNaming.IsOperatorDisplayName mfv.DisplayName) && not mfv.IsProperty && mfv.CurriedParameterGroups.Count > 0 ->
                    let symbolStart = symbolUse.Range.Start
                    let applied = parse.TryIdentOfPipelineContainingPosAndNumArgsApplied symbolStart |> Option.map snd |> Option.defaultValue 0
                    let defined = mfv.CurriedParameterGroups.Count
                    let inSource = parse.GetAllArgumentsForFunctionApplicationAtPosition symbolStart |> Option.defaultValue [] |> Array.ofList
                    if defined < inSource.Length then None
                    else
                        let index =
                            match inSource |> Array.tryFindIndex (fun r -> Range.rangeContainsPos r caret) with
                            | Some i -> Some i
                            | None ->
                                match inSource |> Array.tryFindIndex (fun r -> Position.posGeq r.Start caret) with
                                | Some i -> Some i
                                | None -> if defined - applied > inSource.Length then Some inSource.Length else None
                        match index with
                        | None -> None
                        | Some i ->
                            let methods = results.GetMethods(symbolStart.Line, symbolUse.Range.EndColumn, line lines symbolStart, None)
                            Some(methods.Methods, None, Some i, FunctionApplication)
                | _ -> None
            | None -> None

let private methodCall (ctx: Context) (lines: string[]) (caret: pos) (trigger: char option) =
    match ctx.Parse.FindParameterLocations caret with
    | None -> None
    | Some locations ->
        let lidEnd = locations.LongIdEndLocation
        let group = ctx.Results.GetMethods(lidEnd.Line, lidEnd.Column, line lines lidEnd, Some locations.LongId)
        if group.Methods.Length = 0 || group.MethodName.EndsWith "> )" then None
        else
            let staticArgs = charAt lines locations.OpenParenLocation = Some '<'
            let methods =
                group.Methods |> Array.filter (fun m -> (staticArgs && m.StaticParameters.Length > 0) || (not staticArgs && m.HasParameters))
            if methods.Length = 0 then None
            else
                let ends = locations.TupleEndLocations
                let last = Array.last ends
                let endPos = if locations.IsThereACloseParen then prevPos lines last |> Option.defaultValue last else last
                let tupleEnds =
                    [| yield! Option.toList (nextPos lines locations.OpenParenLocation)
                       for i in 0 .. ends.Length - 2 do
                           yield ends[i]
                       yield endPos |]
                match trigger with
                | Some('<' | '(' | ',') when not (tupleEnds |> Array.exists (fun p -> p.Column = caret.Column)) -> None
                | _ ->
                    let index =
                        tupleEnds
                        |> Array.pairwise
                        |> Array.map (fun (a, b) -> Range.mkRange "" a b)
                        |> Array.tryFindIndex (fun r -> Range.rangeContainsPos r caret)
                        |> Option.defaultValue 0
                    let overload = methods |> Array.tryFindIndex (fun m -> m.Parameters.Length >= index + 1)
                    Some(methods, overload, Some index, MethodCall)

/// The LSP answer (null when no function or method is applied here), shaped as FSAC shapes it:
/// label and documentation from the item's tooltip, parameters named with their
/// CanonicalTypeTextForSorting as documentation.
let signatureHelp (ctx: Context) (position: JsonNode) (context: JsonNode) : JsonNode =
    let lines = (text ctx.File).Split('\n') |> Array.map (fun l -> l.TrimEnd('\r'))
    let line0 = asInt (prop "line" position) |> Option.defaultValue 0
    let ch = asInt (prop "character" position) |> Option.defaultValue 0
    let caret = Position.mkPos (line0 + 1) ch
    let rec skipBlanks (p: pos, c: char) =
        if Char.IsWhiteSpace c then
            match prevChar lines p with
            | Some next -> skipBlanks next
            | None -> None
        else Some(p, c)
    let previous = prevChar lines caret |> Option.bind skipBlanks
    match previous with
    | None -> raise (LspError(INTERNAL_ERROR, "Couldn't find previous non-whitespace char"))
    | Some(previousPos, previousChar) ->
        let trigger = prop "triggerCharacter" context |> asString |> Option.bind (fun s -> if s.Length > 0 then Some s[0] else None)
        let charAtCaret = trigger |> Option.orElse (prevChar lines caret |> Option.map snd)
        let result =
            match charAtCaret with
            | Some ' ' when previousChar <> ',' && previousChar <> '(' && previousChar <> '<' ->
                functionApplication ctx lines caret previousPos
            | _ -> methodCall ctx lines caret trigger
        match result with
        | None -> jnull
        | Some(methods, overload, parameter, _) ->
            let signatures =
                methods
                |> Array.map (fun m ->
                    let (ToolTipText elements) = m.Description
                    let label, docs =
                        elements
                        |> List.tryPick (function
                            | ToolTipElement.Group(g :: _) -> Some(g.MainDescription.Text, xmlDocText g.XmlDoc)
                            | _ -> None)
                        |> Option.defaultValue ("", "")
                    obj
                        [ "label", str label
                          "documentation", obj [ "kind", str "markdown"; "value", str docs ]
                          "parameters", arr (m.Parameters |> Array.map (fun p -> obj [ "label", str p.ParameterName; "documentation", str p.CanonicalTypeTextForSorting ])) ])
            let o = obj [ "signatures", arr signatures ]
            overload |> Option.iter (fun i -> o["activeSignature"] <- num i)
            parameter |> Option.iter (fun i -> o["activeParameter"] <- num i)
            o
