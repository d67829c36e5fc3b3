/// FSAC's test explorer (0.79+): `test/discoverTests` and `test/runTests`, with the
/// `test/testDiscoveryUpdate` and `test/testRunProgressUpdate` notifications and the
/// `test/processWaitingForDebugger` request. Like FSAC (`AdaptiveServerState.DiscoverTests` and
/// `RunTests`, `FsAutoComplete.Core/VSTestWrapper.fs`, `TestServer.fs`), this drives the SDK's
/// own `vstest.console.dll` through VSTest's translation layer (`VsTestConsoleWrapper`), whose
/// assembly the .NET SDK ships next to `vstest.console.dll` (the NuGet package is not needed):
/// the test cases, results, progress chunks, log messages and the debugger hand-shake are
/// VSTest's own, and their JSON is what FSAC's serializer makes of them.
module FsacDouble.TestExplorer

open System
open System.IO
open System.Diagnostics
open System.Threading
open System.Text.Json.Nodes
open Microsoft.TestPlatform.VsTestConsole.TranslationLayer
open Microsoft.VisualStudio.TestPlatform.ObjectModel
open Microsoft.VisualStudio.TestPlatform.ObjectModel.Client
open Microsoft.VisualStudio.TestPlatform.ObjectModel.Client.Interfaces
open Microsoft.VisualStudio.TestPlatform.ObjectModel.Logging
open FsacDouble.Json
open FsacDouble.Transport
open FsacDouble.Workspace
open FsacDouble.Server

type VsTestCase = Microsoft.VisualStudio.TestPlatform.ObjectModel.TestCase
type VsTestResult = Microsoft.VisualStudio.TestPlatform.ObjectModel.TestResult
type VsTestOutcome = Microsoft.VisualStudio.TestPlatform.ObjectModel.TestOutcome

// ---- which projects are test projects ------------------------------------------------------

/// FSAC's `TestProjectHelpers.isTestProject`: a project that references one of these packages
/// (its `PackageReferences`, the NuGet `Reference` items of the design-time build). FSAC does
/// not read the `IsTestProject` property for this.
let private testProjectIndicators = set [ "Microsoft.TestPlatform.TestHost"; "Microsoft.NET.Test.Sdk" ]

let isTestProject (p: Project) =
    p.Loaded.PackageReferences |> List.exists (fun r -> testProjectIndicators.Contains r.Name)

// ---- finding vstest.console.dll (VSTestWrapper.tryFindVsTestFromDotnetRoot) ----------------------

/// FSAC's `DotNetRoot` default: `DOTNET_ROOT`, else the root of the running .NET.
let private dotnetRoot () =
    match Environment.GetEnvironmentVariable "DOTNET_ROOT" with
    | d when not (String.IsNullOrEmpty d) && Directory.Exists d -> d
    | _ ->
        let runtimeDir = DirectoryInfo(Runtime.InteropServices.RuntimeEnvironment.GetRuntimeDirectory().TrimEnd('/'))
        runtimeDir.Parent.Parent.Parent.FullName

/// `dotnet --version` in the workspace root (global.json applies), then that SDK's
/// `vstest.console.dll`; FSAC's error texts.
let tryFindVsTest () : Result<string, string> =
    let root = dotnetRoot ()
    let dotnet = Path.Combine(root, "dotnet")
    let cwd = DirectoryInfo(rootPath)
    let version =
        try
            let psi = ProcessStartInfo(dotnet, "--version", WorkingDirectory = cwd.FullName, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false)
            psi.Environment["DOTNET_CLI_UI_LANGUAGE"] <- "en"
            use p = Process.Start psi
            let err = p.StandardError.ReadToEndAsync()
            let out = p.StandardOutput.ReadToEnd()
            p.WaitForExit()
            err.Wait()
            if p.ExitCode = 0 && out.Trim() <> "" then Some(out.Trim()) else None
        with _ -> None
    match version with
    | None -> Error $"Couldn't identify the dotnet version for working directory: {cwd.FullName}"
    | Some v ->
        let sdk = Path.Combine(root, "sdk", v)
        if not (Directory.Exists sdk) then Error $"Couldn't find the install location for dotnet sdk version: {v}"
        else
            let vstest = FileInfo(Path.Combine(sdk, "vstest.console.dll"))
            if vstest.Exists then Ok vstest.FullName
            else Error $"Found the correct dotnet sdk, but vstest was not at the expected sub-path: {vstest.FullName}"

