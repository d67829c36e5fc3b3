/// The differential oracle's command line (README.md beside this file).
module Program

open System
open System.IO
open System.Text.Json
open System.Text.Json.Nodes
open Judge

let usage =
    "usage: FindOracle --workspace DIR --fslens PATH [--fsac CMD] [--max-symbols N] [--seed N] [--timeout-ms N] [--json OUT] [--no-restore]"

type Options =
    { Workspace: string
      Fslens: string
      Fsac: string option
      MaxSymbols: int option
      Seed: int
      TimeoutMs: int
      Json: string option
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
        | "--no-restore" :: rest -> go { options with Restore = false } rest
        | other :: _ -> Error $"unknown argument {other}"
    go
        { Workspace = ""; Fslens = ""; Fsac = None; MaxSymbols = None; Seed = 1; TimeoutMs = 120000; Json = None; Restore = true }
        arguments
    |> Result.bind (fun options ->
        if options.Workspace = "" || options.Fslens = "" then Error "--workspace and --fslens are required"
        else Ok options)

let log (message: string) = eprintfn "oracle: %s" message

let run (options: Options) =
    let root = Path.GetFullPath options.Workspace
    let watch = Diagnostics.Stopwatch.StartNew()
    let workspace = Workspace.check root options.Restore log
    log $"{workspace.Projects.Length} projects, {workspace.Symbols.Length} declared symbols, {workspace.Errors.Length} compiler errors, in {watch.ElapsedMilliseconds} ms"
    for project, error in workspace.Errors |> List.truncate 20 do
        log $"  compiler error in {Path.GetFileName project}: {error}"
    let chosen =
        match options.MaxSymbols with
        | Some limit when limit < workspace.Symbols.Length ->
            let random = Random(options.Seed)
            workspace.Symbols |> List.sortBy (fun _ -> random.Next()) |> List.truncate limit |> List.sortBy (fun symbol -> symbol.Key)
        | _ -> workspace.Symbols
    let logFile = Path.Combine(Path.GetTempPath(), $"find-oracle-fslens-{Environment.ProcessId}.log")
    use session = new FslensSession.Session(Path.GetFullPath options.Fslens, root, options.Fsac, logFile)
    session.Initialize()
    let wait = JsonObject()
    wait["waitUntil"] <- JsonValue.Create "ready"
    wait["timeoutMs"] <- JsonValue.Create 900000
    match session.Execute("status", wait) with
    | Ok status -> log $"""fslens session: FSAC {status["state"]}"""
    | Error error -> log $"fslens status failed: {error.ToJsonString()}"
    let asked = Diagnostics.Stopwatch.StartNew()
    let judgements =
        chosen
        |> List.map (fun symbol ->
            let judgement = judge workspace session options.TimeoutMs symbol
            if judgement.Verdict = WrongWhileComplete || judgement.Verdict = Failed then
                log $"{verdictName judgement.Verdict}: {judgement.Query} ({judgement.Symbol.Kind}) fslens {judgement.Answered} ({judgement.Status}), compiler {judgement.Expected}; missing {judgement.Missing |> List.truncate 3}, extra {judgement.Extra |> List.truncate 3} {defaultArg judgement.Error String.Empty}"
            judgement)
    let count verdict = judgements |> List.filter (fun judgement -> judgement.Verdict = verdict) |> List.length
    let verdicts = [ Exact; WrongWhileComplete; PartialButEqual; HonestlyPartial; Failed ]
    printfn "| kind | symbols | %s |" (verdicts |> List.map verdictName |> String.concat " | ")
    printfn "|---|---|%s" (verdicts |> List.map (fun _ -> "---|") |> String.concat "")
    let kinds = judgements |> List.map (fun judgement -> judgement.Symbol.Kind) |> List.distinct |> List.sort
    for kind in kinds @ [ "all" ] do
        let these = judgements |> List.filter (fun judgement -> kind = "all" || judgement.Symbol.Kind = kind)
        let cells =
            verdicts
            |> List.map (fun verdict -> these |> List.filter (fun judgement -> judgement.Verdict = verdict) |> List.length |> string)
        printfn "| %s | %d | %s |" kind these.Length (String.concat " | " cells)
    printfn ""
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
            entry["compilerSites"] <- JsonValue.Create judgement.Expected
            entry["fslensSites"] <- JsonValue.Create judgement.Answered
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
