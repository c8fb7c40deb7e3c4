"""The hand-off from extraction to reconciliation: one message per session.

A message names the family, the session and the content hash of its
candidates document; the reconciler reads the document itself (a message
stays small whatever the session held). Per-family ordering comes from the
queue (SQS FIFO with the family as the message group); the triple is the
idempotency key, so a redelivered or duplicated message changes nothing.
"""

from __future__ import annotations

import hashlib
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from family_memory.domain.errors import FamilyMemoryError
from family_memory.domain.ids import FamilyId, SessionId


class ReconcileRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    family_id: FamilyId
    session_id: SessionId
    content_hash: str = Field(pattern=r"^[0-9a-f]{64}$")

    @property
    def deduplication_id(self) -> str:
        """At most 128 characters, as SQS FIFO requires; equal for equal requests."""
        return hashlib.sha256(f"{self.family_id}|{self.session_id}|{self.content_hash}".encode()).hexdigest()


class ReconcileQueue(Protocol):
    def send(self, request: ReconcileRequest) -> None:
        """Queue ``request`` behind the family's earlier requests."""
        ...


class QueueUnavailableError(FamilyMemoryError):
    """The queue refused the request (the caller's run fails and is retried)."""
