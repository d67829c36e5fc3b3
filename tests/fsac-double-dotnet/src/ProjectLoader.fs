/// Loads an .fsproj the way FSAC does (Ionide.ProjInfo's design-time build), through the
/// `dotnet msbuild` command line (shared/projinfo-notes.md §5, shared/dotnet-notes.md), and
/// caches the result per project so that repeated starts on the same fixtures skip MSBuild.
/// Self-contained (no LSP types) so that a differential oracle can reuse it.
module FsacDouble.ProjectLoader

open System
open System.Diagnostics
open System.IO
open System.Security.Cryptography
open System.Text
open System.Text.Json
open System.Text.Json.Nodes

type PackageReference = { Name: string; Version: string; FullPath: string }

type CompileItem = { FullPath: string; Link: string option }

/// What FSAC's loader knows about one project after its design-time build.
type LoadedProject =
    { ProjectFile: string
      /// fsc argv as MSBuild gave it (FscCommandLineArgs), in order, unmodified.
      FscArgs: string list
      /// Source files, absolute, in compile order.
      SourceFiles: string list
      /// Every other argument (`-o:` made absolute), in order; includes `-r:` and `--define:`.
      OtherOptions: string list
      /// Absolute paths of the `ProjectReference`s that exist (`_MSBuildProjectReferenceExistent`).
      ProjectReferences: (string * string) list // RelativePath (as written), FullPath
      PackageReferences: PackageReference list
      /// `-r:` values.
      References: string list
      /// "lib" | "exe" | custom target, lowercased (from `--target:`).
      OutputType: string
      Properties: Map<string, string>
      CompileItems: CompileItem list }
    member p.Property name = p.Properties |> Map.tryFind name |> Option.defaultValue ""
    member p.TargetFramework = p.Property "TargetFramework"
    member p.TargetPath = p.Property "TargetPath"
    /// TargetRefPath when set, else TargetPath (Ionide.ProjInfo's ResolvedTargetPath).
    member p.ResolvedTargetPath =
        match p.Property "TargetRefPath" with
        | "" -> p.TargetPath
        | r -> r
    member p.Defines =
        p.OtherOptions |> List.choose (fun o -> if o.StartsWith "--define:" then Some(o.Substring 9) else None)

/// FSAC's `notifyWorkspace` error kinds (CommandResponse.fs): 100, 101, 102.
type LoadError =
    | NotRestored of project: string
    | ParsingFailed of project: string * message: string
    | NotFound of project: string * message: string
    member e.Code =
        match e with
        | NotRestored _ -> 100
        | ParsingFailed _ -> 101
        | NotFound _ -> 102
    member e.Message =
        match e with
        | NotRestored _ -> "Project not restored"
        | ParsingFailed(_, m) -> m
        | NotFound(_, m) -> m

let private log (s: string) = eprintfn "[loader] %s" s

/// Targets of Ionide.ProjInfo's design-time build (projinfo-notes §1.4), in order.
let designTimeTargets =
    [ "ResolveAssemblyReferencesDesignTime"
      "ResolveProjectReferencesDesignTime"
      "ResolvePackageDependenciesDesignTime"
      "FindReferenceAssembliesForReferences"
      "_GenerateCompileDependencyCache"
      "_ComputeNonExistentFileProperty"
      "BeforeBuild"
      "BeforeCompile"
      "CoreCompile" ]

/// Global properties of Ionide.ProjInfo (projinfo-notes §1.3), TargetFramework apart.
let globalProperties =
    [ "ProvideCommandLineArgs", "true"
      "DesignTimeBuild", "true"
      "SkipCompilerExecution", "true"
      "GeneratePackageOnBuild", "false"
      "Configuration", "Debug"
      "DefineExplicitDefaults", "true"
      "BuildProjectReferences", "false"
      "UseCommonOutputDirectory", "false"
      "NonExistentFile", Path.Combine("__NonExistentSubDir__", "__NonExistentFile__")
      "DotnetProjInfo", "true" ]

