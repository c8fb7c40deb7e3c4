"""Add, edit, forget and forget-a-group, as service functions.

- **add**: an explicit memory from a member (``authority: user_explicit``,
  ``verified`` by ``human:<member>``); its evidence is the card itself
  (``memory://`` reference, the words the member typed). Its sensitivity is
  tagged from the topic when not given, and a memory that applies to one of
  the household's children (a child member, or an entity whose relationship
  is a child's) is ``minors`` whatever was given (never lowered).
- **edit**: the new wording becomes a new explicit memory that supersedes the
  old one; the old one is kept, marked superseded and pointing at the new one.
  A memory whose ``valid_until`` has passed is only edited with a new future
  ``valid_until`` or with it cleared (``clear_valid_until``): otherwise the
  correction would expire at the next dream.
- **forget**: the memory is retracted (kept on file, out of every view of what
  is current) and a suppression rule records the forgotten claim (its
  summary, body and quotes, not its subject), so formation does not learn it
  back but does learn a new value for the same subject.
- **forget a group**: everything about one person, one topic or one type.
  ``preview_group`` counts what it would affect and gives the preview a
  ``token`` (a digest of exactly which memories, at which revision);
  ``forget_group`` takes that count (and, from the card page or an API caller
  that sends it, that token) back as confirmation and refuses if the group
  changed meanwhile, even to another list of the same length. A
  group that holds nothing (count 0) still gets its rule, so formation does not
  learn it later; confirmed again while an active rule for that same group
  stands, it writes nothing and returns that rule (``already_forgotten``).

Every change set is packed by count and by size (``pack_writes``); a rule's
fingerprints are split over several rules when they would not fit one, and a
change too large to record becomes a ``PayloadTooLargeError`` saying so.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from family_memory.domain.changes import Action, ChangeSet, MemoryWrite, pack_with_rules
from family_memory.domain.clock import local_date
from family_memory.domain.errors import ConflictError, InvalidInputError, NotFoundError, PayloadTooLargeError
from family_memory.domain.evidence import EvidenceRecord
from family_memory.domain.family import FamilySettings
from family_memory.domain.ids import check_member_id, check_memory_id, new_ulid
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
from family_memory.domain.text import NAME_MAX, normalise_for_match, single_line
from family_memory.families import load_family
from family_memory.forgotten import APPLIES_TO, CLAIMS_ONLY, MAX_VERSIONS, SuppressionRules, fingerprints
from family_memory.formation import sensitivity as topics
from family_memory.formation.entities import EntityDirectory
from family_memory.formation.text_similarity import contains_all
from family_memory.ports.catalog import CatalogRow
from family_memory.writes.protocol import FamilyWriter, WriteSession

#: Statuses a family can still correct (a superseded memory is corrected through its successor).
EDITABLE = (Status.ACTIVE, Status.DORMANT, Status.EXPIRED)

#: A person, pet or place a memory applies to, as the member typed it: one line, no control characters.
AppliesToName = Annotated[str, single_line("applies_to", NAME_MAX)]
#: Bytes of fingerprints (and of memory ids) one suppression rule carries; more go into further rules.
RULE_FINGERPRINT_BYTES = 60_000
RULE_MEMORY_IDS = 1_000
#: ``Suppression.fingerprints`` holds at most this many.
RULE_MAX_FINGERPRINTS = 2_000
#: Hex characters of a group preview's token.
PREVIEW_TOKEN_LENGTH = 32


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


#: The fields an added memory takes from its draft as they are.
_AS_DRAFTED = {"type", "about", "summary", "when_to_use", "strength", "pin", "durability", "valid_until"}


class MemoryEdit(BaseModel):
    """A correction: any field left None keeps the old memory's value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    summary: str | None = None
    about: str | None = None
    body: str | None = None
    when_to_use: str | None = None
    valid_until: date | None = None
    clear_valid_until: bool | None = None  # True: the corrected memory has no end date
    strength: Strength | None = None
    pin: bool | None = None

    @model_validator(mode="after")
    def _something(self) -> MemoryEdit:
        # A field given as false is a change (``pin: false`` unpins); only clear_valid_until: false asks nothing.
        given = {name for name in self.model_fields_set if getattr(self, name) is not None}
        if not given - ({"clear_valid_until"} if not self.clear_valid_until else set()):
            raise InvalidInputError("an edit must change at least one field (summary, about, body, ...)")
        if self.clear_valid_until and self.valid_until is not None:
            raise InvalidInputError("valid_until: give a new date or clear it, not both")
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

    @property
    def token(self) -> str:
        """What the family saw: the group and each memory in it at its revision. Any change to
        the group since (a memory added, forgotten, edited, or another in its place) changes it."""
        seen = [self.selector.model_dump(mode="json"), self.entity_id, [[r.id, r.revision] for r in self.memories]]
        digest = hashlib.sha256(json.dumps(seen, separators=(",", ":")).encode("utf-8")).hexdigest()
        return digest[:PREVIEW_TOKEN_LENGTH]


