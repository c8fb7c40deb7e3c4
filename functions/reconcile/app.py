"""Lambda ``reconcile``: SQS FIFO batches of reconcile requests (one per
session, grouped by family). Each record is reconciled under the family's
lease with Powertools idempotency on (family, session, content hash); a failed
record is reported as a partial batch failure together with the rest of its
family's records (order kept), and after five receives it goes to the DLQ."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.bootstrap import lambda_runtime
from family_memory.app.formation_events import handle_reconcile_batch
from family_memory.app.observability import observed_handler

# Built at INIT in Lambda (a missing or bad variable fails INIT, naming it); on first use elsewhere.
runtime = lambda_runtime("reconcile", needs=("idempotency_table",))


@observed_handler(clear_state=True, cold_start_metric=True)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle_reconcile_batch(runtime(), event, context)
