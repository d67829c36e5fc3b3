/// FSAC's workspace peek (Ionide.ProjInfo WorkspacePeek): .sln (text), .slnx (XML), .slnf
/// (JSON filter) and the directory's .fsproj files, and the AutomaticWorkspaceInit choice.
module FsacDouble.Solutions

open System
open System.IO
open System.Text.RegularExpressions
open System.Text.Json.Nodes
open FsacDouble.Json

type Solution = { Path: string; Items: JsonNode list; Projects: string list }

type Found =
    | SolutionFound of Solution
    | DirectoryFound of directory: string * fsprojs: string list

let private folderGuid = "2150E333-8FDC-42A3-9474-1A3956D46DE8"
let private norm (p: string) = p.Replace('\\', '/')
let private full (dir: string) (p: string) = Path.GetFullPath(Path.Combine(dir, norm p))

let private projectItem guid (path: string) =
    obj [ "Guid", str guid; "Name", str path; "Kind", obj [ "Kind", str "msbuildFormat"; "Data", obj [ "Configurations", arr [] ] ] ]

let private folderItem guid name (items: JsonNode list) =
    obj [ "Guid", str guid; "Name", str name; "Kind", obj [ "Kind", str "folder"; "Data", obj [ "Items", arr items; "Files", arr [] ] ] ]

type private Entry = { Guid: string; Name: string; IsFolder: bool; Path: string; mutable Parent: string option }

let readSln (sln: string) =
    let text = File.ReadAllText sln
    if not (text.Contains "Microsoft Visual Studio Solution File") then failwith $"not a solution file: {sln}"
    let dir = Path.GetDirectoryName sln
    let entries =
        [ for m in Regex.Matches(text, "^Project\\(\"\\{([^}]+)\\}\"\\)\\s*=\\s*\"([^\"]*)\",\\s*\"([^\"]*)\",\\s*\"\\{([^}]+)\\}\"", RegexOptions.Multiline) do
              let isFolder = m.Groups[1].Value.ToUpperInvariant() = folderGuid
              { Guid = m.Groups[4].Value.ToUpperInvariant()
                Name = m.Groups[2].Value
                IsFolder = isFolder
                Path = (if isFolder then "" else full dir m.Groups[3].Value)
                Parent = None } ]
    let nested = Regex.Match(text, "GlobalSection\\(NestedProjects\\)[^\\n]*\\n([\\s\\S]*?)EndGlobalSection")
    if nested.Success then
        for m in Regex.Matches(nested.Groups[1].Value, "\\{([^}]+)\\}\\s*=\\s*\\{([^}]+)\\}") do
            match entries |> List.tryFind (fun e -> e.Guid = m.Groups[1].Value.ToUpperInvariant()) with
            | Some child when entries |> List.exists (fun e -> e.Guid = m.Groups[2].Value.ToUpperInvariant()) ->
                child.Parent <- Some(m.Groups[2].Value.ToUpperInvariant())
            | _ -> ()
    let rec toItem (e: Entry) : JsonNode =
        if e.IsFolder then
            folderItem e.Guid e.Name (entries |> List.filter (fun c -> c.Parent = Some e.Guid) |> List.map toItem)
        else projectItem e.Guid e.Path
    { Path = sln
      Items = entries |> List.filter (fun e -> e.Parent.IsNone) |> List.map toItem
      Projects = entries |> List.filter (fun e -> not e.IsFolder) |> List.map (fun e -> e.Path) }

let readSlnx (slnx: string) =
    let doc = Xml.Linq.XDocument.Load slnx
    if doc.Root.Name.LocalName <> "Solution" then failwith $"not an slnx solution: {slnx}"
    let dir = Path.GetDirectoryName slnx
    let mutable n = 0
    let guid () =
        n <- n + 1
        $"00000000-0000-0000-0000-%012d{n}"
    let projects = Collections.Generic.List<string>()
    // Folders nest by their "/a/b/" names.
    let rec items (parentName: string) : JsonNode list =
        let children = doc.Root.Descendants() |> List.ofSeq
        let folders =
            children
            |> List.filter (fun e -> e.Name.LocalName = "Folder")
            |> List.map (fun e -> (e.Attribute(Xml.Linq.XName.Get "Name") |> Option.ofObj |> Option.map (fun a -> a.Value) |> Option.defaultValue ""), e)
        let parentOf (name: string) =
            let parts = name.Split('/', StringSplitOptions.RemoveEmptyEntries)
            if parts.Length <= 1 then "" else "/" + String.Join("/", parts[.. parts.Length - 2]) + "/"
        let canon (name: string) = "/" + String.Join("/", name.Split('/', StringSplitOptions.RemoveEmptyEntries)) + "/"
        let ownProjects =
            children
            |> List.filter (fun e ->
                e.Name.LocalName = "Project"
                && (match e.Parent with
                    | p when p.Name.LocalName = "Folder" -> canon (p.Attribute(Xml.Linq.XName.Get "Name").Value) = parentName
                    | _ -> parentName = "/"))
            |> List.map (fun e ->
                let p = full dir (e.Attribute(Xml.Linq.XName.Get "Path").Value)
                projects.Add p
                projectItem (guid ()) p)
        let subFolders =
            folders
            |> List.filter (fun (name, _) -> (match parentOf name with "" -> "/" | p -> p) = parentName)
            |> List.map (fun (name, _) ->
                let parts = name.Split('/', StringSplitOptions.RemoveEmptyEntries)
                folderItem (guid ()) (Array.last parts) (items (canon name)))
        subFolders @ ownProjects
    let top = items "/"
    { Path = slnx; Items = top; Projects = List.ofSeq projects }

