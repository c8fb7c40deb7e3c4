"""The store port: a family's files, each read with its version tag.

Every call names the family; the adapter turns ``(family_id, path)`` into a
key or file path itself, after validating both, so no caller can reach
outside a family's folder. Creates are conditional on absence and replaces on
the tag that was read; a lost race raises StaleRevisionError (or its
AlreadyExistsError subclass), never a vendor exception.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

from family_memory.domain.errors import NotFoundError


@dataclass(frozen=True, slots=True)
class Document:
    data: bytes
    tag: str


def content_type_for(path: str) -> str:
    if path.endswith(".md"):
        return "text/markdown; charset=utf-8"
    if path.endswith(".jsonl"):
        return "application/x-ndjson"
    if path.endswith(".json"):
        return "application/json"
    return "application/octet-stream"


class Store(ABC):
    @abstractmethod
    def read(self, family_id: str, path: str) -> Document:
        """The document and its version tag; NotFoundError when absent."""

    @abstractmethod
    def read_if_changed(self, family_id: str, path: str, tag: str) -> Document | None:
        """None when the document still has ``tag`` (a conditional fetch); NotFoundError when absent."""

    @abstractmethod
    def create(self, family_id: str, path: str, data: bytes) -> str:
        """Write a new document; AlreadyExistsError if one is there. Returns the new tag."""

    @abstractmethod
    def replace(self, family_id: str, path: str, data: bytes, *, expected_tag: str) -> str:
        """Overwrite the document only if it still has ``expected_tag``; StaleRevisionError otherwise."""

    @abstractmethod
    def put(self, family_id: str, path: str, data: bytes) -> str:
        """Unconditional write, for derived files only (brief.json, index.md, log.md)."""

    @abstractmethod
    def list(self, family_id: str, prefix: str = "") -> Iterator[str]:
        """Relative paths under ``prefix``, in lexicographic order."""

    @abstractmethod
    def families(self) -> Iterator[str]:
        """Every family id that has a folder, in lexicographic order."""

    def read_optional(self, family_id: str, path: str) -> Document | None:
        try:
            return self.read(family_id, path)
        except NotFoundError:
            return None

    def exists(self, family_id: str, path: str) -> bool:
        return self.read_optional(family_id, path) is not None
