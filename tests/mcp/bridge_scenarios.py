"""Drives `fslens mcp` with the official MCP Python SDK client (PyPI `mcp`, 2.3.0).

Run by tests/it/mcp_bridge.rs, which prepares the workspace, the editor session and the
environment, then reads the JSON report this script prints on its last stdout line and makes
its assertions there. The script itself checks only what it needs to go on.

    python bridge_scenarios.py editor    # an editor session runs: join it
    python bridge_scenarios.py own       # none runs: the first bridge starts one, a second joins
    python bridge_scenarios.py broken    # none runs and FSAC cannot start: the session says why
    python bridge_scenarios.py long_lines  # find pages of sites on very long lines fit 40 KiB
    python bridge_scenarios.py wide_text   # find pages of CJK lines: the bridge asks for fewer rows
    python bridge_scenarios.py what_if     # a what-if check through the check tool
    python bridge_scenarios.py confirm_build  # a check confirmed by the build through the check tool
    python bridge_scenarios.py rename    # fixtures/rename: a rename preview and its typed errors
    python bridge_scenarios.py code_actions  # fixtures/code-actions: navigate codeActions, one applied
    python bridge_scenarios.py schemas   # every tool's generated input schema, from tools/list
    python bridge_scenarios.py code_actions_disk  # fixtures/code-actions: one action written to disk

Environment: FSLENS_BIN, FSLENS_WORKSPACE, FSLENS_FSAC_COMMAND, XDG_RUNTIME_DIR, and any
FSAC_DOUBLE_* variables (passed on to the bridge, and so to an FSAC it starts).
"""

import json
import os
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

WORKSPACE = os.environ["FSLENS_WORKSPACE"]


def server_parameters() -> StdioServerParameters:
    environment = {"XDG_RUNTIME_DIR": os.environ["XDG_RUNTIME_DIR"], "RUST_LOG": "fslens=info"}
    environment.update({name: value for name, value in os.environ.items() if name.startswith("FSAC_DOUBLE_")})
    return StdioServerParameters(
        command=os.environ["FSLENS_BIN"],
        args=["mcp", "--workspace", WORKSPACE, "--fsac", os.environ["FSLENS_FSAC_COMMAND"]],
        env=environment,
    )


def parse(result) -> dict:
    """The JSON body, footer and error flag of a tool result (text: [summary], body, footer)."""
    text = result.content[0].text
    lines = text.split("\n")
    return {"body": json.loads(lines[-2]), "footer": lines[-1], "isError": bool(result.is_error), "bytes": len(text.encode())}


async def call(session: ClientSession, tool: str, arguments: dict, **options) -> dict:
    return parse(await session.call_tool(tool, arguments, **options))


async def ready_status(session: ClientSession) -> dict:
    return await call(session, "status", {"waitUntil": "ready", "timeoutMs": 60000})


