"""Reconciliation end to end on the local adapters: files, sidecars, rows, entities, change records."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from conftest import Adapters, local_adapters
from factories import evidence
from family_memory.card.operations import forget_memory
from family_memory.card.views import open_conflicts, recent_corrections
from family_memory.domain.changes import Action, ChangeRecord
from family_memory.domain.clock import FixedClock
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.family import FamilySettings, MemberRole
from family_memory.domain.layout import (
    candidates_path,
    change_path,
    entity_path,
    evidence_path,
    memory_path,
    session_path,
)
from family_memory.domain.memory import Authority, Sensitivity, Status, Strength
from family_memory.domain.okf import parse_entity, parse_json, parse_memory
from family_memory.domain.transcript import Transcript
from family_memory.families import load_family, set_member
from family_memory.formation.document import CandidatesDocument, Limits, OutcomeKind
from family_memory.formation.entities import EntityDirectory
from family_memory.formation.extraction import Extraction, Extractor, RetryPolicy, SuppliedCandidates
from family_memory.formation.offline import OfflineExtractor
from family_memory.formation.reconcile import ReconcileReport
from family_memory.formation.service import FormationDeps, extract_session, receive_session, reconcile_session
from family_memory.ports.catalog import CatalogRow
from family_memory.writes.projections import check_catalog
from formation_helpers import FAMILY, FRIDAY_MORNING, candidate, deps, save_family, session_json

Turns = list[tuple[str, str | None, str]]


@pytest.fixture
def local(tmp_path: Path, clock: FixedClock) -> Adapters:
    adapters = local_adapters(tmp_path, clock)
    save_family(adapters.store)
    return adapters


def form(d: FormationDeps, turns: Turns, session_id: str = "sess-1", day: int = 0, **kw: Any) -> ReconcileReport:
    started = FRIDAY_MORNING + timedelta(days=day)
    clock = d.clock
    if isinstance(clock, FixedClock) and clock.now() < started:
        clock.set(started + timedelta(hours=1))  # a session arrives after it happened (intake refuses the future)
    receive_session(d, session_json(turns, session_id=session_id, started_at=started), **kw)
    extract_session(d, FAMILY, session_id, enqueue=False)
    return reconcile_session(d, FAMILY, session_id)


def supplied(*candidates: dict[str, Any]) -> dict[str, Any]:
    return {"supplied": SuppliedCandidates(list(candidates), producer="test-batch")}


def memory_of(adapters: Adapters, report: ReconcileReport, n: int = 0) -> Any:
    memory_id = report.outcomes[n].memory_id
    assert memory_id is not None
    return parse_memory(adapters.store.read(FAMILY, memory_path(memory_id)).data)


def snapshot(adapters: Adapters) -> dict[str, str]:
    return {p: adapters.store.read(FAMILY, p).tag for p in adapters.store.list(FAMILY) if not p.startswith("replay/")}


def test_a_session_forms_cited_memories_with_sidecars_rows_entities_and_a_change_record(local: Adapters) -> None:
    d = deps(local)
    report = form(d, [("user", "lucia", "My daughter Maya is allergic to peanuts.")])
    assert [o.kind for o in report.outcomes] == [OutcomeKind.ADDED, OutcomeKind.ADDED]
    allergy = memory_of(local, report, 1)
    assert allergy.summary == "Maya is allergic to peanuts." and allergy.sensitivity.value == "health"
    assert allergy.formed_at == FRIDAY_MORNING and allergy.generated.by == "offline-rules/1.0"
    [record] = parse_ledger(local.store.read(FAMILY, evidence_path(allergy.id)).data)
    assert record.ref == f"conv://{FAMILY}/sess-1#turn=1" and record.quote == "My daughter Maya is allergic to peanuts"
    row = local.catalog.get_rows(FAMILY, [allergy.id])[allergy.id]
    assert row.summary == allergy.summary and row.revision == 1
    [entity_id] = allergy.applies_to
    maya = parse_entity(local.store.read(FAMILY, entity_path(entity_id)).data)
    assert maya.member_id == "maya" and "my daughter" in maya.aliases
    [change_id] = report.change_ids
    change = parse_json(ChangeRecord, local.store.read(FAMILY, change_path(change_id)).data, "change")
    assert change.actor == "process:formation" and {m.action for m in change.memories} == {Action.ADD}
    assert change.source == f"conv://{FAMILY}/sess-1#turn=1"
    assert check_catalog(local.store, local.catalog, FAMILY).consistent


def test_replaying_the_same_session_changes_nothing(local: Adapters) -> None:
    d = deps(local)
    turns: Turns = [("user", "lucia", "My daughter Maya is allergic to peanuts. We love Thai food.")]
    form(d, turns)
    before = snapshot(local)
    again = reconcile_session(d, FAMILY, "sess-1")
    assert again.change_ids == [] and {o.kind for o in again.outcomes} == {OutcomeKind.NOOP}
    extract_session(d, FAMILY, "sess-1", force=True, enqueue=False)  # a new extraction, the same claims
    after_extract = snapshot(local)
    third = reconcile_session(d, FAMILY, "sess-1")
    assert third.change_ids == []
    assert {p: t for p, t in snapshot(local).items() if not p.startswith("candidates/")} == {
        p: t for p, t in before.items() if not p.startswith("candidates/")
    }
    settled = snapshot(local)  # the new document recorded its (all noop) outcomes once
    assert reconcile_session(d, FAMILY, "sess-1").change_ids == []
    assert snapshot(local) == settled != after_extract


def test_the_same_fact_from_another_session_reinforces_and_leaves_the_text_alone(local: Adapters) -> None:
    d = deps(local)
    first = memory_of(local, form(d, [("user", "lucia", "We love Thai food.")]))
    report = form(d, [("user", "marco", "We love Thai food, by the way.")], session_id="sess-2", day=2)
    assert report.outcomes[0].kind is OutcomeKind.REINFORCED and report.outcomes[0].memory_id == first.id
    now = parse_memory(local.store.read(FAMILY, memory_path(first.id)).data)
    assert now.reinforcement_count == 1 and now.revision == 2
    assert now.last_reinforced_at == FRIDAY_MORNING + timedelta(days=2)
    assert (now.summary, now.body, now.about) == (first.summary, first.body, first.about)
    assert len(parse_ledger(local.store.read(FAMILY, evidence_path(first.id)).data)) == 2


def test_a_newer_statement_supersedes_with_links_both_ways(local: Adapters) -> None:
    d = deps(local)
    old = memory_of(local, form(d, [("user", "lucia", "We love Thai food.")]))
    hate = candidate(summary="The family does not like Thai food any more.", authority="user_explicit")
    turns: Turns = [("user", "lucia", "We love Thai food. Well, we did.")]
    report = form(d, turns, session_id="sess-2", day=3, **supplied(hate))
    [outcome] = report.outcomes
    assert outcome.kind is OutcomeKind.SUPERSEDED and outcome.replaced == old.id
    new = memory_of(local, report)
    replaced = parse_memory(local.store.read(FAMILY, memory_path(old.id)).data)
    assert replaced.status is Status.SUPERSEDED and replaced.superseded_by == new.id and new.supersedes == old.id
    change = parse_json(ChangeRecord, local.store.read(FAMILY, change_path(report.change_ids[0])).data, "change")
    assert sorted(m.action for m in change.memories) == sorted([Action.SUPERSEDE, Action.ADD])


def test_an_inference_never_replaces_an_explicit_statement(local: Adapters) -> None:
    d = deps(local)
    explicit = candidate(authority="user_explicit", confidence=0.9)
    old = memory_of(local, form(d, [("user", "lucia", "We love Thai food.")], **supplied(explicit)))
    guess = candidate(
        summary="The family does not like Thai food.",
        authority="inferred",
        confidence=0.9,
        evidence=[{"turns": [1], "quote": "skipped the Thai place again"}],
    )
    report = form(d, [("user", "marco", "We skipped the Thai place again.")], "sess-2", day=1, **supplied(guess))
    assert report.outcomes[0].kind is OutcomeKind.CONTRADICTION and report.outcomes[0].memory_id == old.id
    now = parse_memory(local.store.read(FAMILY, memory_path(old.id)).data)
    assert (now.summary, now.status, now.authority) == (old.summary, Status.ACTIVE, Authority.USER_EXPLICIT)
    assert now.extra_fields["contradictions"] == 1
    records = parse_ledger(local.store.read(FAMILY, evidence_path(old.id)).data)
    assert (records[-1].model_extra or {})["stance"] == "contradicts"


def test_a_forgotten_fact_is_not_learned_back_when_mentioned_again(local: Adapters) -> None:
    d = deps(local)
    thai = memory_of(local, form(d, [("user", "lucia", "We love Thai food.")]))
    forget_memory(d.writer, FAMILY, thai.id, "lucia")
    report = form(d, [("user", "marco", "We love Thai food!")], session_id="sess-2", day=1)
    assert [o.kind for o in report.outcomes] == [OutcomeKind.SUPPRESSED] and report.change_ids == []
    active = [r for r in local.catalog.all_rows(FAMILY) if r.status is Status.ACTIVE]
    assert active == []
    # ... and replaying the session it came from does not bring it back either.
    assert reconcile_session(d, FAMILY, "sess-1").change_ids == []
    assert parse_memory(local.store.read(FAMILY, memory_path(thai.id)).data).status is Status.RETRACTED


def test_near_duplicates_in_one_session_become_one_reinforced_memory(local: Adapters) -> None:
    d = deps(local)
    turns: Turns = [("user", "lucia", "We love Thai food."), ("user", "marco", "We really love Thai food!")]
    again = candidate(
        summary="The family really loves Thai food.", evidence=[{"turns": [2], "quote": "We really love Thai food"}]
    )
    report = form(d, turns, **supplied(candidate(), again))
    assert [o.kind for o in report.outcomes] == [OutcomeKind.ADDED, OutcomeKind.REINFORCED]
    assert len(report.change_ids) == 1
    thai = memory_of(local, report)
    assert thai.reinforcement_count == 1 and thai.revision == 1
    assert len(parse_ledger(local.store.read(FAMILY, evidence_path(thai.id)).data)) == 2


def test_a_large_session_is_split_into_change_sets_the_protocol_accepts(local: Adapters) -> None:
    d = deps(local)
    d.limits = Limits(max_new=30)
    plants = "fern cactus orchid basil mint tomato rosemary ivy bamboo lavender thyme sage aloe palm tulip daisy "
    plants += "lily violet jasmine peony begonia dahlia poppy iris lotus clover hosta yucca agave sedum"
    text = " ".join(f"Always water the {plant}." for plant in plants.split())
    report = form(d, [("user", "lucia", text)])
    assert sum(o.kind is OutcomeKind.ADDED for o in report.outcomes) == 30
    assert len(report.change_ids) >= 2
    assert sum(1 for p in local.store.list(FAMILY, "memories/") if p.endswith(".md")) == 30
    assert check_catalog(local.store, local.catalog, FAMILY).consistent


class BlindFinder:
    """A finder that sees nothing (an index that has not caught up yet)."""

    def similar(self, family_id: str, text: str, limit: int = 5) -> list[tuple[CatalogRow, float]]:
        return []


def test_a_finder_that_lags_cannot_make_a_replay_create_a_second_copy(local: Adapters) -> None:
    d = deps(local)
    d.finder = BlindFinder()
    form(d, [("user", "lucia", "We love Thai food.")])
    again = reconcile_session(d, FAMILY, "sess-1")
    assert again.change_ids == [] and again.outcomes[0].kind is OutcomeKind.NOOP
    assert sum(1 for p in local.store.list(FAMILY, "memories/") if p.endswith(".md")) == 1


def test_outcomes_are_recorded_in_the_candidates_document_once(local: Adapters) -> None:
    d = deps(local)
    form(d, [("user", "lucia", "We love Thai food.")])
    document = local.store.read(FAMILY, candidates_path("sess-1"))
    doc = parse_json(CandidatesDocument, document.data, "candidates")
    assert doc.reconciliation is not None and doc.reconciliation.outcomes[0].kind is OutcomeKind.ADDED
    reconcile_session(d, FAMILY, "sess-1")
    assert local.store.read(FAMILY, candidates_path("sess-1")).tag == document.tag


def test_aliases_let_two_sessions_share_one_entity(local: Adapters) -> None:
    d = deps(local)
    allergy = memory_of(local, form(d, [("user", "lucia", "My daughter Maya is allergic to peanuts.")]), 1)
    swim = memory_of(local, form(d, [("user", "marco", "My daughter loves swimming.")], "sess-2", day=1))
    assert allergy.applies_to == swim.applies_to and len(swim.applies_to) == 1
    assert sum(1 for _ in local.store.list(FAMILY, "entities/")) == 1


def active_summaries(adapters: Adapters) -> set[str]:
    return {r.summary for r in adapters.catalog.all_rows(FAMILY) if r.status is Status.ACTIVE}


def test_a_second_allergy_leaves_the_first_hard_constraint_active(local: Adapters) -> None:
    d = deps(local)
    form(d, [("user", "lucia", "My daughter Maya is allergic to peanuts.")])
    report = form(d, [("user", "lucia", "Maya is allergic to eggs.")], session_id="sess-2", day=1)
    assert [o.kind for o in report.outcomes] == [OutcomeKind.ADDED]
    assert {"Maya is allergic to peanuts.", "Maya is allergic to eggs."} <= active_summaries(local)
    assert not [r for r in local.catalog.all_rows(FAMILY) if r.status is Status.SUPERSEDED]


def test_two_hobbies_of_one_child_are_both_remembered(local: Adapters) -> None:
    d = deps(local)
    form(d, [("user", "lucia", "Maya loves swimming.")])
    form(d, [("user", "lucia", "Maya loves soccer.")], session_id="sess-2", day=1)
    assert {"Maya loves swimming.", "Maya loves soccer."} <= active_summaries(local)


FLIGHTS = {
    "type": "directive",
    "about": "Flights",
    "summary": "Never book flights before 7am.",
    "strength": "hard",
    "authority": "user_explicit",
    "confidence": 0.95,
    "evidence": [{"turns": [1], "quote": "Never book flights before 7am"}],
}


def test_a_re_extraction_that_lists_a_new_claim_first_forms_it(local: Adapters) -> None:
    d = deps(local)
    turns: Turns = [("user", "lucia", "We love Thai food. Never book flights before 7am.")]
    first = form(d, turns, **supplied(candidate()))
    thai = first.outcomes[0].memory_id
    # Re-extracted: the new claim is candidate 1 now, where the Thai food used to be.
    redo = SuppliedCandidates([FLIGHTS, candidate()], producer="better-model")
    extract_session(d, FAMILY, "sess-1", force=True, enqueue=False, extractor=redo)
    report = reconcile_session(d, FAMILY, "sess-1")
    assert [o.kind for o in report.outcomes] == [OutcomeKind.ADDED, OutcomeKind.NOOP]
    assert report.outcomes[1].memory_id == thai and report.outcomes[0].memory_id != thai
    assert {"The family loves Thai food.", "Never book flights before 7am."} <= active_summaries(local)


def test_the_same_claim_gets_the_same_memory_id_wherever_it_is_listed() -> None:
    from family_memory.formation.candidate import Candidate
    from family_memory.formation.reconcile import memory_id_for

    records = [evidence("We love Thai food", turns="1")]
    thai, flights = Candidate.model_validate(candidate()), Candidate.model_validate(FLIGHTS)
    same = memory_id_for(FAMILY, thai, records, FRIDAY_MORNING)
    assert memory_id_for(FAMILY, thai, records, FRIDAY_MORNING) == same
    assert memory_id_for(FAMILY, flights, records, FRIDAY_MORNING) != same
    assert memory_id_for("fam-okafor", thai, records, FRIDAY_MORNING) != same


class RacingExtractor(Extractor):
    """While it thinks, another delivery of the same event extracts the session and stores its candidates."""

    info = OfflineExtractor.info

    def __init__(self, d: FormationDeps, force: bool) -> None:
        super().__init__(RetryPolicy(max_attempts=1))
        self.d, self.force = d, force

    def _extract(self, transcript: Transcript, family: FamilySettings) -> Extraction:
        extract_session(self.d, FAMILY, transcript.session_id, force=self.force, enqueue=False)
        return Extraction(candidates=[])


@pytest.mark.parametrize("force", [False, True], ids=["first extraction", "re-extraction"])
def test_two_racing_extractions_keep_the_candidates_that_were_stored_first(local: Adapters, force: bool) -> None:
    d = deps(local)
    receive_session(d, session_json([("user", "lucia", "We love Thai food.")]))
    if force:
        extract_session(d, FAMILY, "sess-1", enqueue=False, extractor=SuppliedCandidates([], producer="old"))
    result = extract_session(d, FAMILY, "sess-1", force=force, enqueue=False, extractor=RacingExtractor(d, force))
    stored = parse_json(CandidatesDocument, local.store.read(FAMILY, candidates_path("sess-1")).data, "candidates")
    assert result.extracted is False and result.document == stored
    assert [c.summary for _, c in stored.accepted()] == ["The family loves Thai food."]


# --- second review ------------------------------------------------------------------------


def stored(adapters: Adapters, memory_id: str | None) -> Any:
    assert memory_id is not None
    return parse_memory(adapters.store.read(FAMILY, memory_path(memory_id)).data)


def test_a_claim_about_a_child_named_in_an_earlier_session_is_tagged_minors(local: Adapters) -> None:
    d = deps(local)
    form(d, [("user", "lucia", "My son Leo is seven.")])
    report = form(d, [("user", "marco", "Leo loves swimming.")], session_id="sess-2", day=1)
    [outcome] = report.outcomes
    assert outcome.kind is OutcomeKind.ADDED
    assert stored(local, outcome.memory_id).sensitivity is Sensitivity.MINORS  # was normal: it entered the brief
    doc = parse_json(CandidatesDocument, local.store.read(FAMILY, candidates_path("sess-2")).data, "doc")
    [entry] = doc.candidates
    assert any("minors" in note for note in entry.adjustments)  # validation knew Leo from the entity directory
    assert doc.summary == ""  # and the shared last-conversation line does not name him


def test_a_health_tag_on_a_claim_about_a_child_is_kept(local: Adapters) -> None:
    d = deps(local)
    form(d, [("user", "lucia", "My son Leo is seven.")])
    report = form(d, [("user", "marco", "Leo is allergic to cats.")], session_id="sess-2", day=1)
    assert stored(local, report.outcomes[0].memory_id).sensitivity is Sensitivity.HEALTH  # never lowered to minors


def test_a_member_a_parent_first_calls_their_child_is_recorded_as_a_child(local: Adapters) -> None:
    save_family(local.store, FamilySettings(family_id=FAMILY, time_zone="America/Los_Angeles"))
    d = deps(local)
    receive_session(d, session_json([("user", "nora", "Hi, I'm Nora.")], session_id="sess-0"))  # Nora joins
    form(d, [("user", "lucia", "My daughter Nora is seven.")])
    nora = load_family(local.store, FAMILY).member("nora")
    assert nora is not None and nora.role is MemberRole.CHILD
    report = form(d, [("user", "lucia", "Nora loves swimming.")], session_id="sess-2", day=1)
    assert stored(local, report.outcomes[0].memory_id).sensitivity is Sensitivity.MINORS


def test_a_role_the_family_set_back_is_not_overruled_by_a_later_mention(local: Adapters) -> None:
    save_family(local.store, FamilySettings(family_id=FAMILY, time_zone="America/Los_Angeles"))
    d = deps(local)
    receive_session(d, session_json([("user", "marco", "Hello.")], session_id="sess-0"))
    form(d, [("user", "grandma", "My son Marco is visiting.")])
    set_member(local.store, FAMILY, "marco", role=MemberRole.ADULT)  # Marco is a grown-up son
    form(d, [("user", "grandma", "My son Marco loves chess.")], session_id="sess-2", day=1)
    marco = load_family(local.store, FAMILY).member("marco")
    assert marco is not None and marco.role is MemberRole.ADULT


def test_an_unmarked_new_value_of_a_hard_constraint_is_kept_beside_it_and_linked_both_ways(local: Adapters) -> None:
    d = deps(local)
    first = form(d, [("user", "lucia", "Our dog Pepper needs his pills at 8.")])
    old_id = next(o.memory_id for o in first.outcomes if o.memory_id and "pills" in stored(local, o.memory_id).summary)
    # Nothing says the value changed: it may be a second value, so both stay and the family is asked.
    report = form(d, [("user", "lucia", "Pepper needs his pills at 9.")], session_id="sess-2", day=1)
    [outcome] = report.outcomes
    assert outcome.kind is OutcomeKind.ADDED and old_id in outcome.detail
    old, new = stored(local, old_id), stored(local, outcome.memory_id)
    assert old.status is Status.ACTIVE and new.status is Status.ACTIVE  # never silently replaced
    assert new.id in old.related and old.id in new.related
    assert old.extra_fields["possibly_replaced_by"] == [new.id] and new.extra_fields["possibly_replaces"] == old.id
    assert old.extra_fields["contradictions"] == 1
    conflict = next(r for r in parse_ledger(local.store.read(FAMILY, evidence_path(old.id)).data) if r.model_extra)
    assert conflict.model_extra == {
        "stance": "conflicts",
        "claim": "Pepper needs his pills at 9.",
        "authority": "user_explicit",
        "memory": new.id,
    }
    [from_old] = open_conflicts(local.store, FAMILY, old)
    assert from_old.relation == "possibly replaced by" and from_old.other.id == new.id
    [from_new] = open_conflicts(local.store, FAMILY, new)
    assert from_new.relation == "possibly replaces" and from_new.other.id == old.id
    again = form(d, [("user", "lucia", "Pepper needs his pills at 9.")], session_id="sess-2", day=1)
    assert [o.kind for o in again.outcomes] == [OutcomeKind.NOOP] and not again.changed  # replay: no second link


def test_the_familys_explicit_correction_of_a_hard_constraint_replaces_it_and_is_listed(local: Adapters) -> None:
    d = deps(local)
    first = form(d, [("user", "lucia", "Our dog Pepper needs his pills at 8.")])
    old_id = next(o.memory_id for o in first.outcomes if o.memory_id and "pills" in stored(local, o.memory_id).summary)
    report = form(d, [("user", "lucia", "Pepper needs his pills at 8 and 8pm now.")], session_id="sess-2", day=1)
    [outcome] = report.outcomes
    assert outcome.kind is OutcomeKind.SUPERSEDED and outcome.replaced == old_id, outcome.detail
    old, new = stored(local, old_id), stored(local, outcome.memory_id)
    assert old.status is Status.SUPERSEDED and old.superseded_by == new.id and new.supersedes == old.id
    assert new.strength is Strength.HARD
    [listed] = recent_corrections(local.store, local.catalog, FAMILY)
    assert listed.memory.id == new.id and listed.replaced_id == old.id
    assert "edit this memory to put it back" in listed.describe()


def test_the_conflict_closes_when_the_family_forgets_one_of_the_two(local: Adapters) -> None:
    d = deps(local)
    form(d, [("user", "lucia", "Our dog Pepper needs his pills at 8.")])
    report = form(d, [("user", "lucia", "Pepper needs his pills at 9.")], session_id="sess-2", day=1)
    new = stored(local, report.outcomes[0].memory_id)
    old_id = new.extra_fields["possibly_replaces"]
    forget_memory(d.writer, FAMILY, old_id, "lucia")
    assert open_conflicts(local.store, FAMILY, stored(local, new.id)) == []


def test_a_future_dated_session_on_file_never_outranks_a_real_one(local: Adapters) -> None:
    d = deps(local)
    future = datetime(2030, 1, 4, 3, 0, tzinfo=UTC)  # stored before intake refused the future
    local.store.create(
        FAMILY,
        session_path("sess-2030"),
        session_json([("user", "lucia", "Pizza night is tonight.")], session_id="sess-2030", started_at=future),
    )
    extract_session(d, FAMILY, "sess-2030", enqueue=False)
    poisoned = stored(local, reconcile_session(d, FAMILY, "sess-2030").outcomes[0].memory_id)
    assert poisoned.formed_at <= local.clock.now() and poisoned.last_reinforced_at <= local.clock.now()
    real = form(d, [("user", "lucia", "Pizza night is tonight.")], session_id="sess-real", day=4)
    [outcome] = real.outcomes
    assert outcome.kind is not OutcomeKind.NOOP, outcome.detail  # was: "older than memory ..., which it would replace"


def test_the_same_instruction_from_two_members_is_two_memories(local: Adapters) -> None:
    d = deps(local)
    ana = form(d, [("user", "lucia", "Always check with me before booking flights.")])
    ben = form(d, [("user", "marco", "Always check with me before booking flights.")], session_id="sess-2", day=1)
    lucia_memory, marco_memory = stored(local, ana.outcomes[0].memory_id), stored(local, ben.outcomes[0].memory_id)
    assert ben.outcomes[0].kind is OutcomeKind.ADDED  # was: reinforced Lucía's memory
    assert lucia_memory.summary == "Always check with Lucía before booking flights."
    assert marco_memory.summary == "Always check with Marco before booking flights."
    assert lucia_memory.reinforcement_count == 0
    people = {e.member_id: e.id for e in directory(local).entities.values()}
    assert lucia_memory.applies_to == [people["lucia"]] and marco_memory.applies_to == [people["marco"]]
    again = form(d, [("user", "lucia", "Always check with me before booking flights.")], session_id="sess-3", day=2)
    assert again.outcomes[0].kind is OutcomeKind.REINFORCED and again.outcomes[0].memory_id == lucia_memory.id


def directory(adapters: Adapters) -> EntityDirectory:
    return EntityDirectory.load(adapters.store, FAMILY, load_family(adapters.store, FAMILY), adapters.clock.now())


def test_a_transcript_in_another_time_zone_is_read_in_the_familys_with_a_warning(local: Adapters) -> None:
    d = deps(local)
    # 07:30 UTC on Saturday is still Friday evening in Los Angeles (the family's zone), Saturday in Madrid.
    late = datetime(2026, 11, 28, 7, 30, tzinfo=UTC)
    local.clock.set(late + timedelta(hours=1))
    data = session_json([("user", "lucia", "Pizza night is tonight.")], started_at=late, time_zone="Europe/Madrid")
    receive_session(d, data)
    doc = extract_session(d, FAMILY, "sess-1", enqueue=False).document
    assert doc.time_zone == "America/Los_Angeles"
    assert any("Europe/Madrid differs from the family's America/Los_Angeles" in p for p in doc.problems)
    [entry] = doc.candidates
    assert entry.candidate is not None and entry.candidate.valid_until == "2026-11-28"  # Friday's, in LA
    assert load_family(local.store, FAMILY).time_zone == "America/Los_Angeles"
