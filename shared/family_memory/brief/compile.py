"""The brief compiler: a pure function of the family's active memories, its
settings (``family.json``), its entities and the last conversation's summary.

Same inputs, same bytes, whatever order they arrive in: every list is sorted
on a total key before it is cut to its budget, and nothing time-dependent
(no clock, no counter) is read. Each section is filled in weight order until
its fixed token budget is reached; the lines left out are always the lowest
in weight (the kept lines are a prefix of the ordered candidates). The whole
rendered block is then measured against the 2,000-token cap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from family_memory.brief.model import (
    BRIEF_TOKEN_CAP,
    LINE_CHAR_CAP,
    LINE_TOKEN_CAP,
    SECTION_BUDGETS,
    Brief,
    BriefLine,
    Section,
)
from family_memory.brief.render import brief_tokens, line_tokens, render_lines
from family_memory.brief.weights import MemoryFacts, briefable, section_of, weight_key
from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.memory import Strength
from family_memory.domain.text import normalise_for_match
from family_memory.domain.tokens import count_tokens

_SPACE_LIKE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")
MAX_ALIASES = 3


@dataclass(frozen=True, slots=True)
class LastConversation:
    """The most recent session's summary (from ``candidates/{session_id}.json``)."""

    session_id: str
    started_at: datetime
    summary: str


def clip(text: str, cap: int = LINE_CHAR_CAP) -> str:
    """One line of at most ``cap`` characters: whitespace and control characters
    collapse to single spaces; an over-long text is cut and ends with '…'."""
    text = _SPACE_LIKE.sub(" ", text).strip()
    if len(text) <= cap:
        return text
    return text[: cap - 1].rstrip() + "…"


def memory_ref(family_id: str, memory_id: str) -> str:
    return f"memory://{family_id}/{memory_id}"


def memory_line(memory: MemoryFacts, family_id: str) -> BriefLine:
    return BriefLine(
        text=clip(memory.summary) or clip(memory.about),
        ref=memory_ref(family_id, memory.id),
        valid_until=memory.valid_until,
        hard=memory.strength is Strength.HARD,
    )


def _aliases(entity: Entity | None, *taken: str | None) -> list[str]:
    if entity is None:
        return []
    seen = {normalise_for_match(t) for t in taken if t}
    kept = []
    for alias in entity.aliases:
        key = normalise_for_match(alias)
        if key not in seen:
            seen.add(key)
            kept.append(alias)
    return kept[:MAX_ALIASES]


def member_line(member: Member, entity: Entity | None) -> BriefLine:
    """``Lucía Rivera (adult, mother): address as "Lu"; also called Mom``."""
    qualifiers = [member.role.value]
    if entity is not None and entity.relationship:
        qualifiers.append(entity.relationship)
    text = f"{member.name} ({', '.join(qualifiers)})"
    notes = []
    if member.address_as:
        notes.append(f'address as "{member.address_as}"')
    aliases = _aliases(entity, member.name, member.address_as, entity.name if entity else None)
    if aliases:
        notes.append("also called " + ", ".join(aliases))
    if notes:
        text += ": " + "; ".join(notes)
    return BriefLine(text=clip(text))


def entity_line(entity: Entity) -> BriefLine:
    """``Rosa (grandmother); also called Abuela`` for people and pets outside family.json."""
    qualifier = entity.relationship or entity.type.value
    text = f"{entity.name} ({qualifier})"
    aliases = _aliases(entity, entity.name)
    if aliases:
        text += "; also called " + ", ".join(aliases)
    return BriefLine(text=clip(text))


def bounded(line: BriefLine) -> tuple[BriefLine, int]:
    """``line`` cut to at most ``LINE_TOKEN_CAP`` rendered tokens, and its cost."""
    cost = line_tokens(line)
    if cost <= LINE_TOKEN_CAP:
        return line, cost
    # The longest prefix of the text that fits, found by bisection (rare: exotic scripts).
    low, high = 0, len(line.text) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if line_tokens(line.model_copy(update={"text": _cut(line.text, middle)})) <= LINE_TOKEN_CAP:
            low = middle
        else:
            high = middle - 1
    cut = line.model_copy(update={"text": _cut(line.text, low)})
    return cut, line_tokens(cut)


def _cut(text: str, keep: int) -> str:
    return text[:keep].rstrip() + "…"


