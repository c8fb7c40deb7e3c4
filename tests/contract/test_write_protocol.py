"""The write protocol on both adapter sets: apply, idempotence, stale reads,
crash recovery at every step, and concurrent writers."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any, cast

import pytest

from conftest import Adapters
from factories import FAMILY, add, change_set, evidence, memory, update
from family_memory.domain.changes import Action, ChangeRecord, EntityWrite
from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.errors import InvalidInputError, LeaseLostError, StaleRevisionError
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.ids import new_ulid
from family_memory.domain.layout import change_path, evidence_path, memory_path, suppression_path
from family_memory.domain.okf import parse_json, parse_memory
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.ports.catalog import Catalog
from family_memory.ports.store import Store
from family_memory.writes.projections import check_catalog, rebuild_catalog
from family_memory.writes.protocol import FamilyWriter

TTL = timedelta(seconds=30)


def writer(adapters: Adapters, store: Store | None = None, catalog: Catalog | None = None, **kw: Any) -> FamilyWriter:
    return FamilyWriter(store or adapters.store, catalog or adapters.catalog, adapters.clock, lease_ttl=TTL, **kw)


def memories_on_disk(store: Store, family_id: str = FAMILY) -> dict[str, Any]:
    return {
        path: parse_memory(store.read(family_id, path).data)
        for path in store.list(family_id, "memories/")
        if path.endswith(".md")
    }


def test_apply_writes_file_evidence_row_and_change_record(adapters: Adapters) -> None:
    m = memory()
    cs = change_set(add(m, evidence()))
    result = writer(adapters).apply(cs)
    assert result.applied and not result.conflicts
    store, catalog = adapters.store, adapters.catalog
    assert parse_memory(store.read(FAMILY, memory_path(m.id)).data) == m
    assert [r.quote for r in parse_ledger(store.read(FAMILY, evidence_path(m.id)).data)] == ["Friday is pizza night"]
    assert catalog.get_rows(FAMILY, [m.id])[m.id].revision == 1
    record = parse_json(ChangeRecord, store.read(FAMILY, change_path(cs.id)).data, "change")
    assert record.actor == "process:test" and record.memories[0].action is Action.ADD
    assert catalog.is_applied(FAMILY, cs.id) and catalog.pending_intents(FAMILY) == []
    assert check_catalog(store, catalog, FAMILY).consistent


def test_applying_the_same_change_set_twice_changes_nothing(adapters: Adapters) -> None:
    m = memory()
    cs = change_set(add(m, evidence()))
    w = writer(adapters)
    w.apply(cs)
    before = {p: adapters.store.read(FAMILY, p).tag for p in adapters.store.list(FAMILY)}
    again = w.apply(cs)
    assert again.already_applied and not again.applied
    assert {p: adapters.store.read(FAMILY, p).tag for p in adapters.store.list(FAMILY)} == before


def test_a_change_decided_on_a_stale_read_is_refused_before_anything_is_written(adapters: Adapters) -> None:
    m = memory()
    w = writer(adapters)
    w.apply(change_set(add(m)))
    w.apply(change_set(update(m, Action.REINFORCE, reinforcement_count=1)))
    stale = change_set(update(m, Action.UPDATE, summary="A different summary."), add(memory()))
    with pytest.raises(StaleRevisionError, match="revision 2"):
        w.apply(stale)
    assert not adapters.catalog.is_applied(FAMILY, stale.id)
    assert len(memories_on_disk(adapters.store)) == 1
    assert parse_memory(adapters.store.read(FAMILY, memory_path(m.id)).data).reinforcement_count == 1


def test_creating_a_memory_that_exists_is_refused(adapters: Adapters) -> None:
    m = memory()
    w = writer(adapters)
    w.apply(change_set(add(m)))
    with pytest.raises(StaleRevisionError):
        w.apply(change_set(add(m.evolve(summary="Other text."))))


def test_reinforcement_appends_evidence_without_duplicates(adapters: Adapters) -> None:
    m = memory()
    w = writer(adapters)
    w.apply(change_set(add(m, evidence())))
    w.apply(
        change_set(update(m, Action.REINFORCE, evidence(), evidence("pizza again", "sess-2"), reinforcement_count=1))
    )
    quotes = [r.quote for r in parse_ledger(adapters.store.read(FAMILY, evidence_path(m.id)).data)]
    assert quotes == ["Friday is pizza night", "pizza again"]


def test_a_change_set_for_another_family_is_refused_in_a_session(adapters: Adapters) -> None:
    with writer(adapters).open(FAMILY) as session, pytest.raises(InvalidInputError, match="is for family"):
        session.apply(change_set(add(memory()), family_id="fam-other"))


def test_a_writer_whose_lease_was_taken_over_writes_nothing_more(adapters: Adapters) -> None:
    m = memory()
    writer(adapters).apply(change_set(add(m)))
    with writer(adapters).open(FAMILY) as slow:
        adapters.clock.advance(TTL + timedelta(seconds=1))  # the slow writer stalls past its lease
        fast = writer(adapters).apply(change_set(update(m, Action.REINFORCE, reinforcement_count=1)))
        assert fast.applied
        late = change_set(add(memory(summary="Written by the stalled writer.")))  # nothing stale in it
        with pytest.raises(LeaseLostError):
            slow.apply(late)
    assert len(memories_on_disk(adapters.store)) == 1
    now = parse_memory(adapters.store.read(FAMILY, memory_path(m.id)).data)
    assert (now.revision, now.reinforcement_count) == (2, 1)
    assert not adapters.catalog.is_applied(FAMILY, late.id) and adapters.catalog.pending_intents(FAMILY) == []


def test_family_writes_never_land_in_another_family(adapters: Adapters) -> None:
    writer(adapters).apply(change_set(add(memory()), family_id="fam-other"))
    assert memories_on_disk(adapters.store) == {}
    assert list(adapters.catalog.all_rows(FAMILY)) == []


# --- crash recovery -------------------------------------------------------------


class Crash(BaseException):
    """A process dying mid-step (BaseException so no handler swallows it)."""


class Tripwire:
    def __init__(self, at: int) -> None:
        self.at = at
        self.count = 0
        self.fired = False

    def tick(self) -> None:
        if self.fired:
            raise Crash("already dead")
        if self.count == self.at:
            self.fired = True
            raise Crash(f"crash at mutation {self.at}")
        self.count += 1


class CrashingProxy:
    MUTATIONS = {"create", "replace", "put", "put_rows", "record_intent", "settle", "release_lease", "renew_lease"}

    def __init__(self, inner: Any, wire: Tripwire) -> None:
        self._inner = inner
        self._wire = wire

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name in self.MUTATIONS:

            def wrapped(*args: Any, **kwargs: Any) -> Any:
                self._wire.tick()
                return attr(*args, **kwargs)

            return wrapped
        return attr


def _scenario(family_id: str) -> tuple[Any, Any, Any]:
    existing = memory()
    new = memory(summary="Maya is allergic to peanuts.", about="Maya's allergy")
    person = Entity(id=new_ulid(), type=EntityKind.PERSON, name="Maya", created_at=existing.formed_at)
    rule = Suppression(
        id=new_ulid(),
        scope=SuppressionScope.TOPIC,
        topic="old school",
        created_at=existing.formed_at,
        created_by="human:lucia",
    )
    first = change_set(add(existing, evidence()), family_id=family_id)
    second = change_set(
        update(existing, Action.REINFORCE, evidence("pizza again", "sess-2"), reinforcement_count=1),
        add(new, evidence("allergic to peanuts", "sess-2")),
        family_id=family_id,
        entities=[EntityWrite(entity=person)],
        suppressions=[rule],
    )
    return first, second, (existing, new, person, rule)


def _assert_completed(adapters: Adapters, family_id: str, scenario: tuple[Any, Any, Any]) -> None:
    _first, second, (existing, new, person, rule) = scenario
    store, catalog = adapters.store, adapters.catalog
    on_disk = {m.id: m for m in memories_on_disk(store, family_id).values()}
    assert set(on_disk) == {existing.id, new.id}, "exactly the two logical memories"
    assert on_disk[existing.id].revision == 2 and on_disk[existing.id].reinforcement_count == 1
    assert on_disk[new.id].revision == 1
    quotes = [r.quote for r in parse_ledger(store.read(family_id, evidence_path(existing.id)).data)]
    assert quotes == ["Friday is pizza night", "pizza again"]
    assert len(parse_ledger(store.read(family_id, evidence_path(new.id)).data)) == 1
    assert store.exists(family_id, f"entities/{person.id}.md")
    assert store.exists(family_id, suppression_path(rule.id))
    assert store.exists(family_id, change_path(second.id))
    assert catalog.is_applied(family_id, second.id) and catalog.pending_intents(family_id) == []
    assert check_catalog(store, catalog, family_id).consistent


def _count_mutations(adapters: Adapters) -> int:
    family = "fam-count"
    first, second, _ = _scenario(family)
    writer(adapters).apply(first)
    wire = Tripwire(at=10_000)
    writer(
        adapters, cast(Store, CrashingProxy(adapters.store, wire)), cast(Catalog, CrashingProxy(adapters.catalog, wire))
    ).apply(second)
    return wire.count


@pytest.mark.slow
def test_a_crash_at_any_step_is_completed_by_the_next_writer(adapters: Adapters) -> None:
    steps = _count_mutations(adapters)
    assert steps >= 10  # intent, files, sidecars, entity, rule, rows, change record, settle, release
    for at in range(steps):
        family = f"fam-crash-{at}"
        scenario = _scenario(family)
        first, second, _ = scenario
        writer(adapters).apply(first)
        wire = Tripwire(at)
        doomed = writer(
            adapters,
            cast(Store, CrashingProxy(adapters.store, wire)),
            cast(Catalog, CrashingProxy(adapters.catalog, wire)),
        )
        with pytest.raises(Crash):
            doomed.apply(second)
        adapters.clock.advance(TTL + timedelta(seconds=1))  # the dead writer's lease runs out
        survivor = writer(adapters)
        with survivor.open(family):
            pass  # taking the lease completes whatever was recorded
        # the caller's retry (an SQS redelivery) of the same change set
        retry = survivor.apply(second)
        assert retry.applied or retry.already_applied
        _assert_completed(adapters, family, scenario)


# --- concurrency ----------------------------------------------------------------


@pytest.mark.slow
def test_concurrent_writers_never_lose_an_update(adapters: Adapters) -> None:
    threads_n, per_thread = 8, 50
    counter = memory(about="Counter", summary="Reinforced by every writer.")
    writer(adapters).apply(change_set(add(counter)))
    errors: list[BaseException] = []

    def work(n: int) -> None:
        w = writer(adapters, lease_wait=timedelta(seconds=300))
        try:
            for i in range(per_thread):
                with w.open(FAMILY) as session:
                    current, _ = session.read_memory(counter.id)
                    cs = change_set(
                        update(
                            current,
                            Action.REINFORCE,
                            evidence(f"writer {n} change {i}", f"sess-{n}-{i}"),
                            reinforcement_count=current.reinforcement_count + 1,
                        ),
                        add(memory(summary=f"Memory {n}-{i}.")),
                    )
                    session.apply(cs)
        except BaseException as exc:
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(n,)) for n in range(threads_n)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert errors == []
    total = threads_n * per_thread
    final = parse_memory(adapters.store.read(FAMILY, memory_path(counter.id)).data)
    assert final.reinforcement_count == total and final.revision == total + 1
    assert len(parse_ledger(adapters.store.read(FAMILY, evidence_path(counter.id)).data)) == total
    on_disk = memories_on_disk(adapters.store)
    assert len(on_disk) == total + 1
    assert len({m.summary for m in on_disk.values()}) == total + 1, "no duplicates"
    assert len(list(adapters.store.list(FAMILY, "changes/"))) == total + 1
    assert check_catalog(adapters.store, adapters.catalog, FAMILY).consistent


# --- projections ----------------------------------------------------------------


def test_check_reports_differences_and_rebuild_repairs_them(adapters: Adapters) -> None:
    w = writer(adapters)
    kept, edited, lost = memory(), memory(), memory()
    w.apply(change_set(add(kept), add(edited), add(lost)))
    lease = adapters.catalog.acquire_lease(FAMILY, "vandal", TTL)
    adapters.catalog.delete_rows(FAMILY, [lost.id], lease=lease)
    tampered = adapters.catalog.get_rows(FAMILY, [edited.id])[edited.id].model_copy(update={"summary": "tampered"})
    adapters.catalog.put_rows(FAMILY, [tampered], lease=lease)
    ghost = memory()
    from family_memory.ports.catalog import CatalogRow

    adapters.catalog.put_rows(FAMILY, [CatalogRow.from_memory(ghost, "x")], lease=lease)
    adapters.catalog.release_lease(lease)
    report = check_catalog(adapters.store, adapters.catalog, FAMILY)
    assert not report.consistent
    assert report.missing_rows == [lost.id] and report.extra_rows == [ghost.id]
    assert report.different == {edited.id: ["summary"]}
    rebuilt = rebuild_catalog(w, FAMILY)
    assert rebuilt.consistent and rebuilt.files == 3 and rebuilt.rows == 3
    assert adapters.catalog.get_rows(FAMILY, [edited.id])[edited.id].summary == edited.summary
