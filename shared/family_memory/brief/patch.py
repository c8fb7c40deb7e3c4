"""Keeping the brief current between compiles: patch it the moment a memory changes.

``BriefPatcher`` listens to every settled change set (``FamilyWriter.listeners``;
it runs inside the writer's session, under the family lease, so it cannot
race a compile). A memory that a change leaves non-active (retracted,
superseded, expired, dormant) loses its line at once; an edit, which
supersedes the old memory and adds a new one whose ``supersedes`` names it,
puts the new memory's line where the old one was; an update rewrites the
line in place, or removes it when the memory became sensitive. New memories
are left to the full recompile that the change's ``changes/`` event starts.

A patched section is cut back to its budget like a compiled one. A failure is
logged and swallowed: the change is already settled, and the recompile that
follows it corrects the brief.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from family_memory.brief.compile import enforce_cap, fit, memory_line
from family_memory.brief.model import (
    SECTION_BUDGETS,
    SECTION_ORDER,
    Brief,
    BriefLine,
    Section,
    parse_brief,
    serialise_brief,
)
from family_memory.brief.weights import briefable, section_of
from family_memory.domain.changes import Action, ChangeRecord
from family_memory.domain.layout import BRIEF, memory_path
from family_memory.domain.memory import Memory, Status
from family_memory.domain.okf import parse_memory
from family_memory.ports.store import Store

log = logging.getLogger(__name__)

#: Actions after which a memory's line must leave the brief, whatever its status says.
REMOVING = frozenset({Action.RETRACT, Action.SUPERSEDE, Action.EXPIRE, Action.DECAY})


class BriefPatcher:
    def __init__(self, store: Store, *, skip_actors: Collection[str] = ()) -> None:
        """``skip_actors``: writers that recompile the brief themselves right after
        their change (the dream), so patching for them would only write twice."""
        self.store = store
        self.skip_actors = frozenset(skip_actors)
        self.patched = 0
        self.failures = 0

    def __call__(self, record: ChangeRecord) -> None:
        if record.actor in self.skip_actors:
            return
        try:
            self.patch(record)
        except Exception:  # the change is settled; its recompile is the backstop
            self.failures += 1
            log.exception(
                "brief patch failed; the recompile after this change will correct it",
                extra={"family_id": record.family_id, "change_id": record.id},
            )

    def _read(self, family_id: str, memory_id: str) -> Memory | None:
        document = self.store.read_optional(family_id, memory_path(memory_id))
        return None if document is None else parse_memory(document.data, memory_path(memory_id))

    def patch(self, record: ChangeRecord) -> Brief | None:
        """Apply ``record`` to the stored brief; the new brief, or None when nothing in it changed."""
        family_id = record.family_id
        applied = [c for c in record.memories if c.applied]
        gone = {c.memory_id for c in applied if c.action in REMOVING or c.status is not Status.ACTIVE}
        updated = {c.memory_id for c in applied if c.action is Action.UPDATE and c.memory_id not in gone}
        if not gone and not updated:
            return None
        document = self.store.read_optional(family_id, BRIEF)
        if document is None:
            return None
        brief = parse_brief(document.data, f"{family_id}/{BRIEF}")
        present = brief.memory_ids()
        if not (gone | updated) & present:
            return None

        # What takes each line's place: an edit's new memory, or the updated memory itself.
        replacement: dict[str, Memory | None] = {}
        superseded = {c.memory_id for c in applied if c.action is Action.SUPERSEDE} & present
        if superseded:
            for change in applied:
                if change.action is Action.ADD:
                    new = self._read(family_id, change.memory_id)
                    if new is not None and new.supersedes in superseded and new.id not in present:
                        replacement[new.supersedes] = new
        for memory_id in updated & present:
            replacement[memory_id] = self._read(family_id, memory_id)

        sections: dict[Section, list[BriefLine]] = {s: list(brief.lines(s)) for s in SECTION_ORDER}
        appended: dict[Section, list[BriefLine]] = {s: [] for s in SECTION_ORDER}
        for section in SECTION_ORDER:
            patched: list[BriefLine] = []
            for line in sections[section]:
                line_memory = line.memory_id
                if line_memory is None or line_memory not in (gone | updated):
                    patched.append(line)
                    continue
                new = replacement.get(line_memory)
                if new is None or not briefable(new):
                    continue
                target = section_of(new)
                new_line = memory_line(new, family_id)
                if target is section:
                    patched.append(new_line)
                elif target is not None:
                    appended[target].append(new_line)
            sections[section] = patched
        for section in SECTION_ORDER:
            lines = sections[section] + appended[section]
            if tuple(lines) != brief.lines(section):
                brief = brief.with_lines(section, fit(lines, SECTION_BUDGETS[section]))
        brief = enforce_cap(brief)
        data = serialise_brief(brief)
        if data == document.data:
            return None
        self.store.put(family_id, BRIEF, data)
        self.patched += 1
        return brief