@dataclass(frozen=True)
class GroupResult:
    preview: GroupPreview
    rules: list[Suppression]  # one, or several when the group's words do not fit one rule
    change_ids: list[str]
    #: Nothing was written: the group held no memory and an active rule for it already stood.
    already_forgotten: bool = False

    @property
    def rule(self) -> Suppression:
        return self.rules[0]


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
    """A validated change set; one too large to record is a PayloadTooLargeError saying so."""
    try:
        return ChangeSet.model_validate(
            {"id": new_ulid(), "family_id": family_id, "actor": actor, "reason": reason, "created_at": now, **writes}
        )
    except ValidationError as exc:
        causes = [e.get("ctx", {}).get("error") for e in exc.errors()]
        too_large = next((c for c in causes if isinstance(c, PayloadTooLargeError)), None)
        if too_large is not None:
            raise PayloadTooLargeError(
                f"the change ({reason}) is too large to record in one change set: {too_large}"
            ) from exc
        raise InvalidInputError(f"change set: {validation_message(exc)}") from exc


def _suppressions(
    fields: dict[str, Any], prints: list[str], memory_ids: list[str], *, ids_on_every_rule: bool = False
) -> list[Suppression]:
    """One rule with ``fields``, or several when the fingerprints (or the memory ids) would make
    one too large for a change set: each carries at most ``RULE_FINGERPRINT_BYTES`` of
    fingerprints and ``RULE_MEMORY_IDS`` ids, and every one keeps the scope. With
    ``ids_on_every_rule`` (a few ids: one forgotten memory) each part names them all."""
    print_chunks: list[list[str]] = [[]]
    size = 0
    for fingerprint in prints:
        cost = len(json.dumps(fingerprint, ensure_ascii=False).encode("utf-8")) + 2
        full = size + cost > RULE_FINGERPRINT_BYTES or len(print_chunks[-1]) >= RULE_MAX_FINGERPRINTS
        if print_chunks[-1] and full:
            print_chunks.append([])
            size = 0
        print_chunks[-1].append(fingerprint)
        size += cost
    id_chunks = [memory_ids[i : i + RULE_MEMORY_IDS] for i in range(0, len(memory_ids), RULE_MEMORY_IDS)] or [[]]
    count = max(len(print_chunks), len(id_chunks))
    if ids_on_every_rule:
        id_chunks = [memory_ids] * count
    rules = []
    for part in range(count):
        reason = str(fields.get("reason", ""))
        if count > 1:
            reason = f"{reason[:480]} (part {part + 1} of {count})"
        rules.append(
            Suppression.model_validate(
                {
                    **fields,
                    "id": new_ulid(),
                    "reason": reason,
                    "fingerprints": print_chunks[part] if part < len(print_chunks) else [],
                    "memory_ids": id_chunks[part] if part < len(id_chunks) else [],
                }
            )
        )
    return rules


