"""What the assistant's backend calls on every conversation and turn: the brief (a
conditional fetch), the turn-level lookup, the read tools and their Converse specs.

The brief is the one the asking member gets: ``member_id`` names them, and their own
chat carries their own last conversation (DESIGN invariant 6); the household surface,
or a request that names no member, gets none, and nobody ever gets another member's.

The brief answers with a strong ``ETag``, the SHA-256 of the exact body it sends
for that family and surface, and ``Cache-Control: private, no-cache`` (a copy may be
kept, but is checked every time). ``If-None-Match`` with the tag answers ``304``
with no body, so a backend downloads the brief only when it changed; a forget or
an edit patches the brief at once (DESIGN invariant 9), so the next request gets a
new tag. A line whose ``valid_until`` began in the family's time zone is dropped at
load, which changes the body and the tag too.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from http import HTTPStatus
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Header, Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse, OpenAPIResponseHeader

from family_memory.app.routes.schema import (
    BriefResponse,
    ContextRequest,
    ContextResponse,
    ToolInput,
    ToolResponse,
    ToolSpecsResponse,
)
from family_memory.app.routes.shared import (
    FamilyPath,
    SurfaceQuery,
    error_responses,
    json_response,
    ok,
    runtime_of,
)
from family_memory.app.runtime import retrieval_for
from family_memory.brief.model import BRIEF_TOKEN_CAP, Brief
from family_memory.brief.render import prompt_block, section_usage
from family_memory.domain.errors import NotFoundError
from family_memory.domain.family import Surface
from family_memory.domain.ids import MemberId
from family_memory.retrieval.tools import TOOL_NAMES, tool_config

router = Router()  # type: ignore[no-untyped-call]

#: Any copy may be kept (by this family's backend only) and must be revalidated before each use.
BRIEF_CACHE_CONTROL = "private, no-cache"

_TAG_HEADERS: dict[str, OpenAPIResponseHeader] = {
    "ETag": {"description": "The SHA-256 of this body (strong).", "schema": {"type": "string"}},
    "Cache-Control": {"description": BRIEF_CACHE_CONTROL, "schema": {"type": "string"}},
}
_BRIEF_RESPONSES: dict[int, OpenAPIResponse] = {
    200: {**ok(BriefResponse, "The prompt block and its token counts.")[200], "headers": _TAG_HEADERS},
    304: {
        "description": "Not modified: the brief is still the one with the tag sent in If-None-Match; no body.",
        "headers": _TAG_HEADERS,
        "content": {},
    },
    **error_responses(400, 503),
}


MemberQuery = Annotated[
    MemberId | None,
    Query(
        description=(
            "The member the brief is for: in their own chat it carries their own last conversation. Without it, "
            "and on the household surface, there is none; another member's is never given."
        )
    ),
]


def entity_tag(body: bytes) -> str:
    """The strong entity tag of a body: its SHA-256 (128 bits of it, in hex), quoted."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def not_modified(if_none_match: str | None, tag: str) -> bool:
    """Whether ``If-None-Match`` names ``tag`` (RFC 9110: weak comparison, ``*`` matches any)."""
    if not if_none_match:
        return False
    given = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return "*" in given or tag in given


@router.get(
    "/families/<family_id>/brief",
    summary="The brief: stable instructions and the compiled brief, as a conditional fetch",
    tags=["agent"],
    responses=_BRIEF_RESPONSES,
)
def brief(
    family_id: FamilyPath,
    surface: SurfaceQuery = Surface.CHAT,
    member_id: MemberQuery = None,
    if_none_match: Annotated[
        str | None, Header(alias="If-None-Match", description="The ETag of the copy you hold: 304 if unchanged.")
    ] = None,
) -> Response[str]:
    compiled = runtime_of(router).brief.loader.load(family_id, member_id=member_id, surface=surface)
    shown = compiled or Brief(family_id=family_id)
    block = prompt_block(shown, surface)
    answer = BriefResponse.model_validate(
        {
            "family_id": family_id,
            "surface": surface,
            "compiled": compiled is not None,
            "prompt": block.text,
            "system": block.converse_system(),
            "tokens": {
                "brief": block.brief_tokens,
                "cap": BRIEF_TOKEN_CAP,
                "sections": [asdict(usage) for usage in section_usage(shown, surface)],
            },
        }
    )
    response = json_response(HTTPStatus.OK, answer)
    body = response.body if isinstance(response.body, str) else ""
    tag = entity_tag(body.encode("utf-8"))
    headers = {"ETag": tag, "Cache-Control": BRIEF_CACHE_CONTROL}
    if not_modified(if_none_match, tag):
        return Response(status_code=HTTPStatus.NOT_MODIFIED, body="", headers=headers)
    response.headers.update(headers)
    return response


@router.post(
    "/families/<family_id>/context",
    summary="The turn-level lookup for one user message",
    tags=["agent"],
    responses={**ok(ContextResponse, "The lookup block and its items."), **error_responses(400, 413, 415, 503)},
)
def context(family_id: FamilyPath, request: Annotated[ContextRequest, Body()]) -> Response[str]:
    result = retrieval_for(runtime_of(router)).lookup.lookup(
        family_id,
        request.message,
        request.surface,
        max_items=request.max_items,
        max_tokens=request.max_tokens,
        member_id=request.member_id,
    )
    items = [
        {
            "memory_id": item.row.id,
            "ref": item.ref,
            "summary": item.row.summary,
            "type": item.row.type,
            "sensitivity": item.row.sensitivity,
            "age": item.age,
            "line": item.line,
            "found_by": item.via,
        }
        for item in result.items
    ]
    answer = {
        "family_id": family_id,
        "surface": request.surface,
        "block": result.block,
        "tokens": result.tokens,
        "items": items,
    }
    return json_response(HTTPStatus.OK, ContextResponse.model_validate(answer))


@router.get(
    "/tool-specs",
    summary="The read tools as Bedrock Converse toolSpecs",
    tags=["agent"],
    responses={**ok(ToolSpecsResponse, "The toolSpecs (none on the household surface)."), **error_responses(400)},
)
def tool_specs(surface: SurfaceQuery = Surface.CHAT) -> Response[str]:
    config = tool_config(surface)
    return json_response(HTTPStatus.OK, ToolSpecsResponse(tools=config["tools"] if config else []))


@router.post(
    "/families/<family_id>/tools/<name>",
    summary="Run one read tool call from the model",
    description="A tool that refuses (a bad reference, another family's, a forgotten memory) answers 200 with "
    '"status": "error": a result for the model, not a failed request. There is no tool that writes.',
    tags=["agent"],
    responses={**ok(ToolResponse, "The tool's result for the model."), **error_responses(400, 404, 413, 415, 503)},
)
def tool(
    family_id: FamilyPath,
    name: Annotated[str, Path(description="The tool's name.", json_schema_extra={"enum": list(TOOL_NAMES)})],
    tool_input: Annotated[ToolInput, Body()],
    surface: SurfaceQuery = Surface.CHAT,
) -> Response[str]:
    if name not in TOOL_NAMES:
        raise NotFoundError(f"there is no tool named {name[:60]!r}; the tools are {', '.join(TOOL_NAMES)}")
    result = retrieval_for(runtime_of(router)).tools(family_id, surface).run(name, tool_input)
    answer = {"tool": name, "status": result.status, "text": result.text}
    return json_response(HTTPStatus.OK, ToolResponse.model_validate(answer))
