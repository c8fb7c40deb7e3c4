"""The indexer: keeps the search index a projection of the memory files.

Each ``memories/{id}.md`` event only says *which* memory to look at: the
indexer re-reads the current file every time and writes what the file holds
now. Duplicate and out-of-order events therefore converge on the file's state,
and an older revision never replaces a newer one in the index. A missing file
removes its document. ``rebuild`` makes a family's documents equal to the
files and ends with an equivalence report (same ids, same fields, same
revisions).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from family_memory.domain.errors import InvalidInputError, NotFoundError
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.layout import (
    MEMORIES,
    evidence_path,
    indexed_memory_id,
    memory_id_from_path,
    memory_path,
    split_key,
)
from family_memory.domain.memory import Memory, embedding_text
from family_memory.domain.okf import parse_memory
from family_memory.ports.store import Store
from family_memory.retrieval.documents import IndexDocument, document_from_memory, index_quotes
from family_memory.retrieval.embedding import CachedEmbeddings
from family_memory.retrieval.search_index import MemoryIndex

log = logging.getLogger(__name__)
Progress = Callable[[str], None]
REBUILD_BATCH = 64


class IndexOutcome(StrEnum):
    INDEXED = "indexed"
    REMOVED = "removed"
    UNREADABLE = "unreadable"
    IGNORED = "ignored"


@dataclass
class IndexReport:
    """Files against index documents for one family."""

    family_id: str
    files: int = 0
    documents: int = 0
    embeddings_computed: int = 0
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    different: dict[str, list[str]] = field(default_factory=dict)
    #: Memories the index holds in more than one document, with how many (a rebuild keeps one).
    duplicated: dict[str, int] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)

    @property
    def consistent(self) -> bool:
        return not (self.missing or self.extra or self.different or self.duplicated or self.unreadable)

    def lines(self) -> list[str]:
        out = [f"family {self.family_id}: {self.files} memory files, {self.documents} index documents"]
        out += [f"  missing document  {i}" for i in self.missing]
        out += [f"  extra document    {i} (no file)" for i in self.extra]
        out += [f"  differs           {i}: {', '.join(names)}" for i, names in sorted(self.different.items())]
        out += [f"  duplicated        {i}: {n} documents" for i, n in sorted(self.duplicated.items())]
        out += [f"  unreadable        {p}: {why}" for p, why in sorted(self.unreadable.items())]
        if self.consistent:
            out.append("  equivalent: the index holds the same ids, fields and revisions as the files")
        return out


class Indexer:
    def __init__(self, store: Store, index: MemoryIndex, embeddings: CachedEmbeddings) -> None:
        self.store = store
        self.index = index
        self.embeddings = embeddings

    @property
    def model_id(self) -> str:
        return self.embeddings.embedder.model_id

    # --- one memory -----------------------------------------------------------------

    def index_memory(self, family_id: str, memory_id: str) -> IndexOutcome:
        """Make the memory's document match its file as it is now."""
        path = memory_path(memory_id)
        try:
            document = self.store.read(family_id, path)
        except NotFoundError:
            self.index.delete(family_id, [memory_id])
            return IndexOutcome.REMOVED
        try:
            memory = parse_memory(document.data, path)
        except InvalidInputError as exc:
            # A malformed file cannot be fixed by retrying; the bundle check reports it.
            log.error("memory file is unreadable; not indexed", extra={"family_id": family_id, "path": path})
            log.debug("unreadable memory file: %s", exc)
            return IndexOutcome.UNREADABLE
        if memory.id != memory_id:
            log.error("memory file id does not match its name; not indexed", extra={"path": path})
            return IndexOutcome.UNREADABLE
        self.index.upsert(family_id, [self._document(family_id, memory)])
        return IndexOutcome.INDEXED

    def _document(self, family_id: str, memory: Memory) -> IndexDocument:
        vector = self.embeddings.vector(family_id, embedding_text(memory))
        return document_from_memory(family_id, memory, self.model_id, vector, self.quotes(family_id, memory.id))

    def quotes(self, family_id: str, memory_id: str) -> list[str]:
        """The family's own words for the memory, from its evidence sidecar (none when it has none)."""
        path = evidence_path(memory_id)
        document = self.store.read_optional(family_id, path)
        if document is None:
            return []
        try:
            return index_quotes(parse_ledger(document.data, where=path))
        except InvalidInputError:
            log.error("evidence ledger is unreadable; indexed without quotes", extra={"path": path})
            return []

    def on_object_key(self, key: str) -> IndexOutcome:
        """An S3 object key from an event: a memory file or its evidence sidecar (whose
        quotes the document holds); anything else is ignored."""
        family_id, path = split_key(key)
        memory_id = indexed_memory_id(path)
        if memory_id is None:
            return IndexOutcome.IGNORED
        return self.index_memory(family_id, memory_id)

    def handle_event(self, event: dict[str, Any]) -> IndexOutcome:
        """An EventBridge "Object Created" event as S3 sends it (and the local bus imitates)."""
        try:
            key = event["detail"]["object"]["key"]
        except (KeyError, TypeError) as exc:
            raise InvalidInputError("event has no detail.object.key; expected an S3 Object Created event") from exc
        if not isinstance(key, str):
            raise InvalidInputError("detail.object.key must be a string")
        return self.on_object_key(key)

    # --- a whole family -----------------------------------------------------------------

    def _memories_on_file(self, family_id: str, report: IndexReport) -> list[Memory]:
        memories = []
        for path in self.store.list(family_id, MEMORIES):
            memory_id = memory_id_from_path(path)
            if memory_id is None:
                continue
            try:
                memory = parse_memory(self.store.read(family_id, path).data, path)
            except (InvalidInputError, NotFoundError) as exc:
                report.unreadable[path] = str(exc)
                continue
            if memory.id != memory_id:
                report.unreadable[path] = f"front matter id {memory.id} does not match the file name"
                continue
            memories.append(memory)
        report.files = len(memories)
        return memories

    def rebuild(self, family_id: str, progress: Progress | None = None) -> IndexReport:
        """Make the family's documents equal to its files, then check."""
        report = IndexReport(family_id)
        before = self.embeddings.computed
        memories = self._memories_on_file(family_id, report)
        for start in range(0, len(memories), REBUILD_BATCH):
            batch = memories[start : start + REBUILD_BATCH]
            vectors = self.embeddings.vectors(family_id, [embedding_text(m) for m in batch])
            documents = [
                document_from_memory(family_id, m, self.model_id, v, self.quotes(family_id, m.id))
                for m, v in zip(batch, vectors, strict=True)
            ]
            self.index.upsert(family_id, documents, force=True)
            if progress:
                progress(f"family {family_id}: {start + len(batch)}/{len(memories)} documents written")
        on_file = {m.id for m in memories}
        extra = [memory_id for memory_id in self.index.revisions(family_id) if memory_id not in on_file]
        if extra:
            self.index.delete(family_id, extra)
        checked = self.check(family_id)
        checked.unreadable.update(report.unreadable)
        checked.embeddings_computed = self.embeddings.computed - before
        return checked

    def check(self, family_id: str) -> IndexReport:
        """Every difference between the files and the index documents (nothing is embedded)."""
        report = IndexReport(family_id)
        expected = {
            m.id: document_from_memory(family_id, m, self.model_id, None, self.quotes(family_id, m.id)).comparable()
            for m in self._memories_on_file(family_id, report)
        }
        stored = {doc.memory_id: doc.comparable() for doc in self.index.documents(family_id)}
        report.documents = len(stored)
        report.duplicated = self.index.duplicates(family_id)
        report.missing = sorted(set(expected) - set(stored))
        report.extra = sorted(set(stored) - set(expected))
        for memory_id in sorted(set(expected) & set(stored)):
            want, have = expected[memory_id], stored[memory_id]
            names = [name for name in want if want[name] != have.get(name)]
            if names:
                report.different[memory_id] = names
        return report
