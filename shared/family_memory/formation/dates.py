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
- "December 5" / "Dec 5th" / "the 5th of December": that date this year, or next year
  once it has passed; "December 5, 2026" / "5 December 2026": that very date.
- "the 14th" (a day of the month alone): the next 14th, today included, so said on
  the 20th it is next month's; "the 12th next month": next month's 12th.
- a range, "March 3 to 17", "feb 20 to march 2", "from the 3rd to the 17th", "April
  10-14": one mention covering every day from the first to the last.
- the abbreviations people type: "tmrw", "tmr", "2moro", "tonite", "2nite".
  A month name needs a day after it that is a day, not a count: "May 3" is a
  date, "may 3 times a week" is not (nor "March 5 miles"); the lower-case
  "may" counts only as "on may 3", "may 3rd" or "may 3 at 4:40" (a day with its time),
  since it is usually the verb.
- an ISO date (2026-12-05) as written.
- a holiday by name, where the caller asks (``holidays=True``): Christmas (Eve, Day),
  Boxing Day, New Year's Eve and Day, Halloween, Valentine's Day, Bonfire Night, and the
  Western Easter days (Good Friday, Easter Sunday, Easter Monday; "Easter" alone is the
  Sunday): the next one, today included, or the most recent one in a past-tense statement
  or after "last". Holidays whose date depends on a lunar calendar or on the country (Eid,
  Diwali, Thanksgiving, Mother's Day) are not read.

The past is not the future. "yesterday", "last Friday" (the most recent
Friday before today), "last week" and "last weekend" are past days; and in a
past-tense statement ("Maya was sick on Monday", "we went there on Nov 2") a
bare weekday or month day is the most recent such day, today included, not
the next one. Such a mention is marked ``past``: it is history, not a plan,
and an extractor must not turn it into a dated fact with a ``valid_until``.

Recurring phrases ("every Friday", "on Fridays") are not dates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from family_memory.domain.clock import local_date

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: Every form a weekday is written in ("tuesday", "tuesdays", "tue", "tues"), to its number (Monday 0).
WEEKDAY_FORMS: dict[str, int] = {
    form: n for n, day in enumerate(WEEKDAYS) for form in (day, day + "s", day[:3], day[:3] + "s")
} | {"tues": 1, "weds": 2, "thur": 3, "thurs": 3}
#: Letters a case-blind pattern reads as ASCII ones: under ``re.I`` "frıday" (dotless i), "FRİDAY"
#: and "ſunday" match the weekday patterns, so the name is folded so before it is looked up.
_LOOKALIKES = str.maketrans({"ı": "i", "İ": "i", "ſ": "s", "K": "k", "\u0307": None})


def fold_lookalikes(word: str) -> str:
    """``word`` lower-cased with the letters ``re.I`` takes for ASCII ones made ASCII ("frıday")."""
    return word.translate(_LOOKALIKES).lower()


def weekday_number(word: str) -> int:
    """Monday 0 for any form of a weekday a case-blind pattern matched ("Tues", "FRIDAYS",
    "frıday"); KeyError for a word that is none."""
    return WEEKDAY_FORMS[fold_lookalikes(word)]


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
_WEEKDAY_NC = "(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
#: Days that are holidays, not the next such weekday ("Good Friday", "White Sunday", "Black Friday").
_NOT_HOLIDAY = "".join(
    f"(?<!{word} )" for word in ("good", "white", "palm", "easter", "black", "ash", "holy", "cyber", "super", "whit")
)
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

#: What follows a number that makes it a count, not a day of the month ("may 3 times a week").
_COUNT = (
    r"(?!\s*(?:%|percent\b|times?\b|x\b|days?\b|nights?\b|weeks?\b|months?\b|years?\b|hours?\b|hrs?\b|"
    r"minutes?\b|mins?\b|miles?\b|km\b|kilometres?\b|kilometers?\b|kilos?\b|kg\b|pounds?\b|lbs?\b|people\b|"
    r"persons?\b|kids?\b|children\b|more\b|less\b|each\b|per\b))(?![.,:]\d)"
)
#: A date with its year is read by the patterns that take the year.
_NO_YEAR = r"(?!,?\s*(?:19|20)\d{2}\b)"
#: What joins the two ends of a range ("March 3 to 17", "the 3rd - the 17th").
_UNTIL = r"\s*(?:to|through|thru|until|till|til|-|–)\s*"
_TOMORROW = r"(?:tomorrow|tmrw|tmr|tmrow|tomoz|2moro|2morrow)"
#: A statement about the past: a bare weekday or month day in it is behind us, not ahead.
_PAST_TENSE = re.compile(
    r"\b(?:was|were|wasn't|weren't|wasn’t|weren’t|had|did|didn't|didn’t|went|got|came|ate|saw|happened|"
    r"yesterday|ago)\b",
    re.I,
)


def _table(*rows: tuple[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each kind of date phrase with its pattern, compiled (case ignored), in the order given."""
    return tuple((kind, re.compile(pattern, re.I)) for kind, pattern in rows)


# Order matters: longer phrases first so "the day after tomorrow" is not read as "tomorrow".
_PATTERNS = _table(
    ("iso", r"\b(\d{4})-(\d{2})-(\d{2})\b"),
    # A weekday with the date it falls on ("tuesday the 3rd", "thursday 4th june", "18th april,
    # saturday"): the date decides, the weekday only confirms it. Before the ranges: "sunday
    # 14th june 2 till 4" is June 14, not June 2 to 4.
    (
        "weekday_day_month",
        rf"\b(?:(?:on|this) )?{_WEEKDAY_NC},? (?:the )?(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH}\b{_NO_YEAR}",
    ),
    (
        "weekday_month_day",
        rf"\b(?:(?:on|this) )?{_WEEKDAY_NC},? {_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?\b{_COUNT}{_NO_YEAR}",
    ),
    (
        "range_month",
        rf"\b(?:from )?{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?{_UNTIL}(?:the )?(\d{{1,2}})"
        rf"(?:st|nd|rd|th)?\b{_COUNT}",
    ),
    (
        "range_months",
        rf"\b(?:from )?{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?{_UNTIL}{_MONTH}\.? "
        rf"(\d{{1,2}})(?:st|nd|rd|th)?\b",
    ),
    (
        "range_days",
        rf"\b(?:from )?the (\d{{1,2}})(?:st|nd|rd|th){_UNTIL}(?:the )?(\d{{1,2}})"
        rf"(?:st|nd|rd|th)\b",
    ),
    (
        "range_days_month",
        rf"\b(?:from )?(?:the )?(\d{{1,2}})(?:st|nd|rd|th)?(?: of)?(?: {_MONTH})?{_UNTIL}(?:the )?(\d{{1,2}})"
        rf"(?:st|nd|rd|th)? (?:of )?{_MONTH}\b",
    ),
    (
        "range_day_month",
        rf"\b(?:from )?(?:the )?(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH}{_UNTIL}(?:the )?(\d{{1,2}})"
        rf"(?:st|nd|rd|th)\b",
    ),
    (
        "weekday_day_of_month",
        rf"\b(?:(?:on|this|this coming|coming) )?{_WEEKDAY_NC},? (?:the )?(\d{{1,2}})(?:st|nd|rd|th)"
        rf"(?: of {_MONTH})?\b",
    ),
    (
        "day_month",
        rf"\b(?:on )?(?:the )?(\d{{1,2}})(?P<nth>st|nd|rd|th)? (?P<of>of )?{_MONTH}\b(?!\.?,? \d)"
        rf"(?:,? (?:it['’]?s |its )?(?:a )?{_WEEKDAY_NC}\b)?",
    ),
    ("weekday_next_week", rf"\b(?:on )?{_WEEKDAY} (?:of )?next week\b"),
    ("day_next_month", r"\bthe (\d{1,2})(?:st|nd|rd|th)? (?:of )?next month\b"),
    (
        "day_of_month",
        rf"\bthe (\d{{1,2}})(?:st|nd|rd|th)(?: of {_MONTH})?\b(?!\s+(?:floor|grade|year|place|row|round|"
        rf"century|period|class|attempt|time|one|and final))(?:,? (?:it['’]?s |its )?(?:a )?{_WEEKDAY_NC}\b)?",
    ),
    ("day_after_tomorrow", r"\bthe day after (?:tomorrow|tmrw|tmr)\b"),
    ("tomorrow", rf"\b{_TOMORROW}(?: (?:morning|afternoon|evening|night))?\b"),
    ("yesterday", r"\b(?:yesterday|yday)(?: (?:morning|afternoon|evening))?\b"),
    ("today", r"\b(?:tonight|tonite|2nite|today|this (?:morning|afternoon|evening))\b"),
    ("last_weekday", rf"\blast {_WEEKDAY}\b"),
    ("next_weekday", rf"\bnext {_WEEKDAY}\b"),
    (
        "holiday",
        r"(?<!every )(?<!each )\b(?:(?P<last>last|this|next) )?(?P<name>christmas(?: eve| day)?|xmas(?: eve| day)?|"
        r"boxing day|new year['’]?s(?: eve| day)?|nye|hall?owe['’]?en|valentine['’]?s(?: day)?|bonfire night|"
        r"guy fawkes(?: night)?|good friday|easter(?: sunday| monday)?)\b(?!s\b)",
    ),
    (
        "weekday",
        rf"(?<!every )(?<!next )(?<!last ){_NOT_HOLIDAY}\b(?:(?:this|on|coming|this coming) )?{_WEEKDAY}\b(?!s)",
    ),
    ("last_weekend", r"\blast weekend\b"),
    ("this_weekend", r"\bthis weekend\b"),
    ("last_week", r"\blast week\b"),
    ("next_week", r"\bnext week\b"),
    ("month_day_year", rf"\b{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?,? ((?:19|20)\d{{2}})\b"),
    ("day_month_year", rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH},? ((?:19|20)\d{{2}})\b"),
    (
        "month_day",
        rf"\b(?P<on>(?:on|is|['’]s|till|until|from|by) )?{_MONTH}\.? (\d{{1,2}})(?P<nth>st|nd|rd|th)?\b{_COUNT}"
        r"(?:(?=(?P<at>\s+at\s+\d)))?",
    ),
)


#: Kinds that name a day by its distance from today.
_SHIFTS = {"day_after_tomorrow": 2, "tomorrow": 1, "yesterday": -1, "today": 0}


@dataclass(frozen=True, slots=True)
class DateMention:
    """A date phrase in a text: where it is, and the local days it covers."""

    start: int
    end: int
    text: str
    first_day: date
    last_day: date
    past: bool = False  # history ("last Friday", "was sick on Monday"), not a plan

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


def _one_day(day: date | None) -> tuple[date, date] | None:
    """A phrase about one day: that day as first and last, or None when it names none."""
    return (day, day) if day else None


def _month(name: str) -> int:
    """The number of a month written in full or short ("December", "dec", "Sept")."""
    return MONTHS[fold_lookalikes(name)[:3]]


def _resolve(kind: str, match: re.Match[str], today: date, past: bool) -> tuple[date, date] | None:
    """The days a phrase covers. ``past``: the statement is in the past tense."""
    weekday = today.weekday()
    if kind == "iso":
        try:
            return _one_day(date(int(match.group(1)), int(match.group(2)), int(match.group(3))))
        except ValueError:
            return None
    if kind in _SHIFTS:
        return _one_day(today + timedelta(days=_SHIFTS[kind]))
    if kind == "last_weekday":
        target = weekday_number(match.group(1))
        return _one_day(today - timedelta(days=(weekday - target) % 7 or 7))
    if kind == "last_weekend":
        saturday = today - timedelta(days=(weekday - 5) % 7 or 7)
        if saturday + timedelta(days=1) >= today:
            saturday -= timedelta(days=7)
        return saturday, saturday + timedelta(days=1)
    if kind == "last_week":
        monday = today - timedelta(days=weekday + 7)
        return monday, monday + timedelta(days=6)
    if kind in ("weekday_day_month", "weekday_month_day", "day_month"):
        number, month_name = (
            (match.group(2), match.group(1)) if kind == "weekday_month_day" else (match.group(1), match.group(2))
        )
        if kind == "day_month":
            month_name = match.group(4)
            if month_name.lower() == "may" and not (match.group("nth") or match.group("of")):
                return None  # "3 may": a count and the verb more often than a date
        return _one_day(_in_year(today, _month(month_name), int(number), past))
    if kind in ("weekday_day_of_month", "day_of_month"):
        number = int(match.group(1))
        if match.group(2):
            return _one_day(_in_year(today, _month(match.group(2)), number, past))
        return _one_day(_day_of_month(today, number, past, _named_weekday(match.group(0))))
    if kind in ("next_weekday", "weekday_next_week"):
        target = weekday_number(match.group(1))
        next_monday = today + timedelta(days=7 - weekday)
        return _one_day(next_monday + timedelta(days=target))
    if kind == "weekday":
        target = weekday_number(match.group(1))
        # Ahead (today included) for a plan; behind (today included) for something that happened.
        shift = -((weekday - target) % 7) if past else (target - weekday) % 7
        return _one_day(today + timedelta(days=shift))
    if kind == "this_weekend":
        saturday = today + timedelta(days=(5 - weekday) % 7) if weekday != 6 else today
        sunday = today + timedelta(days=6 - weekday)
        return saturday, sunday
    if kind == "next_week":
        monday = today + timedelta(days=7 - weekday)
        return monday, monday + timedelta(days=6)
    if kind in ("month_day_year", "day_month_year"):
        month_name, number = (
            (match.group(1), match.group(2)) if kind == "month_day_year" else (match.group(2), match.group(1))
        )
        try:
            return _one_day(date(int(match.group(3)), _month(month_name), int(number)))
        except ValueError:
            return None
    if kind == "month_day":
        name = match.group(2)
        if name == "may" and not (match.group("on") or match.group("nth") or match.group("at")):
            return None  # "I may 3 times a week ...": the verb, not the month
        return _one_day(_in_year(today, _month(name), int(match.group(3)), past))
    if kind == "day_next_month":
        year, month = (today.year, today.month + 1) if today.month < 12 else (today.year + 1, 1)
        try:
            return _one_day(date(year, month, int(match.group(1))))
        except ValueError:
            return None
    if kind == "holiday":
        return _one_day(_holiday(today, match.group("name").lower(), past or match.group("last") == "last"))
    if kind in ("range_month", "range_months", "range_days", "range_days_month", "range_day_month"):
        return _range(kind, match, today, past)
    return None


#: Holidays on the same day every year (month, day).
_FIXED_HOLIDAYS = {
    "christmas": (12, 25),
    "christmas day": (12, 25),
    "christmas eve": (12, 24),
    "boxing day": (12, 26),
    "new years eve": (12, 31),
    "nye": (12, 31),
    "new years day": (1, 1),
    "new years": (1, 1),
    "halloween": (10, 31),
    "valentines": (2, 14),
    "valentines day": (2, 14),
    "bonfire night": (11, 5),
    "guy fawkes": (11, 5),
    "guy fawkes night": (11, 5),
}
#: The Western Easter days, as days after Easter Sunday.
_EASTER_DAYS = {"good friday": -2, "easter": 0, "easter sunday": 0, "easter monday": 1}


def easter_sunday(year: int) -> date:
    """Western (Gregorian) Easter Sunday of ``year``: the anonymous Gregorian algorithm."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l = (32 + 2 * e + 2 * i - h - k) % 7  # noqa: E741 (the algorithm's own name)
    m = (a + 11 * h + 22 * l) // 451
    month, day = divmod(h + l - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _holiday(today: date, name: str, past: bool) -> date:
    """The next ``name`` holiday, today included (the most recent one, today included, for the past)."""
    name = re.sub(r"['’]", "", name).replace("xmas", "christmas").replace("haloween", "halloween")

    def in_year(year: int) -> date:
        if name in _EASTER_DAYS:
            return easter_sunday(year) + timedelta(days=_EASTER_DAYS[name])
        month, day = _FIXED_HOLIDAYS[name]
        return date(year, month, day)

    day = in_year(today.year)
    if past and day > today:
        return in_year(today.year - 1)
    if not past and day < today:
        return in_year(today.year + 1)
    return day


def _in_year(today: date, month: int, number: int, past: bool) -> date | None:
    """``month``/``number`` this year; next year once passed (last year, for the past)."""
    try:
        day = date(today.year, month, number)
        if past and day > today:
            day = date(today.year - 1, month, number)
        elif not past and day < today:
            day = date(today.year + 1, month, number)
    except ValueError:
        return None
    return day


def _named_weekday(text: str) -> int | None:
    """The weekday a date phrase also names ("tuesday the 3rd", "the 28th, it's a saturday")."""
    found = re.search(_WEEKDAY, text, re.I)
    return weekday_number(found.group(1)) if found else None


def _day_of_month(today: date, number: int, past: bool, weekday: int | None = None) -> date | None:
    """The next ``number``-th of a month, today included (the last one, for the past); with a
    ``weekday`` ("friday the 20th"), the first such ``number``-th that falls on it, if one does
    within the year, else the next ``number``-th."""
    if not 1 <= number <= 31:
        return None
    if weekday is not None:
        matching = _day_of_month(today, number, past)
        for _ in range(12):
            if matching is None or matching.weekday() == weekday:
                break
            step = matching - timedelta(days=1) if past else matching + timedelta(days=1)
            matching = _day_of_month(step, number, past)
        if matching is not None and matching.weekday() == weekday:
            return matching
    year, month = today.year, today.month
    for _ in range(13):
        try:
            day = date(year, month, number)
        except ValueError:
            day = None
        if day is not None and ((day <= today) if past else (day >= today)):
            return day
        if past:
            year, month = (year, month - 1) if month > 1 else (year - 1, 12)
        else:
            year, month = (year, month + 1) if month < 12 else (year + 1, 1)
    return None


def _range(kind: str, match: re.Match[str], today: date, past: bool) -> tuple[date, date] | None:
    """The first and last day of "March 3 to 17", "feb 20 to march 2", "the 3rd to the 17th"."""
    group = match.group
    # The first day, and the month and day of the last (its month None: the first day's month).
    last_month: int | None = None
    if kind == "range_month":  # "March 3 to 17"
        first = _in_year(today, _month(group(1)), int(group(2)), past)
        last_number = int(group(3))
    elif kind == "range_months":  # "feb 20 to march 2"
        first = _in_year(today, _month(group(1)), int(group(2)), past)
        last_month, last_number = _month(group(3)), int(group(4))
    elif kind == "range_days_month":  # "the 3rd to the 17th of March", "20 feb to 2 march"
        last_month = _month(group(4))
        first = _in_year(today, _month(group(2)) if group(2) else last_month, int(group(1)), past)
        last_number = int(group(3))
    elif kind == "range_day_month":  # "the 3rd of March to the 17th"
        first = _in_year(today, _month(group(2)), int(group(1)), past)
        last_number = int(group(3))
    else:  # "the 3rd to the 17th"
        first = _day_of_month(today, int(group(1)), past)
        last_number = int(group(2))
    if first is None:
        return None
    month = first.month if last_month is None else last_month
    # "the 28th of December to the 3rd of January" and "dec 1 to feb 29" end in the next year
    # (the year is chosen before the date is made: February 29 is a day only in some years).
    next_year = (kind == "range_days_month" and month < first.month) or (
        kind == "range_months" and (month, last_number) < (first.month, first.day)
    )
    try:
        last = date(first.year + 1 if next_year else first.year, month, last_number)
    except ValueError:
        return None
    if last < first or (last - first).days > 366:
        return None
    return first, last


#: Kinds whose day is behind us in a past-tense statement ("was sick on Monday", "went there on Nov 2").
_PAST_CAPABLE = frozenset(
    {
        "holiday",
        "weekday",
        "month_day",
        "today",
        "day_month",
        "weekday_day_month",
        "weekday_month_day",
        "weekday_day_of_month",
    }
)


def past_tense(text: str) -> bool:
    """Whether ``text`` speaks of the past ("was", "went", "yesterday", "ago")."""
    return _PAST_TENSE.search(text) is not None


def find_dates(text: str, today: date, past: bool | None = None, *, holidays: bool = False) -> list[DateMention]:
    """Every date phrase in ``text`` (non-overlapping, in order), resolved against ``today``.
    ``text`` is one statement: its tense decides whether a bare weekday is behind or ahead
    (``past`` given: read it in that tense). ``holidays``: also read a holiday's name as its
    day. The support check does ("hosting easter" supports "Easter on April 5"); an extractor
    does not date a fact by the name alone, which often names a stretch of days, not the day
    ("easter we're going to rügen", then "april 4 to 11")."""
    found: list[DateMention] = []
    taken: list[tuple[int, int]] = []
    past = past_tense(text) if past is None else past
    for kind, pattern in _PATTERNS:
        if kind == "holiday" and not holidays:
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            days = _resolve(kind, match, today, past)
            if days is None:
                continue
            taken.append((start, end))
            behind = days[1] < today or (past and kind in _PAST_CAPABLE)
            found.append(DateMention(start, end, match.group(0), days[0], days[1], past=behind))
    return sorted(found, key=lambda m: m.start)


def turn_day(at: datetime, time_zone: str) -> date:
    """The family-local calendar date of a turn."""
    return local_date(at, time_zone)
