/// Asks fslens `find` about one declared symbol and judges the answer against the compiler's
/// uses, **per symbol**: the query may name several compiler symbols (a type and its module
/// `XModule`, overloads, an intrinsic and an extension member); each row of the answer is
/// given to the symbol its `symbolFullName` (and `symbolKind`, when the row has one) names,
/// and each symbol's rows are compared with that symbol's uses. A row naming no symbol the
/// query names (or `null`) belongs to none of them. An answer whose rows are right but
/// labelled with one symbol for all is therefore not equal (`mergedEqual` says so).
///
/// A row matches a use of its symbol when it lies in the same file and its range lies inside
/// the use's range or ends where the use ends (the compiler's range of a qualified use `M.f`
/// starts at `M`, of a generic application `T<'a>(…)` ends after the type arguments, possibly
/// on a later line). Uses of one symbol that start or end at the same place are one site (the
/// compiler may report one place twice). Rows and sites are paired one to one.
///
/// A row in a file no checked project compiles (a script at the repository's root that
/// `#load`s the sources, an orphan file) is outside the compiler's view: it is set aside
/// (`outsideProjects`), neither matched nor extra.
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

/// A row of fslens's answer: its file (absolute), LSP range and the symbol it says it belongs to.
type Row =
    { File: string
      StartLine: int
      StartColumn: int
      EndLine: int
      EndColumn: int
      Label: string option
      SymbolKind: string option
      /// A row of kind `inactive`: in code the loaded configuration does not compile.
      Inactive: bool }

/// One compiler symbol the query names (overloads and a signature/implementation pair share
/// a label, so they are one symbol here) and how the answer did on it.
type SymbolJudgement =
    { Label: string
      Kind: string
      /// Each site of the compiler (uses that are one place grouped), with its rows.
      Sites: Use list list
      Rows: Row list
      /// In the compiler's uses, not in fslens's answer (file:line:column of the end, 1-based).
      Missing: string list
      /// Rows labelled with this symbol that match none of its sites.
      Extra: string list }

type Judgement =
    { Symbol: Declared
      Query: string
      /// The name of a given answer (`--answers`), else empty.
      AnswerName: string
      Verdict: Verdict
      Status: string
      Outcome: string
      /// Why the answer is not complete, what it could not see: its `notes`, the reason its
      /// pages were cut, the coverage of an incomplete sweep.
      Notes: string list
      Expected: int
      Answered: int
      /// In the compiler's uses, not in fslens's answer with the symbol's label.
      Missing: string list
      /// In fslens's answer, and not a site of the symbol the row names.
      Extra: string list
      PerSymbol: SymbolJudgement list
      /// Rows labelled with no symbol the query names (file:line:column of the end, and the label).
      Unassigned: (string * string) list
      /// Rows in files no checked project compiles, not judged (file:line:column of the end).
      OutsideProjects: string list
      /// Rows of kind `inactive` (code the loaded configuration does not compile), not judged.
      Inactive: string list
      /// Whether the rows would equal the sites with the labels ignored (a labelling error
      /// when the verdict is not equal).
      MergedEqual: bool
      Error: string option
      ElapsedMs: int64 }

/// F#'s keywords, which a name can only be written as in double backticks.
let private keywords =
    set [ "abstract"; "and"; "as"; "assert"; "base"; "begin"; "class"; "default"; "delegate"; "do"; "done"
          "downcast"; "downto"; "elif"; "else"; "end"; "exception"; "extern"; "false"; "finally"; "fixed"; "for"
          "fun"; "function"; "global"; "if"; "in"; "inherit"; "inline"; "interface"; "internal"; "lazy"; "let"
          "match"; "member"; "module"; "mutable"; "namespace"; "new"; "not"; "null"; "of"; "open"; "or"
          "override"; "private"; "public"; "rec"; "return"; "select"; "static"; "struct"; "then"; "to"; "true"
          "try"; "type"; "upcast"; "use"; "val"; "void"; "when"; "while"; "with"; "yield"; "const" ]

/// A name as a user writes it: in double backticks when it is no plain identifier
/// (```` ``Bug #42 -- asynchronous`` ````, a keyword); an operator or a quoted name as it is.
let written (name: string) =
    let plain = Text.RegularExpressions.Regex.IsMatch(name, "^[A-Za-z_][A-Za-z0-9_']*$")
    if name.StartsWith "``" || name.StartsWith "(" || (plain && not (keywords.Contains name)) then name
    else $"``{name}``"

