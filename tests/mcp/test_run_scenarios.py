"""`run_tests` through `fslens mcp`, driven by the official MCP Python SDK client. Run by
tests/it/run_tests.rs, which asserts on the JSON report printed on the last stdout line.

    python test_run_scenarios.py run    # the bridge starts its own session on the workspace

Environment: as bridge_scenarios.py (FSLENS_BIN, FSLENS_WORKSPACE, FSLENS_FSAC_COMMAND,
XDG_RUNTIME_DIR); the workspace is a built copy of fixtures/tested.
"""

import json
import sys
import time

import anyio
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from bridge_scenarios import call, ready_status, server_parameters


async def run_scenario() -> dict:
    report: dict = {}
    async with stdio_client(server_parameters(), errlog=sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            report["status"] = await ready_status(session)
            progress: list = []

            async def on_progress(value, total, message):
                progress.append({"progress": value, "message": message})

            # A whole run, with the bridge's progress while it goes.
            report["all"] = await call(session, "run_tests", {}, progress_callback=on_progress)
            report["progress"] = progress

            # A run the client gives up on: notifications/cancelled reaches the session, which
            # cancels the run in FSAC; the next call is answered.
            started = time.monotonic()
            try:
                answer = await call(session, "run_tests", {}, read_timeout_seconds=0.5)
                cancelled = {"completed": answer}
            except Exception as error:  # the SDK raises MCPError on its read timeout
                cancelled = {"raised": type(error).__name__, "message": str(error)}
            cancelled["elapsedSeconds"] = time.monotonic() - started
            report["cancellation"] = cancelled
            report["next"] = await call(session, "run_tests", {"tests": ["Tally.Xunit.CounterTests.add adds"]})
    return report


def main() -> None:
    runner = {"run": run_scenario}[sys.argv[1]]
    report = anyio.run(runner)
    sys.stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
