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
    assert only("the dentist is on Nov 2")[0] == date(2027, 11, 2)


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


WEDNESDAY = date(2026, 11, 25)


def test_last_weekday_is_the_most_recent_one_before_today_and_is_past() -> None:
    [mention] = find_dates("Last Friday was pizza night", WEDNESDAY)
    assert mention.first_day == date(2026, 11, 20) and mention.past
    [same_day] = find_dates("last Wednesday", WEDNESDAY)
    assert same_day.first_day == date(2026, 11, 18)


def test_a_weekday_in_a_past_tense_statement_is_behind_us() -> None:
    [mention] = find_dates("Maya was sick on Monday", WEDNESDAY)
    assert mention.first_day == date(2026, 11, 23) and mention.past
    [went] = find_dates("we went to the zoo on Nov 2", WEDNESDAY)
    assert went.first_day == date(2026, 11, 2) and went.past
    # The same words in the present tense are still a plan.
    [plan] = find_dates("Maya is off school on Monday", WEDNESDAY)
    assert plan.first_day == date(2026, 11, 30) and not plan.past


def test_yesterday_last_week_and_last_weekend_are_past_ranges() -> None:
    assert only("the party was yesterday", WEDNESDAY)[0] == date(2026, 11, 24)
    assert only("school was closed last week", WEDNESDAY)[:2] == (date(2026, 11, 16), date(2026, 11, 22))
    assert only("we were away last weekend", WEDNESDAY)[:2] == (date(2026, 11, 21), date(2026, 11, 22))
    assert all(m.past for m in find_dates("yesterday, last week and last weekend", WEDNESDAY))


@pytest.mark.parametrize(
    "text",
    ["I may 3 times a week go swimming", "She may 2 days skip it", "we ran March 5 miles", "up to Dec 25% off"],
)
def test_a_month_name_needs_a_day_not_a_count(text: str) -> None:
    assert find_dates(text, WEDNESDAY) == []


def test_a_month_and_a_day_are_still_a_date() -> None:
    assert only("the recital is May 3", WEDNESDAY)[0] == date(2027, 5, 3)
    assert only("the recital is on may 3", WEDNESDAY)[0] == date(2027, 5, 3)
    assert only("the recital is may 3rd", WEDNESDAY)[0] == date(2027, 5, 3)


# --- abbreviations, days of the month, ranges (issue 10) ----------------------------------

JAN_31 = date(2026, 1, 31)  # a Saturday, the last day of a month


def test_typed_abbreviations_are_dates_too() -> None:
    assert only("dentist tmrw at 3", JAN_31)[0] == date(2026, 2, 1)
    assert only("pizza tonite", JAN_31)[0] == JAN_31
    assert only("the day after tmrw", JAN_31)[0] == date(2026, 2, 2)


def test_a_day_of_the_month_alone_is_the_next_one_across_a_month_boundary() -> None:
    assert only("the recital is on the 14th", date(2026, 11, 20))[0] == date(2026, 12, 14)
    assert only("the recital is on the 14th", date(2026, 11, 14))[0] == date(2026, 11, 14)
    assert only("the party is on the 31st", date(2026, 2, 1))[0] == date(2026, 3, 31)  # February has none
    assert only("the 5th of December", JAN_31)[0] == date(2026, 12, 5)


def test_a_range_is_valid_until_the_day_after_it_ends() -> None:
    assert only("he's visiting March 3 to 17", JAN_31) == (date(2026, 3, 3), date(2026, 3, 17), date(2026, 3, 18))
    assert only("mom is staying feb 20 to march 2", JAN_31)[1:] == (date(2026, 3, 2), date(2026, 3, 3))
    assert only("from the 3rd to the 17th", JAN_31)[:2] == (date(2026, 2, 3), date(2026, 2, 17))
    assert only("camp is April 10-14", JAN_31)[:2] == (date(2026, 4, 10), date(2026, 4, 14))
    assert only("dec 28 to jan 3", date(2026, 12, 1))[:2] == (date(2026, 12, 28), date(2027, 1, 3))


def test_counts_after_a_month_name_are_still_not_dates() -> None:
    assert find_dates("march 5 miles on saturday", JAN_31)[0].text.lower() == "on saturday"
    assert find_dates("we run 3 to 5 times a week", JAN_31) == []