/// The query a user types for the symbol: `Parent.Name`, or the bare name without a parent,
/// each in backticks when it needs them.
let query (symbol: Declared) =
    match symbol.Parent with
    | Some parent when parent <> "" -> $"{written parent}.{written symbol.DisplayName}"
    | _ -> written symbol.DisplayName

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

let private before (line: int, column: int) (otherLine: int, otherColumn: int) =
    line < otherLine || (line = otherLine && column <= otherColumn)

/// A row matches a use: same file, and its range inside the use's or ending where it ends.
let matches (row: Row) (used: Use) =
    row.File = used.File
    && ((row.EndLine = used.EndLine && row.EndColumn = used.EndColumn)
        || (before (used.StartLine, used.StartColumn) (row.StartLine, row.StartColumn)
            && before (row.EndLine, row.EndColumn) (used.EndLine, used.EndColumn)))

/// Uses that start or end at the same place are one site.
let sitesOf (uses: Use list) : Use list list =
    let uses = Array.ofList uses
    let parent = Array.init uses.Length id
    let rec find index = if parent[index] = index then index else find parent[index]
    for i in 0 .. uses.Length - 1 do
        for j in i + 1 .. uses.Length - 1 do
            let a, b = uses[i], uses[j]
            if a.File = b.File
               && ((a.StartLine = b.StartLine && a.StartColumn = b.StartColumn)
                   || (a.EndLine = b.EndLine && a.EndColumn = b.EndColumn)) then
                parent[find i] <- find j
    uses
    |> Array.indexed
    |> Array.groupBy (fun (index, _) -> find index)
    |> Array.map (fun (_, members) -> members |> Array.map snd |> List.ofArray)
    |> List.ofArray

/// Pairs rows with sites one to one (a maximum bipartite matching over `matches`): the sites
/// no row is paired with, and the rows paired with no site.
let pair (sites: Use list list) (rows: Row list) : Use list list * Row list =
    let sites = Array.ofList sites
    let rows = Array.ofList rows
    let edges = rows |> Array.map (fun row -> [ for index in 0 .. sites.Length - 1 do if sites[index] |> List.exists (matches row) then index ])
    let siteOwner = Array.create sites.Length -1
    let rec augment (row: int) (seen: bool[]) =
        edges[row]
        |> List.exists (fun site ->
            if seen[site] then false
            else
                seen[site] <- true
                if siteOwner[site] = -1 || augment siteOwner[site] seen then
                    siteOwner[site] <- row
                    true
                else false)
    let paired = rows |> Array.mapi (fun index _ -> augment index (Array.create sites.Length false))
    let unpairedSites = [ for index in 0 .. sites.Length - 1 do if siteOwner[index] = -1 then sites[index] ]
    let unpairedRows = [ for index in 0 .. rows.Length - 1 do if not paired[index] then rows[index] ]
    unpairedSites, unpairedRows

/// Whether a row's `symbolKind` (when it has one) can be the oracle's kind of a symbol; a
/// kind this list does not know is not held against the row.
let kindFits (oracleKind: string) (rowKind: string option) =
    let compatible =
        match oracleKind with
        | "namespace" -> [ "namespace" ]
        | "module" -> [ "module" ]
        | "type" ->
            [ "type"; "class"; "record"; "union"; "interface"; "struct"; "enum"; "abbreviation"; "typeabbreviation"
              "exception"; "delegate"; "measure"; "unitofmeasure"; "attribute" ]
        | "value" -> [ "value"; "function"; "let"; "val"; "modulevalue"; "modulefunction" ]
        | "member" ->
            [ "member"; "property"; "method"; "event"; "abstractmember"; "extensionmember"; "indexer"; "staticmember"
              "autoproperty" ]
        | "union-case" -> [ "unioncase"; "case" ]
        | "field" -> [ "field"; "recordfield"; "classfield" ]
        | "active-pattern-case" -> [ "activepatterncase"; "activepattern" ]
        | _ -> []
    let everyKind =
        [ "namespace"; "module"; "type"; "class"; "record"; "union"; "interface"; "struct"; "enum"; "abbreviation"
          "typeabbreviation"; "exception"; "delegate"; "measure"; "unitofmeasure"; "attribute"; "value"; "function"
          "let"; "val"; "modulevalue"; "modulefunction"; "member"; "property"; "method"; "event"; "abstractmember"
          "extensionmember"; "indexer"; "staticmember"; "autoproperty"; "unioncase"; "case"; "field"; "recordfield"
          "classfield"; "activepatterncase"; "activepattern" ]
    match rowKind with
    | None -> true
    | Some kind ->
        let kind = kind.ToLowerInvariant() |> String.filter Char.IsLetter
        List.contains kind compatible || not (List.contains kind everyKind)

