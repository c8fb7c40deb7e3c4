"""Keeping the brief current between compiles: patch it the moment a memory changes.

``BriefPatcher`` listens to every settled change set (``FamilyWriter.listeners``;
it runs inside the writer's session, under the family lease, so it cannot
race a compile). For a change set that leaves a memory non-active, updates
one, or records a forget rule:

- **memory lines**: a memory that the change leaves non-active (retracted,
  superseded, expired, dormant) loses its line at once; an edit, which
  supersedes the old memory and adds a new one whose ``supersedes`` names it,
  puts the new memory's line where the old one was; an update rewrites the
  line in place, or removes it when the memory became sensitive. Other new
  memories are left to the full recompile that the change's ``changes/``
  event starts.
- **lines not drawn from one memory** (the topic counts, the members' and
  other people's lines) are derived again, with the compiler's own functions,
  from the catalog rows (strongly consistent, already updated when the change
  settled) and the entity files. So a forgotten memory's topic count drops at
  once, and a person whose every briefable memory was forgotten, or whose
  relationship only that memory stated, loses it at once.
- **last conversations**: each member's line is dropped when it names or
  repeats something the family has forgotten (the compiler's rule,
  ``forgotten.line_repeats_forgotten``, with the subjects the line repeats that
  the compile kept beside it), until that member's next session.

A patched section is cut back to its budget like a compiled one. A failure is
logged and swallowed: the change is already settled, and the recompile that
follows it corrects the brief.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from family_memory.brief.compile import (
    enforce_cap,
    fit,
    identity_section,
    memory_line,
    order_entities,
    said_about,
    topic_lines,
)
from family_memory.brief.model import (
    SECTION_BUDGETS,
    SECTION_ORDER,
    Brief,
    BriefLine,
    Section,
    parse_brief,
    serialise_brief,
)
from family_memory.brief.sources import read_entities
from family_memory.brief.weights import briefable, section_of
from family_memory.domain.changes import Action, ChangeRecord
from family_memory.domain.layout import BRIEF, memory_path, suppression_path
from family_memory.domain.memory import Memory, Status
from family_memory.domain.okf import parse_json, parse_memory
from family_memory.domain.suppression import Suppression
from family_memory.families import load_family
from family_memory.forgotten import forgotten_claims, forgotten_subjects, line_repeats_forgotten, names_any
from family_memory.ports.catalog import Catalog
from family_memory.ports.store import Store

log = logging.getLogger(__name__)

#: Actions after which a memory's line must leave the brief, whatever its status says.
REMOVING = frozenset({Action.RETRACT, Action.SUPERSEDE, Action.EXPIRE, Action.DECAY})


class BriefPatcher:
    def __init__(self, store: Store, catalog: Catalog, *, skip_actors: Collection[str] = ()) -> None:
        """``catalog``: the family's rows, from which the topic counts and people lines
        are derived again. ``skip_actors``: writers that recompile the brief themselves
        right after their change (the dream), so patching for them would only write twice."""
        self.store = store
        self.catalog = catalog
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

    def _rules(self, record: ChangeRecord) -> list[Suppression]:
        rules = []
        for rule_id in record.suppressions:
            path = suppression_path(rule_id)
            document = self.store.read_optional(record.family_id, path)
            if document is not None:
                rules.append(parse_json(Suppression, document.data, path))
        return rules

    def patch(self, record: ChangeRecord) -> Brief | None:
        """Apply ``record`` to the stored brief; the new brief, or None when nothing in it changed."""
        family_id = record.family_id
        applied = [c for c in record.memories if c.applied]
        gone = {c.memory_id for c in applied if c.action in REMOVING or c.status is not Status.ACTIVE}
        updated = {c.memory_id for c in applied if c.action is Action.UPDATE and c.memory_id not in gone}
        if not gone and not updated and not record.suppressions:
            return None
        document = self.store.read_optional(family_id, BRIEF)
        if document is None:
            return None
        brief = parse_brief(document.data, f"{family_id}/{BRIEF}")
        sections = self._memory_lines(record, brief, gone, updated)

        # Everything else is derived again from the current rows, as a compile would.
        rows = list(self.catalog.all_rows(family_id))
        active = [row for row in rows if briefable(row)]
        entities = order_entities(read_entities(self.store, family_id))
        said = said_about(active)
        settings = load_family(self.store, family_id)
        memory_lines = [line for line in sections[Section.IDENTITY] if line.ref]
        by_id = {row.id: row for row in active}
        sections[Section.IDENTITY] = list(identity_section(settings, entities, said, memory_lines, by_id))
        sections[Section.TOPICS] = topic_lines(active, {e.id: e for e in entities}, said)
        forgotten = forgotten_subjects(rows, self._rules(record), entities)
        summaries = forgotten_claims(rows)
        sections[Section.LAST_CONVERSATION] = [
            line for line in sections[Section.LAST_CONVERSATION] if not names_any(line.text, forgotten)
        ]
        for member_id, held in sorted(brief.conversations.items()):
            if any(line_repeats_forgotten(line.text, held.repeats, forgotten, summaries) for line in held.lines):
                brief = brief.with_conversation(member_id, ())

        for section in SECTION_ORDER:
            lines = sections[section]
            if tuple(lines) != brief.lines(section):
                brief = brief.with_lines(section, fit(lines, SECTION_BUDGETS[section]))
        brief = enforce_cap(brief)
        data = serialise_brief(brief)
        if data == document.data:
            return None
        self.store.put(family_id, BRIEF, data)
        self.patched += 1
        return brief

    def _memory_lines(
        self, record: ChangeRecord, brief: Brief, gone: set[str], updated: set[str]
    ) -> dict[Section, list[BriefLine]]:
        """Each section's lines with the changed memories' lines removed or replaced."""
        family_id = record.family_id
        applied = [c for c in record.memories if c.applied]
        present = brief.memory_ids()
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

        sections: dict[Section, list[BriefLine]] = {}
        appended: dict[Section, list[BriefLine]] = {s: [] for s in SECTION_ORDER}
        for section in SECTION_ORDER:
            patched: list[BriefLine] = []
            for line in brief.lines(section):
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
        return {section: sections[section] + appended[section] for section in SECTION_ORDER}
