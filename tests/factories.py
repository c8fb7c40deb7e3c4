"""Builders for test data (memories, change sets) with sensible defaults."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from family_memory.domain.changes import Action, ChangeSet, MemoryWrite
from family_memory.domain.evidence import EvidenceRecord
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import Authority, Memory, MemoryType

FAMILY = "fam-rivera"
OTHER_FAMILY = "fam-okafor"
FORMED = datetime(2026, 11, 1, 18, 30, tzinfo=UTC)


def memory(**overrides: Any) -> Memory:
    values: dict[str, Any] = {
        "id": new_ulid(),
        "type": MemoryType.PREFERENCE,
        "about": "Pizza night",
        "summary": "The family has pizza on Friday nights.",
        "when_to_use": "Planning Friday dinners",
        "authority": Authority.USER_EXPLICIT,
        "confidence": 0.9,
        "formed_at": FORMED,
        "last_reinforced_at": FORMED,
        "body": "Friday is pizza night at home.",
    }
    values.update(overrides)
    return Memory.model_validate(values)


def evidence(quote: str = "Friday is pizza night", session: str = "sess-1", turns: str = "3") -> EvidenceRecord:
    return EvidenceRecord.model_validate(
        {"ref": f"conv://{FAMILY}/{session}#turn={turns}", "quote": quote, "recordedAt": "2026-11-01T18:30:00Z"}
    )


def change_set(*writes: MemoryWrite, family_id: str = FAMILY, change_id: str | None = None, **kw: Any) -> ChangeSet:
    return ChangeSet(
        id=change_id or new_ulid(),
        family_id=family_id,
        actor=kw.pop("actor", "process:test"),
        reason=kw.pop("reason", "test"),
        created_at=kw.pop("created_at", FORMED),
        memories=list(writes),
        **kw,
    )


def add(m: Memory, *records: EvidenceRecord) -> MemoryWrite:
    return MemoryWrite(action=Action.ADD, memory=m, expected_revision=None, evidence=list(records))


def update(m: Memory, action: Action = Action.UPDATE, *records: EvidenceRecord, **changes: Any) -> MemoryWrite:
    return MemoryWrite(
        action=action,
        memory=m.evolve(revision=m.revision + 1, **changes),
        expected_revision=m.revision,
        evidence=list(records),
    )
