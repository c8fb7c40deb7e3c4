"""Formation's wiring: extractor, finder, queue and idempotency store per backend.

``wire_local`` (called by ``build_local``) uses the offline extractor, the
catalog finder, an in-process FIFO queue and SQLite idempotency records, and
subscribes the same handlers Lambda runs: the bus delivers ``sessions/``
object-created events to the extract handler, the queue delivers SQS-shaped
batches to the reconcile handler. ``wire_aws`` (called by ``build_aws``) uses
Bedrock (or the offline extractor, by configuration), SQS FIFO and
Powertools' DynamoDB idempotency layer.

The similar-memory finder is the search index (with the newest catalog rows
covering the index's lag) when the runtime has one, and catalog text
similarity otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from aws_lambda_powertools.utilities.idempotency import (
    BasePersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)

from family_memory.domain.layout import Service, key_pattern
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
from family_memory.formation.suppression_rules import ClaimMeaning
from family_memory.retrieval.index import IndexMismatchError

if TYPE_CHECKING:
    from family_memory.adapters.local.queue import InProcessQueue
    from family_memory.app.bootstrap import Runtime

IDEMPOTENCY_TTL_SECONDS = 24 * 3600


class MetricsSink(Protocol):
    def add_metric(self, *, name: str, unit: Any, value: float) -> Any: ...


@dataclass
class CountingMetrics:
    """Local mode's metrics: totals kept in memory (Lambda publishes EMF instead)."""

    totals: dict[str, float] = field(default_factory=dict)

    def add_metric(self, *, name: str, unit: Any, value: float) -> None:
        self.totals[name] = self.totals.get(name, 0) + value


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


def formation(runtime: Runtime) -> FormationServices:
    services = runtime.extras.get("formation")
    if not isinstance(services, FormationServices):
        raise RuntimeError("formation is not wired into this runtime (build it with build_local or build_aws)")
    return services


def similar_finder(runtime: Runtime) -> SimilarMemories:
    """Through the index when it exists (guarded against its lag); by catalog text until then."""
    if runtime.retrieval is None:
        return CatalogSimilarMemories(runtime.catalog)
    # An index of another embedder fails until rebuild-index; reconcile goes on by catalog text.
    indexed = FallingBackTo(runtime.retrieval.similar, CatalogSimilarMemories(runtime.catalog), (IndexMismatchError,))
    return IndexWithRecentCatalog(indexed, runtime.catalog)


def claim_meaning(runtime: Runtime) -> ClaimMeaning | None:
    """Forget rules by meaning with the runtime's embedder, where its threshold is calibrated
    (the offline MiniLM; Titan is not calibrated yet, so on AWS rules match by words)."""
    if runtime.retrieval is None:
        return None
    embedder = runtime.retrieval.embedder
    return ClaimMeaning.for_model(embedder.model_id, embedder.embed)


def _deps(runtime: Runtime, extractor: Extractor, queue: Any) -> FormationDeps:
    return FormationDeps(
        store=runtime.store,
        writer=runtime.writer,
        clock=runtime.clock,
        extractor=extractor,
        finder=similar_finder(runtime),
        queue=queue,
        limits=Limits(max_new=runtime.settings.max_candidates_per_session),
        meaning=claim_meaning(runtime),
    )


def _bedrock(runtime: Runtime, session: Any) -> Extractor:
    from botocore.config import Config

    from family_memory.adapters.aws.bedrock_extractor import BedrockExtractor

    client = session.client(
        "bedrock-runtime", config=Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=120)
    )
    settings = runtime.settings
    return BedrockExtractor(client, settings.bedrock_model_id, max_candidates=settings.max_candidates_per_session)


def wire_local(runtime: Runtime) -> None:
    from family_memory.adapters.local.idempotency import SQLiteIdempotencyStore
    from family_memory.adapters.local.queue import InProcessQueue
    from family_memory.app.formation_events import handle_reconcile_batch, handle_session_created

    queue = InProcessQueue()
    if runtime.settings.extractor == "bedrock":
        import boto3

        extractor = _bedrock(runtime, boto3.session.Session(region_name=runtime.settings.region))
    else:
        extractor = OfflineExtractor()
    runtime.extras["formation"] = FormationServices(
        deps=_deps(runtime, extractor, queue),
        metrics=CountingMetrics(),
        idempotency=SQLiteIdempotencyStore(runtime.settings.home / "idempotency.sqlite3"),
        queue=queue,
    )
    if runtime.bus is not None:
        runtime.bus.subscribe(key_pattern(Service.EXTRACT), lambda event: handle_session_created(runtime, event))
    queue.set_handler(lambda event: handle_reconcile_batch(runtime, event))
    runtime.pumps.append(queue.pump)


def wire_aws(runtime: Runtime, session: Any) -> None:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    from family_memory.adapters.aws.sqs_reconcile_queue import SqsReconcileQueue
    from family_memory.app.observability import metrics

    settings = runtime.settings
    extractor = _bedrock(runtime, session) if settings.extractor == "bedrock" else OfflineExtractor()
    queue = (
        SqsReconcileQueue(session.client("sqs"), settings.reconcile_queue_url) if settings.reconcile_queue_url else None
    )
    idempotency = (
        DynamoDBPersistenceLayer(table_name=settings.idempotency_table, boto3_client=session.client("dynamodb"))
        if settings.idempotency_table
        else None
    )
    runtime.extras["formation"] = FormationServices(
        deps=_deps(runtime, extractor, queue), metrics=metrics, idempotency=idempotency
    )
