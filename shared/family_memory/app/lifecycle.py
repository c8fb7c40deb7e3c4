"""Wiring the lifecycle (dreaming) and the brief, and the lifecycle's batch policies and metrics.

``wire_local`` and ``wire_aws`` (called by the composition roots in ``app/bootstrap.py``)
return the dream's parts for the backend (``Lifecycle``: its deps, ledger and queue);
``wire_brief`` returns the brief's (``BriefServices``: its loader and the patcher the
root registers on the writer, so every settled change set patches the brief at once).
Locally the root subscribes ``compile_object_created`` to ``changes/`` and ``candidates/``
events on the in-process bus, as the EventBridge rule does on AWS for ``compile_sqs_batch``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.metrics import MetricUnit
from pydantic import ValidationError

from family_memory.app.foundation import Foundation
from family_memory.app.observability import MetricsSink
from family_memory.brief.load import BriefLoader
from family_memory.brief.patch import BriefPatcher
from family_memory.domain.clock import Clock
from family_memory.domain.errors import InvalidInputError, LeaseHeldError
from family_memory.lifecycle.dream import DREAM_ACTOR, DreamDeps, DreamReport
from family_memory.lifecycle.fanout import dream_requested
from family_memory.lifecycle.rules import DreamPolicy
from family_memory.lifecycle.triggers import Trigger, by_family, dream_on_triggers, trigger_for_key
from family_memory.ports.lifecycle import DreamLedger, DreamQueue

if TYPE_CHECKING:
    from family_memory.adapters.local.dream_queue import LocalDreamQueue


@dataclass(frozen=True)
class Lifecycle:
    deps: DreamDeps
    ledger: DreamLedger
    queue: DreamQueue | None
    local_queue: LocalDreamQueue | None = None


@dataclass(frozen=True)
class BriefServices:
    #: The compiled brief as served (and its prompt block).
    loader: BriefLoader
    #: Patches the brief after every settled change set but the dream's (which recompiles it).
    patcher: BriefPatcher


def _lifecycle(base: Foundation, ledger: DreamLedger, queue: DreamQueue | None, **local: Any) -> Lifecycle:
    settings = base.settings
    deps = DreamDeps(base.writer, ledger, DreamPolicy(settings.dream_promote_after, settings.dream_decay_after_days))
    return Lifecycle(deps, ledger, queue, **local)


def wire_local(base: Foundation) -> Lifecycle:
    from family_memory.adapters.local.dream_queue import LocalDreamQueue
    from family_memory.adapters.local.sqlite_dream_ledger import SQLiteDreamLedger

    queue = LocalDreamQueue()
    return _lifecycle(base, SQLiteDreamLedger(base.settings.home / "dreams.sqlite3"), queue, local_queue=queue)


def wire_aws(base: Foundation, session: Any) -> Lifecycle:
    from family_memory.adapters.aws.dynamo_dream_ledger import DynamoDreamLedger
    from family_memory.adapters.aws.sqs_dream_queue import SQSDreamQueue

    settings = base.settings
    assert settings.table is not None
    ledger = DynamoDreamLedger(session.client("dynamodb"), settings.table)
    queue = SQSDreamQueue(session.client("sqs"), settings.dream_queue_url) if settings.dream_queue_url else None
    return _lifecycle(base, ledger, queue)


def wire_brief(base: Foundation) -> BriefServices:
    """The brief's loader and patcher (the root registers the patcher on the writer)."""
    patcher = BriefPatcher(base.store, base.catalog, skip_actors={DREAM_ACTOR})
    return BriefServices(BriefLoader(base.store, base.clock), patcher)


# --- the compile: a batch of object-created events, one dream per family -----------------


@dataclass(frozen=True)
class CompileOutcome:
    #: Message ids to report as failures (retried, then dead-lettered), in the batch's order.
    failed: list[str] = field(default_factory=list)
    #: Why, one error per failed family or unreadable message (a local caller raises the first).
    errors: list[Exception] = field(default_factory=list)


