"""Calendar values a summary states and the cited turns do not (part of the support check,
``formation/support.py``; DESIGN invariant 2, issue 10 section 2).

A summary that swaps one calendar word for another keeps the count of its words: "The family is
away all of February" for "we're away all of january" adds one word and drops one, so the word
check lets it through. A calendar word is a value: the day, month or season a thing happens is
what the family will act on. This module refuses a summary whose

- weekday ("Thursdays", "Monday to Saturday") is not one the turns say, spell ("weds",
  "thurs", "wendesdays"), span ("mon-fri", "monday to thursday"), leave out of an "every day"
  ("every day but sunday" is Monday to Saturday), or name by a date word (said on a Tuesday,
  "tmrw" is Wednesday; a date the resolver reads, one day long);
- month ("February") is not one the turns say or spell ("febuary", "sept"), nor the month of a
  date or holiday they name ("christmas" is December), nor a relative month resolved on the day
  the turn was said ("next month" said in December is January; "in 3 weeks");
- season is not one the turns say, nor one of their months' (either hemisphere: families live
  in Adelaide and Nuku'alofa too);
- "weekend" or "weekdays" is not what the turns say: a Saturday or a Sunday is a weekend,
  "weekdays" needs the turns' weekdays, "mon-fri", "school days" or "school nights";
- time of day ("morning", "afternoon", "evening"/"night") is not one the turns say or imply:
  "before school" and "breakfast" are a morning, "after school" and a school pickup an
  afternoon, "tonight", "dinner" and "bedtime" an evening, a clock time its part of the day.

Names are no calendar words ("June has ballet", "Summer's allergic"). A turn with a bare day of
the month ("the 14th") or a relative date said on an unknown day can mean any month, so it is
not held against the summary. The frequency a summary gives (``paraphrase.rate_problem``: "every
Thursday" for "every other thursday") is checked from here too, so ``support.py`` calls one place.

Lexical and deterministic: no model call in Lambda.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cache

from family_memory.domain.text import normalise_for_match
from family_memory.formation import foreign_words, paraphrase
from family_memory.formation.dates import WEEKDAYS, find_dates

_MONTH_NAMES = (
    "january february march april may june july august september october november december".split()  # noqa: SIM905
)
#: Written forms of a month in the turns ("jan", "sept", "febuary" by the typo rule).
_MONTH_FORMS: dict[str, int] = (
    {name: n for n, name in enumerate(_MONTH_NAMES, 1)}
    | {name[:3]: n for n, name in enumerate(_MONTH_NAMES, 1)}
    | {"sept": 9}
)
#: Forms a summary writes a month in: full names, and the short forms no other word has.
_SUMMARY_MONTHS: dict[str, int] = {name: n for n, name in enumerate(_MONTH_NAMES, 1)} | {
    form: n
    for form, n in _MONTH_FORMS.items()
    if form in ("jan", "feb", "apr", "jun", "jul", "aug", "sept", "oct", "nov", "dec")
}
#: Written forms of a weekday in the turns ("weds", "thurs", "tues"; "sat" and "sun" too).
_WEEKDAY_FORMS: dict[str, int] = {
    form: n for n, day in enumerate(WEEKDAYS) for form in (day, day + "s", day[:3], day[:3] + "s")
} | {"tues": 1, "weds": 2, "wednes": 2, "thur": 3, "thurs": 3, "thrus": 3, "thrs": 3, "sats": 5, "suns": 6}
#: Forms a summary writes a weekday in: full names, and short forms no other word has.
_SUMMARY_WEEKDAYS: dict[str, int] = {
    form: n
    for form, n in _WEEKDAY_FORMS.items()
    if form.removesuffix("s") in WEEKDAYS or form in ("mon", "tue", "tues", "weds", "thu", "thur", "thurs", "fri")
}
_SEASONS = {"spring": "spring", "summer": "summer", "summers": "summer", "autumn": "autumn", "autumns": "autumn"}
_SEASONS |= {"winter": "winter", "winters": "winter", "fall": "autumn"}
#: The seasons of each month, north and south of the equator.
_SEASON_OF = {
    m: frozenset({north, south})
    for months, north, south in (
        ((12, 1, 2), "winter", "summer"),
        ((3, 4, 5), "spring", "autumn"),
        ((6, 7, 8), "summer", "winter"),
        ((9, 10, 11), "autumn", "spring"),
    )
    for m in months
}
#: "fall" is a season only after a word that says when ("in the fall", "this fall", "next fall").
_FALL_SEASON = re.compile(
    r"\b(?:in|the|this|next|last|every|each|over|during|until|till|since|by|early|late) fall\b", re.I
)

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*", re.UNICODE)
_ALL_DAYS = frozenset(range(7))
_WEEKDAY_SET = frozenset(range(5))
_WEEKEND_SET = frozenset({5, 6})
#: A range of weekdays: "mon-fri", "monday to thursday", "tues thru sat", "wed - fri".
_DAY = r"(mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)[a-z]*"
_DAY_NC = r"(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)[a-z]*"
_DAY_RANGE = re.compile(rf"\b{_DAY}\s*(?:-|–|to|through|thru|till|til|until)\s*{_DAY}\b", re.I)
#: Phrases of every day of a set: "every day", "daily", "7 days a week", "weekdays", "school nights".
_EVERY_DAY = re.compile(
    r"\b(?:every ?day|everyday|daily|every night|nightly|all week|7 days a week|seven days a week)\b", re.I
)
_WEEKDAYS_SAID = re.compile(
    r"\bm-f\b|\b(?:(?:week|wk)[ -]?(?:days?|nights?)|work ?days?|working days?|business days?|"
    r"school (?:days?|nights?|mornings?|runs?)|during the week)\b",
    re.I,
)
_WEEKEND_SAID = re.compile(r"\b(?:week[ -]?ends?|wkn?ds?|wk[ -]?ends?|w[-'’]ends?)\b", re.I)
#: A time of the school day: "before school", "after skool", "the school run".
_SCHOOL_TIME = re.compile(
    r"\b(?:before|b4|after|aftr) (?:school|skool|skl|scool)\b|\bschool (?:run|pick ?up)s?\b", re.I
)
#: Days left out: "every day but sunday", "weekdays except wednesday", "not on fridays".
_EXCEPT = re.compile(
    rf"\b(?:but|except|excluding|apart from|other than|besides|bar|but not)(?: for)?(?: on)?(?: the)? "
    rf"(?P<days>{_DAY}(?:(?:,| and| or| &| nor)\s*(?:on )?{_DAY})*)\b"
    r"(?!'s|\s+(?:is|are|was|were|will|we|i|he|she|they|it|you)\b)",  # "but sunday's free" says Sunday
    re.I,
)
#: A relative month: "next month", "this month", "the month after next", "in 2 months".
_RELATIVE_MONTH = re.compile(
    r"\b(?:(?P<rel>this|next|last|the following|the coming|coming|end of the|end of|start of the|start of) month"
    r"|(?P<after>the month after next)"
    r"|in (?P<n>a|one|two|three|four|five|six|\d{1,2}|a couple of|a few) months?)\b",
    re.I,
)
_RELATIVE_WEEKS = re.compile(
    r"\bin (?P<n>a|one|two|three|four|five|six|\d{1,2}|a couple of|a few) weeks?\b|\bin a fortnight\b", re.I
)
_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a couple of": 2, "a few": 3}
#: The weekday of a date, just before it: "Saturday, May 30" (it matches the empty string else).
_WEEKDAY_BEFORE = re.compile(r"(?:\b(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s*(?:the\s+)?)?$", re.I)


def _date_start(text: str, start: int) -> int:
    """Where a date phrase at ``start`` begins with its weekday ("Saturday, May 30")."""
    before = _WEEKDAY_BEFORE.search(text[:start])
    return before.start() if before else start


_OF_MONTH = re.compile(r"\s+of\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)
#: A date the formation step resolved and wrote into the summary: "(Friday 2026-11-27)".
_ANNOTATION = re.compile(r"\([^()]*\d{4}-\d{2}-\d{2}[^()]*\)")
#: A bare day of the month: its month is the conversation's, which the turn does not repeat.
_BARE_NTH = re.compile(r"\bthe \d{1,2}(?:st|nd|rd|th)\b", re.I)

# --- times of day ------------------------------------------------------------------------------

#: Parts of the day, by the part they name (an evening and a night are one); binding.py reads
#: them as what tells parallel parts apart ("mornings for maths, evenings for reading").
PARTS_OF_DAY = {
    "morning": "morning",
    "mornings": "morning",
    "afternoon": "afternoon",
    "afternoons": "afternoon",
    "evening": "evening",
    "evenings": "evening",
    "night": "evening",
    "nights": "evening",
}
#: A summary's time of day, to the part of the day it names.
_TIME_OF_DAY = {
    **PARTS_OF_DAY,
    "nightly": "evening",
    "overnight": "evening",
    "tonight": "evening",
    "bedtime": "evening",
}
#: Typed forms of the parts of the day ("sat morn", "tues eve", "thurs aft", "tmrw nite").
_PART_FORMS = {
    "morn": "morning",
    "morns": "morning",
    "mornin": "morning",
    "mornins": "morning",
    "eve": "evening",
    "eves": "evening",
    "evng": "evening",
    "evenin": "evening",
    "nite": "evening",
    "nites": "evening",
    "tonite": "evening",
    "aft": "afternoon",
    "afto": "afternoon",
    "arvo": "afternoon",
    "arvos": "afternoon",
}
#: Short forms of the weekdays in a list: "m/w/f", "tu/th", "mwf", "tth".
_LETTER_DAYS = {"m": 0, "t": 1, "tu": 1, "w": 2, "th": 3, "r": 3, "f": 4, "sa": 5, "su": 6}
_LETTER_LIST = re.compile(r"(?<![\w/])((?:m|tu?|w|th|r|f|sa|su)(?:\s?/\s?(?:m|tu?|w|th|r|f|sa|su))+)(?![\w/])", re.I)
_LETTER_WORDS = {"mwf": (0, 2, 4), "tth": (1, 3), "mtwtf": (0, 1, 2, 3, 4)}
#: A weekend typed short: "w/e", "wkend", "wknd", "eow" (every other weekend).
_WEEKEND_SHORT = re.compile(r"(?<![\w/])w/e(?![\w/])|\bwk ?n?ds?\b|\bwk ?ends?\b|\beow(?:e|knd)?\b", re.I)
#: "am" or "pm" after a weekday: "tues am", "sat pm".
_DAY_HALF = re.compile(rf"\b{_DAY_NC}\s?(am|pm|a\.m\.|p\.m\.)(?!\w)", re.I)
#: Words of the turns that say a part of the day without naming it.
_SAID_PART: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.I), part)
    for pattern, part in (
        (
            r"\b(?:(?:before|b4) (?:school|skool|skl|scool|work|nursery)|breakfast|brekkie|brekky|first thing|"
            r"wake(?:s)? up|waking up|school run|drop ?offs?)\b|\d ?(?:am|a\.m\.)(?!\w)",
            "morning",
        ),
        (r"\b(?:tmrw|tomorrow) morning\b|\bsunrise\b|\bdawn\b|\bearly (?:shifts?|starts?)\b", "morning"),
        (
            r"\b(?:after (?:school|skool|skl|scool)|aftr school|lunch ?time|lunch|pick ?ups?|pickups?|home time|"
            r"after nursery|after lunch|arvo|midday|noon)\b",
            "afternoon",
        ),
        (
            r"\b(?:tonight|tonite|dinner|tea ?time|supper|bed ?time|bed|sleep|asleep|after work|after tea|"
            r"after dinner|sunset|sleepovers?|sleep(?:s|ing)? over|stay(?:s|ing)? over|works? late|late shifts?)\b",
            "evening",
        ),
        (r"\d ?(?:pm|p\.m\.)(?!\w)", "afternoon"),
        (r"\d ?(?:pm|p\.m\.)(?!\w)", "evening"),
    )
)
#: A clock time: "at 4", "by 7:30", "9pm", "half 4", "quarter to 8", "16:00".
_CLOCK = re.compile(
    r"\b(?:(?:at|by|from|till|until|around|about|before|after|half|quarter to|quarter past|half past|to)\s+"
    r"(?P<hour>\d{1,2})(?:[:.]\d{2})?(?:\s*(?P<half>am|pm))?|(?P<h2>\d{1,2})(?::\d{2}\s*(?P<half2>am|pm)?|\s*(?P<half3>am|pm)))\b",
    re.I,
)


def _parts_of_clock(text: str) -> set[str]:
    """The parts of the day the turns' clock times may be: "at 4" an afternoon, "7:30" a morning or
    an evening, "9 pm" an evening, "16:00" an afternoon."""
    out: set[str] = set()
    for m in _CLOCK.finditer(text):
        hour = int(m.group("hour") or m.group("h2"))
        half = (m.group("half") or m.group("half2") or m.group("half3") or "").lower()
        if hour > 23:
            continue
        if half == "am" or (not half and 4 <= hour <= 11):
            out.add("morning")
        if half == "am":
            continue
        later = hour + 12 if hour < 12 else hour
        if 12 <= later < 18:
            out.add("afternoon")
        if later >= 17:
            out.add("evening")
    return out


# --- what the turns say -----------------------------------------------------------------------


@dataclass
class Said:
    """The calendar values the turns say or imply."""

    weekdays: set[int] = field(default_factory=set)
    months: set[int] = field(default_factory=set)
    seasons: set[str] = field(default_factory=set)
    parts: set[str] = field(default_factory=set)
    weekend: bool = False
    weekdays_all: bool = False  # "weekdays", "mon-fri", "school nights"
    any_weekday: bool = False  # a word that can mean any weekday ("the friday" a month on, "next week")
    any_month: bool = False  # a bare "the 14th", a relative date said on an unknown day
    lent: list[str] = field(default_factory=list)  # names the turns come to, for the word check


_DAY_NAMES = tuple(WEEKDAYS) + tuple(day + "s" for day in WEEKDAYS)
_PART_NAMES = tuple(_TIME_OF_DAY)


def _day_number(word: str) -> int | None:
    word = word.lower().removesuffix("'s").removesuffix("'")  # "sat's", "mon's"
    if word in _WEEKDAY_FORMS:
        return _WEEKDAY_FORMS[word]
    name = paraphrase.nearest(word, _DAY_NAMES)  # "thrusdays", "wensday"
    return _WEEKDAY_FORMS[name] if name else None


def _month_number(word: str) -> int | None:
    word = word.lower().removesuffix("'s").removesuffix("'")
    if word in _MONTH_FORMS:
        return _MONTH_FORMS[word]
    name = paraphrase.nearest(word, _MONTH_NAMES)  # "febuary", "septmber"
    return _MONTH_FORMS[name] if name else None


def _span(first: int, last: int) -> set[int]:
    out = {first}
    n = first
    while n != last:
        n = (n + 1) % 7
        out.add(n)
    return out


def _excepted(text: str) -> tuple[set[int], list[tuple[int, int]]]:
    """The weekdays an "every day but ..." or "weekdays except ..." leaves out, and where the
    phrases are; a day said with "not" alone is said ("sundays now, not saturdays anymore" is what
    a summary may repeat: "instead of Saturdays")."""
    days: set[int] = set()
    spans: list[tuple[int, int]] = []
    if not (_EVERY_DAY.search(text) or _WEEKDAYS_SAID.search(text) or _WEEKEND_SAID.search(text)):
        return days, spans
    for m in _EXCEPT.finditer(text):
        found = {n for w in _WORD.findall(m.group("days")) if (n := _day_number(w)) is not None}
        if found:
            days |= found
            spans.append((m.start("days"), m.end("days")))
    return days, spans


#: Typed time words beside the check's lexicon (``support.ABBREVIATIONS``: "tmrw", "nxt", "xmas").
_OWN_TYPED = {"tmw": "tomorrow", "2mrw": "tomorrow", "2nite": "tonight", "2day": "today", "mnth": "month"}
_TIME_VALUES = frozenset("today tonight tomorrow next week weekend month christmas night before".split())  # noqa: SIM905


@cache
def _typed_times() -> dict[str, str]:
    from family_memory.formation.support import ABBREVIATIONS  # the check's lexicon (support imports this module)

    return _OWN_TYPED | {typed: full for typed, full in ABBREVIATIONS.items() if full in _TIME_VALUES}


_TYPED_TIME = re.compile(
    r"(?<![\w'])(?:tmw|2mrw|2nite|2day|mnth|tmrw|tmr|tmrow|2moro|nxt|wk|wknd|xmas|nite|b4)(?![\w'])", re.I
)


def said(text: str, said_on: date | None) -> Said:
    """The calendar values ``text`` (the cited turns) says or implies, read as said on ``said_on``."""
    out = Said()
    english = foreign_words.english_calendar(text)  # "jumanne" is Tuesday, "kesho" tomorrow
    out.lent += foreign_words.calendar_words(text)
    folded = _TYPED_TIME.sub(
        lambda m: _typed_times().get(m.group(0).lower(), m.group(0)), normalise_for_match(english).replace("’", "'")
    )
    excepted, spans = _excepted(folded)
    for m in _WORD.finditer(folded):
        word = m.group(0)
        if any(a <= m.start() < b for a, b in spans):
            continue
        day = _day_number(word)
        if day is not None:
            out.weekdays.add(day)
        month = _month_number(word)
        if month is not None:
            out.months.add(month)
        if word in _SEASONS and (word != "fall" or _FALL_SEASON.search(folded)):
            out.seasons.add(_SEASONS[word])
        part = _PART_FORMS.get(word) or _TIME_OF_DAY.get(paraphrase.nearest(word, _PART_NAMES) or "")  # "mornign"
        if part:
            out.parts.add(part)
        for n in _LETTER_WORDS.get(word, ()):
            out.weekdays.add(n)
            out.lent.append(WEEKDAYS[n])
    for m in _LETTER_LIST.finditer(folded):
        for letter in re.split(r"\s?/\s?", m.group(1).lower()):
            out.weekdays.add(_LETTER_DAYS[letter])
            out.lent.append(WEEKDAYS[_LETTER_DAYS[letter]])
    for m in _DAY_HALF.finditer(folded):
        out.parts |= {"morning"} if m.group(1).lower().startswith("a") else {"afternoon", "evening"}
    if _WEEKEND_SHORT.search(folded):
        out.weekend = True
        out.weekdays |= _WEEKEND_SET
        out.lent.append("weekend")
    for m in _DAY_RANGE.finditer(folded):
        first, last = _day_number(m.group(1)), _day_number(m.group(2))
        if first is not None and last is not None:
            days = _span(first, last)
            out.weekdays |= days
            out.lent += [WEEKDAYS[n] for n in sorted(days)]
            if days >= _WEEKDAY_SET:
                out.weekdays_all = True
    if _WEEKDAYS_SAID.search(folded):
        out.weekdays |= _WEEKDAY_SET
        out.weekdays_all = True
        out.lent += [WEEKDAYS[n] for n in sorted(_WEEKDAY_SET)]  # "weekdays": Monday to Friday
    if _WEEKEND_SAID.search(folded):
        out.weekend = True
        out.weekdays |= _WEEKEND_SET
        out.lent += ["saturday", "sunday"]  # "weekends": Saturdays and Sundays
    if _EVERY_DAY.search(folded) or excepted:
        whole = set(_ALL_DAYS)
        if _WEEKDAYS_SAID.search(folded) and not _EVERY_DAY.search(folded):
            whole = set(_WEEKDAY_SET)
        elif _WEEKEND_SAID.search(folded) and not _EVERY_DAY.search(folded):
            whole = set(_WEEKEND_SET)
        rest = whole - excepted
        out.weekdays |= rest
        if excepted:
            out.lent += [WEEKDAYS[n] for n in sorted(rest)]  # "every day but sunday": Monday to Saturday
        if rest >= _WEEKDAY_SET:
            out.weekdays_all = True
    if out.weekdays & _WEEKEND_SET:
        out.weekend = True
    if not out.weekdays and _SCHOOL_TIME.search(folded):
        out.weekdays |= _WEEKDAY_SET  # "breakfast club b4 school": on school days
        out.weekdays_all = True
    for pattern, part in _SAID_PART:
        if pattern.search(folded):
            out.parts.add(part)
    out.parts |= _parts_of_clock(folded)
    if _BARE_NTH.search(folded):
        out.any_month = True
        out.any_weekday = True
    if said_on is None:
        if _RELATIVE_MONTH.search(folded) or _RELATIVE_WEEKS.search(folded) or find_dates(folded, date(2026, 6, 10)):
            out.any_month = True
            out.any_weekday = True
    else:
        _dated(folded, said_on, out, spans)
    for month in out.months:
        out.seasons |= _SEASON_OF[month]
    return out


def _dated(folded: str, said_on: date, out: Said, left_out: Sequence[tuple[int, int]]) -> None:
    """The months and weekdays the turns' date words come to on ``said_on`` (not a day an "every
    day but ..." leaves out: ``left_out``)."""
    for past in (False, True):
        for mention in find_dates(folded, said_on, past=past, holidays=True):
            if any(a < mention.end and mention.start < b for a, b in left_out) or _OF_MONTH.match(folded, mention.end):
                continue  # a day left out; "the last week of july" is no last week
            first, last = mention.first_day, max(mention.first_day, mention.last_day)
            if first == last:
                out.weekdays.add(first.weekday())
                out.lent.append(WEEKDAYS[first.weekday()])  # said on a Wednesday, "tmrw" is Thursday
            elif (last - first).days >= 6:
                out.any_weekday = True  # "next week": the turn does not say which day
            day = first
            while day <= last and (day - first).days < 400:
                if day.month not in out.months:
                    out.months.add(day.month)
                    out.lent.append(_MONTH_NAMES[day.month - 1])
                day += timedelta(days=1)
    for m in _RELATIVE_MONTH.finditer(folded):
        rel = (m.group("rel") or "").lower()
        if m.group("after"):
            offsets = [2]
        elif m.group("n"):
            count = _COUNTS.get(m.group("n").lower()) or int(m.group("n"))
            offsets = [count - 1, count, count + 1] if m.group("n").lower() in ("a few", "a couple of") else [count]
        elif rel == "last":
            offsets = [-1]
        elif rel in ("next", "the following", "the coming", "coming"):
            offsets = [1]
        else:
            offsets = [0]
        for offset in offsets:
            month = (said_on.month - 1 + offset) % 12 + 1
            out.months.add(month)
            out.lent.append(_MONTH_NAMES[month - 1])
    for m in _RELATIVE_WEEKS.finditer(folded):
        word = (m.group("n") or "two").lower()
        weeks = _COUNTS.get(word) or int(word)
        low, high = (weeks - 1, weeks + 1) if word in ("a few", "a couple of") else (weeks, weeks)
        for n in range(low * 7 - 3, high * 7 + 4):
            month = (said_on + timedelta(days=n)).month
            if month not in out.months:
                out.months.add(month)
                out.lent.append(_MONTH_NAMES[month - 1])


