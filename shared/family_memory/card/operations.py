"""Add, edit, forget and forget-a-group, as service functions.

- **add**: an explicit memory from a member (``authority: user_explicit``,
  ``verified`` by ``human:<member>``); its evidence is the card itself
  (``memory://`` reference, the words the member typed).
- **edit**: the new wording becomes a new explicit memory that supersedes the
  old one; the old one is kept, marked superseded and pointing at the new one.
- **forget**: the memory is retracted (kept on file, out of every view of what
  is current) and a suppression rule records what was forgotten, so
  formation does not learn it back.
- **forget a group**: everything about one person, one topic or one type.
  ``preview_group`` counts what it would affect; ``forget_group`` takes that
  count back as confirmation and refuses if the group changed meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from family_memory.domain.changes import MAX_WRITES_PER_CHANGE_SET, Action, ChangeSet, MemoryWrite
from family_memory.domain.clock import local_date
from family_memory.domain.errors import ConflictError, InvalidInputError, NotFoundError
from family_memory.domain.evidence import EvidenceRecord
from family_memory.domain.family import FamilySettings
from family_memory.domain.ids import check_member_id, new_ulid
from family_memory.domain.layout import FAMILY_SETTINGS
from family_memory.domain.memory import (
    Attestation,
    Authority,
    Durability,
    Memory,
    MemoryType,
    Sensitivity,
    Status,
    Strength,
)
from family_memory.domain.okf import validate, validation_message
from family_memory.domain.refs import MemoryRef
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.domain.text import NAME_MAX, single_line
from family_memory.families import load_family
from family_memory.formation import sensitivity as topics
from family_memory.formation.entities import EntityDirectory
from family_memory.formation.suppression_rules import fingerprints
from family_memory.formation.text_similarity import contains_all
from family_memory.ports.catalog import CatalogRow
from family_memory.writes.protocol import FamilyWriter, WriteSession

#: Statuses a family can still correct (a superseded memory is corrected through its successor).
EDITABLE = (Status.ACTIVE, Status.DORMANT, Status.EXPIRED)

#: A person, pet or place a memory applies to, as the member typed it: one line, no control characters.
AppliesToName = Annotated[str, single_line("applies_to", NAME_MAX)]


class MemoryDraft(BaseModel):
    """What a member types into the card to add a memory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: MemoryType
    about: str
    summary: str
    body: str = ""
    when_to_use: str = ""
    applies_to: list[AppliesToName] = Field(default_factory=list, max_length=20)
    strength: Strength = Strength.SOFT
    pin: bool = False
    durability: Durability = Durability.DURABLE
    valid_until: date | None = None
    sensitivity: Sensitivity | None = None  # None: tagged from the topic


class MemoryEdit(BaseModel):
    """A correction: any field left None keeps the old memory's value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    summary: str | None = None
    about: str | None = None
    body: str | None = None
    when_to_use: str | None = None
    valid_until: date | None = None
    strength: Strength | None = None
    pin: bool | None = None

    @model_validator(mode="after")
    def _something(self) -> MemoryEdit:
        if all(getattr(self, name) is None for name in type(self).model_fields):
            raise InvalidInputError("an edit must change at least one field (summary, about, body, ...)")
        return self


class GroupSelector(BaseModel):
    """Exactly one of: a person/place/group (by name), a topic (words), a memory type."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity: str | None = Field(default=None, min_length=1, max_length=120)
    topic: str | None = Field(default=None, min_length=1, max_length=120)
    memory_type: MemoryType | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> GroupSelector:
        chosen = [v for v in (self.entity, self.topic, self.memory_type) if v is not None]
        if len(chosen) != 1:
            raise InvalidInputError("name exactly one group: an entity (person, place, group), a topic or a type")
        return self

    def describe(self) -> str:
        if self.entity is not None:
            return f"everything about {self.entity}"
        if self.topic is not None:
            return f"everything on the topic {self.topic!r}"
        assert self.memory_type is not None
        return f"every {self.memory_type.value} memory"


@dataclass(frozen=True)
class GroupPreview:
    selector: GroupSelector
    entity_id: str | None
    memories: list[CatalogRow]

    @property
    def count(self) -> int:
        return len(self.memories)


