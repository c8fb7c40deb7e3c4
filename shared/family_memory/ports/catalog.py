"""The catalog port: one row per memory, the family's lease, and the change ledger.

The catalog is a projection of the files, rebuildable from them. It answers
what the card, the lifecycle and retrieval need without opening files:
newest-first listing with cursor pagination, filtering by status, and a
strongly consistent batch get so retrieval can confirm a hit is current.

The lease serialises a family's writers. Its fencing token rises on every
acquire; every catalog write names the lease it was made under and is
refused (LeaseLostError) once another writer has taken the lease over.
"""

from __future__ import annotations

import base64
import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from family_memory.domain.clock import UtcDatetime, format_utc
from family_memory.domain.errors import InvalidInputError, LeaseLostError
from family_memory.domain.ids import EntityId, MemoryId, check_family_id
from family_memory.domain.memory import Authority, Durability, Memory, MemoryType, Sensitivity, Status, Strength

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200


class CatalogRow(BaseModel):
    """A memory's front matter (no body, no unknown keys) and the version tag of its file."""

    model_config = ConfigDict(frozen=True)

    id: MemoryId
    type: MemoryType
    about: str
    summary: str
    when_to_use: str = ""
    applies_to: list[EntityId] = Field(default_factory=list)
    strength: Strength
    pin: bool
    authority: Authority
    confidence: float
    durability: Durability
    formed_at: UtcDatetime
    last_reinforced_at: UtcDatetime
    reinforcement_count: int
    valid_until: date | None
    status: Status
    supersedes: MemoryId | None
    superseded_by: MemoryId | None
    sensitivity: Sensitivity
    revision: int
    tag: str

    @classmethod
    def from_memory(cls, memory: Memory, tag: str) -> CatalogRow:
        fields = {name: getattr(memory, name) for name in cls.model_fields if name != "tag"}
        return cls(tag=tag, **fields)

    @property
    def sort_key(self) -> str:
        """Newest-first order is descending on this key."""
        return f"{format_utc(self.formed_at)}#{self.id}"


@dataclass(frozen=True, slots=True)
class Page:
    rows: list[CatalogRow]
    cursor: str | None


@dataclass(frozen=True, slots=True)
class Lease:
    family_id: str
    holder: str
    token: int
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class PendingIntent:
    change_id: str
    payload: str


class Catalog(ABC):
    # --- lease --------------------------------------------------------------
    @abstractmethod
    def acquire_lease(self, family_id: str, holder: str, ttl: timedelta) -> Lease:
        """Take the lease if it is free or expired, with a token one higher than
        the last; LeaseHeldError (with holder and expiry) otherwise."""

    @abstractmethod
    def renew_lease(self, lease: Lease, ttl: timedelta) -> Lease:
        """Extend a lease still held under the same token; LeaseLostError otherwise."""

    @abstractmethod
    def release_lease(self, lease: Lease) -> bool:
        """Free the lease if still held; False when it had already been taken over."""

    # --- rows ---------------------------------------------------------------
    @abstractmethod
    def put_rows(self, family_id: str, rows: Sequence[CatalogRow], *, lease: Lease, force: bool = False) -> None:
        """Upsert rows under ``lease`` (LeaseLostError if taken over). A row older
        than the stored one (lower revision) is a StaleRevisionError unless ``force``
        (a rebuild from the files, which are the truth)."""

    @abstractmethod
    def delete_rows(self, family_id: str, memory_ids: Iterable[str], *, lease: Lease) -> None:
        """Remove rows whose files do not exist (used by a rebuild only)."""

    @abstractmethod
    def get_rows(self, family_id: str, memory_ids: Iterable[str]) -> dict[str, CatalogRow]:
        """Strongly consistent rows for the ids that exist."""

    def list_rows(
        self,
        family_id: str,
        *,
        status: Status | None = None,
        limit: int = DEFAULT_PAGE_SIZE,
        cursor: str | None = None,
    ) -> Page:
        """Newest first (formed_at, then id, descending). ``cursor`` continues a previous page.

        A cursor names the family and the status filter it was issued for (one of another
        listing is an InvalidInputError) and carries the adapter's own position in it."""
        check_family_id(family_id)
        check_page_size(limit)
        status_key = status.value if status else ""
        after: dict[str, str] | None = None
        if cursor is not None:
            after = decode_cursor(cursor)
            if after.pop("f", None) != family_id or after.pop("s", "") != status_key:
                raise InvalidInputError("the page cursor belongs to a different listing")
        rows, position = self._page(family_id, status, limit, after)
        next_cursor = None if position is None else encode_cursor({"f": family_id, "s": status_key, **position})
        return Page(rows, next_cursor)

    @abstractmethod
    def _page(
        self, family_id: str, status: Status | None, limit: int, after: dict[str, str] | None
    ) -> tuple[list[CatalogRow], dict[str, str] | None]:
        """Up to ``limit`` rows newest first, after the position ``after`` (what an earlier
        page returned, from a cursor: InvalidInputError when it is not one); and the position
        to continue from, None when no row is left."""

    @abstractmethod
    def all_rows(self, family_id: str) -> Iterator[CatalogRow]:
        """Every row of the family, in id order."""

    # --- change ledger ------------------------------------------------------
    @abstractmethod
    def record_intent(self, family_id: str, change_id: str, payload: str, *, lease: Lease) -> None:
        """Record a change set before any of its files are written (idempotent)."""

    @abstractmethod
    def pending_intents(self, family_id: str) -> list[PendingIntent]:
        """Intents recorded and not yet settled, oldest change id first."""

    @abstractmethod
    def settle(self, family_id: str, change_id: str, *, lease: Lease, outcome: str = "applied") -> None:
        """Drop the intent and enter the change id in the applied ledger."""

    @abstractmethod
    def is_applied(self, family_id: str, change_id: str) -> bool:
        """Whether the change id is in the applied ledger."""


def check_lease_family(lease: Lease, family_id: str) -> str:
    """``family_id``, validated, when ``lease`` is that family's; LeaseLostError otherwise.
    A lease fences its own family's writes only: the token is per family, so a lease
    of another family (even one with the same holder and token) proves nothing."""
    if lease.family_id != check_family_id(family_id):
        raise LeaseLostError(f"the lease is for family {lease.family_id}, not {family_id}")
    return family_id


def check_page_size(limit: int) -> int:
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise InvalidInputError(f"page size must be between 1 and {MAX_PAGE_SIZE}, got {limit}")
    return limit


def encode_cursor(data: dict[str, str]) -> str:
    """An opaque page cursor (the adapters check it belongs to the same listing)."""
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> dict[str, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInputError("the page cursor is not one this service issued") from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise InvalidInputError("the page cursor is not one this service issued")
    return data