def implied_words(text: str, said_on: date | None) -> list[str]:
    """The calendar names the turns' words come to, for the word check's pool: "every day but
    sunday" lends Monday to Saturday, "mon-thurs" the days between, "next month" said in December
    January."""
    return said(text, said_on).lent


# --- what the summary says ----------------------------------------------------------------------

_SUMMARY_RANGE = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\s*(?:-|–|to|through|thru|until|till)\s*"
    r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b",
    re.I,
)
_MONTH_CONTEXT = re.compile(
    r"\b(?:in|of|since|until|till|from|by|early|late|mid|end of|start of|beginning of|this|next|last|each|every|"
    r"through|during|before|after)\s+(?:-\s*)?$",
    re.I,
)


def problems(
    summary: str,
    text: str,
    said_on: date | None,
    names: Iterable[str] = (),
    also_said: Callable[[str], bool] = lambda _: False,
) -> list[str]:
    """What the summary says of the calendar and frequency that the turns (``text``) do not: a
    weekday, month, season, weekend or weekday, time of day, or how often. The month of a date the
    summary gives ("the last week of June") is held to the months the turns name, when they name
    one (the date check compares the days when the turns' words resolve to days); its weekday
    ("Tuesday, March 24") is the date check's.
    ``also_said``: whether a line of the conversation that speaks of what the summary speaks of
    gives a word ("robotics on Mondays" in the assistant's list, then "kofi wants the robotics
    one": "the Monday robotics club"), as the word check reads such lines."""
    found: list[str] = []
    name_words = {w.lower() for name in names for w in _WORD.findall(normalise_for_match(name))}
    turns = said(text, said_on)
    days: set[int] = set()
    months: set[int] = set()
    seasons: set[str] = set()
    parts: set[str] = set()
    dated_months: set[int] = set()
    weekend = weekdays = one_weekday = False
    summary = _ANNOTATION.sub(" ", summary)  # "(Friday 2026-11-27)": the date check's
    _, spans = _excepted(summary)
    dated = [
        (_date_start(summary, m.start), m.end)
        for m in find_dates(summary, said_on or date(2026, 6, 10))
        if re.search(r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec", m.text, re.I)
    ]
    for m in _WORD.finditer(summary):
        raw = m.group(0)
        word = raw.lower().replace("’", "'")
        if word in name_words or any(a <= m.start() < b for a, b in spans):
            continue
        in_date = any(a <= m.start() < b for a, b in dated)
        if word in _SUMMARY_WEEKDAYS:
            if not in_date:
                days.add(_SUMMARY_WEEKDAYS[word])
        elif word in _SUMMARY_MONTHS and in_date:
            dated_months.add(_SUMMARY_MONTHS[word])
        elif word in _SUMMARY_MONTHS and (
            word not in ("may", "march") or (raw[0].isupper() and _MONTH_CONTEXT.search(summary[: m.start()]))
        ):
            months.add(_SUMMARY_MONTHS[word])
        elif word in _SEASONS and (word != "fall" or _FALL_SEASON.search(summary)):
            seasons.add(_SEASONS[word])
        elif word in ("weekend", "weekends"):
            weekend = True
        elif word == "weekdays":
            weekdays = True
        elif word == "weekday":  # "a weekday evening": one of them
            one_weekday = True
        elif word in _TIME_OF_DAY and word != "tonight":  # a time of speaking: the relative-time rule's
            parts.add(_TIME_OF_DAY[word])
    for m in _SUMMARY_RANGE.finditer(summary):
        days |= _span(_SUMMARY_WEEKDAYS[m.group(1).lower()], _SUMMARY_WEEKDAYS[m.group(2).lower()])
    missing_days = sorted(n for n in days - turns.weekdays if not also_said(WEEKDAYS[n]))
    if missing_days and not turns.any_weekday:
        found.append(f"the turns do not say {', '.join(WEEKDAYS[n].title() for n in missing_days)}")
    if turns.months:
        months |= dated_months
    missing_months = sorted(n for n in months - turns.months if not also_said(_MONTH_NAMES[n - 1]))
    if missing_months and not turns.any_month:
        found.append(f"the turns do not say {', '.join(_MONTH_NAMES[n - 1].title() for n in missing_months)}")
    seasons = {s for s in seasons - turns.seasons if not also_said(s)}
    if seasons and not turns.any_month:
        found.append(f"the turns do not say {', '.join(sorted(seasons))}")
    if weekend and not (turns.weekend or turns.any_weekday):
        found.append("the turns do not say a weekend")
    weekday_said = turns.weekdays_all or turns.any_weekday or turns.weekdays >= _WEEKDAY_SET
    if weekdays and not weekday_said:
        found.append("the turns do not say weekdays")
    if one_weekday and not (weekday_said or turns.weekdays & _WEEKDAY_SET):
        found.append("the turns do not say a weekday")
    parts = {p for p in parts - turns.parts if not also_said(p)}
    if parts:
        said_parts = f"the {sorted(turns.parts)[0]}" if turns.parts else "no time of day"
        found.append(f"the turns say {said_parts}, not the {sorted(parts)[0]}")
    rate = paraphrase.rate_problem(summary, text)
    if rate:
        found.append(rate)
    elif weekly := occasion_made_weekly(summary, text):
        found.append(weekly)
    return found


_DAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
#: One occasion of a weekday: "this thursday", "last sunday", "next tues", "on the thursday".
_ONE_DAY = re.compile(rf"\b(?:this|last|next|coming|that|the) (?:coming )?{_DAY}\b(?!s)", re.I)
#: A regular verb's simple past, or an irregular one's, before or after a bare weekday: "Mama Jo
#: watched the twins Thursday", "we took granddaddy ... this sunday".
_PAST = re.compile(
    r"\b(?:[a-z]{3,}ed|took|went|came|did|was|were|ate|saw|made|left|ran|drove|brought|kept|gave)\b", re.I
)


def _weekly_days(summary: str) -> set[int]:
    """The weekdays a summary makes a habit of: "on Thursdays", "every Thursday", "each Sunday"."""
    words = [w.lower() for w in _WORD.findall(summary)]
    return {
        _SUMMARY_WEEKDAYS[w]
        for n, w in enumerate(words)
        if w in _SUMMARY_WEEKDAYS
        and ((w.removesuffix("s") in WEEKDAYS and w.endswith("s")) or words[n - 1 : n] in (["every"], ["each"]))
    }


def occasion_made_weekly(summary: str, text: str) -> str | None:
    """A weekday habit the summary makes of one occasion the turns tell ("I'm doing the school run
    this Thursday since Aoife's away" is not "every Thursday"; "Mama Jo watched the twins Thursday"
    not "on Thursdays"): the summary makes a weekday a habit, and a sentence of the turns names
    that weekday alone, once, as one day (after "this", "last", "next", or in the past tense),
    while nothing they say recurs."""
    weekly = _weekly_days(summary)
    if not weekly or paraphrase.recurring(text):
        return None
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", normalise_for_match(text)):
        days = [_WEEKDAY_FORMS[w] for w in _WORD.findall(sentence) if w in _WEEKDAY_FORMS]
        if len(days) != 1 or days[0] not in weekly or _SCHEDULE_CHANGE.search(sentence):
            continue  # "changed seo-yeon's piano to wed and fri": a new schedule, not an occasion
        if _ONE_DAY.search(sentence) or _PAST.search(sentence):
            return f"the turns tell of one {WEEKDAYS[days[0]].title()}; the summary makes it every week"
    return None


#: A schedule's change, in the past tense but for every week after it: "changed her chair time,
#: still mon wed fri", "moved to thursdays", "from now on", "starting this week".
_SCHEDULE_CHANGE = re.compile(r"\b(?:chang\w*|mov\w*|switch\w*|swapp?\w*|now|still|start\w*|from|until|till)\b")
