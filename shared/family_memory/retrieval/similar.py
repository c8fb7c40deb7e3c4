"""The index-backed similar-memory finder the reconciler asks before it writes.

``similar(family_id, text, limit)`` returns the family's memories closest in
meaning to ``text``, any status, best first, each with its catalog row and a
score from 0 to 1 (cosine similarity, negatives clipped to 0). Only rows the
catalog holds are returned, so the answer is current even while the index lags.
"""

from __future__ import annotations

from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import check_family_id
from family_memory.ports.catalog import Catalog, CatalogRow
from family_memory.retrieval.embedding import Embedder
from family_memory.retrieval.search_index import MAX_K, MemoryIndex, SearchFilter


class IndexSimilarMemories:
    def __init__(self, index: MemoryIndex, embedder: Embedder, catalog: Catalog) -> None:
        self.index = index
        self.embedder = embedder
        self.catalog = catalog

    def similar(self, family_id: str, text: str, limit: int = 5) -> list[tuple[CatalogRow, float]]:
        family_id = check_family_id(family_id)
        if not 1 <= limit <= MAX_K // 2:
            raise InvalidInputError(f"limit must be between 1 and {MAX_K // 2}, got {limit}")
        if not text.strip():
            return []
        hits = self.index.semantic(family_id, self.embedder.embed_one(text), SearchFilter.any_status(), limit * 2)
        rows = self.catalog.get_rows(family_id, [hit.memory_id for hit in hits])
        found = [(rows[hit.memory_id], min(1.0, max(0.0, hit.score))) for hit in hits if hit.memory_id in rows]
        return found[:limit]
