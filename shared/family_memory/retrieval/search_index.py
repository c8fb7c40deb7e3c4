"""The index port: a family's memories, searchable by meaning and by words.

Every call names the family, and the adapter applies the family filter itself
on every read and write: no caller can search, read or change another
family's documents, whatever filter it passes. Documents are keyed by memory
id; an upsert never replaces a document with an older revision unless forced
(a rebuild from the files, which are the truth).

Scores: ``semantic`` returns cosine similarity (-1..1, higher is closer);
``keyword`` returns the engine's relevance (higher is better, only comparable
within one result list).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date

from family_memory.domain.errors import SEARCH_UNAVAILABLE, FamilyMemoryError, InvalidInputError
from family_memory.domain.memory import MemoryType, Sensitivity, Status
from family_memory.retrieval.documents import IndexDocument
from family_memory.retrieval.embedding import Vector

#: Most hits one search may ask for.
MAX_K = 200


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Which documents are eligible. ``None`` means no restriction on that field.

    ``valid_on``: only documents with no ``valid_until`` or one after that date
    (a fact valid until the 17th is gone when the 17th begins).
    ``applies_to``: documents that apply to at least one of these entities.
    """

    statuses: frozenset[Status] | None = frozenset({Status.ACTIVE})
    valid_on: date | None = None
    types: frozenset[MemoryType] | None = None
    applies_to: frozenset[str] | None = None
    sensitivities: frozenset[Sensitivity] | None = None

    @classmethod
    def current(cls, on: date, **kw: object) -> SearchFilter:
        """Active memories still valid on the family's local date ``on``."""
        return cls(statuses=frozenset({Status.ACTIVE}), valid_on=on, **kw)  # type: ignore[arg-type]

    @classmethod
    def any_status(cls) -> SearchFilter:
        return cls(statuses=None)

    def admits(self, document: IndexDocument) -> bool:
        """The same rule as a pure function (the adapters' behaviour is tested against it)."""
        if self.statuses is not None and document.status not in self.statuses:
            return False
        if self.valid_on is not None and document.valid_until is not None and document.valid_until <= self.valid_on:
            return False
        if self.types is not None and document.type not in self.types:
            return False
        if self.sensitivities is not None and document.sensitivity not in self.sensitivities:
            return False
        return not (self.applies_to is not None and not self.applies_to.intersection(document.applies_to))


@dataclass(frozen=True, slots=True)
class Hit:
    memory_id: str
    score: float
    revision: int


class MemoryIndex(ABC):
    dimension: int
    #: True when a search is work in this process (the embedded index), not a request to a service:
    #: a lookup then runs its two searches one after the other instead of on two threads.
    in_process: bool = False

    @abstractmethod
    def upsert(self, family_id: str, documents: Sequence[IndexDocument], *, force: bool = False) -> None:
        """Insert or replace documents (each must carry an embedding of ``dimension``
        floats and belong to ``family_id``). A document older than the stored one
        is skipped unless ``force``."""

    @abstractmethod
    def delete(self, family_id: str, memory_ids: Iterable[str]) -> None:
        """Remove documents (absent ids are ignored)."""

    @abstractmethod
    def get(self, family_id: str, memory_ids: Iterable[str]) -> dict[str, IndexDocument]:
        """The documents that exist, without embeddings."""

    @abstractmethod
    def documents(self, family_id: str) -> Iterator[IndexDocument]:
        """Every document of the family, without embeddings, in memory-id order."""

    @abstractmethod
    def semantic(self, family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> list[Hit]:
        """The ``k`` eligible documents closest to ``vector``, best first."""

    @abstractmethod
    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        """The ``k`` eligible documents best matching the words of ``text``,
        tolerating small misspellings, best first."""

    def revisions(self, family_id: str) -> dict[str, int]:
        return {doc.memory_id: doc.revision for doc in self.documents(family_id)}

    def duplicates(self, family_id: str) -> dict[str, int]:
        """Memories held by more than one document, with how many. An index keyed by memory id
        has none; one whose engine chooses the ids may hold a stale copy for a while, which
        reads hide (they keep the highest revision) and the memory's next upsert removes."""
        return {}


class WrappedIndex(MemoryIndex):
    """An index over another: every method is ``index``'s own until a subclass says
    otherwise (its searches, usually)."""

    def __init__(self, index: MemoryIndex) -> None:
        self.index = index
        self.dimension = index.dimension

    def upsert(self, family_id: str, documents: Sequence[IndexDocument], *, force: bool = False) -> None:
        self.index.upsert(family_id, documents, force=force)

    def delete(self, family_id: str, memory_ids: Iterable[str]) -> None:
        self.index.delete(family_id, memory_ids)

    def get(self, family_id: str, memory_ids: Iterable[str]) -> dict[str, IndexDocument]:
        return self.index.get(family_id, memory_ids)

    def documents(self, family_id: str) -> Iterator[IndexDocument]:
        return self.index.documents(family_id)

    def semantic(self, family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> list[Hit]:
        return self.index.semantic(family_id, vector, search_filter, k)

    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        return self.index.keyword(family_id, text, search_filter, k)

    def revisions(self, family_id: str) -> dict[str, int]:
        return self.index.revisions(family_id)

    def duplicates(self, family_id: str) -> dict[str, int]:
        return self.index.duplicates(family_id)


class IndexUnavailableError(FamilyMemoryError):
    """The search engine could not be reached or refused a request it should accept."""

    public = SEARCH_UNAVAILABLE


class IndexMismatchError(IndexUnavailableError):
    """The index holds vectors of another embedder (model, dimension or space type): its
    semantic half is unusable until ``rebuild-index`` re-embeds the family's memories."""


def check_k(k: int) -> int:
    if not 1 <= k <= MAX_K:
        raise InvalidInputError(f"k must be between 1 and {MAX_K}, got {k}")
    return k


def check_documents(family_id: str, documents: Sequence[IndexDocument], dimension: int) -> None:
    """Refuse documents of another family or without a vector of the index's dimension."""
    for document in documents:
        if document.family_id != family_id:
            raise InvalidInputError(
                f"document {document.memory_id} belongs to family {document.family_id}, not {family_id}"
            )
        if document.embedding is None or len(document.embedding) != dimension:
            raise InvalidInputError(f"document {document.memory_id} needs an embedding of {dimension} floats")