class ListChanges:
    """Counts the `notifications/tools/list_changed` the bridge sends."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, message) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.count += 1


async def wait_for(predicate, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await anyio.sleep(0.02)
    return True


async def editor_scenario() -> dict:
    report: dict = {}
    list_changes = ListChanges()
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write, message_handler=list_changes) as session:
            await session.initialize()
            # The default list is the core tools; the agent asks for the rest by group.
            report["defaultTools"] = [tool.name for tool in (await session.list_tools()).tools]
            report["groupsBefore"] = await call(session, "activate_tools", {})
            report["badGroup"] = await call(session, "activate_tools", {"groups": ["everything"]})
            report["activated"] = await call(
                session,
                "activate_tools",
                {"groups": ["navigation", "diagnostics", "session"], "tools": ["make_internal_visible"]},
            )
            report["listChangedSeen"] = await wait_for(lambda: list_changes.count >= 1)
            report["listChanged"] = list_changes.count
            report["activatedAgain"] = await call(session, "activate_tools", {"groups": ["navigation", "core"]})
            report["listChangedAfterRepeat"] = list_changes.count
            tools = await session.list_tools()
            report["tools"] = [
                {
                    "name": tool.name,
                    "descriptionLength": len(tool.description or ""),
                    "schemaType": tool.input_schema.get("type"),
                    "required": tool.input_schema.get("required", []),
                }
                for tool in tools.tools
            ]
            report["status"] = await ready_status(session)

            # The editor typed a type error into Program.fs without saving it.
            report["check"] = await call(session, "check", {"path": "src/Shipping.App/Program.fs"})
            report["diagnostics"] = await call(session, "diagnostics", {"path": "src/Shipping.App/Program.fs"})
            # It also added a call to `heavier` there, unsaved: find must see it.
            if any(tool.name == "find" for tool in tools.tools):
                report["find"] = await call(session, "find", {"query": "heavier", "timeoutMs": 60000})
            if any(tool.name == "field_impact" for tool in tools.tools):
                report["fieldImpact"] = await call(session, "field_impact", {"field": "Shipment.Weight", "timeoutMs": 60000})

            escapes = []
            for written in json.loads(os.environ["FSLENS_ESCAPES"]):
                for tool, arguments in [
                    ("check", {"path": written}),
                    ("symbol_at_word", {"path": written, "line": 0, "word": "x"}),
                    ("navigate", {"operation": "documentSymbol", "path": written}),
                    ("outline", {"path": written}),
                ]:
                    answer = await call(session, tool, arguments)
                    escapes.append({"tool": tool, "path": written, "isError": answer["isError"], "error": answer["body"].get("error")})
            report["escapes"] = escapes

            report["symbolAtWord"] = await call(
                session, "symbol_at_word", {"path": "src/Shipping.Domain/Operations.fs", "line": 2, "word": "create"}
            )
            report["navigateDefinition"] = await call(
                session,
                "navigate",
                {"operation": "definition", "path": "src/Shipping.App/Program.fs", "line": 6, "word": "create"},
            )
            report["outline"] = await call(session, "outline", {"path": "src/Shipping.Domain/Types.fs"})
            report["makeInternalVisible"] = await call(
                session,
                "make_internal_visible",
                {"path": "src/Shipping.Domain/Visibility.fs", "line": 16, "word": "Hidden"},
            )

            # Cancellation: FSAC swallows textDocument/documentSymbol (FSAC_DOUBLE_HANG_ON), so the
            # call runs until the client gives up, which sends notifications/cancelled.
            progress: list = []

            async def on_progress(value, total, message):
                progress.append({"progress": value, "message": message})

            started = time.monotonic()
            try:
                answer = await call(
                    session,
                    "navigate",
                    {"operation": "documentSymbol", "path": "src/Shipping.Domain/Types.fs"},
                    read_timeout_seconds=2.5,
                    progress_callback=on_progress,
                )
                cancelled = {"completed": answer}
            except Exception as error:  # the SDK raises MCPError on its read timeout
                cancelled = {"raised": type(error).__name__, "message": str(error)}
            cancelled["elapsedSeconds"] = time.monotonic() - started
            cancelled["progress"] = progress
            # The session answers the cancel at once; give it a moment, then look.
            pending = None
            for _ in range(50):
                await anyio.sleep(0.1)
                status = await call(session, "status", {})
                pending = status["body"]["pendingRequests"]
                if pending.get("proxyToFsac") == 0:
                    break
            cancelled["pendingAfter"] = pending
            report["cancellation"] = cancelled

            # The same hung request with timeoutMs: the bridge gives up by itself and says so.
            started = time.monotonic()
            timed_out = await call(
                session,
                "navigate",
                {"operation": "documentSymbol", "path": "src/Shipping.Domain/Types.fs", "timeoutMs": 500},
            )
            timed_out["elapsedSeconds"] = time.monotonic() - started
            report["timedOut"] = timed_out

            report["statusAfter"] = await call(session, "status", {})
    return report


async def own_session_scenario() -> dict:
    report: dict = {}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as first:
            await first.initialize()
            report["firstTools"] = [tool.name for tool in (await first.list_tools()).tools]

            # FSAC loads the workspace slowly here (FSAC_DOUBLE_SLOW_LOAD_MS), and a check waits
            # for the load: the client gives up after a second and the session aborts the check.
            started = time.monotonic()
            try:
                answer = await call(first, "check", {}, read_timeout_seconds=1.0)
                check_cancelled = {"completed": answer}
            except Exception as error:  # the SDK raises MCPError on its read timeout
                check_cancelled = {"raised": type(error).__name__, "message": str(error)}
            check_cancelled["elapsedSeconds"] = time.monotonic() - started
            for _ in range(50):
                status = await call(first, "status", {})
                # Only this status call itself is still running.
                if status["body"]["pendingRequests"].get("commands") == 1:
                    break
                await anyio.sleep(0.1)
            check_cancelled["statusAfter"] = status["body"]
            report["checkCancellation"] = check_cancelled
            report["first"] = await ready_status(first)
            async with stdio_client(server_parameters(), errlog=sys.stderr) as (read2, write2):
                async with ClientSession(read2, write2) as second:
                    await second.initialize()
                    report["second"] = await ready_status(second)
                    report["secondCheck"] = await call(second, "check", {"path": "src/Shipping.Domain/Types.fs"})
            report["firstAfterSecondLeft"] = await call(first, "status", {})
    return report


async def fsac_cannot_start_scenario() -> dict:
    """The workspace pins an SDK FSAC cannot find: the session stays, and tools say why."""
    report: dict = {}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["tools"] = [tool.name for tool in (await session.list_tools()).tools]
            report["status"] = await call(session, "status", {})
            report["check"] = await call(session, "check", {})
            # navigate is not listed yet: calling it still works, and lists its group from now on.
            report["navigate"] = await call(session, "navigate", {"operation": "workspaceSymbol", "query": "x"})
            report["toolsAfterCall"] = [tool.name for tool in (await session.list_tools()).tools]
    return report


async def find_two_pages(query: str) -> dict:
    """The first two pages of a find for `query`, read with no editor session: the bridge must
    fit each page into its 40 KiB output, asking again with fewer rows when the page it planned
    to its UTF-16 budget is still too many bytes, and the cursor must continue the page it
    returned. Used on fixtures/long-lines (sites on very long lines) and fixtures/wide-text
    (sites on lines of CJK text)."""
    report: dict = {}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["status"] = await ready_status(session)
            report["first"] = await call(session, "find", {"query": query, "maxResults": 1000})
            cursor = report["first"]["body"].get("nextCursor")
            report["second"] = await call(session, "find", {"query": query, "maxResults": 1000, "cursor": cursor})
    return report


async def what_if_scenario() -> dict:
    """fixtures/what-if with no editor session: a what-if through the check tool changes
    `Price: int` to `Price: string` in Catalog/Item.fs, which breaks the construction in
    Orders/Order.fs; a plain check afterwards is the baseline again."""
    report: dict = {}
    with open(os.path.join(WORKSPACE, "Catalog/Item.fs"), encoding="utf-8") as item:
        line = item.read().split("\n")[2]
    at = line.index("int")
    edit = {
        "path": "Catalog/Item.fs",
        "range": {"start": {"line": 2, "character": at}, "end": {"line": 2, "character": at + 3}},
        "newText": "string",
    }
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["status"] = await ready_status(session)
            report["whatIf"] = await call(session, "check", {"edits": [edit]})
            report["after"] = await call(session, "check", {})
    return report


async def confirm_build_scenario() -> dict:
    """fixtures/build-confirm (restored) with no editor session: the check tool with
    `confirm: "build"`, whose build compiles what FSAC's per-file check flags."""
    report: dict = {}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["status"] = await ready_status(session)
            report["confirmed"] = await call(session, "check", {"confirm": "build", "timeoutMs": 240000})
    return report


