"""A quantity's unit the summary changes (part of the support check, ``formation/support.py``;
DESIGN invariant 2, issue 10 section 2).

The number check reads "six" in "in a cast for six months" as the turns' "six weeks", and
"months" is a generic word the word check lets pass, so the summary keeps its counts and says
what the family did not. This module reads each quantity the summary states (a number and its
unit: "six weeks", "2 hrs", "a fortnight", "5ml", "3-year-old") and refuses it when the turns
give the same number with another unit and no quantity of theirs is the summary's in other
words: "a fortnight" is "two weeks" and "14 days", "a year" is "12 months", "half an hour" is
"30 minutes", "a month" is "four weeks" (within a tenth).

Read conservatively: a summary quantity the turns do not state at all (a range resolved to "for
two weeks", a total worked out) is the number check's and the date check's business, not this
one's; only the same number with another unit counts against it. Money, rates' periods ("£220
a fortnight", ``support._periods``) and clock times are read elsewhere. Lexical and
deterministic: no model call in Lambda.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from family_memory.domain.text import normalise_for_match
from family_memory.formation import number_words

#: Each unit: its dimension and its size in that dimension's base (days, grams, millilitres,
#: metres). A month is 30 days and a year 365 for comparing within a tenth, never for dates.
_UNITS: dict[str, tuple[str, float]] = {
    **dict.fromkeys(("minute", "minutes", "min", "mins"), ("time", 1 / 1440)),
    **dict.fromkeys(("hour", "hours", "hr", "hrs"), ("time", 1 / 24)),
    **dict.fromkeys(("day", "days", "night", "nights"), ("time", 1.0)),
    **dict.fromkeys(("week", "weeks", "wk", "wks"), ("time", 7.0)),
    **dict.fromkeys(("fortnight", "fortnights"), ("time", 14.0)),
    **dict.fromkeys(("month", "months", "mo", "mos", "mnth", "mnths"), ("time", 30.0)),
    **dict.fromkeys(("year", "years", "yr", "yrs"), ("time", 365.0)),
    **dict.fromkeys(("mg", "milligram", "milligrams"), ("mass", 0.001)),
    **dict.fromkeys(("g", "gram", "grams"), ("mass", 1.0)),
    **dict.fromkeys(("kg", "kilo", "kilos", "kilogram", "kilograms"), ("mass", 1000.0)),
    **dict.fromkeys(("lb", "lbs"), ("mass", 453.6)),
    **dict.fromkeys(("oz",), ("mass", 28.35)),
    **dict.fromkeys(("ml", "millilitre", "millilitres", "milliliter", "milliliters"), ("volume", 1.0)),
    **dict.fromkeys(("l", "litre", "litres", "liter", "liters"), ("volume", 1000.0)),
    **dict.fromkeys(("tsp", "teaspoon", "teaspoons"), ("volume", 5.0)),
    **dict.fromkeys(("tbsp", "tablespoon", "tablespoons"), ("volume", 15.0)),
    **dict.fromkeys(("km", "kms", "kilometre", "kilometres", "kilometer", "kilometers"), ("length", 1000.0)),
    **dict.fromkeys(("mile", "miles", "mi"), ("length", 1609.0)),
}
#: The name a unit is said back by ("hrs" is "hours").
_SAID_AS = {
    "min": "minutes",
    "mins": "minutes",
    "hr": "hours",
    "hrs": "hours",
    "wk": "weeks",
    "wks": "weeks",
    "mo": "months",
    "mos": "months",
    "mnth": "months",
    "mnths": "months",
    "yr": "years",
    "yrs": "years",
}
_NUMBER_WORDS = {**number_words.CARDINALS, "a": 1, "an": 1, "couple": 2}  # "a fortnight", "a couple of weeks"
_NUMBER = r"\d+(?:\.\d+)?|" + "|".join(sorted((re.escape(w) for w in _NUMBER_WORDS), key=len, reverse=True))
_QUANTITY = re.compile(
    rf"(?<![\w.,£$€])(?P<half>half (?:of )?)?(?P<n>{_NUMBER})(?P<and_half> and a half)?(?: of)?[\s-]?"
    rf"(?P<unit>{'|'.join(sorted(_UNITS, key=len, reverse=True))})\b(?P<after_half> and a half)?",
)
#: "twice a week", "£220 a fortnight", "3 times a day": a rate's period, not a quantity.
_RATE_BEFORE = re.compile(r"(?:\btwice|\bonce|\btimes|\bx|\bper|\d|\d\s?x)\s*$")


@dataclass(frozen=True)
class Quantity:
    said: str  # as the text says it ("six weeks")
    value: float
    unit: str  # the unit's name as said back ("weeks")
    dimension: str
    size: float  # value in the dimension's base


def quantities(text: str) -> list[Quantity]:
    """The quantities a text states: a number (in digits or words, "a", "half an") and a unit."""
    lowered = normalise_for_match(text).replace("’", "'")
    found = []
    for match in _QUANTITY.finditer(lowered):
        number, unit = match.group("n"), match.group("unit")
        if number in ("a", "an") and _RATE_BEFORE.search(lowered[: match.start()]):
            continue  # "twice a week"
        if unit in ("g", "l", "mi", "mo") and not number[0].isdigit():
            continue  # "a g", "an l": letters, not units
        value = float(number) if number[0].isdigit() else float(_NUMBER_WORDS[number])
        if match.group("and_half") or match.group("after_half"):
            value += 0.5
        if match.group("half"):
            value *= 0.5
        dimension, size = _UNITS[unit]
        name = _SAID_AS.get(unit, unit)
        found.append(Quantity(match.group(0).strip(), value, name.removesuffix("s"), dimension, value * size))
    return found


def _same(a: Quantity, b: Quantity) -> bool:
    """The same quantity in other words: the same number of the same unit, or the same size in
    another unit of its dimension, within a tenth ("a month" is "four weeks")."""
    if a.dimension != b.dimension:
        return False
    if a.unit == b.unit:
        return abs(a.value - b.value) < 1e-9
    return abs(a.size - b.size) <= 0.1 * max(a.size, b.size)


def unit_problem(summary: str, source_text: str) -> str | None:
    """Why the summary's quantity is not the turns' one ("the turns say six weeks, not six
    months"), or None: only when the turns give its number with another unit and no quantity of
    theirs is the summary's."""
    said = quantities(source_text)
    if not said:
        return None
    for ours in quantities(summary):
        if any(_same(ours, theirs) for theirs in said):
            continue
        other = next((t for t in said if abs(t.value - ours.value) < 1e-9 and t.unit != ours.unit), None)
        if other is not None:
            return f"the turns say {other.said}, not {ours.said}"
    return None