// ---- FSAC's DTOs as its Newtonsoft serializer writes them --------------------------------------

/// `TestServer.TestItem.ofVsTestCase`. Record members in declaration order, options as their
/// value or null. FSAC always writes `CodeFilePath` and `CodeLocationRange` (both `Some`):
/// when the adapter gives no source location, VSTest's `TestCase.CodeFilePath` is null (so
/// `"CodeFilePath": null`) and `LineNumber` is -1 (so `{"StartLine": -1, "EndLine": -1}`).
/// xUnit's adapter (xunit.runner.visualstudio 3.x) gives the file and the line of the test
/// method from the PDB, also for F#; there is no end line or column in VSTest's TestCase, so
/// `EndLine` is the start line.
let testItem (project: Project) (tc: VsTestCase) : JsonNode =
    obj
        [ "FullName", str tc.FullyQualifiedName
          "DisplayName", str tc.DisplayName
          "ExecutorUri", str (string tc.ExecutorUri)
          "ProjectFilePath", str project.Path
          "TargetFramework", str project.Loaded.TargetFramework
          "CodeFilePath", str tc.CodeFilePath
          "CodeLocationRange", obj [ "StartLine", num tc.LineNumber; "EndLine", num tc.LineNumber ] ]

/// `TestServer.TestOutcome` is an enum that Newtonsoft writes as its number.
let outcomeNumber (o: VsTestOutcome) =
    match o with
    | VsTestOutcome.Failed -> 0
    | VsTestOutcome.Passed -> 1
    | VsTestOutcome.Skipped -> 2
    | VsTestOutcome.None -> 3
    | VsTestOutcome.NotFound -> 4
    | _ -> 3

/// `TestServer.TestResult.ofVsTestResult`: empty texts become null; `AdditionalOutput` is the
/// result's messages joined with the platform's new line; `Duration` a TimeSpan as Newtonsoft
/// writes it (`TimeSpan.ToString()`, "c": `00:00:00.0144450`).
let testResult (project: Project) (r: VsTestResult) : JsonNode =
    let text (s: string) = if String.IsNullOrEmpty s then jnull else str s
    obj
        [ "TestItem", testItem project r.TestCase
          "Outcome", num (outcomeNumber r.Outcome)
          "ErrorMessage", text r.ErrorMessage
          "ErrorStackTrace", text r.ErrorStackTrace
          "AdditionalOutput",
          (match List.ofSeq r.Messages with
           | [] -> jnull
           | messages -> str (messages |> List.map (fun m -> m.Text) |> String.concat Environment.NewLine))
          "Duration", str (r.Duration.ToString "c") ]

let private logEntry (level: TestMessageLevel) (message: string) : JsonNode =
    obj [ "Level", str (string level); "Message", str message ]

/// FSAC's notifications carry their payload as a JSON string in `content` (a PlainNotification).
let private notifyContent (method: string) (payload: JsonNode) = notify method (obj [ "content", str (serialize payload) ])

/// FSAC's default run settings (VSTestWrapper.RunSettings.defaultRunSettings), verbatim.
let private runSettings =
    "<RunSettings>
    <RunConfiguration>
        <DesignMode>False</DesignMode>
    </RunConfiguration>
</RunSettings>"

// ---- the requests ----------------------------------------------------------------------------

let private showError (message: string) =
    notify "window/showMessage" (obj [ "type", num 1; "message", str message ])

