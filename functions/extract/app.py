"""Lambda ``extract``: a session landed in S3 (EventBridge "Object Created" on
``families/*/sessions/*.json``). Extract candidates, validate them, store
``candidates/{session_id}.json`` and queue the reconciliation (SQS FIFO, the
family as message group). Throttling that outlasts the retries fails the
invocation, so EventBridge's async retries and the dead-letter queue take over."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.bootstrap import runtime
from family_memory.app.formation_events import handle_session_created
from family_memory.app.observability import logger, metrics, tracer


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics(capture_cold_start_metric=True)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle_session_created(runtime(), event)
