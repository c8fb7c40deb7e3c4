"""People, places, groups, pets and organisations that claims apply to."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from family_memory.domain.clock import UtcDatetime
from family_memory.domain.ids import EntityId, MemberId
from family_memory.domain.memory import Attestation
from family_memory.domain.text import Body, Name, normalise_for_match


class EntityKind(StrEnum):
    PERSON = "person"
    PLACE = "place"
    GROUP = "group"
    PET = "pet"
    ORGANISATION = "organisation"


#: Order of an entity file's front-matter keys.
ENTITY_FIELDS: tuple[str, ...] = (
    "id",
    "type",
    "name",
    "aliases",
    "member_id",
    "relationship",
    "created_at",
    "revision",
)


class Entity(BaseModel):
    """An entity file. ``type`` (the OKF-required key) holds the kind. A household
    member's person entity carries the ``member_id`` used in transcripts."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: EntityId
    type: EntityKind
    name: Name
    aliases: list[Name] = Field(default_factory=list, max_length=30)
    member_id: MemberId | None = None
    relationship: Name | None = None
    created_at: UtcDatetime
    revision: int = Field(default=1, ge=1)
    generated: Attestation | None = None
    body: Body = ""

    @field_validator("aliases")
    @classmethod
    def _distinct_aliases(cls, value: list[str]) -> list[str]:
        seen: set[str] = set()
        kept = []
        for alias in value:
            key = normalise_for_match(alias)
            if key not in seen:
                seen.add(key)
                kept.append(alias)
        return kept

    def names(self) -> set[str]:
        """Every name this entity answers to, in comparison form."""
        return {normalise_for_match(self.name), *(normalise_for_match(a) for a in self.aliases)}
