"""The diagnostic tools (explain_diagnostic, diagnostic_fixes, suggest_open) through `fslens mcp`,
driven by the official MCP Python SDK client. Run by tests/it/mcp_diagnostic_tools.rs, which
asserts on the JSON report printed on the last stdout line.

    python diagnostic_scenarios.py tools    # the bridge starts its own session on the workspace

Environment: as bridge_scenarios.py (FSLENS_BIN, FSLENS_WORKSPACE, FSLENS_FSAC_COMMAND,
XDG_RUNTIME_DIR); the workspace is a copy of fixtures/diagnostic-fixes.
"""

import json
import os
import sys

import anyio
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from bridge_scenarios import WORKSPACE, call, ready_status, server_parameters

PROGRAM = "Program.fs"


def line_of(needle: str) -> int:
    with open(os.path.join(WORKSPACE, PROGRAM), encoding="utf-8") as source:
        for number, line in enumerate(source.read().split("\n")):
            if needle in line:
                return number
    raise SystemExit(f"{needle!r} is not in the fixture")


async def tools_scenario() -> dict:
    report: dict = {}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            # The diagnostic tools wait in their group until the agent asks for them.
            report["activate"] = await call(session, "activate_tools", {"groups": ["diagnostics"]})
            listed = (await session.list_tools()).tools
            report["tools"] = {
                tool.name: {"required": tool.input_schema.get("required", []), "readOnly": bool(tool.annotations and tool.annotations.read_only_hint)}
                for tool in listed
                if tool.name in ("explain_diagnostic", "diagnostic_fixes", "suggest_open")
            }
            report["status"] = await ready_status(session)
            report["explain"] = await call(session, "explain_diagnostic", {"path": PROGRAM, "line": line_of("lenght'")})
            report["fixes"] = await call(session, "diagnostic_fixes", {"path": PROGRAM, "line": line_of("total <- total"), "code": "FS0027"})
            report["suggest"] = await call(session, "suggest_open", {"path": PROGRAM, "line": line_of("clampTo 10")})
            report["suggestName"] = await call(session, "suggest_open", {"name": "shout", "path": PROGRAM})
            # The seed's flow: check finds a diagnostic, explain_diagnostic takes it as it is.
            report["check"] = await call(session, "check", {"path": PROGRAM})
            found = report["check"]["body"].get("diagnostics") or [{}]
            report["explainFromCheck"] = await call(session, "explain_diagnostic", {"diagnostic": found[-1]})
            report["nothingThere"] = await call(session, "explain_diagnostic", {"path": PROGRAM, "line": 0})
            report["missingLine"] = await call(session, "diagnostic_fixes", {"path": PROGRAM})
            report["outside"] = await call(session, "suggest_open", {"name": "shout", "path": "../elsewhere/A.fs"})
    return report


def main() -> None:
    runner = {"tools": tools_scenario}[sys.argv[1]]
    report = anyio.run(runner)
    sys.stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
