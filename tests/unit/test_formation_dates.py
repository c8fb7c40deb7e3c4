"""Relative dates become absolute against the turn's local date; valid_until is the day after."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from family_memory.formation.dates import find_dates, turn_day

FRIDAY = date(2026, 11, 27)


def only(text: str, today: date = FRIDAY) -> tuple[date, date, date]:
    found = find_dates(text, today)
    assert len(found) == 1, found
    return found[0].first_day, found[0].last_day, found[0].valid_until


def test_tonight_is_valid_until_the_next_local_day() -> None:
    assert only("Pizza night is tonight") == (FRIDAY, FRIDAY, date(2026, 11, 28))


def test_tomorrow_and_the_day_after() -> None:
    assert only("The plumber comes tomorrow morning")[0] == date(2026, 11, 28)
    assert only("Grandma arrives the day after tomorrow")[0] == date(2026, 11, 29)


def test_a_bare_weekday_is_the_next_such_day_today_included() -> None:
    assert only("Monday is a holiday")[0] == date(2026, 11, 30)
    assert only("Monday is a holiday")[2] == date(2026, 12, 1)
    assert only("Friday is the recital")[0] == FRIDAY


def test_next_weekday_is_in_next_calendar_week() -> None:
    assert only("Grandma is visiting next Friday")[0] == date(2026, 12, 4)
    sunday = date(2026, 11, 29)
    assert only("next Friday", sunday)[0] == date(2026, 12, 4)
    assert only("next Monday", sunday)[0] == date(2026, 11, 30)


def test_weekend_and_next_week_are_ranges() -> None:
    assert only("we are away this weekend") == (date(2026, 11, 28), date(2026, 11, 29), date(2026, 11, 30))
    assert only("school is closed next week") == (date(2026, 11, 30), date(2026, 12, 6), date(2026, 12, 7))


def test_month_day_rolls_into_next_year_once_passed() -> None:
    assert only("the party is on December 5th")[0] == date(2026, 12, 5)
    assert only("the trip is Jan 3")[0] == date(2027, 1, 3)
    assert only("the dentist was on Nov 2")[0] == date(2027, 11, 2)


def test_recurring_days_are_not_dates() -> None:
    assert find_dates("we have pizza every Friday", FRIDAY) == []
    assert find_dates("we have pizza on Fridays", FRIDAY) == []


@pytest.mark.parametrize(
    ("instant", "expected"),
    [
        # 23:30 in Los Angeles on Friday is already Saturday in UTC: the family's date wins.
        (datetime(2026, 11, 28, 7, 30, tzinfo=UTC), date(2026, 11, 27)),
        # Across the daylight-saving change (2026-11-01 in the US): 00:30 local is still the 1st.
        (datetime(2026, 11, 1, 7, 30, tzinfo=UTC), date(2026, 11, 1)),
    ],
)
def test_the_turn_day_is_the_familys_local_date(instant: datetime, expected: date) -> None:
    assert turn_day(instant, "America/Los_Angeles") == expected
