"""The two checks that decide by meaning, held to what they measure on their calibration sets
(eval/calibration/): a change that makes either error rate worse fails here. The figures
and how they were reached are in docs/evaluation.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from family_memory.domain.ids import new_ulid
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.evaluation.calibration import restatement_rates, support_rates
from family_memory.forgotten import (
    APPLIES_TO,
    CLAIMS_ONLY,
    MEANING_THRESHOLDS,
    ClaimMeaning,
    SuppressionRules,
    fingerprints,
)
from family_memory.formation.candidate import Candidate

SETS = Path(__file__).parents[2] / "eval" / "calibration"
#: Measured on 2026-12-01 (docs/evaluation.md: 89.4% and 5.2% on 382 pairs); the issue's aim is
#: >= 97% and <= 2%.
SUPPORTED_ACCEPTED_AT_LEAST = 0.89
UNSUPPORTED_ACCEPTED_AT_MOST = 0.055
RESTATED_KEPT_OUT_AT_LEAST = 0.87
NEW_CLAIMS_KEPT_OUT_AT_MOST = 0.11


def test_the_support_check_holds_its_measured_error_rates() -> None:
    rates = support_rates(SETS / "support.yaml")
    assert rates.yes_total >= 150 and rates.no_total >= 150, "the set must keep at least 300 pairs, half unsupported"
    assert rates.yes_rate >= SUPPORTED_ACCEPTED_AT_LEAST, "\n".join(rates.lines(details=True))
    assert rates.no_rate <= UNSUPPORTED_ACCEPTED_AT_MOST, "\n".join(rates.lines(details=True))


@pytest.mark.slow
def test_forget_rules_hold_their_measured_error_rates_with_the_offline_embedder() -> None:
    from family_memory.adapters.local.minilm_embedder import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    meaning = ClaimMeaning.for_model(embedder.model_id, embedder.embed)
    assert meaning is not None, f"no calibrated threshold for {embedder.model_id}: {sorted(MEANING_THRESHOLDS)}"
    rates = restatement_rates(SETS / "restatement.yaml", meaning)
    assert rates.yes_total >= 100 and rates.no_total >= 100, "the set must keep at least 200 pairs"
    assert rates.yes_rate >= RESTATED_KEPT_OUT_AT_LEAST, "\n".join(rates.lines(details=True))
    assert rates.no_rate <= NEW_CLAIMS_KEPT_OUT_AT_MOST, "\n".join(rates.lines(details=True))
    by_words = restatement_rates(SETS / "restatement.yaml")
    assert by_words.no_rate == 0.0  # words alone, once the people match, never keep a new claim out


def _rule(summary: str, people: list[str]) -> Suppression:
    return Suppression.model_validate(
        {
            "id": new_ulid(),
            "scope": SuppressionScope.MEMORY,
            "fingerprints": fingerprints([summary]),
            "created_at": "2026-06-01T00:00:00Z",
            "created_by": "human:test",
            CLAIMS_ONLY: True,
            APPLIES_TO: people,
        }
    )


def _candidate(summary: str) -> Candidate:
    return Candidate.model_validate(
        {
            "type": "fact",
            "about": "x",
            "summary": summary,
            "authority": "user_explicit",
            "confidence": 0.9,
            "evidence": [{"turns": [1], "quote": summary}],
        }
    )


def _meaning(close_pairs: set[frozenset[str]]) -> ClaimMeaning:
    """An embedder stand-in: texts in a pair listed as close get the same unit vector."""
    groups: dict[str, int] = {}
    for n, pair in enumerate(close_pairs):
        for text in pair:
            groups[text] = n

    def embed(texts: object) -> list[list[float]]:
        out = []
        for text in texts:  # type: ignore[attr-defined]
            vector = [0.0] * (len(close_pairs) + 64)
            vector[groups.get(text, len(close_pairs) + hash(text) % 64)] = 1.0
            out.append(vector)
        return out

    return ClaimMeaning(embed, 0.75)


LEO, SOFIA = new_ulid(), new_ulid()
FORGOTTEN = "Leo takes piano on Thursdays."
REWORDED = "Leo has keyboard lessons every Thursday."


def test_a_reworded_restatement_of_the_same_persons_claim_stays_forgotten() -> None:
    meaning = _meaning({frozenset({fingerprints([FORGOTTEN])[0], REWORDED})})
    rules = SuppressionRules([_rule(FORGOTTEN, [LEO])], meaning)
    assert rules.match(_candidate(REWORDED), [LEO]) is not None
    assert SuppressionRules([_rule(FORGOTTEN, [LEO])]).match(_candidate(REWORDED), [LEO]) is None  # words alone


def test_the_same_words_about_someone_else_are_learned() -> None:
    meaning = _meaning({frozenset({fingerprints([FORGOTTEN])[0], REWORDED})})
    rules = SuppressionRules([_rule(FORGOTTEN, [LEO])], meaning)
    assert rules.match(_candidate(REWORDED), [SOFIA]) is None
    assert rules.match(_candidate("Leo takes piano on Thursdays."), [SOFIA]) is None


def test_a_rule_from_before_people_were_kept_is_not_limited_by_them() -> None:
    legacy = _rule(FORGOTTEN, [LEO]).model_copy(update={})
    data = legacy.model_dump()
    data.pop(APPLIES_TO, None)
    old = Suppression.model_validate(data)
    assert SuppressionRules([old]).match(_candidate("Leo takes piano on Thursdays!"), [SOFIA]) is not None


def test_the_offline_embedders_threshold_is_under_its_real_model_id() -> None:
    from family_memory.adapters.local.minilm_embedder import MiniLMEmbedder

    assert MiniLMEmbedder.model_id in MEANING_THRESHOLDS
