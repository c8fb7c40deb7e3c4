"""What the card shows: the list (newest first), one memory, its evidence, its lineage.

Evidence answers "why do you think that?": each supporting quote, when it was
recorded, and where it came from (a conversation's turns, or the card where a
member typed it), plus any recorded contradiction. Lineage answers "what did
this replace, and what replaced it?": the chain of versions from the first to
the current one, every one still on file. ``open_conflicts`` answers "is this
being questioned?": a hard constraint that formation kept beside a later
correction ("pills at 8" and "pills at 8 and 8pm") is "possibly replaced by"
the correction, and the correction "possibly replaces" it, while both are
current; the family resolves it by editing or forgetting one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from family_memory.domain.entity import Entity
from family_memory.domain.errors import InvalidInputError, NotFoundError
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.layout import ENTITIES, evidence_path, memory_path, session_path
from family_memory.domain.memory import Memory, MemoryType, Status
from family_memory.domain.okf import parse_entity, parse_memory
from family_memory.domain.refs import ConvRef
from family_memory.domain.transcript import parse_transcript
from family_memory.forgotten import ForgottenWords
from family_memory.ports.catalog import DEFAULT_PAGE_SIZE, Catalog, CatalogRow, Page
from family_memory.ports.store import Store

MAX_LINEAGE = 100
#: Rows a filtered page reads from the catalog at most; past that it ends early with a cursor.
MAX_FILTER_SCAN = 1_000
#: Turns shown around a cited range, before and after it.
EXCERPT_CONTEXT_TURNS = 1
#: Turns one excerpt shows at most (the read tool's own cap).
MAX_EXCERPT_TURNS = 20


def list_memories(
    catalog: Catalog,
    family_id: str,
    *,
    status: Status | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
    cursor: str | None = None,
) -> Page:
    """The card's list: newest first, one page at a time."""
    return catalog.list_rows(family_id, status=status, limit=limit, cursor=cursor)


def list_filtered(
    catalog: Catalog,
    family_id: str,
    *,
    status: Status | None = None,
    entity_id: str | None = None,
    memory_type: MemoryType | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
    cursor: str | None = None,
) -> Page:
    """The card's list narrowed to one person (an entity id in ``applies_to``) and/or one type,
    through the same cursor pagination: the catalog is read a page at a time, never more rows
    than the page still needs, so the cursor handed back continues right after the last row
    shown. A sparse filter reads at most ``MAX_FILTER_SCAN`` rows per call and may answer a
    short page with a cursor: the next page goes on from there."""
    if entity_id is None and memory_type is None:
        return catalog.list_rows(family_id, status=status, limit=limit, cursor=cursor)

    def wanted(row: CatalogRow) -> bool:
        return (entity_id is None or entity_id in row.applies_to) and (memory_type is None or row.type is memory_type)

    rows: list[CatalogRow] = []
    scanned = 0
    while len(rows) < limit and scanned < MAX_FILTER_SCAN:
        page = catalog.list_rows(family_id, status=status, limit=limit - len(rows), cursor=cursor)
        scanned += len(page.rows)
        rows += [row for row in page.rows if wanted(row)]
        cursor = page.cursor
        if cursor is None:
            break
    return Page(rows, cursor)


def family_entities(store: Store, family_id: str) -> list[Entity]:
    """The people, pets, places and groups the family's memories apply to, by name."""
    found = [
        parse_entity(store.read(family_id, path).data, path)
        for path in store.list(family_id, ENTITIES)
        if path.endswith(".md")
    ]
    return sorted(found, key=lambda e: (e.name.casefold(), e.id))


def read_memory(store: Store, family_id: str, memory_id: str) -> Memory:
    document = store.read_optional(family_id, memory_path(memory_id))
    if document is None:
        raise NotFoundError(f"memory {memory_id} does not exist in family {family_id}")
    return parse_memory(document.data, memory_path(memory_id))


@dataclass(frozen=True)
class EvidenceLine:
    ref: str
    quote: str
    recorded_at: datetime
    source: str  # "conversation" | "card" | "memory"
    stance: str  # "supports" | "contradicts" | "conflicts" (a correction kept beside a hard constraint)
    speaker: str | None = None  # who wrote the cited turn(s), when the session is on file
    note: str = ""


@dataclass(frozen=True)
class EvidenceView:
    memory: Memory
    lines: list[EvidenceLine]