let readProperties =
    [ "OutputType"; "IsTestProject"; "TargetPath"; "Configuration"; "IsPackable"; "TargetFramework"
      "TargetFrameworkIdentifier"; "TargetFrameworkVersion"; "MSBuildAllProjects"; "ProjectAssetsFile"
      "RestoreSuccess"; "Configurations"; "TargetFrameworks"; "RunArguments"; "RunCommand"; "IsPublishable"
      "BaseIntermediateOutputPath"; "IntermediateOutputPath"; "TargetRefPath"; "IsCrossTargetingBuild"
      "AssemblyName" ]

type ProcessResult = { ExitCode: int; Stdout: string; Stderr: string }

/// Runs `dotnet args` in `cwd`; no MSBuild node or server outlives it.
let runDotnet (cwd: string) (args: string list) =
    let psi = ProcessStartInfo("dotnet")
    for a in args do
        psi.ArgumentList.Add a
    psi.WorkingDirectory <- cwd
    psi.RedirectStandardOutput <- true
    psi.RedirectStandardError <- true
    psi.RedirectStandardInput <- true
    psi.UseShellExecute <- false
    psi.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] <- "1"
    psi.Environment["DOTNET_NOLOGO"] <- "1"
    psi.Environment["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] <- "1"
    psi.Environment["MSBUILDDISABLENODEREUSE"] <- "1"
    psi.Environment["DOTNET_CLI_USE_MSBUILD_SERVER"] <- "0"
    psi.Environment["MSBUILDTERMINALLOGGER"] <- "false"
    use p = Process.Start psi
    p.StandardInput.Close()
    let err = p.StandardError.ReadToEndAsync()
    let out = p.StandardOutput.ReadToEnd()
    p.WaitForExit()
    { ExitCode = p.ExitCode; Stdout = out; Stderr = err.Result }

let private props (pairs: (string * string) list) = pairs |> List.map (fun (k, v) -> $"-p:{k}={v}")

/// The JSON object that `-getProperty`/`-getItem` print (the last `{` … `}` block of stdout).
let private parseJsonOutput (stdout: string) =
    let start = stdout.IndexOf '{'
    if start < 0 then None
    else
        try Some(JsonNode.Parse(stdout.Substring start).AsObject()) with _ -> None

let private errorLines (r: ProcessResult) =
    (r.Stdout + "\n" + r.Stderr).Split('\n')
    |> Array.map (fun l -> l.TrimEnd())
    |> Array.filter (fun l -> l.Contains ": error " || l.StartsWith "MSBUILD : error")
    |> String.concat "\n"

let private classify (project: string) (r: ProcessResult) =
    let text = r.Stdout + "\n" + r.Stderr
    let lines = errorLines r
    let message = if lines = "" then text.Trim() else lines
    // Ionide.ProjInfo: "The project file could not be loaded." → ProjectNotFound (102);
    // "not restored" → ProjectNotRestored (100); anything else → GenericError (101).
    if text.Contains "The project file could not be loaded." || text.Contains "MSB1009" then NotFound(project, message)
    elif text.Contains "not restored" then NotRestored project
    else ParsingFailed(project, message)

/// Step A (projinfo-notes §5.2): evaluation without a TargetFramework.
let evaluate (project: string) =
    let dir = Path.GetDirectoryName project
    let args =
        [ "msbuild"; project; "-nologo"; "-nodeReuse:false" ]
        @ props (globalProperties |> List.filter (fun (k, _) -> k = "DesignTimeBuild" || k = "Configuration"))
        @ [ "-getProperty:TargetFramework"; "-getProperty:TargetFrameworks"; "-getProperty:NetCoreRoot"; "-getItem:PackageReference" ]
    let r = runDotnet dir args
    match (if r.ExitCode = 0 then parseJsonOutput r.Stdout else None) with
    | Some json ->
        let p = json["Properties"]
        let tf = string p["TargetFramework"]
        let tfs = string p["TargetFrameworks"]
        // getTfm: TargetFramework, else element [0] of TargetFrameworks split on ';'.
        let chosen = if String.IsNullOrWhiteSpace tf then tfs.Split(';')[0] else tf
        // Implicit packages (FSharp.Core) are defined by the SDK's own files.
        let sdkRoot = string p["NetCoreRoot"]
        let explicitPackages =
            match json["Items"] with
            | null -> []
            | items ->
                match items["PackageReference"] with
                | null -> []
                | refs ->
                    [ for i in refs.AsArray() do
                          let definedBy = string i["DefiningProjectFullPath"]
                          let implicitly =
                              String.Equals(string i["IsImplicitlyDefined"], "true", StringComparison.OrdinalIgnoreCase)
                              || (sdkRoot <> "" && definedBy.StartsWith sdkRoot)
                          if not implicitly then
                              yield string i["Identity"] ]
        Ok(chosen, explicitPackages)
    | None -> Error(classify project r)

let private str (n: JsonNode) = if isNull n then "" else n.GetValue<string>()

let private isSourceArg (a: string) =
    let isSwitch = a.StartsWith "-" && a.Contains ":" || a.StartsWith "-"
    not isSwitch
    && (a.EndsWith(".fs", StringComparison.OrdinalIgnoreCase)
        || a.EndsWith(".fsi", StringComparison.OrdinalIgnoreCase)
        || a.EndsWith(".fsx", StringComparison.OrdinalIgnoreCase))

/// Step B (projinfo-notes §5.3): the design-time build for one target framework.
let designTimeBuild (project: string) (tfm: string) (restore: bool) =
    let dir = Path.GetDirectoryName project
    let args =
        [ "msbuild"; project; "-nologo"; "-nodeReuse:false" ]
        @ (if restore then [ "-restore" ] else [])
        @ [ "-t:" + String.Join(";", designTimeTargets) ]
        @ props globalProperties
        @ (if tfm = "" then [] else [ $"-p:TargetFramework={tfm}" ])
        @ [ "-getItem:FscCommandLineArgs,Compile,_MSBuildProjectReferenceExistent,Reference"
            "-getProperty:" + String.Join(",", readProperties) ]
    let r = runDotnet dir args
    match (if r.ExitCode = 0 then parseJsonOutput r.Stdout else None) with
    | None -> Error(classify project r)
    | Some json ->
        let properties =
            match json["Properties"] with
            | null -> Map.empty
            | p -> p.AsObject() |> Seq.map (fun kv -> kv.Key, str kv.Value) |> Map.ofSeq
        let items (name: string) : JsonObject list =
            match json["Items"] with
            | null -> []
            | i ->
                match i[name] with
                | null -> []
                | a -> a.AsArray() |> Seq.map (fun n -> n.AsObject()) |> List.ofSeq
        let fscArgs = items "FscCommandLineArgs" |> List.map (fun i -> str i["Identity"])
        if fscArgs.IsEmpty then
            Error(ParsingFailed(project, $"The design-time build of {project} gave no FscCommandLineArgs"))
        else
            let full (p: string) = Path.GetFullPath(Path.Combine(dir, p))
            let absolute =
                fscArgs
                |> List.map (fun a ->
                    if a.StartsWith "-o:" then "-o:" + full (a.Substring 3)
                    elif a.StartsWith "--out:" then "--out:" + full (a.Substring 6)
                    elif isSourceArg a then full a
                    else a)
            let sources = absolute |> List.filter isSourceArg
            let others = absolute |> List.filter (isSourceArg >> not)
            let references = others |> List.choose (fun o -> if o.StartsWith "-r:" then Some(o.Substring 3) else None)
            let outputType =
                match others |> List.tryFind (fun o -> o.StartsWith "--target:") with
                | Some t ->
                    match t.Substring(9).ToLowerInvariant() with
                    | "library" -> "lib"
                    | "exe" -> "exe"
                    | other -> other
                | None -> "exe"
            let projectRefs =
                items "_MSBuildProjectReferenceExistent"
                |> List.map (fun i -> str i["Identity"], str i["FullPath"])
            let packages =
                items "Reference"
                |> List.filter (fun i -> str i["NuGetSourceType"] = "Package")
                |> List.map (fun i ->
                    { Name = str i["NuGetPackageId"]
                      Version = str i["NuGetPackageVersion"]
                      FullPath = str i["FullPath"] })
            let compile =
                items "Compile"
                |> List.map (fun i ->
                    { FullPath = str i["FullPath"]
                      Link = (match str i["Link"] with "" -> None | l -> Some l) })
            Ok
                { ProjectFile = project
                  FscArgs = fscArgs
                  SourceFiles = sources
                  OtherOptions = others
                  ProjectReferences = projectRefs
                  PackageReferences = packages
                  References = references
                  OutputType = outputType
                  Properties = properties
                  CompileItems = compile }

// ---------------------------------------------------------------------------------------------
// The cache. The Rust suite copies a fixture to a new temporary directory for every test, so
// the key is made of contents, not paths, and a cached result is stored with the directory
// that holds the project and its references (the "anchor") replaced by a placeholder, to be
// relocated into whichever copy asks.

let private formatVersion = "fsac-double-dotnet-cache-1"

/// FSAC_DOUBLE_RESTORE: "implicit" (default) restores a never-restored project whose only
/// packages are implicit; "never" restores nothing, as FSAC (the design-time build then runs
/// without restore output, and such a project gets no package references).
let restoreMode () =
    match Environment.GetEnvironmentVariable "FSAC_DOUBLE_RESTORE" with
    | "never" -> "never"
    | _ -> "implicit"
let private anchorToken = "@@FSAC_DOUBLE_ANCHOR@@"

let cacheDirectory () =
    match Environment.GetEnvironmentVariable "FSAC_DOUBLE_CACHE_DIR" with
    | null
    | "" -> Path.Combine(Environment.GetFolderPath Environment.SpecialFolder.UserProfile, ".cache", "fslens-fsac-double")
    | d -> d

let private sha (text: string) =
    Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes text)).ToLowerInvariant()

