"""The support check's calendar values and rates (formation/calendar_values.py, paraphrase.rates):
a weekday, month, season, weekend or part of the day the turns do not say, and a rate made
plainer or changed, are refused; the faithful forms of family talk pass (issue 10 section 2)."""

from __future__ import annotations

from datetime import date

import pytest

from family_memory.formation import calendar_values, paraphrase
from family_memory.formation.support import Claim, SpokenTurn, check_support

DECEMBER = date(2026, 12, 2)  # a Wednesday
JUNE = date(2026, 6, 10)


def problems(summary: str, turn: str, said_on: date = JUNE, names: tuple[str, ...] = ()) -> list[str]:
    claim = Claim(summary=summary, quotes=(turn,), names=names, known_names=names)
    return check_support(claim, [SpokenTurn("user", turn, ("Sam",), quoted=True)], said_on).problems


# --- calendar words ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("summary", "turn", "said_on"),
    [
        ("The family is away all of February.", "we're away all of january", JUNE),
        ("The decorators are here in May.", "the decorators are here in march", JUNE),
        ("Ama's birthday is in December.", "ama's bday is next month", DECEMBER),
        ("The family is going to Spain in August.", "we're off to spain next month", JUNE),
        ("Nana comes on Saturday.", "nana comes sunday", JUNE),
        ("The boiler engineer comes on Friday.", "the boiler man comes tmrw", DECEMBER),
        ("Grandad comes on Sundays.", "grandad comes every day but sunday", JUNE),
        ("She works weekends.", "she works mon-fri", JUNE),
        ("Tutoring is on Fridays.", "tutoring mon to thurs 4-5", JUNE),
        ("The family goes camping in the autumn.", "we go camping in the summer", JUNE),
        ("The pool closes over the winter.", "the pool shuts for the summer", JUNE),
        ("Gran visits on Sunday afternoons.", "gran visits on sundays", JUNE),
        ("The family's holiday is the last week of June.", "our holiday is the last week of july", JUNE),
        ("Ruby's swimming gala is in October.", "ruby's swimming gala is in nov", JUNE),
        ("Parents' evening is on Tuesday.", "parents evening is thursday", JUNE),
    ],
)
def test_a_calendar_word_the_turns_do_not_say_is_refused(summary: str, turn: str, said_on: date) -> None:
    assert problems(summary, turn, said_on), summary


@pytest.mark.parametrize(
    ("summary", "turn", "said_on"),
    [
        ("The family is away for all of January.", "we're away all of jan", JUNE),
        ("The family is away all of February.", "we're away for all of febuary", JUNE),
        (
            "Anika has a dentist appointment on Wednesday at 4.",
            "anika has her dentist apointment on wensday at 4",
            JUNE,
        ),
        ("Ama's birthday is in January.", "ama's bday is next month", DECEMBER),
        ("The boiler engineer comes on Thursday.", "the boiler man comes tmrw", DECEMBER),
        ("Grandad comes Monday to Saturday.", "grandad comes every day but sunday", JUNE),
        ("She works weekdays.", "she works mon-fri", JUNE),
        ("Tutoring runs Monday to Thursday from 4 to 5.", "tutoring mon to thurs 4-5", JUNE),
        ("Their dad has them at the weekend.", "their dad has them weekends", JUNE),
        ("Nana comes on the weekend.", "nana comes on saturdays", JUNE),
        ("Kai has football every Wednesday afternoon.", "kai has footy every weds after school", JUNE),
        ("The twins have swimming on Saturday mornings.", "the twins have swimming at 9 on saturdays", JUNE),
        ("Football training is at 6 in the evening.", "football training is at 6", JUNE),
        ("Mila does gymnastics on Thursday evenings.", "mila does gymnastics on thursday nights", JUNE),
        ("She may get her vaccination in March.", "she may get her jab in march", JUNE),
        ("The family moved here in the spring.", "we moved here in the spring", JUNE),
        # Typed forms of family talk.
        ("Swimming is on Saturday morning.", "swim is sat morn", JUNE),
        ("Choir is on Tuesday evening.", "choir is tues eve", JUNE),
        ("The dentist appointment is on Thursday afternoon.", "dentist thurs aft", JUNE),
        ("Physiotherapy is every Tuesday morning.", "physio every tues am", JUNE),
        ("Piano is on Mondays, Wednesdays and Fridays.", "piano m/w/f", JUNE),
        ("Tutoring is on Tuesdays and Thursdays.", "tutoring tu/th", JUNE),
        ("The family is away this weekend.", "we're away this w/e", JUNE),
        ("The children are with their dad every other weekend.", "the kids are with their dad eow", JUNE),
        ("Goes to the gym in the morning before work.", "gym b4 work", JUNE),
    ],
)
def test_a_calendar_word_the_turns_say_or_come_to_passes(summary: str, turn: str, said_on: date) -> None:
    assert not problems(summary, turn, said_on), problems(summary, turn, said_on)


