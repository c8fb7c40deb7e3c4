"""The memory: one claim, one file.

Field names, order and vocabularies are the product post's (section 3), plus
OKF v0.2's ``generated`` and ``verified``. Unknown front-matter keys are kept
(pydantic ``extra="allow"``) so a file written by a newer producer survives a
round trip through this one.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from family_memory.domain.clock import UtcDatetime
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import EntityId, MemoryId
from family_memory.domain.text import About, Body, Summary, WhenToUse


class MemoryType(StrEnum):
    IDENTITY = "identity"
    DIRECTIVE = "directive"
    PREFERENCE = "preference"
    FACT = "fact"
    CONSTRAINT = "constraint"
    RELATIONSHIP = "relationship"


class Strength(StrEnum):
    HARD = "hard"
    SOFT = "soft"


class Authority(StrEnum):
    """Who said it: stated explicitly, said in passing, inferred from behaviour, or made by the system."""

    USER_EXPLICIT = "user_explicit"
    USER_IMPLICIT = "user_implicit"
    INFERRED = "inferred"
    SYSTEM = "system"


class Durability(StrEnum):
    DURABLE = "durable"
    SEASONAL = "seasonal"
    PASSING = "passing"


class Status(StrEnum):
    ACTIVE = "active"
    DORMANT = "dormant"
    EXPIRED = "expired"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"


class Sensitivity(StrEnum):
    NORMAL = "normal"
    HEALTH = "health"
    FINANCES = "finances"
    MINORS = "minors"


#: Order of the seed's front-matter keys; the serialiser writes them in this order.
SEED_FIELDS: tuple[str, ...] = (
    "id",
    "type",
    "about",
    "summary",
    "when_to_use",
    "applies_to",
    "strength",
    "pin",
    "authority",
    "confidence",
    "durability",
    "formed_at",
    "last_reinforced_at",
    "reinforcement_count",
    "valid_until",
    "status",
    "supersedes",
    "superseded_by",
    "related",
    "sensitivity",
    "revision",
    "needs_enrichment",
)
#: OKF v0.2 trust fields, written only when set.
OKF_FIELDS: tuple[str, ...] = ("generated", "verified")


class Attestation(BaseModel):
    """OKF's ``{by, at}``: an actor (``human:<id>``, ``process:<id>`` or ``<producer>/<version>``) and an instant."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    by: str = Field(min_length=1, max_length=120, pattern=r"^[A-Za-z0-9_.:/@+-]+$")
    at: UtcDatetime


class Memory(BaseModel):
    """One claim. ``revision`` counts writes of this file, starting at 1."""

    model_config = ConfigDict(frozen=True, extra="allow", use_enum_values=False)

    id: MemoryId
    type: MemoryType
    about: About
    summary: Summary
    when_to_use: WhenToUse = ""
    applies_to: list[EntityId] = Field(default_factory=list, max_length=50)
    strength: Strength = Strength.SOFT
    pin: bool = False
    authority: Authority
    confidence: float = Field(ge=0.0, le=1.0)
    durability: Durability = Durability.DURABLE
    formed_at: UtcDatetime
    last_reinforced_at: UtcDatetime
    reinforcement_count: int = Field(default=0, ge=0)
    valid_until: date | None = None
    status: Status = Status.ACTIVE
    supersedes: MemoryId | None = None
    superseded_by: MemoryId | None = None
    related: list[MemoryId] = Field(default_factory=list, max_length=50)
    sensitivity: Sensitivity = Sensitivity.NORMAL
    revision: int = Field(default=1, ge=1)
    needs_enrichment: bool = False
    generated: Attestation | None = None
    verified: list[Attestation] | None = None
    body: Body = ""

    @field_validator("verified", mode="before")
    @classmethod
    def _bare_mapping_is_one_element_list(cls, value: Any) -> Any:
        # OKF 5.2: consumers MUST treat a bare {by, at} mapping as a one-element list.
        return [value] if isinstance(value, dict) else value

    @field_validator("valid_until", mode="before")
    @classmethod
    def _absolute_date_only(cls, value: Any) -> Any:
        if isinstance(value, str) and value and not value[:4].isdigit():
            raise InvalidInputError(f"valid_until must be an absolute date (YYYY-MM-DD), not {value[:40]!r}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Memory:
        if self.last_reinforced_at < self.formed_at:
            raise InvalidInputError("last_reinforced_at is earlier than formed_at")
        if self.supersedes == self.id or self.superseded_by == self.id:
            raise InvalidInputError("a memory cannot supersede itself")
        if self.status is Status.SUPERSEDED and self.superseded_by is None:
            raise InvalidInputError("a superseded memory must say what superseded it (superseded_by)")
        extra = self.__pydantic_extra__ or {}
        for key in extra:
            if not isinstance(key, str) or not key:
                raise InvalidInputError(f"front-matter key {key!r} is not a non-empty string")
        return self

    @property
    def extra_fields(self) -> dict[str, Any]:
        """Front-matter keys this version does not know, kept for the round trip."""
        return dict(self.__pydantic_extra__ or {})

    @property
    def is_explicit(self) -> bool:
        return self.authority is Authority.USER_EXPLICIT

    def evolve(self, **changes: Any) -> Memory:
        """A validated copy with ``changes`` applied (pydantic's model_copy does not validate)."""
        data = self.model_dump(mode="python")
        data.update(changes)
        return Memory.model_validate(data)


def embedding_text(memory: Memory) -> str:
    """What the index embeds: about + summary + when_to_use."""
    return "\n".join(part for part in (memory.about, memory.summary, memory.when_to_use) if part)