let private readOrEmpty (f: string) =
    try File.ReadAllText f with _ -> ""

/// `ProjectReference Include`s written in a project file (a cheap scan, no MSBuild).
let private writtenProjectReferences (project: string) =
    let text = readOrEmpty project
    let dir = Path.GetDirectoryName project
    Text.RegularExpressions.Regex.Matches(text, "<ProjectReference\\s+Include\\s*=\\s*\"([^\"]+)\"")
    |> Seq.map (fun m -> Path.GetFullPath(Path.Combine(dir, m.Groups[1].Value.Replace('\\', '/'))))
    |> List.ofSeq

/// The project and its transitive written references (absolute, each once).
let private projectClosure (project: string) =
    let seen = Collections.Generic.List<string>()
    let rec visit p =
        if not (seen.Contains p) then
            seen.Add p
            for r in writtenProjectReferences p do
                visit r
    visit project
    List.ofSeq seen

let private commonDirectory (paths: string list) =
    let split (p: string) = p.Split('/', StringSplitOptions.RemoveEmptyEntries)
    match paths |> List.map (Path.GetDirectoryName >> split) with
    | [] -> "/"
    | first :: rest ->
        let n =
            first
            |> Array.mapi (fun i part -> i, part)
            |> Array.takeWhile (fun (i, part) -> rest |> List.forall (fun r -> r.Length > i && r[i] = part))
            |> Array.length
        "/" + String.Join("/", first |> Array.take n)