@dataclass(frozen=True)
class GroupResult:
    preview: GroupPreview
    rule: Suppression
    change_ids: list[str]


def _family(writer: FamilyWriter, family_id: str) -> FamilySettings:
    """The family's settings; NotFoundError when it has none (the card never creates a family)."""
    if not writer.store.exists(family_id, FAMILY_SETTINGS):
        raise NotFoundError(f"family {family_id} does not exist (it has no {FAMILY_SETTINGS})")
    return load_family(writer.store, family_id)


def _actor(writer: FamilyWriter, family_id: str, member_id: str) -> tuple[str, FamilySettings]:
    """``human:<member>`` for a member of an existing family, with the family's settings."""
    check_member_id(member_id)
    family = _family(writer, family_id)
    if family.member(member_id) is None:
        known = ", ".join(m.id for m in family.members) or "none yet"
        raise InvalidInputError(f"member {member_id!r} is not in family {family_id} (members: {known})")
    return f"human:{member_id}", family


def _check_valid_until(valid_until: date | None, family: FamilySettings, now: datetime) -> None:
    """A memory valid until D is gone when D begins locally: D must be after the family's today."""
    if valid_until is None:
        return
    today = local_date(now, family.time_zone)
    if valid_until <= today:
        raise InvalidInputError(
            f"valid_until {valid_until.isoformat()} is not after the family's date today ({today.isoformat()}, "
            f"{family.time_zone}): a memory valid until a day is gone when that day begins"
        )


def _card_evidence(family_id: str, memory_id: str, typed: str, at: object) -> EvidenceRecord:
    return EvidenceRecord.model_validate(
        {"ref": str(MemoryRef(family_id, memory_id)), "quote": typed, "recordedAt": at, "source": "card"}
    )


def _change_set(family_id: str, actor: str, reason: str, now: object, **writes: object) -> ChangeSet:
    return ChangeSet.model_validate(
        {"id": new_ulid(), "family_id": family_id, "actor": actor, "reason": reason, "created_at": now, **writes}
    )


def add_memory(writer: FamilyWriter, family_id: str, member_id: str, draft: MemoryDraft) -> Memory:
    """A new explicit memory from ``member_id``; its change record's action is ADD.
    The family must exist and know the member; ``valid_until`` must be after the
    family's local date (InvalidInputError / NotFoundError otherwise, nothing written)."""
    actor, family = _actor(writer, family_id, member_id)
    now = writer.clock.now()
    _check_valid_until(draft.valid_until, family, now)
    with writer.open(family_id) as session:
        directory = EntityDirectory.load(writer.store, family_id, family, now)
        try:
            resolution = directory.resolve(list(draft.applies_to), [])
        except ValidationError as exc:
            raise InvalidInputError(f"applies_to: {validation_message(exc)}") from exc
        directory.apply(resolution)
        tag = draft.sensitivity or topics.detect(
            [draft.about, draft.summary, draft.body, draft.when_to_use], family, draft.applies_to
        )
        memory = _memory(
            id=new_ulid(),
            type=draft.type,
            about=draft.about,
            summary=draft.summary,
            when_to_use=draft.when_to_use,
            applies_to=resolution.entity_ids,
            strength=draft.strength,
            pin=draft.pin,
            authority=Authority.USER_EXPLICIT,
            confidence=1.0,
            durability=draft.durability,
            formed_at=now,
            last_reinforced_at=now,
            valid_until=draft.valid_until,
            sensitivity=tag or Sensitivity.NORMAL,
            verified=[Attestation(by=actor, at=now)],
            body=draft.body or draft.summary,
        )
        evidence = _card_evidence(family_id, memory.id, draft.summary, now)
        session.apply(
            _change_set(
                family_id,
                actor,
                "added from the memory card",
                now,
                memories=[MemoryWrite(action=Action.ADD, memory=memory, evidence=[evidence])],
                entities=directory.pending_writes(),
            )
        )
    return memory


def _memory(**fields: Any) -> Memory:
    """A Memory from card input; a field that breaks a rule is an InvalidInputError naming it."""
    return validate(Memory, fields, "memory")


