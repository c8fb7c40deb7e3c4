"""The archive of a family's earlier memory files (``archive/`` in its folder).

A migration copies each file it reads to ``archive/sources/{key}/{name}.orig``
(``key``: the first 16 hex digits of the file's SHA-256) and records what it
read from it beside the copy, in ``reading.json`` (an ``ArchivedSource``: every
entry with its line, member and date, every line it could not read with the
reason, every line of structure it skipped, and the session each entry
became). Both are written with create-only writes and never changed; the
original file is only ever read. Every migrated entry is a session of its own,
``migration-{digest}``, whose evidence records carry ``source: migration`` and
the archived file and line.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from family_memory.domain.clock import UtcDatetime, format_utc
from family_memory.domain.errors import AlreadyExistsError, ConflictError
from family_memory.domain.layout import ARCHIVE_SOURCES, archive_source_dir
from family_memory.domain.okf import parse_json
from family_memory.formation.document import CandidatesDocument, ExtractorKind
from family_memory.formation.importers import Entry, SourceFormat, SourceReading
from family_memory.ports.store import Store

#: Session ids of migrated entries start with this.
SESSION_PREFIX = "migration-"
#: The ``source`` of every evidence record a migrated entry forms.
EVIDENCE_SOURCE = "migration"
LABELS = {
    SourceFormat.EXPLICIT: "the family's earlier explicit-memories file",
    SourceFormat.LIST: "a list of things to remember about the family",
    SourceFormat.MEM0: "a Mem0 get_all export",
}


class ArchivedSource(BaseModel):
    """``archive/sources/{key}/reading.json``: one archived file and what the migration read from it."""

    model_config = ConfigDict(frozen=True, extra="allow")

    type: Literal["migration_source"] = "migration_source"
    key: str
    format: SourceFormat
    original_name: str
    archive: str  # the archived copy, relative to the family folder
    sha256: str
    size: int
    archived_at: UtcDatetime
    as_of: UtcDatetime
    time_zone: str
    default_member: str | None = None
    reading: SourceReading
    sessions: list[str] = Field(default_factory=list)  # the session of each entry, in entry order

    @property
    def label(self) -> str:
        return f"{self.original_name} ({LABELS[self.format]})"


def source_key(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def archive_name(name: str) -> str:
    """The archived copy's file name: the original's, made path-safe, with ``.orig`` after it
    (so an archived ``.md`` is never read as an OKF concept, nor a ``.json`` as a document)."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    safe = _UNSAFE.sub("-", base).strip("-.")
    safe = re.sub(r"\.{2,}", ".", safe)[:80].strip("-.") or "source"
    if not re.match(r"[A-Za-z0-9_]", safe):
        safe = f"source-{safe}"
    return f"{safe}.orig"


def session_id_for(fmt: SourceFormat, entry: Entry) -> str:
    """``migration-{digest}``: the digest of the entry itself (format, member, time, words)."""
    content = json.dumps([fmt.value, entry.member_id, format_utc(entry.at), entry.text], ensure_ascii=False)
    return SESSION_PREFIX + hashlib.sha256(content.encode("utf-8")).hexdigest()[:24]


def is_migration_session(session_id: str) -> bool:
    return session_id.startswith(SESSION_PREFIX)


def is_migration_document(document: CandidatesDocument) -> bool:
    return (
        document.extractor.kind is ExtractorKind.SUPPLIED
        and document.extractor.name.startswith(SESSION_PREFIX)
        and is_migration_session(document.session_id)
    )


def read_archived(store: Store, family_id: str, key: str) -> ArchivedSource | None:
    path = archive_source_dir(key) + "reading.json"
    found = store.read_optional(family_id, path)
    return parse_json(ArchivedSource, found.data, path) if found else None


def archived_sources(store: Store, family_id: str) -> list[ArchivedSource]:
    """Every source archived for the family, in key order."""
    sources = []
    for path in store.list(family_id, ARCHIVE_SOURCES):
        if path.endswith("/reading.json") and path.count("/") == 3:
            key = path.split("/")[2]
            found = read_archived(store, family_id, key)
            if found is not None:
                sources.append(found)
    return sources


def create_once(store: Store, family_id: str, path: str, data: bytes) -> None:
    """A create-only write; the same bytes already there are fine, other bytes a ConflictError."""
    try:
        store.create(family_id, path, data)
    except AlreadyExistsError as exc:
        if store.read(family_id, path).data != data:
            raise ConflictError(
                f"{path} is already archived with other content; the archive is never rewritten"
            ) from exc
