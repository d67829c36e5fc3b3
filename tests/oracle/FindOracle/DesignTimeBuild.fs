/// A project's compiler options the way FSAC gets them (Ionide.ProjInfo's design-time build),
/// through `dotnet msbuild`: evaluate the target frameworks, take the first (as FSAC does),
/// run the compile targets with `SkipCompilerExecution` and `ProvideCommandLineArgs`, and read
/// the `FscCommandLineArgs` items: every `--define:`, `-r:` and flag of a real build, sources
/// last. The projects must be restored first (`restore`).
module DesignTimeBuild

open System
open System.Diagnostics
open System.IO
open System.Text.Json

type LoadedProject =
    { ProjectFile: string
      TargetFramework: string
      /// Every target framework the project declares; FSAC loads the first.
      TargetFrameworks: string list
      /// Absolute paths, in compile order.
      SourceFiles: string list
      /// Every other argument, in order (`--define:`, `-r:`, flags).
      OtherOptions: string list
      /// The output assembly and the reference assembly other projects compile against.
      TargetPath: string
      TargetRefPath: string }

let private run (workingDirectory: string) (arguments: string list) =
    let info = ProcessStartInfo("dotnet", arguments)
    info.WorkingDirectory <- workingDirectory
    info.RedirectStandardOutput <- true
    info.RedirectStandardError <- true
    info.UseShellExecute <- false
    info.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] <- "1"
    info.Environment["DOTNET_NOLOGO"] <- "1"
    use proc = Process.Start info
    let stdoutTask = proc.StandardOutput.ReadToEndAsync()
    let stderrTask = proc.StandardError.ReadToEndAsync()
    proc.WaitForExit()
    proc.ExitCode, stdoutTask.Result, stderrTask.Result

let private fail what (project: string) (code: int) (stdout: string) (stderr: string) =
    failwithf "%s of %s failed (exit %d):\n%s%s" what project code stdout stderr

/// `dotnet restore` of a solution or project, as a user (and FSAC's loader) does before a load.
let restore (path: string) =
    let code, stdout, stderr = run (Path.GetDirectoryName path) [ "restore"; path; "-nologo" ]
    if code <> 0 then fail "dotnet restore" path code stdout stderr

let private property (document: JsonDocument) (name: string) =
    match document.RootElement.TryGetProperty "Properties" with
    | true, properties ->
        match properties.TryGetProperty name with
        | true, value -> value.GetString()
        | _ -> ""
    | _ -> ""

/// Loads one restored project in its first target framework.
let load (projectFile: string) : LoadedProject =
    let directory = Path.GetDirectoryName projectFile
    let code, stdout, stderr =
        run directory [ "msbuild"; projectFile; "-getProperty:TargetFramework"; "-getProperty:TargetFrameworks" ]
    if code <> 0 then fail "evaluating" projectFile code stdout stderr
    use evaluation = JsonDocument.Parse stdout
    let frameworks =
        (property evaluation "TargetFrameworks").Split(';', StringSplitOptions.RemoveEmptyEntries)
        |> Array.map (fun framework -> framework.Trim())
        |> List.ofArray
    let framework =
        match property evaluation "TargetFramework" with
        | "" -> List.head frameworks
        | single -> single
    let code, stdout, stderr =
        run
            directory
            [ "msbuild"
              projectFile
              $"-p:TargetFramework={framework}"
              "-t:ResolveAssemblyReferencesDesignTime;ResolveProjectReferencesDesignTime;ResolvePackageDependenciesDesignTime;FindReferenceAssembliesForReferences;_GenerateCompileDependencyCache;BeforeBuild;BeforeCompile;CoreCompile"
              "-p:DesignTimeBuild=true"
              "-p:SkipCompilerExecution=true"
              "-p:ProvideCommandLineArgs=true"
              "-p:BuildProjectReferences=false"
              "-p:NonExistentFile=__NonExistentSubDir__/__NonExistentFile__"
              "-getItem:FscCommandLineArgs"
              "-getProperty:TargetPath"
              "-getProperty:TargetRefPath" ]
    if code <> 0 then fail "the design-time build" projectFile code stdout stderr
    use build = JsonDocument.Parse stdout
    let arguments =
        [ for item in build.RootElement.GetProperty("Items").GetProperty("FscCommandLineArgs").EnumerateArray() ->
              item.GetProperty("Identity").GetString() ]
    if List.isEmpty arguments then
        failwithf "the design-time build of %s gave no compiler arguments" projectFile
    let isSource (argument: string) =
        not (argument.StartsWith "-")
        && [ ".fs"; ".fsi"; ".fsx" ] |> List.exists (fun extension -> argument.EndsWith(extension, StringComparison.OrdinalIgnoreCase))
    let sources, others = arguments |> List.partition isSource
    { ProjectFile = projectFile
      TargetFramework = framework
      TargetFrameworks = if List.isEmpty frameworks then [ framework ] else frameworks
      SourceFiles = sources |> List.map (fun source -> Path.GetFullPath(Path.Combine(directory, source)))
      OtherOptions = others
      TargetPath = property build "TargetPath"
      TargetRefPath = property build "TargetRefPath" }
