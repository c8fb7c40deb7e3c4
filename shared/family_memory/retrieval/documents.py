"""The search document: a memory's front matter and text as the index holds it.

One document per memory, keyed by the memory id inside its family. It is a
pure function of the memory file and its evidence sidecar (plus the embedding
of ``embedding_text(memory)``, identified by ``text_hash``), so rebuilding the
index from the files gives the same documents: same ids, same fields, same
revisions.

The keyword half also reads the family's own words: ``quotes`` holds the
supporting quotes of the memory's evidence (``index_quotes``), so a message
that uses the family's phrasing ("the rec") finds the claim even where the
summary paraphrased it ("the recreation center"). The semantic half embeds
about, summary and when_to_use only (seed section 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from family_memory.domain.clock import UtcDatetime
from family_memory.domain.evidence import EvidenceRecord
from family_memory.domain.ids import EntityId, FamilyId, MemoryId
from family_memory.domain.memory import (
    Authority,
    Memory,
    MemoryType,
    Sensitivity,
    Status,
    Strength,
    embedding_text,
)
from family_memory.retrieval.embedding import Vector, content_hash

#: The fields that must match between the index and the files (everything but the vector).
COMPARED_FIELDS: tuple[str, ...] = (
    "family_id",
    "memory_id",
    "type",
    "about",
    "summary",
    "when_to_use",
    "body",
    "quotes",
    "applies_to",
    "strength",
    "authority",
    "sensitivity",
    "status",
    "valid_until",
    "formed_at",
    "revision",
    "embedding_model",
    "text_hash",
)


class IndexDocument(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    family_id: FamilyId
    memory_id: MemoryId
    type: MemoryType
    about: str
    summary: str
    when_to_use: str = ""
    body: str = ""
    quotes: list[str] = Field(default_factory=list)
    applies_to: list[EntityId] = Field(default_factory=list)
    strength: Strength
    authority: Authority
    sensitivity: Sensitivity
    status: Status
    valid_until: date | None = None
    formed_at: UtcDatetime
    revision: int = Field(ge=1)
    embedding_model: str
    text_hash: str
    embedding: Vector | None = Field(default=None, repr=False)

    def comparable(self) -> dict[str, object]:
        """The fields a rebuild must reproduce exactly."""
        data = self.model_dump(mode="json")
        return {name: data[name] for name in COMPARED_FIELDS}

    def without_embedding(self) -> IndexDocument:
        return self.model_copy(update={"embedding": None})


#: The document's fields that are the memory's own, by the same name (type, about ... revision).
_MEMORY_FIELDS = tuple(name for name in IndexDocument.model_fields if name in Memory.model_fields)

#: Quotes a document carries at most, and characters of each and of all of them.
MAX_QUOTES = 20
MAX_QUOTE_CHARS = 300
MAX_QUOTES_CHARS = 3000


def index_quotes(records: Sequence[EvidenceRecord]) -> list[str]:
    """The supporting quotes of an evidence ledger, oldest first, each once, bounded
    (a contradiction or conflict recorded on the memory is not its words)."""
    quotes: list[str] = []
    total = 0
    for record in records:
        stance = (record.model_extra or {}).get("stance", "supports")
        quote = record.quote[:MAX_QUOTE_CHARS]
        if stance != "supports" or quote in quotes:
            continue
        if len(quotes) >= MAX_QUOTES or total + len(quote) > MAX_QUOTES_CHARS:
            break
        quotes.append(quote)
        total += len(quote)
    return quotes


def document_from_memory(
    family_id: str, memory: Memory, model_id: str, vector: Vector | None, quotes: Sequence[str] = ()
) -> IndexDocument:
    return IndexDocument(
        family_id=family_id,
        memory_id=memory.id,
        quotes=list(quotes),
        embedding_model=model_id,
        text_hash=content_hash(model_id, embedding_text(memory)),
        embedding=vector,
        **{name: getattr(memory, name) for name in _MEMORY_FIELDS},
    )
