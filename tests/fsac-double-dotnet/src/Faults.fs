/// The FSAC_DOUBLE_* switches (tests/fsac-double-dotnet/README.md), read once at start from the
/// environment and from FSAC_DOUBLE_FAULTS_FILE (a JSON object of the same names, which wins),
/// and the global.json SDK-pin check that FSAC hits before any LSP I/O.
module FsacDouble.Faults

open System
open System.IO
open System.Text.Json.Nodes

let private fromFile () =
    match Environment.GetEnvironmentVariable "FSAC_DOUBLE_FAULTS_FILE" with
    | null
    | "" -> Map.empty
    | file when not (File.Exists file) -> Map.empty
    | file ->
        try
            match JsonNode.Parse(File.ReadAllText file) with
            | :? JsonObject as o ->
                o
                |> Seq.map (fun kv ->
                    let v =
                        match kv.Value with
                        | null -> ""
                        | :? JsonValue as jv ->
                            match jv.TryGetValue<string>() with
                            | true, s -> s
                            | _ -> jv.ToJsonString()
                        | other -> other.ToJsonString()
                    kv.Key, v)
                |> Map.ofSeq
            | _ -> Map.empty
        with _ -> Map.empty

let private fileSettings = fromFile ()

let setting name =
    match Map.tryFind name fileSettings with
    | Some v -> Some v
    | None ->
        match Environment.GetEnvironmentVariable name with
        | null -> None
        | v -> Some v

let private int name =
    match setting name with
    | Some v when v <> "" ->
        match Int64.TryParse v with
        | true, n when n >= 0L -> Some n
        | _ -> None
    | _ -> None

let exitAfter = int "FSAC_DOUBLE_EXIT_AFTER"
let exitCode = int "FSAC_DOUBLE_EXIT_CODE" |> Option.defaultValue 3L |> int32
let hangOn =
    (setting "FSAC_DOUBLE_HANG_ON" |> Option.defaultValue "").Split(',')
    |> Array.map (fun s -> s.Trim())
    |> Array.filter ((<>) "")
    |> Set.ofArray
let delayMs = int "FSAC_DOUBLE_DELAY_MS" |> Option.defaultValue 0L
let garbageAfter = int "FSAC_DOUBLE_GARBAGE_AFTER"
let sweepDelayMs = int "FSAC_DOUBLE_SWEEP_DELAY_MS" |> Option.defaultValue 0L
/// A request's handler starts N ms after the request passed its first cancellation check: a
/// handler the thread pool picks up late, as under load.
let handlerStartDelayMs = int "FSAC_DOUBLE_HANDLER_START_DELAY_MS" |> Option.defaultValue 0L
let referencesSkipSignatures = setting "FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES" = Some "1"
/// "1": references answers leave out their last site that is not a declaration, and a definition
/// asked at a use so left out answers nothing (the planted fault of the differential oracle's
/// test: a backend that does not know that use).
let referencesDropLastUse = setting "FSAC_DOUBLE_REFERENCES_DROP_LAST_USE" = Some "1"
/// "1": references asked at a declaration answer only the sites in the declaring file (a
/// backend that misses the uses in later files, which FSAC itself finds: fslens's defence of
/// resolving the occurrences no site covers is tested with it).
let referencesDeclarationFileOnly = setting "FSAC_DOUBLE_REFERENCES_DECLARATION_FILE_ONLY" = Some "1"
let slowCheckFromVersion = int "FSAC_DOUBLE_SLOW_CHECK_FROM_VERSION"
let slowCheckMs = int "FSAC_DOUBLE_SLOW_CHECK_MS" |> Option.defaultValue 0L
let slowLoadMs = int "FSAC_DOUBLE_SLOW_LOAD_MS" |> Option.defaultValue 0L
let slowInitializeMs = int "FSAC_DOUBLE_SLOW_INITIALIZE_MS" |> Option.defaultValue 0L
let growMbPerRequest = int "FSAC_DOUBLE_GROW_MB_PER_REQUEST" |> Option.defaultValue 0L
let transcript =
    match setting "FSAC_DOUBLE_TRANSCRIPT" with
    | Some "" | None -> None
    | Some p -> Some p
let diagnosticsVersion = setting "FSAC_DOUBLE_DIAGNOSTICS_VERSION" = Some "1"
let lazyCompiler = setting "FSAC_DOUBLE_LAZY_COMPILER" = Some "1"
let noChecks = setting "FSAC_DOUBLE_NO_CHECKS" = Some "1"
/// File names (comma-separated) whose checks report nothing (no publish, no documentAnalyzed),
/// as a check that never ends.
let unanalysedFiles =
    (setting "FSAC_DOUBLE_UNANALYSED_FILES" |> Option.defaultValue "").Split(',')
    |> Array.map (fun s -> s.Trim())
    |> Array.filter ((<>) "")
    |> Set.ofArray

