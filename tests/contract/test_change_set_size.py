"""A change set is recorded whole as one intent: it must fit, however large its memories."""

from __future__ import annotations

from datetime import timedelta

import pytest

from conftest import Adapters
from factories import FAMILY, add, change_set, memory
from family_memory.domain.changes import MAX_CHANGE_SET_BYTES, MAX_WRITES_PER_CHANGE_SET, ChangeSet, pack_writes
from family_memory.writes.protocol import FamilyWriter

# 4,000 characters of four-byte UTF-8: the largest body the format allows, in bytes.
HEAVY_BODY = "𝄞" * 4000


def heavy_writes(n: int) -> list:  # type: ignore[type-arg]
    return [add(memory(body=HEAVY_BODY)) for _ in range(n)]


def test_a_change_set_over_the_byte_limit_is_refused_with_the_limit_named() -> None:
    with pytest.raises(ValueError, match=f"the limit is {MAX_CHANGE_SET_BYTES}"):
        change_set(*heavy_writes(40))


def test_packing_splits_by_size_and_count_and_keeps_order() -> None:
    writes = heavy_writes(30) + [add(memory()) for _ in range(60)]
    groups = pack_writes(writes)
    assert [w for g in groups for w in g] == writes
    assert all(len(g) <= MAX_WRITES_PER_CHANGE_SET for g in groups)
    for group in groups:
        change_set(*group)  # each group is a valid change set


def test_packing_leaves_room_for_what_the_caller_adds_to_the_first_group() -> None:
    writes = [add(memory()) for _ in range(45)]
    groups = pack_writes(writes, reserved_count=5)
    assert len(groups[0]) == MAX_WRITES_PER_CHANGE_SET - 5


def test_the_largest_change_set_allowed_is_recorded_and_applied(adapters: Adapters) -> None:
    groups = pack_writes(heavy_writes(20))
    largest = max(groups, key=len)
    cs = change_set(*largest)
    assert len(cs.model_dump_json().encode()) > MAX_CHANGE_SET_BYTES * 0.8
    writer = FamilyWriter(adapters.store, adapters.catalog, adapters.clock, lease_ttl=timedelta(seconds=30))
    assert writer.apply(cs).applied
    assert isinstance(cs, ChangeSet)
    assert adapters.catalog.is_applied(FAMILY, cs.id)