/// Directory.Build.props/targets, Directory.Packages.props and global.json from `dir` up.
let private importedAbove (dir: string) =
    let names = [ "Directory.Build.props"; "Directory.Build.targets"; "Directory.Packages.props"; "global.json"; "NuGet.Config"; "nuget.config" ]
    let rec up (d: DirectoryInfo) acc =
        if isNull d then acc
        else
            let here = names |> List.map (fun n -> Path.Combine(d.FullName, n)) |> List.filter File.Exists
            up d.Parent (acc @ here)
    up (DirectoryInfo dir) []

/// The cache key of a project and the anchor its paths are stored relative to.
let cacheKey (project: string) =
    let closure = projectClosure project
    let anchor = commonDirectory closure
    let relative (p: string) = if p.StartsWith(anchor + "/") then p.Substring(anchor.Length + 1) else p
    let sb = StringBuilder()
    sb.AppendLine(formatVersion).AppendLine(Environment.Version.ToString()).AppendLine(restoreMode ()) |> ignore
    for p in closure do
        let dir = Path.GetDirectoryName p
        sb.AppendLine("project " + relative p).AppendLine(sha (readOrEmpty p)) |> ignore
        // Only the project's own restore output counts (a referenced project's packages reach
        // it through its own project.assets.json); a referenced project restored meanwhile by
        // another load must not change this project's key.
        let assets = Path.Combine(dir, "obj", "project.assets.json")
        if p <> project then ()
        elif File.Exists assets then
            sb.AppendLine("assets " + sha ((readOrEmpty assets).Replace(anchor, anchorToken))) |> ignore
        else
            sb.AppendLine "assets absent" |> ignore
        for imported in importedAbove dir do
            // The name (relative to the anchor when inside it) and the contents.
            sb.AppendLine("import " + relative imported).AppendLine(sha (readOrEmpty imported)) |> ignore
    sha (sb.ToString()), anchor

