"""Relative time in a summary made absolute, or refused (issue 10, seed section 4).

A memory is read weeks later: "Pizza night is tonight" is a puzzle by then.
Every accepted candidate's summary, supplied or extracted, has its relative
time words resolved against the cited turn's local date in the family's
zone ("tonight" -> "tonight (Friday 2026-11-27)"), unless the summary already
gives the absolute date beside them. Words that name no day ("soon", "in a
few weeks", "next month") cannot be resolved, and the candidate is refused
with that reason rather than stored as a puzzle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from family_memory.formation.dates import DateMention, find_dates

#: Time words that name no day at all.
_VAGUE = re.compile(
    r"\b(?:next|last) (?:month|year)\b|\bin (?:a|one|two|three|four|a few|a couple of|\d+) "
    r"(?:days?|weeks?|months?)\b|\b(?:later|earlier) this (?:week|month)\b|\b(?:a|one|two|\d+) "
    r"(?:days?|weeks?) ago\b",
    re.I,
)
#: An absolute date written next to a phrase ("tonight (2026-11-27)", "Friday, March 12, 2026").
_ABSOLUTE = re.compile(
    r"\d{4}-\d{2}-\d{2}|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b",
    re.I,
)
_NEARBY = 30


@dataclass(frozen=True)
class Absolutised:
    summary: str
    #: The phrases given their dates ("tonight -> Friday 2026-11-27").
    resolved: tuple[str, ...] = ()
    #: Phrases that name no day ("next month"): the candidate is refused.
    unresolved: tuple[str, ...] = ()


def _dated_nearby(text: str, mention: DateMention) -> bool:
    around = text[max(0, mention.start - _NEARBY) : mention.end + _NEARBY]
    inside = text[mention.start : mention.end]
    return bool(_ABSOLUTE.search(around.replace(inside, " ", 1))) or bool(_ABSOLUTE.search(inside))


def absolutise(summary: str, said_on: date) -> Absolutised:
    """``summary`` with each relative day phrase followed by its date in parentheses."""
    found = find_dates(summary, said_on)
    # "next month" names no day, "the 12th next month" does.
    unresolved = tuple(
        m.group(0)
        for m in _VAGUE.finditer(summary)
        if not any(d.start <= m.start() and m.end() <= d.end for d in found)
    )
    mentions = [m for m in found if _relative(m, summary) and not _dated_nearby(summary, m)]
    if not mentions:
        return Absolutised(summary, (), unresolved)
    out, cursor, resolved = [], 0, []
    for m in mentions:
        out.append(summary[cursor : m.end])
        out.append(f" ({m.describe()})")
        resolved.append(f"{m.text} -> {m.describe()}")
        cursor = m.end
    out.append(summary[cursor:])
    return Absolutised("".join(out), tuple(resolved), unresolved)


#: Relative phrases that always name a day ("tonight", "next Friday"). A bare weekday is left
#: alone ("Monday to Thursday", "Sunday mornings" are schedules more often than dates), and so is
#: a day of the month unless a preposition makes it one ("on the 14th", not "the 3rd floor").
_DAY_WORDS = re.compile(
    r"^(?:the day after )?(?:tonight|tonite|2nite|today|tomorrow|tmrw|tmr|tmrow|tomoz|2moro|2morrow|yesterday|"
    r"yday)\b|^this (?:morning|afternoon|evening|weekend)\b|^(?:next|last|this|this coming|coming) "
    r"(?:week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|^last weekend\b",
    re.I,
)
_DAY_OF_MONTH_USE = re.compile(r"\b(?:on|by|until|till|til|from|before|after|since)\s+$", re.I)


def _relative(mention: DateMention, text: str) -> bool:
    """Whether ``mention`` is a phrase relative to the day it was said that names one day
    ("tonight", "next Friday", "on the 14th"), not an absolute date or a schedule."""
    if _ABSOLUTE.search(mention.text):
        return False
    if _OF_THE_MONTH.match(text[mention.end :]):
        return False  # "paid on the last Friday of the month": a schedule, not last week's Friday
    if _DAY_WORDS.match(mention.text) or mention.text.lower().endswith("next month"):
        return True
    if mention.text.lower().startswith("the ") and re.match(r"the \d", mention.text.lower()):
        after = text[mention.end : mention.end + 12].lower()
        return (
            bool(_DAY_OF_MONTH_USE.search(text[: mention.start]))
            and not re.match(r"\s*(?:(?:every|each|a) month|monthly|floor)", after)
            and not _MONTHLY.search(text)  # "9,000 rupees a month, paid on the 1st"
        )
    return False


_OF_THE_MONTH = re.compile(r"\s*of (?:the|every|each) month\b", re.I)
_MONTHLY = re.compile(r"\b(?:a|per|every|each) month\b|\bmonthly\b", re.I)
