"""The nightly dream, in each family's own time zone: fan-out and worker.

Every hour the fan-out lists the families (one listing of the store's
family folders), reads every family's dream state (one query of the dream
ledger) and enqueues a request for each family whose local midnight has
passed since its last dream, in batches. Quiet families are included: their
memories expire and decay even when nobody talks. A family enqueued twice
(the worker was slow, or a retry) is harmless, since a dream is idempotent
for its date.

The worker takes one request and dreams that family as of its own clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from family_memory.lifecycle.dream import DreamDeps, DreamReport, dream_family
from family_memory.lifecycle.schedule import due_requests
from family_memory.ports.lifecycle import DreamLedger, DreamQueue, DreamRequest
from family_memory.ports.store import Store


@dataclass(frozen=True)
class FanoutReport:
    families: int
    due: int
    enqueued: int

    def lines(self) -> list[str]:
        return [f"fan-out: {self.families} families, {self.due} due, {self.enqueued} enqueued"]


def fan_out(store: Store, ledger: DreamLedger, queue: DreamQueue, *, now: datetime) -> FanoutReport:
    """Enqueue a dream for every family that is due at ``now``."""
    states = {state.family_id: state for state in ledger.states()}
    families = list(store.families())
    requests = list(due_requests(families, states, now))
    sent = queue.send(requests) if requests else 0
    return FanoutReport(len(families), len(requests), sent)


def dream_requested(deps: DreamDeps, body: str, *, now: datetime) -> DreamReport:
    """The worker's unit of work: one queue message body. InvalidInputError for a
    malformed message (it will end in the dead-letter queue after its retries)."""
    request = DreamRequest.from_body(body)
    return dream_family(deps, request.family_id, now=now)
