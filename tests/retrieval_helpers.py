"""Builders for the retrieval tests: a local runtime with the embedded index,
memories written through the write protocol, and the shared offline embedders."""

from __future__ import annotations

import functools
from datetime import datetime
from pathlib import Path
from typing import Any

from factories import FAMILY, add, change_set, memory, update
from family_memory.adapters.local.hashed_embedder import HashedNgramEmbedder
from family_memory.adapters.local.minilm_embedder import MiniLMEmbedder
from family_memory.app.bootstrap import build_local
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.domain.changes import Action
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Memory
from family_memory.families import save_family
from family_memory.retrieval.service import Retrieval


@functools.cache
def minilm() -> MiniLMEmbedder:
    """One model session for the whole run (loading it takes a few hundred ms)."""
    return MiniLMEmbedder()


@functools.cache
def hashed() -> HashedNgramEmbedder:
    return HashedNgramEmbedder()


def local_runtime(home: Path, clock: FixedClock, embedder: str = "minilm", **settings: Any) -> Runtime:
    runtime = build_local(load_settings({}, home=str(home), backend="local", embedder=embedder, **settings), clock)
    retrieval = runtime.retrieval
    assert retrieval is not None
    # Share the loaded model between runtimes instead of loading it per test.
    shared = minilm() if embedder == "minilm" else hashed()
    retrieval.embedder = retrieval.embeddings.embedder = retrieval.lookup.embedder = shared
    retrieval.similar.embedder = shared
    return runtime


def retrieval_of(runtime: Runtime) -> Retrieval:
    assert runtime.retrieval is not None
    return runtime.retrieval


def remember(runtime: Runtime, *memories: Memory, family_id: str = FAMILY, drain: bool = True) -> None:
    """Write memories through the write protocol; by default let the indexer see them."""
    runtime.writer.apply(change_set(*[add(m) for m in memories], family_id=family_id))
    if drain:
        runtime.drain()


def change(runtime: Runtime, m: Memory, action: Action = Action.UPDATE, *, drain: bool = True, **fields: Any) -> Memory:
    """Apply one change to a memory (status, summary, ...) and return the new version."""
    write = update(m, action, **fields)
    runtime.writer.apply(change_set(write, family_id=runtime_family(m, runtime)))
    if drain:
        runtime.drain()
    return write.memory


def runtime_family(m: Memory, runtime: Runtime) -> str:
    for family_id in runtime.store.families():
        if runtime.store.exists(family_id, f"memories/{m.id}.md"):
            return family_id
    return FAMILY


def set_zone(runtime: Runtime, time_zone: str, family_id: str = FAMILY) -> None:
    save_family(runtime.store, FamilySettings(family_id=family_id, time_zone=time_zone))


def fact(summary: str, about: str, when_to_use: str = "", *, formed: datetime | None = None, **kw: Any) -> Memory:
    values: dict[str, Any] = {"summary": summary, "about": about, "when_to_use": when_to_use, "body": summary}
    if formed is not None:
        values.update(formed_at=formed, last_reinforced_at=formed)
    values.update(kw)
    return memory(**values)
