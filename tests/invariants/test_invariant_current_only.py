"""Invariants 8 and 9 at the lookup: the catalog confirmation alone keeps out every hit
that is no longer current, on the family's calendar, even when the index says otherwise.

The lookup has two layers: the index is asked with the eligibility filter,
and every hit is then confirmed against the catalog. The index can lag (a
memory forgotten a moment ago) and can be wrong in any other way a
projection can; the catalog is the one the clause trusts. Here the index
ignores the filter entirely, so only the confirmation stands between a stale
hit and the reply.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from factories import FAMILY
from family_memory.app.runtime import Runtime
from family_memory.domain.changes import Action
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import Surface
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import Sensitivity, Status
from family_memory.retrieval.lookup import TurnLookup
from family_memory.retrieval.search_index import Hit, SearchFilter
from retrieval_helpers import change, fact, local_runtime, remember, retrieval_of, set_zone

#: 22:00 on Sunday the 29th in Los Angeles; already Monday the 30th in UTC.
LATE_ON_THE_29TH = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


class FilterBlindIndex:
    """An index that returns every document of the family, whatever the filter asks."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.dimension = inner.dimension

    def semantic(self, family_id: str, vector: Any, search_filter: SearchFilter, k: int) -> list[Hit]:
        return self.inner.semantic(family_id, vector, SearchFilter.any_status(), k)  # type: ignore[no-any-return]

    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        return self.inner.keyword(family_id, text, SearchFilter.any_status(), k)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_the_catalog_confirmation_alone_returns_only_current_memories_on_the_familys_date(tmp_path: Path) -> None:
    clock = FixedClock(datetime(2026, 11, 28, 12, 0, tzinfo=UTC))
    runtime: Runtime = local_runtime(tmp_path, clock, embedder="hashed")
    set_zone(runtime, "America/Los_Angeles")
    current = fact("Dentist Dr. Chen sees the kids.", "Dentist")
    until_30th = fact(
        "Dentist Dr. Chen is in the Main Street office until the 30th.",
        "Dentist office",
        valid_until=date(2026, 11, 30),
    )
    until_29th = fact("Dentist Dr. Chen is on call until the 29th.", "Dentist on call", valid_until=date(2026, 11, 29))
    forgotten = fact("Dentist Dr. Chen charges too much.", "Dentist bill")
    replaced = fact("Dentist Dr. Chen is on Elm Street.", "Dentist address")
    asleep = fact("Dentist Dr. Chen probably likes jazz.", "Dentist music")
    health = fact("Dentist Dr. Chen treats Maya's gum disease.", "Maya's gums", sensitivity=Sensitivity.HEALTH)
    remember(runtime, current, until_30th, until_29th, forgotten, replaced, asleep, health)
    change(runtime, forgotten, Action.RETRACT, status=Status.RETRACTED)
    change(runtime, replaced, Action.SUPERSEDE, status=Status.SUPERSEDED, superseded_by=new_ulid())
    change(runtime, asleep, Action.DECAY, status=Status.DORMANT)
    # No dream runs after this: the catalog still says "active" for the memory whose date has come.
    clock.set(LATE_ON_THE_29TH)
    assert runtime.catalog.get_rows(FAMILY, [until_29th.id])[until_29th.id].status is Status.ACTIVE
    retrieval = retrieval_of(runtime)
    blind = TurnLookup(
        FilterBlindIndex(retrieval.index),  # type: ignore[arg-type]
        retrieval.embedder,
        runtime.catalog,
        runtime.clock,
        retrieval.lookup.time_zone,
    )

    chat = blind.lookup(FAMILY, "dentist Dr. Chen", Surface.CHAT, max_items=20, max_tokens=2000)
    assert {i.row.id for i in chat.items} == {current.id, until_30th.id, health.id}
    assert chat.dropped == {
        until_29th.id: "valid until 2026-11-29, which has arrived",
        forgotten.id: "status is retracted",
        replaced.id: "status is superseded",
        asleep.id: "status is dormant",
    }
    household = blind.lookup(FAMILY, "dentist Dr. Chen", Surface.HOUSEHOLD, max_items=20, max_tokens=2000)
    assert {i.row.id for i in household.items} == {current.id, until_30th.id}
    assert household.dropped[health.id] == "health memories stay out of shared threads"
