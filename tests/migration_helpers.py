"""Builders for migration tests: a family with a history, the golden sources, a run, a snapshot."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from conftest import FIXTURES, Adapters
from family_memory.adapters.local.sqlite_dream_ledger import SQLiteDreamLedger
from family_memory.card.operations import forget_memory
from family_memory.domain.memory import Memory, Status
from family_memory.domain.okf import parse_memory
from family_memory.formation.importers import SourceFormat
from family_memory.formation.intake import receive_transcript
from family_memory.formation.migration import MigrationOptions, MigrationRun, MigrationSource, migrate_family
from family_memory.formation.service import FormationDeps, extract_session, reconcile_session
from family_memory.lifecycle.dream import DreamDeps, dreamer
from family_memory.ports.lifecycle import DreamLedger
from family_memory.ports.store import Store
from formation_helpers import FAMILY, Turn, deps, save_family, session_json

GOLDEN = FIXTURES / "migration"
#: The October session: said after most of the file's dated entries, before some.
OCTOBER = datetime(2026, 10, 5, 17, 0, tzinfo=UTC)
#: When the file was last written: its undated entries count as written then.
FILE_DATE = datetime(2026, 11, 1, tzinfo=UTC)

SOURCES = {
    "explicit-memories.md": SourceFormat.EXPLICIT,
    "mem0-export.json": SourceFormat.MEM0,
    "remember.txt": SourceFormat.LIST,
}


def source(name: str, data: bytes | None = None, fmt: SourceFormat | None = None) -> MigrationSource:
    return MigrationSource(
        fmt or SOURCES[name], name, data if data is not None else (GOLDEN / name).read_bytes(), FILE_DATE
    )


def with_history(adapters: Adapters, **writer: Any) -> FormationDeps:
    """The Rivera family (lucia, marco, maya a child) after one October session, with the dog's
    pills forgotten on the card since."""
    save_family(adapters.store)
    d = deps(adapters, **writer)
    turns: list[Turn] = [
        ("user", "lucia", "Call me Lu. We love Thai food. Maya is allergic to peanuts."),
        ("user", "marco", "My favourite colour is green. Our dog Pepper takes his pills at 8."),
    ]
    receive_transcript(
        adapters.store, session_json(turns, session_id="sess-oct", started_at=OCTOBER), now=adapters.clock.now()
    )
    extract_session(d, FAMILY, "sess-oct", enqueue=False)
    reconcile_session(d, FAMILY, "sess-oct")
    pills = next(r for r in adapters.catalog.all_rows(FAMILY) if "pills" in r.summary)
    forget_memory(d.writer, FAMILY, pills.id, "marco", reason="the vet changed it")
    return d


def dream_of(d: FormationDeps, ledger: DreamLedger | None = None) -> Any:
    return dreamer(DreamDeps(d.writer, ledger or SQLiteDreamLedger(":memory:")), d.clock)


def run(d: FormationDeps, *names: str, dream: Any = None, **options: Any) -> MigrationRun:
    options.setdefault("user_map", {"marco.r@example.com": "marco"})
    if any(SOURCES.get(n) is not SourceFormat.EXPLICIT for n in names):
        options.setdefault("member", "lucia")
    return migrate_family(d, FAMILY, [source(n) for n in names], dream=dream, options=MigrationOptions(**options))


def memories(store: Store) -> dict[str, Memory]:
    return {
        m.id: m
        for p in store.list(FAMILY, "memories/")
        if p.endswith(".md") and (m := parse_memory(store.read(FAMILY, p).data))
    }


def active(store: Store) -> dict[str, Memory]:
    return {i: m for i, m in memories(store).items() if m.status is Status.ACTIVE}


def by_summary(store: Store, summary: str) -> Memory:
    found = [m for m in memories(store).values() if m.summary == summary]
    assert len(found) == 1, (summary, [m.summary for m in memories(store).values()])
    return found[0]


def files(store: Store) -> dict[str, bytes]:
    return {p: store.read(FAMILY, p).data for p in store.list(FAMILY)}
