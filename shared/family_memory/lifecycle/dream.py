"""The dream pass for one family: sweep, recompile, log (seed section 5).

``dream_family`` runs under the family's write lease:

1. **Sweep.** Plan the transitions due on the family's local date from the
   catalog rows (expire, decay, promote; ``lifecycle/rules.py``), re-decide
   each one on the memory file itself, and apply them as change sets through
   the write protocol (at most ``MAX_WRITES_PER_CHANGE_SET`` writes each).
   The change-set id is derived from the date and the writes, so a retried
   pass names the same change and the protocol applies it once.
2. **Recompile.** Compile ``brief.json`` from the active memories (with each
   member's own last conversation, ``brief.sources.read_member_conversations``)
   and render ``index.md``; each is written only when its bytes changed.
3. **Log.** Add a dated entry to ``log.md`` for every change set not yet in
   it (the pass's own, and the ones whose ``changes/`` events started it),
   and a line when the brief changed.
4. **Record** the date and the next local midnight in the dream ledger, for
   the hourly fan-out.

A second pass for the same date finds no transitions, compiles the same
bytes and has nothing new to log: it writes no file. That is also how a burst
of change events converges: the first compile reflects every change that has
landed, the rest find nothing to do but log their own change.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from family_memory.brief.compile import LastConversation, compile_brief
from family_memory.brief.model import BRIEF_TOKEN_CAP, SECTION_ORDER, Brief, serialise_brief
from family_memory.brief.render import brief_tokens, section_tokens
from family_memory.brief.sources import read_entities, read_member_conversations, read_suppressions
from family_memory.brief.weights import MemoryFacts
from family_memory.domain.changes import (
    MAX_WRITES_PER_CHANGE_SET,
    Action,
    ChangeRecord,
    ChangeSet,
    MemoryWrite,
    pack_writes,
)
from family_memory.domain.clock import Clock, local_date
from family_memory.domain.family import FamilySettings
from family_memory.domain.ids import check_change_id, check_family_id
from family_memory.domain.layout import ARCHIVE, BRIEF, INDEX, LOG, change_path
from family_memory.domain.okf import parse_json
from family_memory.families import load_family
from family_memory.lifecycle.listing import render_family_index
from family_memory.lifecycle.logbook import change_lines, insert_entry, is_logged
from family_memory.lifecycle.rules import DreamPolicy, Transition, apply_transition, decide, plan_transitions
from family_memory.lifecycle.schedule import next_local_midnight
from family_memory.ports.lifecycle import DreamLedger
from family_memory.ports.store import Store
from family_memory.writes.protocol import FamilyWriter, WriteSession

DREAM_ACTOR = "process:dream"


@dataclass(frozen=True)
class DreamDeps:
    """What a dream needs; built from the Runtime by ``app/lifecycle.py``."""

    writer: FamilyWriter
    ledger: DreamLedger
    policy: DreamPolicy = field(default_factory=DreamPolicy)

    @property
    def store(self) -> Store:
        return self.writer.store


@dataclass
class DreamReport:
    family_id: str
    local_date: date
    time_zone: str
    swept: bool
    transitions: list[Transition] = field(default_factory=list)
    change_ids: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    brief_changed: bool = False
    index_changed: bool = False
    logged_changes: list[str] = field(default_factory=list)
    brief_tokens: int = 0
    section_tokens: dict[str, int] = field(default_factory=dict)
    section_lines: dict[str, int] = field(default_factory=dict)

    def counts(self) -> dict[Action, int]:
        counts: dict[Action, int] = {}
        for transition in self.transitions:
            counts[transition.action] = counts.get(transition.action, 0) + 1
        return counts

    @property
    def changed_anything(self) -> bool:
        return bool(self.transitions or self.brief_changed or self.index_changed or self.logged_changes)

    def lines(self) -> list[str]:
        counts = ", ".join(f"{action.value} {n}" for action, n in sorted(self.counts().items())) or "none"
        out = [
            f"family {self.family_id}: dream for {self.local_date.isoformat()} ({self.time_zone})",
            f"  transitions: {counts}",
        ]
        out += [f"    {t.action.value:<7} {t.memory_id}  {t.summary[:70]}  ({t.why})" for t in self.transitions]
        out.append(
            f"  brief: {'recompiled' if self.brief_changed else 'unchanged'}, "
            f"{self.brief_tokens} of {BRIEF_TOKEN_CAP} tokens "
            f"({', '.join(f'{s} {self.section_lines.get(s, 0)} lines' for s in self.section_lines)})"
        )
        out.append(
            f"  index.md: {'rewritten' if self.index_changed else 'unchanged'}; "
            f"log.md: {len(self.logged_changes)} change sets logged"
        )
        out += [f"  conflict: {c}" for c in self.conflicts]
        return out


def dream_change_id(day: date, writes: Sequence[MemoryWrite]) -> str:
    digest = hashlib.sha256(
        "|".join(f"{w.memory.id}:{w.expected_revision}:{w.action.value}" for w in writes).encode()
    ).hexdigest()[:16]
    return f"dream-{day.isoformat()}-{digest}"


def _sweep(
    session: WriteSession,
    current: dict[str, MemoryFacts],
    today: date,
    time_zone: str,
    policy: DreamPolicy,
    now: datetime,
    report: DreamReport,
) -> list[tuple[ChangeRecord, dict[str, str]]]:
    plan = plan_transitions(current.values(), today, time_zone, policy)
    records = []
    for start in range(0, len(plan), MAX_WRITES_PER_CHANGE_SET):
        session.keep_lease()
        writes: list[MemoryWrite] = []
        done: list[Transition] = []
        for planned in plan[start : start + MAX_WRITES_PER_CHANGE_SET]:
            # The file is the truth: decide again on what it holds.
            memory, _ = session.read_memory(planned.memory_id)
            decision = decide(memory, today, time_zone, policy)
            if decision is None:
                continue
            action, why = decision
            writes.append(
                MemoryWrite(action=action, memory=apply_transition(memory, action), expected_revision=memory.revision)
            )
            done.append(Transition(memory.id, action, memory.revision, memory.about, memory.summary, why))
        transitions = {t.memory_id: t for t in done}
        for group in pack_writes(writes):  # by count and by size: each fits one intent record
            change_set = ChangeSet(
                id=dream_change_id(today, group),
                family_id=session.family_id,
                actor=DREAM_ACTOR,
                reason=f"dream pass for {today.isoformat()} ({time_zone})",
                created_at=now,
                memories=group,
            )
            result = session.apply(change_set)
            report.conflicts += result.conflicts
            report.change_ids.append(change_set.id)
            skipped = set()
            if result.record is not None:
                records.append((result.record, {w.memory.id: transitions[w.memory.id].why for w in group}))
                skipped = {c.memory_id for c in result.record.memories if not c.applied}
            for write in group:
                if write.memory.id not in skipped:
                    current[write.memory.id] = write.memory
                    report.transitions.append(transitions[write.memory.id])
    return records


def _conversations(
    store: Store, ledger: DreamLedger, family_id: str, settings: FamilySettings
) -> list[LastConversation]:
    """Each member's own last conversation. The newest of them is the family's newest
    session that a member took part in: the ledger's pointer is moved to it when it is
    behind (the change triggers compare against it)."""
    found = read_member_conversations(store, family_id, settings)
    if found:
        newest = max(found, key=LastConversation.order_key)
        state = ledger.get(family_id)
        if state is None or state.last_session_id != newest.session_id:
            ledger.note_conversation(family_id, newest.session_id, newest.started_at)
    return found


def _put_if_changed(store: Store, family_id: str, path: str, data: bytes) -> bool:
    current = store.read_optional(family_id, path)
    if current is not None and current.data == data:
        return False
    store.put(family_id, path, data)
    return True


def _triggering_records(store: Store, family_id: str, change_ids: Sequence[str]) -> list[ChangeRecord]:
    records = []
    for change_id in dict.fromkeys(change_ids):
        document = store.read_optional(family_id, change_path(check_change_id(change_id)))
        if document is not None:
            records.append(parse_json(ChangeRecord, document.data, change_path(change_id)))
    return records


def _brief_line(brief: Brief, tokens: int) -> str:
    counts = ", ".join(f"{len(brief.lines(s))} {s.value.replace('_', ' ')}" for s in SECTION_ORDER)
    return f"**Brief**: recompiled from the active memories ({counts} lines; {tokens} of {BRIEF_TOKEN_CAP} tokens)"


def dream_family(
    deps: DreamDeps,
    family_id: str,
    *,
    now: datetime,
    changes: Sequence[str] = (),
    sweep: bool = True,
) -> DreamReport:
    """Dream one family as of ``now`` (its local date decides expiry and decay).

    ``changes``: ids of the change sets whose ``changes/`` events started this
    pass, to be logged. ``sweep=False`` only recompiles (no transitions, no
    ledger record). Raises the core's errors (LeaseHeldError when the family
    stays busy past the writer's wait, InvalidInputError for a bad id)."""
    check_family_id(family_id)
    store = deps.store
    with deps.writer.open(family_id) as session:
        settings = load_family(store, family_id)
        time_zone = settings.time_zone
        today = local_date(now, time_zone)
        report = DreamReport(family_id, today, time_zone, swept=sweep)
        current: dict[str, MemoryFacts] = {row.id: row for row in deps.writer.catalog.all_rows(family_id)}
        records = _sweep(session, current, today, time_zone, deps.policy, now, report) if sweep else []

        entities = read_entities(store, family_id)
        brief = compile_brief(
            current.values(),
            settings,
            entities,
            _conversations(store, deps.ledger, family_id, settings),
            read_suppressions(store, family_id),
        )
        report.brief_tokens = brief_tokens(brief)
        report.section_tokens = {s.value: section_tokens(brief, s) for s in SECTION_ORDER}
        report.section_lines = {s.value: len(brief.lines(s)) for s in SECTION_ORDER}
        session.keep_lease()
        report.brief_changed = _put_if_changed(store, family_id, BRIEF, serialise_brief(brief))
        index = render_family_index(current.values(), entities, store.list(family_id, ARCHIVE))
        report.index_changed = _put_if_changed(store, family_id, INDEX, index)

        existing = store.read_optional(family_id, LOG)
        log_text = existing.data.decode("utf-8") if existing is not None else ""
        lines: list[str] = []
        if report.brief_changed:
            lines.append(_brief_line(brief, report.brief_tokens))
        own = {record.id for record, _ in records}
        logged = [(record, notes) for record, notes in records]
        logged += [(r, {}) for r in _triggering_records(store, family_id, changes) if r.id not in own]
        for record, notes in logged:
            if not is_logged(log_text, record.id) and record.id not in report.logged_changes:
                lines += change_lines(record, notes)
                report.logged_changes.append(record.id)
        if lines:
            store.put(family_id, LOG, insert_entry(existing.data if existing else None, today, lines))
    if sweep:
        deps.ledger.record_dream(
            family_id, time_zone=time_zone, local_date=today, next_dream_at=next_local_midnight(now, time_zone)
        )
    return report


def compile_family(deps: DreamDeps, family_id: str, *, now: datetime) -> DreamReport:
    """Recompile the brief and index only (``family-memory brief compile``)."""
    return dream_family(deps, family_id, now=now, sweep=False)


def dreamer(deps: DreamDeps, clock: Clock) -> Callable[[str], DreamReport]:
    """``family_id -> DreamReport`` for callers that only know a family, such as
    formation's replay (a dream follows every replay) or a migration script."""

    def dream(family_id: str) -> DreamReport:
        return dream_family(deps, family_id, now=clock.now())

    return dream
