"""A quantity's unit the summary changes (formation/quantities.py): "in a cast for six weeks" is
not "for six months"; the same quantity in other units ("a fortnight", "14 days") is."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.formation.quantities import quantities, unit_problem
from family_memory.formation.support import Claim, SpokenTurn, check_support

CAST = "Ah sure look, Cian's after breaking his wrist at the hurling on Saturday, he's in a cast for six weeks"
CALPOL = "gave her 5ml of calpol at 6, she can have another 5ml at 10"
AWAY = "we're off to my sister's for a fortnight from the 3rd"
READING = "she has to read for half an hour every night, teacher's orders"
SCHEDULE = "swim is twice a week, 45 mins each, for 10 weeks"
TRIP = "2 weeks in spain then a day in lisbon before we fly home"


def problems(summary: str, turn: str) -> list[str]:
    claim = Claim(summary=summary, quotes=(turn,), names=("Cian",), known_names=("Cian",))
    return check_support(claim, [SpokenTurn("user", turn, ("Siobhan",), quoted=True)], date(2026, 2, 8)).problems


@pytest.mark.parametrize(
    ("summary", "turn", "said"),
    [
        ("Cian broke his wrist playing hurling and is in a cast for six months.", CAST, "six weeks, not six months"),
        ("She can have another 5 mg of Calpol at 10.", CALPOL, "5ml, not 5 mg"),
        ("The family is away at the writer's sister's for a month.", AWAY, "a fortnight, not a month"),
        ("Swimming is twice a week, 45 minutes each, for 10 months.", SCHEDULE, "10 weeks, not 10 months"),
    ],
)
def test_the_same_number_with_another_unit_is_refused(summary: str, turn: str, said: str) -> None:
    found = unit_problem(summary, turn)
    assert found is not None and said in found, found


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Cian broke his wrist playing hurling and is in a cast for 6 weeks.", CAST),
        ("The family is away for two weeks from the 3rd.", AWAY),
        ("The family is away for 14 days from the 3rd.", AWAY),
        ("She must read for 30 minutes every night.", READING),
        ("Swimming is twice a week for 45 minutes, over ten weeks.", SCHEDULE),
        ("She can have another 5 ml of Calpol at 10.", CALPOL),
        # "a fortnight" is the turns' "2 weeks", though their "a day" is another "one"
        ("The family spends a fortnight in Spain, then a day in Lisbon.", TRIP),
    ],
)
def test_the_same_quantity_in_other_words_is_accepted(summary: str, turn: str) -> None:
    assert unit_problem(summary, turn) is None


def test_a_rate_is_no_quantity() -> None:
    # "twice a week", "£5 a week", "3 times a day" are rates (their period is read elsewhere)
    assert quantities("twice a week, £5 a week, 3 times a day") == []
    assert [(q.value, q.unit) for q in quantities("a month and a half, two and a half hrs, his 3-year-old")] == [
        (1.5, "month"),
        (2.5, "hour"),
        (3.0, "year"),
    ]


def test_the_support_check_refuses_the_changed_unit_and_accepts_the_kept_one() -> None:
    assert any("six weeks, not six months" in p for p in problems("Cian is in a cast for six months.", CAST))
    assert problems("Cian is in a cast for six weeks.", CAST) == []
