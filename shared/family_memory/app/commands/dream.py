"""``family-memory dream``: run the dream pass for one family, every family, or the ones due now."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from family_memory.app.commands import family_ids, runtime_for
from family_memory.app.runtime import Runtime
from family_memory.domain.clock import parse_utc
from family_memory.domain.errors import NotFoundError
from family_memory.lifecycle.dream import dream_family
from family_memory.lifecycle.fanout import dream_requested, fan_out


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dream", help="expire, promote and decay memories as of each family's local date, then recompile its brief"
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--family", help="one family id")
    group.add_argument("--all", action="store_true", help="every family")
    group.add_argument(
        "--due", action="store_true", help="the nightly fan-out: every family whose local midnight has passed"
    )
    parser.add_argument("--at", help="act as of this UTC instant (ISO 8601, e.g. 2026-11-17T08:00:00Z)")
    parser.set_defaults(run=_run)


def require_family(runtime: Runtime, family_id: str) -> None:
    """Refuse a family with no folder, so a mistyped id does not create one."""
    if next(iter(runtime.store.list(family_id)), None) is None:
        raise NotFoundError(f"family {family_id} has no files in this store")


def _run(args: argparse.Namespace) -> int:
    runtime = runtime_for(args)
    lifecycle = runtime.lifecycle
    now: datetime = parse_utc(args.at) if args.at else runtime.clock.now()
    failed_before = runtime.bus.failed if runtime.bus is not None else 0
    if args.due:
        if lifecycle.queue is None:
            print("no dream queue configured (set DREAM_QUEUE_URL)")
            return 2
        report = fan_out(runtime.store, lifecycle.ledger, lifecycle.queue, now=now)
        print("\n".join(report.lines()))
        if lifecycle.local_queue is not None:

            def work(body: str) -> None:
                print("\n".join(dream_requested(lifecycle.deps, body, now=now).lines()))
                runtime.drain_committed()  # the dream stands; its compile or indexing is logged if it fails

            drained = lifecycle.local_queue.drain(work)
            print(f"worker: {drained.processed} dreamed, {len(drained.dead_lettered)} dead-lettered")
            return 1 if drained.dead_lettered else _undelivered(runtime, failed_before)
        return 0
    for family_id in family_ids(runtime, args):
        require_family(runtime, family_id)
        print("\n".join(dream_family(lifecycle.deps, family_id, now=now).lines()))
        runtime.drain_committed()  # one family's failure to index does not stop the others
    return _undelivered(runtime, failed_before)


def _undelivered(runtime: Runtime, failed_before: int) -> int:
    """0, or 2 with a message when delivering what the dreams caused failed (logged)."""
    failed = (runtime.bus.failed if runtime.bus is not None else 0) - failed_before
    if failed <= 0:
        return 0
    print(f"{failed} deliveries of what the dreams changed failed (see the log); the dreams stand, and")
    print("`family-memory rebuild-index --family ID` and `family-memory brief compile --family ID` catch up")
    return 2
