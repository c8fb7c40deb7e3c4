"""What a day holds: the recurring plans a "what's on tuesday" message needs.

A question about a day ("what's idris got on after school on tuesday?", "who's getting the
twins on thursday?") needs every standing arrangement that falls on it, and similarity does
not find them: "madrasa Monday to Thursday, 5 to 6:30" shares no word with "tuesday". So the
lookup asks the keyword index for memories that name any weekday, keeps those whose words
make them recur on the day asked (``covers``), and places them first among its candidates,
inside the candidates' own budget (``lookup.py``).

Pure functions of the text; the day asked is read in the family's calendar (``today``).
"""

from __future__ import annotations

import functools
import re
from datetime import date, timedelta

from family_memory.domain.text import normalise_for_match
from family_memory.formation.dates import WEEKDAY_FORMS, fold_lookalikes, weekday_number
from family_memory.formation.text_similarity import content_tokens

_DAY = "|".join(sorted(WEEKDAY_FORMS, key=len, reverse=True))

#: A message that asks what a day holds, not one that only mentions a day.
_ASKS_ABOUT_A_DAY = re.compile(
    r"\b(?:what(?:'s| is| are)? (?:on|happening|going on|planned)|what (?:has|have|does|do) \w+ (?:got|have)|"
    r"what's \w+ got|got on|anything on|is there|are there|who(?:'s| is) (?:getting|picking|collecting|doing|"
    r"taking|driving|on)|who picks|who gets|who takes|busy|free|schedule|plans?|"
    r"pick(?:ing)? (?:\w+ )?up|pickups?|drop(?:ping)? (?:\w+ )?off|collect(?:ing)?)\b",
    re.I,
)
_RELATIVE_DAY = re.compile(r"\b(today|tonight|tomorrow|tmrw|tmr)\b", re.I)

#: "every Tuesday", "on Tuesdays", "Tuesdays and Thursdays", "Mon to Thu", "weekdays".
_RANGE = re.compile(rf"\b({_DAY})\b\.?\s*(?:to|through|thru|till|until|-|–)\s*({_DAY})\b", re.I)
_PARTS = r"(?: (?P<part>evenings|mornings|afternoons|nights)\b)?"
_RECURRING_DAY = re.compile(
    rf"\b(?:every|each|on)\s+(?P<on>{_DAY})\b{_PARTS}|"
    rf"\b(?P<many>{_DAY})(?:s\b| (?:evenings|mornings|afternoons|nights)\b)",
    re.I,
)
_WEEKDAYS_WORD = re.compile(r"\b(?:weekdays|every weekday|school days|every day|daily|each day)\b", re.I)
_WEEKENDS_WORD = re.compile(r"\b(?:weekends|every weekend|at weekends|on weekends)\b", re.I)
#: A schedule's recurrence said in the sentence ("... is every week", "twice a week").
_RECURS = re.compile(r"\b(?:every|each|weekly|a week|always|usually|regular(?:ly)?|as before|as usual)\b", re.I)


def asked_weekday(message: str, today: date) -> int | None:
    """The weekday (Monday 0) a message asks about, or None: a weekday it names ("on tues"),
    or today / tonight / tomorrow in the family's calendar; only when the message asks what the
    day holds ("what's on", "who's getting", "is there")."""
    folded = fold_lookalikes(normalise_for_match(message).replace("’", "'"))
    if not _ASKS_ABOUT_A_DAY.search(folded):
        return None
    named = re.search(rf"\b({_DAY})\b", folded)
    if named:
        return weekday_number(named.group(1))
    relative = _RELATIVE_DAY.search(folded)
    if relative:
        ahead = 0 if relative.group(1).lower() in ("today", "tonight") else 1
        return (today + timedelta(days=ahead)).weekday()
    return None


def covers(summary: str, weekday: int) -> bool:
    """Whether ``summary`` states something that recurs on ``weekday``: "every Tuesday",
    "Tuesdays and Thursdays", "Monday to Thursday", "weekdays". A one-off ("on Tuesday, March
    3") does not; nor does a day the plan moved away from ("moved from Thursdays to Fridays"
    covers Friday, not Thursday)."""
    return weekday in days_covered(summary)


#: What every day's reading needs: a weekday's form, or a word for weekdays or weekends ("daily").
#: Text with none of them covers no day (every pattern below needs one of them, matched the same way).
_MAY_NAME_A_DAY = re.compile(r"mon|tue|wed|thu|fri|sat|sun|weekday|weekend|school days|every day|daily|each day", re.I)
#: ``_MAY_NAME_A_DAY``'s alternatives. In ASCII lower-case text, finding one of them with ``str`` is
#: finding the pattern (its case-blind matches beyond lower case are capitals and letters outside
#: ASCII), and ``str`` is faster than an unanchored pattern that is tried at every position.
_DAY_HINTS = (
    *("mon", "tue", "wed", "thu", "fri", "sat", "sun"),
    *("weekday", "weekend", "school days", "every day", "daily", "each day"),
)


