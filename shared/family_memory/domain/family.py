"""A family's settings (``family.json``): time zone, members, surfaces."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from family_memory.domain.clock import zone
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import FamilyId, MemberId
from family_memory.domain.text import Name


class Surface(StrEnum):
    CHAT = "chat"
    HOUSEHOLD = "household"


class MemberRole(StrEnum):
    ADULT = "adult"
    CHILD = "child"


class Member(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    id: MemberId
    name: Name
    address_as: Name | None = None
    role: MemberRole = MemberRole.ADULT


class FamilySettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    family_id: FamilyId
    time_zone: str = "UTC"
    members: list[Member] = Field(default_factory=list, max_length=50)
    surfaces: list[Surface] = Field(default_factory=lambda: [Surface.CHAT, Surface.HOUSEHOLD])

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        zone(value)
        return value

    @model_validator(mode="after")
    def _unique_members(self) -> FamilySettings:
        ids = [m.id for m in self.members]
        if len(ids) != len(set(ids)):
            raise InvalidInputError("member ids in family.json must be unique")
        return self

    def member(self, member_id: str) -> Member | None:
        return next((m for m in self.members if m.id == member_id), None)
