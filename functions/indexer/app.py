"""Indexer: S3 "Object Created" events for ``families/*/memories/*.md`` (through
EventBridge) keep the OpenSearch index a projection of the memory files.

The event only names the file; the indexer re-reads it, so duplicate and
out-of-order deliveries converge on the file's current state.
"""

from __future__ import annotations

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.parser import event_parser
from aws_lambda_powertools.utilities.parser.models import S3EventNotificationEventBridgeModel
from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.bootstrap import lambda_runtime
from family_memory.app.observability import logger, metrics, observed_handler
from family_memory.app.runtime import retrieval_for

# Built at INIT in Lambda (a missing or bad variable fails INIT, naming it); on first use elsewhere.
runtime = lambda_runtime("indexer", needs=("opensearch_endpoint",))


@observed_handler()
@event_parser(model=S3EventNotificationEventBridgeModel)
def handler(event: S3EventNotificationEventBridgeModel, context: LambdaContext) -> dict[str, str]:
    key = event.detail.object.key
    outcome = retrieval_for(runtime()).indexer.on_object_key(key)
    logger.info("memory file indexed", extra={"key": key, "outcome": outcome.value})
    metrics.add_metric(name=f"Index{outcome.value.capitalize()}", unit=MetricUnit.Count, value=1)
    return {"key": key, "outcome": outcome.value}
