"""Migration in on both adapter sets (local files + SQLite, S3 + DynamoDB under moto): the same
memories, the same report, the trace, running twice, and a crash at any write completed by
the next run."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from conftest import TEST_TABLE, Adapters, aws_adapters, local_adapters
from family_memory.adapters.local.sqlite_dream_ledger import SQLiteDreamLedger
from family_memory.brief.sources import read_entities
from family_memory.domain.clock import FixedClock
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.layout import INDEX, MIGRATION_REPORT, evidence_path
from family_memory.formation.importers import SourceFormat
from family_memory.formation.migration import MigrationOptions, migrate_family
from family_memory.formation.migration_report import trace_migrated
from family_memory.ports.catalog import Catalog
from family_memory.ports.lifecycle import DreamLedger
from family_memory.ports.store import Store
from family_memory.writes.projections import check_catalog
from formation_helpers import FAMILY, deps
from migration_helpers import dream_of, files, memories, run, source, with_history

ALL = ("explicit-memories.md", "mem0-export.json", "remember.txt")
TTL = timedelta(seconds=30)


def ledger_for(adapters: Adapters, request: pytest.FixtureRequest) -> DreamLedger:
    if adapters.kind == "aws":
        from family_memory.adapters.aws.dynamo_dream_ledger import DynamoDreamLedger

        return DynamoDreamLedger(request.getfixturevalue("aws").client("dynamodb"), TEST_TABLE)
    return SQLiteDreamLedger(":memory:")


def claims(adapters: Adapters) -> dict[str, tuple[Any, ...]]:
    """Each memory's claim and evidence, without what depends on the home it lives in (entity
    ids are new ULIDs) or on when the write happened (``generated.at``, the revision)."""
    names = {e.id: e.name for e in read_entities(adapters.store, FAMILY)}
    out = {}
    for memory_id, memory in memories(adapters.store).items():
        ledger = parse_ledger(adapters.store.read(FAMILY, evidence_path(memory_id)).data)
        out[memory_id] = (
            memory.summary,
            memory.status.value,
            memory.type.value,
            memory.strength.value,
            memory.authority.value,
            memory.reinforcement_count,
            memory.supersedes,
            sorted(names.get(i, i) for i in memory.applies_to),
            sorted((r.ref, r.quote, str(sorted((r.model_extra or {}).items()))) for r in ledger),
        )
    return out


def entries(adapters: Adapters) -> str:
    text = adapters.store.read(FAMILY, MIGRATION_REPORT).data.decode()
    return re.sub(r"suppression rule [0-9A-Z]{26}", "suppression rule R", text.split("## Every entry", 1)[1])


def test_migration_runs_the_same_on_both_adapter_sets(adapters: Adapters, request: pytest.FixtureRequest) -> None:
    d = with_history(adapters)
    dream = dream_of(d, ledger_for(adapters, request))
    migration = run(d, *ALL, dream=dream)
    report = migration.report
    assert report is not None and migration.lost == 0 and migration.dream_ran
    assert (len(report.entries), len(report.unreadable)) == (30, 8)
    assert trace_migrated(adapters.store, FAMILY).problems == []
    assert check_catalog(adapters.store, adapters.catalog, FAMILY).consistent
    index = adapters.store.read(FAMILY, INDEX).data.decode()
    assert index.count(".orig) - an earlier file the migration copied here") == 3
    before = files(adapters.store)
    again = run(d, *ALL, dream=dream)
    assert again.already_done and files(adapters.store) == before


def test_both_adapter_sets_form_the_same_memories_and_report(aws: Any, tmp_path: Path, clock: FixedClock) -> None:
    local, remote = local_adapters(tmp_path, clock), aws_adapters(aws, clock)
    for adapters in (local, remote):
        run(with_history(adapters), *ALL)
    assert claims(local) == claims(remote)
    assert entries(local) == entries(remote)


def test_a_stopped_migration_resumes_on_s3_and_dynamodb(aws: Any, clock: FixedClock) -> None:
    adapters = aws_adapters(aws, clock)
    d = with_history(adapters)
    seen: list[str] = []

    def stop(line: str) -> None:
        seen.append(line)
        if len(seen) == 5:
            raise KeyboardInterrupt  # an operator's ^C mid-family

    with pytest.raises(KeyboardInterrupt):
        migrate_family(d, FAMILY, [source("explicit-memories.md")], dream=None, progress=stop)
    resumed = migrate_family(d, FAMILY, [source("explicit-memories.md")], dream=None)
    assert resumed.resumed_from == 5 and resumed.lost == 0


# --- a crash at any write ---------------------------------------------------------------------


class Crash(BaseException):
    """The process dying (BaseException: nothing swallows it)."""


class Dying:
    """A store or catalog whose process dies before its ``at``-th write of the shared count."""

    WRITES = frozenset(
        {"create", "replace", "put", "put_rows", "record_intent", "settle", "release_lease", "renew_lease"}
    )

    def __init__(self, inner: Any, count: list[int], at: int) -> None:
        self._inner, self._count, self._at = inner, count, at

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name not in self.WRITES:
            return attr

        def write(*args: Any, **kwargs: Any) -> Any:
            if self._count[0] >= self._at:
                raise Crash(f"died before write {self._at}")
            self._count[0] += 1
            return attr(*args, **kwargs)

        return write


SMALL = "\n".join(
    [
        "## Lucía",
        "- [2026-03-02] Always check with me before booking flights",
        "- We love Thai food",
        "- [2026-11-01] Call me Lucy",
        "## Marco",
        "- [2026-09-01] Our dog Pepper takes his pills at 8",
    ]
).encode()


def crash_everywhere(make: Callable[[str], Adapters], clock: FixedClock, step: int) -> int:
    """Crash a migration of ``SMALL`` before its 0th, ``step``-th, ... write, finish it with a
    second run, and compare with a run that never crashed. Returns the crash points tried."""
    baseline = make("baseline")
    run_small(with_history(baseline))
    expected = claims(baseline)
    at = 0
    while True:
        adapters = make(f"crash-{at}")
        with_history(adapters)
        count = [0]
        dying = Adapters(
            adapters.kind,
            cast(Store, Dying(adapters.store, count, at)),
            cast(Catalog, Dying(adapters.catalog, count, at)),
            clock,
        )
        try:
            run_small(deps(dying, lease_ttl=TTL))
        except Crash:
            pass
        else:
            assert at > 20, at  # every write of a real migration was a crash point
            return at // step
        clock.advance(TTL + timedelta(seconds=1))  # the dead process's lease runs out
        survivor = deps(adapters, lease_ttl=TTL)
        finished = run_small(survivor)
        assert finished.lost == 0, at
        assert claims(adapters) == expected, at
        assert check_catalog(adapters.store, adapters.catalog, FAMILY).consistent, at
        at += step


def run_small(d: Any) -> Any:
    return migrate_family(
        d, FAMILY, [source("notes.md", SMALL, SourceFormat.EXPLICIT)], dream=None, options=MigrationOptions()
    )


@pytest.mark.slow
def test_a_crash_at_any_write_of_a_migration_is_completed_by_the_next_run(tmp_path: Path, clock: FixedClock) -> None:
    assert crash_everywhere(lambda name: local_adapters(tmp_path / name, clock), clock, step=1) > 20


@pytest.mark.slow
def test_a_crash_mid_migration_on_s3_and_dynamodb_is_completed_by_the_next_run(aws: Any, clock: FixedClock) -> None:
    from family_memory.adapters.aws.dynamo_catalog import DynamoCatalog, table_definition
    from family_memory.adapters.aws.s3_store import S3Store

    def make(name: str) -> Adapters:
        # A bucket and table of its own for each attempt: the family and its ids are the same in each.
        bucket, table = f"migration-{name}", f"migration-{name}"
        aws.client("s3").create_bucket(Bucket=bucket)
        aws.client("dynamodb").create_table(**table_definition(table))
        return Adapters(
            "aws", S3Store(aws.client("s3"), bucket), DynamoCatalog(aws.client("dynamodb"), table, clock=clock), clock
        )

    assert crash_everywhere(make, clock, step=7) >= 3
