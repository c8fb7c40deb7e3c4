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

from dataclasses import dataclass
from datetime import datetime

from family_memory.domain.errors import InvalidInputError, NotFoundError
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.layout import evidence_path, memory_path, session_path
from family_memory.domain.memory import Memory, MemoryType, Status
from family_memory.domain.okf import parse_memory
from family_memory.domain.refs import ConvRef
from family_memory.domain.transcript import parse_transcript
from family_memory.ports.catalog import DEFAULT_PAGE_SIZE, Catalog, Page
from family_memory.ports.store import Store

MAX_LINEAGE = 100


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
    older: list[Memory] = []
    seen = {asked.id}
    current = asked
    while current.supersedes and len(seen) < MAX_LINEAGE:
        try:
            previous = read_memory(store, family_id, current.supersedes)
        except NotFoundError:
            break
        if previous.id in seen:
            break
        seen.add(previous.id)
        older.append(previous)
        current = previous
    newer: list[Memory] = []
    current = asked
    while current.superseded_by and len(seen) < MAX_LINEAGE:
        try:
            following = read_memory(store, family_id, current.superseded_by)
        except NotFoundError:
            break
        if following.id in seen:
            break
        seen.add(following.id)
        newer.append(following)
        current = following
    chain = [*reversed(older), asked, *newer]
    return Lineage(asked.id, [LineageStep(m) for m in chain])
