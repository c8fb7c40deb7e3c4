"""Retrieval wired together: the index, the embedder behind its cache, the
indexer, the turn-level lookup, the similar-memory finder and the read tools.

The composition roots in ``app/bootstrap.py`` build one per process with the
adapters of their mode and hang it on the Runtime.
"""

from __future__ import annotations

from dataclasses import dataclass

from family_memory.domain.clock import Clock
from family_memory.domain.family import Surface
from family_memory.families import load_family
from family_memory.ports.catalog import Catalog
from family_memory.ports.store import Store
from family_memory.retrieval.deadline import DeadlineIndex
from family_memory.retrieval.embedding import CachedEmbeddings, Embedder, EmbeddingCache
from family_memory.retrieval.index import MemoryIndex
from family_memory.retrieval.indexer import Indexer
from family_memory.retrieval.lookup import FamilyZones, LookupSettings, TurnLookup
from family_memory.retrieval.similar import IndexSimilarMemories
from family_memory.retrieval.tools import ReadTools

#: The object keys the indexer listens to (S3 -> EventBridge, or the local bus): memory files
#: and their evidence sidecars (the quotes a document holds).
MEMORY_FILE_KEYS = r"families/[^/]+/memories/[^/]+\.(?:md|evidence\.jsonl)"


@dataclass
class Retrieval:
    store: Store
    index: MemoryIndex
    embedder: Embedder
    embeddings: CachedEmbeddings
    indexer: Indexer
    lookup: TurnLookup
    similar: IndexSimilarMemories

    def tools(self, family_id: str, surface: Surface = Surface.CHAT) -> ReadTools:
        """The read tools for one family's conversation."""
        return ReadTools(self.store, self.lookup, family_id, surface)


def build_retrieval(
    store: Store,
    catalog: Catalog,
    clock: Clock,
    index: MemoryIndex,
    embedder: Embedder,
    cache: EmbeddingCache,
    settings: LookupSettings | None = None,
    turn_embedder: Embedder | None = None,
    search_deadline: float | None = None,
) -> Retrieval:
    """``turn_embedder``: the same model as ``embedder`` configured for a conversation's
    turn (quick to give up); the lookup and the read tools embed queries with it.
    ``search_deadline``: seconds each of a lookup's searches may take (``DeadlineIndex``);
    the indexer and the similar-memory finder use the index unbounded."""
    if index.dimension != embedder.dimension:
        raise ValueError(f"the index holds {index.dimension}-d vectors; the embedder makes {embedder.dimension}-d")
    turn_embedder = turn_embedder or embedder
    if (turn_embedder.model_id, turn_embedder.dimension) != (embedder.model_id, embedder.dimension):
        raise ValueError(f"turns would embed with {turn_embedder.model_id}, the index with {embedder.model_id}")
    embeddings = CachedEmbeddings(embedder, cache)
    zones = FamilyZones(lambda family_id: load_family(store, family_id).time_zone)
    searched = index if search_deadline is None else DeadlineIndex(index, search_deadline)
    lookup = TurnLookup(searched, turn_embedder, catalog, clock, zones, settings)
    return Retrieval(
        store=store,
        index=index,
        embedder=embedder,
        embeddings=embeddings,
        indexer=Indexer(store, index, embeddings),
        lookup=lookup,
        similar=IndexSimilarMemories(index, embedder, catalog),
    )