def _read(session: WriteSession, memory_id: str) -> Memory:
    try:
        memory, _ = session.read_memory(memory_id)
    except NotFoundError as exc:
        raise NotFoundError(f"memory {memory_id} does not exist in family {session.family_id}") from exc
    return memory


def edit_memory(
    writer: FamilyWriter, family_id: str, memory_id: str, member_id: str, edit: MemoryEdit
) -> tuple[Memory, Memory]:
    """The corrected wording as a new explicit memory superseding the old one.
    Returns (old as now stored, new). Actions: SUPERSEDE (old) + ADD (new).
    A new ``valid_until`` must be after the family's local date."""
    actor, family = _actor(writer, family_id, member_id)
    now = writer.clock.now()
    _check_valid_until(edit.valid_until, family, now)
    with writer.open(family_id) as session:
        old = _read(session, memory_id)
        if old.status is Status.SUPERSEDED:
            raise ConflictError(f"memory {memory_id} was already replaced by {old.superseded_by}; edit that one")
        if old.status is Status.RETRACTED:
            raise ConflictError(f"memory {memory_id} was forgotten; add a new memory instead")
        changes = edit.model_dump(exclude_none=True)
        summary = changes.get("summary", old.summary)
        body = changes.get("body", summary if "summary" in changes else old.body)
        tag = old.sensitivity
        if tag is Sensitivity.NORMAL:
            tag = topics.detect([summary, body, changes.get("about", old.about)], family) or Sensitivity.NORMAL
        new = _memory(
            id=new_ulid(),
            type=old.type,
            about=changes.get("about", old.about),
            summary=summary,
            when_to_use=changes.get("when_to_use", old.when_to_use),
            applies_to=old.applies_to,
            strength=changes.get("strength", old.strength),
            pin=changes.get("pin", old.pin),
            authority=Authority.USER_EXPLICIT,
            confidence=1.0,
            durability=old.durability,
            formed_at=now,
            last_reinforced_at=now,
            valid_until=changes.get("valid_until", old.valid_until),
            supersedes=old.id,
            related=old.related,
            sensitivity=tag,
            verified=[Attestation(by=actor, at=now)],
            body=body,
        )
        replaced = old.evolve(status=Status.SUPERSEDED, superseded_by=new.id, revision=old.revision + 1)
        session.apply(
            _change_set(
                family_id,
                actor,
                "corrected from the memory card",
                now,
                memories=[
                    MemoryWrite(action=Action.SUPERSEDE, memory=replaced, expected_revision=old.revision),
                    MemoryWrite(
                        action=Action.ADD, memory=new, evidence=[_card_evidence(family_id, new.id, summary, now)]
                    ),
                ],
            )
        )
    return replaced, new


def _forgotten_texts(session: WriteSession, memory: Memory) -> list[str]:
    """What a rule must recognise: this memory's words and quotes, and those of the versions it replaced."""
    texts: list[str] = []
    current: Memory | None = memory
    seen: set[str] = set()
    while current is not None and current.id not in seen and len(seen) < 50:
        seen.add(current.id)
        texts += [current.about, current.summary, current.body]
        texts += [r.quote for r in session.read_evidence(current.id)]
        try:
            current = _read(session, current.supersedes) if current.supersedes else None
        except NotFoundError:
            current = None
    return texts


def forget_memory(
    writer: FamilyWriter, family_id: str, memory_id: str, member_id: str, reason: str = ""
) -> tuple[Memory, Suppression | None]:
    """Retract the memory and record a suppression rule (actions: RETRACT + the rule).
    Forgetting a memory already forgotten changes nothing and returns (memory, None)."""
    actor, _ = _actor(writer, family_id, member_id)
    now = writer.clock.now()
    with writer.open(family_id) as session:
        memory = _read(session, memory_id)
        if memory.status is Status.RETRACTED:
            return memory, None
        rule = Suppression(
            id=new_ulid(),
            scope=SuppressionScope.MEMORY,
            memory_ids=[memory.id],
            fingerprints=fingerprints(_forgotten_texts(session, memory))[:2000],
            created_at=now,
            created_by=actor,
            reason=reason[:500],
        )
        retracted = memory.evolve(status=Status.RETRACTED, revision=memory.revision + 1)
        session.apply(
            _change_set(
                family_id,
                actor,
                f"forgotten from the memory card{': ' + reason[:300] if reason else ''}",
                now,
                memories=[MemoryWrite(action=Action.RETRACT, memory=retracted, expected_revision=memory.revision)],
                suppressions=[rule],
            )
        )
    return retracted, rule


