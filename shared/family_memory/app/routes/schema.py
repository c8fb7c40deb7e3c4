"""Every request and response body of the HTTP API, as pydantic models.

The routes take their bodies as these models (Powertools validates them before a
route runs) and answer with them; ``docs/openapi.json`` is generated from the
same models (``app.api.openapi_document``), and the Python client
(``family_memory.client``) parses answers with them, so the three cannot drift.

Where a mistake is costly the types are strict: a boolean is JSON ``true`` or
``false`` only (``"yes"``, ``"on"``, ``"1"`` and ``1`` do not confirm a group
forget), a number is a JSON integer (``3``, or ``3.0`` as JSON Schema allows;
``true``, ``"3"`` and ``3.5`` are not), and a date is a ``YYYY-MM-DD`` string (a
number is not a date). Unknown fields are refused.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    RootModel,
    StrictBool,
    Tag,
    WithJsonSchema,
    create_model,
)

from family_memory.brief.model import Section
from family_memory.card.operations import MemoryDraft, MemoryEdit
from family_memory.domain.family import Surface
from family_memory.domain.ids import MemberId, MemoryId
from family_memory.domain.memory import Memory, MemoryType, Sensitivity
from family_memory.domain.transcript import Transcript
from family_memory.formation.document import OutcomeKind
from family_memory.formation.extraction import MAX_SUPPLIED_CANDIDATES
from family_memory.ports.catalog import CatalogRow
from family_memory.retrieval.caps import MAX_ITEMS_LIMIT, MAX_TOKENS_LIMIT
from family_memory.retrieval.lookup import Via
from family_memory.retrieval.tools import TOOL_SPECS


def _no_number(value: Any) -> Any:
    if isinstance(value, bool | int | float):
        raise ValueError("a date is written YYYY-MM-DD, not as a number")
    return value


#: A calendar date as JSON carries it: a ``YYYY-MM-DD`` string, never a number of seconds.
IsoDate = Annotated[date, BeforeValidator(_no_number)]


def _json_integer(value: Any) -> Any:
    """A JSON integer as JSON Schema means it: a number without a fraction (``3`` or ``3.0``),
    never a boolean or a string (``true`` and ``"3"`` are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("Input should be a valid integer")  # true, "3", null: not numbers
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("Input should be a valid integer")
        return int(value)  # 3.0 is the integer 3 (JSON Schema's "integer")
    return value


class _Request(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Response(BaseModel):
    model_config = ConfigDict(frozen=True)


# --- errors --------------------------------------------------------------------------------


class ErrorDetail(_Response):
    code: str = Field(description="A stable token: invalid_input, not_found, conflict, family_busy, ...")
    message: str = Field(description="What is wrong, naming the field; never another family's data or internals.")


class ErrorResponse(_Response):
    """Every error: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


# --- agent: brief, context, tools --------------------------------------------------------------


class SectionTokens(_Response):
    section: Section
    tokens: int
    budget: int
    lines: int


class BriefTokens(_Response):
    brief: int = Field(description="Tokens of the brief block (cl100k).")
    cap: int = Field(description="The hard cap of the brief (2,000).")
    sections: list[SectionTokens]


class BriefResponse(_Response):
    """The prompt block the agent puts first: the stable instructions and the compiled brief."""

    family_id: str
    surface: Surface
    compiled: bool = Field(description="False for a family with no brief yet: the instructions and an empty brief.")
    prompt: str = Field(description="Instructions, then the <family_brief> block, as one text.")
    system: list[dict[str, Any]] = Field(description="Bedrock Converse system blocks, a cache point after them.")
    tokens: BriefTokens


class ContextRequest(_Request):
    message: str = Field(min_length=1, max_length=4000, description="The user's message this turn.")
    surface: Surface = Surface.CHAT
    # The bounds go before the JsonInt check in Annotated, or the schema would say "ge"/"le" for minimum/maximum.
    max_items: Annotated[int, Field(ge=0, le=MAX_ITEMS_LIMIT), BeforeValidator(_json_integer)] | None = Field(
        default=None, description="Most items (default 5)."
    )
    max_tokens: Annotated[int, Field(ge=0, le=MAX_TOKENS_LIMIT), BeforeValidator(_json_integer)] | None = Field(
        default=None, description="Most tokens of the candidates (default 450; the must-know rules have their own)."
    )
    member_id: MemberId | None = Field(
        default=None, description="Who sent the message: their own rules count as concerning them ('book me ...')."
    )


class ContextItem(_Response):
    memory_id: str
    ref: str
    summary: str
    type: MemoryType
    sensitivity: Sensitivity
    age: str = Field(description="How long ago it was formed, in words ('today', '3 weeks ago').")
    line: str = Field(description="The item's line of the block.")
    found_by: Via = Field(
        description="How it was found; 'rule': a constraint or directive the message's task touches (must-know); "
        "'schedule': a standing arrangement on the day the message asks about."
    )


class ContextResponse(_Response):
    """The turn-level lookup: every item was confirmed current against the catalog."""

    family_id: str
    surface: Surface
    block: str = Field(description='The <memory_lookup> block for the prompt; "" when nothing qualifies.')
    tokens: int
    items: list[ContextItem]


class ToolSpecsResponse(_Response):
    tools: list[dict[str, Any]] = Field(description="Bedrock Converse toolSpecs; none on the household surface.")


#: A tool's input as the model gave it. Any JSON object is taken: the tool checks it against its
#: own input schema (GET /tool-specs, listed under ``x-tool-input-schemas``) and answers a bad one
#: with an error result for the model (200, ``status: error``), not a failed request.
ToolInput = Annotated[
    dict[str, Any],
    WithJsonSchema(
        {
            "type": "object",
            "description": "The tool's input as the model gave it (the toolUse input); checked by the tool.",
            "x-tool-input-schemas": {
                spec["toolSpec"]["name"]: spec["toolSpec"]["inputSchema"]["json"] for spec in TOOL_SPECS
            },
        }
    ),
]


class ToolResponse(_Response):
    """A tool's result for the model: a refusal is a result too (``status: error``), not a failed request."""

    tool: str
    status: Literal["success", "error"]
    text: str


# --- card ------------------------------------------------------------------------------------

if TYPE_CHECKING:
    MemoryRow = CatalogRow
else:
    #: A list row: the catalog's fields (front matter without body and unknown keys), without its version tag.
    MemoryRow = create_model(
        "MemoryRow",
        __config__=ConfigDict(frozen=True),
        **{name: (field.annotation, field) for name, field in CatalogRow.model_fields.items() if name != "tag"},
    )


class MemoryOut(Memory):
    """A memory as the API shows it: its front matter and body, and its ``memory://`` reference."""

    ref: str


class MemoryPage(_Response):
    memories: list[MemoryRow]
    cursor: str | None = Field(description="Pass it back as ?cursor= for the next page; null on the last.")


class Conflict(_Response):
    relation: str
    memory_id: str
    summary: str
    note: str


class MemoryShown(_Response):
    memory: MemoryOut
    conflicts: list[Conflict] = Field(description="Open 'possibly replaced by / possibly replaces' links.")


class EvidenceItem(_Response):
    ref: str
    quote: str
    recorded_at: datetime
    source: str
    stance: str
    speaker: str | None = None
    note: str = ""


class EvidenceResponse(_Response):
    memory: MemoryOut
    evidence: list[EvidenceItem] = Field(description="Every record of the memory's evidence ledger, oldest first.")


class LineageVersion(_Response):
    memory: MemoryOut
    verified_by: list[str]
    conflicts: list[Conflict]


class LineageResponse(_Response):
    asked: str
    current: str
    versions: list[LineageVersion] = Field(description="Every version of the claim, first to latest.")


class AddRequest(MemoryDraft):
    """An explicit memory from a member. Send ``id`` (a ULID you generate) to make it safe to retry."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    member_id: MemberId = Field(description="The family member adding it (recorded as verified by them).")
    id: MemoryId | None = Field(default=None, description="A ULID you choose: a retry with it adds nothing.")
    pin: StrictBool = False
    valid_until: IsoDate | None = None


class MemoryAdded(_Response):
    memory: MemoryOut


class EditRequest(MemoryEdit):
    """A correction: the new wording becomes a new memory that supersedes the old one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    member_id: MemberId = Field(description="The family member making the correction.")
    valid_until: IsoDate | None = None
    clear_valid_until: StrictBool | None = None
    pin: StrictBool | None = None


class MemoryEdited(_Response):
    superseded: MemoryOut
    memory: MemoryOut


class ForgetRequest(_Request):
    member_id: MemberId = Field(description="The family member asking to forget it.")
    reason: str = Field(default="", max_length=500)


class MemoryForgotten(_Response):
    memory: MemoryOut
    already_forgotten: bool
    suppression_rule: str | None


class GroupRequest(_Request):
    """Name exactly one of ``entity``, ``topic`` or ``type``. Without ``confirm: true`` it is a preview."""

    member_id: MemberId
    entity: str | None = Field(default=None, description="A person, pet, place or group, by name.")
    topic: str | None = Field(default=None, description="Words every memory of the group contains.")
    type: MemoryType | None = None
    confirm: StrictBool = Field(default=False, description="JSON true only: forget now.")
    expected_count: Annotated[int, Field(ge=0), BeforeValidator(_json_integer)] | None = Field(
        default=None, description="With confirm: the count the preview showed; refused (409) if it changed."
    )
    preview_token: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="With confirm: the preview's token; refused (409) if the group now holds other memories.",
    )
    reason: str = Field(default="", max_length=500)


class ToConfirm(_Response):
    confirm: Literal[True]
    expected_count: int
    preview_token: str = Field(description="Exactly these memories at these revisions; send it back to confirm them.")


class GroupPreview(_Response):
    group: str
    confirmed: Literal[False]
    count: int
    memories: list[MemoryRow]
    to_confirm: ToConfirm


class GroupForgotten(_Response):
    group: str
    confirmed: Literal[True]
    count: int
    forgotten: list[str]
    suppression_rules: list[str]
    already_forgotten: bool = Field(
        description="True when the group held nothing and its rule already stood: nothing was written."
    )


class GroupAnswer(RootModel[GroupPreview | GroupForgotten]):
    """A preview (``confirmed: false``) or what was forgotten (``confirmed: true``)."""


# --- sessions --------------------------------------------------------------------------------


class SuppliedCandidates(BaseModel):
    """Candidates produced elsewhere, as ``ingest --candidates`` reads them."""

    model_config = ConfigDict(frozen=True, extra="allow")

    candidates: list[Any] = Field(max_length=MAX_SUPPLIED_CANDIDATES)
    producer: str | None = Field(default=None, description="Who produced them (labels the candidates document).")


class SessionWithCandidates(_Request):
    """A finished transcript with candidates produced elsewhere: they replace the extractor and go
    through the same validation and reconciliation (a list, or ``{candidates, producer}``)."""

    transcript: Transcript
    candidates: Annotated[list[Any], Field(max_length=MAX_SUPPLIED_CANDIDATES)] | SuppliedCandidates


def _session_kind(value: Any) -> str:
    return "with_candidates" if isinstance(value, dict) and "transcript" in value else "transcript"


#: Session end's body: the transcript itself, or ``{"transcript": ..., "candidates": ...}``.
SessionBody = Annotated[
    Annotated[Transcript, Tag("transcript")] | Annotated[SessionWithCandidates, Tag("with_candidates")],
    Discriminator(_session_kind),
]


class Reason(_Response):
    rule: str
    message: str


class Rejected(_Response):
    index: int
    reasons: list[Reason]


class OutcomeOut(_Response):
    index: int
    kind: OutcomeKind
    memory_id: str | None = None
    detail: str = ""


class CandidatesOut(_Response):
    extractor: str
    summary: str
    accepted: list[int]
    rejected: list[Rejected]
    outcomes: list[OutcomeOut]


class SessionEnded(_Response):
    family_id: str
    session_id: str
    stored: bool = Field(description="False when the same session was already stored with the same content.")
    family_created: bool
    formation: Literal["done", "started", "pending"]
    candidates: CandidatesOut | None = Field(
        default=None, description="Once formation ran here (one machine): each verdict and outcome; absent on AWS."
    )
