"""Invariant 1: one family never sees another's data, whatever ids the caller brings.

The adapter contract suites check each port on its own; these check the
clause across the store, the catalog, the index and the lookup together, and
on the intake path where a caller supplies its own candidates.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Adapters
from factories import FAMILY, OTHER_FAMILY, add, change_set, memory
from family_memory.app.runtime import Runtime
from family_memory.domain.clock import FixedClock
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.layout import memory_path
from family_memory.domain.okf import parse_memory
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.formation.service import receive_session
from family_memory.writes.protocol import FamilyWriter
from formation_helpers import candidate, deps, session_json
from retrieval_helpers import fact, local_runtime, remember, retrieval_of


def test_the_same_memory_id_in_two_families_is_two_memories_in_store_and_catalog(adapters: Adapters) -> None:
    ours = memory(summary="Our dentist is Dr. Chen.", about="Dentist")
    theirs = ours.evolve(summary="Their dentist is Dr. Okafor.")
    writer = FamilyWriter(adapters.store, adapters.catalog, adapters.clock)
    writer.apply(change_set(add(ours), family_id=FAMILY))
    writer.apply(change_set(add(theirs), family_id=OTHER_FAMILY))
    path = memory_path(ours.id)
    assert parse_memory(adapters.store.read(FAMILY, path).data).summary == "Our dentist is Dr. Chen."
    assert parse_memory(adapters.store.read(OTHER_FAMILY, path).data).summary == "Their dentist is Dr. Okafor."
    assert adapters.catalog.get_rows(FAMILY, [ours.id])[ours.id].summary == "Our dentist is Dr. Chen."
    assert adapters.catalog.get_rows(OTHER_FAMILY, [ours.id])[ours.id].summary == "Their dentist is Dr. Okafor."


def test_the_same_memory_id_in_two_families_is_two_documents_in_the_index(tmp_path: Path, clock: FixedClock) -> None:
    runtime: Runtime = local_runtime(tmp_path, clock, embedder="hashed")
    ours = fact("Our dentist is Dr. Chen on Main Street.", "Dentist")
    theirs = ours.evolve(summary="The Okafor orthodontist is Dr. Mbeki in Oakland.", about="Orthodontist")
    remember(runtime, ours, family_id=FAMILY)
    remember(runtime, theirs, family_id=OTHER_FAMILY)
    index = retrieval_of(runtime).index
    assert index.get(FAMILY, [ours.id])[ours.id].summary == ours.summary
    assert index.get(OTHER_FAMILY, [ours.id])[ours.id].summary == theirs.summary
    lookup = retrieval_of(runtime).lookup
    assert [i.row.summary for i in lookup.lookup(FAMILY, "dentist Dr. Chen").items] == [ours.summary]
    assert lookup.lookup(FAMILY, "Okafor orthodontist Mbeki Oakland").items == []


def test_candidates_supplied_for_one_family_are_refused_when_the_session_is_anothers(adapters: Adapters) -> None:
    d = deps(adapters)
    data = session_json([("user", "lucia", "We love Thai food.")], family_id=FAMILY)
    supplied = SuppliedCandidates([candidate()], producer="batch")
    with pytest.raises(InvalidInputError, match="family_id"):
        receive_session(d, data, supplied=supplied, family_id=OTHER_FAMILY)
    assert list(adapters.store.list(FAMILY)) == []
    assert list(adapters.store.list(OTHER_FAMILY)) == []