def _group(writer: FamilyWriter, family_id: str, selector: GroupSelector) -> GroupPreview:
    entity_id = None
    family = _family(writer, family_id)
    if selector.entity is not None:
        directory = EntityDirectory.load(writer.store, family_id, family, writer.clock.now())
        found = directory.matches(selector.entity)
        if not found:
            raise NotFoundError(f"no person, place or group called {selector.entity!r} in family {family_id}")
        if len(found) > 1:
            names = ", ".join(f"{e.name} ({e.id})" for e in found)
            raise InvalidInputError(f"entity: {selector.entity!r} could mean {names}; name the one to forget")
        entity_id = found[0].id
    rows = []
    for row in writer.catalog.all_rows(family_id):
        if row.status is Status.RETRACTED:
            continue
        if (
            (entity_id is not None and entity_id in row.applies_to)
            or (
                selector.topic is not None
                and contains_all(f"{row.about} {row.summary} {row.when_to_use}", selector.topic)
            )
            or (selector.memory_type is not None and row.type is selector.memory_type)
        ):
            rows.append(row)
    rows.sort(key=lambda r: r.sort_key, reverse=True)
    return GroupPreview(selector, entity_id, rows)


def preview_group(writer: FamilyWriter, family_id: str, selector: GroupSelector) -> GroupPreview:
    """What ``forget_group`` would retract: every memory of the group not already forgotten."""
    return _group(writer, family_id, selector)


def forget_group(
    writer: FamilyWriter,
    family_id: str,
    selector: GroupSelector,
    member_id: str,
    *,
    expected_count: int,
    reason: str = "",
) -> GroupResult:
    """Retract the whole group and record one suppression rule for it.

    ``expected_count`` is the count the family confirmed (from ``preview_group``);
    if the group holds a different number now, nothing is changed (ConflictError)."""
    actor, _ = _actor(writer, family_id, member_id)
    now = writer.clock.now()
    with writer.open(family_id) as session:
        preview = _group(writer, family_id, selector)
        if preview.count != expected_count:
            raise ConflictError(
                f"{selector.describe()} now covers {preview.count} memories, not the {expected_count} confirmed; "
                "count again before forgetting"
            )
        memories = [_read(session, row.id) for row in preview.memories]
        texts: list[str] = []
        for memory in memories:
            texts += _forgotten_texts(session, memory)
        scope = (
            SuppressionScope.ENTITY
            if selector.entity is not None
            else SuppressionScope.TOPIC
            if selector.topic is not None
            else SuppressionScope.TYPE
        )
        rule = Suppression(
            id=new_ulid(),
            scope=scope,
            memory_ids=[m.id for m in memories],
            entity_id=preview.entity_id,
            topic=selector.topic,
            memory_type=selector.memory_type,
            fingerprints=fingerprints(texts)[:2000],
            created_at=now,
            created_by=actor,
            reason=(reason or f"forgot {selector.describe()}")[:500],
        )
        writes = [
            MemoryWrite(
                action=Action.RETRACT,
                memory=m.evolve(status=Status.RETRACTED, revision=m.revision + 1),
                expected_revision=m.revision,
            )
            for m in memories
        ]
        change_ids = []
        chunk = MAX_WRITES_PER_CHANGE_SET - 1
        for start in range(0, max(len(writes), 1), chunk):
            session.keep_lease()
            change_set = _change_set(
                family_id,
                actor,
                f"forgot {selector.describe()} from the memory card",
                now,
                memories=writes[start : start + chunk],
                suppressions=[rule] if start == 0 else [],
            )
            session.apply(change_set)
            change_ids.append(change_set.id)
    return GroupResult(preview, rule, change_ids)
