"""Forget rules: what counts as the forgotten claim coming back."""

from __future__ import annotations

from typing import Any

from factories import FORMED
from family_memory.domain.memory import MemoryType
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.formation.candidate import Candidate
from family_memory.formation.suppression_rules import SuppressionRules, fingerprints
from formation_helpers import candidate

RULE_ID = "01K6N1R0A0B0C0D0E0F0G0H010"
MAYA = "01K6N1R0A0B0C0D0E0F0ENT002"


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
