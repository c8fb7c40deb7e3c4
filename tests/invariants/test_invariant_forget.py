"""Invariant 3: a forgotten fact stays forgotten, by two independent layers.

Formation checks the family's suppression rules before every write; and a
candidate that says again what a retracted memory said is a no-op. Each
layer is tested here with the other one out of reach: a finder that cannot
see the retracted memory (an index that lost it), and a retraction that left
no rule behind (a memory retracted by a change set alone).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from conftest import Adapters, local_adapters
from factories import add, change_set, memory, update
from family_memory.card.operations import forget_memory
from family_memory.domain.changes import Action
from family_memory.domain.clock import FixedClock
from family_memory.domain.layout import MEMORIES
from family_memory.domain.memory import Status
from family_memory.formation.document import OutcomeKind
from family_memory.formation.service import FormationDeps, extract_session, receive_session, reconcile_session
from family_memory.ports.catalog import CatalogRow
from formation_helpers import FAMILY, FRIDAY_MORNING, deps, save_family, session_json


class BlindFinder:
    """A similar-memory finder that finds nothing (an index that lost the family's documents)."""

    def similar(self, family_id: str, text: str, limit: int = 5) -> list[tuple[CatalogRow, float]]:
        return []


@pytest.fixture
def local(tmp_path: Path, clock: FixedClock) -> Adapters:
    adapters = local_adapters(tmp_path, clock)
    save_family(adapters.store)
    return adapters


def learn(d: FormationDeps, who: str, text: str, session_id: str) -> list[tuple[OutcomeKind, str | None]]:
    receive_session(d, session_json([("user", who, text)], session_id=session_id, started_at=FRIDAY_MORNING))
    extract_session(d, FAMILY, session_id, enqueue=False)
    return [(o.kind, o.memory_id) for o in reconcile_session(d, FAMILY, session_id).outcomes]


def memory_files(adapters: Adapters) -> list[str]:
    return [p for p in adapters.store.list(FAMILY, MEMORIES) if p.endswith(".md")]


def test_the_suppression_rule_alone_keeps_a_forgotten_fact_out(local: Adapters) -> None:
    d = deps(local)
    [(_, thai)] = learn(d, "lucia", "We love Thai food.", "sess-1")
    assert thai is not None
    forget_memory(d.writer, FAMILY, thai, "lucia")
    blind = dataclasses.replace(d, finder=BlindFinder())
    assert learn(blind, "marco", "We love Thai food!", "sess-2") == [(OutcomeKind.SUPPRESSED, None)]
    assert memory_files(local) == [f"{MEMORIES}{thai}.md"]


def test_a_retracted_claim_alone_keeps_a_restatement_out(local: Adapters) -> None:
    d = deps(local)
    thai = memory(about="Thai food (the family)", summary="The family loves Thai food.", body="We love Thai food.")
    d.writer.apply(change_set(add(thai)))
    d.writer.apply(change_set(update(thai, Action.RETRACT, status=Status.RETRACTED)))  # no rule on file
    assert list(local.store.list(FAMILY, "suppressions/")) == []
    [(kind, memory_id)] = learn(d, "marco", "We love Thai food!", "sess-2")
    assert (kind, memory_id) == (OutcomeKind.NOOP, thai.id)
    assert memory_files(local) == [f"{MEMORIES}{thai.id}.md"]