def _apply_with_rules(
    session: WriteSession,
    family_id: str,
    actor: str,
    reason: str,
    now: datetime,
    writes: Sequence[MemoryWrite],
    rules: Sequence[Suppression],
) -> list[str]:
    """Apply ``writes`` and ``rules`` in change sets packed by count and size
    (``pack_with_rules``). Returns the change ids."""
    change_ids = []
    for memory_writes, suppressions in pack_with_rules(writes, rules):
        session.keep_lease()
        change_set = _change_set(family_id, actor, reason, now, memories=memory_writes, suppressions=suppressions)
        session.apply(change_set)
        change_ids.append(change_set.id)
    return change_ids


def add_memory(
    writer: FamilyWriter, family_id: str, member_id: str, draft: MemoryDraft, *, memory_id: str | None = None
) -> Memory:
    """A new explicit memory from ``member_id``; its change record's action is ADD.
    The family must exist and know the member; ``valid_until`` must be after the
    family's local date (InvalidInputError / NotFoundError otherwise, nothing written).

    ``memory_id``, chosen by the caller, makes a retried add change nothing: when the
    family already has that memory, added by the same member from the same draft, it is
    returned as it is now (even once its ``valid_until`` has passed); a different memory
    under that id, or the same id with other fields, is a ConflictError naming them."""
    actor, family = _actor(writer, family_id, member_id)
    if memory_id is not None:
        check_memory_id(memory_id)
    now = writer.clock.now()
    with writer.open(family_id) as session:
        directory = EntityDirectory.load(writer.store, family_id, family, now)
        try:
            resolution = directory.resolve(list(draft.applies_to), [])
        except ValidationError as exc:
            raise InvalidInputError(f"applies_to: {validation_message(exc)}") from exc
        if memory_id is not None:
            replayed = _added_before(session, memory_id, draft, actor, resolution.entity_ids)
            if replayed is not None:
                return replayed
        _check_valid_until(draft.valid_until, family, now)  # after the replay: a retry is not a new add
        directory.apply(resolution)
        tag = draft.sensitivity or topics.detect(
            [draft.about, draft.summary, draft.body, draft.when_to_use],
            family,
            draft.applies_to,
            directory.entities.values(),
        )
        if tag in (None, Sensitivity.NORMAL) and set(resolution.entity_ids) & directory.child_ids():
            tag = Sensitivity.MINORS  # about one of the household's children, whatever was given
        memory = _memory(
            **draft.model_dump(include=_AS_DRAFTED),
            id=memory_id or new_ulid(),
            applies_to=resolution.entity_ids,
            authority=Authority.USER_EXPLICIT,
            confidence=1.0,
            formed_at=now,
            last_reinforced_at=now,
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


def _added_before(
    session: WriteSession, memory_id: str, draft: MemoryDraft, actor: str, applies_to: list[str]
) -> Memory | None:
    """The memory an earlier add with ``memory_id`` made (None if there is none yet).
    ``applies_to``: the draft's names resolved to entity ids, as the add stored them."""
    try:
        existing = _read(session, memory_id)
    except NotFoundError:
        return None
    same = (existing.type, existing.about, existing.summary) == (draft.type, draft.about, draft.summary)
    if not same or actor not in [a.by for a in existing.verified or []]:
        raise ConflictError(
            f"memory id {memory_id} is already another memory in family {session.family_id}; "
            "a new memory needs a new id"
        )
    differing = _retry_differences(existing, draft, applies_to)
    if differing:
        raise ConflictError(
            f"memory id {memory_id} was added with other values for {', '.join(differing)}; "
            "a retry must repeat the request as it was, and a change is an edit"
        )
    return existing


def _retry_differences(existing: Memory, draft: MemoryDraft, applies_to: list[str]) -> list[str]:
    """The draft's fields whose values differ from what the add of ``existing`` stored. What the
    add derived (the body from the summary, a sensitivity tagged or raised to ``minors``) and
    what a dream changed since (a passing memory promoted to durable) count as the same."""
    differing = []
    if existing.body != (draft.body or draft.summary):
        differing.append("body")
    if existing.when_to_use != draft.when_to_use:
        differing.append("when_to_use")
    if sorted(existing.applies_to) != sorted(applies_to):
        differing.append("applies_to")
    if existing.strength is not draft.strength:
        differing.append("strength")
    if existing.pin != draft.pin:
        differing.append("pin")
    promoted = draft.durability is Durability.PASSING and existing.durability is Durability.DURABLE
    if existing.durability is not draft.durability and not promoted:
        differing.append("durability")
    if existing.valid_until != draft.valid_until:
        differing.append("valid_until")
    raised = draft.sensitivity is Sensitivity.NORMAL and existing.sensitivity is Sensitivity.MINORS
    if draft.sensitivity is not None and existing.sensitivity is not draft.sensitivity and not raised:
        differing.append("sensitivity")
    return differing


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
    A new ``valid_until`` must be after the family's local date; a memory whose
    ``valid_until`` has passed needs a new one (or ``clear_valid_until``)."""
    actor, family = _actor(writer, family_id, member_id)
    now = writer.clock.now()
    _check_valid_until(edit.valid_until, family, now)
    with writer.open(family_id) as session:
        old = _read(session, memory_id)
        if old.status is Status.SUPERSEDED:
            raise ConflictError(f"memory {memory_id} was already replaced by {old.superseded_by}; edit that one")
        if old.status is Status.RETRACTED:
            raise ConflictError(f"memory {memory_id} was forgotten; add a new memory instead")
        _check_not_expired(old, edit, family, now)
        changes = edit.model_dump(exclude_none=True)
        summary = changes.get("summary", old.summary)
        body = changes.get("body", summary if "summary" in changes else old.body)
        valid_until = None if edit.clear_valid_until else changes.get("valid_until", old.valid_until)
        directory = EntityDirectory.load(writer.store, family_id, family, now)
        tag = old.sensitivity
        if tag is Sensitivity.NORMAL:
            texts = [summary, body, changes.get("about", old.about), changes.get("when_to_use", old.when_to_use)]
            tag = topics.detect(texts, family, (), directory.entities.values()) or Sensitivity.NORMAL
        if tag is Sensitivity.NORMAL and set(old.applies_to) & directory.child_ids():
            tag = Sensitivity.MINORS
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
            valid_until=valid_until,
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


def _check_not_expired(old: Memory, edit: MemoryEdit, family: FamilySettings, now: datetime) -> None:
    """An edit of a memory whose ``valid_until`` has passed must give a new date or clear it:
    the corrected memory would otherwise be expired by the next dream."""
    if old.valid_until is None or edit.valid_until is not None or edit.clear_valid_until:
        return
    today = local_date(now, family.time_zone)
    if old.valid_until <= today:
        raise InvalidInputError(
            f"valid_until: memory {old.id} was valid until {old.valid_until.isoformat()}, which has passed "
            f"(today is {today.isoformat()} in {family.time_zone}); give a new valid_until after today, or clear "
            "it (clear_valid_until, --clear-valid-until) if the corrected memory has no end date"
        )


def _forgotten_texts(session: WriteSession, memory: Memory, *, with_about: bool) -> list[str]:
    """What a rule must recognise: this memory's words and quotes, and those of the versions it
    replaced. A single forgotten memory is matched on its claim, not its subject (``with_about``
    False): forgetting "Address Ana as Annie" must not keep out "Call me Ana-Maria"."""
    texts: list[str] = []
    current: Memory | None = memory
    seen: set[str] = set()
    while current is not None and current.id not in seen and len(seen) < MAX_VERSIONS:
        seen.add(current.id)
        texts += [current.about, current.summary, current.body] if with_about else [current.summary, current.body]
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
    Forgetting a memory already forgotten changes nothing and returns (memory, None).
    The rule holds the claim's words (summary, body, quotes), not its subject; when a
    long chain of versions does not fit one rule, the first is returned and the rest
    are written beside it."""
    actor, _ = _actor(writer, family_id, member_id)
    now = writer.clock.now()
    with writer.open(family_id) as session:
        memory = _read(session, memory_id)
        if memory.status is Status.RETRACTED:
            return memory, None
        fields = {
            "scope": SuppressionScope.MEMORY,
            "created_at": now,
            "created_by": actor,
            "reason": reason[:500],
            CLAIMS_ONLY: True,
            APPLIES_TO: list(memory.applies_to),
        }
        prints = fingerprints(_forgotten_texts(session, memory, with_about=False))
        rules = _suppressions(fields, prints, [memory.id], ids_on_every_rule=True)
        retracted = memory.evolve(status=Status.RETRACTED, revision=memory.revision + 1)
        write = MemoryWrite(action=Action.RETRACT, memory=retracted, expected_revision=memory.revision)
        why = f"forgotten from the memory card{': ' + reason[:300] if reason else ''}"
        _apply_with_rules(session, family_id, actor, why, now, [write], rules)
    return retracted, rules[0]


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


def _scope(selector: GroupSelector) -> SuppressionScope:
    if selector.entity is not None:
        return SuppressionScope.ENTITY
    if selector.topic is not None:
        return SuppressionScope.TOPIC
    return SuppressionScope.TYPE


def _standing_rules(writer: FamilyWriter, family_id: str, preview: GroupPreview) -> list[Suppression]:
    """The family's active rules for exactly this group (same scope, same person, topic or type)."""
    selector = preview.selector
    scope = _scope(selector)
    topic = normalise_for_match(selector.topic) if selector.topic is not None else None

    def same(rule: Suppression) -> bool:
        if rule.scope is not scope:
            return False
        if scope is SuppressionScope.ENTITY:
            return rule.entity_id == preview.entity_id
        if scope is SuppressionScope.TOPIC:
            return rule.topic is not None and normalise_for_match(rule.topic) == topic
        return rule.memory_type is selector.memory_type

    return sorted(
        (rule for rule in SuppressionRules.load(writer.store, family_id).rules if same(rule)), key=lambda r: r.id
    )


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
    expected_token: str | None = None,
    reason: str = "",
) -> GroupResult:
    """Retract the whole group and record one suppression rule for it.

    ``expected_count`` is the count the family confirmed (from ``preview_group``);
    if the group holds a different number now, nothing is changed (ConflictError).
    ``expected_token``, when given, is the preview's ``token``: a group that now holds
    other memories (or other versions of them) is refused the same way, even at the
    same count: the family confirmed a list, not a number.
    A group with nothing left to retract (count 0) whose rule already stands writes
    nothing: a retried confirmation returns the standing rules (``already_forgotten``)."""
    actor, _ = _actor(writer, family_id, member_id)
    now = writer.clock.now()
    with writer.open(family_id) as session:
        preview = _group(writer, family_id, selector)
        if preview.count != expected_count:
            raise ConflictError(
                f"{selector.describe()} now covers {preview.count} memories, not the {expected_count} confirmed; "
                "count again before forgetting"
            )
        if expected_token is not None and expected_token != preview.token:
            raise ConflictError(
                f"the preview of {selector.describe()} is out of date: the memories in it changed since "
                f"(it now covers {preview.count}); preview the group again and confirm what it shows now"
            )
        if preview.count == 0:
            standing = _standing_rules(writer, family_id, preview)
            if standing:
                return GroupResult(preview, standing, [], already_forgotten=True)
        memories = [_read(session, row.id) for row in preview.memories]
        texts: list[str] = []
        for memory in memories:
            session.keep_lease()
            texts += _forgotten_texts(session, memory, with_about=True)
        fields = {
            "scope": _scope(selector),
            "entity_id": preview.entity_id,
            "topic": selector.topic,
            "memory_type": selector.memory_type,
            "created_at": now,
            "created_by": actor,
            "reason": (reason or f"forgot {selector.describe()}")[:500],
        }
        rules = _suppressions(fields, fingerprints(texts), [m.id for m in memories])
        writes = [
            MemoryWrite(
                action=Action.RETRACT,
                memory=m.evolve(status=Status.RETRACTED, revision=m.revision + 1),
                expected_revision=m.revision,
            )
            for m in memories
        ]
        why = f"forgot {selector.describe()} from the memory card"
        change_ids = _apply_with_rules(session, family_id, actor, why, now, writes, rules)
    return GroupResult(preview, rules, change_ids)
