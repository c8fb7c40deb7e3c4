"""Relative time words in a summary get their date from the day they were said, or are refused;
property tests for the date resolution across zones, week and month boundaries."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from family_memory.formation.dates import WEEKDAYS, find_dates, turn_day
from family_memory.formation.relative_time import absolutise

FRIDAY = date(2026, 11, 27)
days = st.dates(min_value=date(2025, 1, 1), max_value=date(2028, 12, 31))


def test_tonight_and_tomorrow_get_their_dates() -> None:
    assert absolutise("Pizza night is tonight.", FRIDAY).summary == "Pizza night is tonight (Friday 2026-11-27)."
    assert absolutise("Grandma arrives tmrw.", FRIDAY).summary == "Grandma arrives tmrw (Saturday 2026-11-28)."


def test_a_summary_that_gives_the_date_already_is_left_alone() -> None:
    for text in (
        "Pizza night is tonight (Friday 2026-11-27).",
        "Kai's dentist appointment is on Tuesday, March 10, 2026.",
        "The recital is on the 14th of December.",
        "Maya has karate every Tuesday.",
        "Rosalie goes to daycare Monday to Thursday.",  # a schedule, not a date
        "Sunday mornings are for church.",
        "They live on the 3rd floor.",
        "Rent is due on the 28th of every month.",
    ):
        result = absolutise(text, FRIDAY)
        assert result.summary == text and not result.resolved and not result.unresolved


def test_words_that_name_no_day_are_unresolved() -> None:
    assert absolutise("We are moving next month.", FRIDAY).unresolved == ("next month",)
    assert absolutise("The cast comes off in two weeks.", FRIDAY).unresolved == ("in two weeks",)


@given(days)
def test_tomorrow_is_the_next_day_whatever_the_month(today: date) -> None:
    [m] = find_dates("tomorrow", today)
    assert m.first_day == today + timedelta(days=1) and m.valid_until == today + timedelta(days=2)


@given(days, st.sampled_from(WEEKDAYS))
def test_a_bare_weekday_is_the_next_such_day_within_a_week(today: date, weekday: str) -> None:
    [m] = find_dates(f"the party is {weekday}", today)
    assert m.first_day.weekday() == WEEKDAYS.index(weekday)
    assert 0 <= (m.first_day - today).days < 7


@given(days, st.sampled_from(WEEKDAYS))
def test_next_weekday_is_in_next_calendar_week(today: date, weekday: str) -> None:
    [m] = find_dates(f"next {weekday}", today)
    next_monday = today + timedelta(days=7 - today.weekday())
    assert next_monday <= m.first_day < next_monday + timedelta(days=7)


@given(days, st.integers(min_value=1, max_value=28))
def test_a_day_of_the_month_is_the_next_one(today: date, number: int) -> None:
    [m] = find_dates(f"on the {number}th", today)
    assert m.first_day.day == number and 0 <= (m.first_day - today).days <= 31


@given(
    st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2028, 12, 31)),
    st.sampled_from(
        ["Pacific/Chatham", "Asia/Kolkata", "America/St_Johns", "Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"]
    ),
)
def test_tonight_is_the_local_date_of_the_turn_in_any_zone(instant: datetime, zone: str) -> None:
    at = instant.replace(tzinfo=UTC)
    local = turn_day(at, zone)
    [m] = find_dates("tonight", local)
    assert m.first_day == local
    assert abs((local - at.date()).days) <= 1  # at most a day from UTC's date, either way


def test_a_day_of_next_month_is_resolved_not_refused() -> None:
    out = absolutise("Sione's knee operation is booked for the 12th next month at Vaiola.", date(2026, 4, 2))
    assert out.unresolved == ()
    assert "the 12th next month (Tuesday 2026-05-12)" in out.summary


def test_a_monthly_day_is_a_schedule_not_a_date() -> None:
    for text in ("The loan debits on the 28th of each month.", "Pay comes in on the 25th every month."):
        assert absolutise(text, date(2026, 2, 10)).summary == text


def test_a_day_of_a_monthly_schedule_is_no_date() -> None:
    for text in (
        "Ailsa is now paid monthly, on the last Friday of the month.",
        "Sunita's salary is 9,000 rupees a month, paid on the 1st.",
        "The window cleaner comes on the 2nd, every month.",
    ):
        result = absolutise(text, FRIDAY)
        assert result.summary == text and not result.resolved
    # Last week's Friday is still a date, and so is "on the 1st" of no schedule.
    assert absolutise("Ailsa was paid last Friday.", FRIDAY).resolved
    assert absolutise("The parcel comes on the 1st.", FRIDAY).resolved
