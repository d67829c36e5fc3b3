/// Asks fslens `find` about one declared symbol and judges the answer against the compiler's
/// uses. Sites are compared by file and the **end** of their range (the compiler's range of a
/// qualified use `M.f` starts at `M`, fslens's at `f`).
module Judge

open System
open System.IO
open System.Text.Json.Nodes
open Workspace

type Verdict =
    /// Says complete, and the sites are the compiler's.
    | Exact
    /// Says complete (`status: ok`, or `not_found`) and the sites differ: the oracle's failure.
    | WrongWhileComplete
    /// Says partial, and the sites are the compiler's anyway.
    | PartialButEqual
    /// Says partial, and the sites differ: honest.
    | HonestlyPartial
    /// An error, or no answer.
    | Failed

let verdictName =
    function
    | Exact -> "exact"
    | WrongWhileComplete -> "wrong-while-complete"
    | PartialButEqual -> "partial-but-equal"
    | HonestlyPartial -> "honestly-partial"
    | Failed -> "failed"

type Judgement =
    { Symbol: Declared
      Query: string
      Verdict: Verdict
      Status: string
      Outcome: string
      Expected: int
      Answered: int
      /// In the compiler's uses, not in fslens's answer (file:line:column of the end, 1-based).
      Missing: string list
      /// In fslens's answer, not in the compiler's uses.
      Extra: string list
      Error: string option
      ElapsedMs: int64 }

/// The query a user types for the symbol: `Parent.Name`, or the bare name without a parent.
let query (symbol: Declared) =
    match symbol.Parent with
    | Some parent when parent <> "" -> $"{parent}.{symbol.DisplayName}"
    | _ -> symbol.DisplayName

let private segmentBefore (fullName: string) =
    let parts = fullName.Split '.'
    if parts.Length >= 2 then Some parts[parts.Length - 2] else None

/// Every declared symbol the query names: the same name, and a parent that is the symbol's
/// parent or the segment before its name in one of its full names (an extension member has
/// two: its module's and the extended type's).
let namedBy (symbols: Declared list) (target: Declared) =
    symbols
    |> List.filter (fun symbol ->
        symbol.DisplayName = target.DisplayName
        && (match target.Parent with
            | None -> true
            | Some parent ->
                symbol.Parent = Some parent
                || symbol.FullNames |> List.exists (fun name -> segmentBefore name = Some parent)))

let private endKey (root: string) (file: string) (line: int) (column: int) =
    $"{Path.GetRelativePath(root, file)}:{line + 1}:{column + 1}"

/// Every page of one find, following `nextCursor`.
let private findAll (session: FslensSession.Session) (argument: JsonObject) =
    let rec pages (cursor: string option) (collected: JsonNode list) =
        let page = argument.DeepClone().AsObject()
        cursor |> Option.iter (fun cursor -> page["cursor"] <- JsonValue.Create cursor)
        match session.Execute("find", page) with
        | Error error -> Error error
        | Ok result ->
            let collected = result :: collected
            match result["nextCursor"] with
            | null -> Ok(List.rev collected)
            | next when collected.Length < 200 -> pages (Some(next.GetValue<string>())) collected
            | _ -> Ok(List.rev collected)
    pages None []

let judge (workspace: Checked) (session: FslensSession.Session) (timeoutMs: int) (symbol: Declared) =
    let root = workspace.Root
    let text = query symbol
    let expected =
        namedBy workspace.Symbols symbol
        |> List.collect (usesOf workspace)
        |> List.map (fun used -> endKey root used.File used.EndLine used.EndColumn)
        |> Set.ofList
    let argument = JsonObject()
    argument["query"] <- JsonValue.Create text
    argument["maxResults"] <- JsonValue.Create 1000
    argument["timeoutMs"] <- JsonValue.Create timeoutMs
    let watch = Diagnostics.Stopwatch.StartNew()
    let answer = findAll session argument
    let elapsed = watch.ElapsedMilliseconds
    match answer with
    | Error error ->
        { Symbol = symbol; Query = text; Verdict = Failed; Status = "error"; Outcome = ""
          Expected = expected.Count; Answered = 0; Missing = []; Extra = []
          Error = Some(error.ToJsonString()); ElapsedMs = elapsed }
    | Ok pages ->
        let first = List.head pages
        let field (name: string) =
            match first[name] with
            | null -> ""
            | value -> value.ToJsonString().Trim('"')
        let answered =
            pages
            |> List.collect (fun page ->
                match page["sites"] with
                | null -> []
                | sites ->
                    [ for site in sites.AsArray() ->
                          let finish = site["range"]["end"]
                          endKey root (Path.Combine(root, site["file"].GetValue<string>()))
                              (finish["line"].GetValue<int>()) (finish["character"].GetValue<int>()) ])
            |> Set.ofList
        let complete = field "status" = "ok"
        let equal = answered = expected
        let verdict =
            match complete, equal with
            | true, true -> Exact
            | true, false -> WrongWhileComplete
            | false, true -> PartialButEqual
            | false, false -> HonestlyPartial
        { Symbol = symbol; Query = text; Verdict = verdict; Status = field "status"; Outcome = field "outcome"
          Expected = expected.Count; Answered = answered.Count
          Missing = Set.difference expected answered |> Set.toList
          Extra = Set.difference answered expected |> Set.toList
          Error = None; ElapsedMs = elapsed }
