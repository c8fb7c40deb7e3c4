"""Reconciliation: each accepted candidate against what the family already has.

For one session, under the family's lease: for each accepted candidate,
resolve the names it applies to (``entities``), check the family's forget
rules (``family_memory.forgotten``), find similar memories (the ``SimilarMemories``
finder given to the constructor), and decide (``decisions``): add, reinforce,
supersede, record a contradiction, or do nothing. The decisions of one session
go to the write protocol as one change set (split when it would grow past
the protocol's limit), so a crash anywhere is completed by the next writer.

A claim is never treated as newer than now: a turn dated after the clock
(a session stored before intake refused future dates) counts as said now.
A claim that applies to a child entity is stored ``minors`` (``children``);
a member this session first calls someone's child counts as a child here
(extraction has already recorded the role in ``family.json``). A correction of a hard constraint is added beside it (the
constraint is never replaced) and the two are linked: ``related`` both ways,
``possibly_replaces`` / ``possibly_replaced_by`` in their front matter, and a
``conflicts`` evidence record on the constraint, so the card asks the family
which one holds.

Replaying a session changes nothing: every decision first asks whether a
memory already holds the candidate's evidence for this claim, and a new
memory's id is derived from the family and the claim's content (type,
summary, cited turns and quotes), so even a finder that has not caught up (an
index lagging the files) cannot create a second copy. The id depends on what
was said, not on the candidate's position: a re-extraction that lists the
claims in another order, or proposes a different claim at the same position,
maps each claim to its own id.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from datetime import date, datetime

from pydantic import ValidationError
from ulid import ULID

from family_memory.domain.changes import MAX_WRITES_PER_CHANGE_SET, Action, ChangeSet, MemoryWrite
from family_memory.domain.clock import Clock, to_utc_second
from family_memory.domain.errors import InvalidInputError, NotFoundError, StaleRevisionError
from family_memory.domain.evidence import EvidenceRecord
from family_memory.domain.family import FamilySettings
from family_memory.domain.ids import new_ulid
from family_memory.domain.layout import candidates_path, session_path
from family_memory.domain.memory import Attestation, Memory, Status
from family_memory.domain.okf import parse_json, serialise_json
from family_memory.domain.refs import ConvRef
from family_memory.domain.text import normalise_for_match
from family_memory.domain.transcript import Transcript, parse_transcript
from family_memory.families import load_family
from family_memory.forgotten import ClaimMeaning, SuppressionRules
from family_memory.formation.candidate import AUTHORITY_RANK, Candidate
from family_memory.formation.children import children_learned, tag_minors, with_children
from family_memory.formation.decisions import (
    Decision,
    DecisionKind,
    EvidenceKey,
    Known,
    Proposal,
    decide,
    marks_change,
    protected,
)
from family_memory.formation.document import (
    CandidatesDocument,
    Outcome,
    OutcomeKind,
    Reconciliation,
)
from family_memory.formation.entities import EntityDirectory, Resolution
from family_memory.formation.similar import SimilarMemories
from family_memory.formation.text_similarity import content_tokens, similarity
from family_memory.writes.protocol import FamilyWriter, WriteSession

log = logging.getLogger(__name__)

ACTOR = "process:formation"
#: Leave room for the largest single decision (two memories and its entities).
_FLUSH_MARGIN = 24
#: Links (``related``, ``possibly_replaced_by``) one memory keeps at most (``Memory.related``'s limit).
MAX_LINKS = 50
_PRECEDENCE = {Action.REINFORCE: 1, Action.CONTRADICTION: 2, Action.SUPERSEDE: 3, Action.ADD: 4}


def memory_id_for(family_id: str, candidate: Candidate, evidence: list[EvidenceRecord], stated_at: datetime) -> str:
    """A ULID for the memory a candidate forms: time-ordered by when it was said, and
    derived from the claim itself (type, normalised summary, cited turns and quotes),
    so the same claim always gets the same id and a different claim a different one,
    wherever it sits in the candidates list."""
    content = {
        "family": family_id,
        "type": candidate.type.value,
        "summary": normalise_for_match(candidate.summary),
        "evidence": sorted([r.ref, normalise_for_match(r.quote)] for r in evidence),
    }
    digest = hashlib.sha256(json.dumps(content, ensure_ascii=False, sort_keys=True).encode()).digest()
    millis = int(to_utc_second(stated_at).timestamp() * 1000)
    return str(ULID.from_bytes(millis.to_bytes(6, "big") + digest[:10]))


@dataclass
class _Planned:
    action: Action
    memory: Memory
    expected_revision: int | None
    evidence: list[EvidenceRecord] = field(default_factory=list)


class _Plan:
    """The writes one session has decided and not yet applied, over the files as read."""

    def __init__(self, session: WriteSession, directory: EntityDirectory) -> None:
        self.session = session
        self.directory = directory
        self.writes: dict[str, _Planned] = {}
        self._read: dict[str, tuple[Memory, frozenset[EvidenceKey]] | None] = {}

    def on_file(self, memory_id: str) -> tuple[Memory, frozenset[EvidenceKey]] | None:
        if memory_id not in self._read:
            try:
                memory, _ = self.session.read_memory(memory_id)
            except NotFoundError:
                self._read[memory_id] = None
            else:
                keys = frozenset(r.key for r in self.session.read_evidence(memory_id))
                self._read[memory_id] = (memory, keys)
        return self._read[memory_id]

    def current(self, memory_id: str) -> tuple[Memory, frozenset[EvidenceKey]] | None:
        found = self.on_file(memory_id)
        planned = self.writes.get(memory_id)
        if planned is None:
            return found
        keys = (found[1] if found else frozenset()) | {r.key for r in planned.evidence}
        return planned.memory, frozenset(keys)

    def new_memories(self) -> list[Memory]:
        return [p.memory for p in self.writes.values() if p.expected_revision is None]

    def write(self, action: Action, memory: Memory, evidence: list[EvidenceRecord]) -> None:
        planned = self.writes.get(memory.id)
        if planned is None:
            found = self.on_file(memory.id)
            expected = found[0].revision if found else None
            planned = _Planned(action, memory, expected)
            self.writes[memory.id] = planned
        elif _PRECEDENCE[action] > _PRECEDENCE[planned.action]:
            planned.action = action
        planned.memory = memory.evolve(revision=(planned.expected_revision or 0) + 1)
        known = {r.key for r in planned.evidence}
        planned.evidence += [r for r in evidence if r.key not in known]

    @property
    def size(self) -> int:
        return len(self.writes) + len(self.directory.dirty)

    def change_set(self, family_id: str, actor: str, reason: str, source: str, now: datetime) -> ChangeSet | None:
        entity_writes = self.directory.pending_writes()
        if not self.writes and not entity_writes:
            return None
        memory_writes = [
            MemoryWrite(action=p.action, memory=p.memory, expected_revision=p.expected_revision, evidence=p.evidence)
            for p in self.writes.values()
        ]
        return ChangeSet(
            id=new_ulid(),
            family_id=family_id,
            actor=actor,
            reason=reason[:500],
            source=source,
            created_at=now,
            memories=memory_writes,
            entities=entity_writes,
        )

    def saved(self) -> None:
        self.directory.mark_saved()
        self.writes.clear()
        self._read.clear()


@dataclass
class ReconcileReport:
    family_id: str
    session_id: str
    outcomes: list[Outcome] = field(default_factory=list)
    change_ids: list[str] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        counts = {kind.value: 0 for kind in OutcomeKind}
        for outcome in self.outcomes:
            counts[outcome.kind.value] += 1
        return counts

    @property
    def changed(self) -> bool:
        return bool(self.change_ids)

    def as_dict(self) -> dict[str, object]:
        return {
            "family_id": self.family_id,
            "session_id": self.session_id,
            "counts": self.counts(),
            "rejected": self.rejected,
            "change_ids": self.change_ids,
            "outcomes": [o.model_dump(mode="json") for o in self.outcomes],
        }


class Reconciler:
    """Reconciles one session's accepted candidates through the write protocol."""

    def __init__(
        self,
        writer: FamilyWriter,
        finder: SimilarMemories,
        clock: Clock,
        *,
        actor: str = ACTOR,
        similar_limit: int = 8,
        meaning: ClaimMeaning | None = None,
    ) -> None:
        self.writer = writer
        self.store = writer.store
        self.finder = finder
        self.clock = clock
        self.actor = actor
        self.similar_limit = similar_limit
        self.meaning = meaning

    def reconcile(self, family_id: str, session_id: str) -> ReconcileReport:
        """Reconcile ``candidates/{session_id}.json`` under the family's lease."""
        transcript = parse_transcript(self.store.read(family_id, session_path(session_id)).data)
        family = load_family(self.store, family_id)
        with self.writer.open(family_id) as session:
            document = self.store.read(family_id, candidates_path(session_id))
            doc = parse_json(CandidatesDocument, document.data, candidates_path(session_id))
            if (doc.family_id, doc.session_id) != (family_id, session_id):
                raise InvalidInputError(f"{candidates_path(session_id)} names another family or session")
            run = _Run(self, session, doc, transcript, family)
            report = run.all()
            if report.changed or doc.reconciliation is None:
                self._record(doc, document.tag, report)
        return report

    def _record(self, doc: CandidatesDocument, tag: str, report: ReconcileReport) -> None:
        section = Reconciliation(reconciled_at=self.clock.now(), change_ids=report.change_ids, outcomes=report.outcomes)
        data = serialise_json(doc.model_copy(update={"reconciliation": section}))
        try:
            self.store.replace(doc.family_id, candidates_path(doc.session_id), data, expected_tag=tag)
        except StaleRevisionError:
            # A re-extraction replaced the document meanwhile; its own reconcile message follows.
            log.warning(
                "candidates document changed during reconciliation; outcome not recorded",
                extra={"family_id": doc.family_id, "session_id": doc.session_id},
            )


