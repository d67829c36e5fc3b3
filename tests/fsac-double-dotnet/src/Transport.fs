/// Content-Length framing on stdio with the fault hooks: the transcript, exit-after,
/// garbage-after, hang-on, grow-per-request, and a single writer that keeps output order and
/// delays responses (FSAC_DOUBLE_DELAY_MS).
module FsacDouble.Transport

open System
open System.IO
open System.Text
open System.Text.Json.Nodes
open System.Threading
open System.Threading.Tasks
open System.Collections.Concurrent
open FsacDouble.Json

let private pid = Environment.ProcessId
let private started = Diagnostics.Stopwatch.StartNew()
let log (s: string) = eprintfn "[fsac-double %d +%dms] %s" pid started.ElapsedMilliseconds s

let private transcriptLock = Object()
let mutable private seq = 0

let private epochMs () = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()

/// Appends one JSON line to FSAC_DOUBLE_TRANSCRIPT.
let record (dir: string) (message: JsonNode) =
    match Faults.transcript with
    | None -> ()
    | Some file ->
        lock transcriptLock (fun () ->
            seq <- seq + 1
            let line = Json.obj [ "seq", num seq; "dir", str dir; "time", num64 (epochMs ()); "message", (if isNull message then null else message.DeepClone()) ]
            File.AppendAllText(file, serialize line + "\n"))

let private stdout' = Console.OpenStandardOutput()
let private writeLock = Object()

let private writeFrame (body: string) =
    let bytes = Encoding.UTF8.GetBytes body
    let header = Encoding.ASCII.GetBytes $"Content-Length: {bytes.Length}\r\n\r\n"
    lock writeLock (fun () ->
        try
            stdout'.Write(header, 0, header.Length)
            stdout'.Write(bytes, 0, bytes.Length)
            stdout'.Flush()
        with e ->
            log $"stdout failed ({e.Message}): exit 2"
            exit 2)

type private Outgoing =
    | Message of JsonNode * isResponse: bool
    | Garbage

let private queue = new BlockingCollection<Outgoing>()

let private writer =
    let t =
        Thread(
            (fun () ->
                for item in queue.GetConsumingEnumerable() do
                    match item with
                    | Garbage ->
                        record "out" (Json.obj [ "garbage", str Faults.garbageBody ])
                        writeFrame Faults.garbageBody
                    | Message(m, isResponse) ->
                        if isResponse && Faults.delayMs > 0L then Thread.Sleep(int Faults.delayMs)
                        record "out" m
                        writeFrame (serialize m)),
            IsBackground = true,
            Name = "writer"
        )
    t.Start()
    t

let send (message: JsonNode) =
    let isResponse = (message :? JsonObject) && (message.AsObject().ContainsKey "id") && not (message.AsObject().ContainsKey "method")
    queue.Add(Message(message, isResponse))

let notify (method: string) (params': JsonNode) =
    let m = Json.obj [ "jsonrpc", str "2.0"; "method", str method ]
    if not (isNull params') then m["params"] <- params'
    send m

/// A notification with no `params` member at all.
let notifyWithoutParams (method: string) = send (Json.obj [ "jsonrpc", str "2.0"; "method", str method ])

let respond (id: JsonNode) (result: JsonNode) =
    send (Json.obj [ "jsonrpc", str "2.0"; "id", id.DeepClone(); "result", result ])

let respondError (id: JsonNode) (code: int) (message: string) =
    send (Json.obj [ "jsonrpc", str "2.0"; "id", id.DeepClone(); "error", Json.obj [ "code", num code; "message", str message ] ])

let private nextServerId = ref 0
let private pending = ConcurrentDictionary<string, TaskCompletionSource<JsonNode>>()

/// A server→client request; resolves with the client's result (or null on an error answer).
let request (method: string) (params': JsonNode) =
    let id = Interlocked.Increment nextServerId
    let tcs = TaskCompletionSource<JsonNode>(TaskCreationOptions.RunContinuationsAsynchronously)
    pending[string id] <- tcs
    send (Json.obj [ "jsonrpc", str "2.0"; "id", num id; "method", str method; "params", params' ])
    tcs.Task

let resolveServerRequest (message: JsonObject) =
    match field "id" message with
    | null -> false
    | id ->
        let mutable tcs = null
        if pending.TryRemove(id.ToJsonString(), &tcs) then
            match field "error" message with
            | null -> tcs.TrySetResult(field "result" message) |> ignore
            | e -> tcs.TrySetException(Exception(serialize e)) |> ignore
            true
        else false

/// Reads frames from stdin; calls `onMessage` for every parsed message (after the fault
/// hooks) and `onClose` at end of input.
let readLoop (onMessage: JsonObject -> unit) (onClose: unit -> unit) =
    let input = Console.OpenStandardInput()
    let buffer = Collections.Generic.List<byte>()
    let chunk = Array.zeroCreate<byte> 65536
    let mutable received = 0L
    let mutable closed = false
    let headerEnd () =
        let mutable found = -1
        let mutable i = 0
        while found < 0 && i + 3 < buffer.Count do
            if buffer[i] = 13uy && buffer[i + 1] = 10uy && buffer[i + 2] = 13uy && buffer[i + 3] = 10uy then found <- i
            i <- i + 1
        found
    while not closed do
        let n = try input.Read(chunk, 0, chunk.Length) with _ -> 0
        if n <= 0 then closed <- true
        else
            buffer.AddRange(ArraySegment(chunk, 0, n))
            let mutable more = true
            while more do
                let h = headerEnd ()
                if h < 0 then more <- false
                else
                    let header = Encoding.ASCII.GetString(buffer.GetRange(0, h).ToArray())
                    let length =
                        header.Split("\r\n")
                        |> Array.tryPick (fun l ->
                            let i = l.IndexOf ':'
                            if i > 0 && l.Substring(0, i).Trim().Equals("Content-Length", StringComparison.OrdinalIgnoreCase) then
                                match Int32.TryParse(l.Substring(i + 1).Trim()) with
                                | true, v -> Some v
                                | _ -> None
                            else None)
                    match length with
                    | None ->
                        log $"frame without Content-Length dropped: {header}"
                        buffer.RemoveRange(0, h + 4)
                    | Some len when buffer.Count >= h + 4 + len ->
                        let body = Encoding.UTF8.GetString(buffer.GetRange(h + 4, len).ToArray())
                        buffer.RemoveRange(0, h + 4 + len)
                        let parsed = try JsonNode.Parse body with _ -> null
                        match parsed with
                        | :? JsonObject as message ->
                            record "in" message
                            received <- received + 1L
                            match Faults.exitAfter with
                            | Some n when received >= n ->
                                log $"FSAC_DOUBLE_EXIT_AFTER={n}: exiting with code {Faults.exitCode}"
                                exit Faults.exitCode
                            | _ -> ()
                            if Faults.garbageAfter = Some received then
                                log $"FSAC_DOUBLE_GARBAGE_AFTER={received}: writing a garbage frame"
                                queue.Add Garbage
                            let isRequest = message.ContainsKey "id" && message.ContainsKey "method"
                            if isRequest then Faults.growForRequest ()
                            let method = field "method" message |> asString |> Option.defaultValue ""
                            if isRequest && Faults.hangOn.Contains method then
                                log $"FSAC_DOUBLE_HANG_ON: never answering {method}"
                            else
                                try onMessage message
                                with e -> log $"message handling failed: {e}"
                        | _ -> log "a frame whose body is not a JSON object: ignored"
                    | Some _ -> more <- false
    onClose ()
