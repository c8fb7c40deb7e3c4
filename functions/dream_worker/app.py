"""Dream worker: one family per SQS message from the fan-out; partial batch
failures, so one family's failure retries only that message (then the DLQ). A
family another writer holds fails its message after a short lease wait
(``LEASE_WAIT_SECONDS``) instead of holding up the batch (``app.lifecycle.dream_sqs_batch``)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.bootstrap import lambda_runtime
from family_memory.app.lifecycle import dream_sqs_batch
from family_memory.app.observability import metrics, observed_handler

# Built at INIT in Lambda (a missing or bad variable fails INIT, naming it); on first use elsewhere.
runtime = lambda_runtime("dream_worker")


@observed_handler()
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    rt = runtime()
    return dream_sqs_batch(rt.lifecycle, event, context, rt.clock, metrics)
