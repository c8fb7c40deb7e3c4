"""What every router uses: the runtime of the request, JSON responses, the error shape,
and the OpenAPI descriptions of the path parameters and of the error responses."""

from __future__ import annotations

import json
from dataclasses import dataclass
from http import HTTPStatus
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from pydantic import BaseModel

from family_memory.app.routes.schema import ErrorResponse
from family_memory.app.runtime import Runtime
from family_memory.domain.family import Surface
from family_memory.domain.ids import MAX_ID_LENGTH, FamilyId, MemoryId

#: The resolver's context key under which ``app.api.resolve_api_event`` puts the request's runtime.
RUNTIME = "runtime"
#: The context key under which the body hardening middleware puts the request's body.
BODY = "body"
#: What a 503 asks the caller to wait: writes hold a family's lease for well under a
#: second, so a short wait usually finds it free.
RETRY_AFTER_SECONDS = 2


@dataclass(frozen=True)
class RequestBody:
    """A body that passed the hardening (``app.api.harden_body``): its bytes and its JSON object."""

    data: bytes
    parsed: dict[str, Any]


def runtime_of(router: Router) -> Runtime:
    """The runtime the current request acts on (``app.api.resolve_api_event`` sets it on the resolver)."""
    runtime = router.context.get(RUNTIME)
    if not isinstance(runtime, Runtime):
        raise RuntimeError(
            "the API was resolved without a runtime: resolve requests with family_memory.app.api.resolve_api_event"
        )
    return runtime


def body_of(router: Router) -> RequestBody:
    """The current request's hardened body (every POST and PATCH route has one)."""
    body = router.context.get(BODY)
    if not isinstance(body, RequestBody):
        raise RuntimeError("no hardened body for this request: it did not pass app.api.harden_body")
    return body


# --- responses -------------------------------------------------------------------------------


def json_response(
    status: int, payload: BaseModel | dict[str, Any], headers: dict[str, str] | None = None
) -> Response[str]:
    """``payload`` (a response model, or an error body) as JSON, UTF-8 as it is."""
    data = payload.model_dump(mode="json") if isinstance(payload, BaseModel) else payload
    return Response(
        status_code=int(status),
        content_type=content_types.APPLICATION_JSON,
        body=json.dumps(data, ensure_ascii=False),
        headers=headers,
    )


def error_payload(code: str, message: str) -> dict[str, Any]:
    """The body of every error response (``ErrorResponse``)."""
    return {"error": {"code": code, "message": message}}


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response[str]:
    """An error in the one shape; a 503 also asks the caller to retry after a few seconds."""
    extra = dict(headers or {})
    if status == HTTPStatus.SERVICE_UNAVAILABLE:
        extra["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return json_response(status, error_payload(code, message), extra or None)


# --- OpenAPI: parameters and error responses ---------------------------------------------------

FamilyPath = Annotated[
    FamilyId,
    Path(
        description=(
            f"The family: a lower-case token, at most {MAX_ID_LENGTH} characters, not a Windows device name "
            "(con, nul, com1, ...). Every read and write is scoped by it."
        )
    ),
]
MemoryPath = Annotated[MemoryId, Path(description="A memory id (a ULID).")]
SurfaceQuery = Annotated[
    Surface,
    Query(description="Where the conversation happens: a member's own chat, or the shared household thread."),
]

_ERROR_TEXT: dict[int, str] = {
    400: "The request is malformed: the message names the field (`invalid_input`).",
    404: "Not found (`not_found`): an unknown memory, another family's id, an unknown tool.",
    409: "The state changed (`conflict`); the message says what to do.",
    413: "The body is over 1,000,000 bytes, or the change too large to record (`payload_too_large`).",
    415: "A body sent with a Content-Type other than application/json (`unsupported_media_type`).",
    500: "The service's settings are wrong (`configuration_error`, a fixed message), or anything else "
    "(`internal_error`); logged; the message gives the request id.",
    503: "Retry after `Retry-After` seconds: the family is busy (`family_busy`) or search is down "
    "(`search_unavailable`).",
}


def error_responses(*statuses: int) -> dict[int, OpenAPIResponse]:
    """The OpenAPI responses of these error statuses (and 500, which any route may answer)."""
    responses: dict[int, OpenAPIResponse] = {}
    for status in sorted({*statuses, 500}):
        response: OpenAPIResponse = {
            "description": _ERROR_TEXT[status],
            "content": {content_types.APPLICATION_JSON: {"model": ErrorResponse}},
        }
        if status == 503:
            response["headers"] = {
                "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}
            }
        responses[status] = response
    return responses


def ok(model: type[BaseModel], description: str, status: int = 200) -> dict[int, OpenAPIResponse]:
    """The OpenAPI response of a route's success, from its response model."""
    return {status: {"description": description, "content": {content_types.APPLICATION_JSON: {"model": model}}}}