# --- a weekday with its date, day-month order, holidays (issue 10) -------------------------


def test_a_weekday_with_its_date_takes_the_date_and_the_weekday_picks_the_month() -> None:
    feb_20 = date(2026, 2, 20)
    assert only("the valuer is coming tuesday the 3rd", feb_20)[0] == date(2026, 3, 3)
    assert only("the trip is thursday 4th june", feb_20)[0] == date(2026, 6, 4)
    assert only("party on saturday june 13", feb_20)[0] == date(2026, 6, 13)
    # "saturday the 25th" said in February: the first 25th that is a Saturday (April).
    assert only("her party is saturday the 25th", feb_20)[0] == date(2026, 4, 25)
    assert only("lunch on the 28th, it's a saturday", feb_20)[0] == date(2026, 2, 28)


def test_day_month_order_and_ranges_that_name_the_month() -> None:
    feb_20 = date(2026, 2, 20)
    assert only("the olympiad is on 7th march", feb_20)[0] == date(2026, 3, 7)
    assert only("fees are due 24th April", feb_20)[0] == date(2026, 4, 24)
    assert only("she's away from 17th march to 22nd", feb_20)[:2] == (date(2026, 3, 17), date(2026, 3, 22))
    assert only("exams are 2nd to the 16th of April", feb_20)[:2] == (date(2026, 4, 2), date(2026, 4, 16))
    assert only("the sitter does april 13 until may 14", feb_20)[:2] == (date(2026, 4, 13), date(2026, 5, 14))
    assert find_dates("we may 3 times go", feb_20) == [] and find_dates("3 may be enough", feb_20) == []


def test_friday_next_week_is_next_weeks_friday() -> None:
    monday = date(2026, 11, 23)
    assert only("sports day is on friday next week", monday)[0] == date(2026, 12, 4)


def test_holidays_and_floors_are_not_days() -> None:
    assert only("tomorrow is Good Friday", FRIDAY)[0] == date(2026, 11, 28)
    assert find_dates("the white sunday play at church", FRIDAY) == []
    assert find_dates("she lives on the 3rd floor", FRIDAY) == []


def test_a_weekday_before_a_dated_year_leaves_the_year_to_the_date() -> None:
    found = find_dates("back to school on Monday, January 4, 2026", date(2026, 12, 30))
    assert [m.first_day for m in found if m.text.startswith("January")] == [date(2026, 1, 4)]


def test_a_day_before_its_month_is_a_date() -> None:
    may = date(2026, 5, 20)
    assert only("idris has a school trip on the 4th of june", may)[0] == date(2026, 6, 4)
    assert only("science olympiad on 7th feb", may)[0] == date(2027, 2, 7)
    assert only("kabir's party is 18 april", date(2026, 3, 1))[0] == date(2026, 4, 18)


def test_a_weekday_written_with_a_date_does_not_move_it() -> None:
    # "thursday 4th june" is June 4, not the next Thursday (May 21).
    may = date(2026, 5, 20)
    assert only("the zoo trip is thursday 4th june", may) == (date(2026, 6, 4), date(2026, 6, 4), date(2026, 6, 5))
    assert only("football party on Sunday, June 14", may)[0] == date(2026, 6, 14)


def test_lower_case_may_is_the_month_unless_it_follows_a_pronoun() -> None:
    assert only("maddie's spring concert is may 28 at 6:30", date(2026, 5, 1))[0] == date(2026, 5, 28)
    assert find_dates("we may 2 of them", date(2026, 5, 1)) == []


def test_a_tense_can_be_imposed() -> None:
    # "we got a flat april 4 to 11": "got" reads as the past, but the flat is a plan.
    march = date(2026, 3, 1)
    assert find_dates("we got a flat april 4 to 11", march)[0].first_day == date(2025, 4, 4)
    assert find_dates("we got a flat april 4 to 11", march, past=False)[0].first_day == date(2026, 4, 4)


def test_a_day_of_next_month() -> None:
    april = date(2026, 4, 2)
    assert only("It's booked for the 12th next month at Vaiola", april)[0] == date(2026, 5, 12)
    assert only("the 3rd of next month", date(2026, 12, 20))[0] == date(2027, 1, 3)


