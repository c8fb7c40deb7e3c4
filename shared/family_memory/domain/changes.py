"""Change sets: several writes for one family, applied together.

A ChangeSet is what a writer (the reconciler, a dream pass, a family's own
edit) asks the write protocol to apply. Each memory write carries the full
new state and the revision it was decided against; evidence is appended, not
rewritten. The protocol records the change set as an intent before touching
any file and, once every file and projection is written, stores a
ChangeRecord at ``changes/{id}.json``: what changed, why, and by whom.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from family_memory.domain.clock import UtcDatetime
from family_memory.domain.entity import Entity
from family_memory.domain.errors import InvalidInputError, PayloadTooLargeError
from family_memory.domain.evidence import EvidenceRecord
from family_memory.domain.ids import ChangeId, EntityId, FamilyId, MemoryId, RuleId
from family_memory.domain.memory import Memory, Status
from family_memory.domain.suppression import Suppression

#: A change set is recorded whole as an intent; keep it well inside one
#: DynamoDB item (400 KB). Larger operations are split by the caller
#: (``pack_writes`` does it by count and by size).
MAX_WRITES_PER_CHANGE_SET = 40
MAX_CHANGE_SET_BYTES = 300_000
#: What a change set's own fields take besides its writes (the packing keeps this margin).
CHANGE_SET_OVERHEAD = 4_000


class Action(StrEnum):
    ADD = "add"
    REINFORCE = "reinforce"
    SUPERSEDE = "supersede"  # the old memory, now superseded
    CONTRADICTION = "contradiction"
    RETRACT = "retract"
    EXPIRE = "expire"
    PROMOTE = "promote"
    DECAY = "decay"
    UPDATE = "update"


class MemoryWrite(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    action: Action
    memory: Memory
    expected_revision: int | None = Field(default=None, ge=1)
    evidence: list[EvidenceRecord] = Field(default_factory=list)

    @model_validator(mode="after")
    def _revision_follows(self) -> MemoryWrite:
        expected_target = 1 if self.expected_revision is None else self.expected_revision + 1
        if self.memory.revision != expected_target:
            raise InvalidInputError(
                f"memory {self.memory.id}: a write from revision {self.expected_revision} must produce revision "
                f"{expected_target}, not {self.memory.revision}"
            )
        return self


class EntityWrite(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    entity: Entity
    expected_revision: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _revision_follows(self) -> EntityWrite:
        expected_target = 1 if self.expected_revision is None else self.expected_revision + 1
        if self.entity.revision != expected_target:
            raise InvalidInputError(f"entity {self.entity.id}: revision must be {expected_target}")
        return self


class ChangeSet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: ChangeId
    family_id: FamilyId
    actor: str = Field(min_length=1, max_length=120)
    reason: str = Field(max_length=500)
    source: str | None = Field(default=None, max_length=300)
    created_at: UtcDatetime
    memories: list[MemoryWrite] = Field(default_factory=list)
    entities: list[EntityWrite] = Field(default_factory=list)
    suppressions: list[Suppression] = Field(default_factory=list)

    @model_validator(mode="after")
    def _bounded_and_distinct(self) -> ChangeSet:
        total = len(self.memories) + len(self.entities) + len(self.suppressions)
        if total > MAX_WRITES_PER_CHANGE_SET:
            raise InvalidInputError(
                f"a change set holds at most {MAX_WRITES_PER_CHANGE_SET} writes; this one has {total} (split it)"
            )
        ids = [w.memory.id for w in self.memories]
        if len(ids) != len(set(ids)):
            raise InvalidInputError("a change set writes each memory at most once")
        entity_ids = [w.entity.id for w in self.entities]
        if len(entity_ids) != len(set(entity_ids)):
            raise InvalidInputError("a change set writes each entity at most once")
        size = len(self.model_dump_json().encode("utf-8"))
        if size > MAX_CHANGE_SET_BYTES:
            raise PayloadTooLargeError(
                f"change set {self.id} is {size} bytes as JSON; the limit is {MAX_CHANGE_SET_BYTES} (split it)"
            )
        return self

    @property
    def is_empty(self) -> bool:
        return not (self.memories or self.entities or self.suppressions)


class MemoryChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory_id: MemoryId
    action: Action
    from_revision: int | None
    to_revision: int
    status: Status
    summary: str
    evidence_added: int = 0
    applied: bool = True


class ChangeRecord(BaseModel):
    """``changes/{id}.json``: the settled account of one change set."""

    model_config = ConfigDict(frozen=True, extra="allow")

    type: str = "change_set"
    id: ChangeId
    family_id: FamilyId
    actor: str
    reason: str
    source: str | None
    created_at: UtcDatetime
    applied_at: UtcDatetime
    memories: list[MemoryChange]
    entities: list[EntityId]
    suppressions: list[RuleId]


def write_size(write: MemoryWrite | EntityWrite | Suppression) -> int:
    """Bytes a write adds to a change set's JSON (what the intent record holds)."""
    return len(write.model_dump_json().encode("utf-8")) + 1


def pack_writes(
    writes: Sequence[MemoryWrite], *, reserved_count: int = 0, reserved_bytes: int = 0
) -> list[list[MemoryWrite]]:
    """Split ``writes`` into groups that each fit one change set, in order.

    The first group leaves room for ``reserved_count`` other writes of
    ``reserved_bytes`` (a suppression rule, say) that the caller adds to it.
    A single write too large for any change set raises PayloadTooLargeError.
    """
    budget_bytes = MAX_CHANGE_SET_BYTES - CHANGE_SET_OVERHEAD
    groups: list[list[MemoryWrite]] = [[]]
    count, size = reserved_count, reserved_bytes
    for write in writes:
        cost = write_size(write)
        if cost > budget_bytes:
            raise PayloadTooLargeError(f"memory {write.memory.id} alone is {cost} bytes, over a change set's limit")
        if groups[-1] and (count + 1 > MAX_WRITES_PER_CHANGE_SET or size + cost > budget_bytes):
            groups.append([])
            count, size = 0, 0
        groups[-1].append(write)
        count, size = count + 1, size + cost
    return [group for group in groups if group] or []


def pack_with_rules(
    writes: Sequence[MemoryWrite], rules: Sequence[Suppression]
) -> list[tuple[list[MemoryWrite], list[Suppression]]]:
    """``writes`` and (at least one) ``rules`` as the change sets to apply, in order, each
    within the count and size limits: the first rule rides with the first writes, further
    rules follow in change sets of their own, then the rest of the writes."""
    first, *others = rules
    batches = pack_writes(writes, reserved_count=1, reserved_bytes=write_size(first)) or [[]]
    groups: list[tuple[list[MemoryWrite], list[Suppression]]] = [(batches[0], [first])]
    budget = MAX_CHANGE_SET_BYTES - CHANGE_SET_OVERHEAD
    pending: list[Suppression] = []
    size = 0
    for rule in others:
        cost = write_size(rule)
        if pending and (size + cost > budget or len(pending) >= MAX_WRITES_PER_CHANGE_SET):
            groups.append(([], pending))
            pending, size = [], 0
        pending.append(rule)
        size += cost
    if pending:
        groups.append(([], pending))
    return groups + [(batch, []) for batch in batches[1:]]
