"""Formation's wiring: extractor, finder, queue and idempotency store per backend.

``wire_local`` (called by ``build_local``) uses the offline extractor, the
catalog finder, an in-process FIFO queue and SQLite idempotency records; the
composition root then has the bus deliver ``sessions/`` object-created events to
the extract handler and the queue deliver SQS-shaped batches to the reconcile
handler, the same handlers Lambda runs (``app.formation_events``). ``wire_aws``
(called by ``build_aws``) uses Bedrock (or the offline extractor, by
configuration), SQS FIFO and Powertools' DynamoDB idempotency layer. Each
returns the part (``FormationServices``); neither changes what it is given.

The similar-memory finder is the search index (with the newest catalog rows
covering the index's lag) when the runtime has one, and catalog text
similarity otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.idempotency import (
    BasePersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)

from family_memory.app.foundation import Foundation
from family_memory.app.observability import CountingMetrics, MetricsSink
from family_memory.app.settings import Settings
from family_memory.forgotten import ClaimMeaning
from family_memory.formation.document import Limits
from family_memory.formation.extraction import Extractor
from family_memory.formation.offline import OfflineExtractor
from family_memory.formation.queue import ReconcileRequest
from family_memory.formation.service import FormationDeps, reconcile_session
from family_memory.formation.similar import (
    CatalogSimilarMemories,
    FallingBackTo,
    IndexWithRecentCatalog,
    SimilarMemories,
)
from family_memory.ports.catalog import Catalog
from family_memory.retrieval.search_index import IndexMismatchError
from family_memory.retrieval.service import Retrieval

if TYPE_CHECKING:
    from family_memory.adapters.local.queue import InProcessQueue

IDEMPOTENCY_TTL_SECONDS = 24 * 3600


@dataclass
class FormationServices:
    deps: FormationDeps
    metrics: MetricsSink
    idempotency: BasePersistenceLayer | None = None
    queue: InProcessQueue | None = None
    idempotency_config: IdempotencyConfig = field(
        default_factory=lambda: IdempotencyConfig(
            event_key_jmespath="[family_id, session_id, content_hash]",
            expires_after_seconds=IDEMPOTENCY_TTL_SECONDS,
            raise_on_no_idempotency_key=True,
        )
    )
    _guarded: Callable[..., Any] | None = field(default=None, repr=False)

    def guard(self, run: Callable[[dict[str, str]], dict[str, Any]]) -> Callable[[ReconcileRequest], Any]:
        """``run`` guarded by Powertools idempotency on (family, session, content hash):
        a request seen before returns the first run's result without running again."""
        if self.idempotency is None:
            return lambda request: run(request.model_dump())

        def reconcile(request: dict[str, str]) -> dict[str, Any]:
            return run(request)

        guarded = idempotent_function(
            reconcile,
            data_keyword_argument="request",
            persistence_store=self.idempotency,
            config=self.idempotency_config,
            key_prefix="family-memory.reconcile",
        )
        return lambda request: guarded(request=request.model_dump())

    def reconcile_once(self, request: ReconcileRequest) -> dict[str, Any]:
        """Reconcile the session ``request`` names, at most once per (family, session, content hash)."""
        if self._guarded is None:
            self._guarded = self.guard(self._reconcile)
        result: dict[str, Any] = self._guarded(request)
        return result

    def _reconcile(self, request: dict[str, str]) -> dict[str, Any]:
        from aws_lambda_powertools.metrics import MetricUnit

        from family_memory.app.observability import logger

        report = reconcile_session(self.deps, request["family_id"], request["session_id"])
        for kind, n in report.counts().items():
            if n:
                self.metrics.add_metric(name=f"MemoryChanges_{kind}", unit=MetricUnit.Count, value=n)
        self.metrics.add_metric(name="ChangeSetsApplied", unit=MetricUnit.Count, value=len(report.change_ids))
        logger.info("session reconciled", extra={"counts": report.counts(), "change_ids": report.change_ids})
        return report.as_dict()


def similar_finder(catalog: Catalog, retrieval: Retrieval | None) -> SimilarMemories:
    """Through the index when it exists (guarded against its lag); by catalog text until then."""
    if retrieval is None:
        return CatalogSimilarMemories(catalog)
    # An index of another embedder fails until rebuild-index; reconcile goes on by catalog text.
    indexed = FallingBackTo(retrieval.similar, CatalogSimilarMemories(catalog), (IndexMismatchError,))
    return IndexWithRecentCatalog(indexed, catalog)


def claim_meaning(retrieval: Retrieval | None) -> ClaimMeaning | None:
    """Forget rules by meaning with the runtime's embedder, where its threshold is calibrated
    (the offline MiniLM; Titan is not calibrated yet, so on AWS rules match by words)."""
    if retrieval is None:
        return None
    embedder = retrieval.embedder
    return ClaimMeaning.for_model(embedder.model_id, embedder.embed)


def _deps(base: Foundation, retrieval: Retrieval | None, extractor: Extractor, queue: Any) -> FormationDeps:
    return FormationDeps(
        store=base.store,
        writer=base.writer,
        clock=base.clock,
        extractor=extractor,
        finder=similar_finder(base.catalog, retrieval),
        queue=queue,
        limits=Limits(max_new=base.settings.max_candidates_per_session),
        meaning=claim_meaning(retrieval),
    )


def bedrock_extractor(settings: Settings, session: Any) -> Extractor:
    """The Bedrock extractor for ``settings``' model, its client made from ``session``."""
    from botocore.config import Config

    from family_memory.adapters.aws.bedrock_extractor import BedrockExtractor

    client = session.client(
        "bedrock-runtime", config=Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=120)
    )
    return BedrockExtractor(client, settings.bedrock_model_id, max_candidates=settings.max_candidates_per_session)


def wire_local(base: Foundation, retrieval: Retrieval | None) -> FormationServices:
    """Local formation: the queue is in-process; the composition root sets its handler and pumps it."""
    from family_memory.adapters.local.idempotency import SQLiteIdempotencyStore
    from family_memory.adapters.local.queue import InProcessQueue

    settings = base.settings
    queue = InProcessQueue()
    if settings.extractor == "bedrock":
        import boto3

        extractor = bedrock_extractor(settings, boto3.session.Session(region_name=settings.region))
    else:
        extractor = OfflineExtractor()
    return FormationServices(
        deps=_deps(base, retrieval, extractor, queue),
        metrics=CountingMetrics(),
        idempotency=SQLiteIdempotencyStore(settings.home / "idempotency.sqlite3"),
        queue=queue,
    )


def wire_aws(base: Foundation, retrieval: Retrieval | None, session: Any) -> FormationServices:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    from family_memory.adapters.aws.sqs_reconcile_queue import SqsReconcileQueue
    from family_memory.app.observability import metrics

    settings = base.settings
    extractor = bedrock_extractor(settings, session) if settings.extractor == "bedrock" else OfflineExtractor()
    queue = (
        SqsReconcileQueue(session.client("sqs"), settings.reconcile_queue_url) if settings.reconcile_queue_url else None
    )
    idempotency = (
        DynamoDBPersistenceLayer(table_name=settings.idempotency_table, boto3_client=session.client("dynamodb"))
        if settings.idempotency_table
        else None
    )
    return FormationServices(deps=_deps(base, retrieval, extractor, queue), metrics=metrics, idempotency=idempotency)
