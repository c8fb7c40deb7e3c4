"""``index.md``: the OKF listing of a family's memories and entities.

Current memories first, then earlier ones (expired, dormant, superseded,
retracted: kept on file, so listed with their status), then entities. Each
list is sorted by title and id, so the same files always give the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable

from family_memory.brief.weights import MemoryFacts
from family_memory.domain.entity import Entity
from family_memory.domain.memory import Status
from family_memory.domain.okf import IndexEntry, render_index


def _key(memory: MemoryFacts) -> tuple[str, str, str]:
    return (memory.about.casefold(), memory.about, memory.id)


def render_family_index(memories: Iterable[MemoryFacts], entities: Iterable[Entity]) -> bytes:
    current: list[MemoryFacts] = []
    earlier: list[MemoryFacts] = []
    for memory in memories:
        (current if memory.status is Status.ACTIVE else earlier).append(memory)
    sections: dict[str, list[IndexEntry]] = {
        "Memories": [IndexEntry(m.about, f"memories/{m.id}.md", m.summary) for m in sorted(current, key=_key)]
    }
    if earlier:
        sections["Earlier memories"] = [
            IndexEntry(m.about, f"memories/{m.id}.md", f"({m.status.value}) {m.summary}")
            for m in sorted(earlier, key=_key)
        ]
    people = sorted(entities, key=lambda e: (e.name.casefold(), e.name, e.id))
    if people:
        sections["Entities"] = [IndexEntry(e.name, f"entities/{e.id}.md", e.type.value) for e in people]
    return render_index(sections, root=True)
