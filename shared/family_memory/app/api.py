"""The HTTP API: one API Gateway HTTP API (payload v2) resolver over the routers in ``app/routes/``.

The same resolver serves Lambda (``functions/api/app.py``) and the local server
(``family-memory serve``, ``app/local_server.py``); ``resolve_api_event`` resolves one event
on a runtime, which the routers read from the resolver's context. The routes are
grouped by audience (``routes/agent.py``: brief, context, tools; ``routes/card.py``:
the memory card; ``routes/sessions.py``: session end); each takes typed, validated
parameters and calls one service function, so no business rule lives here.
docs/api.md describes every route; ``openapi_document`` is the OpenAPI 3.1 document
generated from the routes and their models (``docs/openapi.json``).

The family comes from the path. API Gateway authenticates the caller (IAM,
SigV4): the assistant's backend, trusted to act for the family it names. Every
read and write is scoped by that family inside the adapters, so another family's
memory id is "not found" here, with no data of that family.

Before any route sees a body, one middleware (``harden_body``) checks it: at most
``MAX_BODY_BYTES``, valid base64 when so encoded, UTF-8, ``application/json``, a
JSON object, not nested beyond the parser, no unpaired surrogate. Then Powertools
validates the path, query, headers and body against the route's models.

Errors are one JSON shape, ``{"error": {"code", "message"}}``, mapped from the
core's exception classes in one table (``ERRORS``, most specific class first by the
exception's MRO); a request that fails its models is 400 ``invalid_input`` naming the
fields; a pydantic ValidationError that escapes a service is the caller's input too
(400 naming the fields, logged with its trace); a ConfigurationError (a setting missing or
bad) is 500 ``configuration_error`` with a fixed text, the variable logged; a known path with another method is
405 with ``Allow``; anything else is a 500 without internals, logged. A 503's message
is the error's fixed public text (``domain.errors.public_message``): the detail, which
may name hosts or the lease holder, goes to the log only.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
import threading
from collections.abc import Callable
from http import HTTPStatus
from importlib.metadata import PackageNotFoundError, version
from typing import Any, cast

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from family_memory.app.observability import logger
from family_memory.app.routes import agent, card, sessions
from family_memory.app.routes.shared import (
    BODY,
    RETRY_AFTER_SECONDS,
    RUNTIME,
    RequestBody,
    error_payload,
    error_response,
    json_response,
)
from family_memory.app.runtime import Runtime
from family_memory.domain.errors import (
    ConfigurationError,
    ConflictError,
    FamilyMemoryError,
    InvalidInputError,
    LeaseHeldError,
    LeaseLostError,
    NotFoundError,
    PayloadTooLargeError,
    public_message,
)
from family_memory.domain.okf import validation_message
from family_memory.domain.transcript import MAX_TRANSCRIPT_BYTES
from family_memory.retrieval.deadline import DeadlineExceededError, request_deadline
from family_memory.retrieval.embedding import EmbeddingUnavailableError
from family_memory.retrieval.search_index import IndexUnavailableError

__all__ = [
    "ERRORS",
    "MAX_BODY_BYTES",
    "RETRY_AFTER_SECONDS",
    "error_payload",
    "error_response",
    "json_response",
    "openapi_document",
    "resolve_api_event",
    "resolver",
]

#: The largest request body any route takes: a finished transcript, the largest thing
#: sent here, may be up to ``MAX_TRANSCRIPT_BYTES`` (1 MB of JSON); every other body is far smaller.
MAX_BODY_BYTES = MAX_TRANSCRIPT_BYTES

#: The core's errors as HTTP: (status, code). The most specific class in an exception's MRO wins.
ERRORS: dict[type[Exception], tuple[HTTPStatus, str]] = {
    PayloadTooLargeError: (HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "payload_too_large"),
    InvalidInputError: (HTTPStatus.BAD_REQUEST, "invalid_input"),
    NotFoundError: (HTTPStatus.NOT_FOUND, "not_found"),
    LeaseHeldError: (HTTPStatus.SERVICE_UNAVAILABLE, "family_busy"),
    LeaseLostError: (HTTPStatus.SERVICE_UNAVAILABLE, "family_busy"),
    ConflictError: (HTTPStatus.CONFLICT, "conflict"),
    EmbeddingUnavailableError: (HTTPStatus.SERVICE_UNAVAILABLE, "search_unavailable"),
    IndexUnavailableError: (HTTPStatus.SERVICE_UNAVAILABLE, "search_unavailable"),
    DeadlineExceededError: (HTTPStatus.SERVICE_UNAVAILABLE, "deadline_exceeded"),
    # The deployment's settings, never the caller's input: a 500 with a fixed text, the variable logged.
    ConfigurationError: (HTTPStatus.INTERNAL_SERVER_ERROR, "configuration_error"),
}
#: Seconds kept back from Lambda's remaining time for answering after the deadline.
DEADLINE_MARGIN_SECONDS = 1.5

# --- the body, hardened once for every route --------------------------------------------------

#: A JSON escape of a UTF-16 surrogate (paired or not): the only way one can reach a body.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def body_bytes(event: Any) -> bytes:
    """The request body's bytes: base64-decoded when so sent, at most ``MAX_BODY_BYTES``."""
    raw = event.body or ""
    if event.is_base64_encoded:
        try:
            data = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise InvalidInputError("body: not valid base64") from exc
    else:
        data = raw.encode("utf-8", "surrogatepass")
    if len(data) > MAX_BODY_BYTES:
        raise PayloadTooLargeError(f"body: {len(data):,} bytes; the most this API takes is {MAX_BODY_BYTES:,}")
    return data


