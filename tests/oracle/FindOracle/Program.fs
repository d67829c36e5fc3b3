/// The differential oracle's command line (README.md beside this file).
module Program

open System
open System.IO
open System.Text.Json
open System.Text.Json.Nodes
open Judge

let usage =
    "usage: FindOracle --workspace DIR (--fslens PATH [--fsac CMD] | --answers FILE) [--max-symbols N] [--seed N] [--timeout-ms N] [--json OUT] [--queries FILE] [--no-restore]"

type Options =
    { Workspace: string
      Fslens: string
      Fsac: string option
      MaxSymbols: int option
      Seed: int
      TimeoutMs: int
      Json: string option
      /// Answers to judge instead of asking fslens (the oracle's own tests).
      Answers: string option
      /// Only the symbols whose query is one of these (a file, one query a line): an earlier
      /// run's non-exact answers asked again.
      Queries: string option
      Restore: bool }

let parse (arguments: string list) =
    let rec go options =
        function
        | [] -> Ok options
        | "--workspace" :: value :: rest -> go { options with Workspace = value } rest
        | "--fslens" :: value :: rest -> go { options with Fslens = value } rest
        | "--fsac" :: value :: rest -> go { options with Fsac = Some value } rest
        | "--max-symbols" :: value :: rest -> go { options with MaxSymbols = Some(int value) } rest
        | "--seed" :: value :: rest -> go { options with Seed = int value } rest
        | "--timeout-ms" :: value :: rest -> go { options with TimeoutMs = int value } rest
        | "--json" :: value :: rest -> go { options with Json = Some value } rest
        | "--answers" :: value :: rest -> go { options with Answers = Some value } rest
        | "--queries" :: value :: rest -> go { options with Queries = Some value } rest
        | "--no-restore" :: rest -> go { options with Restore = false } rest
        | other :: _ -> Error $"unknown argument {other}"
    go
        { Workspace = ""; Fslens = ""; Fsac = None; MaxSymbols = None; Seed = 1; TimeoutMs = 120000; Json = None; Answers = None; Queries = None; Restore = true }
        arguments
    |> Result.bind (fun options ->
        if options.Workspace = "" || (options.Fslens = "" && options.Answers.IsNone) then
            Error "--workspace, and --fslens or --answers, are required"
        else Ok options)

let log (message: string) = eprintfn "oracle: %s" message

let private strings (values: string list) =
    JsonArray(values |> List.map (fun value -> JsonValue.Create value :> JsonNode) |> Array.ofList)

let private rangeNode (startLine: int) (startColumn: int) (endLine: int) (endColumn: int) =
    let position (line: int) (column: int) =
        let node = JsonObject()
        node["line"] <- JsonValue.Create line
        node["character"] <- JsonValue.Create column
        node
    let range = JsonObject()
    range["start"] <- position startLine startColumn
    range["end"] <- position endLine endColumn
    range

/// One compiler symbol of a judgement: its label, its sites (each use with its LSP range, a
/// site's uses together), and what was missing or extra.
let private symbolEntry (root: string) (judged: SymbolJudgement) : JsonNode =
    let entry = JsonObject()
    entry["label"] <- JsonValue.Create judged.Label
    entry["kind"] <- JsonValue.Create judged.Kind
    entry["compilerSites"] <-
        JsonArray(
            judged.Sites
            |> List.map (fun uses ->
                JsonArray(
                    uses
                    |> List.map (fun (used: Workspace.Use) ->
                        let node = JsonObject()
                        node["file"] <- JsonValue.Create(Path.GetRelativePath(root, used.File))
                        node["range"] <- rangeNode used.StartLine used.StartColumn used.EndLine used.EndColumn
                        node :> JsonNode)
                    |> Array.ofList
                ) :> JsonNode)
            |> Array.ofList
        )
    entry["fslensRows"] <- JsonValue.Create judged.Rows.Length
    entry["missing"] <- strings judged.Missing
    entry["extra"] <- strings judged.Extra
    entry :> JsonNode

/// A scripted `find` exchange (`--answers`' `exchange`): each call takes the next reply, a
/// `{"result": page}` or an `{"error": …}`; a reply with `"cursor"` must be asked with that cursor
/// (`null`: with none), else the call is an error saying what was asked. Past the last reply,
/// every call is an error.
let private scripted (replies: JsonNode list) =
    let mutable remaining = replies
    let spelled (cursor: JsonNode) = match cursor with | null -> "null" | cursor -> cursor.ToJsonString()
    fun (page: JsonObject) ->
        let asked = spelled page["cursor"]
        let refusal (message: string) =
            let error = JsonObject()
            error["message"] <- JsonValue.Create message
            Error(error :> JsonNode)
        match remaining with
        | [] -> refusal $"the script has no reply left (asked with cursor {asked})"
        | reply :: rest ->
            remaining <- rest
            let mutable expected: JsonNode = null
            if reply.AsObject().TryGetPropertyValue("cursor", &expected) && spelled expected <> asked then
                refusal $"asked with cursor {asked}, the script expected {spelled expected}"
            else
                match reply["error"] with
                | null -> Ok(reply["result"].DeepClone())
                | error -> Error(error.DeepClone())

