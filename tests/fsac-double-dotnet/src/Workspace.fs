/// The loaded workspace: projects and their FCS options, open documents, the file system the
/// compiler reads (open buffers win over the disk, as FSAC's), and cached check results.
module FsacDouble.Workspace

open System
open System.IO
open System.Collections.Concurrent
open FSharp.Compiler.CodeAnalysis
open FSharp.Compiler.IO
open FSharp.Compiler.Text
open FsacDouble.ProjectLoader

type Document = { Uri: string; Text: string; Version: int; Stamp: int64 }

let documents = ConcurrentDictionary<string, Document>()
let mutable private editCounter = 0L
let nextStamp () = Threading.Interlocked.Increment &editCounter

/// Reads open documents from their buffers (FSAC's LSP file system); BOMs of disk files are
/// dropped by the compiler's own reader, as .NET's File.ReadAllText does for FSAC.
type BufferFileSystem() =
    inherit DefaultFileSystem()
    override _.OpenFileForReadShim(filePath, ?useMemoryMappedFile, ?shouldShadowCopy) =
        match documents.TryGetValue(Path.GetFullPath filePath) with
        | true, d -> new MemoryStream(Text.Encoding.UTF8.GetBytes d.Text) :> Stream
        | _ -> base.OpenFileForReadShim(filePath, ?useMemoryMappedFile = useMemoryMappedFile, ?shouldShadowCopy = shouldShadowCopy)
    override _.GetLastWriteTimeShim(fileName) =
        match documents.TryGetValue(try Path.GetFullPath fileName with _ -> fileName) with
        | true, d -> DateTime(2001, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddTicks(d.Stamp * 10000L)
        | _ -> base.GetLastWriteTimeShim fileName
    override _.FileExistsShim(fileName) =
        documents.ContainsKey(try Path.GetFullPath fileName with _ -> fileName) || base.FileExistsShim fileName

let checker =
    lazy
        (FileSystemAutoOpens.FileSystem <- BufferFileSystem()
         FSharpChecker.Create(
             projectCacheSize = 200,
             keepAllBackgroundResolutions = true,
             keepAllBackgroundSymbolUses = true,
             suggestNamesForErrors = true,
             enablePartialTypeChecking = false
         ))

/// Text of a file: the open buffer, else the disk without a UTF-8 byte-order mark.
let text (file: string) =
    match documents.TryGetValue file with
    | true, d -> d.Text
    | _ ->
        try File.ReadAllText file with _ -> ""

type Project =
    { Loaded: LoadedProject
      Path: string
      mutable Options: FSharpProjectOptions }
    member p.Sources = p.Loaded.SourceFiles
    member p.AssemblyName =
        match p.Loaded.Property "AssemblyName" with
        | "" -> Path.GetFileNameWithoutExtension p.Path
        | n -> n

/// Loaded projects in load order.
let mutable projects: Project list = []

let projectByPath (p: string) = projects |> List.tryFind (fun x -> x.Path = p)

/// FSAC's options (projinfo-notes §4a): referenced fsprojs as in-memory FSharpReferences.
/// With `keep`, projects it accepts keep their options (and so their compiler state).
let buildOptionsKeeping (keep: Project -> bool) =
    let built = Collections.Generic.Dictionary<string, FSharpProjectOptions>()
    let rec optionsOf (p: Project) =
        match built.TryGetValue p.Path with
        | true, o -> o
        | _ when keep p && not (obj.ReferenceEquals(p.Options, null)) ->
            built[p.Path] <- p.Options
            p.Options
        | _ ->
            let refs =
                p.Loaded.ProjectReferences
                |> List.choose (fun (_, full) -> projectByPath full)
                |> List.map (fun r -> FSharpReferencedProject.FSharpReference(r.Loaded.ResolvedTargetPath, optionsOf r))
            let o =
                { ProjectFileName = p.Path
                  ProjectId =
                      (if obj.ReferenceEquals(p.Options, null) then Some(Guid.NewGuid().ToString()) else p.Options.ProjectId)
                  SourceFiles = Array.ofList p.Loaded.SourceFiles
                  OtherOptions = Array.ofList p.Loaded.OtherOptions
                  ReferencedProjects = Array.ofList refs
                  IsIncompleteTypeCheckEnvironment = false
                  UseScriptResolutionRules = false
                  LoadTime = DateTime.Now
                  UnresolvedReferences = None
                  OriginalLoadReferences = []
                  Stamp = Some DateTime.UtcNow.Ticks }
            built[p.Path] <- o
            o
    for p in projects do
        p.Options <- optionsOf p

let buildOptions () =
    for p in projects do
        p.Options <- Unchecked.defaultof<_>
    buildOptionsKeeping (fun _ -> false)

let isScript (file: string) =
    file.EndsWith ".fsx" || file.EndsWith ".fsscript" || file.EndsWith ".sketchfs" || file.StartsWith "untitled:"

/// Projects whose own sources include `file`, in load order.
let owners (file: string) = projects |> List.filter (fun p -> p.Sources |> List.contains file)

/// Projects that can see `file`'s declarations: its owners and their transitive dependents.
let seeing (file: string) =
    let result = Collections.Generic.List<Project>(owners file)
    let mutable changed = true
    while changed do
        changed <- false
        for p in projects do
            if not (result.Contains p)
               && p.Loaded.ProjectReferences |> List.exists (fun (_, r) -> result |> Seq.exists (fun x -> x.Path = r)) then
                result.Add p
                changed <- true
    List.ofSeq result

/// After a change to `file`, the projects that reference its project get new options (a new
/// stamp): FCS only notices a referenced project's new text when the referencing project's
/// options change (FSAC's adaptive options change the same way).
let refreshDependents (file: string) =
    let own = owners file |> List.map (fun p -> p.Path) |> Set.ofList
    let dependents = seeing file |> List.filter (fun p -> not (own.Contains p.Path)) |> List.map (fun p -> p.Path) |> Set.ofList
    if not dependents.IsEmpty then buildOptionsKeeping (fun p -> not (dependents.Contains p.Path))

// ---- scripts ---------------------------------------------------------------------------------

let private untitledNames = ConcurrentDictionary<string, string>()

/// The file name FCS knows a document by: untitled: buffers are Untitled-N.fsx in the process
/// directory, as FSAC maps them.
let fcsName (file: string) =
    if file.StartsWith "untitled:" then
        untitledNames.GetOrAdd(file, fun _ -> Path.Combine(Environment.CurrentDirectory, $"Untitled-{untitledNames.Count + 1}.fsx"))
    else file

let private scriptOptions = ConcurrentDictionary<string, int64 * FSharpProjectOptions>()

let optionsForScript (file: string) =
    async {
        let stamp = match documents.TryGetValue file with | true, d -> d.Stamp | _ -> 0L
        match scriptOptions.TryGetValue file with
        | true, (s, o) when s = stamp -> return o
        | _ ->
            let! o, _ =
                checker.Value.GetProjectOptionsFromScript(
                    fcsName file,
                    SourceText.ofString (text file),
                    assumeDotNetFramework = false,
                    useSdkRefs = true,
                    useFsiAuxLib = true
                )
            scriptOptions[file] <- (stamp, o)
            return o
    }

/// The options that answer questions about `file`: an open script's own script options, else
/// the first loaded owner's.
let optionsFor (file: string) =
    async {
        if isScript file then
            if documents.ContainsKey file then
                let! o = optionsForScript file
                return Some o
            else return None
        else
            match owners file with
            | p :: _ -> return Some p.Options
            | [] -> return None
    }

// ---- checks ----------------------------------------------------------------------------------

let private checkCache = ConcurrentDictionary<string * string, int64 * (int * int) * FSharpParseFileResults * FSharpCheckFileResults>()

let version (file: string) = match documents.TryGetValue file with | true, d -> d.Version | _ -> 0

/// Generation of the workspace text: any edit, open, close or save changes it.
let mutable generation = 0L
let invalidate () = Threading.Interlocked.Increment &generation |> ignore

/// Parse and check `file` in `options`, reusing results until the next edit; also gives the
/// version and the length of the text that was checked (taken with the text, before the check).
let checkVersioned (options: FSharpProjectOptions) (file: string) =
    async {
        let key = options.ProjectFileName, file
        let gen = generation
        match checkCache.TryGetValue key with
        | true, (g, v, p, c) when g = gen -> return Some(p, c, v)
        | _ ->
            let v, snapshot =
                match documents.TryGetValue file with
                | true, d -> d.Version, d.Text
                | _ -> 0, text file
            let! parse, answer =
                checker.Value.ParseAndCheckFileInProject(fcsName file, v, SourceText.ofString snapshot, options)
            match answer with
            | FSharpCheckFileAnswer.Succeeded c ->
                checkCache[key] <- (gen, (v, snapshot.Length), parse, c)
                return Some(parse, c, (v, snapshot.Length))
            | FSharpCheckFileAnswer.Aborted -> return None
    }

let check (options: FSharpProjectOptions) (file: string) =
    async {
        match! checkVersioned options file with
        | Some(p, c, _) -> return Some(p, c)
        | None -> return None
    }