/// Every page of one find, following `nextCursor`; a page refused with `retrySameCursor: true`
/// (the sweep behind a partial first page did not complete in time to validate the cursor) is
/// asked again with the same cursor, twice at most, as the error tells a client to.
/// `execute` sends one `find` (fslens's session, or a scripted exchange in the oracle's own tests).
let findAll (execute: JsonObject -> Result<JsonNode, JsonNode>) (argument: JsonObject) =
    let retryable (error: JsonNode) =
        match error["data"] with
        | null -> false
        | data -> data["retrySameCursor"] |> Option.ofObj |> Option.exists (fun retry -> retry.ToJsonString() = "true")
    let rec pages (cursor: string option) (retries: int) (collected: JsonNode list) =
        let page = argument.DeepClone().AsObject()
        cursor |> Option.iter (fun cursor -> page["cursor"] <- JsonValue.Create cursor)
        match execute page with
        | Error error when cursor.IsSome && retries < 2 && retryable error -> pages cursor (retries + 1) collected
        | Error error -> Error error
        | Ok result ->
            let collected = result :: collected
            match result["nextCursor"] with
            | null -> Ok(List.rev collected)
            | next when collected.Length < 200 -> pages (Some(next.GetValue<string>())) 0 collected
            | _ -> Ok(List.rev collected)
    pages None 0 []

/// Asks fslens the symbol's query: every page of the answer, and how long it took.
let ask (session: FslensSession.Session) (timeoutMs: int) (symbol: Declared) =
    let argument = JsonObject()
    argument["query"] <- JsonValue.Create(query symbol)
    argument["maxResults"] <- JsonValue.Create 1000
    argument["timeoutMs"] <- JsonValue.Create timeoutMs
    let watch = Diagnostics.Stopwatch.StartNew()
    let answer = findAll (fun page -> session.Execute("find", page)) argument
    answer, watch.ElapsedMilliseconds

let private text (node: JsonNode) =
    match node with
    | null -> None
    | node when node.GetValueKind() = Text.Json.JsonValueKind.String -> Some(node.GetValue<string>())
    | _ -> None

let private number (range: JsonNode) (position: string) (part: string) =
    let node: JsonNode = range[position][part]
    node.GetValue<int>()

let private rowsOf (root: string) (pages: JsonNode list) =
    pages
    |> List.collect (fun page ->
        match page["sites"] with
        | null -> []
        | sites ->
            [ for site in sites.AsArray() ->
                  let range = site["range"]
                  { File = Path.GetFullPath(Path.Combine(root, site["file"].GetValue<string>()))
                    StartLine = number range "start" "line"
                    StartColumn = number range "start" "character"
                    EndLine = number range "end" "line"
                    EndColumn = number range "end" "character"
                    Label = text site["symbolFullName"] |> Option.map normalizeLabel
                    SymbolKind = text site["symbolKind"]
                    Inactive = text site["kind"] = Some "inactive" } ])
    |> List.distinctBy (fun row -> row.File, row.StartLine, row.StartColumn, row.EndLine, row.EndColumn, row.Label)

/// Why an answer says it is not complete, in fslens's words: its `notes`, and, when they are
/// not the only place it says so, the reason a page was cut (`paginationIncompleteReason`) and
/// the sweep's coverage (`scopeNote` of a sweep that did not cover every project), each once.
let private reasonsOf (first: JsonNode) =
    let notes =
        match first["notes"] with
        | :? JsonArray as notes -> notes |> Seq.choose (fun note -> match note with null -> None | note -> Some(note.ToString())) |> List.ofSeq
        | _ -> []
    let paging = text first["paginationIncompleteReason"] |> Option.map (sprintf "paginationIncompleteReason: %s")
    let sweepIncomplete =
        match first["coverage"] with
        | null -> false
        | coverage ->
            let count (name: string) = match coverage[name] with null -> 0 | value -> value.GetValue<int>()
            count "projectsAnalyzed" < count "projectsRequested"
    let scope = if sweepIncomplete then text first["scopeNote"] |> Option.map (sprintf "scopeNote: %s") else None
    notes @ List.choose id [ paging; scope ] |> List.distinct

