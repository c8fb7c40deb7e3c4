"""Where things live inside a family's folder (``families/{family_id}/...``), and which
writes start which service (the event table, ``OBJECT_EVENTS``).

Stores take these relative paths; they add the family prefix themselves.
``check_relpath`` is the last gate before a path becomes a key or a file name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import (
    check_change_id,
    check_entity_id,
    check_family_id,
    check_memory_id,
    check_rule_id,
    check_session_id,
)

FAMILIES_PREFIX = "families/"
FAMILY_SETTINGS = "family.json"
BRIEF = "brief.json"
INDEX = "index.md"
LOG = "log.md"
MEMORIES = "memories/"
ENTITIES = "entities/"
SESSIONS = "sessions/"
CANDIDATES = "candidates/"
SUPPRESSIONS = "suppressions/"
CHANGES = "changes/"
#: Copies of a family's earlier files, made by the migration: create-only, never edited or deleted.
ARCHIVE = "archive/"
ARCHIVE_SOURCES = "archive/sources/"
#: What a migration made of each entry of the archived files (derived; rewritten when it changes).
MIGRATION_REPORT = "archive/migration-report.md"
#: The migration's progress (which entries are done), like replay's ledger.
MIGRATION_LEDGER = "migration/ledger.json"

_SEGMENT = r"[A-Za-z0-9_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*"
_RELPATH = re.compile(rf"{_SEGMENT}(?:/{_SEGMENT}){{0,3}}/?")
MEMORY_SUFFIX = ".md"
EVIDENCE_SUFFIX = ".evidence.jsonl"


def check_relpath(path: object) -> str:
    """A path inside a family folder: at most four plain segments, no '..', no
    leading '/', no empty segment, no NUL. A trailing '/' marks a prefix."""
    if not isinstance(path, str) or not path or len(path) > 200 or not _RELPATH.fullmatch(path):
        raise InvalidInputError(f"{str(path)[:80]!r} is not a valid path inside a family folder")
    return path


def memory_path(memory_id: str) -> str:
    return f"{MEMORIES}{check_memory_id(memory_id)}{MEMORY_SUFFIX}"


def evidence_path(memory_id: str) -> str:
    return f"{MEMORIES}{check_memory_id(memory_id)}{EVIDENCE_SUFFIX}"


def entity_path(entity_id: str) -> str:
    return f"{ENTITIES}{check_entity_id(entity_id)}.md"


def session_path(session_id: str) -> str:
    return f"{SESSIONS}{check_session_id(session_id)}.json"


def candidates_path(session_id: str) -> str:
    return f"{CANDIDATES}{check_session_id(session_id)}.json"


def suppression_path(rule_id: str) -> str:
    return f"{SUPPRESSIONS}{check_rule_id(rule_id)}.json"


def change_path(change_id: str) -> str:
    return f"{CHANGES}{check_change_id(change_id)}.json"


def archive_source_dir(source_key: str) -> str:
    """``archive/sources/{key}/``: where one archived file and what the migration read from it live."""
    if not re.fullmatch(r"[0-9a-f]{16}", source_key):
        raise InvalidInputError(f"{source_key[:40]!r} is not an archive source key (16 hex digits)")
    return f"{ARCHIVE_SOURCES}{source_key}/"


def memory_id_from_path(path: str) -> str | None:
    """The memory id of a ``memories/{id}.md`` path, or None for anything else (sidecars included)."""
    if not path.startswith(MEMORIES) or not path.endswith(MEMORY_SUFFIX) or path.endswith(EVIDENCE_SUFFIX):
        return None
    candidate = path[len(MEMORIES) : -len(MEMORY_SUFFIX)]
    try:
        return check_memory_id(candidate)
    except InvalidInputError:
        return None


def indexed_memory_id(path: str) -> str | None:
    """The memory whose search document a write of ``path`` changes: ``memories/{id}.md``
    and its evidence sidecar ``memories/{id}.evidence.jsonl`` (the quotes it indexes)."""
    if path.startswith(MEMORIES) and path.endswith(EVIDENCE_SUFFIX):
        try:
            return check_memory_id(path[len(MEMORIES) : -len(EVIDENCE_SUFFIX)])
        except InvalidInputError:
            return None
    return memory_id_from_path(path)


def split_key(key: str) -> tuple[str, str]:
    """``families/{family_id}/{path}`` (an S3 object key) to a validated (family_id, path)."""
    if not key.startswith(FAMILIES_PREFIX):
        raise InvalidInputError(f"object key {key[:80]!r} is not under {FAMILIES_PREFIX}")
    family_id, _, path = key[len(FAMILIES_PREFIX) :].partition("/")
    return check_family_id(family_id), check_relpath(path)


# --- the event table: which writes start which service --------------------------------------


class Service(StrEnum):
    """What an event starts (each is one Lambda function on AWS, one bus subscriber locally)."""

    EXTRACT = "extract"  # a stored session: extract candidates, queue the reconciliation
    COMPILE = "compile"  # an applied change set, a session's candidates: dream that family
    INDEX = "index"  # a memory file or its evidence sidecar: re-read it into the search index
    FAN_OUT = "fan-out"  # the hourly schedule: queue every family whose local midnight passed


@dataclass(frozen=True)
class ObjectEvent:
    """An S3 "Object Created" event for ``families/{family}/{folder}{name}{suffix}`` starts ``service``."""

    folder: str
    suffix: str
    service: Service

    @property
    def wildcard(self) -> str:
        """The key as an EventBridge ``wildcard`` pattern (template.yaml's rules say exactly this)."""
        return f"{FAMILIES_PREFIX}*/{self.folder}*{self.suffix}"

    @property
    def pattern(self) -> str:
        """The same keys as a regular expression on the full key (a family id has no '/')."""
        return f"{re.escape(FAMILIES_PREFIX)}[^/]+/{re.escape(self.folder)}[^/]+{re.escape(self.suffix)}"


#: Every write that starts a service, written once: the local in-process bus subscribes by it,
#: the Lambda handlers check their keys against it, and a test holds template.yaml's
#: EventBridge rules to it. Memories: the file and its evidence sidecar (the quotes indexed).
OBJECT_EVENTS: tuple[ObjectEvent, ...] = (
    ObjectEvent(SESSIONS, ".json", Service.EXTRACT),
    ObjectEvent(CHANGES, ".json", Service.COMPILE),
    ObjectEvent(CANDIDATES, ".json", Service.COMPILE),
    ObjectEvent(MEMORIES, "", Service.INDEX),
)
#: What the hourly schedule (EventBridge Scheduler on AWS, ``dream --due`` locally) starts.
SCHEDULED: Service = Service.FAN_OUT


def events_of(service: Service) -> tuple[ObjectEvent, ...]:
    return tuple(e for e in OBJECT_EVENTS if e.service is service)


def key_pattern(service: Service) -> str:
    """A regular expression on the full object key: the keys whose creation starts ``service``."""
    return "|".join(f"(?:{e.pattern})" for e in events_of(service))


def starts(service: Service, key: str) -> bool:
    """Whether creating the object ``key`` starts ``service``."""
    return any(re.fullmatch(e.pattern, key) for e in events_of(service))