def compile_keys(
    lifecycle: Lifecycle, keys: Sequence[tuple[str, str]], clock: Clock, metrics: MetricsSink | None = None
) -> CompileOutcome:
    """Dream each family a batch of (message id, object key) names once: a burst of changes
    coalesces into one dream. A family whose dream fails has all its messages failed, and so
    has a family another writer holds (the lease wait is short, ``LEASE_WAIT_SECONDS``, so busy
    families cannot make a batch outlast its timeout); a key that is not a family key fails
    its message, so nothing is dropped silently. ``metrics``: where to publish (Lambda's EMF;
    None locally)."""
    from family_memory.app.observability import logger

    outcome = CompileOutcome()
    triggers: list[Trigger] = []
    messages: dict[str, list[str]] = {}
    for message_id, key in keys:
        try:
            trigger = trigger_for_key(key)
        except InvalidInputError as exc:
            logger.exception("not an object-created event for a family key", extra={"message_id": message_id})
            outcome.failed.append(message_id)
            outcome.errors.append(exc)
            continue
        if trigger is not None:
            triggers.append(trigger)
            messages.setdefault(trigger.family_id, []).append(message_id)
    for family_id, family_triggers in by_family(triggers).items():
        try:
            report = dream_on_triggers(lifecycle.deps, family_id, family_triggers, now=clock.now())
        except LeaseHeldError as exc:
            # Another writer holds the family (LEASE_WAIT_SECONDS is short): retried later.
            logger.warning("family busy; its messages are retried later", extra={"family_id": family_id})
            if metrics is not None:
                metrics.add_metric(name="FamiliesBusy", unit=MetricUnit.Count, value=1)
            outcome.failed.extend(messages[family_id])
            outcome.errors.append(exc)
            continue
        except Exception as exc:
            logger.exception("compile failed", extra={"family_id": family_id})
            outcome.failed.extend(messages[family_id])
            outcome.errors.append(exc)
            continue
        if report is not None:
            if metrics is not None:
                record_dream_metrics(report)
            logger.info("compiled", extra={"family_id": family_id, "brief_tokens": report.brief_tokens})
    return outcome


def compile_object_created(lifecycle: Lifecycle, clock: Clock, event: dict[str, Any]) -> None:
    """Local mode's compile: one object-created event per delivery (the bus retries a failed
    one; SQS batches them on AWS), through ``compile_keys``; a failure raises its error."""
    outcome = compile_keys(lifecycle, [("local", event["detail"]["object"]["key"])], clock)
    if outcome.errors:
        raise outcome.errors[0]


def compile_sqs_batch(
    lifecycle: Lifecycle, event: dict[str, Any], clock: Clock, metrics: MetricsSink | None = None
) -> dict[str, Any]:
    """The compile function's SQS batch (each body an EventBridge S3 "Object Created" event)
    through ``compile_keys``, answered as partial batch failures. A body that is not such an
    event fails its message."""
    from aws_lambda_powertools.utilities.data_classes import SQSEvent
    from aws_lambda_powertools.utilities.parser.models import S3EventNotificationEventBridgeModel

    from family_memory.app.observability import logger

    keys: list[tuple[str, str]] = []
    unreadable: list[str] = []
    for record in SQSEvent(event).records:
        try:
            notice = S3EventNotificationEventBridgeModel.model_validate_json(record.body)
        except ValidationError:
            logger.exception("not an object-created event for a family key", extra={"message_id": record.message_id})
            unreadable.append(record.message_id)
            continue
        keys.append((record.message_id, notice.detail.object.key))
    failed = unreadable + compile_keys(lifecycle, keys, clock, metrics).failed
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}


def dream_sqs_batch(
    lifecycle: Lifecycle, event: dict[str, Any], context: Any, clock: Clock, metrics: MetricsSink
) -> dict[str, Any]:
    """The dream worker's SQS batch: one family per message (the fan-out's), partial batch
    failures, so one family's failure retries only that message (then the DLQ). A family
    another writer holds fails its message after a short lease wait (``LEASE_WAIT_SECONDS``)
    instead of holding up the batch."""
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    from family_memory.app.observability import logger

    def dream(record: SQSRecord) -> None:
        try:
            report = dream_requested(lifecycle.deps, record.body, now=clock.now())
        except LeaseHeldError:
            # Another writer holds the family (LEASE_WAIT_SECONDS is short): this message fails and is retried.
            logger.warning("family busy; its dream is retried later", extra={"message_id": record.message_id})
            metrics.add_metric(name="FamiliesBusy", unit=MetricUnit.Count, value=1)
            raise
        record_dream_metrics(report)
        logger.info(
            "dreamed",
            extra={
                "family_id": report.family_id,
                "local_date": report.local_date.isoformat(),
                "transitions": {a.value: n for a, n in report.counts().items()},
                "brief_tokens": report.brief_tokens,
            },
        )

    processor = BatchProcessor(event_type=EventType.SQS)
    return dict(process_partial_response(event=event, record_handler=dream, processor=processor, context=context))


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