def test_the_weekday_of_a_dated_summary_is_the_date_checks() -> None:
    # The formation step wrote the date the turn's words meant; its weekday comes with it.
    party = "oma turns 70!! party's on may 30 at her place"
    assert not calendar_values.problems("The party is on Saturday, May 30, 2026.", party, date(2026, 5, 1))
    assert not calendar_values.problems("The party is on Saturday.", party, date(2026, 5, 1))  # May 30 is one
    assert calendar_values.problems("The party is on Sunday.", party, date(2026, 5, 1))
    # The month of a date the summary gives is held to the months the turns name.
    assert calendar_values.problems("The party is on June 30.", party, date(2026, 5, 1))


def test_a_name_is_no_calendar_word() -> None:
    found = calendar_values.problems("June has ballet on Saturdays.", "june has ballet on saturdays", JUNE, ["June"])
    assert not found
    assert calendar_values.problems("Ballet is in June.", "ballet is on saturdays", JUNE)


def test_a_relative_month_said_on_an_unknown_day_is_not_held_against_the_summary() -> None:
    assert not calendar_values.problems("The trip is in March.", "the trip is next month", None)
    assert calendar_values.problems("The trip is in March.", "the trip is next month", date(2026, 1, 5))


def test_the_turns_words_lend_the_days_and_months_they_come_to() -> None:
    lent = calendar_values.implied_words("grandad comes every day but sunday", JUNE)
    assert {"monday", "saturday"} <= set(lent) and "sunday" not in lent
    assert "january" in calendar_values.implied_words("it's next month", DECEMBER)


# --- rates --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Swims every Thursday.", "swimming every other thursday"),
        ("Swims on Thursdays.", "swimming every other thursday"),
        ("He sees his dad every weekend.", "he sees his dad alternate weekends"),
        ("The family has takeaway every Friday.", "we have takeaway some fridays"),
        ("The family has pizza every Friday.", "we do pizza most fridays"),
        ("Choir is weekly.", "choir is biweekly"),
        ("Bins go out every week.", "bins go out every 2 weeks"),
        ("The bins go out every Tuesday.", "bins are every two weeks on a tuesday"),
        ("Grandma calls every day.", "grandma calls occasionally"),
        ("She visits Nana every week.", "she visits nana twice a month"),
        ("Kofi sees the orthodontist every four weeks.", "kofi sees the orthodontist every six weeks"),
    ],
)
def test_a_rate_made_plainer_or_changed_is_refused(summary: str, turn: str) -> None:
    assert problems(summary, turn), summary


@pytest.mark.parametrize(
    ("summary", "turn"),
    [
        ("Swims fortnightly on Thursdays.", "swimming every other thursday"),
        ("Swims every two weeks on Thursdays.", "swimming every other thursday"),
        ("Swims twice a month on Thursdays.", "swimming every other thursday"),
        ("He sees his dad every other weekend.", "he sees his dad alternate weekends"),
        ("Bins go out fortnightly.", "bins go out every 2 weeks"),
        ("Bins go out every two weeks.", "bins go out fortnightly"),
        ("The family usually has pizza on Fridays.", "we do pizza most fridays"),
        ("Has a guitar lesson weekly.", "guitar lesson once a week"),
        ("A vegetable box comes weekly on Fridays.", "we get the veg box every friday"),
        ("The kids swim twice a week, on Tuesdays and Thursdays.", "the kids swim tues and thurs"),
        (
            "The bins go out every Tuesday night and the recycling every other Thursday.",
            "the bins go out every tuesday night, recyling is every other thrusday",
        ),
    ],
)
def test_a_rate_said_in_other_words_passes(summary: str, turn: str) -> None:
    assert not problems(summary, turn), problems(summary, turn)


def test_rates_read_clause_by_clause() -> None:
    (half,) = paraphrase.rates("swimming every other thursday")
    assert half.per_year == (26.0,) and half.day == "thursday"
    said = paraphrase.rates("piano on thursdays and swimming every other saturday")
    assert {(r.day, r.per_year) for r in said} == {("thursday", (52.0,)), ("saturday", (26.0,))}
    # The plural weekday of a clause with its own rate is that rate's day, not every such day.
    assert [r.per_year for r in paraphrase.rates("piano on thursdays every other week")] == [(26.0,)]
    assert paraphrase.rate_problem("Piano is every Thursday.", "piano on thursdays every other week")


def test_every_other_lends_the_number_two() -> None:
    assert 2.0 in paraphrase.rate_numbers("swimming every other thursday")
    assert 2.0 in paraphrase.rate_numbers("the kids swim tues and thurs")