/// `--answers FILE`: `{"answers": [{"query", "name", "answer" | "exchange"}]}`, each `answer` a
/// find result (one page), each `exchange` the replies to the oracle's successive `find` calls
/// (pages and refusals, as `scripted` reads them), judged for every declared symbol whose query
/// it is; fslens is not started.
let private judgeGiven (workspace: Workspace.Checked) (file: string) =
    let document = JsonNode.Parse(File.ReadAllText file)
    [ for given in document["answers"].AsArray() do
          let queryText = given["query"].GetValue<string>()
          let name = match given["name"] with | null -> "" | name -> name.GetValue<string>()
          let symbols = workspace.Symbols |> List.filter (fun symbol -> query symbol = queryText)
          if List.isEmpty symbols then failwithf "--answers: no declared symbol is asked as %s" queryText
          for symbol in symbols do
              let answer =
                  match given["exchange"] with
                  | null -> Ok [ given["answer"].DeepClone() ]
                  | exchange ->
                      let argument = JsonObject()
                      argument["query"] <- JsonValue.Create queryText
                      findAll (scripted (List.ofSeq (exchange.AsArray()))) argument
              yield judgeAnswer workspace symbol name answer 0L ]

let run (options: Options) =
    let root = Path.GetFullPath options.Workspace
    let watch = Diagnostics.Stopwatch.StartNew()
    let workspace = Workspace.check root options.Restore log
    log $"{workspace.Projects.Length} projects, {workspace.Symbols.Length} declared symbols, {workspace.Errors.Length} compiler errors, in {watch.ElapsedMilliseconds} ms"
    for project, error in workspace.Errors |> List.truncate 20 do
        log $"  compiler error in {Path.GetFileName project}: {error}"
    let symbols =
        match options.Queries with
        | Some file ->
            let wanted = File.ReadAllLines file |> Array.map (fun line -> line.Trim()) |> Set.ofArray
            workspace.Symbols |> List.filter (fun symbol -> wanted.Contains(Judge.query symbol))
        | None -> workspace.Symbols
    let chosen =
        match options.MaxSymbols with
        | Some limit when limit < symbols.Length ->
            let random = Random(options.Seed)
            symbols |> List.sortBy (fun _ -> random.Next()) |> List.truncate limit |> List.sortBy (fun symbol -> symbol.Key)
        | _ -> symbols
    let report (judgement: Judgement) =
        if judgement.Verdict = WrongWhileComplete || judgement.Verdict = Failed then
            log $"{verdictName judgement.Verdict}: {judgement.Query} ({judgement.Symbol.Kind}) fslens {judgement.Answered} ({judgement.Status}), compiler {judgement.Expected}; missing {judgement.Missing |> List.truncate 3}, extra {judgement.Extra |> List.truncate 3}, labels {judgement.Unassigned |> List.map snd |> List.distinct |> List.truncate 3} {defaultArg judgement.Error String.Empty}"
        judgement
    let asked = Diagnostics.Stopwatch.StartNew()
    let judgements =
        match options.Answers with
        | Some file -> judgeGiven workspace file |> List.map report
        | None ->
            let logFile = Path.Combine(Path.GetTempPath(), $"find-oracle-fslens-{Environment.ProcessId}.log")
            use session = new FslensSession.Session(Path.GetFullPath options.Fslens, root, options.Fsac, logFile)
            session.Initialize()
            let wait = JsonObject()
            wait["waitUntil"] <- JsonValue.Create "ready"
            wait["timeoutMs"] <- JsonValue.Create 900000
            match session.Execute("status", wait) with
            | Ok status -> log $"""fslens session: FSAC {status["state"]}"""
            | Error error -> log $"fslens status failed: {error.ToJsonString()}"
            asked.Restart()
            let total = chosen.Length
            chosen
            |> List.mapi (fun index symbol ->
                let answer, elapsed = ask session options.TimeoutMs symbol
                // A line every 25 finds: a long run shows how far it is.
                if (index + 1) % 25 = 0 && index + 1 < total then
                    log $"{index + 1} of {total} asked in {asked.Elapsed.TotalSeconds:F0} s"
                judgeAnswer workspace symbol "" answer elapsed |> report)
    let count verdict = judgements |> List.filter (fun judgement -> judgement.Verdict = verdict) |> List.length
    let verdicts = [ Exact; WrongWhileComplete; PartialButEqual; HonestlyPartial; Failed ]
    printfn "| kind | symbols | %s | time (s) |" (verdicts |> List.map verdictName |> String.concat " | ")
    printfn "|---|---|%s---|" (verdicts |> List.map (fun _ -> "---|") |> String.concat "")
    let kinds = judgements |> List.map (fun judgement -> judgement.Symbol.Kind) |> List.distinct |> List.sort
    for kind in kinds @ [ "all" ] do
        let these = judgements |> List.filter (fun judgement -> kind = "all" || judgement.Symbol.Kind = kind)
        let cells =
            verdicts
            |> List.map (fun verdict -> these |> List.filter (fun judgement -> judgement.Verdict = verdict) |> List.length |> string)
        let seconds = float (these |> List.sumBy (fun judgement -> judgement.ElapsedMs)) / 1000.0
        printfn "| %s | %d | %s | %.1f |" kind these.Length (String.concat " | " cells) seconds
    printfn ""
    let labellingOnly =
        judgements
        |> List.filter (fun judgement -> judgement.MergedEqual && (judgement.Verdict = WrongWhileComplete || judgement.Verdict = HonestlyPartial))
    printfn "%d of the wrong or partial answers have the compiler's sites with the labels ignored (a row given to the wrong symbol)" labellingOnly.Length
    printfn "%d symbols asked in %d ms (compiler view in %d ms)" judgements.Length asked.ElapsedMilliseconds (watch.ElapsedMilliseconds - asked.ElapsedMilliseconds)
    options.Json
    |> Option.iter (fun path ->
        let all = JsonArray()
        for judgement in judgements do
            let entry = JsonObject()
            entry["query"] <- JsonValue.Create judgement.Query
            entry["kind"] <- JsonValue.Create judgement.Symbol.Kind
            entry["fullNames"] <- JsonValue.Create(judgement.Symbol.FullNames |> String.concat " | ")
            entry["declaration"] <- JsonValue.Create($"{Path.GetRelativePath(root, judgement.Symbol.Declaration.File)}:{judgement.Symbol.Declaration.StartLine + 1}")
            entry["verdict"] <- JsonValue.Create(verdictName judgement.Verdict)
            entry["status"] <- JsonValue.Create judgement.Status
            entry["outcome"] <- JsonValue.Create judgement.Outcome
            if judgement.Verdict <> Exact then
                entry["notes"] <- JsonArray(judgement.Notes |> List.map (fun note -> JsonValue.Create note :> JsonNode) |> Array.ofList)
            entry["compilerSites"] <- JsonValue.Create judgement.Expected
            entry["fslensSites"] <- JsonValue.Create judgement.Answered
            if judgement.AnswerName <> "" then entry["answer"] <- JsonValue.Create judgement.AnswerName
            entry["mergedEqual"] <- JsonValue.Create judgement.MergedEqual
            entry["symbols"] <- JsonArray(judgement.PerSymbol |> List.map (symbolEntry root) |> Array.ofList)
            entry["unassigned"] <-
                JsonArray(
                    judgement.Unassigned
                    |> List.map (fun (site, label) -> JsonValue.Create $"{site} ({label})" :> JsonNode)
                    |> Array.ofList
                )
            entry["outsideProjects"] <-
                JsonArray(judgement.OutsideProjects |> List.map (fun site -> JsonValue.Create site :> JsonNode) |> Array.ofList)
            entry["inactive"] <-
                JsonArray(judgement.Inactive |> List.map (fun site -> JsonValue.Create site :> JsonNode) |> Array.ofList)
            entry["missing"] <- JsonArray(judgement.Missing |> List.map (fun site -> JsonValue.Create site :> JsonNode) |> Array.ofList)
            entry["extra"] <- JsonArray(judgement.Extra |> List.map (fun site -> JsonValue.Create site :> JsonNode) |> Array.ofList)
            judgement.Error |> Option.iter (fun error -> entry["error"] <- JsonValue.Create error)
            entry["elapsedMs"] <- JsonValue.Create judgement.ElapsedMs
            all.Add entry
        let document = JsonObject()
        document["workspace"] <- JsonValue.Create root
        document["symbolsDeclared"] <- JsonValue.Create workspace.Symbols.Length
        document["compilerErrors"] <- JsonValue.Create workspace.Errors.Length
        document["judgements"] <- all
        File.WriteAllText(path, document.ToJsonString(JsonSerializerOptions(WriteIndented = true))))
    if count WrongWhileComplete > 0 then 1 else 0

[<EntryPoint>]
let main arguments =
    match parse (List.ofArray arguments) with
    | Error message ->
        eprintfn "%s\n%s" message usage
        2
    | Ok options ->
        try run options
        with error ->
            eprintfn "oracle: failed: %s" (error.ToString())
            2
