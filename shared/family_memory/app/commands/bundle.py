"""``family-memory bundle check``: OKF v0.2 conformance of a family's folder, that every
memory has evidence naming a stored session or a card action (``traceability``), and that
every memory a migration formed leads back to the archived line it came from;
``family-memory families``: list the families in the store."""

from __future__ import annotations

import argparse
from typing import Any

from family_memory.app.commands import add_family_selector, family_ids, runtime_for
from family_memory.domain.okf import check_bundle
from family_memory.formation.migration_report import trace_migrated
from family_memory.traceability import trace_evidence


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bundle", help="check a family's folder against OKF v0.2")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="report OKF conformance problems and memories not traceable to their words (exit 1 if any)",
    )
    add_family_selector(check)
    check.set_defaults(run=_check)
    families = subparsers.add_parser("families", help="list the families in the store")
    families.set_defaults(run=_families)


def _check(args: argparse.Namespace) -> int:
    runtime = runtime_for(args)
    ok = True
    for family_id in family_ids(runtime, args):
        files = {p: runtime.store.read(family_id, p).data for p in runtime.store.list(family_id) if p.endswith(".md")}
        problems = check_bundle(files)
        evidence = trace_evidence(runtime.store, family_id)
        problems += [f"evidence: {p}" for p in evidence.problems]
        trace = trace_migrated(runtime.store, family_id)
        problems += [f"migration: {p}" for p in trace.problems]
        print(f"family {family_id}: {len(files)} markdown files, {len(problems)} problems")
        print(
            f"  {evidence.memories} memories, {evidence.records} evidence records: each memory has evidence, "
            "each record names a stored session or a memory on file"
        )
        if trace.records:
            print(
                f"  {trace.records} evidence records of {trace.memories} memories from migrated entries, "
                "each checked against its archived line and its session"
            )
        for problem in problems:
            print(f"  {problem}")
        ok = ok and not problems
    return 0 if ok else 1


def _families(args: argparse.Namespace) -> int:
    for family_id in runtime_for(args).store.families():
        print(family_id)
    return 0