def fit(lines: Iterable[BriefLine], budget: int) -> tuple[BriefLine, ...]:
    """The longest prefix of ``lines`` (each first bounded to ``LINE_TOKEN_CAP``)
    whose rendering fits ``budget`` tokens."""
    kept: list[BriefLine] = []
    used = 0
    for candidate in lines:
        line, cost = bounded(candidate)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    # Token counts of separate lines need not add up exactly; measure the whole.
    while kept and count_tokens(render_lines(kept)) > budget:
        kept.pop()
    return tuple(kept)


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def topic_lines(memories: Sequence[MemoryFacts], entities: dict[str, Entity]) -> list[BriefLine]:
    """One line per subject (``about``) and per entity the memories apply to, with
    how many memories each has; most memories first, then by name."""
    counts: dict[tuple[str, str], int] = {}
    labels: dict[tuple[str, str], str] = {}
    for memory in memories:
        key = ("about", _fold(memory.about))
        counts[key] = counts.get(key, 0) + 1
        label = labels.get(key)
        if label is None or memory.about < label:
            labels[key] = memory.about
        for entity_id in set(memory.applies_to):
            entity = entities.get(entity_id)
            if entity is None:
                continue
            key = ("entity", entity_id)
            counts[key] = counts.get(key, 0) + 1
            labels[key] = f"{entity.name} ({entity.relationship or entity.type.value})"
    ordered = sorted(counts, key=lambda k: (-counts[k], labels[k].casefold(), labels[k], k))
    return [
        BriefLine(text=clip(f"{labels[k]}: {counts[k]} {'memory' if counts[k] == 1 else 'memories'}")) for k in ordered
    ]


def _identity_lines(
    settings: FamilySettings, entities: Sequence[Entity], memories: Sequence[MemoryFacts]
) -> Iterator[BriefLine]:
    by_member = {e.member_id: e for e in entities if e.member_id and e.type is EntityKind.PERSON}
    members = {m.id for m in settings.members}
    for member in settings.members:
        yield member_line(member, by_member.get(member.id))
    outside = [e for e in entities if not (e.member_id and e.member_id in members)]
    for entity in outside:
        if entity.type is EntityKind.PET:
            yield entity_line(entity)
    for memory in memories:
        yield memory_line(memory, settings.family_id)
    for entity in outside:
        if entity.type is EntityKind.PERSON:
            yield entity_line(entity)


def _distinct(memories: Iterable[MemoryFacts]) -> list[MemoryFacts]:
    """One memory per id (the highest revision), so a doubled read cannot double a line."""
    latest: dict[str, MemoryFacts] = {}
    for memory in memories:
        held = latest.get(memory.id)
        if held is None or memory.revision > held.revision:
            latest[memory.id] = memory
    return list(latest.values())


def compile_brief(
    memories: Iterable[MemoryFacts],
    settings: FamilySettings,
    entities: Iterable[Entity] = (),
    last_conversation: LastConversation | None = None,
) -> Brief:
    """The family's brief. Only active, non-sensitive memories are read; each
    section is cut to its budget in weight order; the rendered block never
    exceeds ``BRIEF_TOKEN_CAP`` tokens."""
    family_id = settings.family_id
    active = [m for m in _distinct(memories) if briefable(m)]
    ordered_entities = sorted(entities, key=lambda e: (e.name.casefold(), e.name, e.id))
    identity: list[MemoryFacts] = []
    directives: list[MemoryFacts] = []
    for memory in active:
        section = section_of(memory)
        if section is Section.IDENTITY:
            identity.append(memory)
        elif section is Section.DIRECTIVES:
            directives.append(memory)
    identity.sort(key=weight_key)
    directives.sort(key=weight_key)
    by_id = {e.id: e for e in ordered_entities}

    brief = Brief(
        family_id=family_id,
        time_zone=settings.time_zone,
        identity=fit(_identity_lines(settings, ordered_entities, identity), SECTION_BUDGETS[Section.IDENTITY]),
        directives=fit((memory_line(m, family_id) for m in directives), SECTION_BUDGETS[Section.DIRECTIVES]),
        topics=fit(topic_lines(active, by_id), SECTION_BUDGETS[Section.TOPICS]),
        last_conversation=fit(
            [BriefLine(text=clip(last_conversation.summary))]
            if last_conversation is not None and clip(last_conversation.summary)
            else [],
            SECTION_BUDGETS[Section.LAST_CONVERSATION],
        ),
    )
    return enforce_cap(brief)


#: When the whole block is over the cap (only possible if the framing grew past
#: its allowance), lines are dropped from the end of these sections in turn.
_TRIM_ORDER = (Section.LAST_CONVERSATION, Section.TOPICS, Section.DIRECTIVES, Section.IDENTITY)


def enforce_cap(brief: Brief) -> Brief:
    while brief_tokens(brief) > BRIEF_TOKEN_CAP:
        section = next((s for s in _TRIM_ORDER if brief.lines(s)), None)
        if section is None:
            raise AssertionError("the brief's fixed framing alone exceeds the token cap")
        brief = brief.with_lines(section, brief.lines(section)[:-1])
    return brief
