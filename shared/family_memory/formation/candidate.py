"""What an extractor proposes: a candidate memory with the turns that support it.

The shape is the same for every extractor (Bedrock, the offline rules, a
batch job that supplies its own). Field sizes here are generous bounds
against abuse; the product's length caps are validation rules with their own
messages (``validation``), so an over-long summary is rejected *with a
reason*, not lost in a schema error.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from family_memory.domain.entity import EntityKind
from family_memory.domain.memory import Authority, Durability, MemoryType, Sensitivity, Strength

#: Authority ranks: an explicit statement outranks one said in passing, which
#: outranks an inference; a memory the system made ranks lowest.
AUTHORITY_RANK = {
    Authority.USER_EXPLICIT: 3,
    Authority.USER_IMPLICIT: 2,
    Authority.INFERRED: 1,
    Authority.SYSTEM: 0,
}


class CitedTurns(BaseModel):
    """``{"turns": [a, b], "quote": "..."}``: the quote must appear in one of turns a..b."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turns: list[int] = Field(min_length=1, max_length=2)
    quote: str = Field(min_length=1, max_length=5000)

    @field_validator("turns")
    @classmethod
    def _ascending(cls, value: list[int]) -> list[int]:
        if any(n < 1 for n in value):
            raise ValueError("turn numbers start at 1")
        if len(value) == 2 and value[1] < value[0]:
            raise ValueError(f"turn range {value[0]}-{value[1]} must ascend")
        return value

    @property
    def first(self) -> int:
        return self.turns[0]

    @property
    def last(self) -> int:
        return self.turns[-1]


class EntityHint(BaseModel):
    """What the extractor knows about a person, pet or place it names: "my daughter
    Maya" is ``{name: Maya, kind: person, aliases: ["my daughter"], relationship: daughter}``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=120)
    kind: EntityKind = EntityKind.PERSON
    aliases: list[str] = Field(default_factory=list, max_length=10)
    relationship: str | None = Field(default=None, max_length=120)
    member_id: str | None = Field(default=None, max_length=64)


class Candidate(BaseModel):
    """One proposed memory. ``applies_to`` holds names (or member ids) that the
    reconciler resolves to entity ids; ``about_member`` names the household
    member a first-person claim is about (their own turn must be cited)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: MemoryType
    about: str = Field(min_length=1, max_length=2000)
    summary: str = Field(min_length=1, max_length=5000)
    body: str = Field(default="", max_length=20000)
    when_to_use: str = Field(default="", max_length=5000)
    durability: Durability = Durability.DURABLE
    valid_until: str | None = Field(default=None, max_length=100)
    strength: Strength = Strength.SOFT
    authority: Authority
    confidence: float = Field(ge=0.0, le=1.0)
    sensitivity: Sensitivity = Sensitivity.NORMAL
    applies_to: list[str] = Field(default_factory=list, max_length=20)
    about_member: str | None = Field(default=None, max_length=64)
    entities: list[EntityHint] = Field(default_factory=list, max_length=20)
    evidence: list[CitedTurns] = Field(min_length=1, max_length=10)

    @field_validator("valid_until", "about_member", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @model_validator(mode="after")
    def _names_bounded(self) -> Candidate:
        for name in self.applies_to:
            if not name.strip() or len(name) > 120:
                raise ValueError("applies_to names must be non-empty and at most 120 characters")
        return self

    def subject_names(self) -> list[str]:
        """The names the claim applies to, the member a first-person claim is about first."""
        names = list(self.applies_to)
        if self.about_member and self.about_member not in names:
            names.insert(0, self.about_member)
        return names

    @property
    def is_statement(self) -> bool:
        """Said by the family (explicitly or in passing), as opposed to inferred."""
        return self.authority in (Authority.USER_EXPLICIT, Authority.USER_IMPLICIT)
