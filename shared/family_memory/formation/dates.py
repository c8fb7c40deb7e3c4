"""Relative dates resolved against the session clock in the family's time zone.

"Pizza night is tonight", said on Friday 2026-11-27 in Los Angeles, is about
2026-11-27; a fact valid until D is gone when D begins locally, so the
memory's ``valid_until`` is the day *after* the last day it is about:
2026-11-28. The conventions, written down so they can be tested:

- today / tonight / this morning|afternoon|evening: the local date of the turn.
- tomorrow (night, morning, ...): the next day; the day after tomorrow: +2.
- a bare weekday ("Monday is a holiday", "on Friday", "this Friday"): the
  next such day, today included.
- "next Friday": the Friday of next calendar week (weeks start on Monday).
- "this weekend": Saturday and Sunday of this week (Sunday alone on a Sunday).
- "next week": Monday to Sunday of next week.
- "December 5" / "Dec 5th": that date this year, or next year once it has passed.
- an ISO date (2026-12-05) as written.

Recurring phrases ("every Friday", "on Fridays") are not dates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from family_memory.domain.clock import local_date

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_WEEKDAY = "(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

# Order matters: longer phrases first so "the day after tomorrow" is not read as "tomorrow".
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("day_after_tomorrow", re.compile(r"\bthe day after tomorrow\b", re.I)),
    ("tomorrow", re.compile(r"\btomorrow(?: (?:morning|afternoon|evening|night))?\b", re.I)),
    ("today", re.compile(r"\b(?:tonight|today|this (?:morning|afternoon|evening))\b", re.I)),
    ("next_weekday", re.compile(rf"\bnext {_WEEKDAY}\b", re.I)),
    ("weekday", re.compile(rf"(?<!every )(?<!next )\b(?:(?:this|on|coming|this coming) )?{_WEEKDAY}\b(?!s)", re.I)),
    ("this_weekend", re.compile(r"\bthis weekend\b", re.I)),
    ("next_week", re.compile(r"\bnext week\b", re.I)),
    ("month_day", re.compile(rf"\b(?:on )?{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?\b", re.I)),
)


@dataclass(frozen=True, slots=True)
class DateMention:
    """A date phrase in a text: where it is, and the local days it covers."""

    start: int
    end: int
    text: str
    first_day: date
    last_day: date

    @property
    def valid_until(self) -> date:
        """The day the fact stops being true: it is gone when this day begins locally."""
        return self.last_day + timedelta(days=1)

    def describe(self) -> str:
        """``Friday 2026-11-27`` or ``Saturday 2026-11-28 to Sunday 2026-11-29``."""
        first = f"{self.first_day:%A} {self.first_day.isoformat()}"
        if self.last_day == self.first_day:
            return first
        return f"{first} to {self.last_day:%A} {self.last_day.isoformat()}"


def _resolve(kind: str, match: re.Match[str], today: date) -> tuple[date, date] | None:
    weekday = today.weekday()
    if kind == "iso":
        try:
            day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            return None
        return day, day
    if kind == "day_after_tomorrow":
        day = today + timedelta(days=2)
        return day, day
    if kind == "tomorrow":
        day = today + timedelta(days=1)
        return day, day
    if kind == "today":
        return today, today
    if kind == "next_weekday":
        target = WEEKDAYS.index(match.group(1).lower())
        next_monday = today + timedelta(days=7 - weekday)
        day = next_monday + timedelta(days=target)
        return day, day
    if kind == "weekday":
        target = WEEKDAYS.index(match.group(1).lower())
        day = today + timedelta(days=(target - weekday) % 7)
        return day, day
    if kind == "this_weekend":
        saturday = today + timedelta(days=(5 - weekday) % 7) if weekday != 6 else today
        sunday = today + timedelta(days=6 - weekday)
        return saturday, sunday
    if kind == "next_week":
        monday = today + timedelta(days=7 - weekday)
        return monday, monday + timedelta(days=6)
    if kind == "month_day":
        month = MONTHS[match.group(1).lower()[:3]]
        try:
            day = date(today.year, month, int(match.group(2)))
            if day < today:
                day = date(today.year + 1, month, int(match.group(2)))
        except ValueError:
            return None
        return day, day
    return None


def find_dates(text: str, today: date) -> list[DateMention]:
    """Every date phrase in ``text`` (non-overlapping, in order), resolved against ``today``."""
    found: list[DateMention] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            days = _resolve(kind, match, today)
            if days is None:
                continue
            taken.append((start, end))
            found.append(DateMention(start, end, match.group(0), days[0], days[1]))
    return sorted(found, key=lambda m: m.start)


def turn_day(at: datetime, time_zone: str) -> date:
    """The family-local calendar date of a turn."""
    return local_date(at, time_zone)
