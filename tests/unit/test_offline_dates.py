"""The offline extractor's dated facts (issue 10, section 1, "Recurring and ranged time"): the
in-scope one-off facts of the harness families it used to miss, each with the case that must
still not be formed. The family is the Riveras of ``formation_helpers`` (Los Angeles); turns are
said late in the evening, so the UTC date is already the next day."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from family_memory.formation.dates import find_dates
from family_memory.formation.offline import OfflineExtractor
from family_memory.formation.offline.timing import week_span
from formation_helpers import family, transcript


def extract(text: str, at: datetime, member: str = "lucia") -> list[dict[str, Any]]:
    return OfflineExtractor().extract(transcript([("user", member, text)], started_at=at), family()).candidates


def dated(text: str, at: datetime, member: str = "lucia") -> list[tuple[str, str | None]]:
    return [(c["summary"], c.get("valid_until")) for c in extract(text, at, member) if c["type"] == "fact"]


#: Sunday 2026-03-08, 21:30 in Los Angeles (Monday 04:30 UTC): a week boundary.
SUNDAY_NIGHT = datetime(2026, 3, 9, 4, 30, tzinfo=UTC)
#: Tuesday 2026-03-31, 21:30 in Los Angeles (Wednesday April 1 UTC): a month boundary.
MONTH_END = datetime(2026, 4, 1, 4, 30, tzinfo=UTC)
#: Monday 2026-02-09, 07:56 in Los Angeles.
MONDAY = datetime(2026, 2, 9, 15, 56, tzinfo=UTC)


# --- "this week" / "next week" with the weekdays it is about (nguyen, tupou, mueller) ------------


def test_this_week_with_its_weekdays_is_those_days() -> None:
    # nguyen s01:7 used to form nothing: "wed and thu" are no dates and "this week" no subject.
    [(summary, until)] = dated("this week i'm on nights again wed and thu", MONDAY)
    assert until == "2026-02-13"
    assert (
        summary == "Lucía is on nights again wed and thu (from Wednesday 2026-02-11 to Thursday 2026-02-12) this week."
    )


def test_a_weekday_of_this_week_already_behind_is_not_guessed() -> None:
    # Said on a Friday, "this week ... monday" is behind: no dated fact rather than next Monday.
    friday = datetime(2026, 2, 13, 17, 0, tzinfo=UTC)
    assert dated("this week i'm off monday and tuesday", friday) == []


def test_a_week_said_on_a_sunday_is_the_one_ahead_in_the_familys_zone() -> None:
    # tupou s04:3 and mueller s04:6: on a Sunday evening (Monday in UTC) "this week" and "next
    # week" are the week that starts tomorrow there, not the one after.
    [(_, until)] = dated("I'm on nights this week, monday to saturday, 11 to 7", SUNDAY_NIGHT)
    assert until == "2026-03-15"
    [(summary, until)] = dated("also spring break next week, maya is going to abuela's monday to friday", SUNDAY_NIGHT)
    assert until == "2026-03-14"
    assert "(from Monday 2026-03-09 to Friday 2026-03-13)" in summary
    sunday = date(2026, 3, 8)
    span = week_span("next week, monday to friday", sunday)
    assert span is not None and (span.first_day, span.last_day) == (date(2026, 3, 9), date(2026, 3, 13))
    # From a Monday, "next week" is the next calendar week.
    span = week_span("next week, monday to friday", date(2026, 3, 9))
    assert span is not None and span.first_day == date(2026, 3, 16)


def test_monday_to_friday_without_a_week_is_still_a_schedule() -> None:
    [found] = extract("maya is at abuela's monday to friday", MONDAY)
    assert found.get("valid_until") is None


# --- a request or a "btw," after the statement (garcia, mueller) ---------------------------------


def test_a_request_after_the_statement_leaves_the_statement() -> None:
    # garcia s08:5 and mueller s07:3 used to be dropped whole for the ", can u remind ..." after them.
    [(summary, until)] = dated(
        "tmrw i have the dentist at 8 before school, can u remind dad to write me a note", MONTH_END, "maya"
    )
    assert until == "2026-04-02"  # tomorrow in Los Angeles is April 1, across the month's end
    assert summary.startswith("Tmrw (Wednesday 2026-04-01) Maya has the dentist at 8")
    # The request itself is still no memory.
    assert extract("can u remind dad to write me a note", MONTH_END, "maya") == []


def test_a_statement_after_btw_is_read_on_its_own() -> None:
    # garcia s07:7: "went" made the whole sentence history.
    said = "maya's fitting went great btw, the dress needs hemming and pickup is may 16"
    [(summary, until)] = dated(said, datetime(2026, 4, 26, 23, 16, tzinfo=UTC))
    assert (summary, until) == ("The dress needs hemming and pickup is may 16 (Saturday 2026-05-16).", "2026-05-17")
    # ... but "btw, same time, ..." goes on with the same statement, which stays whole.
    assert dated("choir moved to wednesdays btw, same time", MONDAY) == []


# --- an occasion before "we" (ahmed) ---------------------------------------------------------------


def test_the_occasion_before_we_does_not_hide_the_subject() -> None:
    [(summary, until)] = dated(
        "for eid we're going to abuela's for lunch, friday the 20th inshallah", datetime(2026, 3, 9, 0, 50, tzinfo=UTC)
    )
    assert until == "2026-03-21"
    assert summary.startswith("For eid we're going to abuela's for lunch, friday the 20th (2026-03-20)")
    # "for now" is a passing condition, not an occasion.
    assert dated("for now we're going to abuela's friday the 20th", datetime(2026, 3, 9, 0, 50, tzinfo=UTC)) == []


# --- a range says from when to when (ahmed) -----------------------------------------------------------


def test_a_range_is_written_from_its_first_day_to_its_last() -> None:
    [(summary, until)] = dated("ramadan's 18th feb to 19th march this year", datetime(2026, 2, 8, 21, 33, tzinfo=UTC))
    assert until == "2026-03-20"
    assert "(from Wednesday 2026-02-18 to Thursday 2026-03-19)" in summary


# --- lower-case "may" with a time (haddad) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("nadia lands may 8 at 3:40 in the afternoon", date(2026, 5, 8)),
        ("we may 3 times a week go swimming", None),
        ("she may 2 at most", None),
    ],
)
def test_lower_case_may_with_a_day_and_its_time_is_a_date(text: str, day: date | None) -> None:
    found = find_dates(text, date(2026, 4, 30))
    assert [m.first_day for m in found] == ([day] if day else [])


# --- an aside with a subject and a him/her of its own (kowalski, haddad) -----------------------------


def test_an_aside_about_someone_else_is_left_out_not_misread() -> None:
    # kowalski s05:9 used to say "Mike will take Anna after school": the "her" is Maddie, the
    # clause's own subject, which the rule for objects rules out, so it fell to the wife named before.
    turns: list[tuple[str, str | None, str]] = [
        ("user", "marco", "hey, marco here, my wife Hoa set this up"),
        ("user", "marco", "maya has the dentist the 3rd at 3:30, I'll take her after school"),
    ]
    found = OfflineExtractor().extract(transcript(turns, started_at=MONDAY), family()).candidates
    assert [(c["summary"], c["valid_until"]) for c in found if c["type"] == "fact"] == [
        ("Maya has the dentist the 3rd (Tuesday 2026-03-03) at 3:30.", "2026-03-04")
    ]
    # haddad s06:13 said "karim's picking Karim up".
    [(summary, _)] = dated("maya has the dentist the 3rd at 3:30, lu's picking her up", MONDAY, "marco")
    assert summary == "Maya has the dentist the 3rd (Tuesday 2026-03-03) at 3:30."
    # An aside whose him or her is the clause's own subject is kept.
    [(summary, _)] = dated("maya has the dentist the 3rd at 3:30, her teacher knows", MONDAY)
    assert summary.endswith("her teacher knows.") or summary.endswith("Maya's teacher knows.")
