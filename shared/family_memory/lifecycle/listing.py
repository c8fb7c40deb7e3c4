"""``index.md``: the OKF listing of a family's memories, entities and archive.

Current memories first, then earlier ones (expired, dormant, superseded,
retracted: kept on file, so listed with their status), then entities, then
the archive a migration made (the earlier files it copied, what it read from
each, its report). Each list is sorted by title and id (the archive by path),
so the same files always give the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable

from family_memory.brief.weights import MemoryFacts
from family_memory.domain.entity import Entity
from family_memory.domain.layout import ARCHIVE, MIGRATION_REPORT
from family_memory.domain.memory import Status
from family_memory.domain.okf import IndexEntry, render_index


def _key(memory: MemoryFacts) -> tuple[str, str, str]:
    return (memory.about.casefold(), memory.about, memory.id)


def archive_entry(path: str) -> IndexEntry:
    """How ``index.md`` lists one file of ``archive/``."""
    name = path.rsplit("/", 1)[-1]
    if path == MIGRATION_REPORT:
        return IndexEntry("Migration report", path, "every entry of the earlier files beside the memory it became")
    if name == "reading.json":
        return IndexEntry(f"What the migration read ({path.split('/')[-2]})", path, "each entry, line by line")
    if name.endswith(".orig"):
        return IndexEntry(name.removesuffix(".orig"), path, "an earlier file the migration copied here; never edited")
    return IndexEntry(name, path, "archived")


def render_family_index(
    memories: Iterable[MemoryFacts], entities: Iterable[Entity], archive: Iterable[str] = ()
) -> bytes:
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
    archived = sorted(p for p in archive if p.startswith(ARCHIVE))
    if archived:
        sections["Archive"] = [archive_entry(p) for p in archived]
    return render_index(sections, root=True)
