"""The walk-through: the README's first command, a guided run of the whole
pipeline on the embedded local default. Each chapter is a module with
``run(ctx)``; they run in order on one family and share the context."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from family_memory.app.bootstrap import build_local
from family_memory.app.settings import load_settings
from family_memory.domain.clock import FixedClock
from family_memory_tools.walkthrough.context import Chapter, WalkContext

MARKER = ".walkthrough"
START = datetime(2026, 11, 27, 17, 0, tzinfo=UTC)


def chapters() -> list[Chapter]:
    from family_memory_tools.walkthrough import dreaming, formation, foundation, retrieval

    return [foundation.run, formation.run, retrieval.run, dreaming.run]


def prepare_home(home: Path) -> None:
    """Start from an empty folder; refuse to wipe one the walk-through did not make."""
    if home.exists() and any(home.iterdir()):
        if not (home / MARKER).exists():
            raise SystemExit(f"{home} is not empty and was not made by the walk-through; choose another --home")
        shutil.rmtree(home)
    home.mkdir(parents=True, exist_ok=True)
    (home / MARKER).write_text("made by family-memory walkthrough; safe to delete\n")


def run_walkthrough(home: Path, *, verbose: bool = False) -> int:
    prepare_home(home)
    clock = FixedClock(START)
    runtime = build_local(load_settings(home=str(home), backend="local", lease_wait_seconds=5), clock)
    ctx = WalkContext(runtime, clock, home, verbose=verbose)
    print(f"family-memory walk-through: everything is written under {home.resolve()}")
    print("Local mode: a folder of OKF files is the store, SQLite holds the catalog and leases; no AWS, no downloads.")
    for chapter in chapters():
        chapter(ctx)
        runtime.drain()
    print(f"\nDone. Open {ctx.family_path().resolve()} to browse the family's memory as plain files.")
    return 0