def evidence_view(store: Store, family_id: str, memory_id: str) -> EvidenceView:
    """The memory and every record of its evidence ledger, oldest first."""
    memory = read_memory(store, family_id, memory_id)
    ledger = store.read_optional(family_id, evidence_path(memory_id))
    records = parse_ledger(ledger.data, where=evidence_path(memory_id)) if ledger else []
    lines = []
    for record in records:
        extra = record.model_extra or {}
        stance = str(extra.get("stance", "supports"))
        note = ""
        if stance == "contradicts":
            authority = extra.get("authority", "unknown authority")
            note = f"proposed instead: {extra.get('claim', '')} ({authority}); not applied"
        elif stance == "conflicts":
            authority = extra.get("authority", "unknown authority")
            note = (
                f"possibly replaced by memory {extra.get('memory', '?')}: {extra.get('claim', '')} ({authority}); "
                "both kept for the family to resolve"
            )
        if record.ref.startswith("conv://"):
            ref = ConvRef.parse(record.ref)
            lines.append(
                EvidenceLine(
                    record.ref,
                    record.quote,
                    record.recorded_at,
                    "conversation",
                    stance,
                    _speakers(store, ref),
                    note,
                )
            )
        else:
            source = "card" if extra.get("source") == "card" else "memory"
            lines.append(EvidenceLine(record.ref, record.quote, record.recorded_at, source, stance, note=note))
    return EvidenceView(memory, lines)


def _speakers(store: Store, ref: ConvRef) -> str | None:
    document = store.read_optional(ref.family_id, session_path(ref.session_id))
    if document is None:
        return None
    try:
        transcript = parse_transcript(document.data)
    except InvalidInputError:
        return None
    who = []
    for n in ref.turns:
        turn = transcript.turn(n)
        if turn is not None:
            name = turn.member_id if turn.member_id else turn.role.value
            if name not in who:
                who.append(name)
    return ", ".join(who) or None


@dataclass(frozen=True)
class OpenConflict:
    """Another current memory this one may have been replaced by, or may replace."""

    relation: str  # "possibly replaced by" | "possibly replaces"
    other: Memory

    def describe(self) -> str:
        return (
            f"{self.relation} {self.other.id}: {self.other.summary} "
            "(both are kept; ask the family which holds, then edit or forget one)"
        )


_CURRENT = (Status.ACTIVE, Status.DORMANT)


def open_conflicts(store: Store, family_id: str, memory: Memory) -> list[OpenConflict]:
    """The unresolved "possibly replaced by" links of ``memory`` (both ends still current).
    Formation records them when it adds a correction beside a hard constraint it never replaces."""
    if memory.status not in _CURRENT:
        return []
    extra = memory.extra_fields
    links = [("possibly replaced by", str(i)) for i in extra.get("possibly_replaced_by") or []]
    if extra.get("possibly_replaces"):
        links.append(("possibly replaces", str(extra["possibly_replaces"])))
    found = []
    for relation, other_id in links:
        try:
            other = read_memory(store, family_id, other_id)
        except (NotFoundError, InvalidInputError):
            continue
        if other.status in _CURRENT:
            found.append(OpenConflict(relation, other))
    return found


@dataclass(frozen=True)
class CorrectedConstraint:
    """A hard constraint formation replaced on the family's explicit word: a recent change
    the card lists, so a misheard correction of an allergy is seen and undone by editing."""

    memory: Memory  # the current memory, which replaced it
    replaced_id: str
    replaced_summary: str

    def describe(self) -> str:
        return (
            f"replaced the hard constraint {self.replaced_id}: {self.replaced_summary} "
            "(from a conversation; if that is wrong, edit this memory to put it back)"
        )


def corrected_constraint(memory: Memory) -> CorrectedConstraint | None:
    """What ``memory`` replaced when it is the correction of a hard constraint, else None."""
    record = memory.extra_fields.get("corrected_constraint")
    if not isinstance(record, dict) or not record.get("memory"):
        return None
    return CorrectedConstraint(memory, str(record["memory"]), str(record.get("summary", "")))


def recent_corrections(store: Store, catalog: Catalog, family_id: str) -> list[CorrectedConstraint]:
    """Every current correction of a hard constraint, newest first."""
    found = []
    for row in catalog.all_rows(family_id):
        if row.status in _CURRENT and row.type is MemoryType.CONSTRAINT and row.supersedes:
            corrected = corrected_constraint(read_memory(store, family_id, row.id))
            if corrected is not None:
                found.append(corrected)
    return sorted(found, key=lambda c: c.memory.formed_at, reverse=True)


