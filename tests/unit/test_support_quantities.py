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


# --- times and sums said the way families write them -------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("dentist for tobi is this coming tues 3.15, the one on elm st", 3.25),  # a dot time before a comma
        ("ok so Tilly has swimming mondays 4 15 at the leisure centre", 4.25),  # hour and minutes apart
        ("cca ends 1530 on wed", 15.5),  # the 24-hour way
        ("pickup 1800 hrs sharp", 18.0),
        ("pocket moneys goin up to a tenner a wk", 10.0),
        ("they need the form and um five thousand naira by friday", 5000.0),
    ],
)
def test_a_time_or_sum_said_informally_is_read(text: str, value: float) -> None:
    from family_memory.formation.support import _numbers

    assert value in _numbers(text)


@pytest.mark.parametrize(
    ("text", "not_value"),
    [
        ("4 15-year-olds are coming", 4.25),  # a count of ages, no time
        ("3 12 year olds", 3.2),
        ("we moved here in 2030", 20.5),  # a year without a time's lead word
        ("£4.15 for the bus", 4.25),  # a price
    ],
)
def test_a_count_a_year_or_a_price_is_no_time(text: str, not_value: float) -> None:
    from family_memory.formation.support import _numbers

    assert not any(abs(v - not_value) < 1e-6 for v in _numbers(text))


def test_a_sum_by_the_week_in_short_is_not_a_month() -> None:
    turn = "pocket moneys goin up to a tenner a wk for ellie now shes 12"
    claim = Claim(
        summary="Ellie's pocket money is going up to £10 a month.",
        quotes=(turn,),
        names=("Ellie",),
        known_names=("Ellie",),
    )
    found = check_support(claim, [SpokenTurn("user", turn, ("Gareth",), quoted=True)], date(2026, 2, 8)).problems
    assert any("not a month" in p for p in found), found
    kept = Claim(
        summary="Ellie's pocket money is going up to £10 a week.",
        quotes=(turn,),
        names=("Ellie",),
        known_names=("Ellie",),
    )
    assert check_support(kept, [SpokenTurn("user", turn, ("Gareth",), quoted=True)], date(2026, 2, 8)).problems == []


def test_times_of_parallel_parts_said_the_24_hour_way_are_paired() -> None:
    # formation/binding.py keys "1530" after "ends" as the time 15:30, which pairs with "3:30 pm"
    turn = "cca ends 1530 on wed but on fri it's quarter to 4 bc of assembly"
    swapped = Claim(
        summary="Kai Xin's CCA ends at 3:45 pm on Wednesdays and 3:30 pm on Fridays.",
        quotes=(turn,),
        names=("Kai Xin",),
        known_names=("Kai Xin",),
    )
    kept = Claim(
        summary="Kai Xin's CCA ends at 3:30 pm on Wednesdays and 3:45 pm on Fridays.",
        quotes=(turn,),
        names=("Kai Xin",),
        known_names=("Kai Xin",),
    )
    spoken = [SpokenTurn("user", turn, ("Hui Min",), quoted=True)]
    assert any("pairs" in p for p in check_support(swapped, spoken, date(2026, 2, 8)).problems)
    assert check_support(kept, spoken, date(2026, 2, 8)).problems == []
