"""Compile: S3 object-created events on ``changes/`` and ``candidates/``
(S3 -> EventBridge rule -> SQS, batched) dream each family in the batch once.

The batch policy (one dream per family, a busy or failing family's messages reported as
failures, an unreadable message too) is ``app.lifecycle.compile_sqs_batch``, which the
local in-process bus runs as well (``compile_keys``).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.bootstrap import lambda_runtime
from family_memory.app.lifecycle import compile_sqs_batch
from family_memory.app.observability import metrics, observed_handler

# Built at INIT in Lambda (a missing or bad variable fails INIT, naming it); on first use elsewhere.
runtime = lambda_runtime("compile")


@observed_handler()
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    rt = runtime()
    return compile_sqs_batch(rt.lifecycle, event, rt.clock, metrics)
