"""Forget rules: what counts as the forgotten claim coming back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factories import FORMED, memory
from family_memory.adapters.local.directory_store import DirectoryStore
from family_memory.domain.layout import memory_path, suppression_path
from family_memory.domain.memory import MemoryType, Status
from family_memory.domain.okf import serialise_json, serialise_memory
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.forgotten import SuppressionRules, fingerprints
from family_memory.formation.candidate import Candidate
from formation_helpers import FAMILY, candidate

RULE_ID = "01K6N1R0A0B0C0D0E0F0G0H010"
MAYA = "01K6N1R0A0B0C0D0E0F0ENT002"
MEMORY_ID = "01K6N1R0A0B0C0D0E0F0MEM003"


def rule(**fields: Any) -> Suppression:
    values: dict[str, Any] = {"id": RULE_ID, "created_at": FORMED, "created_by": "human:lucia"}
    values.update(fields)
    return Suppression(**values)


def c(**overrides: Any) -> Candidate:
    return Candidate.model_validate(candidate(**overrides))


FORGOT_THAI = rule(
    scope=SuppressionScope.MEMORY,
    fingerprints=fingerprints(["Thai food (the family)", "The family loves Thai food.", "We love Thai food"]),
)


def test_a_restated_forgotten_claim_matches() -> None:
    rules = SuppressionRules([FORGOT_THAI])
    assert rules.match(c(), []) == FORGOT_THAI
    reworded = c(summary="We really love thai food!", evidence=[{"turns": [1], "quote": "we really love Thai food"}])
    assert rules.match(reworded, []) == FORGOT_THAI


def test_an_unrelated_claim_does_not_match() -> None:
    other = c(about="Flights", summary="Never book flights before 7am.", evidence=[{"turns": [1], "quote": "Never"}])
    assert SuppressionRules([FORGOT_THAI]).match(other, []) is None


def test_an_inactive_rule_does_not_count() -> None:
    assert SuppressionRules([FORGOT_THAI.model_copy(update={"active": False})]).match(c(), []) is None


def test_an_entity_rule_matches_anything_about_that_entity() -> None:
    rules = SuppressionRules([rule(scope=SuppressionScope.ENTITY, entity_id=MAYA)])
    assert rules.match(c(summary="Maya loves swimming."), [MAYA]) is not None
    assert rules.match(c(summary="Maya loves swimming."), []) is None


def test_a_topic_rule_matches_every_word_of_the_topic() -> None:
    rules = SuppressionRules([rule(scope=SuppressionScope.TOPIC, topic="Thai food")])
    assert rules.match(c(summary="Marco orders Thai food on Fridays."), []) is not None
    italian = c(
        about="Italian food",
        summary="Marco orders Italian food on Fridays.",
        evidence=[{"turns": [1], "quote": "Italian on Fridays"}],
    )
    assert rules.match(italian, []) is None


def test_a_type_rule_matches_every_candidate_of_that_type() -> None:
    rules = SuppressionRules([rule(scope=SuppressionScope.TYPE, memory_type=MemoryType.PREFERENCE)])
    assert rules.match(c(), []) is not None
    assert rules.match(c(type="fact"), []) is None


FORGOT_ANNIE = rule(
    scope=SuppressionScope.MEMORY,
    fingerprints=fingerprints(["Address Ana Rivera as Annie.", "Ana asked to be called Annie.", "call me Annie"]),
    claims_only=True,
)


def call_me(name: str) -> Candidate:
    return c(
        type="directive",
        about="How to address Ana",
        summary=f"Address Ana Rivera as {name}.",
        evidence=[{"turns": [1], "quote": f"Call me {name}"}],
    )


def test_a_single_memory_rule_keeps_out_the_claim_but_not_a_new_value_for_its_subject() -> None:
    rules = SuppressionRules([FORGOT_ANNIE])
    assert rules.match(call_me("Annie"), []) == FORGOT_ANNIE
    assert rules.match(call_me("Ana-Maria"), []) is None  # "Annie" swapped for "Ana-Maria": a new claim


def test_a_single_memory_rule_stays_polarity_blind() -> None:
    rules = SuppressionRules([FORGOT_THAI])
    dislike = c(
        summary="The family does not like Thai food any more.",
        evidence=[{"turns": [1], "quote": "we don't like Thai food any more"}],
    )
    assert rules.match(dislike, []) == FORGOT_THAI


def test_a_rule_written_before_claims_only_sets_its_memorys_about_aside(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "bundle")
    forgotten = memory(
        id=MEMORY_ID,
        type=MemoryType.DIRECTIVE,
        about="How to address Ana",
        summary="Address Ana Rivera as Annie.",
        status=Status.RETRACTED,
    )
    store.create(FAMILY, memory_path(MEMORY_ID), serialise_memory(forgotten))
    legacy = rule(
        scope=SuppressionScope.MEMORY,
        memory_ids=[MEMORY_ID],
        fingerprints=fingerprints(["How to address Ana", "Address Ana Rivera as Annie.", "call me Annie"]),
    )
    store.create(FAMILY, suppression_path(legacy.id), serialise_json(legacy))
    rules = SuppressionRules.load(store, FAMILY)
    assert rules.match(call_me("Ana-Maria"), []) is None
    assert rules.match(call_me("Annie"), []) is not None


def test_a_group_rule_keeps_its_whole_scope() -> None:
    # Forgetting everything about Ana: her words keep out anything close, a new value included.
    group = rule(scope=SuppressionScope.ENTITY, entity_id=MAYA, fingerprints=FORGOT_ANNIE.fingerprints)
    assert SuppressionRules([group]).match(call_me("Ana-Maria"), []) is not None
