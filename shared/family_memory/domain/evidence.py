"""The evidence ledger beside each memory: one JSON record a line.

``{"ref":"conv://{family}/{session}#turn=12-14","quote":"...","recordedAt":"..."}``
as in the product post. Records are compared by ``(ref, quote)`` so appending
the same evidence twice (a replayed session) adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from family_memory.domain.clock import UtcDatetime, format_utc
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.refs import ConvRef, MemoryRef
from family_memory.domain.text import QUOTE_MAX, check_body


class EvidenceRecord(BaseModel):
    """One supporting quote. ``ref`` is a ``conv://`` reference (words a family
    member said) or a ``memory://`` reference (a memory it was derived from, or
    the card, where the family typed it)."""

    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=True)

    ref: str
    quote: str = Field(min_length=1)
    recorded_at: UtcDatetime = Field(alias="recordedAt")

    @field_validator("ref")
    @classmethod
    def _strict_ref(cls, value: str) -> str:
        if value.startswith("memory://"):
            MemoryRef.parse(value)
        else:
            ConvRef.parse(value)
        return value

    @field_validator("quote")
    @classmethod
    def _quote_text(cls, value: str) -> str:
        return check_body(value, "quote", QUOTE_MAX)

    @property
    def key(self) -> tuple[str, str]:
        return (self.ref, self.quote)

    def to_line(self) -> str:
        record: dict[str, Any] = {"ref": self.ref, "quote": self.quote, "recordedAt": format_utc(self.recorded_at)}
        record.update(sorted((self.__pydantic_extra__ or {}).items()))
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def serialise_ledger(records: Iterable[EvidenceRecord]) -> bytes:
    return "".join(record.to_line() + "\n" for record in records).encode("utf-8")


def parse_ledger(data: bytes, *, where: str = "evidence ledger") -> list[EvidenceRecord]:
    records: list[EvidenceRecord] = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(EvidenceRecord.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as exc:
            raise InvalidInputError(f"{where} line {number} is not a valid evidence record: {exc}") from exc
    return records


def merge_evidence(existing: list[EvidenceRecord], new: Iterable[EvidenceRecord]) -> list[EvidenceRecord]:
    """``existing`` followed by the records of ``new`` it does not already hold."""
    seen = {record.key for record in existing}
    merged = list(existing)
    for record in new:
        if record.key not in seen:
            seen.add(record.key)
            merged.append(record)
    return merged
