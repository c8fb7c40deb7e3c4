"""Retrieval wired together: the index, the embedder behind its cache, the
indexer, the turn-level lookup, the similar-memory finder and the read tools.

The composition roots in ``app/bootstrap.py`` build one per process with the
adapters of their mode and hang it on the Runtime.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from family_memory.domain.clock import Clock
from family_memory.domain.errors import FamilyMemoryError
from family_memory.domain.family import Surface
from family_memory.families import load_family
from family_memory.ports.catalog import Catalog
from family_memory.ports.store import Store
from family_memory.retrieval.deadline import DeadlineIndex
from family_memory.retrieval.embedding import CachedEmbeddings, Embedder, EmbeddingCache
from family_memory.retrieval.indexer import Indexer
from family_memory.retrieval.lookup import FamilyZones, LookupSettings, TurnLookup
from family_memory.retrieval.must_know import names_of
from family_memory.retrieval.search_index import MemoryIndex
from family_memory.retrieval.similar import IndexSimilarMemories
from family_memory.retrieval.tools import ReadTools


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


def family_names(store: Store, family_id: str) -> dict[str, frozenset[str]]:
    """Every name the family uses for its people and pets (entities' names and aliases, members'
    names and address-as), to entity ids: how a lookup tells whom a message is about."""
    from family_memory.brief.sources import read_entities

    entities = read_entities(store, family_id)
    by_member = {e.member_id: e.id for e in entities if e.member_id}
    pairs: list[tuple[str, list[str]]] = [(e.id, [e.name, *e.aliases]) for e in entities]
    try:
        family = load_family(store, family_id)
    except FamilyMemoryError:
        family = None
    for member in family.members if family else []:
        if member.id in by_member:
            also = [member.address_as] if member.address_as else []
            pairs.append((by_member[member.id], [member.name, member.id, *also]))
    return names_of(pairs)


class FamilyNames:
    """A family's name book, re-read at most once a minute (new people are rare)."""

    def __init__(self, load: Callable[[str], dict[str, frozenset[str]]], ttl_seconds: float = 60.0) -> None:
        self._load = load
        self._ttl = ttl_seconds
        self._cache: dict[str, tuple[float, dict[str, frozenset[str]]]] = {}
        self._lock = threading.Lock()

    def __call__(self, family_id: str) -> dict[str, frozenset[str]]:
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(family_id)
        if cached is not None and now - cached[0] < self._ttl:
            return cached[1]
        try:
            names = self._load(family_id)
        except FamilyMemoryError:
            names = {}
        with self._lock:
            self._cache[family_id] = (now, names)
        return names


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
    names = FamilyNames(lambda family_id: family_names(store, family_id))
    searched = index if search_deadline is None else DeadlineIndex(index, search_deadline)
    lookup = TurnLookup(searched, turn_embedder, catalog, clock, zones, settings, names=names)
    return Retrieval(
        store=store,
        index=index,
        embedder=embedder,
        embeddings=embeddings,
        indexer=Indexer(store, index, embeddings),
        lookup=lookup,
        similar=IndexSimilarMemories(index, embedder, catalog),
    )
