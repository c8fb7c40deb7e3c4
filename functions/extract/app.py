"""Lambda ``extract``: a session landed in S3 (EventBridge "Object Created" on
``families/*/sessions/*.json``). Extract candidates, validate them, store
``candidates/{session_id}.json`` and queue the reconciliation (SQS FIFO, the
family as message group). Throttling that outlasts the retries fails the
invocation, so EventBridge's async retries and the dead-letter queue take over.

A model that cannot be called as configured (no such model, access not enabled,
the role not allowed) is the deployment's error, not the session's: one log line
names the model and the cause, the ``ExtractorMisconfigured`` metric (alarmed)
counts it, and the invocation fails, so the event is retried and then kept in the
dead-letter queue; nothing is recorded against the session (``app.formation_events``).
``family-memory replay --failed-only --all`` extracts what was left waiting once
the model is fixed."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.bootstrap import lambda_runtime
from family_memory.app.formation_events import handle_session_created
from family_memory.app.observability import observed_handler

# Built at INIT in Lambda (a missing or bad variable fails INIT, naming it); on first use elsewhere.
runtime = lambda_runtime("extract", needs=("reconcile_queue_url",))


@observed_handler(clear_state=True, cold_start_metric=True)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle_session_created(runtime(), event)