let private toJson (p: LoadedProject) (generated: (string * string) list) =
    let o = JsonObject()
    let arr (xs: string seq) = JsonArray(xs |> Seq.map (fun x -> JsonValue.Create x :> JsonNode) |> Array.ofSeq)
    o["ProjectFile"] <- JsonValue.Create p.ProjectFile
    o["FscArgs"] <- arr p.FscArgs
    o["SourceFiles"] <- arr p.SourceFiles
    o["OtherOptions"] <- arr p.OtherOptions
    o["ProjectReferences"] <- JsonArray(p.ProjectReferences |> List.map (fun (r, f) -> arr [ r; f ] :> JsonNode) |> Array.ofList)
    o["PackageReferences"] <- JsonArray(p.PackageReferences |> List.map (fun r -> arr [ r.Name; r.Version; r.FullPath ] :> JsonNode) |> Array.ofList)
    o["References"] <- arr p.References
    o["OutputType"] <- JsonValue.Create p.OutputType
    let props = JsonObject()
    for KeyValue(k, v) in p.Properties do
        props[k] <- JsonValue.Create v
    o["Properties"] <- props
    o["CompileItems"] <- JsonArray(p.CompileItems |> List.map (fun c -> arr [ c.FullPath; defaultArg c.Link "" ] :> JsonNode) |> Array.ofList)
    o["Generated"] <- JsonArray(generated |> List.map (fun (f, t) -> arr [ f; t ] :> JsonNode) |> Array.ofList)
    o

let private jsonOptions =
    JsonSerializerOptions(Encoder = Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping)