/// The garbage frame's body: a valid header with a body that is not JSON.
let garbageBody = "{\"jsonrpc\": \"2.0\", this is not json"

let private grown = Collections.Generic.List<byte[]>()

/// FSAC_DOUBLE_GROW_MB_PER_REQUEST: allocate, touch and keep M MB.
let growForRequest () =
    if growMbPerRequest > 0L then
        let buffer = Array.create (int32 growMbPerRequest * 1024 * 1024) 1uy
        grown.Add buffer

// ---- SDK pin ---------------------------------------------------------------------------------

/// The SDKs installed: FSAC_DOUBLE_INSTALLED_SDKS when set, else `dotnet --list-sdks`.
let installedSdks () =
    match setting "FSAC_DOUBLE_INSTALLED_SDKS" with
    | Some v -> v.Split(',') |> Array.map (fun s -> s.Trim()) |> Array.filter ((<>) "") |> List.ofArray, "/usr/share/dotnet/sdk"
    | None ->
        // <root>/shared/Microsoft.NETCore.App/<version>/ → <root>
        let runtimeDir = DirectoryInfo(Runtime.InteropServices.RuntimeEnvironment.GetRuntimeDirectory().TrimEnd('/'))
        let root = runtimeDir.Parent.Parent.Parent.FullName
        let sdkDir = Path.Combine(root, "sdk")
        let versions =
            if Directory.Exists sdkDir then
                Directory.GetDirectories sdkDir
                |> Array.map Path.GetFileName
                |> Array.filter (fun n -> n.Length > 0 && Char.IsDigit n[0])
                |> Array.sort
                |> List.ofArray
            else []
        versions, sdkDir

type private Version = { Major: int; Minor: int; Band: int; Patch: int }

let private parse (v: string) =
    let m = Text.RegularExpressions.Regex.Match(v, "^(\\d+)\\.(\\d+)\\.(\\d+)")
    if not m.Success then None
    else
        let p = int32 m.Groups[3].Value
        Some { Major = int32 m.Groups[1].Value; Minor = int32 m.Groups[2].Value; Band = p / 100; Patch = p % 100 }

let satisfies (requested: string) (rollForward: string option) (installed: string list) =
    match parse requested with
    | None -> true
    | Some want ->
        let policy = (defaultArg rollForward "latestPatch").ToLowerInvariant()
        installed
        |> List.choose parse
        |> List.exists (fun have ->
            if compare have want < 0 then false
            else
                match policy with
                | "disable" -> have = want
                | "patch"
                | "latestpatch" -> have.Major = want.Major && have.Minor = want.Minor && have.Band = want.Band
                | "feature"
                | "latestfeature" -> have.Major = want.Major && have.Minor = want.Minor
                | "minor"
                | "latestminor" -> have.Major = want.Major
                | _ -> true)

let rec private findGlobalJson (dir: DirectoryInfo) =
    if isNull dir then None
    else
        let f = Path.Combine(dir.FullName, "global.json")
        if File.Exists f then Some f else findGlobalJson dir.Parent

/// The failure text when the global.json pin in `cwd` cannot be satisfied, else None.
let sdkPinFailure (cwd: string) =
    match findGlobalJson (DirectoryInfo cwd) with
    | None -> None
    | Some file ->
        let sdk =
            try
                match JsonNode.Parse(File.ReadAllText file) with
                | null -> None
                | n ->
                    match n["sdk"] with
                    | null -> None
                    | s ->
                        let get (k: string) =
                            match s[k] with
                            | null -> None
                            | v -> (try Some(v.GetValue<string>()) with _ -> None)
                        match get "version" with
                        | Some v -> Some(v, get "rollForward")
                        | None -> None
            with _ -> None
        match sdk with
        | None -> None
        | Some(version, roll) ->
            let installed, sdkDir = installedSdks ()
            if satisfies version roll installed then None
            else
                [ yield "A compatible .NET SDK was not found."
                  yield ""
                  yield $"Requested SDK version: {version}"
                  yield $"global.json file: {file}"
                  yield ""
                  yield "Installed SDKs:"
                  for v in installed do
                      yield $"{v} [{sdkDir}]"
                  yield ""
                  yield $"Install the [{version}] .NET SDK or update [{file}] to match an installed SDK."
                  yield ""
                  yield "Unhandled exception: System.Exception: `dotnet --version` failed (exit code 145)"
                  yield "   at Ionide.ProjInfo.SdkDiscovery.versionAt(DirectoryInfo cwd, FileInfo dotnetBinaryPath)"
                  yield "   at Ionide.ProjInfo.Init.init(DirectoryInfo workingDirectory, FileInfo dotnetExe)" ]
                |> String.concat "\n"
                |> Some
