module FsacDouble.Program

open System
open System.Threading

[<EntryPoint>]
let main argv =
    match argv with
    | [| "--version" |] ->
        // Like FSAC's `--version` (fslens doctor reads it): one line, before any SDK check.
        printfn "FsacDouble %s (the FSAC protocol double of fslens's tests)" (string (Reflection.Assembly.GetExecutingAssembly().GetName().Version))
        0
    | [| "--load"; project |] ->
        match ProjectLoader.load project with
        | Ok p ->
            printfn "%s %s %s" p.ProjectFile p.TargetFramework p.OutputType
            for s in p.SourceFiles do printfn "  src %s" s
            for r in p.ProjectReferences do printfn "  projref %A" r
            for r in p.PackageReferences do printfn "  pkg %s %s" r.Name r.Version
            printfn "  %d refs, defines %s" p.References.Length (String.Join(" ", p.Defines))
            0
        | Error e ->
            printfn "error %d %s" e.Code e.Message
            1
    | [| "--nav"; file |] ->
        // Debugging aid: the navigation items FCS gives for a file.
        for i, container in Server.navigationItems (IO.Path.GetFullPath file) do
            printfn "%s %A %A %s in %s" i.LogicalName i.Kind i.Glyph (i.Range.ToString()) container
        0
    | _ ->
        // Like FSAC: the SDK check runs before any LSP I/O and ends the process.
        match Faults.sdkPinFailure Environment.CurrentDirectory with
        | Some failure ->
            eprintfn "%s" failure
            1
        | None ->
            if argv.Length > 0 then Transport.log $"ignoring FSAC flags: {String.Join(' ', argv)}"
            // Start the compiler now (nothing waits for it until a check) unless told to wait.
            if not Faults.lazyCompiler then
                ThreadPool.QueueUserWorkItem(fun _ ->
                    try
                        let c = Workspace.checker.Value
                        // Warm up: parse a tiny file so the first real check costs less.
                        c.ParseFile("/warmup.fsx", FSharp.Compiler.Text.SourceText.ofString "let x = 1", FSharp.Compiler.CodeAnalysis.FSharpParsingOptions.Default) |> Async.RunSynchronously |> ignore
                    with e -> Transport.log $"compiler warm-up failed: {e.Message}") |> ignore
            Transport.log $"listening (cwd {Environment.CurrentDirectory}; sweep delay {Faults.sweepDelayMs} ms)"
            Transport.readLoop Handlers.dispatch (fun () ->
                Transport.log "stdin closed: exit 2"
                exit 2)
            2