let private ofJson (o: JsonObject) =
    let strs (n: JsonNode) = n.AsArray() |> Seq.map str |> List.ofSeq
    let pairs (n: JsonNode) = n.AsArray() |> Seq.map strs |> List.ofSeq
    let project =
        { ProjectFile = str o["ProjectFile"]
          FscArgs = strs o["FscArgs"]
          SourceFiles = strs o["SourceFiles"]
          OtherOptions = strs o["OtherOptions"]
          ProjectReferences = pairs o["ProjectReferences"] |> List.map (fun l -> l[0], l[1])
          PackageReferences = pairs o["PackageReferences"] |> List.map (fun l -> { Name = l[0]; Version = l[1]; FullPath = l[2] })
          References = strs o["References"]
          OutputType = str o["OutputType"]
          Properties = o["Properties"].AsObject() |> Seq.map (fun kv -> kv.Key, str kv.Value) |> Map.ofSeq
          CompileItems = pairs o["CompileItems"] |> List.map (fun l -> { FullPath = l[0]; Link = (if l[1] = "" then None else Some l[1]) }) }
    project, pairs o["Generated"] |> List.map (fun l -> l[0], l[1])

/// Files the design-time build generated into the intermediate directory (AssemblyInfo.fs,
/// AssemblyAttributes.fs): a cached load recreates them in a fresh copy, as a build would.
let private generatedSources (p: LoadedProject) =
    let obj = Path.Combine(Path.GetDirectoryName p.ProjectFile, "obj") + "/"
    p.SourceFiles
    |> List.filter (fun f -> f.StartsWith obj && File.Exists f)
    |> List.map (fun f -> f, File.ReadAllText f)

/// Loads `project` (absolute path): from the cache when its key matches, else by MSBuild
/// (restoring first when the project has no restore output and only implicit packages).
let load (project: string) : Result<LoadedProject, LoadError> =
    let project = Path.GetFullPath project
    if not (File.Exists project) then
        Error(NotFound(project, $"couldn't find project {project}"))
    else
        let key, anchor = cacheKey project
        let cacheFile = Path.Combine(cacheDirectory (), key + ".json")
        let cached =
            if File.Exists cacheFile then
                try
                    let text = File.ReadAllText(cacheFile).Replace(anchorToken, anchor.Replace("\\", "\\\\").Replace("\"", "\\\""))
                    Some(ofJson (JsonNode.Parse(text).AsObject()))
                with e ->
                    log $"unreadable cache entry {cacheFile}: {e.Message}"
                    None
            else None
        match cached with
        | Some(p, generated) ->
            for f, text in generated do
                if not (File.Exists f) then
                    try
                        Directory.CreateDirectory(Path.GetDirectoryName f) |> ignore
                        File.WriteAllText(f, text)
                    with _ -> ()
            log $"{project}: from the cache"
            Ok p
        | None ->
            let sw = Stopwatch.StartNew()
            match evaluate project with
            | Error e -> Error e
            | Ok(tfm, explicitPackages) ->
                let dir = Path.GetDirectoryName project
                let restored = File.Exists(Path.Combine(dir, "obj", "project.assets.json"))
                if not restored && not explicitPackages.IsEmpty then
                    // FSAC never restores: a project whose packages were never restored fails to
                    // load (error 100). Projects with only the implicit FSharp.Core are restored
                    // here, since the fixtures carry no obj/ (see README).
                    Error(NotRestored project)
                else
                    let result = designTimeBuild project tfm (not restored && restoreMode () <> "never")
                    log $"{project}: design-time build ({tfm}) in {sw.ElapsedMilliseconds} ms"
                    match result with
                    | Ok p when anchor.Length < 2 -> Ok p
                    | Ok p ->
                        try
                            Directory.CreateDirectory(cacheDirectory ()) |> ignore
                            let text = (toJson p (generatedSources p)).ToJsonString(jsonOptions)
                            let escapedAnchor = anchor.Replace("\\", "\\\\").Replace("\"", "\\\"")
                            let tmp = cacheFile + $".{Environment.ProcessId}.tmp"
                            File.WriteAllText(tmp, text.Replace(escapedAnchor, anchorToken))
                            File.Move(tmp, cacheFile, true)
                        with e -> log $"cannot write cache {cacheFile}: {e.Message}"
                        Ok p
                    | Error e -> Error e
