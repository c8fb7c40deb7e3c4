"""The reconciliation decision table, as a pure function."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from factories import memory
from family_memory.domain.memory import Authority, Memory, MemoryType, Status, Strength
from family_memory.formation.decisions import Decision, DecisionKind, Known, Proposal, decide

THEN = datetime(2026, 11, 1, 18, 30, tzinfo=UTC)
NOW = THEN + timedelta(days=20)
OLD_EVIDENCE = ("conv://fam-rivera/sess-1#turn=3", "We love Thai food")
NEW_EVIDENCE = ("conv://fam-rivera/sess-9#turn=1", "we love thai food")


def thai(**overrides: Any) -> Memory:
    values: dict[str, Any] = {
        "about": "Thai food (the family)",
        "summary": "The family loves Thai food.",
        "authority": Authority.USER_IMPLICIT,
        "formed_at": THEN,
        "last_reinforced_at": THEN,
    }
    values.update(overrides)
    return memory(**values)


def proposal(**overrides: Any) -> Proposal:
    values: dict[str, Any] = {
        "type": MemoryType.PREFERENCE,
        "about": "Thai food (the family)",
        "summary": "The family loves Thai food.",
        "authority": Authority.USER_IMPLICIT,
        "valid_until": None,
        "applies_to": (),
        "evidence": frozenset({NEW_EVIDENCE}),
        "stated_at": NOW,
    }
    values.update(overrides)
    return Proposal(**values)


def known(m: Memory, *evidence: tuple[str, str], score: float = 0.9) -> Known:
    return Known(m, frozenset(evidence or {OLD_EVIDENCE}), score)


SAME = thai()
SUPERSEDED = thai(status=Status.SUPERSEDED, superseded_by="01K6N1R0A0B0C0D0E0F0G0H010")
RETRACTED = thai(status=Status.RETRACTED)
DORMANT = thai(status=Status.DORMANT, authority=Authority.INFERRED)
EXPLICIT_HATE = thai(summary="The family does not like Thai food.", authority=Authority.USER_EXPLICIT)
IMPLICIT_HATE = thai(summary="The family does not like Thai food.")
TONIGHT = thai(
    type=MemoryType.FACT,
    about="Pizza night",
    summary="Pizza night is tonight (Friday 2026-11-27).",
    valid_until=date(2026, 11, 28),
)
WEEKLY = thai(type=MemoryType.FACT, about="Pizza night", summary="Friday is pizza night.")
PILLS = thai(type=MemoryType.CONSTRAINT, about="Pepper's medication", summary="Pepper needs her pills at 8.")
FERN = thai(type=MemoryType.DIRECTIVE, about="Always water the fern", summary="Always water the fern.")

MAYA = "01K6N1R0A0B0C0D0E0F0ENT001"
MAYA_NAMES = frozenset({"maya", "rivera", "daughter"})
PEANUTS = thai(
    type=MemoryType.CONSTRAINT,
    strength=Strength.HARD,
    authority=Authority.USER_EXPLICIT,
    about="Maya's allergy to peanuts",
    summary="Maya is allergic to peanuts.",
    applies_to=[MAYA],
)
SWIMMING = thai(about="Swimming (Maya)", summary="Maya loves swimming.", applies_to=[MAYA])
PEANUTS_UNDER_ALLERGIES = PEANUTS.evolve(about="Maya's allergies")
PEANUTS_IN_PASSING = PEANUTS.evolve(authority=Authority.USER_IMPLICIT)
ANA = "01K6N1R0A0B0C0D0E0F0ENT00A"
BEN = "01K6N1R0A0B0C0D0E0F0ENT00B"
CHECK_FIRST = thai(
    type=MemoryType.DIRECTIVE,
    about="Always check with the family before booking",
    summary="Always check before booking flights.",
    applies_to=[ANA],
)
PILLS_AT_8 = thai(type=MemoryType.FACT, about="Pepper's medication times", summary="Pepper gets her pills at 8.")
HARD_PILLS = thai(
    type=MemoryType.CONSTRAINT,
    strength=Strength.HARD,
    authority=Authority.USER_EXPLICIT,
    about="Pepper's medication",
    summary="Pepper needs her pills at 8.",
)
AUSTIN = thai(type=MemoryType.FACT, about="Where the family lives", summary="The family lives in Austin.")


SCREENS = thai(
    type=MemoryType.DIRECTIVE,
    strength=Strength.HARD,
    authority=Authority.USER_EXPLICIT,
    about="Screens on school nights",
    summary="House rule - no phones or tablets for the children on school nights except for homework.",
    applies_to=[ANA, BEN],
)
BUS_RULE = thai(
    type=MemoryType.CONSTRAINT,
    strength=Strength.HARD,
    authority=Authority.USER_EXPLICIT,
    about="Bus rule",
    summary="Ana takes the bus home only with Ben, never on her own, since the route changed.",
    applies_to=[ANA],
)
VEGETARIAN_SINCE = PEANUTS.evolve(about="Maya's diet", summary="Maya has been vegetarian since January 2026.")


def about_maya(**overrides: Any) -> Proposal:
    return proposal(applies_to=(MAYA,), names=MAYA_NAMES, **overrides)


def allergy(food: str, **overrides: Any) -> Proposal:
    values: dict[str, Any] = {
        "type": MemoryType.CONSTRAINT,
        "about": f"Maya's allergy to {food}",
        "summary": f"Maya is allergic to {food}.",
        "authority": Authority.USER_EXPLICIT,
    }
    return about_maya(**(values | overrides))


TABLE: list[tuple[str, Proposal, list[Known], DecisionKind, Memory | None]] = [
    ("nothing known: add", proposal(), [], DecisionKind.ADD, None),
    ("same claim, new evidence: reinforce", proposal(), [known(SAME)], DecisionKind.REINFORCE, SAME),
    (
        "same evidence already held: noop (a replay)",
        proposal(evidence=frozenset({OLD_EVIDENCE})),
        [known(SAME)],
        DecisionKind.NOOP,
        SAME,
    ),
    (
        "evidence held by a superseded version: noop",
        proposal(evidence=frozenset({OLD_EVIDENCE})),
        [known(SUPERSEDED)],
        DecisionKind.NOOP,
        SUPERSEDED,
    ),
    ("a dormant memory said again wakes up", proposal(), [known(DORMANT)], DecisionKind.REINFORCE, DORMANT),
    (
        "same subject, higher or equal authority, newer: supersede",
        proposal(summary="The family loves Thai food now.", authority=Authority.USER_EXPLICIT),
        [known(IMPLICIT_HATE)],
        DecisionKind.SUPERSEDE,
        IMPLICIT_HATE,
    ),
    (
        "an inference against an explicit statement: contradiction",
        proposal(authority=Authority.INFERRED),
        [known(EXPLICIT_HATE)],
        DecisionKind.CONTRADICTION,
        EXPLICIT_HATE,
    ),
    (
        "said in passing against an explicit statement: contradiction",
        proposal(),
        [known(EXPLICIT_HATE)],
        DecisionKind.CONTRADICTION,
        EXPLICIT_HATE,
    ),
    (
        "older than what it would replace: noop",
        proposal(stated_at=THEN - timedelta(days=1), authority=Authority.USER_EXPLICIT),
        [known(IMPLICIT_HATE)],
        DecisionKind.NOOP,
        IMPLICIT_HATE,
    ),
    ("said again after the family forgot it: noop", proposal(), [known(RETRACTED)], DecisionKind.NOOP, RETRACTED),
    ("a superseded look-alike is not a rival: add", proposal(), [known(SUPERSEDED)], DecisionKind.ADD, None),
    (
        "same words, different type: add",
        proposal(type=MemoryType.FACT),
        [known(SAME)],
        DecisionKind.ADD,
        None,
    ),
    (
        "tonight's plan does not replace the weekly habit: add",
        proposal(
            type=MemoryType.FACT,
            about="Pizza night",
            summary="Pizza night is tonight (Friday 2026-12-04).",
            valid_until=date(2026, 12, 5),
        ),
        [known(WEEKLY)],
        DecisionKind.ADD,
        None,
    ),
    (
        "a new date for a dated fact replaces the old one",
        proposal(
            type=MemoryType.FACT,
            about="Pizza night",
            summary="Pizza night is tonight (Friday 2026-12-04).",
            valid_until=date(2026, 12, 5),
        ),
        [known(TONIGHT)],
        DecisionKind.SUPERSEDE,
        TONIGHT,
    ),
    (
        "opposite polarity is never the same claim: supersede, not reinforce",
        proposal(summary="The family does not like Thai food.", authority=Authority.USER_IMPLICIT),
        [known(SAME)],
        DecisionKind.SUPERSEDE,
        SAME,
    ),
    (
        "a different number is a different claim: supersede, not reinforce",
        proposal(type=MemoryType.CONSTRAINT, about="Pepper's medication", summary="Pepper needs her pills at 9."),
        [known(PILLS)],
        DecisionKind.SUPERSEDE,
        PILLS,
    ),
    (
        "a different number in the subject is a different subject: add",
        proposal(type=MemoryType.DIRECTIVE, about="Room 12 heating", summary="Keep room 12 at 20 degrees."),
        [known(thai(type=MemoryType.DIRECTIVE, about="Room 14 heating", summary="Keep room 14 at 20 degrees."))],
        DecisionKind.ADD,
        None,
    ),
    (
        "household instructions that only look alike are both kept: add",
        proposal(type=MemoryType.DIRECTIVE, about="Always water the cactus", summary="Always water the cactus."),
        [known(FERN)],
        DecisionKind.ADD,
        None,
    ),
    (
        "two allergies of one child are two hard constraints: add",
        allergy("eggs"),
        [known(PEANUTS)],
        DecisionKind.ADD,
        None,
    ),
    (
        # Same about, changed value: formation cannot tell a second allergy from a correction, so both stay
        # and the family is asked (the constraint is the decision's target: it is marked, never replaced).
        "two allergies under one generic about are both kept, linked for the family: add beside",
        allergy("eggs", about="Maya's allergies"),
        [known(PEANUTS_UNDER_ALLERGIES)],
        DecisionKind.ADD,
        PEANUTS_UNDER_ALLERGIES,
    ),
    (
        "an allergy that shares every word but the food is not the same claim: add, not reinforce",
        allergy("eggs", summary="Maya is severely allergic to eggs and carries an EpiPen everywhere."),
        [known(PEANUTS.evolve(summary="Maya is severely allergic to peanuts and carries an EpiPen everywhere."))],
        DecisionKind.ADD,
        None,
    ),
    (
        "two hobbies of one child: add",
        about_maya(about="Soccer (Maya)", summary="Maya loves soccer."),
        [known(SWIMMING)],
        DecisionKind.ADD,
        None,
    ),
    (
        "an about that only names the person is not a slot: two hobbies, add",
        about_maya(about="Maya", summary="Maya loves soccer."),
        [known(SWIMMING.evolve(about="Maya"))],
        DecisionKind.ADD,
        None,
    ),
    (
        "a real correction of a time: supersede",
        proposal(
            type=MemoryType.FACT, about="Pepper's medication times", summary="Pepper gets her pills at 8 and 8pm."
        ),
        [known(PILLS_AT_8)],
        DecisionKind.SUPERSEDE,
        PILLS_AT_8,
    ),
    (
        "the family moved: supersede",
        proposal(type=MemoryType.FACT, about="Where the family lives", summary="We moved to Denver."),
        [known(AUSTIN)],
        DecisionKind.SUPERSEDE,
        AUSTIN,
    ),
    (
        "another value in a hard constraint's slot with no mark of change is added beside it, linked: add beside",
        proposal(
            type=MemoryType.CONSTRAINT,
            about="Pepper's medication",
            summary="Pepper needs her pills at 9.",
            authority=Authority.USER_EXPLICIT,
        ),
        [known(HARD_PILLS)],
        DecisionKind.ADD,
        HARD_PILLS,
    ),
    (
        "every value of a hard constraint and more replaces it with the fuller claim: supersede",
        proposal(
            type=MemoryType.CONSTRAINT,
            about="Pepper's medication",
            summary="Pepper needs her pills at 8 and 8pm.",
            authority=Authority.USER_EXPLICIT,
        ),
        [known(HARD_PILLS)],
        DecisionKind.SUPERSEDE,
        HARD_PILLS,
    ),
    (
        "a hard constraint said again in other words, with less detail, reinforces it: reinforce",
        allergy("peanuts", summary="Maya can't have peanuts, they make her lips swell."),
        [known(PEANUTS.evolve(summary="Maya is severely allergic to peanuts and tree nuts."))],
        DecisionKind.REINFORCE,
        PEANUTS.evolve(summary="Maya is severely allergic to peanuts and tree nuts."),
    ),
    (
        "a stale correction of a hard constraint is still added beside it, never dropped: add beside",
        proposal(
            type=MemoryType.CONSTRAINT,
            about="Pepper's medication",
            summary="Pepper needs her pills at 8 and 8pm.",
            authority=Authority.USER_EXPLICIT,
            stated_at=THEN - timedelta(days=1),
        ),
        [known(HARD_PILLS)],
        DecisionKind.ADD,
        HARD_PILLS,
    ),
    (
        "the same words from another person are not a reinforcement: add",
        proposal(
            type=MemoryType.DIRECTIVE,
            about="Always check with the family before booking",
            summary="Always check before booking flights.",
            applies_to=(BEN,),
        ),
        [known(CHECK_FIRST)],
        DecisionKind.ADD,
        None,
    ),
    (
        "the same words from the same person reinforce: reinforce",
        proposal(
            type=MemoryType.DIRECTIVE,
            about="Always check with the family before booking",
            summary="Always check before booking flights.",
            applies_to=(ANA,),
        ),
        [known(CHECK_FIRST)],
        DecisionKind.REINFORCE,
        CHECK_FIRST,
    ),
    (
        "the family's explicit word that a hard constraint no longer holds replaces it: supersede",
        allergy("peanuts", summary="Maya is no longer allergic to peanuts."),
        [known(PEANUTS)],
        DecisionKind.SUPERSEDE,
        PEANUTS,
    ),
    (
        "a negation of a hard constraint said only in passing is recorded on it: contradiction",
        allergy("peanuts", summary="Maya is no longer allergic to peanuts.", authority=Authority.USER_IMPLICIT),
        [known(PEANUTS_IN_PASSING)],
        DecisionKind.CONTRADICTION,
        PEANUTS_IN_PASSING,
    ),
    (
        "an inference never replaces an explicit hard constraint: contradiction",
        allergy("peanuts", summary="Maya is no longer allergic to peanuts.", authority=Authority.INFERRED),
        [known(PEANUTS)],
        DecisionKind.CONTRADICTION,
        PEANUTS,
    ),
    (
        "an explicit change of a hard constraint's value, marked as a change, replaces it: supersede",
        proposal(
            type=MemoryType.CONSTRAINT,
            about="Pepper's medication",
            summary="Pepper now needs her pills at 8 and 8pm.",
            authority=Authority.USER_EXPLICIT,
            marks_change=True,
        ),
        [known(HARD_PILLS)],
        DecisionKind.SUPERSEDE,
        HARD_PILLS,
    ),
    (
        "an explicit swap of a hard constraint's value, marked as a change, replaces it: supersede",
        proposal(
            type=MemoryType.CONSTRAINT,
            about="Pepper's medication",
            summary="The vet changed it: Pepper now needs her pills at 9.",
            authority=Authority.USER_EXPLICIT,
            marks_change=True,
        ),
        [known(HARD_PILLS)],
        DecisionKind.SUPERSEDE,
        HARD_PILLS,
    ),
    (
        "the same swap not marked as a change is kept beside the constraint: add beside",
        proposal(
            type=MemoryType.CONSTRAINT,
            about="Pepper's medication",
            summary="Pepper needs her pills at 9.",
            authority=Authority.USER_EXPLICIT,
        ),
        [known(HARD_PILLS)],
        DecisionKind.ADD,
        HARD_PILLS,
    ),
    (
        "a marked change said before the constraint's latest evidence is kept beside it: add beside",
        proposal(
            type=MemoryType.CONSTRAINT,
            about="Pepper's medication",
            summary="Pepper now needs her pills at 8 and 8pm.",
            authority=Authority.USER_EXPLICIT,
            marks_change=True,
            stated_at=THEN - timedelta(days=1),
        ),
        [known(HARD_PILLS)],
        DecisionKind.ADD,
        HARD_PILLS,
    ),
    (
        "a fact that the family says ends a hard constraint ('no longer allergic') replaces it: supersede",
        allergy(
            "peanuts",
            type=MemoryType.FACT,
            summary="Maya is no longer allergic to peanuts; the allergist retested her.",
            marks_change=True,
        ),
        [known(PEANUTS)],
        DecisionKind.SUPERSEDE,
        PEANUTS,
    ),
    (
        "a fact of the same slot that marks no change is another memory: add",
        allergy("peanuts", type=MemoryType.FACT, summary="Maya's peanut allergy was found at age two."),
        [known(PEANUTS)],
        DecisionKind.ADD,
        None,
    ),
    (
        "a year is no value: 'vegetarian, no fish either' after 'vegetarian since January 2026' is fuller: supersede",
        about_maya(
            type=MemoryType.CONSTRAINT,
            about="Maya's diet",
            summary="Maya is vegetarian and eats no fish either.",
            authority=Authority.USER_EXPLICIT,
        ),
        [known(VEGETARIAN_SINCE)],
        DecisionKind.SUPERSEDE,
        VEGETARIAN_SINCE,
    ),
    (
        "a negation of a soft preference from the same authority: supersede",
        about_maya(about="Swimming", summary="Maya does not enjoy swimming any more."),
        [known(SWIMMING)],
        DecisionKind.SUPERSEDE,
        SWIMMING,
    ),
    (
        "a claim about another child is never a rival: add",
        proposal(
            about="Swimming (Maya)", summary="Leo does not like swimming.", applies_to=("01K6N1R0A0B0C0D0E0F0ENT009",)
        ),
        [known(SWIMMING)],
        DecisionKind.ADD,
        None,
    ),
    (
        "a house rule restated by one of the people it covers, shorter: reinforce, the rule for all stays",
        proposal(
            type=MemoryType.DIRECTIVE,
            about="Screens on school nights",
            summary="House rule - no phone for the children on school nights.",
            authority=Authority.USER_EXPLICIT,
            applies_to=(ANA,),
        ),
        [known(SCREENS)],
        DecisionKind.REINFORCE,
        SCREENS,
    ),
    (
        "an allergy restated with who must hear of it (more people): reinforce, no second memory",
        proposal(
            type=MemoryType.CONSTRAINT,
            about="Maya's allergy to peanuts",
            summary="Maya is allergic to peanuts, and the teachers on the trip need to know about it.",
            authority=Authority.USER_EXPLICIT,
            applies_to=(MAYA, BEN),
            names=MAYA_NAMES,
        ),
        [known(PEANUTS)],
        DecisionKind.REINFORCE,
        PEANUTS,
    ),
    (
        # No value words on either side: the words decide, and the audience clause is not one of them.
        "a rule without value words restated with who must be reminded of it: reinforce",
        proposal(
            type=MemoryType.CONSTRAINT,
            about="Bus rule",
            summary="Ana takes the bus home only with Ben, and the new sitter needs reminding of it.",
            authority=Authority.USER_EXPLICIT,
            applies_to=(ANA, BEN),
        ),
        [known(BUS_RULE)],
        DecisionKind.REINFORCE,
        BUS_RULE,
    ),
    (
        "unrelated memories: add",
        proposal(about="Flights", summary="Never book flights before 7am.", type=MemoryType.DIRECTIVE),
        [known(SAME, score=0.2)],
        DecisionKind.ADD,
        None,
    ),
]


@pytest.mark.parametrize(("case", "p", "k", "kind", "target"), TABLE, ids=[row[0] for row in TABLE])
def test_decision_table(case: str, p: Proposal, k: list[Known], kind: DecisionKind, target: Memory | None) -> None:
    decision: Decision = decide(p, k)
    assert decision.kind is kind, decision.reason
    assert decision.target == target


def test_the_evidence_check_comes_before_everything_else() -> None:
    # Even a rival with higher authority does not turn a replay into a contradiction.
    p = proposal(authority=Authority.INFERRED, evidence=frozenset({OLD_EVIDENCE}))
    assert decide(p, [known(EXPLICIT_HATE), known(SAME)]).kind is DecisionKind.NOOP


def test_a_second_allergy_leaves_the_first_reachable_whatever_the_finder_scores() -> None:
    # The reviewer's case: eggs a day after peanuts. Both must stay active, so neither supersedes.
    eggs = allergy("eggs", stated_at=NOW)
    for score in (0.1, 0.6, 0.99):
        decision = decide(eggs, [known(PEANUTS, score=score)])
        assert decision.kind is DecisionKind.ADD, decision.reason


def test_replaying_a_claim_that_shares_its_quote_with_another_claim_is_not_swallowed() -> None:
    # "My daughter Maya is allergic to peanuts" supports the relationship and the allergy:
    # the allergy is not "already recorded" just because the relationship holds the same quote.
    quote = ("conv://fam-rivera/sess-1#turn=1", "My daughter Maya is allergic to peanuts")
    daughter = thai(type=MemoryType.RELATIONSHIP, about="Maya", summary="Maya is the family's daughter.")
    p = allergy("peanuts", evidence=frozenset({quote}))
    assert decide(p, [known(daughter, quote)]).kind is DecisionKind.ADD
    # ... while the allergy itself, replayed, is.
    assert decide(p, [known(PEANUTS, quote)]).kind is DecisionKind.NOOP


def test_values_compare_with_spelling_variants() -> None:
    from family_memory.formation.decisions import Value, compare_values

    shorter = proposal(type=MemoryType.DIRECTIVE, summary="House rule - no phone for the children on school nights.")
    assert compare_values(shorter, SCREENS) is Value.LESS
    same = proposal(
        type=MemoryType.DIRECTIVE,
        summary="House rule - no phone or tablet for the children on school night except homework.",
    )
    assert compare_values(same, SCREENS) is Value.SAME


# --- a standing rule applied to one occasion (eval-kowalski) ------------------------------------

STAN = "01K6N1R0A0B0C0D0E0F0ENT0ST"
SODIUM = thai(
    type=MemoryType.CONSTRAINT,
    strength=Strength.HARD,
    authority=Authority.USER_EXPLICIT,
    about="Stan's sodium limit",
    summary="Stan is on a low-sodium diet; his doctor wants him under 2,000 mg of sodium a day.",
    applies_to=[STAN],
)


def _stans(summary: str) -> Proposal:
    return proposal(
        type=MemoryType.CONSTRAINT,
        about="Stan's sodium limit",
        summary=summary,
        authority=Authority.USER_EXPLICIT,
        applies_to=(STAN,),
        names=frozenset({"stan"}),
    )


def test_a_standing_rule_kept_at_one_occasion_reinforces_it() -> None:
    fish_fry = _stans("Stan keeps to low salt at the fish fry, eating the fish and skipping the fries and rye bread.")
    decision = decide(fish_fry, [known(SODIUM)])
    assert decision.kind is DecisionKind.REINFORCE and decision.target == SODIUM


def test_a_new_value_said_at_an_occasion_is_still_a_new_value() -> None:
    # What is left without the occasion names a value the rule does not: not the rule again.
    potassium = _stans("Stan must also keep off potassium at the fish fry, so no fries.")
    assert decide(potassium, [known(SODIUM)]).kind is not DecisionKind.REINFORCE
    eggs = allergy("eggs", about="Maya's allergy to peanuts", summary="Maya is allergic to eggs at the party.")
    assert decide(eggs, [known(PEANUTS)]).kind is not DecisionKind.REINFORCE