def _may_name_a_day(folded: str) -> bool:
    """``_MAY_NAME_A_DAY.search(folded)``, for text in ``fold_lookalikes``' form (lower case)."""
    if folded.isascii():
        return any(hint in folded for hint in _DAY_HINTS)
    return _MAY_NAME_A_DAY.search(folded) is not None


#: A day question reads the same standing arrangements on every lookup, and ``recurs`` asks about
#: all seven days: the days are read once per text (a pure function of it, so an edited summary is
#: read afresh and nothing stale is returned).
@functools.lru_cache(maxsize=16384)
def days_covered(summary: str) -> frozenset[int]:
    """The weekdays (Monday 0) on which ``summary`` states something recurs (``covers``)."""
    folded = fold_lookalikes(normalise_for_match(summary).replace("’", "'"))
    if not _may_name_a_day(folded):
        return frozenset()
    folded = re.sub(rf"\b(?:from|instead of|no longer on|not on)\s+({_DAY})\b", " ", folded)
    days: set[int] = set()
    for m in _RANGE.finditer(folded):
        first, last = weekday_number(m.group(1)), weekday_number(m.group(2))
        span = range(first, last + 1) if first <= last else [*range(first, 7), *range(0, last + 1)]
        if _RECURS.search(folded) or _plural(m.group(1)) or not _dated(folded):
            days.update(span)
    for m in _RECURRING_DAY.finditer(folded):
        word = fold_lookalikes(m.group("on") or m.group("many"))
        day = WEEKDAY_FORMS.get(word, WEEKDAY_FORMS.get(word.removesuffix("s")))
        recurring = m.group("many") or m.group("part") or _plural(word) or re.match(r"(?:every|each)\b", m.group(0))
        if day is not None and recurring:
            days.add(day)
    for m in _DAY_LIST.finditer(folded):
        listed = [weekday_number(w) for w in re.findall(rf"\b(?:{_DAY})\b", m.group("list"))]
        if m.group("every") or not _dated(folded) or any(_plural(w) for w in m.group("list").split()):
            days.update(listed)
    if _WEEKDAYS_WORD.search(folded):
        days.update(range(5))
    if _WEEKENDS_WORD.search(folded):
        days.update((5, 6))
    return frozenset(days)


#: Days said together: "every Tuesday and Thursday", "mon, wed and fri", "Tuesdays & Thursdays".
_DAY_LIST = re.compile(
    rf"(?P<every>\b(?:every|each)\s+)?(?P<list>\b(?:{_DAY})\b(?:(?:,\s*|\s+(?:and|&|or)\s+)\b(?:{_DAY})\b)+)", re.I
)


def _plural(word: str) -> bool:
    return word.lower().endswith("s") and word.lower() not in ("tues", "weds", "thurs")


_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\d{4}-\d{2}-\d{2}")


def _dated(text: str) -> bool:
    """Whether the text pins a date ("Monday, May 18, 2026"): a range of days then is one week."""
    return bool(_MONTH.search(text))


#: Words of a day question that say no activity: "who's getting the twins on thursday".
_NOT_AN_ACTIVITY_WORDS = """day days today tonight tomorrow morning afternoon evening night week weekend weekday
time who what when where which whose get getting got go going take taking there anything something everyone
family kids children twins boys girls pick pickup drop need needs have has doing do does on that this after
before is are any""".split()  # noqa: SIM905
_NOT_AN_ACTIVITY = frozenset(_NOT_AN_ACTIVITY_WORDS) | frozenset(content_tokens(" ".join(_NOT_AN_ACTIVITY_WORDS)))


def activity_words(message: str, names: dict[str, frozenset[str]]) -> set[str]:
    """The words a day question names an activity by ("is there piano that day?": piano): its
    content words, without names, weekdays and the words any day question uses."""
    # A name's first word ("do-hyun park", "sori piano academy"): the rest of a place's name may be
    # what the question asks about ("is there piano that day?").
    name_words = {first for name in names if (first := _first_word(name))}
    return {
        w
        for w in content_tokens(message)
        if w not in name_words and w not in _NOT_AN_ACTIVITY and w not in WEEKDAY_FORMS and len(w) > 2
    }


@functools.lru_cache(maxsize=4096)
def _first_word(name: str) -> str:
    """A name's first content word ("" for none), read once per name: a day question reads the
    whole name book."""
    tokens = content_tokens(name)
    return tokens[0] if tokens else ""


@functools.lru_cache(maxsize=16384)
def arrangement_words(summary: str) -> frozenset[str]:
    """An arrangement's content words as it writes them in lower case (cached by its text): what
    it is ("piano lessons"), not whose (a name is capitalised: "Idris", "Sori Piano Academy" names
    no piano)."""
    lower = " ".join(w for w in summary.split() if not w[:1].isupper())
    return frozenset(content_tokens(lower))


def recurs(summary: str) -> bool:
    """Whether an arrangement recurs on some weekday (not a one-off on a date)."""
    return bool(days_covered(summary))
