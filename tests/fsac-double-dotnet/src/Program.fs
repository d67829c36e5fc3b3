module FsacDouble.Program

open System

[<EntryPoint>]
let main argv =
    match argv with
    | [| "--load"; project |] ->
        match ProjectLoader.load project with
        | Ok p ->
            printfn "%s %s %s" p.ProjectFile p.TargetFramework p.OutputType
            for s in p.SourceFiles do printfn "  src %s" s
            for r in p.ProjectReferences do printfn "  projref %A" r
            for r in p.PackageReferences do printfn "  pkg %A" r
            printfn "  %d refs, defines %A" p.References.Length p.Defines
            0
        | Error e ->
            printfn "error %d %s" e.Code e.Message
            1
    | _ -> 0
