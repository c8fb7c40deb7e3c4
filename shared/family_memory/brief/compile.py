"""The brief compiler: a pure function of the family's active memories, its
settings (``family.json``), its entities and the last conversation's summary.

Same inputs, same bytes, whatever order they arrive in: every list is sorted
on a total key before it is cut to its budget, and nothing time-dependent
(no clock, no counter) is read. Each section is filled in weight order until
its fixed token budget is reached; the lines left out are always the lowest
in weight (the kept lines are a prefix of the ordered candidates). The whole
rendered block is then measured against the 2,000-token cap.

What the brief says about people comes only from what it may show. A household
member (``family.json``) always has a line; any other person or pet has one
only while at least one briefable (active, non-sensitive) memory applies to
it. An entity's relationship and aliases are recorded on the entity file
without saying which memory they came from, so the brief shows one only when
a briefable memory about that entity states it in its own words (``about`` or
``summary``): "Dr. Jones (Ana's therapist for depression)" never surfaces from
a health-tagged memory, nor "Maya (daughter)" from a minors-tagged one or one
the family has forgotten. Otherwise the entity is named with its kind.

The last conversation is each member's own: the summary of the newest session
that member took part in (wrote a turn of), one per member of ``family.json``
(``Brief.conversations``); what a request is served carries only the asking
member's (``Brief.served``). A summary is left out when it names something the
family has forgotten (the ``about`` or the words of a retracted memory, the
topic or the person of a group forget) or something its own session withheld
as sensitive or suppressed: the line stays empty until that member's next
session.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from family_memory.brief.model import (
    BRIEF_TOKEN_CAP,
    LINE_CHAR_CAP,
    LINE_TOKEN_CAP,
    SECTION_BUDGETS,
    Brief,
    BriefLine,
    MemberConversation,
    Section,
)
from family_memory.brief.render import brief_tokens, line_tokens, render_lines
from family_memory.brief.weights import MemoryFacts, briefable, section_of, weight_key
from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.memory import MemoryType, Strength
from family_memory.domain.suppression import Suppression
from family_memory.domain.text import holds_words, normalise_for_match
from family_memory.domain.tokens import count_tokens
from family_memory.forgotten import forgotten_claims, forgotten_subjects, holds_any, line_repeats_forgotten

_SPACE_LIKE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")
MAX_ALIASES = 3


@dataclass(frozen=True, slots=True)
class LastConversation:
    """A session's summary (from ``candidates/{session_id}.json``) and who took part in it."""

    session_id: str
    started_at: datetime
    summary: str
    #: Subjects (``about``) of this session's candidates that were tagged sensitive or
    #: matched a forget rule: a summary naming one of them is not shown.
    withheld: tuple[str, ...] = ()
    #: The members who wrote a turn of the session (``sessions/{session_id}.json``): it is
    #: the last conversation of each of them whose newer sessions there are none.
    members: tuple[str, ...] = ()
    #: What the session's accepted claims say, as (``about``, ``summary``): a summary holding
    #: the words of a claim whose subject the family later forgot is not shown.
    claims: tuple[tuple[str, str], ...] = ()
    #: The ``summary`` of each candidate ``withheld`` names: a summary holding one is not shown.
    withheld_claims: tuple[str, ...] = ()

    def order_key(self) -> tuple[datetime, str]:
        """Newest last: by ``started_at``, then by session id (a total order)."""
        return (self.started_at, self.session_id)


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


#: For each entity, what the briefable memories applying to it say: their ``about``
#: and ``summary`` in comparison form, separated by NUL (which no single-line text
#: holds, so a phrase never matches across two texts).
SaidAbout = dict[str, str]
_SEPARATOR = "\x00"


def said_about(memories: Iterable[MemoryFacts]) -> SaidAbout:
    """What the given (briefable) memories say about each entity they apply to. An
    entity absent from the result has no briefable memory, so it gets no line."""
    texts: dict[str, set[str]] = {}
    for memory in memories:
        for entity_id in memory.applies_to:
            held = texts.setdefault(entity_id, set())
            held.add(memory.about)
            held.add(memory.summary)
    # One normalisation per entity, not per text: it is the costly part at 5,000 memories.
    return {entity_id: comparable(_SEPARATOR.join(sorted(held))) for entity_id, held in texts.items()}