class _Run:
    """One session's reconciliation (state shared by its candidates)."""

    def __init__(
        self,
        reconciler: Reconciler,
        session: WriteSession,
        doc: CandidatesDocument,
        transcript: Transcript,
        family: FamilySettings,
    ) -> None:
        self.r = reconciler
        self.session = session
        self.doc = doc
        self.transcript = transcript
        self.now = reconciler.clock.now()
        self.rules = SuppressionRules.load(reconciler.store, doc.family_id, reconciler.meaning)
        self.directory = EntityDirectory.load(reconciler.store, doc.family_id, family, self.now)
        # Extraction recorded these members as children; count them so here too, whatever family.json says now.
        learned = children_learned([c for _, c in doc.accepted()], transcript, self.directory)
        if learned:
            self.directory.family = with_children(family, learned)
        self.plan = _Plan(session, self.directory)
        self.written: dict[str, Memory] = {}
        self.report = ReconcileReport(doc.family_id, doc.session_id, rejected=doc.rejected_by_rule())
        self.source = str(ConvRef(doc.family_id, doc.session_id, 1, len(transcript.turns)))
        # Keys an entry asks its evidence to carry (a migration's archived file and line).
        self.notes = {entry.index: entry.evidence_notes for entry in doc.candidates}

    def all(self) -> ReconcileReport:
        for index, candidate in self.doc.accepted():
            self.session.keep_lease()
            if self.plan.size + _FLUSH_MARGIN > MAX_WRITES_PER_CHANGE_SET:
                self.flush()
            try:
                outcome = self.one(index, candidate)
            except (InvalidInputError, ValidationError) as exc:
                # A candidate that passed validation but cannot form a valid memory: keep going.
                outcome = Outcome(index=index, kind=OutcomeKind.NOOP, detail=f"could not form a memory: {exc}")
            self.report.outcomes.append(outcome)
        self.flush()
        return self.report

    def flush(self) -> None:
        counts = self.report.counts()
        reason = f"session {self.doc.session_id}: " + ", ".join(
            f"{n} {kind}" for kind, n in counts.items() if n and kind not in ("noop", "suppressed")
        )
        change_set = self.plan.change_set(self.doc.family_id, self.r.actor, reason, self.source, self.now)
        if change_set is None:
            return
        written = {w.memory.id: w.memory for w in change_set.memories}
        result = self.session.apply(change_set)
        if result.conflicts:
            log.warning("reconcile conflicts", extra={"family_id": self.doc.family_id, "conflicts": result.conflicts})
        self.report.change_ids.append(change_set.id)
        self.written.update(written)
        self.plan.saved()

    # --- one candidate ---------------------------------------------------------

    def stated_at(self, candidate: Candidate) -> datetime:
        """When the claim was said: its latest cited turn's time, else the session start;
        never later than now (a future date would outrank every real claim after it)."""
        times = [
            t.at
            for item in candidate.evidence
            for n in range(item.first, item.last + 1)
            if (t := self.transcript.turn(n)) is not None and t.at is not None
        ]
        return min(max(times) if times else self.transcript.started_at, self.now)

    def evidence(self, candidate: Candidate, notes: dict[str, str | int] | None = None) -> list[EvidenceRecord]:
        records = []
        for item in candidate.evidence:
            turns = [t for n in range(item.first, item.last + 1) if (t := self.transcript.turn(n)) is not None]
            at = min(max((t.at for t in turns if t.at is not None), default=self.transcript.started_at), self.now)
            ref = ConvRef(self.doc.family_id, self.doc.session_id, item.first, item.last)
            fields = {**(notes or {}), "ref": str(ref), "quote": item.quote, "recordedAt": at}
            records.append(EvidenceRecord.model_validate(fields))
        return records

    def known(self, candidate: Candidate) -> list[Known]:
        query = f"{candidate.about}\n{candidate.summary}"
        known: list[Known] = []
        seen: set[str] = set()
        for row, score in self.r.finder.similar(self.doc.family_id, query, limit=self.r.similar_limit):
            current = self.plan.current(row.id)
            if current is not None:
                known.append(Known(current[0], current[1], score))
                seen.add(row.id)
        # What this run wrote or planned: a finder backed by a lagging index may not see it yet.
        for memory in [*self.written.values(), *self.plan.new_memories()]:
            if memory.id not in seen:
                current = self.plan.current(memory.id)
                if current is not None:
                    score = similarity(query, row_text_of(current[0]))
                    known.append(Known(current[0], current[1], score))
                    seen.add(memory.id)
        return known

    def name_words(self, names: list[str], resolution: Resolution) -> frozenset[str]:
        """The content words of every name the claim's people answer to."""
        texts = list(names)
        for entity_id in resolution.entity_ids:
            entity = resolution.changes.get(entity_id) or self.directory.entities.get(entity_id)
            if entity is not None:
                texts += [entity.name, *entity.aliases, entity.member_id or ""]
        return frozenset(w for text in texts for w in content_tokens(text))

    def one(self, index: int, candidate: Candidate) -> Outcome:
        names = candidate.subject_names()
        resolution = self.directory.resolve(names, list(candidate.entities))
        rule = self.rules.match(candidate, resolution.entity_ids)
        if rule is not None:
            return Outcome(
                index=index,
                kind=OutcomeKind.SUPPRESSED,
                detail=f"the family asked to forget this (suppression rule {rule.id}, {rule.scope.value})",
            )
        candidate = tag_minors(candidate, resolution.entity_ids, self.directory.child_ids(resolution.changes))
        stated_at = self.stated_at(candidate)
        evidence = self.evidence(candidate, self.notes.get(index, {}))
        new_id = memory_id_for(self.doc.family_id, candidate, evidence, stated_at)
        if self.plan.current(new_id) is not None:
            detail = "already formed from this claim"
            return Outcome(index=index, kind=OutcomeKind.NOOP, memory_id=new_id, detail=detail)
        proposal = Proposal(
            type=candidate.type,
            about=candidate.about,
            summary=candidate.summary,
            authority=candidate.authority,
            valid_until=_date(candidate.valid_until),
            applies_to=tuple(resolution.entity_ids),
            evidence=frozenset(r.key for r in evidence),
            stated_at=stated_at,
            names=self.name_words(names, resolution),
            marks_change=marks_change(candidate.summary, *(c.quote for c in candidate.evidence)),
        )
        decision = decide(proposal, self.known(candidate))
        return self.carry_out(index, candidate, decision, resolution, evidence, stated_at, new_id)

    def carry_out(
        self,
        index: int,
        candidate: Candidate,
        decision: Decision,
        resolution: Resolution,
        evidence: list[EvidenceRecord],
        stated_at: datetime,
        new_id: str,
    ) -> Outcome:
        target = decision.target
        if decision.kind is DecisionKind.NOOP:
            return Outcome(
                index=index, kind=OutcomeKind.NOOP, memory_id=target.id if target else None, detail=decision.reason
            )
        if decision.kind is DecisionKind.ADD:
            memory = self.new_memory(new_id, candidate, resolution, stated_at, beside=target)
            self.directory.apply(resolution)
            self.plan.write(Action.ADD, memory, evidence)
            if target is not None:
                self.plan.write(Action.CONTRADICTION, *self.possibly_replaced(target, memory, candidate, evidence))
            return Outcome(index=index, kind=OutcomeKind.ADDED, memory_id=memory.id, detail=decision.reason)
        assert target is not None
        if decision.kind is DecisionKind.REINFORCE:
            stronger = AUTHORITY_RANK[candidate.authority] > AUTHORITY_RANK[target.authority]
            reinforced = target.evolve(
                reinforcement_count=target.reinforcement_count + 1,
                last_reinforced_at=max(target.last_reinforced_at, stated_at),
                status=Status.ACTIVE,
                authority=candidate.authority if stronger else target.authority,
                confidence=max(target.confidence, candidate.confidence),
            )
            self.plan.write(Action.REINFORCE, reinforced, evidence)
            return Outcome(index=index, kind=OutcomeKind.REINFORCED, memory_id=target.id, detail=decision.reason)
        if decision.kind is DecisionKind.CONTRADICTION:
            count = int(target.extra_fields.get("contradictions", 0) or 0) + 1
            contested = target.evolve(contradictions=count)
            records = _stance(evidence, "contradicts", candidate)
            self.plan.write(Action.CONTRADICTION, contested, records)
            return Outcome(index=index, kind=OutcomeKind.CONTRADICTION, memory_id=target.id, detail=decision.reason)
        # SUPERSEDE: a new memory, and the old one points at it. A replaced hard constraint is
        # named on the new memory, so the card lists it as a recent change the family can undo.
        memory = self.new_memory(new_id, candidate, resolution, stated_at, supersedes=target)
        if protected(target):
            memory = memory.evolve(corrected_constraint={"memory": target.id, "summary": target.summary})
        self.directory.apply(resolution)
        self.plan.write(Action.SUPERSEDE, target.evolve(status=Status.SUPERSEDED, superseded_by=memory.id), [])
        self.plan.write(Action.ADD, memory, evidence)
        return Outcome(
            index=index, kind=OutcomeKind.SUPERSEDED, memory_id=memory.id, replaced=target.id, detail=decision.reason
        )

    def possibly_replaced(
        self, constraint: Memory, memory: Memory, candidate: Candidate, evidence: list[EvidenceRecord]
    ) -> tuple[Memory, list[EvidenceRecord]]:
        """The hard constraint ``memory`` was added beside, marked as possibly replaced by it:
        linked through ``related`` and ``possibly_replaced_by``, its ``contradictions`` counted,
        and a ``conflicts`` evidence record naming the new memory, for the family to resolve."""
        related = list(constraint.related)
        if memory.id not in related and len(related) < MAX_LINKS:
            related.append(memory.id)
        replaced_by = [str(i) for i in constraint.extra_fields.get("possibly_replaced_by") or []]
        if memory.id not in replaced_by and len(replaced_by) < MAX_LINKS:
            replaced_by.append(memory.id)
        count = int(constraint.extra_fields.get("contradictions", 0) or 0) + 1
        marked = constraint.evolve(related=related, possibly_replaced_by=replaced_by, contradictions=count)
        return marked, _stance(evidence, "conflicts", candidate, memory=memory.id)

    def new_memory(
        self,
        memory_id: str,
        candidate: Candidate,
        resolution: Resolution,
        stated_at: datetime,
        supersedes: Memory | None = None,
        beside: Memory | None = None,
    ) -> Memory:
        links = {"related": [beside.id], "possibly_replaces": beside.id} if beside is not None else {}
        return Memory(
            id=memory_id,
            type=candidate.type,
            about=candidate.about,
            summary=candidate.summary,
            when_to_use=candidate.when_to_use,
            applies_to=resolution.entity_ids,
            strength=candidate.strength,
            pin=supersedes.pin if supersedes else False,
            authority=candidate.authority,
            confidence=candidate.confidence,
            durability=candidate.durability,
            formed_at=stated_at,
            last_reinforced_at=stated_at,
            valid_until=_date(candidate.valid_until),
            supersedes=supersedes.id if supersedes else None,
            sensitivity=candidate.sensitivity,
            generated=Attestation(by=self.doc.extractor.producer, at=self.now),
            body=candidate.body or candidate.summary,
            **links,
        )


def _stance(evidence: list[EvidenceRecord], stance: str, candidate: Candidate, **extra: str) -> list[EvidenceRecord]:
    """``evidence`` recorded on another memory with a stance (``contradicts``, ``conflicts``),
    the claim it proposed and its authority."""
    return [
        EvidenceRecord.model_validate(
            {
                **record.model_dump(mode="json", by_alias=True),
                "stance": stance,
                "claim": candidate.summary,
                "authority": candidate.authority.value,
                **extra,
            }
        )
        for record in evidence
    ]


def row_text_of(memory: Memory) -> str:
    return "\n".join(part for part in (memory.about, memory.summary, memory.when_to_use) if part)


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None