def body_object(data: bytes) -> dict[str, Any]:
    """``data`` as a JSON object, or InvalidInputError saying what it is instead."""
    if not data.strip():
        raise InvalidInputError("body: a JSON object is required")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"body: not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    try:
        parsed = json.loads(text)
    except RecursionError as exc:
        raise InvalidInputError("body: nested too deeply") from exc
    except ValueError as exc:
        raise InvalidInputError(f"body: not valid JSON ({exc})") from exc
    if not isinstance(parsed, dict):
        raise InvalidInputError(f"body: expected a JSON object, got {type(parsed).__name__}")
    if not _SURROGATE_ESCAPE.search(text):
        return parsed  # a surrogate can only arrive escaped: most bodies need no second pass
    try:
        # JSON may escape half of a UTF-16 pair ("\ud800") alone: not text, refused once here.
        json.dumps(parsed, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            "body: a string holds an unpaired surrogate (a lone \\ud800-\\udfff escape); send valid Unicode text"
        ) from exc
    except RecursionError as exc:
        raise InvalidInputError("body: nested too deeply") from exc
    return parsed


def harden_body(app: APIGatewayHttpResolver, next_middleware: Callable[..., Response[str]]) -> Response[str]:
    """Every body a route takes, before Powertools parses and validates it: size, encoding, media
    type, a JSON object, depth, surrogates. The checked body goes into the context (``body_of``)."""
    event = app.current_event
    route = app.context.get("_route")  # the matched route (Powertools' context key), or its not-found stand-in
    if route is None or route.body_field is None:
        return next_middleware(app)  # a route without a body (every GET), or no route at all
    given = (event.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    if event.body and given not in ("", "application/json"):
        message = f"Content-Type: {given[:80]!r}; a body must be sent as application/json"
        return error_response(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", message)
    data = body_bytes(event)
    app.context[BODY] = RequestBody(data, body_object(data))
    return next_middleware(app)


class _ValidateRequest(OpenAPIRequestValidationMiddleware):
    """Powertools' request validation, given the body ``harden_body`` checked and parsed: it is
    JSON whatever the case or parameters of its Content-Type, and it is parsed once."""

    def _get_body(self, app: Any) -> Any:
        body = app.context.get(BODY)
        return body.parsed if isinstance(body, RequestBody) else None


# --- errors --------------------------------------------------------------------------------


def request_error_message(errors: list[dict[str, Any]]) -> str:
    """A request's validation errors as one line: ``body: field: problem; query: limit: problem``.
    An id that fails its own check says so in its own words ("family id ... is not allowed")."""
    parts = []
    for error in errors:
        cause = (error.get("ctx") or {}).get("error")
        where, *field = [str(p) for p in error.get("loc", ())] or ["request"]
        if where == "path" and isinstance(cause, FamilyMemoryError):
            parts.append(str(cause))
            continue
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {'.'.join(field)}: {message}" if field else f"{where}: {message}")
    return "; ".join(parts)


def _mapped(exc: Exception) -> Response[str]:
    status, code = next(ERRORS[cls] for cls in type(exc).__mro__ if cls in ERRORS)
    if status == HTTPStatus.INTERNAL_SERVER_ERROR:
        logger.error(
            "request failed: the service is misconfigured", extra={"error": type(exc).__name__, "detail": str(exc)}
        )
    elif status == HTTPStatus.SERVICE_UNAVAILABLE:
        # The detail (a host name, the lease holder, a vendor's text) is for the operator's log only.
        logger.warning("request refused for now", extra={"error": type(exc).__name__, "detail": str(exc)})
    return error_response(status, code, public_message(exc))


def _register_errors(app: APIGatewayHttpResolver, allowed: Callable[[str], list[str]]) -> None:
    for error in ERRORS:
        app.exception_handler(error)(_mapped)

    def invalid_request(exc: RequestValidationError) -> Response[str]:
        return error_response(HTTPStatus.BAD_REQUEST, "invalid_input", request_error_message(list(exc.errors())))

    def invalid_model(exc: ValidationError) -> Response[str]:
        # Input is validated at each service's edge (okf.validate, the routes' models); one that
        # escapes as pydantic's error is still the caller's input, answered 400 naming the
        # fields (never the values), and logged with its traceback: the edge that missed it is a bug.
        logger.exception("a validation error escaped a service", extra={"path": app.current_event.path})
        return error_response(HTTPStatus.BAD_REQUEST, "invalid_input", validation_message(exc))

    def unexpected(exc: Exception) -> Response[str]:
        logger.exception("request failed", extra={"path": app.current_event.path})
        context = getattr(app, "lambda_context", None)
        request_id = getattr(context, "aws_request_id", None)
        suffix = f" (request {request_id})" if request_id else ""
        return error_response(HTTPStatus.INTERNAL_SERVER_ERROR, "internal_error", f"the request failed{suffix}")

    def no_route(exc: Exception) -> Response[str]:
        event = app.current_event
        methods = allowed(event.path)
        if methods:
            message = f"{event.http_method} is not allowed on {event.path}; use {' or '.join(methods)}"
            return error_response(
                HTTPStatus.METHOD_NOT_ALLOWED, "method_not_allowed", message, {"Allow": ", ".join(methods)}
            )
        return error_response(HTTPStatus.NOT_FOUND, "no_route", f"no route for {event.http_method} {event.path}")

    app.exception_handler(RequestValidationError)(invalid_request)
    app.exception_handler(ValidationError)(invalid_model)
    app.exception_handler(Exception)(unexpected)
    app.not_found(no_route)


# --- the resolver ------------------------------------------------------------------------


def _method_table(paths: dict[str, dict[str, Any]]) -> Callable[[str], list[str]]:
    """For a request path, the methods its documented route takes (none: no such path)."""
    table = [
        (re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$"), sorted(m.upper() for m in ops))
        for path, ops in paths.items()
    ]

    def allowed(path: str) -> list[str]:
        return next((methods for pattern, methods in table if pattern.match(path)), [])

    return allowed


@functools.cache
def resolver() -> APIGatewayHttpResolver:
    """The process's resolver (built once: its routers are module-level and point at it).
    Request validation runs after ``harden_body``, so no route's models see an unchecked body."""
    app = APIGatewayHttpResolver()
    app.use([harden_body, _ValidateRequest()])  # type: ignore[no-untyped-call]
    for router in (agent.router, card.router, sessions.router):
        app.include_router(router)
    paths = json.loads(app.get_openapi_json_schema())["paths"]
    _register_errors(app, _method_table(paths))
    return app


#: The resolver holds the current event and context: one request at a time in a process
#: (Lambda runs one per container anyway; the local server resolves under this lock).
_RESOLVING = threading.Lock()


def request_budget(runtime: Runtime, context: LambdaContext | None) -> float:
    """Seconds this request may take: ``API_DEADLINE_SECONDS``, or less when Lambda has
    less time left (keeping ``DEADLINE_MARGIN_SECONDS`` to answer)."""
    budget = runtime.settings.api_deadline_seconds
    left = getattr(context, "get_remaining_time_in_millis", None)
    if callable(left):
        budget = min(budget, left() / 1000 - DEADLINE_MARGIN_SECONDS)
    return max(budget, 0.1)


def resolve_api_event(runtime: Runtime, event: dict[str, Any], context: LambdaContext | None = None) -> dict[str, Any]:
    """Resolve one HTTP API (payload v2) event on ``runtime``: the Lambda response dict,
    within the request's deadline (``retrieval/deadline.py``)."""
    app = resolver()
    with _RESOLVING, request_deadline(request_budget(runtime, context)):
        app.context[RUNTIME] = runtime
        return app.resolve(event, cast(LambdaContext, context))


# --- the OpenAPI document ---------------------------------------------------------------------

API_DESCRIPTION = (
    "Long-term memory for a family assistant: the brief, the turn-level lookup, the read tools, the memory "
    "card and session end (docs/api.md). On AWS every request is signed with SigV4 for execute-api (IAM "
    "authorization at API Gateway); `family-memory serve` answers on 127.0.0.1 without authentication. "
    'Every error is {"error": {"code", "message"}}; a known path with another method is 405 with Allow.'
)


def _package_version() -> str:
    try:
        return version("family-memory")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without metadata
        return "0.0.0"


def _referenced(document: dict[str, Any]) -> set[str]:
    """The component schemas the paths refer to, directly or through other schemas."""
    schemas = document.get("components", {}).get("schemas", {})
    found: set[str] = set()
    pending = [document["paths"]]
    while pending:
        text = json.dumps(pending.pop())
        for name in re.findall(r'"#/components/schemas/([^"]+)"', text):
            if name not in found:
                found.add(name)
                pending.append(schemas.get(name, {}))
    return found


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the API, generated from the routes and their models
    (committed as docs/openapi.json; a test fails when the two differ)."""
    document: dict[str, Any] = json.loads(
        resolver().get_openapi_json_schema(
            title="family-memory", version=_package_version(), description=API_DESCRIPTION
        )
    )
    for operations in document["paths"].values():
        for operation in operations.values():
            for response in operation["responses"].values():
                if response.get("content") == {}:
                    del response["content"]  # a response without a body (the brief's 304)
    schemas = document.get("components", {}).get("schemas", {})
    used = _referenced(document)
    for name in [n for n in schemas if n not in used]:
        del schemas[name]  # Powertools' own validation-error shapes: this API answers ErrorResponse instead
    document["components"]["securitySchemes"] = {
        "sigv4": {
            "type": "apiKey",
            "name": "Authorization",
            "in": "header",
            "description": "AWS Signature Version 4 for execute-api (API Gateway IAM authorization).",
            "x-amazon-apigateway-authtype": "awsSigv4",
        }
    }
    document["security"] = [{"sigv4": []}]
    return document


def openapi_json() -> str:
    """``openapi_document`` as the committed file holds it: sorted keys, two-space indent, a final newline."""
    return json.dumps(openapi_document(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
