"""Wiring the lifecycle (dreaming and the brief) into a Runtime, and its metrics.

``install_local`` and ``install_aws`` are called by the composition roots in
``app/bootstrap.py``. They build the dream ledger and queue for the backend,
register the brief patcher on the writer (every settled change set patches
the brief at once) and, locally, subscribe the compile to ``changes/`` and
``candidates/`` events on the in-process bus, as the EventBridge rule does in
AWS. Other parts reach the pieces through ``lifecycle_of(runtime)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from family_memory.brief.load import BriefLoader
from family_memory.brief.patch import BriefPatcher
from family_memory.domain.errors import InvalidInputError
from family_memory.lifecycle.dream import DREAM_ACTOR, DreamDeps, DreamReport, dream_family
from family_memory.lifecycle.rules import DreamPolicy
from family_memory.lifecycle.triggers import CANDIDATES_KEY, CHANGES_KEY, handle, trigger_for_key
from family_memory.ports.lifecycle import DreamLedger, DreamQueue

if TYPE_CHECKING:
    from family_memory.adapters.local.dream_queue import LocalDreamQueue
    from family_memory.app.bootstrap import Runtime

EXTRA_KEY = "lifecycle"


@dataclass
class Lifecycle:
    deps: DreamDeps
    ledger: DreamLedger
    loader: BriefLoader
    patcher: BriefPatcher
    queue: DreamQueue | None
    local_queue: LocalDreamQueue | None = None


def _install(runtime: Runtime, ledger: DreamLedger, queue: DreamQueue | None) -> Lifecycle:
    settings = runtime.settings
    deps = DreamDeps(runtime.writer, ledger, DreamPolicy(settings.dream_promote_after, settings.dream_decay_after_days))
    patcher = BriefPatcher(runtime.store, runtime.catalog, skip_actors={DREAM_ACTOR})
    runtime.writer.listeners.append(patcher)
    lifecycle = Lifecycle(deps, ledger, BriefLoader(runtime.store, runtime.clock), patcher, queue)
    runtime.extras[EXTRA_KEY] = lifecycle
    # What formation's replay calls once a family's history has been replayed.
    runtime.extras["dream"] = dream_one(runtime)
    return lifecycle


def install_local(runtime: Runtime) -> Lifecycle:
    from family_memory.adapters.local.dream_queue import LocalDreamQueue
    from family_memory.adapters.local.sqlite_dream_ledger import SQLiteDreamLedger

    queue = LocalDreamQueue()
    lifecycle = _install(runtime, SQLiteDreamLedger(runtime.settings.home / "dreams.sqlite3"), queue)
    lifecycle.local_queue = queue
    if runtime.bus is not None:

        def on_object_created(event: dict[str, Any]) -> None:
            trigger = trigger_for_key(event["detail"]["object"]["key"])
            if trigger is not None:
                handle(lifecycle.deps, trigger.family_id, [trigger], now=runtime.clock.now())

        runtime.bus.subscribe(CHANGES_KEY, on_object_created)
        runtime.bus.subscribe(CANDIDATES_KEY, on_object_created)
    return lifecycle


def install_aws(runtime: Runtime, session: Any) -> Lifecycle:
    from family_memory.adapters.aws.dynamo_dream_ledger import DynamoDreamLedger
    from family_memory.adapters.aws.sqs_dream_queue import SQSDreamQueue

    settings = runtime.settings
    assert settings.table is not None
    ledger = DynamoDreamLedger(session.client("dynamodb"), settings.table)
    queue = SQSDreamQueue(session.client("sqs"), settings.dream_queue_url) if settings.dream_queue_url else None
    return _install(runtime, ledger, queue)


def lifecycle_of(runtime: Runtime) -> Lifecycle:
    """The lifecycle parts of a runtime built by ``build_local`` or ``build_aws``."""
    lifecycle = runtime.extras.get(EXTRA_KEY)
    if not isinstance(lifecycle, Lifecycle):
        raise InvalidInputError("this runtime has no lifecycle wired (build it with build_local or build_aws)")
    return lifecycle


def dream_one(runtime: Runtime) -> Callable[[str], DreamReport]:
    """``family_id -> DreamReport`` as of the runtime's clock: what a replay calls when it is done."""

    def dream(family_id: str) -> DreamReport:
        return dream_family(lifecycle_of(runtime).deps, family_id, now=runtime.clock.now())

    return dream


def record_dream_metrics(report: DreamReport) -> None:
    """Families dreamed, transitions by kind, brief tokens per family (CloudWatch EMF)."""
    from aws_lambda_powertools.metrics import MetricUnit, single_metric

    from family_memory.app.observability import NAMESPACE, SERVICE, metrics

    metrics.add_metric(name="FamiliesDreamed", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="BriefTokens", unit=MetricUnit.Count, value=report.brief_tokens)
    for action, count in sorted(report.counts().items()):
        with single_metric(name="Transitions", unit=MetricUnit.Count, value=count, namespace=NAMESPACE) as metric:
            metric.add_dimension(name="service", value=SERVICE)
            metric.add_dimension(name="kind", value=action.value)