async def rename_scenario() -> dict:
    """fixtures/rename through the `rename` tool: a preview, the typed errors at a keyword and
    in a string, `apply: "editor"` refused (the bridge's own session has no editor), and a
    name two fields share answered `ambiguous` with both."""
    report: dict = {}
    at = {"path": "Billing/Types.fs", "line": 2, "word": "Total", "newName": "Amount"}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["status"] = await ready_status(session)
            report["preview"] = await call(session, "rename", at)
            report["keyword"] = await call(session, "rename", {"path": "Shop/Program.fs", "line": 4, "character": 0, "newName": "x"})
            report["string"] = await call(session, "rename", {"path": "Shop/Program.fs", "line": 8, "character": 15, "newName": "x"})
            report["editor"] = await call(session, "rename", {**at, "apply": "editor"})
            report["ambiguous"] = await call(session, "rename", {"symbol": "Total", "newName": "Amount", "apply": "editor"})
    return report


async def calls_scenario() -> dict:
    """fixtures/rename through `navigate`: who calls orderTotal (from another project), what
    billed calls, a page of one call site, and a keyword position."""
    report: dict = {}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["status"] = await ready_status(session)
            callee = {"path": "Billing/Types.fs", "line": 6, "word": "orderTotal"}
            report["incoming"] = await call(session, "navigate", {"operation": "incomingCalls", **callee})
            caller = {"path": "Shop/Program.fs", "line": 7, "word": "billed"}
            report["outgoing"] = await call(session, "navigate", {"operation": "outgoingCalls", **caller})
            report["page"] = await call(session, "navigate", {"operation": "outgoingCalls", **caller, "maxResults": 1, "offset": 1})
            report["keyword"] = await call(session, "navigate", {"operation": "incomingCalls", "path": "Shop/Program.fs", "line": 4, "character": 0})
            report["string"] = await call(session, "navigate", {"operation": "outgoingCalls", "path": "Shop/Program.fs", "line": 8, "character": 15})
            report["nothing"] = await call(session, "navigate", {"operation": "incomingCalls", "path": "Shop/Program.fs", "line": 4, "character": 17})
    return report


