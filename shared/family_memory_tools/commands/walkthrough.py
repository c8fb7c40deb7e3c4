"""``family-memory walkthrough``: the guided tour on the embedded local default."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "walkthrough", help="run the whole pipeline on one machine for an invented family and explain each step"
    )
    parser.add_argument(
        "--dir",
        default=".family-memory/walkthrough",
        help="folder to write into (emptied first if a previous walk-through made it)",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="show every file, verdict and block in full (by default about a page)"
    )
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from family_memory_tools.walkthrough import run_walkthrough

    return run_walkthrough(Path(args.dir), verbose=args.verbose)
