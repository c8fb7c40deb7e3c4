"""Compile: S3 object-created events on ``changes/`` and ``candidates/``
(S3 -> EventBridge rule -> SQS, batched) dream each family in the batch once.

One batch may hold a burst of changes for one family; they coalesce into one
dream. A family whose dream fails has all its messages reported as failures
(retried, then dead-lettered), and so has a family another writer holds: the
lease wait is short (``LEASE_WAIT_SECONDS``), so busy families cannot make a
batch outlast its timeout. An event that is not a family key is reported too,
so nothing is dropped silently.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.data_classes import SQSEvent
from aws_lambda_powertools.utilities.parser.models import S3EventNotificationEventBridgeModel
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from family_memory.app.bootstrap import lambda_runtime
from family_memory.app.lifecycle import lifecycle_of, record_dream_metrics
from family_memory.app.observability import logger, metrics, tracer
from family_memory.domain.errors import InvalidInputError, LeaseHeldError
from family_memory.lifecycle.triggers import Trigger, by_family, handle, trigger_for_key

# Built at INIT in Lambda (a missing or bad variable fails INIT, naming it); on first use elsewhere.
runtime = lambda_runtime("compile")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    rt = runtime()
    failed: list[str] = []
    triggers: list[Trigger] = []
    messages: dict[str, list[str]] = {}
    for record in SQSEvent(event).records:
        try:
            notice = S3EventNotificationEventBridgeModel.model_validate_json(record.body)
            trigger = trigger_for_key(notice.detail.object.key)
        except (ValidationError, InvalidInputError):
            logger.exception("not an object-created event for a family key", extra={"message_id": record.message_id})
            failed.append(record.message_id)
            continue
        if trigger is not None:
            triggers.append(trigger)
            messages.setdefault(trigger.family_id, []).append(record.message_id)
    for family_id, family_triggers in by_family(triggers).items():
        try:
            report = handle(lifecycle_of(rt).deps, family_id, family_triggers, now=rt.clock.now())
        except LeaseHeldError:
            # Another writer holds the family (LEASE_WAIT_SECONDS is short): retried by SQS.
            logger.warning("family busy; its messages are retried later", extra={"family_id": family_id})
            metrics.add_metric(name="FamiliesBusy", unit=MetricUnit.Count, value=1)
            failed += messages[family_id]
            continue
        except Exception:
            logger.exception("compile failed", extra={"family_id": family_id})
            failed += messages[family_id]
            continue
        if report is not None:
            record_dream_metrics(report)
            logger.info("compiled", extra={"family_id": family_id, "brief_tokens": report.brief_tokens})
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}
