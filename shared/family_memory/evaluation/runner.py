"""Running the labelled families through the real pipeline on simulated time.

One fresh local runtime per mode (a temporary home: the folder store, SQLite,
the embedded index with the offline embedder, in-process dispatch). Time is
the runtime's own ``FixedClock``: before each session the clock is set to just
after its last turn and, when a local day has passed, the family is dreamed as
the nightly pass would; after the session its scripted card actions run
through the card services; at the family's ``end_at`` a last dream runs and the
final state is read back: every memory with its evidence and entities, the
brief for each surface (compiled twice, to check the bytes), the search and
lookup answers for every probe and task-shaped query.

Nothing here scores anything: ``metrics`` does, from the ``FamilyRun`` this
module returns, so a metric is a pure function of what the pipeline produced.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from pathlib import Path

from family_memory.app.bootstrap import build_local
from family_memory.app.runtime import Runtime, retrieval_for
from family_memory.app.sessions import end_session
from family_memory.app.settings import load_settings
from family_memory.brief.model import Brief
from family_memory.brief.render import prompt_block
from family_memory.card.operations import (
    GroupSelector,
    MemoryDraft,
    MemoryEdit,
    add_memory,
    edit_memory,
    forget_group,
    forget_memory,
    preview_group,
)
from family_memory.domain.clock import FixedClock, local_date
from family_memory.domain.entity import Entity
from family_memory.domain.errors import FamilyMemoryError
from family_memory.domain.evidence import EvidenceRecord, parse_ledger
from family_memory.domain.family import FamilySettings, Member, Surface
from family_memory.domain.layout import BRIEF, entity_path, evidence_path
from family_memory.domain.memory import Memory, MemoryType, Status
from family_memory.domain.okf import parse_entity, parse_memory
from family_memory.domain.refs import ConvRef, MemoryRef
from family_memory.evaluation.dataset import Action, ActionKind, EvalFamily, Fact, Place
from family_memory.families import save_family
from family_memory.formation.document import CandidatesDocument
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.formation.service import read_document
from family_memory.lifecycle.dream import compile_family, dream_family
from family_memory.ports.catalog import CatalogRow
from family_memory.retrieval.embedding import Embedder

#: Results the probes ask search_memory for (its default), and the ranked depth kept for recall.
PROBE_LIMIT = 5
_MEMORY_REF = re.compile(r"memory://[a-z0-9_-]+/([0-9A-HJKMNP-TV-Z]{26})")


class Mode(StrEnum):
    #: The runtime's configured extractor (the offline rules by default; Bedrock with FORMATION_EXTRACTOR=bedrock).
    OFFLINE = "offline"
    #: The labelled candidates each session carries, as a careful LLM extractor would write them.
    SUPPLIED = "supplied"


@dataclass(frozen=True)
class MemoryView:
    """A memory as the evaluation sees it at the end."""

    memory: Memory
    evidence: tuple[EvidenceRecord, ...]
    entities: tuple[Entity, ...]

    @property
    def id(self) -> str:
        return self.memory.id

    @property
    def formed(self) -> bool:
        """Written by formation (the card's memories carry no ``generated``)."""
        return self.memory.generated is not None

    @property
    def text(self) -> str:
        return f"{self.memory.summary} {self.memory.about}"

    def cited(self) -> set[tuple[str, int]]:
        """(session, turn) of every conversation turn its evidence cites."""
        out: set[tuple[str, int]] = set()
        for record in self.evidence:
            if record.ref.startswith("conv://"):
                ref = ConvRef.parse(record.ref)
                out.update((ref.session_id, n) for n in ref.turns)
        return out

    def sessions(self) -> set[str]:
        return {s for s, _ in self.cited()}

    def cites(self, places: list[Place]) -> bool:
        cited = self.cited()
        return any((p.session, p.turn) in cited for p in places)


@dataclass(frozen=True)
class Ranked:
    """One row of a ranked answer: the memory and the line the agent would read."""

    memory_id: str
    line: str


@dataclass
class FamilyRun:
    family: EvalFamily
    memories: dict[str, MemoryView]
    #: Every brief a request can be served: by surface (no member named), and ``chat:{member}``
    #: for each member's own chat (their own last conversation), as the agent loads them.
    briefs: dict[str, Brief]
    brief_texts: dict[str, str]
    brief_tokens: int
    brief_stable: bool
    documents: list[CandidatesDocument]
    #: fact id -> memory ids search_memory returned for its probe (chat surface).
    probes: dict[str, list[str]] = field(default_factory=dict)
    #: fact id -> memory ids the household lookup returned for its probe.
    household_probes: dict[str, list[str]] = field(default_factory=dict)
    #: query id -> memory ids of the turn-level lookup (chat) and (household).
    queries: dict[str, list[str]] = field(default_factory=dict)
    household_queries: dict[str, list[str]] = field(default_factory=dict)
    #: question id -> the hybrid search's full ranked list (evidence recall).
    ranked: dict[str, list[Ranked]] = field(default_factory=dict)
    #: fact id -> memory ids a scripted forget or group forget retracted.
    forgot: dict[str, list[str]] = field(default_factory=dict)
    #: What the scripted actions did, and what they could not do.
    action_log: list[str] = field(default_factory=list)
    local_end: date | None = None

    def active(self) -> list[MemoryView]:
        return [m for m in self.memories.values() if m.memory.status is Status.ACTIVE]


def questions(family: EvalFamily) -> Iterator[tuple[str, str, list[Place]]]:
    """(question id, text, gold turns): each current fact's probe, then each query
    (gold: the turns of the facts it needs)."""
    for fact in family.spec.facts:
        if fact.probe and fact.said and fact.final.value == "active":
            yield f"probe:{fact.id}", fact.probe, list(fact.said)
    for query in family.spec.queries:
        gold = [p for need in query.needs for p in family.fact(need).said]
        if gold:
            yield f"query:{query.id}", query.message, gold


class FamilyRunner:
    """Drives one runtime through one family's timeline."""

    def __init__(self, runtime: Runtime, clock: FixedClock, mode: Mode, log: Callable[[str], None]) -> None:
        self.runtime = runtime
        self.clock = clock
        self.mode = mode
        self.log = log

    # --- the timeline ---------------------------------------------------------------

    def run(self, family: EvalFamily) -> FamilyRun:
        spec = family.spec
        first = family.sessions[0].started_at
        self.clock.set(first - timedelta(hours=1))
        save_family(
            self.runtime.store,
            FamilySettings(
                family_id=spec.family_id,
                time_zone=spec.time_zone,
                members=[Member(id=m.id, name=m.name, role=m.role, address_as=m.address_as) for m in spec.members],
            ),
        )
        forgot: dict[str, list[str]] = {}
        action_log: list[str] = []
        dreamed: date | None = None
        for session in family.sessions:
            at = session.ended_at + timedelta(minutes=2)
            self.clock.set(at)
            today = local_date(at, spec.time_zone)
            if dreamed is not None and today > dreamed:
                self._dream(family.id)
            dreamed = today
            supplied = None
            if self.mode is Mode.SUPPLIED:
                supplied = SuppliedCandidates(list(session.spec.candidates), producer="eval-labelled-candidates")
            data = json.dumps(session.transcript(spec.family_id, spec.time_zone)).encode()
            end_session(self.runtime, data, supplied=supplied)
            for action in session.spec.after:
                self.clock.advance(timedelta(minutes=1))
                action_log.append(f"after {session.id}: {self._act(family, action, forgot)}")
                self.runtime.drain()
        self.clock.set(family.end_at)
        self._dream(family.id)
        return self._collect(family, forgot, action_log)

    def _dream(self, family_id: str) -> None:
        dream_family(self.runtime.lifecycle.deps, family_id, now=self.clock.now())
        self.runtime.drain()

    # --- scripted card actions --------------------------------------------------------

    def _stating(self, family: EvalFamily, fact: Fact, statuses: tuple[Status, ...]) -> list[Memory]:
        """The family's memories in ``statuses`` that state ``fact`` (best match first)."""
        matcher = fact.matcher()
        found: list[tuple[int, Memory]] = []
        for memory in self._memories(family.id):
            if memory.status in statuses:
                score = matcher.score(f"{memory.summary} {memory.about}")
                if score:
                    found.append((score, memory))
        found.sort(key=lambda pair: -pair[0])
        return [m for _, m in found]

    def _act(self, family: EvalFamily, action: Action, forgot: dict[str, list[str]]) -> str:
        writer = self.runtime.writer
        live = (Status.ACTIVE, Status.DORMANT, Status.EXPIRED)
        try:
            if action.kind is ActionKind.FORGET:
                assert action.forget is not None
                targets = self._stating(family, family.fact(action.forget), live)
                for memory in targets:
                    forget_memory(writer, family.id, memory.id, action.by, reason=action.reason)
                forgot[action.forget] = [m.id for m in targets]
                if not targets:
                    return f"forget {action.forget}: no memory states it (nothing to forget)"
                return f"forget {action.forget}: retracted {len(targets)}"
            if action.kind is ActionKind.EDIT:
                assert action.edit is not None and action.summary is not None and action.becomes is not None
                targets = self._stating(family, family.fact(action.edit), live)
                if not targets:
                    new_fact = family.fact(action.becomes)
                    draft = MemoryDraft(
                        type=new_fact.kind, about=action.about or new_fact.text[:120], summary=action.summary
                    )
                    add_memory(writer, family.id, action.by, draft)
                    return f"edit {action.edit}: no memory states it; the family added the new wording instead"
                edit_memory(
                    writer,
                    family.id,
                    targets[0].id,
                    action.by,
                    MemoryEdit(summary=action.summary, about=action.about),
                )
                return f"edit {action.edit}: superseded {targets[0].id}"
            assert action.forget_group is not None
            ((key, value),) = action.forget_group.items()
            selector = (
                GroupSelector(entity=value)
                if key == "entity"
                else GroupSelector(topic=value)
                if key == "topic"
                else GroupSelector(memory_type=MemoryType(value))
            )
            preview = preview_group(writer, family.id, selector)
            forget_group(writer, family.id, selector, action.by, expected_count=preview.count, reason=action.reason)
            ids = [row.id for row in preview.memories]
            for fact_id in action.covers:
                forgot.setdefault(fact_id, []).extend(ids)
            return f"forget group {key}={value!r}: retracted {preview.count}"
        except FamilyMemoryError as exc:
            return f"{action.kind.value} failed: {type(exc).__name__}: {exc}"

    # --- reading the end state --------------------------------------------------------

    def _memories(self, family_id: str) -> Iterator[Memory]:
        store = self.runtime.store
        for path in sorted(store.list(family_id, "memories/")):
            if path.endswith(".md"):
                yield parse_memory(store.read(family_id, path).data, path)

    def _view(self, family_id: str, memory: Memory) -> MemoryView:
        store = self.runtime.store
        ledger = store.read_optional(family_id, evidence_path(memory.id))
        evidence = tuple(parse_ledger(ledger.data)) if ledger is not None else ()
        entities = []
        for entity_id in memory.applies_to:
            document = store.read_optional(family_id, entity_path(entity_id))
            if document is not None:
                entities.append(parse_entity(document.data))
        return MemoryView(memory, evidence, tuple(entities))

    def _collect(self, family: EvalFamily, forgot: dict[str, list[str]], action_log: list[str]) -> FamilyRun:
        fid = family.id
        runtime = self.runtime
        lifecycle = runtime.lifecycle
        memories = {m.id: self._view(fid, m) for m in self._memories(fid)}
        first_bytes = runtime.store.read(fid, BRIEF).data
        compile_family(lifecycle.deps, fid, now=self.clock.now())
        runtime.drain()
        stable = runtime.store.read(fid, BRIEF).data == first_bytes
        # Each brief the agent can be served: by surface (no member named; the household one is
        # everyone's), and each member's own chat, with their own last conversation.
        served: list[tuple[str, str | None, Surface]] = [(surface.value, None, surface) for surface in Surface]
        served += [(f"chat:{m.id}", m.id, Surface.CHAT) for m in family.spec.members]
        briefs: dict[str, Brief] = {}
        texts: dict[str, str] = {}
        tokens = 0
        for key, member_id, surface in served:
            loaded = runtime.brief.loader.load(fid, member_id=member_id, surface=surface) or Brief(family_id=fid)
            block = prompt_block(loaded, surface)
            briefs[key], texts[key], tokens = loaded, block.text, max(tokens, block.brief_tokens)
        documents = [doc for s in family.sessions if (doc := read_document(runtime.store, fid, s.id)) is not None]
        run = FamilyRun(
            family=family,
            memories=memories,
            briefs=briefs,
            brief_texts=texts,
            brief_tokens=tokens,
            brief_stable=stable,
            documents=documents,
            forgot=forgot,
            action_log=action_log,
            local_end=local_date(family.end_at, family.spec.time_zone),
        )
        retrieval = retrieval_for(runtime)
        tools = retrieval.tools(fid, Surface.CHAT)
        lookup = retrieval.lookup
        for fact in family.spec.facts:
            if fact.probe:
                answer = tools.search_memory(fact.probe, PROBE_LIMIT)
                run.probes[fact.id] = _MEMORY_REF.findall(answer)
                household = lookup.lookup(fid, fact.probe, Surface.HOUSEHOLD)
                run.household_probes[fact.id] = [item.row.id for item in household.items]
        for query in family.spec.queries:
            found = lookup.lookup(fid, query.message, query.surface, member_id=query.member)
            run.queries[query.id] = [item.row.id for item in found.items]
            household = lookup.lookup(fid, query.message, Surface.HOUSEHOLD)
            run.household_queries[query.id] = [item.row.id for item in household.items]
        for question_id, text, _ in questions(family):
            confirmed, _, zone = lookup.ranked(fid, text, Surface.CHAT)
            run.ranked[question_id] = [Ranked(row.id, _line(row, fid, self.clock.now(), zone)) for row, _ in confirmed]
        return run


def _line(row: CatalogRow, family_id: str, now: datetime, zone: str) -> str:
    from family_memory.retrieval.age import age_in_words
    from family_memory.retrieval.lookup import line_for

    return line_for(row, str(MemoryRef(family_id, row.id)), age_in_words(row.formed_at, now, zone), zone)


@contextmanager
def eval_runtime(home: Path | None = None) -> Iterator[tuple[Runtime, FixedClock]]:
    """A fresh local runtime on a simulated clock, in ``home`` or a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="family-memory-eval-") as tmp:
        folder = home or Path(tmp)
        clock = FixedClock(datetime(2026, 1, 1, tzinfo=UTC))
        runtime = build_local(load_settings(home=str(folder)), clock)
        yield runtime, clock


@dataclass
class ModeRun:
    runs: list[FamilyRun]
    #: The runtime's embedder (the evidence-recall baseline embeds summaries with it).
    embedder: Embedder


def run_families(
    families: list[EvalFamily], mode: Mode, *, home: Path | None = None, progress: Callable[[str], None] = print
) -> ModeRun:
    """Every family through the pipeline in one fresh runtime (families share it: isolation holds)."""
    runs: list[FamilyRun] = []
    with eval_runtime(home) as (runtime, clock):
        runner = FamilyRunner(runtime, clock, mode, progress)
        for family in families:
            progress(f"  {mode.value}: {family.id} ({len(family.sessions)} sessions)")
            runs.append(runner.run(family))
        return ModeRun(runs, retrieval_for(runtime).embedder)
