"""Drives the referenced-assembly tools of `fslens mcp` (referenced_symbols, nuget_types,
nuget_members) with the official MCP Python SDK client (PyPI `mcp`, 2.3.0).

Run by tests/it/referenced_assemblies.rs, which builds a workspace whose restore output points at
real reference assemblies, and then asserts on the JSON report this script prints on its
last stdout line. Environment: FSLENS_BIN, FSLENS_WORKSPACE, FSLENS_FSAC_COMMAND,
XDG_RUNTIME_DIR.
"""

import json
import sys

import anyio
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from bridge_scenarios import call, server_parameters


async def scenario() -> dict:
    report: dict = {}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["defaultTools"] = [tool.name for tool in (await session.list_tools()).tools]
            # The assembly tools wait in their group; naming one of them activates it.
            report["activate"] = await call(session, "activate_tools", {"tools": ["nuget_types"]})
            tools = await session.list_tools()
            report["tools"] = {
                tool.name: {"required": tool.input_schema.get("required", []), "descriptionLength": len(tool.description or "")}
                for tool in tools.tools
            }
            report["symbols"] = await call(session, "referenced_symbols", {"query": "Option", "maxResults": 5})
            report["symbolsNext"] = await call(
                session,
                "referenced_symbols",
                {"query": "Option", "maxResults": 5, "cursor": report["symbols"]["body"].get("nextCursor")},
            )
            # A broad query: each page must fit the output whole (no entry cut by the bridge),
            # and the pages together must hold every entry exactly once.
            broad_pages = []
            arguments = {"query": "e", "maxResults": 1000}
            while True:
                page = await call(session, "referenced_symbols", arguments)
                broad_pages.append(
                    {
                        "isError": page["isError"],
                        "bytes": page["bytes"],
                        "cut": "truncation" in page["body"],
                        "total": page["body"].get("total"),
                        "returned": page["body"].get("returned"),
                        "names": [entry["fullName"] + "@" + entry["assembly"] for entry in page["body"].get("symbols", [])],
                    }
                )
                cursor = page["body"].get("nextCursor")
                if not cursor or len(broad_pages) > 200:
                    break
                arguments = {"query": "e", "maxResults": 1000, "cursor": cursor}
            report["broadPages"] = broad_pages
            report["typesById"] = await call(session, "nuget_types", {"packageId": "Acme.FSharp.Runtime"})
            report["typesByAssembly"] = await call(session, "nuget_types", {"packageId": "fsharp.core", "maxResults": 3})
            report["typesPlaceholder"] = await call(session, "nuget_types", {"packageId": "Acme.Analyzers"})
            report["typesMiss"] = await call(session, "nuget_types", {"packageId": "Acme"})
            report["members"] = await call(
                session, "nuget_members", {"packageId": "Acme.FSharp.Runtime", "typeName": "ListModule"}
            )
            report["membersMissingArgument"] = await call(session, "nuget_members", {"packageId": "Fable.Core"})
    return report


if __name__ == "__main__":
    print(json.dumps(anyio.run(scenario)))
