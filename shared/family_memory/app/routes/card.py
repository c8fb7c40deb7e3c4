"""The family's memory card: list, show, evidence, lineage, add, edit, forget, forget a group.

Each route calls the card's service function (``card/``), the one the command line
calls too. A write answers success once it has committed, whatever delivering its
events does next (``Runtime.drain_committed``).
"""

from __future__ import annotations

from dataclasses import asdict
from http import HTTPStatus
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from pydantic import BaseModel

from family_memory.app.routes.schema import (
    AddRequest,
    EditRequest,
    EvidenceResponse,
    ForgetRequest,
    GroupAnswer,
    GroupForgotten,
    GroupPreview,
    GroupRequest,
    LineageResponse,
    MemoryAdded,
    MemoryEdited,
    MemoryForgotten,
    MemoryOut,
    MemoryPage,
    MemoryShown,
)
from family_memory.app.routes.shared import FamilyPath, MemoryPath, error_responses, json_response, ok, runtime_of
from family_memory.app.runtime import Runtime
from family_memory.card import operations as card
from family_memory.card.views import evidence_view, lineage_view, list_memories, open_conflicts, read_memory
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.memory import Memory, Status
from family_memory.domain.okf import validate
from family_memory.domain.refs import MemoryRef
from family_memory.ports.catalog import MAX_PAGE_SIZE, CatalogRow

router = Router()  # type: ignore[no-untyped-call]
_TAGS = ["card"]


def memory_out(family_id: str, memory: Memory) -> MemoryOut:
    return MemoryOut.model_validate({**memory.model_dump(), "ref": str(MemoryRef(family_id, memory.id))})


def row_out(row: CatalogRow) -> dict[str, Any]:
    return row.model_dump(exclude={"tag"})


def conflicts_out(runtime: Runtime, family_id: str, memory: Memory) -> list[dict[str, str]]:
    return [
        {"relation": c.relation, "memory_id": c.other.id, "summary": c.other.summary, "note": c.describe()}
        for c in open_conflicts(runtime.store, family_id, memory)
    ]


# --- reading ---------------------------------------------------------------------------------


