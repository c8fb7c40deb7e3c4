"""``family-memory catalog rebuild|check``: the catalog against the files."""

from __future__ import annotations

import argparse
from typing import Any

from family_memory.app.commands import add_family_selector, family_ids, runtime_for
from family_memory.writes.projections import check_catalog, rebuild_catalog


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("catalog", help="rebuild the catalog from the files, or check it against them")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    rebuild = actions.add_parser("rebuild", help="make the catalog equal to the memory files")
    add_family_selector(rebuild)
    rebuild.set_defaults(run=_rebuild)
    check = actions.add_parser("check", help="print every difference between files and catalog (exit 1 if any)")
    add_family_selector(check)
    check.set_defaults(run=_check)


def _rebuild(args: argparse.Namespace) -> int:
    runtime = runtime_for(args)
    families = family_ids(runtime, args)
    ok = True
    for n, family_id in enumerate(families, start=1):
        print(f"[{n}/{len(families)}] rebuilding the catalog of {family_id}")
        report = rebuild_catalog(runtime.writer, family_id, progress=lambda line: print(f"  {line}"))
        print("\n".join(report.lines()))
        ok = ok and report.consistent
    return 0 if ok else 1


def _check(args: argparse.Namespace) -> int:
    runtime = runtime_for(args)
    ok = True
    for family_id in family_ids(runtime, args):
        report = check_catalog(runtime.store, runtime.catalog, family_id)
        print("\n".join(report.lines()))
        ok = ok and report.consistent
    return 0 if ok else 1