let rec readSolution (p: string) =
    let lower = p.ToLowerInvariant()
    if lower.EndsWith ".slnx" then readSlnx p
    elif lower.EndsWith ".slnf" then readSlnf p
    else readSln p

and readSlnf (slnf: string) =
    let filter = JsonNode.Parse(File.ReadAllText(slnf).TrimStart('\uFEFF'))
    let solution = filter["solution"]
    let written = solution["path"].GetValue<string>()
    let baseSolution = readSolution (full (Path.GetDirectoryName slnf) written)
    let baseDir = Path.GetDirectoryName baseSolution.Path
    let kept =
        solution["projects"].AsArray()
        |> Seq.choose (fun n -> try Some(full baseDir (n.GetValue<string>())) with _ -> None)
        |> Set.ofSeq
    let rec keep (items: JsonNode list) : JsonNode list =
        items
        |> List.collect (fun item ->
            let kind = (path [ "Kind"; "Kind" ] item).GetValue<string>()
            if kind <> "folder" then
                if kept.Contains(item["Name"].GetValue<string>()) then [ item.DeepClone() ] else []
            else
                let inner = keep ((path [ "Kind"; "Data"; "Items" ] item).AsArray() |> List.ofSeq)
                if inner.IsEmpty then []
                else [ folderItem (item["Guid"].GetValue<string>()) (item["Name"].GetValue<string>()) inner ])
    { Path = slnf; Items = keep baseSolution.Items; Projects = baseSolution.Projects |> List.filter kept.Contains }

/// Solutions found up to `deep` levels below `directory`, then the directory entry.
let peek (directory: string) (deep: int) (excluded: string list) =
    let excluded = excluded |> List.map (fun d -> d.ToLowerInvariant()) |> Set.ofList
    let solutions = Collections.Generic.List<string>()
    let fsprojs = Collections.Generic.List<string>()
    let rec walk (dir: string) level =
        let entries =
            try Directory.GetFileSystemEntries dir |> Array.sortWith (fun a b -> String.CompareOrdinal(a, b)) with _ -> [||]
        for e in entries do
            let name = Path.GetFileName e
            if Directory.Exists e then
                if level < deep && not (excluded.Contains(name.ToLowerInvariant())) then walk e (level + 1)
            elif Regex.IsMatch(name, "\\.(sln|slnx|slnf)$", RegexOptions.IgnoreCase) then solutions.Add e
            elif name.EndsWith(".fsproj", StringComparison.OrdinalIgnoreCase) then fsprojs.Add e
    walk directory 0
    [ for s in solutions do
          match (try Some(readSolution s) with _ -> None) with
          | Some sol -> yield SolutionFound sol
          | None -> ()
      yield DirectoryFound(directory, fsprojs |> Seq.sort |> List.ofSeq) ]

/// AutomaticWorkspaceInit: the solution with most projects, else the directory's fsprojs.
let chooseAutomatic (found: Found list) =
    let sols = found |> List.choose (function SolutionFound s -> Some s | _ -> None)
    match sols with
    | [] -> found |> List.tryPick (function DirectoryFound(_, ps) -> Some ps | _ -> None) |> Option.defaultValue []
    | _ ->
        let most = sols |> List.map (fun s -> s.Projects.Length) |> List.max
        (sols |> List.find (fun s -> s.Projects.Length = most)).Projects

let peekForWire (found: Found list) : JsonNode =
    found
    |> List.map (function
        | SolutionFound s ->
            obj [ "Type", str "solution"; "Data", obj [ "Path", str s.Path; "Items", arr s.Items; "Configurations", arr [] ] ]
        | DirectoryFound(d, ps) ->
            obj [ "Type", str "directory"; "Data", obj [ "Directory", str d; "Fsprojs", arr (ps |> List.map str) ] ])
    |> arr