#: The whitespace NFKC leaves as it is, other than the plain space (str.isspace, which is
#: also what the regex ``\\s`` matches), and a double space: only text holding one of
#: them needs the whitespace regex of ``normalise_for_match``.
_UNCOLLAPSED = (
    "\t",
    "\n",
    "\x0b",
    "\x0c",
    "\r",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x1f",
    "\x85",
    "\u1680",
    "\u2028",
    "\u2029",
    "  ",
)


def comparable(text: str) -> str:
    """``normalise_for_match(text)``, computed without its whitespace regex when that
    would change nothing (memory text nearly always): the regex dominates the cost of
    normalising every about and summary of a large family."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    if any(space in text for space in _UNCOLLAPSED):
        return normalise_for_match(text)
    return text.strip(" ").casefold()


def _contains(normalised: str, phrase: str) -> bool:
    return holds_words(normalised, normalise_for_match(phrase))


def names(text: str, phrase: str) -> bool:
    """Whether ``text`` contains ``phrase`` as whole words, compared case- and
    space-insensitively (``Maya's`` names ``Maya``; ``Mayan`` does not)."""
    return _contains(normalise_for_match(text), phrase)


def _stated(entity: Entity, said: SaidAbout, phrase: str) -> bool:
    return _contains(said.get(entity.id, ""), phrase)


def qualifier(entity: Entity, said: SaidAbout) -> str:
    """The entity's relationship when a briefable memory about it states it, else its kind."""
    if entity.relationship and _stated(entity, said, entity.relationship):
        return entity.relationship
    return entity.type.value


def _aliases(entity: Entity | None, said: SaidAbout, *taken: str | None) -> list[str]:
    """Up to ``MAX_ALIASES`` of the entity's other names that a briefable memory about it uses."""
    if entity is None:
        return []
    seen = {normalise_for_match(t) for t in taken if t}
    kept = []
    for alias in entity.aliases:
        key = normalise_for_match(alias)
        if key not in seen and _stated(entity, said, alias):
            seen.add(key)
            kept.append(alias)
    return kept[:MAX_ALIASES]


def member_line(member: Member, entity: Entity | None, said: SaidAbout) -> BriefLine:
    """``Lucía Rivera (adult, mother): address as "Lu"; also called Mom``. The name, role
    and how to address them come from family.json; the relationship and other names
    only when a briefable memory about the member states them."""
    qualifiers = [member.role.value]
    if entity is not None and entity.relationship and _stated(entity, said, entity.relationship):
        qualifiers.append(entity.relationship)
    text = f"{member.name} ({', '.join(qualifiers)})"
    notes = []
    if member.address_as:
        notes.append(f'address as "{member.address_as}"')
    aliases = _aliases(entity, said, member.name, member.address_as, entity.name if entity else None)
    if aliases:
        notes.append("also called " + ", ".join(aliases))
    if notes:
        text += ": " + "; ".join(notes)
    return BriefLine(text=clip(text))


def entity_line(entity: Entity, said: SaidAbout) -> BriefLine:
    """``Rosa (grandmother); also called Abuela`` for people and pets outside family.json."""
    text = f"{entity.name} ({qualifier(entity, said)})"
    aliases = _aliases(entity, said, entity.name)
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


def _entities_by_name(memories: Sequence[MemoryFacts], entities: dict[str, Entity]) -> dict[str, set[str]]:
    """The entities the memories apply to, by each of their names (folded)."""
    by_name: dict[str, set[str]] = {}
    for entity_id in sorted({e for memory in memories for e in memory.applies_to if e in entities}):
        entity = entities[entity_id]
        for name in (entity.name, *entity.aliases):
            by_name.setdefault(_fold(name), set()).add(entity_id)
    return by_name


#: What a memory is about when its ``about`` is only its subject's name ("Pepper"): its kind.
TOPIC_OF_KIND: dict[MemoryType, str] = {
    MemoryType.IDENTITY: "who they are",
    MemoryType.RELATIONSHIP: "relationships",
    MemoryType.PREFERENCE: "likes and dislikes",
    MemoryType.FACT: "facts",
    MemoryType.DIRECTIVE: "instructions",
    MemoryType.CONSTRAINT: "rules",
}
#: What may follow a leading name and still be a topic of that name's own ("Stan not
#: driving" is "not driving"; "Stan and Eddie's fish fry" is not Stan's alone).
_NOT_A_TOPIC_START = ("and ", "& ", "or ", ", ", "with ", "+ ")


def _names_of(entity: Entity) -> list[str]:
    """The entity's names, longest first, folded: full name, aliases, first name."""
    names = {_fold(entity.name), *(_fold(a) for a in entity.aliases)}
    first = entity.name.split()[0] if entity.name.split() else ""
    if first and len(first) > 1:
        names.add(_fold(first))
    return sorted((n for n in names if n), key=lambda n: (-len(n), n))


def topic_of(about: str, entity: Entity) -> str | None:
    """What ``about`` says of ``entity``, without the entity's name: "Stan's Friday fish fry"
    is "Friday fish fry", "Coriander (Vy)" is "Coriander", "Stan not driving" is "not
    driving"; None when it is nothing but the name ("Pepper", "Our dog")."""
    text = " ".join(about.split())
    folded = text.casefold()
    for name in _names_of(entity):
        for suffix in (f" ({name})", f" for {name}", f" of {name}"):
            if folded.endswith(suffix) and len(folded) > len(suffix):
                return text[: len(text) - len(suffix)].strip() or None
        if folded == name:
            return None
        for prefix in (f"{name}'s ", f"{name}’s ", f"{name}' ", f"{name} "):
            if folded.startswith(prefix):
                rest = text[len(prefix) :].strip()
                if rest and not rest.casefold().startswith(_NOT_A_TOPIC_START):
                    return rest
    return text or None


def _count(n: int) -> str:
    return f"{n} {'memory' if n == 1 else 'memories'}"


def _entity_topic_line(label: str, topics: dict[str, tuple[str, int]], total: int) -> BriefLine:
    """``Pepper (dog): walks, baths, … (4 memories)``: the topics with most memories first,
    as many as the line's cap allows, then how many memories there are in all."""
    ordered = sorted(topics.values(), key=lambda t: (-t[1], t[0].casefold(), t[0]))
    suffix = f" ({_count(total)})"
    kept: list[str] = []
    for topic, _ in ordered:
        more = ", …" if len(kept) + 1 < len(ordered) else ""
        if len(f"{label}: {', '.join([*kept, topic])}{more}{suffix}") > LINE_CHAR_CAP:
            break
        kept.append(topic)
    if not kept:
        return BriefLine(text=clip(f"{label}{suffix}"))
    more = ", …" if len(kept) < len(ordered) else ""
    return BriefLine(text=clip(f"{label}: {', '.join(kept)}{more}{suffix}"))


#: The topic line of the memories that apply to every member of the household.
HOUSEHOLD = "\x00household"
HOUSEHOLD_LABEL = "The whole household"


def topic_label(entity: Entity, said: SaidAbout) -> str:
    """``Pepper (dog)``, ``Rosa (grandmother)``, ``Dr. Jones``: the entity's name and, unless
    it is a plain person, what it is (its relationship only when a briefable memory says it)."""
    shown = qualifier(entity, said)
    return entity.name if shown == EntityKind.PERSON.value else f"{entity.name} ({shown})"


def topic_lines(
    memories: Sequence[MemoryFacts], entities: dict[str, Entity], said: SaidAbout | None = None
) -> list[BriefLine]:
    """The topic index: for each entity the (briefable) memories apply to, one line naming
    what they are about, the topics a person would look up, not the person's name
    ("Maya: soccer, piano (2 memories)"); for memories applying to no entity, one line per
    ``about`` (compared case- and space-insensitively) with its count ("Pizza night (1
    memory)"). A memory whose ``about`` is the name or an alias of one entity counts under
    that entity, whether it applies to it or not; one that applies to every member (two or
    more) counts once, under the whole household, not under each of them. Most memories
    first, then by label. ``said``: ``said_about(memories)`` when the caller has it already."""
    said = said_about(memories) if said is None else said
    by_name = _entities_by_name(memories, entities)
    members = {entity_id for entity_id, entity in entities.items() if entity.member_id}
    per_entity: dict[str, dict[str, tuple[str, int]]] = {}
    totals: dict[str, int] = {}
    abouts: dict[str, tuple[str, int]] = {}

    def count_topic(entity_id: str, memory: MemoryFacts) -> None:
        if entity_id == HOUSEHOLD:
            topic = " ".join(memory.about.split()) or TOPIC_OF_KIND[memory.type]
        else:
            topic = topic_of(memory.about, entities[entity_id]) or TOPIC_OF_KIND[memory.type]
        held = per_entity.setdefault(entity_id, {})
        key = _fold(topic)
        label, n = held.get(key, (topic, 0))
        held[key] = (min(label, topic), n + 1)
        totals[entity_id] = totals.get(entity_id, 0) + 1

    for memory in memories:
        applies = sorted({entity_id for entity_id in memory.applies_to if entity_id in entities})
        about = _fold(memory.about)
        named = by_name.get(about)
        if not applies and named is not None and len(named) == 1:
            applies = sorted(named)
        if len(members) > 1 and members <= set(applies):
            applies = [HOUSEHOLD, *(entity_id for entity_id in applies if entity_id not in members)]
        for entity_id in applies:
            count_topic(entity_id, memory)
        if applies:
            continue
        label, n = abouts.get(about, (memory.about, 0))
        abouts[about] = (min(label, memory.about), n + 1)

    lines: list[tuple[int, str, BriefLine]] = []
    for entity_id, topics in per_entity.items():
        label = HOUSEHOLD_LABEL if entity_id == HOUSEHOLD else topic_label(entities[entity_id], said)
        lines.append((totals[entity_id], label, _entity_topic_line(label, topics, totals[entity_id])))
    for label, n in abouts.values():
        lines.append((n, label, BriefLine(text=clip(f"{label} ({_count(n)})"))))
    lines.sort(key=lambda t: (-t[0], t[1].casefold(), t[1], t[2].text))
    return [line for _, _, line in lines]


def identity_frame(
    settings: FamilySettings, entities: Sequence[Entity], said: SaidAbout, said_by_memory: Iterable[str] = ()
) -> tuple[list[BriefLine], list[BriefLine]]:
    """The identity lines not drawn from a memory, as (every member then the pets,
    the other people); the identity memories' lines go between the two. A pet or a
    person outside family.json is listed only when a briefable memory applies to it,
    and not when it is in ``said_by_memory`` (an identity memory's line says it all)."""
    by_member = {e.member_id: e for e in entities if e.member_id and e.type is EntityKind.PERSON}
    members = {m.id for m in settings.members}
    skipped = set(said_by_memory)
    head = [member_line(member, by_member.get(member.id), said) for member in settings.members]
    outside = [
        e for e in entities if not (e.member_id and e.member_id in members) and e.id in said and e.id not in skipped
    ]
    head += [entity_line(e, said) for e in outside if e.type is EntityKind.PET]
    people = [entity_line(e, said) for e in outside if e.type is EntityKind.PERSON]
    return head, people


def _phrases_of_entity_line(entity: Entity, said: SaidAbout) -> list[str]:
    """What the entity's bare line says, in comparison form: name, qualifier, aliases shown."""
    phrases = [entity.name, qualifier(entity, said), *_aliases(entity, said, entity.name)]
    return [normalise_for_match(phrase) for phrase in phrases]


def entity_lines_said(
    identity_memories: Iterable[MemoryFacts], settings: FamilySettings, entities: Sequence[Entity], said: SaidAbout
) -> dict[str, list[str]]:
    """For each pet or person outside family.json whose identity line one of the identity
    memories says in its own words (``about`` or ``summary``: the entity's name, its
    qualifier and every alias the line shows), the ids of those memories, in the order
    given. "Pepper is the family's dog." says "Pepper (dog)"; "Dr. Jones's office moved
    to Elm Street." does not say "Dr. Jones (person)". Members keep their line: it says
    how to address them, which no memory line does."""
    members = {m.id for m in settings.members}
    outside = {e.id: e for e in entities if not (e.member_id and e.member_id in members)}
    phrases: dict[str, list[str]] = {}
    covers: dict[str, list[str]] = {}
    for memory in identity_memories:
        words: tuple[str, str] | None = None
        for entity_id in sorted(set(memory.applies_to)):
            entity = outside.get(entity_id)
            if entity is None:
                continue
            if entity_id not in phrases:
                phrases[entity_id] = _phrases_of_entity_line(entity, said)
            words = words or (comparable(memory.about), comparable(memory.summary))
            if all(any(holds_words(text, phrase) for text in words) for phrase in phrases[entity_id]):
                covers.setdefault(entity_id, []).append(memory.id)
    return covers


class _Replayable(Iterable[BriefLine]):
    """Lines drawn from ``source`` only as far as some pass has gone, replayed for the next."""

    def __init__(self, source: Iterable[BriefLine]) -> None:
        self._source = iter(source)
        self._drawn: list[BriefLine] = []

    def __iter__(self) -> Iterator[BriefLine]:
        position = 0
        while True:
            if position == len(self._drawn):
                line = next(self._source, None)
                if line is None:
                    return
                self._drawn.append(line)
            yield self._drawn[position]
            position += 1


def identity_section(
    settings: FamilySettings,
    entities: Sequence[Entity],
    said: SaidAbout,
    memory_lines: Iterable[BriefLine],
    facts: Mapping[str, MemoryFacts],
) -> tuple[BriefLine, ...]:
    """The identity section, fitted to its budget: members and pets, the identity
    memories' lines (in the order given, drawn lazily), other people. A pet or person
    whose bare line a kept memory line says (``entity_lines_said``; ``facts`` gives each
    line's memory) gets no line of its own; if the budget cuts that memory line, the
    entity's line comes back."""
    budget = SECTION_BUDGETS[Section.IDENTITY]
    lines = _Replayable(memory_lines)
    # The memory lines kept are a prefix of them, never longer than what fits on its own:
    # only those can say an entity's line.
    reachable = [facts[i] for i in (line.memory_id for line in fit(lines, budget)) if i is not None and i in facts]
    covers = entity_lines_said(reachable, settings, entities, said)
    dropped = set(covers)
    while True:
        head, people = identity_frame(settings, entities, said, dropped)
        kept_lines = fit(itertools.chain(head, lines, people), budget)
        kept = {line.memory_id for line in kept_lines if line.memory_id}
        still = {entity_id for entity_id in dropped if kept & set(covers[entity_id])}
        if still == dropped:
            return kept_lines
        dropped = still


def order_entities(entities: Iterable[Entity]) -> list[Entity]:
    return sorted(entities, key=lambda e: (e.name.casefold(), e.name, e.id))


def repeated_subjects(conversation: LastConversation) -> tuple[str, ...]:
    """The ``about`` of each of the session's claims whose words its summary holds: what the
    line repeats, kept with it (``MemberConversation.repeats``) so that a later forget of
    one of those subjects takes the line with it without reading the session again."""
    return tuple(sorted({about for about, claim in conversation.claims if holds_any(conversation.summary, [claim])}))


def repeats_forgotten(
    conversation: LastConversation, forgotten: Iterable[str], forgotten_summaries: Iterable[str] = ()
) -> bool:
    """Whether the conversation's summary names something forgotten or withheld (a subject,
    as whole words), or holds the words of a forgotten memory, of a withheld claim, or of
    one of its session's claims whose subject was forgotten or withheld."""
    subjects = [*forgotten, *conversation.withheld]
    summaries = [*forgotten_summaries, *conversation.withheld_claims]
    return line_repeats_forgotten(conversation.summary, repeated_subjects(conversation), subjects, summaries)


def conversation_lines(
    last_conversation: LastConversation | None, forgotten: Iterable[str], forgotten_summaries: Iterable[str] = ()
) -> list[BriefLine]:
    """The last conversation's line, or none when it is empty or repeats something
    forgotten or withheld (``repeats_forgotten``; it returns with the next session's summary)."""
    if last_conversation is None:
        return []
    text = clip(last_conversation.summary)
    if not text or repeats_forgotten(last_conversation, forgotten, forgotten_summaries):
        return []
    return [BriefLine(text=text)]


def members_last(conversations: Iterable[LastConversation], settings: FamilySettings) -> dict[str, LastConversation]:
    """Each member's own last conversation: the newest (``started_at``, then session id)
    that the member took part in. A member with none is absent."""
    members = {m.id for m in settings.members}
    newest: dict[str, LastConversation] = {}
    for conversation in conversations:
        for member_id in set(conversation.members) & members:
            held = newest.get(member_id)
            if held is None or conversation.order_key() > held.order_key():
                newest[member_id] = conversation
    return newest


def member_conversations(
    conversations: Iterable[LastConversation],
    settings: FamilySettings,
    forgotten: Iterable[str],
    forgotten_summaries: Iterable[str] = (),
) -> dict[str, MemberConversation]:
    """``Brief.conversations``: each member's last conversation and its line, fitted to the
    section's budget."""
    subjects, summaries = list(forgotten), list(forgotten_summaries)
    kept: dict[str, MemberConversation] = {}
    for member_id, conversation in sorted(members_last(conversations, settings).items()):
        budget = SECTION_BUDGETS[Section.LAST_CONVERSATION]
        lines = fit(conversation_lines(conversation, subjects, summaries), budget)
        repeats = repeated_subjects(conversation) if lines else ()
        kept[member_id] = MemberConversation(session_id=conversation.session_id, lines=lines, repeats=repeats)
    return kept


def _version_key(memory: MemoryFacts) -> tuple[object, ...]:
    """Highest revision first; two copies of one revision that differ (never on file, but
    possible in a doubled or mixed read) are ordered by every field the brief reads, so
    the copy kept never depends on the order they arrived in."""
    return (
        memory.revision,
        memory.status.value,
        memory.sensitivity.value,
        memory.type.value,
        memory.about,
        memory.summary,
        sorted(memory.applies_to),
        memory.strength.value,
        memory.pin,
        memory.durability.value,
        memory.authority.value,
        memory.confidence,
        memory.reinforcement_count,
        memory.last_reinforced_at,
        memory.valid_until or date.min,
    )


def _distinct(memories: Iterable[MemoryFacts]) -> list[MemoryFacts]:
    """One memory per id (the highest revision), so a doubled read cannot double a line."""
    latest: dict[str, MemoryFacts] = {}
    for memory in memories:
        held = latest.get(memory.id)
        if held is None or _version_key(memory) > _version_key(held):
            latest[memory.id] = memory
    return list(latest.values())


def compile_brief(
    memories: Iterable[MemoryFacts],
    settings: FamilySettings,
    entities: Iterable[Entity] = (),
    conversations: Iterable[LastConversation] | None = (),
    suppressions: Iterable[Suppression] = (),
) -> Brief:
    """The family's brief. ``memories`` may hold every status: only active,
    non-sensitive memories are shown or counted, and retracted ones (with the
    ``suppressions``, the family's forget rules) say what a last conversation
    must not repeat. ``conversations``: sessions with the members who took part;
    each member's newest is that member's last conversation (any others are
    ignored). Each section is cut to its budget in weight order; every brief a
    member is served from it stays within ``BRIEF_TOKEN_CAP`` tokens."""
    family_id = settings.family_id
    distinct = _distinct(memories)
    active = [m for m in distinct if briefable(m)]
    ordered_entities = order_entities(entities)
    forgotten = forgotten_subjects(distinct, suppressions, ordered_entities)
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
    said = said_about(active)

    brief = Brief(
        family_id=family_id,
        time_zone=settings.time_zone,
        # Lazily: fit stops at the budget, so lines past it are never built.
        identity=identity_section(
            settings,
            ordered_entities,
            said,
            (memory_line(m, family_id) for m in identity),
            {m.id: m for m in identity},
        ),
        directives=fit((memory_line(m, family_id) for m in directives), SECTION_BUDGETS[Section.DIRECTIVES]),
        topics=fit(topic_lines(active, by_id, said), SECTION_BUDGETS[Section.TOPICS]),
        conversations=member_conversations(conversations or (), settings, forgotten, forgotten_claims(distinct)),
    )
    return enforce_cap(brief)


#: When the whole block is over the cap (only possible if the framing grew past
#: its allowance), lines are dropped from the end of these sections in turn.
_TRIM_ORDER = (Section.LAST_CONVERSATION, Section.TOPICS, Section.DIRECTIVES, Section.IDENTITY)


def enforce_cap(brief: Brief) -> Brief:
    """``brief`` cut back until every brief served from it (each member's own) is within
    the cap (``render.brief_tokens`` measures the largest): the last conversation of the
    member whose block is largest goes first, then the shared sections from the end."""
    while brief_tokens(brief) > BRIEF_TOKEN_CAP:
        brief = _trim_once(brief)
    return brief


def _trim_once(brief: Brief) -> Brief:
    widest = max(
        (m for m in brief.conversations if brief.conversations[m].lines),
        key=lambda m: (brief_tokens(brief.served(m)), m),
        default=None,
    )
    if widest is not None and brief_tokens(brief.served(widest)) > BRIEF_TOKEN_CAP:
        return brief.with_conversation(widest, brief.conversations[widest].lines[:-1])
    section = next((s for s in _TRIM_ORDER if brief.lines(s)), None)
    if section is None:
        raise AssertionError("the brief's fixed framing alone exceeds the token cap")
    return brief.with_lines(section, brief.lines(section)[:-1])
