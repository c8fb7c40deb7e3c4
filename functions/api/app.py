"""Lambda ``api``: the HTTP API behind API Gateway (HTTP API, payload v2, IAM/SigV4).

The routes live in ``family_memory.app.api`` (the same resolver ``family-memory
serve`` runs locally); the runtime and its resolver are built once per container.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from family_memory.app.api import resolve_api_event
from family_memory.app.bootstrap import lambda_runtime
from family_memory.app.observability import observed_handler

# Built at INIT in Lambda (a missing or bad variable fails INIT, naming it); on first use elsewhere.
runtime = lambda_runtime("api")


@observed_handler(correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True, cold_start_metric=True)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return resolve_api_event(runtime(), event, context)