@router.get(
    "/families/<family_id>/memories",
    summary="The card's list, newest first, one page at a time",
    tags=_TAGS,
    responses={**ok(MemoryPage, "A page of rows and the cursor of the next."), **error_responses(400)},
)
def list_(
    family_id: FamilyPath,
    status: Annotated[Status | None, Query(description="Only memories with this status.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE, description="Rows per page.")] = 20,
    cursor: Annotated[str | None, Query(max_length=2000, description="The cursor of the previous page.")] = None,
) -> Response[str]:
    page = list_memories(runtime_of(router).catalog, family_id, status=status, limit=limit, cursor=cursor)
    return json_response(HTTPStatus.OK, MemoryPage(memories=[row_out(r) for r in page.rows], cursor=page.cursor))


@router.get(
    "/families/<family_id>/memories/<memory_id>",
    summary="One memory, and its open conflicts",
    tags=_TAGS,
    responses={**ok(MemoryShown, "The memory with its body and reference."), **error_responses(400, 404)},
)
def show(family_id: FamilyPath, memory_id: MemoryPath) -> Response[str]:
    runtime = runtime_of(router)
    memory = read_memory(runtime.store, family_id, memory_id)
    answer = MemoryShown(memory=memory_out(family_id, memory), conflicts=conflicts_out(runtime, family_id, memory))
    return json_response(HTTPStatus.OK, answer)


@router.get(
    "/families/<family_id>/memories/<memory_id>/evidence",
    summary='"Why do you think that?": the memory and its evidence ledger',
    tags=_TAGS,
    responses={**ok(EvidenceResponse, "The memory and every evidence record."), **error_responses(400, 404)},
)
def evidence(family_id: FamilyPath, memory_id: MemoryPath) -> Response[str]:
    view = evidence_view(runtime_of(router).store, family_id, memory_id)
    answer = EvidenceResponse(memory=memory_out(family_id, view.memory), evidence=[asdict(line) for line in view.lines])
    return json_response(HTTPStatus.OK, answer)


@router.get(
    "/families/<family_id>/memories/<memory_id>/lineage",
    summary="Every version of the claim, first to latest",
    tags=_TAGS,
    responses={**ok(LineageResponse, "The versions."), **error_responses(400, 404)},
)
def lineage(family_id: FamilyPath, memory_id: MemoryPath) -> Response[str]:
    runtime = runtime_of(router)
    found = lineage_view(runtime.store, family_id, memory_id)
    versions = [
        {
            "memory": memory_out(family_id, step.memory),
            "verified_by": step.verified_by,
            "conflicts": conflicts_out(runtime, family_id, step.memory),
        }
        for step in found.steps
    ]
    answer = LineageResponse(asked=found.asked, current=found.current.id, versions=versions)
    return json_response(HTTPStatus.OK, answer)


# --- changing --------------------------------------------------------------------------------


def _write(model: type[BaseModel], description: str, status: int = 200) -> dict[int, OpenAPIResponse]:
    """A write route's responses: its success, and every error a write may answer."""
    return {**ok(model, description, status), **error_responses(400, 404, 409, 413, 415, 503)}


@router.post(
    "/families/<family_id>/memories",
    summary="Add an explicit memory for a member",
    tags=_TAGS,
    status_code=HTTPStatus.CREATED,
    responses=_write(MemoryAdded, "The memory added (or, retried with its id, the one added before).", 201),
)
def add(family_id: FamilyPath, request: Annotated[AddRequest, Body()]) -> Response[str]:
    runtime = runtime_of(router)
    draft = validate(card.MemoryDraft, request.model_dump(exclude={"member_id", "id"}, exclude_unset=True), "body")
    memory = runtime.card.add(family_id, request.member_id, draft, memory_id=request.id)
    runtime.drain_committed()  # the write has committed: it answers success whatever follows
    return json_response(HTTPStatus.CREATED, MemoryAdded(memory=memory_out(family_id, memory)))


@router.patch(
    "/families/<family_id>/memories/<memory_id>",
    summary="Correct a memory: the new wording supersedes the old",
    tags=_TAGS,
    responses=_write(MemoryEdited, "The old version, now superseded, and the new one."),
)
def edit(family_id: FamilyPath, memory_id: MemoryPath, request: Annotated[EditRequest, Body()]) -> Response[str]:
    runtime = runtime_of(router)
    changes = validate(card.MemoryEdit, request.model_dump(exclude={"member_id"}, exclude_unset=True), "body")
    old, new = runtime.card.edit(family_id, memory_id, request.member_id, changes)
    runtime.drain_committed()  # the write has committed: it answers success whatever follows
    answer = MemoryEdited(superseded=memory_out(family_id, old), memory=memory_out(family_id, new))
    return json_response(HTTPStatus.OK, answer)


@router.post(
    "/families/<family_id>/memories/<memory_id>/forget",
    summary="Retract a memory and keep formation from learning it back",
    tags=_TAGS,
    responses=_write(MemoryForgotten, "The memory, retracted; forgetting it again changes nothing."),
)
def forget(family_id: FamilyPath, memory_id: MemoryPath, request: Annotated[ForgetRequest, Body()]) -> Response[str]:
    runtime = runtime_of(router)
    memory, rule = runtime.card.forget(family_id, memory_id, request.member_id, request.reason)
    runtime.drain_committed()  # the write has committed: it answers success whatever follows
    answer = MemoryForgotten(
        memory=memory_out(family_id, memory),
        already_forgotten=rule is None,
        suppression_rule=rule.id if rule else None,
    )
    return json_response(HTTPStatus.OK, answer)


@router.post(
    "/families/<family_id>/forget-group",
    summary="Everything about one person, one topic or one type: a preview, then a confirmed forget",
    tags=_TAGS,
    responses=_write(GroupAnswer, "The preview, or what was forgotten."),
)
def group(family_id: FamilyPath, request: Annotated[GroupRequest, Body()]) -> Response[str]:
    runtime = runtime_of(router)
    selector = validate(
        card.GroupSelector,
        {"entity": request.entity, "topic": request.topic, "memory_type": request.type},
        "body",
    )
    if not request.confirm:
        preview = runtime.card.preview_group(family_id, selector)
        shown = GroupPreview.model_validate(
            {
                "group": selector.describe(),
                "confirmed": False,
                "count": preview.count,
                "memories": [row_out(r) for r in preview.memories],
                "to_confirm": {"confirm": True, "expected_count": preview.count, "preview_token": preview.token},
            }
        )
        return json_response(HTTPStatus.OK, shown)
    if request.expected_count is None:
        raise InvalidInputError("expected_count: required with confirm (the count the preview showed)")
    result = runtime.card.forget_group(
        family_id,
        selector,
        request.member_id,
        expected_count=request.expected_count,
        expected_token=request.preview_token,
        reason=request.reason,
    )
    runtime.drain_committed()  # the write has committed: it answers success whatever follows
    done = GroupForgotten.model_validate(
        {
            "group": selector.describe(),
            "confirmed": True,
            "count": result.preview.count,
            "forgotten": [row.id for row in result.preview.memories],
            "suppression_rules": [rule.id for rule in result.rules],
            "already_forgotten": result.already_forgotten,
        }
    )
    return json_response(HTTPStatus.OK, done)
