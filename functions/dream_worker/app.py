"""Dream worker: one family per SQS message from the fan-out; partial batch
failures, so one family's failure retries only that message (then the DLQ). A
family another writer holds fails its message after a short lease wait
(``LEASE_WAIT_SECONDS``) instead of holding up the batch."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.bootstrap import lambda_runtime
from family_memory.app.lifecycle import lifecycle_of, record_dream_metrics
from family_memory.app.observability import logger, metrics, tracer
from family_memory.domain.errors import LeaseHeldError
from family_memory.lifecycle.fanout import dream_requested

# Built at INIT in Lambda (a missing or bad variable fails INIT, naming it); on first use elsewhere.
runtime = lambda_runtime("dream_worker")

processor = BatchProcessor(event_type=EventType.SQS)


def dream(record: SQSRecord) -> None:
    rt = runtime()
    try:
        report = dream_requested(lifecycle_of(rt).deps, record.body, now=rt.clock.now())
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


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return dict(process_partial_response(event=event, record_handler=dream, processor=processor, context=context))
