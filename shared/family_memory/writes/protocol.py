"""The write protocol: how a change set reaches the files and the projections.

For one family, under its lease:

1. **Intent.** The whole change set is recorded in the catalog's ledger
   (fenced by the lease) before any file is touched.
2. **Commit.** Each memory file is written conditionally on the revision the
   change set was decided against, then its evidence sidecar (appending only
   records it does not hold); entity files and suppression rules likewise.
3. **Project.** Catalog rows are written from what the files now hold.
4. **Record.** ``changes/{id}.json`` says what changed, why and by whom.
5. **Settle.** The intent leaves the ledger and the change id is marked applied.

Every step is idempotent, so a change set interrupted anywhere is completed by
the next writer of the family (``recover`` runs whenever a lease is taken)
without a second logical memory. Applying a settled change set again changes
nothing. A file found at neither the expected nor the target revision is a
conflict: that write is skipped and reported, and the catalog still mirrors
the file as it is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta

from family_memory.domain.changes import Action, ChangeRecord, ChangeSet, EntityWrite, MemoryChange, MemoryWrite
from family_memory.domain.clock import Clock
from family_memory.domain.entity import Entity
from family_memory.domain.errors import (
    AlreadyExistsError,
    InvalidInputError,
    LeaseHeldError,
    StaleRevisionError,
)
from family_memory.domain.evidence import EvidenceRecord, merge_evidence, parse_ledger, serialise_ledger
from family_memory.domain.layout import change_path, entity_path, evidence_path, memory_path, suppression_path
from family_memory.domain.memory import Memory
from family_memory.domain.okf import parse_entity, parse_memory, serialise_entity, serialise_json, serialise_memory
from family_memory.ports.catalog import Catalog, CatalogRow, Lease
from family_memory.ports.store import Document, Store

log = logging.getLogger(__name__)

DEFAULT_LEASE_TTL = timedelta(seconds=30)
DEFAULT_LEASE_WAIT = timedelta(seconds=60)

#: Called with each settled ChangeRecord (the brief patcher hooks in here).
SettledListener = Callable[[ChangeRecord], None]


def default_holder() -> str:
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class ApplyResult:
    change_id: str
    applied: bool
    already_applied: bool = False
    record: ChangeRecord | None = None
    conflicts: list[str] = field(default_factory=list)


class FamilyWriter:
    """Opens write sessions on one family at a time: lease, recovery, writes, release."""

    def __init__(
        self,
        store: Store,
        catalog: Catalog,
        clock: Clock,
        *,
        holder: str | None = None,
        lease_ttl: timedelta = DEFAULT_LEASE_TTL,
        lease_wait: timedelta = DEFAULT_LEASE_WAIT,
        listeners: list[SettledListener] | None = None,
    ) -> None:
        self.store = store
        self.catalog = catalog
        self.clock = clock
        self.holder = holder or default_holder()
        self.lease_ttl = lease_ttl
        self.lease_wait = lease_wait
        self.listeners: list[SettledListener] = list(listeners or [])

    def _acquire(self, family_id: str) -> Lease:
        deadline = time.monotonic() + self.lease_wait.total_seconds()
        delay = 0.005
        while True:
            try:
                return self.catalog.acquire_lease(family_id, self.holder, self.lease_ttl)
            except LeaseHeldError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(delay * random.uniform(0.5, 1.5))  # jitter: waiters do not retry in lockstep
                delay = min(delay * 2, 0.25)

    @contextlib.contextmanager
    def open(self, family_id: str) -> Iterator[WriteSession]:
        """A session holding the family's lease. Pending intents left by a crashed
        writer are completed before the session is handed out."""
        lease = self._acquire(family_id)
        session = WriteSession(self, lease)
        try:
            session.recover()
            yield session
        finally:
            self.catalog.release_lease(session.lease)

    def apply(self, change_set: ChangeSet) -> ApplyResult:
        """Open a session, apply one change set, close."""
        with self.open(change_set.family_id) as session:
            return session.apply(change_set)


class WriteSession:
    def __init__(self, writer: FamilyWriter, lease: Lease) -> None:
        self._writer = writer
        self.lease = lease
        self.store = writer.store
        self.catalog = writer.catalog
        self.family_id = lease.family_id

    # --- reads under the lease ------------------------------------------------

    def read_memory(self, memory_id: str) -> tuple[Memory, str]:
        document = self.store.read(self.family_id, memory_path(memory_id))
        return parse_memory(document.data, memory_path(memory_id)), document.tag

    def read_evidence(self, memory_id: str) -> list[EvidenceRecord]:
        document = self.store.read_optional(self.family_id, evidence_path(memory_id))
        return parse_ledger(document.data, where=evidence_path(memory_id)) if document else []

    def read_entity(self, entity_id: str) -> Entity:
        document = self.store.read(self.family_id, entity_path(entity_id))
        return parse_entity(document.data, entity_path(entity_id))

    # --- the protocol ---------------------------------------------------------

    def keep_lease(self) -> None:
        """Renew the lease when less than half its time is left (long passes call this)."""
        remaining = self.lease.expires_at - self._writer.clock.now()
        if remaining < self._writer.lease_ttl / 2:
            self.lease = self.catalog.renew_lease(self.lease, self._writer.lease_ttl)

    def apply(self, change_set: ChangeSet) -> ApplyResult:
        if change_set.family_id != self.family_id:
            raise InvalidInputError(
                f"change set {change_set.id} is for family {change_set.family_id}, not {self.family_id}"
            )
        if change_set.is_empty:
            return ApplyResult(change_set.id, applied=False)
        self.keep_lease()
        if self.catalog.is_applied(self.family_id, change_set.id):
            return ApplyResult(change_set.id, applied=False, already_applied=True)
        read = self._check_revisions(change_set)
        self.catalog.record_intent(self.family_id, change_set.id, change_set.model_dump_json(), lease=self.lease)
        return self._complete(change_set, read)

    def recover(self) -> list[ApplyResult]:
        """Complete every intent a previous writer recorded and did not settle."""
        results = []
        for intent in self.catalog.pending_intents(self.family_id):
            change_set = ChangeSet.model_validate_json(intent.payload)
            log.warning(
                "completing interrupted change set", extra={"family_id": self.family_id, "change_id": intent.change_id}
            )
            results.append(self._complete(change_set))
        return results

    def _check_revisions(self, change_set: ChangeSet) -> dict[str, Document | None]:
        """Refuse, before anything is written, a change set decided against an old read.
        Returns what was read, so the commit step need not read it again."""
        read: dict[str, Document | None] = {}
        targets: list[tuple[str, str, int | None, Callable[[bytes, str], Memory | Entity]]] = [
            (f"memory {w.memory.id}", memory_path(w.memory.id), w.expected_revision, parse_memory)
            for w in change_set.memories
        ]
        targets += [
            (f"entity {w.entity.id}", entity_path(w.entity.id), w.expected_revision, parse_entity)
            for w in change_set.entities
        ]
        for what, path, expected, parse in targets:
            document = self.store.read_optional(self.family_id, path)
            current = None if document is None else parse(document.data, path).revision
            if current != expected:
                raise StaleRevisionError(f"{what} is at revision {current}, the change expected {expected}")
            read[path] = document
        return read

    def _commit_file(
        self,
        path: str,
        target: bytes,
        expected_revision: int | None,
        parse: Callable[[bytes, str], Memory | Entity],
        read: dict[str, Document | None],
    ) -> tuple[Document | None, bool]:
        """Write ``target`` at ``path`` if the file is at ``expected_revision``.
        Returns the file as it now is and whether it holds ``target``. ``read`` holds
        documents read moments ago under this lease (used once, then re-read)."""
        for _ in range(3):
            current = read.pop(path) if path in read else self.store.read_optional(self.family_id, path)
            if current is not None and current.data == target:
                return current, True
            try:
                if current is None:
                    if expected_revision is not None:
                        return None, False
                    return Document(target, self.store.create(self.family_id, path, target)), True
                if parse(current.data, path).revision != expected_revision:
                    return current, False
                return Document(
                    target, self.store.replace(self.family_id, path, target, expected_tag=current.tag)
                ), True
            except StaleRevisionError:
                continue  # someone wrote between our read and write: look again
        return self.store.read_optional(self.family_id, path), False

    def _write_memory(
        self, write: MemoryWrite, conflicts: list[str], read: dict[str, Document | None]
    ) -> tuple[MemoryChange, CatalogRow | None]:
        path = memory_path(write.memory.id)
        document, done = self._commit_file(
            path, serialise_memory(write.memory), write.expected_revision, parse_memory, read
        )
        added = 0
        if done and write.evidence:
            added = self._append_evidence(write.memory.id, write.evidence)
        if not done:
            conflicts.append(f"memory {write.memory.id} was not at revision {write.expected_revision}; write skipped")
        row = None
        if document is not None:
            row = CatalogRow.from_memory(parse_memory(document.data, path), document.tag)
        change = MemoryChange(
            memory_id=write.memory.id,
            action=write.action,
            from_revision=write.expected_revision,
            to_revision=write.memory.revision,
            status=write.memory.status,
            summary=write.memory.summary,
            evidence_added=added,
            applied=done,
        )
        return change, row

    def _append_evidence(self, memory_id: str, records: list[EvidenceRecord]) -> int:
        path = evidence_path(memory_id)
        for _ in range(3):
            current = self.store.read_optional(self.family_id, path)
            existing = parse_ledger(current.data, where=path) if current else []
            merged = merge_evidence(existing, records)
            added = len(merged) - len(existing)
            if added == 0:
                return 0
            try:
                if current is None:
                    self.store.create(self.family_id, path, serialise_ledger(merged))
                else:
                    self.store.replace(self.family_id, path, serialise_ledger(merged), expected_tag=current.tag)
                return added
            except StaleRevisionError:
                continue
        raise StaleRevisionError(f"the evidence ledger of memory {memory_id} keeps changing under this writer")

    def _write_entity(self, write: EntityWrite, conflicts: list[str], read: dict[str, Document | None]) -> None:
        path = entity_path(write.entity.id)
        _, done = self._commit_file(path, serialise_entity(write.entity), write.expected_revision, parse_entity, read)
        if not done:
            conflicts.append(f"entity {write.entity.id} was not at revision {write.expected_revision}; write skipped")

    def _complete(self, change_set: ChangeSet, read: dict[str, Document | None] | None = None) -> ApplyResult:
        read = {} if read is None else read
        conflicts: list[str] = []
        changes: list[MemoryChange] = []
        rows: list[CatalogRow] = []
        for write in change_set.memories:
            change, row = self._write_memory(write, conflicts, read)
            changes.append(change)
            if row is not None:
                rows.append(row)
        for entity_write in change_set.entities:
            self._write_entity(entity_write, conflicts, read)
        for rule in change_set.suppressions:
            with contextlib.suppress(AlreadyExistsError):
                self.store.create(self.family_id, suppression_path(rule.id), serialise_json(rule))
        if rows:
            self.catalog.put_rows(self.family_id, rows, lease=self.lease)
        record = ChangeRecord(
            id=change_set.id,
            family_id=self.family_id,
            actor=change_set.actor,
            reason=change_set.reason,
            source=change_set.source,
            created_at=change_set.created_at,
            applied_at=self._writer.clock.now(),
            memories=changes,
            entities=[w.entity.id for w in change_set.entities],
            suppressions=[rule.id for rule in change_set.suppressions],
        )
        with contextlib.suppress(AlreadyExistsError):
            self.store.create(self.family_id, change_path(change_set.id), serialise_json(record))
        outcome = "applied" if not conflicts else "applied-with-conflicts"
        self.catalog.settle(self.family_id, change_set.id, lease=self.lease, outcome=outcome)
        for listener in self._writer.listeners:
            listener(record)
        return ApplyResult(change_set.id, applied=True, record=record, conflicts=conflicts)


__all__ = ["Action", "ApplyResult", "FamilyWriter", "WriteSession"]
