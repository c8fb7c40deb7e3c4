"""``family-memory bench NAME``: benchmarks that print figures and the machine.

Each module in BENCH_MODULES has ``register(bench_subparsers)``; ``bench all``
runs every registered benchmark with its defaults.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

BENCH_MODULES: tuple[str, ...] = (
    "family_memory_tools.benchmarks.retrieval",
    "family_memory_tools.benchmarks.lifecycle",
    "family_memory_tools.benchmarks.coldstart",
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help="benchmarks (print figures and the machine; not tests)")
    benches = parser.add_subparsers(dest="bench", required=True, metavar="NAME")
    for name in BENCH_MODULES:
        importlib.import_module(name).register(benches)
    every = benches.add_parser("all", help="every benchmark with its defaults")
    every.set_defaults(run=lambda args: _all(benches, args))


def _all(benches: Any, args: argparse.Namespace) -> int:
    code = 0
    for name, parser in benches.choices.items():
        if name == "all":
            continue
        print(f"\n### bench {name}")
        sub = parser.parse_args([])
        sub.home = getattr(args, "home", None)
        code = max(code, int(sub.run(sub) or 0))
    return code
