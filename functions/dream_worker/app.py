"""Dream worker: one family per SQS message from the fan-out; partial batch
failures, so one family's failure retries only that message (then the DLQ)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.bootstrap import runtime
from family_memory.app.lifecycle import lifecycle_of, record_dream_metrics
from family_memory.app.observability import logger, metrics, tracer
from family_memory.lifecycle.fanout import dream_requested

processor = BatchProcessor(event_type=EventType.SQS)


def dream(record: SQSRecord) -> None:
    rt = runtime()
    report = dream_requested(lifecycle_of(rt).deps, record.body, now=rt.clock.now())
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
    return process_partial_response(event=event, record_handler=dream, processor=processor, context=context)
