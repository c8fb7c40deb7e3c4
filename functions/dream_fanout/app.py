"""Dream fan-out: run hourly by EventBridge Scheduler; enqueues (SQS, batched)
every family whose local midnight has passed since its last dream."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.bootstrap import lambda_runtime
from family_memory.app.observability import logger, metrics, observed_handler
from family_memory.domain.errors import ConfigurationError
from family_memory.lifecycle.fanout import fan_out

# Built at INIT in Lambda (a missing or bad variable fails INIT, naming it); on first use elsewhere.
runtime = lambda_runtime("dream_fanout", needs=("dream_queue_url",))


@observed_handler()
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    rt = runtime()
    lifecycle = rt.lifecycle
    if lifecycle.queue is None:
        raise ConfigurationError("configuration: the dream_fanout function needs DREAM_QUEUE_URL, which is not set")
    report = fan_out(rt.store, lifecycle.ledger, lifecycle.queue, now=rt.clock.now())
    metrics.add_metric(name="FamiliesScanned", unit=MetricUnit.Count, value=report.families)
    metrics.add_metric(name="FamiliesEnqueued", unit=MetricUnit.Count, value=report.enqueued)
    logger.info("fan-out done", extra={"families": report.families, "due": report.due, "enqueued": report.enqueued})
    return {"families": report.families, "due": report.due, "enqueued": report.enqueued}
