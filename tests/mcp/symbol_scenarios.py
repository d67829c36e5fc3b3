"""Drives the symbol tools of `fslens mcp` (symbol_search, read_symbol, read_enclosing) with the
official MCP Python SDK client. Run by tests/it/mcp_symbol_tools.rs, which makes the assertions
on the JSON report printed on the last stdout line.

    python symbol_scenarios.py building   # the first index build is held: available:false, then ready

Environment: as bridge_scenarios.py, plus FSLENS_TEST_INDEX_GATE (the file whose creation
lets the session's first index build finish; this script creates it).
"""

import json
import os
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bridge_scenarios import call, server_parameters  # noqa: E402

GATE = os.environ["FSLENS_TEST_INDEX_GATE"]


def parameters_with_gate() -> StdioServerParameters:
    parameters = server_parameters()
    parameters.env = dict(parameters.env or {}, FSLENS_TEST_INDEX_GATE=GATE)
    return parameters


async def building_scenario() -> dict:
    report: dict = {}
    async with stdio_client(parameters_with_gate(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            report["tools"] = {
                tool.name: {"required": tool.input_schema.get("required", []), "descriptionLength": len(tool.description or "")}
                for tool in tools
                if tool.name in ("symbol_search", "read_symbol", "read_enclosing")
            }
            # The build is held: the answer says so at once instead of blocking or finding nothing.
            started = time.monotonic()
            report["whileBuilding"] = await call(session, "symbol_search", {"query": "Shipment"})
            report["whileBuildingSeconds"] = time.monotonic() - started
            report["readSymbolWhileBuilding"] = await call(session, "read_symbol", {"name": "weigh"})
            # read_enclosing needs only its file.
            report["enclosingWhileBuilding"] = await call(
                session, "read_enclosing", {"path": "src/Shipping/Domain.fs", "line": 12}
            )
            report["fsacWhileBuilding"] = (await call(session, "status", {}))["body"]
            open(GATE, "w").close()
            attempts = 0
            while True:
                attempts += 1
                answer = await call(session, "symbol_search", {"query": "Shipment", "maxResults": 3})
                if answer["body"].get("available") is not False or attempts > 200:
                    break
                await anyio.sleep(answer["body"].get("retryAfterMs", 500) / 1000)
            report["attempts"] = attempts
            report["ready"] = answer
            cursor = answer["body"].get("nextCursor")
            report["secondPage"] = await call(session, "symbol_search", {"query": "Shipment", "maxResults": 3, "cursor": cursor})
            report["ambiguous"] = await call(session, "read_symbol", {"name": "weigh"})
            report["qualified"] = await call(session, "read_symbol", {"name": "Carrier.weigh"})
            report["outline"] = await call(
                session,
                "read_enclosing",
                {"path": "src/Shipping/Domain.fs", "line": 20, "kinds": ["module"], "maxLines": 2, "onOversize": "outline"},
            )
            report["nestedRead"] = await call(session, "read_enclosing", report["outline"]["body"]["nested"][0]["read"])
            report["escape"] = await call(session, "read_enclosing", {"path": "../outside.fs", "line": 0})
            report["badKinds"] = await call(session, "read_symbol", {"name": "weigh", "kinds": ["gizmo"]})
    return report


def main() -> None:
    scenario = sys.argv[1]
    runner = {"building": building_scenario}[scenario]
    report = anyio.run(runner)
    sys.stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