/// Judges an answer (every page of one find, or an error) to the symbol's query.
let judgeAnswer (workspace: Checked) (symbol: Declared) (answerName: string) (answer: Result<JsonNode list, JsonNode>) (elapsed: int64) =
    let root = workspace.Root
    let queryText = query symbol
    // The compiler symbols the query names, one per label and kind (overloads, and a
    // signature with its implementation, share both).
    let named =
        namedBy workspace.Symbols symbol
        |> List.groupBy (fun named -> named.Label, named.Kind)
        |> List.map (fun ((label, kind), declared) ->
            let moduleLabel = declared |> List.tryPick (fun named -> named.ModuleLabel)
            label, kind, moduleLabel, declared |> List.collect (usesOf workspace) |> List.distinct |> sitesOf)
    let useKey (used: Use) = endKey root used.File used.EndLine used.EndColumn
    let rowKey (row: Row) = endKey root row.File row.EndLine row.EndColumn
    let expectedCount = named |> List.sumBy (fun (_, _, _, sites) -> sites.Length)
    match answer with
    | Error error ->
        { Symbol = symbol; Query = queryText; AnswerName = answerName; Verdict = Failed; Status = "error"; Outcome = ""; Notes = []
          Expected = expectedCount; Answered = 0; Missing = []; Extra = []; PerSymbol = []; Unassigned = []
          OutsideProjects = []; Inactive = []; MergedEqual = false; Error = Some(error.ToJsonString()); ElapsedMs = elapsed }
    | Ok pages ->
        let first = List.head pages
        let field (name: string) =
            match first[name] with
            | null -> ""
            | value -> value.ToJsonString().Trim('"')
        let rows, outside = rowsOf root pages |> List.partition (fun row -> workspace.Sources.Contains row.File)
        // Rows in code the compiler does not see (an inactive `#if` branch) are set aside as
        // the rows outside every project are: the compiler's view cannot judge them.
        let inactive, rows = rows |> List.partition (fun row -> row.Inactive)
        let owners (row: Row) =
            named
            |> List.filter (fun (label, kind, moduleLabel, _) ->
                kindFits kind row.SymbolKind
                && (row.Label = Some label
                    || (row.SymbolKind.IsSome && moduleLabel.IsSome && row.Label = moduleLabel)))
        let perSymbol =
            named
            |> List.map (fun (label, kind, _, sites) ->
                let mine = rows |> List.filter (fun row -> owners row |> List.exists (fun (l, k, _, _) -> l = label && k = kind))
                let missing, extra = pair sites mine
                { Label = label; Kind = kind; Sites = sites; Rows = mine
                  Missing = missing |> List.map (List.head >> useKey)
                  Extra = extra |> List.map rowKey })
        let unassigned =
            rows |> List.filter (fun row -> List.isEmpty (owners row)) |> List.map (fun row -> rowKey row, defaultArg row.Label "null")
        let mergedMissing, mergedExtra = pair (named |> List.collect (fun (_, _, _, sites) -> sites)) rows
        let complete = field "status" = "ok"
        let equal =
            List.isEmpty unassigned
            && perSymbol |> List.forall (fun judged -> List.isEmpty judged.Missing && List.isEmpty judged.Extra)
        let verdict =
            match complete, equal with
            | true, true -> Exact
            | true, false -> WrongWhileComplete
            | false, true -> PartialButEqual
            | false, false -> HonestlyPartial
        { Symbol = symbol; Query = queryText; AnswerName = answerName; Verdict = verdict
          Status = field "status"; Outcome = field "outcome"
          Notes = reasonsOf first
          Expected = expectedCount; Answered = rows.Length
          Missing = perSymbol |> List.collect (fun judged -> judged.Missing) |> List.distinct |> List.sort
          Extra = (perSymbol |> List.collect (fun judged -> judged.Extra)) @ (unassigned |> List.map fst) |> List.distinct |> List.sort
          PerSymbol = perSymbol; Unassigned = unassigned; OutsideProjects = outside |> List.map rowKey
          Inactive = inactive |> List.map rowKey
          MergedEqual = List.isEmpty mergedMissing && List.isEmpty mergedExtra
          Error = None; ElapsedMs = elapsed }
