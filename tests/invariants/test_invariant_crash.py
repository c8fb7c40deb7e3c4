"""Invariant 5 inside the DynamoDB catalog: a crash between any two of its requests.

The write-protocol contract crashes the process before each port call (every
store and catalog method). Some catalog methods are several DynamoDB requests
(settling writes the applied ledger, then clears the intent slot); here the
process dies before each single request of a change set, and the next writer
must still complete it without a second logical memory.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, cast

from conftest import TEST_BUCKET, TEST_TABLE
from factories import add, change_set, evidence, memory, update
from family_memory.adapters.aws.dynamo_catalog import DynamoCatalog
from family_memory.adapters.aws.s3_store import S3Store
from family_memory.domain.changes import Action
from family_memory.domain.clock import FixedClock
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.layout import evidence_path, memory_path
from family_memory.domain.okf import parse_memory
from family_memory.writes.projections import check_catalog
from family_memory.writes.protocol import FamilyWriter

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

TTL = timedelta(seconds=30)
WRITES = frozenset({"put_item", "update_item", "delete_item", "transact_write_items"})


class Crash(BaseException):
    """The process dying between two requests (BaseException: nothing swallows it)."""


class DyingClient:
    """A DynamoDB client whose process dies before its ``at``-th write request."""

    def __init__(self, inner: Any, at: int) -> None:
        self._inner = inner
        self.at = at
        self.count = 0

    def __getattr__(self, name: str) -> Any:
        call = getattr(self._inner, name)
        if name not in WRITES:
            return call

        def maybe_die(*args: Any, **kwargs: Any) -> Any:
            if self.count >= self.at:
                raise Crash(f"died before write request {self.at}")
            self.count += 1
            return call(*args, **kwargs)

        return maybe_die


def test_a_crash_between_any_two_dynamodb_requests_is_completed_by_the_next_writer(aws: Any, clock: FixedClock) -> None:
    s3 = S3Store(aws.client("s3"), TEST_BUCKET)
    ddb = aws.client("dynamodb")
    at = 0
    while True:
        family = f"fam-ddb-crash-{at}"
        existing, new = memory(), memory(summary="Maya is allergic to peanuts.", about="Maya's allergy")
        FamilyWriter(s3, DynamoCatalog(ddb, TEST_TABLE, clock=clock), clock, lease_ttl=TTL).apply(
            change_set(add(existing, evidence()), family_id=family)
        )
        second = change_set(
            update(existing, Action.REINFORCE, evidence("pizza again", "sess-2"), reinforcement_count=1),
            add(new, evidence("allergic to peanuts", "sess-2")),
            family_id=family,
        )
        dying = DyingClient(ddb, at)
        doomed = FamilyWriter(
            s3, DynamoCatalog(cast("DynamoDBClient", dying), TEST_TABLE, clock=clock), clock, lease_ttl=TTL
        )
        try:
            doomed.apply(second)
        except Crash:
            pass
        else:
            # Lease, intent, rows, the ledger, the slot, the release: every one was a crash point.
            assert at >= 6, at
            return  # it made fewer requests than ``at``: every crash point has been tried
        clock.advance(TTL + timedelta(seconds=1))
        catalog = DynamoCatalog(ddb, TEST_TABLE, clock=clock)
        survivor = FamilyWriter(s3, catalog, clock, lease_ttl=TTL)
        retry = survivor.apply(second)  # taking the lease completes what was recorded; then the redelivery
        assert retry.applied or retry.already_applied, at
        on_disk = {p for p in s3.list(family, "memories/") if p.endswith(".md")}
        assert on_disk == {memory_path(existing.id), memory_path(new.id)}, at
        reinforced = parse_memory(s3.read(family, memory_path(existing.id)).data)
        assert (reinforced.revision, reinforced.reinforcement_count) == (2, 1), at
        quotes = [r.quote for r in parse_ledger(s3.read(family, evidence_path(existing.id)).data)]
        assert quotes == ["Friday is pizza night", "pizza again"], at
        assert catalog.is_applied(family, second.id) and catalog.pending_intents(family) == [], at
        assert check_catalog(s3, catalog, family).consistent, at
        at += 1
