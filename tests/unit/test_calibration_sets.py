"""The two checks that decide by meaning, held to what they measure on their calibration sets
(eval/calibration/): a change that makes either error rate worse fails here. The figures
and how they were reached are in docs/evaluation.md."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from family_memory.claim_terms import TermSignal, claim_parts, key_terms, term_signal
from family_memory.domain.ids import new_ulid
from family_memory.domain.suppression import Suppression, SuppressionScope
from family_memory.evaluation.calibration import restatement_rates, support_rates
from family_memory.forgotten import (
    APPLIES_TO,
    CLAIMS_ONLY,
    KEPT_TERMS_EASE,
    MEANING_THRESHOLDS,
    ClaimMeaning,
    SuppressionRules,
    fingerprints,
)
from family_memory.formation.candidate import Candidate

SETS = Path(__file__).parents[2] / "eval" / "calibration"
#: Measured on 2026-12-02 (docs/evaluation.md) on 627 pairs: 98.2% (323/329) and 0% (0/298), with
#: the family-talk paraphrase of formation/paraphrase.py, the binding check of formation/binding.py,
#: the calendar check of formation/calendar_values.py, the word senses of formation/senses.py and the
#: foreign calendar words and glosses of formation/foreign_words.py and formation/conditions.py;
#: the issue's aim is >= 97% and <= 2%. Fitted figures: the held-out sets (not held here) read lower.
SUPPORTED_ACCEPTED_AT_LEAST = 0.977
UNSUPPORTED_ACCEPTED_AT_MOST = 0.005
#: Forget rules with the offline MiniLM, measured 92.1% (128/139) and 6.3% (9/142) on 281 pairs
#: (on the first 260: 92.2% and 7.6% before the kinds of class, other activities and later
#: episodes were read, 93.0% and 6.1% after).
RESTATED_KEPT_OUT_AT_LEAST = 0.92
NEW_CLAIMS_KEPT_OUT_AT_MOST = 0.064


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


# --- the key terms that set the bar (claim_terms) ---------------------------------------------

OMAR = new_ulid()


def _omars(summary: str) -> Candidate:
    return _candidate(summary).model_copy(update={"applies_to": ["Omar"]})


def _at_cosine(forgotten: str, later: dict[str, float]) -> ClaimMeaning:
    """An embedder stand-in: the forgotten text's comparison form on one axis, each later text at
    its given cosine to it, every other text on an axis of its own."""
    axes: dict[str, int] = {fingerprints([forgotten])[0]: 0}

    def embed(texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * 256
            if text in later:
                vector[0], vector[1] = later[text], math.sqrt(1 - later[text] ** 2)
            else:
                vector[axes.setdefault(text, len(axes) + 1)] = 1.0
            out.append(vector)
        return out

    return ClaimMeaning(embed, 0.75)


def _kept_out(forgotten: str, later: str, cosine: float) -> bool:
    rules = SuppressionRules([_rule(forgotten, [OMAR])], _at_cosine(forgotten, {later: cosine}))
    return rules.match(_omars(later), [OMAR]) is not None


def test_key_terms_leave_out_names_people_days_times_and_generic_words() -> None:
    assert key_terms("Omar's mum takes him to judo on Tuesdays at 5 pm.", ["Omar"]) == ["judo"]
    assert key_terms("Omar is allergic to kiwi.", ["Omar"]) == ["allergic", "kiwi"]


def test_a_restatement_that_still_names_the_forgotten_thing_needs_less_closeness() -> None:
    forgotten = "Omar does judo on Tuesdays."
    cosine = 0.75 - KEPT_TERMS_EASE / 2
    assert term_signal(fingerprints([forgotten]), ["Omar has quit judo."], ["Omar"]) is TermSignal.KEPT
    assert _kept_out(forgotten, "Omar has quit judo.", cosine)
    # as close, but judo is not named: a different claim, learned
    assert not _kept_out(forgotten, "Omar has a new PE teacher on Tuesdays.", cosine)


def test_a_second_value_in_a_slot_that_holds_many_is_learned() -> None:
    forgotten = "Omar is allergic to kiwi."
    assert term_signal(fingerprints([forgotten]), ["Omar is allergic to latex."], ["Omar"]) is TermSignal.SECOND_VALUE
    assert not _kept_out(forgotten, "Omar is allergic to latex.", 0.9)
    assert _kept_out(forgotten, "Omar has grown out of his kiwi allergy.", 0.8)  # the same allergy, updated
    assert _kept_out(forgotten, "Omar is alergic to kiwis.", 0.8)  # a typo keeps the value


def test_a_fear_and_a_like_hold_many_values_a_best_friend_one() -> None:
    assert not _kept_out("Omar is scared of wasps.", "Omar is frightened of the hoover.", 0.85)
    assert not _kept_out("Omar loves mango.", "Omar loves plantain.", 0.85)
    assert _kept_out("Omar's best friend is Sami.", "Omar's best friend is Yusuf now.", 0.85)


def test_relationship_talk_names_the_same_thing() -> None:
    forgotten = "Omar is seeing Hana."
    assert term_signal(fingerprints([forgotten]), ["Omar and Hana are dating."], ["Omar", "Hana"]) is TermSignal.KEPT
    assert _kept_out(forgotten, "Omar and Hana are dating.", 0.72)


def test_a_clause_that_restates_the_forgotten_claim_counts() -> None:
    forgotten = "Omar does judo on Tuesdays."
    clause = "Omar still does judo every Tuesday"
    later = f"{clause}; the new dojo is on Mill Road."
    assert clause in claim_parts([later])
    meaning = _at_cosine(forgotten, {clause: 0.8, later: 0.5})
    assert SuppressionRules([_rule(forgotten, [OMAR])], meaning).match(_omars(later), [OMAR]) is not None


def test_a_numbers_comma_does_not_split_a_clause() -> None:
    assert all("$9,500 on the car loan" in part for part in claim_parts(["The family owes $9,500 on the car loan."]))


# --- a class named by its kind, and a later episode (eval-nakamura, eval-okafor) ---------------

EMI = new_ulid()
PILATES = "Emi does pilates on Tuesdays and Thursdays at 7 am."


def _emis(summary: str) -> Candidate:
    return _candidate(summary).model_copy(update={"applies_to": ["Emi"]})


def _kept_out_for(person: str, forgotten: str, later: str, cosine: float) -> bool:
    rules = SuppressionRules([_rule(forgotten, [person])], _at_cosine(forgotten, {later: cosine}))
    return rules.match(_emis(later), [person]) is not None


def test_a_forgotten_class_named_by_its_kind_on_the_same_days_stays_forgotten() -> None:
    mat_class = "Emi has a mat class on Tuesday and Thursday mornings."
    assert term_signal(fingerprints([PILATES]), [mat_class], ["Emi"]) is TermSignal.SAME_SCHEDULE
    assert _kept_out_for(EMI, PILATES, mat_class, 0.62)  # the MiniLM's cosine for this pair
    # on other days it is not the schedule again: the ordinary bar holds
    elsewhere = "Emi has a mat class on Saturday mornings."
    assert term_signal(fingerprints([PILATES]), [elsewhere], ["Emi"]) is TermSignal.KEPT
    assert not _kept_out_for(EMI, PILATES, elsewhere, 0.62)


def test_a_class_that_adds_words_of_its_own_is_not_the_forgotten_schedule() -> None:
    spin = "Emi has a spin class on Tuesday and Thursday mornings."
    assert term_signal(fingerprints([PILATES]), [spin], ["Emi"]) is TermSignal.OTHER_ACTIVITY
    assert not _kept_out_for(EMI, PILATES, spin, 0.62)


def test_another_named_activity_is_learned_however_close_the_embedder_puts_it() -> None:
    yoga = "Emi does yoga on Saturdays at 9 am at the studio on Belmont."
    assert term_signal(fingerprints([PILATES]), [yoga], ["Emi"]) is TermSignal.OTHER_ACTIVITY
    assert not _kept_out_for(EMI, PILATES, yoga, 0.9)
    # the kind of class is not another activity: "keyboard" is the piano lesson
    assert term_signal(
        fingerprints(["Leo takes piano on Thursdays."]), ["Leo has keyboard lessons every Thursday."]
    ) is (TermSignal.SAME_SCHEDULE)


OBINNA = new_ulid()
BEDWETTING = (
    "Obinna still wets the bed some nights, which the doctor says is common with sickle cell; there is a "
    "mattress protector and Blessing changes the sheets."
)


def test_a_later_episode_of_a_forgotten_condition_stays_forgotten() -> None:
    episode = "Obinna had an accident in the night again, I washed everything and put the protector back"
    assert term_signal(fingerprints([BEDWETTING]), [episode], ["Obinna"]) is TermSignal.RECURS
    assert _kept_out_for(OBINNA, BEDWETTING, episode, 0.71)  # the MiniLM's best clause pair
    # the same words without "again" are held to the ordinary bar
    assert not _kept_out_for(OBINNA, BEDWETTING, "Obinna had an accident in the night", 0.71)


def test_something_else_that_happened_again_is_learned() -> None:
    for later in (
        "Obinna had a sickle cell crisis again and spent two nights in hospital",
        "Obinna had a nightmare again and ended up in our bed",
    ):
        assert term_signal(fingerprints([BEDWETTING]), [later], ["Obinna"]) is not TermSignal.RECURS
        assert not _kept_out_for(OBINNA, BEDWETTING, later, 0.74)


def test_the_held_out_support_sets_load_and_hold_both_classes() -> None:
    """eval/calibration/heldout/ is printed by every eval run and never tuned to (its rates are
    reported, not held): each file must stay loadable, with both classes, so the run can show it."""
    held = sorted((SETS / "heldout").glob("support-*.yaml"))
    assert held, "no held-out support set"
    for path in held:
        rates = support_rates(path, path.name)
        assert rates.yes_total >= 20 and rates.no_total >= 20, path.name
