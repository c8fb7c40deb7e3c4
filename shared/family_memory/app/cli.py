"""``family-memory``: the command line. Each subcommand lives in ``app/commands/``, but the
tools' (the walk-through, the benchmarks), which live in ``family_memory_tools.commands``.

Errors the core raises on purpose are printed as one line and exit with 2;
a check that finds problems exits with 1.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence

from family_memory.domain.errors import FamilyMemoryError

#: The package of the tools: in the distribution for the command line, not in the Lambda layer.
TOOLS = "family_memory_tools"
#: Modules with a ``register(subparsers)`` function, in help order.
COMMAND_MODULES = (
    f"{TOOLS}.commands.walkthrough",
    "family_memory.app.commands.catalog",
    "family_memory.app.commands.bundle",
    "family_memory.app.commands.retrieval",
    "family_memory.app.commands.dream",
    "family_memory.app.commands.brief",
    f"{TOOLS}.commands.bench",
    "family_memory.app.commands.formation",
    "family_memory.app.commands.migrate",
    "family_memory.app.commands.memories",
    "family_memory.app.commands.family",
    "family_memory.app.commands.serve",
    "family_memory.app.commands.evaluate",
    "family_memory.app.commands.mcp",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="family-memory",
        description="Long-term memory for a family assistant. Runs on one machine by default "
        "(a folder of OKF files, SQLite, an embedded index); set FAMILY_MEMORY_BACKEND=aws to use AWS.",
    )
    parser.add_argument("--home", help="local mode: folder for the bundle and catalog (default .family-memory)")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    tools = importlib.util.find_spec(TOOLS) is not None
    for name in COMMAND_MODULES:
        if tools or not name.startswith(f"{TOOLS}."):
            importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Metrics are for Lambda (EMF to CloudWatch); on the command line they would be noise.
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    # One BLAS thread (the local server and MCP run through here too): the embedded index's vector
    # scan split over two threads stalls whenever the other core is busy (at 50,000 memories on two
    # shared cores, p95 29 ms with two threads against 17 ms with one; docs/benchmarks.md). Set
    # before numpy is first imported (it loads lazily; tests/unit/test_blas_threads.py).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # The local pipeline runs the Lambda handlers in-process; their INFO lines would drown the output.
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.run(args)
    except FamilyMemoryError as exc:
        print(f"family-memory: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("family-memory: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