/// One VSTest session per request, as FSAC creates one `VsTestConsoleWrapper` per request. FSAC
/// never ends them (each vstest.console lives on until FSAC exits); the double ends its session
/// when the request is done, so that no vstest.console outlives the request.
let private withVsTest (vstestPath: string) (f: VsTestConsoleWrapper -> 'a) =
    let vstest = new VsTestConsoleWrapper(vstestPath, ConsoleParameters())
    try f vstest
    finally
        try vstest.EndSession() with e -> log $"vstest EndSession failed: {e.Message}"

/// FSAC's handlers catch what VSTest throws and answer `JsonRpc.Error.InternalError (string e)`
/// (`returnException`); a cancellation stays one.
let private asFsacDoes (work: Async<JsonNode>) =
    async {
        try return! work
        with
        | LspError _
        | Cancelled as e -> return raise e
        | :? OperationCanceledException -> return raise Cancelled
        | e -> return raise (LspError(INTERNAL_ERROR, string e))
    }

/// `test/discoverTests`: the test cases VSTest finds in the test projects' built assemblies
/// (`TargetPath`), streaming `test/testDiscoveryUpdate` as VSTest reports chunks and logs.
let discoverTests (ct: CancellationToken) : Async<JsonNode> =
    asFsacDoes <| async {
        let vstestPath =
            match tryFindVsTest () with
            | Ok p -> p
            | Error message -> raise (LspError(INTERNAL_ERROR, message))
        let tests = projects |> List.filter isTestProject
        let binaries = tests |> List.map (fun p -> p.Loaded.TargetPath)
        if tests.IsEmpty then
            let message = "No test projects found. Make sure you've restored your projects"
            showError message
            raise (LspError(INTERNAL_ERROR, message))
        elif not (binaries |> List.exists File.Exists) then
            let message = "No binaries found for test projects. Make sure you've built your projects"
            showError message
            raise (LspError(INTERNAL_ERROR, message))
        let byBinary = tests |> List.map (fun p -> p.Loaded.TargetPath, p) |> Map.ofList
        // VSTest's Source is the path it was given: a case from another source is dropped, as FSAC does.
        let items (cases: VsTestCase seq) =
            cases |> Seq.choose (fun tc -> byBinary |> Map.tryFind tc.Source |> Option.map (fun p -> testItem p tc)) |> List.ofSeq
        let found = Collections.Generic.List<VsTestCase>()
        let progress (cases: VsTestCase seq) =
            if not (isNull cases) then
                found.AddRange cases
                notifyContent "test/testDiscoveryUpdate" (obj [ "Tests", arr (items cases); "TestLogs", arr [] ])
        let handler =
            { new ITestDiscoveryEventsHandler with
                member _.HandleDiscoveredTests(cases) = progress cases
                member _.HandleDiscoveryComplete(_total, lastChunk, _aborted) = progress lastChunk
                member _.HandleLogMessage(level, message) =
                    notifyContent "test/testDiscoveryUpdate" (obj [ "Tests", arr []; "TestLogs", arr [ logEntry level message ] ])
                member _.HandleRawMessage(_) = () }
        let sw = Stopwatch.StartNew()
        withVsTest vstestPath (fun vstest ->
            use _cancel = ct.Register(fun () -> vstest.CancelDiscovery())
            vstest.DiscoverTests(binaries, null, handler))
        log $"test/discoverTests: {found.Count} tests in {binaries.Length} assemblies in {sw.ElapsedMilliseconds} ms"
        if ct.IsCancellationRequested then raise Cancelled
        return envelope "discoverTests" (arr (items found))
    }

/// A test host launcher in debug mode (VSTestWrapper.TestHostLauncher): VSTest starts the test
/// host itself and asks for a debugger with the host's process id; the answer is the client's.
type private DebugLauncher(onAttachDebugger: int -> bool) =
    interface ITestHostLauncher3 with
        member _.IsDebug = true
        member _.LaunchTestHost(_: TestProcessStartInfo) : int = raise (NotImplementedException())
        member _.LaunchTestHost(_: TestProcessStartInfo, _: CancellationToken) : int = raise (NotImplementedException())
        member _.AttachDebuggerToProcess(info: AttachDebuggerInfo, _: CancellationToken) = onAttachDebugger info.ProcessId
        member _.AttachDebuggerToProcess(pid: int) = onAttachDebugger pid
        member _.AttachDebuggerToProcess(pid: int, _: CancellationToken) = onAttachDebugger pid

/// `test/runTests` `{limitToProjects?, testCaseFilter?, attachDebugger}`: VSTest runs the test
/// projects' built assemblies (FSAC builds nothing: a stale assembly runs stale tests),
/// streaming `test/testRunProgressUpdate` with each chunk of results VSTest reports.
let runTests (p: JsonNode) (ct: CancellationToken) : Async<JsonNode> =
    asFsacDoes <| async {
        let limitToProjects =
            match prop "limitToProjects" p with
            | :? JsonArray as a -> Some(a |> Seq.choose asString |> Seq.map Path.GetFullPath |> Set.ofSeq)
            | _ -> None
        let testCaseFilter = prop "testCaseFilter" p |> asString
        let attachDebugger = asBool (prop "attachDebugger" p) |> Option.defaultValue false
        let vstestPath =
            match tryFindVsTest () with
            | Ok p -> p
            | Error message -> raise (LspError(INTERNAL_ERROR, message))
        let tests = projects |> List.filter isTestProject
        let chosen =
            match limitToProjects with
            | None -> tests
            | Some wanted -> tests |> List.filter (fun t -> wanted.Contains t.Path)
        let binaries = chosen |> List.map (fun t -> t.Loaded.TargetPath)
        let byBinary = tests |> List.map (fun t -> t.Loaded.TargetPath, t) |> Map.ofList
        let results (rs: VsTestResult seq) =
            rs |> Seq.choose (fun r -> byBinary |> Map.tryFind r.TestCase.Source |> Option.map (fun t -> testResult t r)) |> List.ofSeq
        let all = Collections.Generic.List<VsTestResult>()
        let progress (args: TestRunChangedEventArgs) =
            if not (isNull args) && not (isNull args.NewTestResults) then
                all.AddRange args.NewTestResults
                let active =
                    if isNull args.ActiveTests then []
                    else args.ActiveTests |> Seq.choose (fun tc -> byBinary |> Map.tryFind tc.Source |> Option.map (fun t -> testItem t tc)) |> List.ofSeq
                notifyContent "test/testRunProgressUpdate" (obj [ "TestLogs", arr []; "TestResults", arr (results args.NewTestResults); "ActiveTests", arr active ])
        let handler =
            { new ITestRunEventsHandler with
                member _.HandleLogMessage(level, message) =
                    notifyContent "test/testRunProgressUpdate" (obj [ "TestLogs", arr [ logEntry level message ]; "TestResults", arr []; "ActiveTests", arr [] ])
                member _.HandleRawMessage(_) = ()
                member _.HandleTestRunComplete(_complete, lastChunk, _attachments, _executors) = progress lastChunk
                member _.HandleTestRunStatsChange(args) = progress args
                member _.LaunchProcessWithDebuggerAttached(_) = raise (NotImplementedException()) }
        // FSAC's onAttachDebugger: the client's boolean; an error answer counts as false. With
        // false VSTest runs the tests all the same, without a debugger.
        let onAttachDebugger (pid: int) =
            log $"test/runTests: test host {pid} waits for a debugger"
            try
                let answer = request "test/processWaitingForDebugger" (obj [ "content", str (string pid) ])
                answer.Wait ct
                let attached = asBool answer.Result |> Option.defaultValue false
                log $"test/runTests: the client answered {attached}"
                attached
            with e ->
                log $"Failed to attach debugger for test run with Process Id: {pid}; {e.Message}"
                false
        let options = TestPlatformOptions()
        testCaseFilter |> Option.iter (fun f -> options.TestCaseFilter <- f)
        let sw = Stopwatch.StartNew()
        withVsTest vstestPath (fun vstest ->
            use _cancel = ct.Register(fun () ->
                log "test/runTests: cancelling the run"
                vstest.CancelTestRun())
            if attachDebugger then
                vstest.RunTestsWithCustomTestHost(binaries, runSettings, options, handler, DebugLauncher onAttachDebugger)
            else vstest.RunTests(binaries, runSettings, options, handler))
        log $"test/runTests: {all.Count} results from {binaries.Length} assemblies in {sw.ElapsedMilliseconds} ms"
        if ct.IsCancellationRequested then raise Cancelled
        return envelope "runTests" (arr (results all))
    }