@dataclass(frozen=True)
class LineageStep:
    memory: Memory

    @property
    def verified_by(self) -> list[str]:
        return [a.by for a in self.memory.verified or []]


@dataclass(frozen=True)
class Lineage:
    asked: str
    steps: list[LineageStep]  # oldest version first

    @property
    def current(self) -> Memory:
        return self.steps[-1].memory


def lineage_view(store: Store, family_id: str, memory_id: str) -> Lineage:
    """Every version of the claim, from the first to the latest, through supersedes/superseded_by."""
    asked = read_memory(store, family_id, memory_id)
    seen = {asked.id}
    older = _follow(store, family_id, asked, lambda m: m.supersedes, seen)
    newer = _follow(store, family_id, asked, lambda m: m.superseded_by, seen)
    chain = [*reversed(older), asked, *newer]
    return Lineage(asked.id, [LineageStep(m) for m in chain])


def _follow(
    store: Store, family_id: str, start: Memory, link: Callable[[Memory], str | None], seen: set[str]
) -> list[Memory]:
    """The versions ``link`` leads to from ``start``, nearest first: it stops at a missing file,
    at a version already in ``seen`` (which it adds to) and at MAX_LINEAGE versions in all."""
    found: list[Memory] = []
    current = start
    while (next_id := link(current)) and len(seen) < MAX_LINEAGE:
        try:
            version = read_memory(store, family_id, next_id)
        except NotFoundError:
            break
        if version.id in seen:
            break
        seen.add(version.id)
        found.append(version)
        current = version
    return found


# --- what the family reads on the card: evidence with its conversation, forgotten words hidden ---


@dataclass(frozen=True)
class ExcerptTurn:
    n: int
    role: str  # "user", "assistant", "tool"
    member_id: str | None
    at: datetime | None
    text: str | None  # None: it holds words the family asked to forget
    cited: bool


@dataclass(frozen=True)
class Excerpt:
    ref: str
    started_at: datetime | None
    turns: list[ExcerptTurn]
    missing: str = ""  # why no turn is shown (the conversation is not on file)


@dataclass(frozen=True)
class ShownEvidence:
    line: EvidenceLine
    quote: str | None  # None: forgotten words
    excerpt: Excerpt | None  # the conversation it came from (None: typed on the card)


def conversation_excerpt(
    store: Store, family_id: str, ref: ConvRef, forgotten: ForgottenWords, *, around: int = EXCERPT_CONTEXT_TURNS
) -> Excerpt:
    """The cited turns and ``around`` turns either side, with the read tool's redaction: a turn
    holding words the family asked to forget shows none of them (``ForgottenWords.covers``)."""
    if ref.family_id != family_id:
        return Excerpt(str(ref), None, [], f"the reference names another family ({ref.family_id})")
    document = store.read_optional(family_id, session_path(ref.session_id))
    if document is None:
        return Excerpt(str(ref), None, [], f"conversation {ref.session_id} is not on file")
    try:
        transcript = parse_transcript(document.data, session_path(ref.session_id))
    except InvalidInputError as exc:
        return Excerpt(str(ref), None, [], f"conversation {ref.session_id} could not be read ({exc})")
    first = max(1, ref.first_turn - around)
    last = min(len(transcript.turns), ref.last_turn + around, first + MAX_EXCERPT_TURNS - 1)
    turns = []
    for n in range(first, last + 1):
        turn = transcript.turns[n - 1]
        text = None if forgotten.covers(turn.text) else turn.text
        turns.append(ExcerptTurn(n, turn.role.value, turn.member_id, turn.at, text, n in ref.turns))
    missing = "" if turns else f"conversation {ref.session_id} has no turn {ref.first_turn}"
    return Excerpt(str(ref), transcript.started_at, turns, missing)


def shown_evidence(store: Store, family_id: str, memory_id: str) -> tuple[Memory, list[ShownEvidence]]:
    """The memory and its evidence as the card shows it to the family: every record, its quote
    (hidden when it holds forgotten words, as the read tools hide it) and the excerpt of the
    conversation it came from, oldest first."""
    view = evidence_view(store, family_id, memory_id)
    forgotten = ForgottenWords.load(store, family_id)
    shown = []
    for line in view.lines:
        excerpt = None
        if line.source == "conversation":
            excerpt = conversation_excerpt(store, family_id, ConvRef.parse(line.ref), forgotten)
        quote = None if forgotten.covers(line.quote) else line.quote
        shown.append(ShownEvidence(line, quote, excerpt))
    return view.memory, shown
