"""``family-memory bench``: benchmarks that print figures (not timed tests).

Each module in ``BENCH_MODULES`` has ``register(bench_subparsers)`` adding its
``bench <name>`` commands. ``bench all`` runs every one with its defaults.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

#: Modules with a ``register(bench_subparsers)`` function.
BENCH_MODULES: tuple[str, ...] = ("family_memory.app.benchmarks.lifecycle",)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark and print its figures and the machine")
    benches = parser.add_subparsers(dest="bench", required=True, metavar="BENCH")
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
        defaults = parser.parse_args([])
        defaults.home = getattr(args, "home", None)
        code = max(code, int(defaults.run(defaults) or 0))
    return code