def test_a_weekday_with_its_date_goes_before_a_range_after_it() -> None:
    # "sunday 14th june 2 till 4": June 14 from 2 to 4 pm, not June 2 to 4.
    assert only("football party, sunday 14th june 2 till 4", date(2026, 5, 1))[:2] == (
        date(2026, 6, 14),
        date(2026, 6, 14),
    )


def test_a_range_into_next_year_ending_on_february_29_never_raises() -> None:
    # Said in 2027: the range ends in 2028, a leap year.
    [leap] = find_dates("dec 1 to feb 29", date(2027, 11, 20))
    assert (leap.first_day, leap.last_day) == (date(2027, 12, 1), date(2028, 2, 29))
    # Said on the last day of 2027: "dec 1" is 2028's, and 2029 has no February 29: no range, no error.
    [alone] = find_dates("dec 1 to feb 29", date(2027, 12, 31))
    assert alone.first_day == alone.last_day == date(2028, 12, 1)


@pytest.mark.parametrize(
    ("year", "sunday"),
    # Published Western Easter Sundays, including the earliest and latest of their century.
    [(2008, date(2008, 3, 23)), (2024, date(2024, 3, 31)), (2025, date(2025, 4, 20)), (2026, date(2026, 4, 5)),
     (2038, date(2038, 4, 25)), (2285, date(2285, 3, 22))],
)  # fmt: skip
def test_easter_sunday_is_the_gregorian_computus(year: int, sunday: date) -> None:
    from family_memory.formation.dates import easter_sunday

    assert easter_sunday(year) == sunday


def holiday(text: str, today: date) -> list[tuple[str, date, bool]]:
    return [(m.text, m.first_day, m.past) for m in find_dates(text, today, holidays=True)]


def test_a_holiday_by_name_is_its_next_day_or_for_the_past_its_last() -> None:
    march = date(2026, 3, 20)
    assert holiday("ok now easter. we're hosting", march) == [("easter", date(2026, 4, 5), False)]
    assert holiday("good friday we fly out", march) == [("good friday", date(2026, 4, 3), False)]
    assert holiday("xmas eve at nana's", march)[0][1] == date(2026, 12, 24)
    assert holiday("new year's eve party at ours", march)[0][1] == date(2026, 12, 31)
    assert holiday("we went to nana's for christmas", march) == [("christmas", date(2025, 12, 25), True)]
    assert holiday("last easter was chaos", march)[0][1:] == (date(2025, 4, 20), True)
    # Today included; the day after, the next year's.
    assert holiday("halloween costume shopping", date(2026, 10, 31))[0][1] == date(2026, 10, 31)
    assert holiday("halloween costume shopping", date(2026, 11, 1))[0][1] == date(2027, 10, 31)


def test_a_holiday_is_read_only_when_asked_and_never_as_a_habit() -> None:
    march = date(2026, 3, 20)
    # An extractor does not date a fact by the name: "easter" here is April 4 to 11.
    assert find_dates("easter we're going to rügen!!", march) == []
    assert holiday("every christmas we go to nana's", march) == []
    assert holiday("easters are always busy", march) == []
    # "Good Friday" is the holiday, not the next Friday.
    assert [m.text for m in find_dates("good friday", march)] == []


@pytest.mark.parametrize("typed", ["frıday", "FRİDAY", "Frıday"])
def test_a_weekday_typed_with_a_lookalike_letter_is_that_weekday_not_a_crash(typed: str) -> None:
    # Under re.I the weekday patterns match "frıday" (a Turkish keyboard's dotless i); the name
    # must then be found, not raise (it failed the whole extraction of the session).
    monday = date(2026, 6, 1)
    assert [m.first_day for m in find_dates(f"on {typed}", monday)] == [date(2026, 6, 5)]
    assert [m.first_day for m in find_dates(f"next {typed}", monday)] == [date(2026, 6, 12)]
    assert [m.first_day for m in find_dates(f"last {typed}", monday)] == [date(2026, 5, 29)]
    # and a month so typed ("ſept", a long s) is its month.
    assert [m.first_day for m in find_dates("ſept 3rd", monday)] == [date(2026, 9, 3)]
