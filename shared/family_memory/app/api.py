"""The HTTP API: API Gateway HTTP API (payload v2) routes over the existing services.

The same resolver serves Lambda (``functions/api/app.py``) and the local server
(``family-memory serve``, ``app/local_server.py``). Routes parse the request,
call one service function and shape the JSON response; the services are the
ones the CLI calls (card, retrieval, brief, formation intake), so no business
rule lives here. docs/api.md describes every route.

The family comes from the path. API Gateway authenticates the caller (IAM,
SigV4): the assistant's backend, trusted to act for the family it names. Every
read and write below is scoped by that family inside the adapters, so another
family's memory id is "not found" here, with no data of that family.

Errors are one JSON shape, ``{"error": {"code", "message"}}``, mapped from the
core's exception classes in one table (``ERRORS``, most specific class first
by the exception's MRO); a pydantic ValidationError that escapes a service is the
caller's input (400 naming the fields, logged with its trace); anything else is a 500
without internals, logged. A 503's message is the error's fixed public text (``domain.errors.public_message``):
the detail, which may name hosts or the lease holder, goes to the log only.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import asdict
from http import HTTPStatus
from typing import Any, cast

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from family_memory.app.bootstrap import Runtime, retrieval_for
from family_memory.app.lifecycle import lifecycle_of
from family_memory.app.observability import logger
from family_memory.app.sessions import SessionEnd, end_session
from family_memory.brief.model import BRIEF_TOKEN_CAP, Brief
from family_memory.brief.render import prompt_block, section_usage
from family_memory.card import operations as card
from family_memory.card.views import evidence_view, lineage_view, list_memories, open_conflicts, read_memory
from family_memory.domain.clock import format_utc
from family_memory.domain.errors import (
    ConflictError,
    InvalidInputError,
    LeaseHeldError,
    LeaseLostError,
    NotFoundError,
    PayloadTooLargeError,
    public_message,
)
from family_memory.domain.family import Surface
from family_memory.domain.ids import check_family_id, check_memory_id
from family_memory.domain.memory import Memory, MemoryType, Status
from family_memory.domain.okf import validate, validation_message
from family_memory.domain.refs import MemoryRef
from family_memory.domain.transcript import MAX_TRANSCRIPT_BYTES
from family_memory.ports.catalog import CatalogRow
from family_memory.retrieval.deadline import DeadlineExceededError, request_deadline
from family_memory.retrieval.embedding import EmbeddingUnavailableError
from family_memory.retrieval.index import IndexUnavailableError
from family_memory.retrieval.tools import TOOL_NAMES, tool_config

#: The largest request body any route takes: a finished transcript, the largest thing
#: sent here, may be up to ``MAX_TRANSCRIPT_BYTES`` (1 MB of JSON); every other body is far smaller.
MAX_BODY_BYTES = MAX_TRANSCRIPT_BYTES
#: What a 503 for a busy family asks the caller to wait: writes hold a family's lease
#: for well under a second, so a short wait usually finds it free.
RETRY_AFTER_SECONDS = 2

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
}
#: Seconds kept back from Lambda's remaining time for answering after the deadline.
DEADLINE_MARGIN_SECONDS = 1.5
_RETRY_LATER = (HTTPStatus.SERVICE_UNAVAILABLE,)


# --- request bodies ---------------------------------------------------------------------

#: A JSON escape of a UTF-16 surrogate (paired or not): the only way one can reach a body.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Body(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ContextRequest(_Body):
    message: str = Field(min_length=1, max_length=4000)
    surface: Surface = Surface.CHAT
    max_items: int | None = None
    max_tokens: int | None = None


class ForgetRequest(_Body):
    member_id: str
    reason: str = Field(default="", max_length=500)


class GroupRequest(_Body):
    member_id: str
    entity: str | None = None
    topic: str | None = None
    type: MemoryType | None = None
    confirm: bool = False
    expected_count: int | None = Field(default=None, ge=0)
    reason: str = Field(default="", max_length=500)


# --- responses ---------------------------------------------------------------------------


def json_response(status: int, payload: Any, headers: dict[str, str] | None = None) -> Response[str]:
    return Response(
        status_code=int(status),
        content_type=content_types.APPLICATION_JSON,
        body=json.dumps(payload, ensure_ascii=False),
        headers=headers,
    )


def error_payload(code: str, message: str) -> dict[str, Any]:
    """The body of every error response."""
    return {"error": {"code": code, "message": message}}


def error_response(status: int, code: str, message: str) -> Response[str]:
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if status in _RETRY_LATER else None
    return json_response(status, error_payload(code, message), headers)


def row_json(row: CatalogRow) -> dict[str, Any]:
    return row.model_dump(mode="json", exclude={"tag"})


def memory_json(family_id: str, memory: Memory) -> dict[str, Any]:
    return {"ref": str(MemoryRef(family_id, memory.id)), **memory.model_dump(mode="json")}


def conflicts_json(runtime: Runtime, family_id: str, memory: Memory) -> list[dict[str, str]]:
    return [
        {"relation": c.relation, "memory_id": c.other.id, "summary": c.other.summary, "note": c.describe()}
        for c in open_conflicts(runtime.store, family_id, memory)
    ]


def session_json(ended: SessionEnd) -> dict[str, Any]:
    transcript = ended.intake.transcript
    out: dict[str, Any] = {
        "family_id": transcript.family_id,
        "session_id": transcript.session_id,
        "stored": ended.intake.stored,
        "family_created": ended.intake.family_created,
        "formation": ended.formation.value,
    }
    doc = ended.document
    if doc is not None:
        outcomes = doc.reconciliation.outcomes if doc.reconciliation else []
        out["candidates"] = {
            "extractor": doc.extractor.label,
            "summary": doc.summary,
            "accepted": [e.index for e in doc.candidates if e.accepted],
            "rejected": [
                {"index": e.index, "reasons": [{"rule": r.rule, "message": r.message} for r in e.reasons]}
                for e in doc.candidates
                if not e.accepted
            ],
            "outcomes": [o.model_dump(mode="json", include={"index", "kind", "memory_id", "detail"}) for o in outcomes],
        }
    return out


# --- the resolver ------------------------------------------------------------------------


def build_api(runtime: Runtime) -> APIGatewayHttpResolver:
    """A resolver whose routes act on ``runtime``. One request at a time per resolver
    (it holds the current event): Lambda runs one per container, the local server one per lock."""
    app = APIGatewayHttpResolver()

    def body_bytes() -> bytes:
        event = app.current_event
        raw = event.body or ""
        if event.is_base64_encoded:
            try:
                data = base64.b64decode(raw, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise InvalidInputError("body: not valid base64") from exc
        else:
            data = raw.encode("utf-8")
        if len(data) > MAX_BODY_BYTES:
            raise PayloadTooLargeError(f"body: {len(data):,} bytes; the most this API takes is {MAX_BODY_BYTES:,}")
        return data

    def body_object(data: bytes | None = None) -> dict[str, Any]:
        data = body_bytes() if data is None else data
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

    def query(name: str) -> str | None:
        return (app.current_event.query_string_parameters or {}).get(name)

    def surface_param() -> Surface:
        value = query("surface") or Surface.CHAT.value
        try:
            return Surface(value)
        except ValueError as exc:
            allowed = ", ".join(s.value for s in Surface)
            raise InvalidInputError(f"surface: {value[:40]!r} is not one of {allowed}") from exc

    def int_param(name: str, default: int) -> int:
        value = query(name)
        if value is None:
            return default
        try:
            return int(value)
        except ValueError as exc:
            raise InvalidInputError(f"{name}: {value[:40]!r} is not a whole number") from exc

    def acting(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The member the request acts for, and the rest of the body."""
        rest = dict(body)
        member_id = rest.pop("member_id", None)
        if not isinstance(member_id, str):
            raise InvalidInputError("member_id: required (the family member making this change), as a string")
        return member_id, rest

    # --- errors ---------------------------------------------------------------------------

    def mapped(exc: Exception) -> Response[str]:
        status, code = next(ERRORS[cls] for cls in type(exc).__mro__ if cls in ERRORS)
        if status in _RETRY_LATER:
            # The detail (a host name, the lease holder, a vendor's text) is for the operator's log only.
            logger.warning("request refused for now", extra={"error": type(exc).__name__, "detail": str(exc)})
        return error_response(status, code, public_message(exc))

    for error in ERRORS:
        app.exception_handler(error)(mapped)

    def unexpected(exc: Exception) -> Response[str]:
        logger.exception("request failed", extra={"path": app.current_event.path})
        context = getattr(app, "lambda_context", None)
        request_id = getattr(context, "aws_request_id", None)
        suffix = f" (request {request_id})" if request_id else ""
        return error_response(HTTPStatus.INTERNAL_SERVER_ERROR, "internal_error", f"the request failed{suffix}")

    app.exception_handler(Exception)(unexpected)

    def invalid_model(exc: ValidationError) -> Response[str]:
        # Input is validated into InvalidInputError at each service's edge (okf.validate); one
        # that escapes as pydantic's error is still the caller's input, answered 400 naming the
        # fields (never the values), and logged with its traceback: the edge that missed it is a bug.
        logger.exception("a validation error escaped a service", extra={"path": app.current_event.path})
        return error_response(HTTPStatus.BAD_REQUEST, "invalid_input", validation_message(exc))

    app.exception_handler(ValidationError)(invalid_model)

    @app.not_found
    def no_route(exc: Exception) -> Response[str]:
        event = app.current_event
        return error_response(HTTPStatus.NOT_FOUND, "no_route", f"no route for {event.http_method} {event.path}")

    # --- brief, context, tools ------------------------------------------------------------

    @app.get("/families/<family_id>/brief")
    def brief(family_id: str) -> Response[str]:
        family_id = check_family_id(family_id)
        surface = surface_param()
        compiled = lifecycle_of(runtime).loader.load(family_id)
        shown = compiled or Brief(family_id=family_id)
        block = prompt_block(shown, surface)
        return json_response(
            HTTPStatus.OK,
            {
                "family_id": family_id,
                "surface": surface.value,
                "compiled": compiled is not None,
                "prompt": block.text,
                "system": block.converse_system(),
                "tokens": {
                    "brief": block.brief_tokens,
                    "cap": BRIEF_TOKEN_CAP,
                    "sections": [
                        {**asdict(usage), "section": usage.section.value} for usage in section_usage(shown, surface)
                    ],
                },
            },
        )

    @app.post("/families/<family_id>/context")
    def context(family_id: str) -> Response[str]:
        family_id = check_family_id(family_id)
        request = validate(ContextRequest, body_object(), "body")
        result = retrieval_for(runtime).lookup.lookup(
            family_id,
            request.message,
            request.surface,
            max_items=request.max_items,
            max_tokens=request.max_tokens,
        )
        items = [
            {
                "memory_id": item.row.id,
                "ref": item.ref,
                "summary": item.row.summary,
                "type": item.row.type.value,
                "sensitivity": item.row.sensitivity.value,
                "age": item.age,
                "line": item.line,
                "found_by": item.via,
            }
            for item in result.items
        ]
        return json_response(
            HTTPStatus.OK,
            {
                "family_id": family_id,
                "surface": request.surface.value,
                "block": result.block,
                "tokens": result.tokens,
                "items": items,
            },
        )

    @app.get("/tool-specs")
    def tool_specs() -> Response[str]:
        config = tool_config(surface_param())
        return json_response(HTTPStatus.OK, {"tools": config["tools"] if config else []})

    @app.post("/families/<family_id>/tools/<name>")
    def tool(family_id: str, name: str) -> Response[str]:
        family_id = check_family_id(family_id)
        if name not in TOOL_NAMES:
            raise NotFoundError(f"there is no tool named {name[:60]!r}; the tools are {', '.join(TOOL_NAMES)}")
        surface = surface_param()
        result = retrieval_for(runtime).tools(family_id, surface).run(name, body_object())
        return json_response(HTTPStatus.OK, {"tool": name, "status": result.status, "text": result.text})

    # --- the memory card ------------------------------------------------------------------

    @app.get("/families/<family_id>/memories")
    def list_(family_id: str) -> Response[str]:
        family_id = check_family_id(family_id)
        status_value = query("status") or ""
        try:
            status = Status(status_value) if status_value else None
        except ValueError as exc:
            allowed = ", ".join(s.value for s in Status)
            raise InvalidInputError(f"status: {status_value[:40]!r} is not one of {allowed}") from exc
        page = list_memories(
            runtime.catalog, family_id, status=status, limit=int_param("limit", 20), cursor=query("cursor")
        )
        return json_response(HTTPStatus.OK, {"memories": [row_json(r) for r in page.rows], "cursor": page.cursor})

    @app.get("/families/<family_id>/memories/<memory_id>")
    def show(family_id: str, memory_id: str) -> Response[str]:
        family_id, memory_id = check_family_id(family_id), check_memory_id(memory_id)
        memory = read_memory(runtime.store, family_id, memory_id)
        return json_response(
            HTTPStatus.OK,
            {"memory": memory_json(family_id, memory), "conflicts": conflicts_json(runtime, family_id, memory)},
        )

    @app.get("/families/<family_id>/memories/<memory_id>/evidence")
    def evidence(family_id: str, memory_id: str) -> Response[str]:
        family_id, memory_id = check_family_id(family_id), check_memory_id(memory_id)
        view = evidence_view(runtime.store, family_id, memory_id)
        lines = [{**asdict(line), "recorded_at": format_utc(line.recorded_at)} for line in view.lines]
        return json_response(HTTPStatus.OK, {"memory": memory_json(family_id, view.memory), "evidence": lines})

    @app.get("/families/<family_id>/memories/<memory_id>/lineage")
    def lineage(family_id: str, memory_id: str) -> Response[str]:
        family_id, memory_id = check_family_id(family_id), check_memory_id(memory_id)
        found = lineage_view(runtime.store, family_id, memory_id)
        versions = [
            {
                "memory": memory_json(family_id, step.memory),
                "verified_by": step.verified_by,
                "conflicts": conflicts_json(runtime, family_id, step.memory),
            }
            for step in found.steps
        ]
        return json_response(HTTPStatus.OK, {"asked": found.asked, "current": found.current.id, "versions": versions})

    @app.post("/families/<family_id>/memories")
    def add(family_id: str) -> Response[str]:
        family_id = check_family_id(family_id)
        member_id, rest = acting(body_object())
        memory_id = rest.pop("id", None)  # chosen by the caller: a retry with it adds nothing
        if memory_id is not None and not isinstance(memory_id, str):
            raise InvalidInputError("id: a memory id (ULID) as a string")
        draft = validate(card.MemoryDraft, rest, "body")
        memory = card.add_memory(runtime.writer, family_id, member_id, draft, memory_id=memory_id)
        runtime.drain_committed()  # the write has committed: it answers success whatever follows
        return json_response(HTTPStatus.CREATED, {"memory": memory_json(family_id, memory)})

    @app.patch("/families/<family_id>/memories/<memory_id>")
    def edit(family_id: str, memory_id: str) -> Response[str]:
        family_id, memory_id = check_family_id(family_id), check_memory_id(memory_id)
        member_id, rest = acting(body_object())
        changes = validate(card.MemoryEdit, rest, "body")
        old, new = card.edit_memory(runtime.writer, family_id, memory_id, member_id, changes)
        runtime.drain_committed()  # the write has committed: it answers success whatever follows
        return json_response(
            HTTPStatus.OK, {"superseded": memory_json(family_id, old), "memory": memory_json(family_id, new)}
        )

    @app.post("/families/<family_id>/memories/<memory_id>/forget")
    def forget(family_id: str, memory_id: str) -> Response[str]:
        family_id, memory_id = check_family_id(family_id), check_memory_id(memory_id)
        request = validate(ForgetRequest, body_object(), "body")
        memory, rule = card.forget_memory(runtime.writer, family_id, memory_id, request.member_id, request.reason)
        runtime.drain_committed()  # the write has committed: it answers success whatever follows
        return json_response(
            HTTPStatus.OK,
            {
                "memory": memory_json(family_id, memory),
                "already_forgotten": rule is None,
                "suppression_rule": rule.id if rule else None,
            },
        )

    @app.post("/families/<family_id>/forget-group")
    def group(family_id: str) -> Response[str]:
        family_id = check_family_id(family_id)
        request = validate(GroupRequest, body_object(), "body")
        selector = validate(
            card.GroupSelector,
            {"entity": request.entity, "topic": request.topic, "memory_type": request.type},
            "body",
        )
        if not request.confirm:
            preview = card.preview_group(runtime.writer, family_id, selector)
            return json_response(
                HTTPStatus.OK,
                {
                    "group": selector.describe(),
                    "confirmed": False,
                    "count": preview.count,
                    "memories": [row_json(r) for r in preview.memories],
                    "to_confirm": {"confirm": True, "expected_count": preview.count},
                },
            )
        if request.expected_count is None:
            raise InvalidInputError("expected_count: required with confirm (the count the preview showed)")
        result = card.forget_group(
            runtime.writer,
            family_id,
            selector,
            request.member_id,
            expected_count=request.expected_count,
            reason=request.reason,
        )
        runtime.drain_committed()  # the write has committed: it answers success whatever follows
        return json_response(
            HTTPStatus.OK,
            {
                "group": selector.describe(),
                "confirmed": True,
                "count": result.preview.count,
                "forgotten": [row.id for row in result.preview.memories],
                "suppression_rules": [rule.id for rule in result.rules],
            },
        )

    # --- session end ----------------------------------------------------------------------

    @app.post("/families/<family_id>/sessions")
    def session_end(family_id: str) -> Response[str]:
        family_id = check_family_id(family_id)
        data = body_bytes()
        body_object(data)  # a clear error for a body that is not a JSON object; stored as received
        ended = end_session(runtime, data, family_id=family_id, strict=False)
        status = HTTPStatus.CREATED if ended.intake.stored else HTTPStatus.OK
        return json_response(status, session_json(ended))

    return app


def api_for(runtime: Runtime) -> APIGatewayHttpResolver:
    """The runtime's resolver, built on first use (Lambda: once per container)."""
    resolver = runtime.extras.get("api")
    if not isinstance(resolver, APIGatewayHttpResolver):
        resolver = runtime.extras["api"] = build_api(runtime)
    return resolver


def request_budget(runtime: Runtime, context: LambdaContext | None) -> float:
    """Seconds this request may take: ``API_DEADLINE_SECONDS``, or less when Lambda has
    less time left (keeping ``DEADLINE_MARGIN_SECONDS`` to answer)."""
    budget = runtime.settings.api_deadline_seconds
    left = getattr(context, "get_remaining_time_in_millis", None)
    if callable(left):
        budget = min(budget, left() / 1000 - DEADLINE_MARGIN_SECONDS)
    return max(budget, 0.1)


def handle(runtime: Runtime, event: dict[str, Any], context: LambdaContext | None = None) -> dict[str, Any]:
    """Resolve one HTTP API (payload v2) event on ``runtime``: the Lambda response dict,
    within the request's deadline (``retrieval/deadline.py``)."""
    with request_deadline(request_budget(runtime, context)):
        return api_for(runtime).resolve(event, cast(LambdaContext, context))
