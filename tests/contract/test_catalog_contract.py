"""One contract, two catalogs: SQLite on disk and DynamoDB (under moto)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from conftest import Adapters
from factories import FAMILY, memory
from family_memory.domain.errors import InvalidInputError, LeaseHeldError, LeaseLostError, StaleRevisionError
from family_memory.domain.memory import Status
from family_memory.ports.catalog import CatalogRow

TTL = timedelta(seconds=30)


def row(**overrides: object) -> CatalogRow:
    return CatalogRow.from_memory(memory(**overrides), tag="etag-1")


# --- lease ----------------------------------------------------------------------


def test_lease_is_exclusive_until_released(adapters: Adapters) -> None:
    catalog = adapters.catalog
    first = catalog.acquire_lease(FAMILY, "writer-a", TTL)
    with pytest.raises(LeaseHeldError, match="writer-a"):
        catalog.acquire_lease(FAMILY, "writer-b", TTL)
    assert catalog.release_lease(first)
    second = catalog.acquire_lease(FAMILY, "writer-b", TTL)
    assert second.token > first.token


def test_leases_of_different_families_are_independent(adapters: Adapters) -> None:
    adapters.catalog.acquire_lease(FAMILY, "writer-a", TTL)
    adapters.catalog.acquire_lease("fam-other", "writer-b", TTL)


def test_an_expired_lease_can_be_taken_over_with_a_higher_token(adapters: Adapters) -> None:
    catalog, clock = adapters.catalog, adapters.clock
    first = catalog.acquire_lease(FAMILY, "writer-a", TTL)
    clock.advance(TTL + timedelta(seconds=1))
    second = catalog.acquire_lease(FAMILY, "writer-b", TTL)
    assert second.token == first.token + 1


def test_fencing_refuses_the_writer_whose_lease_was_taken_over(adapters: Adapters) -> None:
    catalog, clock = adapters.catalog, adapters.clock
    stale = catalog.acquire_lease(FAMILY, "writer-a", TTL)
    clock.advance(TTL + timedelta(seconds=1))
    fresh = catalog.acquire_lease(FAMILY, "writer-b", TTL)
    with pytest.raises(LeaseLostError):
        catalog.put_rows(FAMILY, [row()], lease=stale)
    with pytest.raises(LeaseLostError):
        catalog.record_intent(FAMILY, "change-1", "{}", lease=stale)
    with pytest.raises(LeaseLostError):
        catalog.renew_lease(stale, TTL)
    assert not catalog.release_lease(stale)
    catalog.put_rows(FAMILY, [row()], lease=fresh)


def test_renew_extends_only_the_holders_lease(adapters: Adapters) -> None:
    catalog, clock = adapters.catalog, adapters.clock
    lease = catalog.acquire_lease(FAMILY, "writer-a", TTL)
    clock.advance(timedelta(seconds=20))
    renewed = catalog.renew_lease(lease, TTL)
    assert renewed.expires_at > lease.expires_at and renewed.token == lease.token
    clock.advance(timedelta(seconds=20))  # past the first expiry, inside the renewed one
    with pytest.raises(LeaseHeldError):
        catalog.acquire_lease(FAMILY, "writer-b", TTL)


def test_fencing_compares_the_token_not_only_the_holder(adapters: Adapters) -> None:
    """One process (one holder name) whose slow session outlived its lease and which
    has since opened a new session on the family: only the token tells them apart."""
    catalog, clock = adapters.catalog, adapters.clock
    stale = catalog.acquire_lease(FAMILY, "writer-a", TTL)
    clock.advance(TTL + timedelta(seconds=1))
    fresh = catalog.acquire_lease(FAMILY, "writer-a", TTL)
    assert fresh.token == stale.token + 1
    catalog.put_rows(FAMILY, [kept := row()], lease=fresh)
    with pytest.raises(LeaseLostError):
        catalog.put_rows(FAMILY, [row()], lease=stale)
    with pytest.raises(LeaseLostError):
        catalog.delete_rows(FAMILY, [kept.id], lease=stale)
    with pytest.raises(LeaseLostError):
        catalog.record_intent(FAMILY, "change-1", "{}", lease=stale)
    with pytest.raises(LeaseLostError):
        catalog.settle(FAMILY, "change-1", lease=stale)
    with pytest.raises(LeaseLostError):
        catalog.renew_lease(stale, TTL)
    assert not catalog.release_lease(stale)
    assert [r.id for r in catalog.all_rows(FAMILY)] == [kept.id]
    assert catalog.pending_intents(FAMILY) == []


def test_a_lease_for_one_family_cannot_write_another(adapters: Adapters) -> None:
    catalog = adapters.catalog
    ours = catalog.acquire_lease(FAMILY, "writer-a", TTL)
    # The same writer holds the other family's lease too, with the same token number.
    theirs = catalog.acquire_lease("fam-other", "writer-a", TTL)
    assert theirs.token == ours.token
    catalog.put_rows("fam-other", [kept := row()], lease=theirs)
    with pytest.raises(LeaseLostError):
        catalog.put_rows("fam-other", [row()], lease=ours)
    with pytest.raises(LeaseLostError):
        catalog.delete_rows("fam-other", [kept.id], lease=ours)
    with pytest.raises(LeaseLostError):
        catalog.record_intent("fam-other", "change-1", "{}", lease=ours)
    with pytest.raises(LeaseLostError):
        catalog.settle("fam-other", "change-1", lease=ours)
    assert [r.id for r in catalog.all_rows("fam-other")] == [kept.id]
    assert catalog.pending_intents("fam-other") == [] and not catalog.is_applied("fam-other", "change-1")


def test_family_ids_are_validated_before_they_become_keys(adapters: Adapters) -> None:
    catalog = adapters.catalog
    calls: list[Callable[[str], object]] = [
        lambda family: catalog.acquire_lease(family, "writer-a", TTL),
        lambda family: catalog.get_rows(family, []),
        lambda family: catalog.list_rows(family),
        lambda family: list(catalog.all_rows(family)),
        lambda family: catalog.pending_intents(family),
        lambda family: catalog.is_applied(family, "change-1"),
    ]
    for family in ["../fam-other", "fam/other", "fam..other", "", "x" * 65]:
        for call in calls:
            with pytest.raises(InvalidInputError, match="family id"):
                call(family)


# --- rows -----------------------------------------------------------------------


def test_rows_round_trip_and_batch_get_returns_only_existing(adapters: Adapters) -> None:
    catalog = adapters.catalog
    lease = catalog.acquire_lease(FAMILY, "w", TTL)
    rows = [row() for _ in range(3)]
    catalog.put_rows(FAMILY, rows, lease=lease)
    missing = memory().id
    found = catalog.get_rows(FAMILY, [rows[0].id, rows[2].id, missing])
    assert found == {rows[0].id: rows[0], rows[2].id: rows[2]}
    assert catalog.get_rows("fam-other", [rows[0].id]) == {}


def test_listing_is_newest_first_with_cursor_pagination(adapters: Adapters) -> None:
    from datetime import UTC, datetime

    catalog = adapters.catalog
    lease = catalog.acquire_lease(FAMILY, "w", TTL)
    rows = [
        row(formed_at=datetime(2026, 1, day, tzinfo=UTC), last_reinforced_at=datetime(2026, 1, day, tzinfo=UTC))
        for day in range(1, 12)
    ]
    catalog.put_rows(FAMILY, rows, lease=lease)
    seen: list[CatalogRow] = []
    cursor = None
    pages = 0
    while True:
        page = catalog.list_rows(FAMILY, limit=4, cursor=cursor)
        seen += page.rows
        pages += 1
        cursor = page.cursor
        if cursor is None:
            break
    assert pages == 3
    assert [r.id for r in seen] == [r.id for r in sorted(rows, key=lambda r: r.formed_at, reverse=True)]


def test_listing_filters_by_status(adapters: Adapters) -> None:
    catalog = adapters.catalog
    lease = catalog.acquire_lease(FAMILY, "w", TTL)
    active = [row() for _ in range(5)]
    expired = [row(status=Status.EXPIRED) for _ in range(7)]
    catalog.put_rows(FAMILY, active + expired, lease=lease)
    page = catalog.list_rows(FAMILY, status=Status.EXPIRED, limit=3)
    collected = list(page.rows)
    while page.cursor:
        page = catalog.list_rows(FAMILY, status=Status.EXPIRED, limit=3, cursor=page.cursor)
        collected += page.rows
    assert {r.id for r in collected} == {r.id for r in expired}
    assert all(r.status is Status.EXPIRED for r in collected)


def test_cursors_cannot_cross_listings_or_families(adapters: Adapters) -> None:
    catalog = adapters.catalog
    lease = catalog.acquire_lease(FAMILY, "w", TTL)
    catalog.put_rows(FAMILY, [row() for _ in range(3)], lease=lease)
    cursor = catalog.list_rows(FAMILY, limit=1).cursor
    assert cursor is not None
    with pytest.raises(InvalidInputError):
        catalog.list_rows("fam-other", limit=1, cursor=cursor)
    with pytest.raises(InvalidInputError):
        catalog.list_rows(FAMILY, status=Status.ACTIVE, limit=1, cursor=cursor)
    with pytest.raises(InvalidInputError):
        catalog.list_rows(FAMILY, limit=1, cursor="garbage!")
    with pytest.raises(InvalidInputError):
        catalog.list_rows(FAMILY, limit=0)


def test_an_older_revision_never_overwrites_a_newer_row(adapters: Adapters) -> None:
    catalog = adapters.catalog
    lease = catalog.acquire_lease(FAMILY, "w", TTL)
    newer = row(revision=3)
    catalog.put_rows(FAMILY, [newer], lease=lease)
    older = CatalogRow.model_validate({**newer.model_dump(), "revision": 2, "summary": "old"})
    with pytest.raises(StaleRevisionError):
        catalog.put_rows(FAMILY, [older], lease=lease)
    assert catalog.get_rows(FAMILY, [newer.id])[newer.id].revision == 3
    catalog.put_rows(FAMILY, [older], lease=lease, force=True)  # a rebuild from the files wins
    assert catalog.get_rows(FAMILY, [newer.id])[newer.id].revision == 2


def test_delete_rows_removes_only_named_rows(adapters: Adapters) -> None:
    catalog = adapters.catalog
    lease = catalog.acquire_lease(FAMILY, "w", TTL)
    keep, drop = row(), row()
    catalog.put_rows(FAMILY, [keep, drop], lease=lease)
    catalog.delete_rows(FAMILY, [drop.id], lease=lease)
    assert [r.id for r in catalog.all_rows(FAMILY)] == [keep.id]


# --- ledger ---------------------------------------------------------------------


def test_intents_are_pending_until_settled_then_applied(adapters: Adapters) -> None:
    catalog = adapters.catalog
    lease = catalog.acquire_lease(FAMILY, "w", TTL)
    catalog.record_intent(FAMILY, "change-1", '{"x": 1}', lease=lease)
    catalog.record_intent(FAMILY, "change-1", '{"x": 1}', lease=lease)  # idempotent
    assert [(p.change_id, p.payload) for p in catalog.pending_intents(FAMILY)] == [("change-1", '{"x": 1}')]
    assert not catalog.is_applied(FAMILY, "change-1")
    catalog.settle(FAMILY, "change-1", lease=lease)
    assert catalog.pending_intents(FAMILY) == []
    assert catalog.is_applied(FAMILY, "change-1")
    assert not catalog.is_applied("fam-other", "change-1")
