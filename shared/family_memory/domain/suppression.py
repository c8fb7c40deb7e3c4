"""Forget rules. Formation checks them before every write, so a forgotten fact
stays forgotten when a later conversation mentions it again."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from family_memory.domain.clock import UtcDatetime
from family_memory.domain.ids import EntityId, MemoryId, RuleId
from family_memory.domain.memory import MemoryType


class SuppressionScope(StrEnum):
    MEMORY = "memory"  # one claim
    ENTITY = "entity"  # everything about one person, place or group
    TOPIC = "topic"  # everything about one subject
    TYPE = "type"  # every memory of one type


class Suppression(BaseModel):
    """``suppressions/{id}.json``. ``fingerprints`` hold the comparison form of
    the forgotten text (about, summary, quotes) that formation matches against."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: RuleId
    scope: SuppressionScope
    memory_ids: list[MemoryId] = Field(default_factory=list)
    entity_id: EntityId | None = None
    topic: str | None = Field(default=None, max_length=120)
    memory_type: MemoryType | None = None
    fingerprints: list[str] = Field(default_factory=list, max_length=2000)
    created_at: UtcDatetime
    created_by: str = Field(min_length=1, max_length=120)
    reason: str = Field(default="", max_length=500)
    active: bool = True
