"""The runtime: one typed object holding every part a function, command or server uses.

``app.bootstrap`` builds it (``bootstrap()``, once per process); nothing changes it
afterwards. It is the foundation (settings, clock, store, catalog, writer and, locally,
the bus and queues: ``app.foundation``) with the parts wired on it:

- ``formation``: extraction, reconciliation, the reconcile queue and idempotency;
- ``lifecycle``: the dream's deps, ledger and queue;
- ``brief``: the brief's loader and patcher;
- ``card``: the family's own writes;
- ``retrieval``: index, embedder, indexer, lookup and read tools, or None on AWS without
  an OpenSearch endpoint; ``retrieval_for`` is its one accessor.
"""

from __future__ import annotations

from dataclasses import dataclass

from family_memory.app.formation import FormationServices
from family_memory.app.foundation import Foundation
from family_memory.app.lifecycle import BriefServices, Lifecycle
from family_memory.card.service import Card
from family_memory.lifecycle.dream import DreamReport, dream_family
from family_memory.retrieval.search_index import IndexUnavailableError
from family_memory.retrieval.service import Retrieval


@dataclass(frozen=True, kw_only=True)
class Runtime(Foundation):
    formation: FormationServices
    lifecycle: Lifecycle
    brief: BriefServices
    card: Card
    #: None on AWS when no OpenSearch endpoint is configured (``retrieval_for`` says so).
    retrieval: Retrieval | None = None

    def dream(self, family_id: str) -> DreamReport:
        """Dream one family as of the runtime's clock: what a replay or migration calls when it is done."""
        return dream_family(self.lifecycle.deps, family_id, now=self.clock.now())


def retrieval_for(runtime: Runtime) -> Retrieval:
    """The runtime's retrieval (index, lookup, read tools). Without it, search is unavailable
    (IndexUnavailableError, naming the missing setting): the request was fine, the deployment is not."""
    if runtime.retrieval is None:
        raise IndexUnavailableError("retrieval is not configured (aws mode needs OPENSEARCH_ENDPOINT)")
    return runtime.retrieval
