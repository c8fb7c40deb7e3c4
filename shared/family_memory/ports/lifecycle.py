"""Ports of the lifecycle: the dream ledger and the dream queue.

The **dream ledger** remembers, per family, when it last dreamed and when its
next local midnight falls, so the hourly fan-out can pick the families that
are due without opening any of their files. It also keeps a pointer to the
family's most recent conversation (its ``candidates/{session}.json``), so a
compile reads one file instead of every session the family ever had. Both
are caches of facts the files hold: losing the ledger costs one extra dream
per family and one scan of ``candidates/``, nothing else.

The **dream queue** carries one message per family from the fan-out to the
dream worker (SQS in AWS, an in-process queue locally).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from family_memory.domain.clock import format_utc, parse_utc
from family_memory.domain.errors import FamilyMemoryError, InvalidInputError
from family_memory.domain.ids import check_family_id

#: Upper bound on one queue message body; a dream request is far smaller.
MAX_REQUEST_BYTES = 1024


@dataclass(frozen=True, slots=True)
class DreamState:
    """What the ledger knows about one family. Every field but the id may be unknown."""

    family_id: str
    time_zone: str | None = None
    last_dream_date: date | None = None
    next_dream_at: datetime | None = None
    last_session_id: str | None = None
    last_session_started_at: datetime | None = None


class DreamLedger(ABC):
    @abstractmethod
    def get(self, family_id: str) -> DreamState | None:
        """The family's state, or None when it never dreamed and no conversation was noted."""

    @abstractmethod
    def record_dream(self, family_id: str, *, time_zone: str, local_date: date, next_dream_at: datetime) -> None:
        """Note a finished dream for ``local_date``. Never moves a family backwards:
        a record for an earlier date than the stored one is ignored."""

    @abstractmethod
    def note_conversation(self, family_id: str, session_id: str, started_at: datetime) -> bool:
        """Point at ``session_id`` as the family's latest conversation if it started
        later than the one noted (ties broken by the larger session id). True when
        the pointer moved."""

    @abstractmethod
    def states(self) -> Iterator[DreamState]:
        """Every family the ledger knows, in family-id order."""


@dataclass(frozen=True, slots=True)
class DreamRequest:
    """One queue message: dream this family. ``due_at`` is the local midnight that made it due
    (None for a family that never dreamed); the worker dreams as of its own clock."""

    family_id: str
    due_at: datetime | None = None

    def to_body(self) -> str:
        body: dict[str, str] = {"family_id": self.family_id}
        if self.due_at is not None:
            body["due_at"] = format_utc(self.due_at)
        return json.dumps(body, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_body(cls, body: str) -> DreamRequest:
        """Parse a message body; InvalidInputError naming the field when it is malformed."""
        if len(body.encode("utf-8")) > MAX_REQUEST_BYTES:
            raise InvalidInputError(f"dream request is larger than {MAX_REQUEST_BYTES} bytes")
        try:
            data = json.loads(body)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"dream request is not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise InvalidInputError("dream request must be a JSON object with a family_id")
        unknown = set(data) - {"family_id", "due_at"}
        if unknown:
            raise InvalidInputError(f"dream request has unknown fields {sorted(unknown)}")
        if "family_id" not in data:
            raise InvalidInputError("dream request: family_id is missing")
        family_id = check_family_id(data["family_id"])
        due_at = data.get("due_at")
        if due_at is not None and not isinstance(due_at, str):
            raise InvalidInputError("dream request: due_at must be an ISO 8601 UTC timestamp string")
        return cls(family_id, parse_utc(due_at) if due_at else None)


class DreamQueue(ABC):
    @abstractmethod
    def send(self, requests: Sequence[DreamRequest]) -> int:
        """Enqueue every request (in batches where the transport has them); returns how
        many were accepted. Raises when some could not be sent after retries."""


class DreamQueueError(FamilyMemoryError):
    """Some dream requests could not be enqueued after retries."""
