"""Entity resolution: the names a claim applies to become entity ids.

An entity is created on first mention and keeps every name it has been
called ("Maya", "my daughter"), so two memories about the same person share
one id. A household member's person entity carries their ``member_id``, and
answers to their id, full name, first name and how they like to be addressed.

Names and generic relations ("my daughter", "our dog": ``relations.is_generic``)
resolve differently, because a family can have two daughters:

- a *named* mention ("Sofia", hinted "my daughter") resolves only by that name
  (or a member's names and id); never through a generic alias, so a second
  daughter is never merged into the first;
- a *bare* generic mention ("my daughter") resolves to the one entity that
  holds that relationship (or answers to that phrase) when exactly one does;
  with none it creates one named by the phrase ("Lucía's daughter"); with
  several it is ambiguous and goes to that unnamed placeholder, never to one of
  the named people.

Resolution is planned, then committed: ``resolve`` says which entities a
claim applies to and which entity files that would create or change, without
changing anything, so a claim that turns out to be suppressed leaves no
trace. ``apply`` records the plan; ``pending_writes`` hands the entity files
to the change set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from family_memory.domain.changes import EntityWrite
from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.ids import new_ulid
from family_memory.domain.layout import ENTITIES
from family_memory.domain.okf import parse_entity
from family_memory.domain.text import normalise_for_match
from family_memory.formation.candidate import EntityHint
from family_memory.formation.relations import is_generic
from family_memory.formation.sensitivity import is_child
from family_memory.ports.store import Store

MAX_ALIASES = 30


@dataclass
class Resolution:
    entity_ids: list[str] = field(default_factory=list)
    changes: dict[str, Entity] = field(default_factory=dict)  # new or updated entities, by id


def _norm(name: str) -> str:
    return normalise_for_match(name)


def _member_names(member: Member) -> list[str]:
    names = [member.name, member.name.split()[0], member.id]
    if member.address_as:
        names.append(member.address_as)
    return names


class EntityDirectory:
    """A family's entities as they are on file plus what this run has planned."""

    def __init__(self, entities: list[Entity], family: FamilySettings, now: datetime) -> None:
        self.family = family
        self.now = now
        self.entities: dict[str, Entity] = {e.id: e for e in entities}
        self.on_file: dict[str, int] = {e.id: e.revision for e in entities}
        self.dirty: set[str] = set()

    @classmethod
    def load(cls, store: Store, family_id: str, family: FamilySettings, now: datetime) -> EntityDirectory:
        entities = []
        for path in store.list(family_id, ENTITIES):
            if path.endswith(".md"):
                entities.append(parse_entity(store.read(family_id, path).data, path))
        return cls(entities, family, now)

    # --- lookups ---------------------------------------------------------------

    def _current(self, changes: dict[str, Entity]) -> dict[str, Entity]:
        return {**self.entities, **changes}

    def _member(self, name: str) -> Member | None:
        wanted = _norm(name)
        for member in self.family.members:
            if wanted in {_norm(n) for n in _member_names(member)}:
                return member
        return None

    def member_called(self, name: str) -> Member | None:
        """The household member ``name`` stands for (their id, full name, first name or address-as)."""
        return self._member(name)

    def matches(self, name: str, changes: dict[str, Entity] | None = None) -> list[Entity]:
        """Every entity called ``name`` (a name, an alias, or a member's id or names), oldest first.
        More than one means the name is ambiguous ("my daughter" in a family with two)."""
        current = self._current(changes or {})
        wanted = _norm(name)
        found = [
            entity
            for entity in sorted(current.values(), key=lambda e: e.id)
            if wanted in entity.names() or (entity.member_id and _norm(entity.member_id) == wanted)
        ]
        member = self._member(name)
        if member is not None:
            found += [e for e in sorted(current.values(), key=lambda e: e.id) if e.member_id == member.id]
        return list({e.id: e for e in found}.values())

    def find(self, name: str, changes: dict[str, Entity] | None = None) -> Entity | None:
        """The entity called ``name``, if there is one (the oldest when several answer to it)."""
        found = self.matches(name, changes)
        return found[0] if found else None

    def holders(self, phrase: str, relationship: str | None, changes: dict[str, Entity]) -> list[Entity]:
        """The entities a generic ``phrase`` ("my daughter") could mean: those that answer to it
        or hold ``relationship``."""
        wanted, relation = _norm(phrase), _norm(relationship) if relationship else None
        return [
            entity
            for entity in sorted(self._current(changes).values(), key=lambda e: e.id)
            if wanted in entity.names()
            or (relation is not None and entity.relationship is not None and _norm(entity.relationship) == relation)
        ]

    def child_ids(self, changes: dict[str, Entity] | None = None) -> set[str]:
        """The entities that are the household's children (a child's relationship, or a child member)."""
        return {e.id for e in self._current(changes or {}).values() if is_child(e, self.family)}

    # --- resolution --------------------------------------------------------------

    def resolve(self, names: list[str], hints: list[EntityHint]) -> Resolution:
        """Entity ids for ``names`` (in order, without repeats) and the entity files that would change."""
        resolution = Resolution()
        for name in names:
            hint = self._hint_for(name, hints)
            entity_id = self._resolve_one(name, hint, resolution.changes)
            if entity_id not in resolution.entity_ids:
                resolution.entity_ids.append(entity_id)
        return resolution

    @staticmethod
    def _hint_for(name: str, hints: list[EntityHint]) -> EntityHint | None:
        wanted = _norm(name)
        for hint in hints:
            if wanted == _norm(hint.name) or wanted in {_norm(a) for a in hint.aliases}:
                return hint
            if hint.member_id and wanted == _norm(hint.member_id):
                return hint
        return None

    def _resolve_one(self, name: str, hint: EntityHint | None, changes: dict[str, Entity]) -> str:
        aliases = [name, *(hint.aliases if hint else [])]
        if hint is not None:
            aliases.append(hint.name)
        relationship = hint.relationship if hint else None
        member = self._member(name) or (self.family.member(hint.member_id) if hint and hint.member_id else None)
        existing: Entity | None = None
        if member is not None:
            existing = next((e for e in self._current(changes).values() if e.member_id == member.id), None)
        if existing is None and is_generic(name, relationship):
            existing = self._by_relation(name, hint, changes)
        elif existing is None:
            # A named mention: its own name, then the hint's other *names*; never a generic alias.
            for alias in [name, *([hint.name, *hint.aliases] if hint else [])]:
                if not is_generic(alias, relationship) and (existing := self.find(alias, changes)) is not None:
                    break
        if existing is not None:
            updated = self._merge(existing, aliases, hint)
            if updated is not None:
                changes[updated.id] = updated
            return existing.id
        entity = self._new(name, hint, member)
        changes[entity.id] = entity
        return entity.id

    def _by_relation(self, phrase: str, hint: EntityHint | None, changes: dict[str, Entity]) -> Entity | None:
        """A bare generic mention: the one entity holding that relationship; when several
        do, the unnamed entity called by the phrase itself (never one of the named ones)."""
        holders = self.holders(phrase, hint.relationship if hint else None, changes)
        if len(holders) == 1:
            return holders[0]
        if not holders:
            return None
        called = {_norm(phrase), *([_norm(hint.name)] if hint else [])}
        return next((e for e in holders if _norm(e.name) in called), None)

    def _merge(self, entity: Entity, aliases: list[str], hint: EntityHint | None) -> Entity | None:
        """``entity`` with any new names and a missing relationship added, or None when nothing is new."""
        known = entity.names()
        added = [a for a in aliases if a.strip() and _norm(a) not in known]
        relationship = entity.relationship or (hint.relationship if hint else None)
        if not added and relationship == entity.relationship:
            return None
        kept = list(entity.aliases)
        for alias in added:
            if len(kept) < MAX_ALIASES and _norm(alias) not in {_norm(k) for k in kept}:
                kept.append(alias)
        return entity.model_copy(update={"aliases": kept, "relationship": relationship})

    def _new(self, name: str, hint: EntityHint | None, member: Member | None) -> Entity:
        if member is not None:
            aliases = [n for n in _member_names(member)[1:]]
            if hint is not None:
                aliases += [hint.name, *hint.aliases]
            aliases.append(name)
            return Entity(
                id=new_ulid(),
                type=EntityKind.PERSON,
                name=member.name,
                aliases=[a for a in aliases if _norm(a) != _norm(member.name)][:MAX_ALIASES],
                member_id=member.id,
                relationship=hint.relationship if hint else None,
                created_at=self.now,
            )
        display = hint.name if hint is not None else name
        aliases = [a for a in [name, *(hint.aliases if hint else [])] if _norm(a) != _norm(display)]
        return Entity(
            id=new_ulid(),
            type=hint.kind if hint is not None else EntityKind.PERSON,
            name=display,
            aliases=aliases[:MAX_ALIASES],
            relationship=hint.relationship if hint else None,
            created_at=self.now,
        )

    # --- planning and saving ---------------------------------------------------------

    def apply(self, resolution: Resolution) -> None:
        """Record a resolution's entity changes as planned."""
        for entity_id, entity in resolution.changes.items():
            self.entities[entity_id] = entity
            self.dirty.add(entity_id)

    def pending_writes(self) -> list[EntityWrite]:
        """The entity files this run has changed and not yet written."""
        writes = []
        for entity_id in sorted(self.dirty):
            base = self.on_file.get(entity_id)
            entity = self.entities[entity_id].model_copy(update={"revision": (base or 0) + 1})
            writes.append(EntityWrite(entity=entity, expected_revision=base))
        return writes

    def mark_saved(self) -> None:
        for entity_id in self.dirty:
            self.on_file[entity_id] = self.on_file.get(entity_id, 0) + 1
            self.entities[entity_id] = self.entities[entity_id].model_copy(update={"revision": self.on_file[entity_id]})
        self.dirty.clear()