async def implementations_scenario() -> dict:
    """fixtures/implementations through `navigate` `implementation`: at an interface member's
    declaration, at a use of it, and at the interface's name."""
    report: dict = {}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["status"] = await ready_status(session)
            at = lambda line, word: {"operation": "implementation", "path": "Shapes/Shapes.fs", "line": line, "word": word}
            report["member"] = await call(session, "navigate", at(3, "Area"))
            report["use"] = await call(session, "navigate", at(18, "Area"))
            report["type"] = await call(session, "navigate", at(2, "IShape"))
            report["hierarchy"] = await call(session, "navigate", {**at(2, "IShape"), "operation": "typeHierarchy"})
            report["square"] = await call(session, "navigate", {**at(9, "Square"), "operation": "typeHierarchy"})
    return report


async def code_actions_scenario() -> dict:
    """fixtures/code-actions through `navigate` `codeActions`: FSAC's fix for the FS0027 at a
    position, both fixes over a range of lines, nothing on a clean line, `actionIndex` refused
    without `apply` and when several actions are offered, then one action applied through the
    session's editor (which accepts it, or says why not)."""
    report: dict = {}
    at = {"operation": "codeActions", "path": "Mutation.fs"}
    over_lines = {**at, "line": 3, "character": 0, "endLine": 6, "endCharacter": 30}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["status"] = await ready_status(session)
            report["position"] = await call(session, "navigate", {**at, "line": 4, "character": 4})
            report["range"] = await call(session, "navigate", over_lines)
            report["clean"] = await call(session, "navigate", {**at, "line": 9, "word": "counter"})
            report["indexWithoutApply"] = await call(session, "navigate", {**at, "line": 4, "character": 4, "actionIndex": 0})
            report["endOnOtherOperation"] = await call(session, "navigate", {**at, "operation": "hover", "line": 4, "character": 4, "endCharacter": 9})
            report["several"] = await call(session, "navigate", {**over_lines, "apply": "editor"})
            report["apply"] = await call(session, "navigate", {**at, "line": 4, "character": 4, "apply": "editor", "actionIndex": 0})
    return report
async def code_actions_disk_scenario() -> dict:
    """fixtures/code-actions with no editor: `apply: "disk"` refused without the preview's
    hashes and with stale ones (nothing written), then written with them."""
    report: dict = {}
    at = {"operation": "codeActions", "path": "Mutation.fs", "line": 4, "character": 4}
    path = os.path.join(WORKSPACE, "Mutation.fs")
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["status"] = await ready_status(session)
            report["preview"] = await call(session, "navigate", at)
            hashes = report["preview"]["body"].get("fileHashes", {})
            report["withoutHashes"] = await call(session, "navigate", {**at, "apply": "disk", "actionIndex": 0})
            stale = {file: "sha256:" + "0" * 64 for file in hashes}
            report["stale"] = await call(session, "navigate", {**at, "apply": "disk", "actionIndex": 0, "expectedHashes": stale})
            with open(path, encoding="utf-8") as file:
                report["afterStale"] = file.read()
            report["disk"] = await call(session, "navigate", {**at, "apply": "disk", "actionIndex": 0, "expectedHashes": hashes})
            with open(path, encoding="utf-8") as file:
                report["afterDisk"] = file.read()
    return report


async def schemas_scenario() -> dict:
    """Every tool's input schema as the official SDK client reads it from tools/list, after
    activating every group."""
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listing = await call(session, "activate_tools", {})
            groups = [group["group"] for group in listing["body"].get("groups", [])]
            await call(session, "activate_tools", {"groups": [group for group in groups if group != "core"]})
            tools = (await session.list_tools()).tools
            return {"groups": groups, "tools": {tool.name: tool.input_schema for tool in tools}}


def main() -> None:
    scenario = sys.argv[1]
    runner = {
        "editor": editor_scenario,
        "own": own_session_scenario,
        "broken": fsac_cannot_start_scenario,
        "long_lines": lambda: find_two_pages("Crate.Size"),
        "wide_text": lambda: find_two_pages("Note.Text"),
        "what_if": what_if_scenario,
        "confirm_build": confirm_build_scenario,
        "rename": rename_scenario,
        "calls": calls_scenario,
        "implementations": implementations_scenario,
        "code_actions": code_actions_scenario,
        "schemas": schemas_scenario,
        "code_actions_disk": code_actions_disk_scenario,
    }[scenario]
    report = anyio.run(runner)
    sys.stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
