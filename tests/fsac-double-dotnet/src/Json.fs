/// Small builders over System.Text.Json.Nodes.
module FsacDouble.Json

open System.Text.Json
open System.Text.Json.Nodes

let str (s: string) : JsonNode = if isNull s then null else JsonValue.Create s
let num (i: int) : JsonNode = JsonValue.Create i
let num64 (i: int64) : JsonNode = JsonValue.Create i
let bool (b: bool) : JsonNode = JsonValue.Create b
let jnull : JsonNode = null
let obj (pairs: (string * JsonNode) list) : JsonNode =
    let o = JsonObject()
    for k, v in pairs do
        o[k] <- v
    o
let arr (items: JsonNode seq) : JsonNode = JsonArray(Array.ofSeq items)

let options = JsonSerializerOptions(Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping)
let serialize (n: JsonNode) = if isNull n then "null" else n.ToJsonString options

/// Property lookup without regard to case (FSAC reads parameters with Newtonsoft).
let prop (name: string) (n: JsonNode) : JsonNode =
    match n with
    | :? JsonObject as o ->
        o |> Seq.tryFind (fun kv -> System.String.Equals(kv.Key, name, System.StringComparison.OrdinalIgnoreCase))
        |> Option.map (fun kv -> kv.Value)
        |> Option.defaultValue null
    | _ -> null

let asString (n: JsonNode) =
    match n with
    | :? JsonValue as v ->
        match v.TryGetValue<string>() with
        | true, s -> Some s
        | _ -> None
    | _ -> None

let asInt (n: JsonNode) =
    match n with
    | :? JsonValue as v ->
        match v.TryGetValue<int>() with
        | true, i -> Some i
        | _ ->
            match v.TryGetValue<int64>() with
            | true, i -> Some(int i)
            | _ ->
                match v.TryGetValue<double>() with
                | true, d when d = floor d -> Some(int d)
                | _ -> None
    | _ -> None

let asBool (n: JsonNode) =
    match n with
    | :? JsonValue as v ->
        match v.TryGetValue<bool>() with
        | true, b -> Some b
        | _ -> None
    | _ -> None

/// `a.b.c` path lookup (exact case), null when any step is missing.
let path (names: string list) (n: JsonNode) =
    names |> List.fold (fun (cur: JsonNode) name -> match cur with :? JsonObject as o -> o[name] | _ -> null) n

/// A member of a JSON object, or null.
let field (name: string) (o: JsonObject) : JsonNode = o[name]
