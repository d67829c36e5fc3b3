/// One fslens session, the way an editor holds one: fslens started as a language server on
/// pipes (`fslens [--fsac CMD] --workspace DIR`), `initialize`d, then asked
/// `workspace/executeCommand` for each find. Requests fslens sends (progress tokens,
/// configuration) are answered with `null`; notifications are read and dropped.
module FslensSession

open System
open System.Diagnostics
open System.IO
open System.Text
open System.Text.Json
open System.Text.Json.Nodes

type Session(fslens: string, workspace: string, fsac: string option, logFile: string) =
    let startInfo =
        let info = ProcessStartInfo(fslens)
        fsac |> Option.iter (fun command -> info.ArgumentList.Add "--fsac"; info.ArgumentList.Add command)
        info.ArgumentList.Add "--workspace"
        info.ArgumentList.Add workspace
        info.ArgumentList.Add "--log-file"
        info.ArgumentList.Add logFile
        match Environment.GetEnvironmentVariable "ORACLE_TRACE" with
        | null | "" -> ()
        | trace -> info.ArgumentList.Add "--trace-messages"; info.ArgumentList.Add trace
        info.WorkingDirectory <- workspace
        info.RedirectStandardInput <- true
        info.RedirectStandardOutput <- true
        info.RedirectStandardError <- true
        info.UseShellExecute <- false
        info

    let proc = Process.Start startInfo
    do proc.ErrorDataReceived.Add ignore
    do proc.BeginErrorReadLine()
    let input = proc.StandardInput.BaseStream
    let output = proc.StandardOutput.BaseStream
    let mutable nextId = 1

    let write (message: JsonNode) =
        let body = Encoding.UTF8.GetBytes(message.ToJsonString())
        let header = Encoding.ASCII.GetBytes $"Content-Length: {body.Length}\r\n\r\n"
        input.Write(header, 0, header.Length)
        input.Write(body, 0, body.Length)
        input.Flush()

    let readLine () =
        let bytes = ResizeArray<byte>()
        let mutable finished = false
        while not finished do
            match output.ReadByte() with
            | -1 -> failwith "fslens closed its output"
            | 10 -> finished <- true
            | value -> bytes.Add(byte value)
        Encoding.ASCII.GetString(bytes.ToArray()).TrimEnd('\r')

    let read () : JsonNode =
        let mutable length = -1
        let mutable headerDone = false
        while not headerDone do
            let line = readLine ()
            if line = "" then headerDone <- length >= 0
            elif line.StartsWith("Content-Length:", StringComparison.OrdinalIgnoreCase) then
                length <- int (line.Substring(15).Trim())
        let body = Array.zeroCreate<byte> length
        let mutable offset = 0
        while offset < length do
            let count = output.Read(body, offset, length - offset)
            if count = 0 then failwith "fslens closed its output mid-message"
            offset <- offset + count
        JsonNode.Parse(Encoding.UTF8.GetString body)

    /// Sends a request and reads until its answer, answering fslens's own requests on the way.
    member _.Request(methodName: string, parameters: JsonNode) : JsonNode =
        let id = nextId
        nextId <- nextId + 1
        let request = JsonObject()
        request["jsonrpc"] <- JsonValue.Create "2.0"
        request["id"] <- JsonValue.Create id
        request["method"] <- JsonValue.Create methodName
        request["params"] <- parameters
        write request
        let mutable answer = None
        while answer.IsNone do
            let message = read ()
            let hasMethod = message.AsObject().ContainsKey "method"
            let hasId = message.AsObject().ContainsKey "id"
            if hasMethod && hasId then
                let reply = JsonObject()
                reply["jsonrpc"] <- JsonValue.Create "2.0"
                reply["id"] <- message["id"].DeepClone()
                reply["result"] <- null
                write reply
            elif hasId && message["id"].GetValueKind() = JsonValueKind.Number && message["id"].GetValue<int>() = id then
                answer <- Some message
        answer.Value

    member this.Notify(methodName: string, parameters: JsonNode) =
        let message = JsonObject()
        message["jsonrpc"] <- JsonValue.Create "2.0"
        message["method"] <- JsonValue.Create methodName
        message["params"] <- parameters
        write message

    member this.Initialize() =
        let parameters = JsonObject()
        parameters["processId"] <- JsonValue.Create(Environment.ProcessId)
        parameters["rootUri"] <- JsonValue.Create(Uri(Path.GetFullPath workspace + "/").AbsoluteUri)
        parameters["capabilities"] <- JsonObject()
        let answer = this.Request("initialize", parameters)
        if answer.AsObject().ContainsKey "error" then
            failwithf "fslens refused initialize: %s" (answer.ToJsonString())
        this.Notify("initialized", JsonObject())

    /// `fslens.<command>` with one argument object: the `result`, or the error as `Error`.
    member this.Execute(command: string, argument: JsonObject) : Result<JsonNode, JsonNode> =
        let parameters = JsonObject()
        parameters["command"] <- JsonValue.Create $"fslens.{command}"
        let arguments = JsonArray()
        arguments.Add argument
        parameters["arguments"] <- arguments
        let answer = this.Request("workspace/executeCommand", parameters)
        match answer["error"] with
        | null -> Ok answer["result"]
        | error -> Error error

    interface IDisposable with
        member this.Dispose() =
            try
                this.Request("shutdown", null) |> ignore
                this.Notify("exit", null)
                if not (proc.WaitForExit 10000) then proc.Kill true
            with _ ->
                (try proc.Kill true with _ -> ())
