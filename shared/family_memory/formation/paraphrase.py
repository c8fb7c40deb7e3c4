"""How family talk says a thing, for the support check (``formation/support.py``; issue 10 section 2).

The support check refuses a summary that names a word of substance the cited turns do not
hold. A faithful summary often uses a word the family did not: it writes "money is tight"
for "we're skint", "refuses to fly" for "won't fly", "Wednesdays" for "wendesdays",
"drop-off" for "drop off", "usually" for "pretty much every week". This module holds the
general means by which such a word is read as said, in four kinds:

- **Typos** (``typo``): one edit (a letter added, dropped, changed, or two letters swapped:
  the Damerau-Levenshtein distance) in a word of six letters or more. Days and months are
  compared this way too ("thrusdays", "febuary"), but two distinct calendar words never are
  ("tuesdays" is not "thursdays").
- **Phrasings** (``PHRASINGS``): a phrase of the turns and the words a summary may use for
  it ("going up" -> "increases", "got into" -> "accepted", "doesn't drink" -> "alcohol").
  Every entry is ordinary English of family talk, no name or value of any conversation: a
  phrasing lends only words that restate it, never a value (a food, a person, a number).
- **Framing words** (``FRAMING``, ``HABITUAL``, ``light``): words that carry no checkable
  value. Adverbs of degree and connection ("roughly", "instead", "especially") are free; an
  inflected light verb ("staying", "putting", "kept") is as free as its plain form; a
  habitual adverb ("usually", "often") is free where the turns state a recurrence ("every
  week", "most nights", "on fridays"), while "always", "every" and "never" stay strict.
- **Compounds** (``compound_parts``): "drop-off", "daytime", "pickup" are read as their
  parts, of which at least one must be held by the turns.

The other side, kept as strict as before: value words (``VALUE_WORDS``: colours, holidays, medical
specialties and therapies, household chores) a summary may name only if the turns do, and
opposites (``OPPOSITES``): a summary word whose opposite the turns say, and which they do not
say themselves, is a changed value ("drop-off" for "pick-up", "loves" for "not a fan of").

Lexical and deterministic, like the check: no model call in Lambda.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

_CALENDAR = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
    saturdays sundays january february march april may june july august september october november december
    christmas easter""".split()  # noqa: SIM905
)


def damerau_levenshtein(a: str, b: str, limit: int = 2) -> int:
    """The optimal-string-alignment distance of ``a`` and ``b`` (insertions, deletions,
    substitutions and swaps of two neighbouring letters), capped at ``limit + 1``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return min(previous[-1], limit + 1)


def typo(a: str, b: str) -> bool:
    """One word typed two ways: one edit apart, both of six letters or more, the same first
    letter, and not two different days or months ("thrusdays" is "thursdays", "febuary"
    "february"; "tuesdays" is not "thursdays", "june" is not "july")."""
    if a == b:
        return True
    if min(len(a), len(b)) < 6 or a[0] != b[0] or not (a.isalpha() and b.isalpha()):
        return False
    if a in _CALENDAR and b in _CALENDAR:
        return False
    return damerau_levenshtein(a, b, 1) <= 1


def nearest(word: str, names: Sequence[str]) -> str | None:
    """The one of ``names`` (days, months, parts of the day) ``word`` is typed for: itself, or the
    nearest by one edit (two in a word of seven letters or more: "wensday"), with the same first
    letter and no other name as near ("thrusday" is Thursday; "june" is no typo of "july")."""
    if word in names:
        return word
    if len(word) < 5 or not word.isalpha():
        return None
    limit = 2 if len(word) >= 7 else 1
    near = sorted(
        (damerau_levenshtein(word, name, limit), name) for name in names if name[0] == word[0] and len(name) >= 6
    )
    if near and near[0][0] <= limit and (len(near) == 1 or near[1][0] > near[0][0]):
        return near[0][1]
    return None


# --- phrasings: a phrase of the turns -> words a summary may use for it ----------------------

_NEGATED = r"(?:doesn'?t|don'?t|does not|do not|didn'?t|never|not|won'?t|can'?t|isn'?t)"

#: (a phrase of the turns, the words a faithful summary may use for it). Ordinary English.
PHRASINGS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern, re.I), tuple(words.split()))
    for pattern, words in (
        # money
        (r"\b(?:skint|broke|hard up|strapped|short of (?:money|cash)|tight on money)\b", "money tight short budget"),
        (r"\bsav(?:e|es|ing|ed)(?: up)?\b|\bputting (?:money )?(?:by|aside)\b", "money aside put putting save savings"),
        (r"\b(?:go(?:es|ing)?|went|gone|put|putting) up\b|\brais(?:e|es|ing|ed)\b", "increase increases rise"),
        (r"\b(?:go(?:es|ing)?|went|gone|com(?:e|es|ing)|came) down\b", "decrease decreases decreased reduced fall"),
        (
            r"\bfrom (?:next |the |this )?"
            r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|\d)",
            "starting beginning effective",
        ),
        # home, school and work
        (r"\b(?:chef|cooks?|cooking)\b", "cooking cook cooks cooked"),
        (r"\b(?:do(?:es)? the dishes|wash(?:es|ing)? up|washing-up)\b", "washes wash washing dishes"),
        (r"\b(?:handyman|diy|fix(?:es|ed|ing)?|mend(?:s|ed|ing)?)\b", "repairs repair fixes fix"),
        (r"\b(?:home from|off) (?:school|nursery|work|daycare)\b|\boff sick\b", "staying home absent"),
        (r"\b(?:trip|going|go|fly(?:ing)?|flight|heading) (?:back )?home\b|\bback home\b", "back return"),
        (r"\bdrop(?:s|ped|ping)?\b", "off"),  # "gets dropped at the creche": dropped off
        # A standing "can't have" is a "never", unless the turn gives it a day.
        (
            r"\b(?:can't|cant|cannot|can not|mustn't|must not) (?:have|eat|drink|be given)\b"
            r"(?![^.!?]*\b(?:tonight|today|tomorrow|this (?:week|weekend|time)|till|until)\b)",
            "never",
        ),
        (r"\b(?:type 1|type one|t1d?)\b.{0,120}?\b(?:pump|pen|shots?|injections?)\b", "insulin"),
        # Being somewhere for a time is spending it there: "hogmanay we're at lorraine's".
        (
            r"\b(?:we're|we are|we'll be|we will be|they're|they are|i'm|i am|i'll be)"
            r" (?:at|in|with|over at|down at)\b",
            "spending spend",
        ),
        (
            r"\b(?:got|get|gets|getting) (?:in|into|a place)\b|\bmade the (?:team|squad|choir|band)\b",
            "accepted admitted selected place",
        ),
        (r"\b(?:work(?:s|ing)?|wfh) from home\b|\bwfh\b", "remotely remote home"),
        (r"\b(?:primary|secondary|elementary|reception|academy|year \d{1,2}|grade \d{1,2})\b", "school"),
        (r"\bchoir\b", "sing sings singing"),
        (r"\b(?:by|next to|close to|beside) the\b", "near nearby next"),
        (r"\bhalf the time\b|\ba lot\b", "often sometimes"),
        (r"\b(?:gcses?|a-levels?|a levels?|sats|finals|mocks|o-levels?)\b", "exam exams test tests"),
        (r"\b(?:asleep|in bed) by\b|\b(?:goes|go|going) to bed\b|\blights out\b", "bedtime"),
        (r"\bup (?:at night|all night|most nights|every night|in the night)\b", "awake waking night"),
        # travel
        (r"\b(?:car ?sick|travel ?sick|sea ?sick)\b", "motion travel"),
        (r"\bdriv(?:e|es|ing)\b", "journey journeys road car trip trips"),
        (r"\bdrivable\b|\bdriving distance\b|\bby car\b", "car drive driving reachable distance"),
        # health
        (r"\bfound out\b|\bfind out\b", "diagnosed discovered learned learnt"),
        (
            r"\b(?:celiac|coeliac|diabet\w*|asthma\w*|epilep\w*|eczema|crohn'?s|arthritis|migraines?)\b",
            "disease condition diagnosis",
        ),
        (r"\bdentist\b", "dental"),
        (r"\b(?:doctor|gp)\b", "medical"),
        (r"\bphysio\b", "physiotherapy physical therapy"),
        (r"\btummy\b", "stomach belly"),
        (r"\blads\b", "boys"),
        (r"\b(?:he|he's|his|him)\b", "boy man male"),
        (r"\b(?:she|she's|her|hers)\b", "girl woman female"),
        (r"\blasses\b", "girls"),
        (r"\bteething\b", "teeth"),
        (r"\bexpecting\b", "pregnant baby due"),
        (r"\bpassed away\b|\bpassed on\b", "died death"),
        # wishes and refusals
        (rf"\b{_NEGATED} drink(?:s|ing)?\b|\bteetotal\b|\btee-total\b", "alcohol alcoholic booze"),
        (r"\b(?:won'?t|will not|refus(?:e|es|ed|ing))\b", "refuses refuse refused unwilling"),
        (r"\bnot (?:a (?:big )?fan of|keen on|into)\b|\bcan'?t stand\b", "dislikes dislike hates hate"),
        (r"\b(?:big fan of|mad about|obsessed with|(?:really|big|so) into)\b", "loves love likes enjoys fan"),
        (r"\bonly (?:on|at|for|when|after|before|if|with)\b", "except unless apart"),
        # Giving a thing up is no longer doing it: "given up meat", "quit dairy", "not shy anymore".
        (
            r"\b(?:give|gives|gave|given|giving) (?:up|it up)\b|\bquit(?:s|ting)?\b|\bstopped\b|"
            r"\bcut (?:out|\w+ out)\b|\bno longer\b|\bany ?more\b",
            "stopped stop stops quit cut no longer anymore avoids avoid",
        ),
        (
            r"\b(?:give|gives|gave|given|giving) up (?:drinking|booze)\b|\bquit(?:s|ting)? (?:drinking|booze)\b",
            "alcohol",
        ),
        # Two negations that make a yes: "never misses", "doesn't forget" -> "always attends".
        (
            r"\b(?:never|not once|\w+n't)(?: \w+)? (?:miss|misses|missed|forget|forgets|forgot|skip|skips|skipped)\b",
            "always every all attends attend attended goes remembers remember",
        ),
        # Without a prompt is of one's own accord: "tidies without being asked" -> "unprompted".
        (
            r"\bwithout (?:being (?:asked|told|reminded|prompted)|"
            r"(?:anyone|anybody|us) (?:asking|telling|reminding))\b",
            "unprompted independently own herself himself themselves voluntarily",
        ),
        # A condition said in other words: "provided she has her helmet" -> "as long as", "if".
        (
            r"\b(?:if|provided|providing|as long as|so long as|on (?:the )?condition (?:that )?)\b",
            "if provided providing long condition only when",
        ),
        # Other Englishes' words for everyday things (Scots, Indian, Australian, South African,
        # Singaporean, British/American): "isla's piece" is her packed lunch.
        (r"\b(?:my|his|her|their|your|our|the weans'?|\w+'s) piece\b", "packed lunch sandwich sandwiches"),
        (r"\b(?:the|doing the|do the|get the|got the|for the) messages\b", "shopping groceries grocery"),
        (r"\b(?:weans?|bairns?)\b", "children kids child kid"),
        (r"\b(?:packed|jacked|chucked) (?:it )?in\b", "stopped stop quit gave given up"),
        (r"\btiffins?\b", "lunch lunchbox packed box"),
        (r"\bprepone[ds]?\b|\bpreponing\b", "earlier brought forward moved"),
        (r"\bbrekkie\b", "breakfast"),
        (r"\bservo\b", "petrol station garage"),
        (r"\bbraai\b", "barbecue bbq"),
        (r"\bbakkie\b", "pickup truck ute"),
        (r"\bmakan\b", "eat eating food meal"),
        (r"\b(?:tapau|da ?bao)\b", "takeaway takeout"),
        (r"\bnapp(?:y|ies)\b", "diaper diapers"),
        (r"\bdiapers?\b", "nappy nappies"),
        (r"\bprams?\b|\bbuggy\b|\bpushchair\b", "stroller pram buggy pushchair"),
        (r"\bstrollers?\b", "pram buggy pushchair"),
        (r"\bdumm(?:y|ies)\b", "pacifier"),
        (r"\bcrisps\b", "chips"),
        (r"\bjumpers?\b", "sweater sweaters"),
        (r"\btrainers\b", "sneakers"),
        (r"\bsneakers\b", "trainers"),
        # how often, how much
        (
            r"\b(?:pretty much|nearly|almost) (?:every|each|always|daily|weekly)\b|"
            r"\bmost (?:days|nights|weeks|weekends|mornings|evenings|afternoons|sundays|saturdays|fridays)\b|"
            r"\btends? to\b|\bnormally\b|\bgenerally\b",
            "usually often generally normally mostly regularly",
        ),
        (r"\bor so\b|\bish\b|-ish\b|\bgive or take\b|\broughly\b", "roughly approximately around about"),
        (
            r"\b(?:every|each) (?:week|mon|tue|wed|thu|fri|sat|sun)(?!\w* (?:or|and) )|\b(?:once|one day) a week\b|"
            r"\bper week\b",
            "weekly",
        ),
        (r"\b(?:every|each) (?:day|morning|night|evening)\b|\bonce a day\b|\bper day\b", "daily"),
        (r"\b(?:every|each) month\b|\bonce a month\b|\bper month\b", "monthly"),
        (r"\b(?:every|each) year\b|\bonce a year\b|\bper year\b", "yearly annually"),
        (
            r"\bevery (?:other|second|2nd|alternate)\b|\balternate\b|\bevery (?:2|two) weeks\b|\bfortnight(?:ly)?\b|"
            r"\bbi-?weekly\b|\beo(?:w|we|wknd)\b",
            "fortnightly fortnight alternate other second biweekly every",
        ),
    )
)


def lent_words(text: str) -> list[str]:
    """The words the phrasings of ``text`` lend a summary."""
    out: list[str] = []
    for pattern, words in PHRASINGS:
        if pattern.search(text):
            out.extend(words)
    return out


def restated(text: str, summary: Sequence[str], alike: Callable[[str, str], bool]) -> set[str]:
    """The words of ``text`` a phrasing the summary uses restates ("skint" when the summary says
    "money is tight"): said in other words, they are not left out, so they pay for no word the
    summary adds ("money is tight, so no holidays abroad" for "we're broke, so no days out")."""
    out: set[str] = set()
    for pattern, words in PHRASINGS:
        if any(alike(w, s) for w in words for s in summary):
            for m in pattern.finditer(text):
                out.update(re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", m.group(0).lower().replace("’", "'")))
    return out


_EVERY_N_MONTHS = re.compile(r"\bevery (\d{1,2}|two|three|four|six) months\b", re.I)
_TWO_OCCASIONS = re.compile(
    r"\b(?:morning and (?:evening|night|bedtime)|(?:evening|night) and morning|am and pm|"
    r"one (?:after|before|with|at) \w+ and one (?:after|before|with|at))\b",
    re.I,
)
#: "every other thursday", "fortnightly": once in two weeks ("every 2 weeks", "twice a month").
_EVERY_OTHER = re.compile(r"\bevery (?:other|second|2nd)\b|\balternate\b|\bfortnight(?:ly)?\b|\bbi-?weekly\b", re.I)
_SMALL = {"two": 2, "three": 3, "four": 4, "six": 6}


def rate_numbers(text: str) -> set[float]:
    """How many times a period the turns' words come to: "every 6 months" is twice a year (2),
    "morning and evening" or "one after breakfast and one after dinner" twice a day (2), "every
    other thursday" or "fortnightly" every two weeks (2), "tues and thurs" twice a week (2)."""
    out: set[float] = set()
    for m in _EVERY_N_MONTHS.finditer(text):
        n = _SMALL.get(m.group(1).lower()) or int(m.group(1))
        if n and 12 % n == 0:
            out.add(float(12 // n))
    if _TWO_OCCASIONS.search(text) or _EVERY_OTHER.search(text):
        out.add(2.0)
    for sentence in re.split(r"[.!?;\n]+", text.lower()):
        days = {
            _WEEKDAY_UNITS[w.removesuffix("s")]
            for w in re.findall(r"[a-z]+", sentence)
            if w.removesuffix("s") in _WEEKDAY_UNITS
        }
        if len(days) > 1:
            out.add(float(len(days)))  # "swim tues and thurs": twice a week
    return out


# --- how often: a rate the turns give and the summary changes ------------------------------------

#: A period a rate counts by, and how many of it make a year.
_PER_YEAR = {
    "day": 365.0,
    "night": 365.0,
    "morning": 365.0,
    "afternoon": 365.0,
    "evening": 365.0,
    "weekday": 260.0,
    "week": 52.0,
    "wk": 52.0,
    "weekend": 52.0,
    "fortnight": 26.0,
    "month": 12.0,
    "term": 3.0,
    "year": 1.0,
}
_WEEKDAY_UNITS = {
    form: day
    for day in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    for form in (day, day[:3])
} | {"tues": "tuesday", "weds": "wednesday", "thur": "thursday", "thurs": "thursday"}
#: The full names of the units, which a typo is read as ("thrusday", "fortnihgtly").
_UNIT_NAMES = (
    *(
        w + s
        for w in "monday tuesday wednesday thursday friday saturday sunday weekend weekday morning evening".split()  # noqa: SIM905
        for s in ("", "s")
    ),
    "afternoon",
    "afternoons",
    "fortnight",
    "fortnightly",
    "alternate",
    "occasionally",
    "sometimes",
    "usually",
)
_UNIT = (
    r"(?P<unit>day|night|morning|afternoon|evening|weekday|weekend|week|wk|fortnight|month|term|year|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|weds|wed|thurs|thur|thu|fri|sat|sun)s?"
)
_COUNT_WORDS = {"once": 1, "twice": 2, "thrice": 3, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_COUNT_WORDS |= {"seven": 7, "couple of": 2, "few": 3}
_N = r"(?P<n>\d{1,2}|one|two|three|four|five|six|seven|couple of|few)"
#: Rate phrases, each (pattern, what it comes to): "every other thursday", "twice a week", "most days".
_RATE_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.I), kind)
    for pattern, kind in (
        (rf"\bevery (?:other|second|2nd|alternate) {_UNIT}\b|\balternate {_UNIT.replace('unit', 'unit2')}\b", "half"),
        (r"\beo(?P<eo>w|we|wknd)\b", "half"),
        (rf"\bevery {_N} {_UNIT}\b", "every_n"),
        (r"\bfortnightly\b|\b(?:once )?(?:a|every|each|per) fortnight\b", "fortnightly"),
        (r"\bbi-?weekly\b", "biweekly"),
        (r"\bbi-?monthly\b", "bimonthly"),
        (
            r"\b(?P<count>once|twice|thrice|(?:one|two|three|four|five|six|seven|\d{1,2}) ?(?:times|x)) "
            r"(?:a|an|per|each|every) (?P<period>day|night|week|fortnight|month|term|year)\b",
            "count",
        ),
        (
            r"\b(?P<count2>once|twice|thrice|one|two|three|four|five|six|\d) (?:days?|nights?|times?) ?(?:a|per|each) "
            r"(?P<period2>week|fortnight|month|year)\b",
            "count",
        ),
        (
            # "twice weekly", "3 times daily": a count said with the period's adverb.
            r"\b(?P<count3>once|twice|thrice|(?:one|two|three|four|five|six|seven|\d{1,2}) ?(?:times|x)) "
            r"(?P<ly2>daily|nightly|weekly|monthly|yearly|annually|termly)\b",
            "count_ly",
        ),
        (r"\b(?P<ly>daily|nightly|weekly|monthly|yearly|annually|termly)\b", "ly"),
        (
            rf"\b(?P<q>nearly every|almost every|pretty much every|most|some|the odd|a few|several|certain|"
            rf"the occasional|occasional|not every|not all) {_UNIT}\b",
            "qualified",
        ),
        (rf"\b(?:every|each|(?:one|a) (?:day|night) (?:a|every)) (?:single )?{_UNIT}\b", "every"),
        (
            r"\b(?P<mostly>usually|normally|generally|mostly|typically|often|tends? to|most of the time)\b|"
            r"\b(?P<some>sometimes|occasionally|now and (?:then|again)|once in a while|from time to time|"
            r"every so often|on and off|here and there|not always|some weeks)\b|\b(?P<always>always)\b",
            "adverb",
        ),
        (r"\b(?P<plain>mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b", "plain"),
    )
)
_PLAIN_DAYS = frozenset("mondays tuesdays wednesdays thursdays fridays saturdays sundays".split())  # noqa: SIM905
_LY = {"daily": "day", "nightly": "night", "weekly": "week", "monthly": "month", "yearly": "year"}
_LY |= {"annually": "year", "termly": "term"}
_STRENGTH = {"nearly every": 2, "almost every": 2, "pretty much every": 2, "most": 2}
#: Where a clause of a schedule ends: "piano on thursdays and swimming every other saturday".
_RATE_CLAUSE = re.compile(r"[,;.!?]+|\b(?:and|but|while|whereas|plus)\b", re.I)


@dataclass(frozen=True)
class Rate:
    """How often a text says a thing happens: times a year (none for "usually"), how surely
    (3 every time, 2 mostly, 1 sometimes), and the weekday or "weekend" it is of."""

    per_year: tuple[float, ...]
    strength: int
    day: str
    text: str


def _unit(m: re.Match[str], group: str = "unit") -> tuple[float, str]:
    word = (m.groupdict().get(group) or m.groupdict().get("unit2") or "").lower()
    if word in _WEEKDAY_UNITS:
        return 52.0, _WEEKDAY_UNITS[word]
    return _PER_YEAR.get(word, 0.0), "weekend" if word == "weekend" else ""


def rates(text: str, *, summary: bool = False) -> list[Rate]:
    """The rates ``text`` states, clause by clause: "every other thursday" is 26 a year of
    Thursdays, "fortnightly" and "every 2 weeks" 26, "twice a week" 104, "once a month" 12, "most
    days" 365 mostly, "some fridays" 52 sometimes, "usually" mostly. A weekday in the plural
    ("on thursdays") is every such day, unless its clause gives another rate ("on thursdays,
    every other week"); in a ``summary``, unless its sentence does ("fortnightly, on Tuesdays")."""
    out: list[Rate] = []
    folded = re.sub(r"[^\W\d_]{5,}", lambda m: nearest(m.group(0), _UNIT_NAMES) or m.group(0), text.lower())
    folded = folded.replace("’", "'")
    for sentence in re.split(r"[.!?;\n]+", folded):
        said = _sentence_rates(sentence)
        if two := _TWO_OCCASIONS.search(sentence):  # "one after breakfast and one after dinner": twice a day
            said.append(Rate((730.0, 365.0), 3, "", two.group(0)))  # each of them daily
        if summary and any(r.text not in _PLAIN_DAYS for r in said):
            said = [r for r in said if r.text not in _PLAIN_DAYS]
        days = {r.day for r in said if r.text.endswith("days") and r.day and r.text.rstrip("s") in _WEEKDAY_UNITS}
        if len(days) > 1 and not summary:  # "swim on tuesdays and thursdays": twice a week
            said.append(Rate((52.0 * len(days),), 3, "", " and ".join(sorted(days))))
        out += said
    return out


def _sentence_rates(sentence: str) -> list[Rate]:
    out: list[Rate] = []
    for clause in _RATE_CLAUSE.split(sentence):
        found: list[Rate] = []
        taken: list[tuple[int, int]] = []
        for pattern, kind in _RATE_PHRASES:
            for m in pattern.finditer(clause):
                if any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                rate = _rate(m, kind)
                if rate is None:
                    continue
                if kind == "plain" and found:
                    continue  # "on thursdays, every other week"
                taken.append((m.start(), m.end()))
                found.append(rate)
        out += found
    return out


def _rate(m: re.Match[str], kind: str) -> Rate | None:
    said = m.group(0)
    if kind == "half" and m.groupdict().get("eo"):
        return Rate((26.0,), 3, "weekend" if m.group("eo") != "w" else "", said)  # "eow": every other week(end)
    if kind == "half":
        per, day = _unit(m)
        return Rate((per / 2,), 3, day, said) if per else None
    if kind == "every_n":
        per, day = _unit(m)
        word = m.group("n").lower()
        n = _COUNT_WORDS.get(word) or int(word)
        if not per or n < 2:
            return None
        spread = (n - 1, n, n + 1) if word in ("few", "couple of") else (n,)
        return Rate(tuple(per / k for k in spread), 3, day, said)
    if kind == "fortnightly":
        return Rate((26.0,), 3, "", said)
    if kind == "biweekly":
        return Rate((26.0, 104.0), 3, "", said)
    if kind == "bimonthly":
        return Rate((6.0, 24.0), 3, "", said)
    if kind == "count":
        count = (m.groupdict().get("count") or m.groupdict().get("count2") or "").lower()
        period = (m.groupdict().get("period") or m.groupdict().get("period2") or "").lower()
        word = count.removesuffix(" times").removesuffix("times").removesuffix("x").strip()
        n = _COUNT_WORDS.get(word) or (int(word) if word.isdigit() else 0)
        return Rate((n * _PER_YEAR[period],), 3, "", said) if n else None
    if kind == "count_ly":
        word = m.group("count3").lower().removesuffix(" times").removesuffix("times").removesuffix("x").strip()
        n = _COUNT_WORDS.get(word) or (int(word) if word.isdigit() else 0)
        return Rate((n * _PER_YEAR[_LY[m.group("ly2").lower()]],), 3, "", said) if n else None
    if kind == "ly":
        return Rate((_PER_YEAR[_LY[m.group("ly").lower()]],), 3, "", said)
    if kind == "qualified":
        per, day = _unit(m)
        q = m.group("q").lower()
        return Rate((per,), _STRENGTH.get(q, 1), day, said) if per else None
    if kind == "every":
        per, day = _unit(m)
        return Rate((per,), 3, day, said) if per else None
    if kind == "adverb":
        strength = 2 if m.group("mostly") else 1 if m.group("some") else 3
        return Rate((), strength, "", said)
    return Rate((52.0,), 3, _WEEKDAY_UNITS[m.group("plain").lower().removesuffix("s")], said)


def _same_rate(ours: Rate, theirs: Rate) -> bool:
    """``ours`` says no more than ``theirs``: as often (within a tenth) and no more surely; "every
    weekday" is as often as an "every day" of school pickups and work."""
    if ours.strength > theirs.strength:
        return False
    if not ours.per_year or not theirs.per_year:
        return True
    if 260.0 in ours.per_year and 365.0 in theirs.per_year:
        return True
    return any(abs(a - b) <= 0.1 * max(a, b) for a in ours.per_year for b in theirs.per_year)


def rate_problem(summary: str, text: str) -> str | None:
    """A rate of the summary that no rate of the turns (``text``) is: "every Thursday" for "every
    other thursday", "weekly" for "biweekly", "every Friday" for "some fridays". A rate of a
    weekday is compared with the turns' rates of that day when they give one, else with those of
    no day ("every other week"); turns that give no rate are the word check's to judge."""
    theirs = rates(text)
    if not theirs:
        return None
    named = {
        _WEEKDAY_UNITS.get(w) or _WEEKDAY_UNITS.get(w.removesuffix("s")) for w in re.findall(r"[a-z]+", text.lower())
    }
    for ours in rates(summary, summary=True):
        same_day = [t for t in theirs if ours.day and t.day == ours.day]
        # A day the turns name without a rate of its own ("luis takes her mon and wed") is not
        # held to an adverb they say of something else ("sometimes he forgets").
        candidates = same_day or [
            t for t in theirs if not (ours.day and t.day) and not (ours.day in named and not t.per_year)
        ]
        if candidates and not any(_same_rate(ours, t) for t in candidates):
            return f"the turns say {candidates[0].text!r}, not {ours.text!r}"
    return None


# --- framing words: no checkable value --------------------------------------------------

#: Adverbs of degree, manner and connection: they say how a thing is put, not what it is.
FRAMING = frozenset(
    """roughly instead rather especially particularly mainly largely mostly typically simply actually
    currently presently whenever meanwhile otherwise either totally completely absolutely super pretty
    properly seriously""".split()  # noqa: SIM905
)
#: Habitual adverbs: free where the turns state a recurrence, never beyond ("always" stays strict).
HABITUAL = frozenset("usually often normally generally regularly typically mostly".split())  # noqa: SIM905
_RECURRENCE = re.compile(
    r"\b(?:every|each|per|most|usually|normally|generally|often|regularly|daily|nightly|weekly|fortnightly|"
    r"monthly|always|tends? to|a (?:day|night|week|fortnight|month|year)|mondays|tuesdays|wednesdays|thursdays|"
    r"fridays|saturdays|sundays|weekends|weekdays|mornings|evenings|nights|of (?:the|every|each) month)\b",
    re.I,
)


def recurring(text: str) -> bool:
    """Whether ``text`` states something that recurs ("every week", "most nights", "on fridays")."""
    return bool(_RECURRENCE.search(text))


#: Irregular forms of the light verbs (the check's generic words are in their plain forms).
IRREGULAR = {
    "kept": "keep",
    "went": "go",
    "gone": "go",
    "took": "take",
    "taken": "take",
    "made": "make",
    "got": "get",
    "gotten": "get",
    "came": "come",
    "held": "hold",
    "brought": "bring",
    "paid": "pay",
    "gave": "give",
    "given": "give",
    "met": "meet",
    "ate": "eat",
    "eaten": "eat",
    "wore": "wear",
    "worn": "wear",
    "sat": "sit",
    "ran": "run",
    "began": "begin",
    "begun": "begin",
    "did": "do",
    "done": "do",
    "put": "put",
}
#: Light verbs beside the check's generic words: they carry the sentence, not a value.
LIGHT_VERBS = frozenset("put puts putting say says said".split())  # noqa: SIM905


def _lemmas(word: str) -> list[str]:
    """Plain forms ``word`` may be an inflection of ("staying" -> "stay", "putting" -> "put")."""
    out = [IRREGULAR[word]] if word in IRREGULAR else []
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            base = word[: -len(suffix)]
            out += [base, base + "e"]
            if len(base) > 2 and base[-1] == base[-2]:
                out.append(base[:-1])  # "putting" -> "put"
            if base.endswith("i"):
                out.append(base[:-1] + "y")  # "carried" -> "carry"
    return out


def light(word: str, generic: Iterable[str] | frozenset[str]) -> bool:
    """An inflected form of a generic word or a light verb ("staying", "coming", "kept")."""
    plain = generic if isinstance(generic, frozenset) else frozenset(generic)
    return any(base in plain or base in LIGHT_VERBS for base in _lemmas(word)) or word in LIGHT_VERBS


# --- compounds ------------------------------------------------------------------------------


#: Particles a compound may end in ("drop-off", "pickup", "wake-ups", "check-in").
PARTICLES = frozenset("up ups off in out over back down on".split())  # noqa: SIM905


def compound_parts(word: str, held: Callable[[str], bool], free: Callable[[str], bool]) -> bool:
    """A compound whose parts the turns say: "drop-off" for "drop off", "daytime" for "during the
    day", "pickup" for "pick up". ``held``: a part is a word of the turns (as written or
    inflected, not a near spelling); ``free``: a generic word. Each part is held, free or a
    particle, at least one of three letters or more is held, and a part of a joined compound
    has three letters or more: "daytime" is not said by a turn of nights, nor "shellfish" by
    one of fish."""
    if "-" in word:
        parts = [p for p in word.split("-") if p]
        if len(parts) > 1 and all(held(p) or free(p) or p in PARTICLES or len(p) < 2 for p in parts):
            return any(held(p) for p in parts if len(p) >= 3)
        return False
    if len(word) < 6 or not word.isalpha():
        return False
    for cut in range(3, len(word) - 1):
        left, right = word[:cut], word[cut:]
        if len(right) < 3 and right not in PARTICLES:
            continue
        if (
            (held(left) or free(left))
            and (held(right) or free(right) or right in PARTICLES)
            and (held(left) or held(right))
        ):
            return True
    return False


# --- the strict side: values and opposites ----------------------------------------------------

#: Values beside the check's ``VALUES``: a summary may name one only if the turns do.
#: Holidays by name: a value, which the conversation must name ("Christmas" is not "new year").
HOLIDAYS = frozenset(
    """christmas xmas hogmanay easter diwali eid ramadan thanksgiving hanukkah chanukah halloween passover
    holi onam pongal lohri navratri""".split()  # noqa: SIM905
)
VALUE_WORDS = (
    frozenset(
        """red orange yellow green blue purple pink black white brown grey gray silver gold navy
    physiotherapy physiotherapist cardiology cardiologist dermatology dermatologist neurology neurologist
    orthopaedic orthopedic paediatrician pediatrician audiology audiologist optician optometrist psychiatrist
    psychologist occupational speech orthodontist gynaecologist oncology oncologist allergist podiatrist
    cooking baking cleaning laundry ironing hoovering vacuuming gardening repairs dishes
    iron calcium zinc magnesium potassium folic vitamin vitamins b12 omega
    piano violin viola cello guitar drums flute clarinet trumpet trombone saxophone harp ukulele recorder
    girl girls boy boys""".split()  # noqa: SIM905
    )
    | HOLIDAYS
)

#: Pairs of opposite or alternative values: a summary that says one where the turns say the other.
OPPOSITES: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        ("pickup pick-up pickups collection", "dropoff drop-off dropoffs"),
        ("morning mornings", "evening evenings night nights afternoon afternoons"),
        ("increase increases increased rise rises higher", "decrease decreases decreased reduced lower fall falls"),
        ("earlier early", "later late"),
        ("older eldest elder big", "younger youngest small little"),  # "my small brother yaw" is the younger
        ("upstairs", "downstairs"),
        ("inside indoors", "outside outdoors"),
        ("love loves loved adore adores enjoy enjoys likes", "dislike dislikes hate hates"),
        ("allowed permitted", "banned forbidden"),
        ("lift lifts elevator elevators", "stairs staircase escalator escalators"),
        ("bath baths", "shower showers"),
    )
)


#: Opposites by which a negation is restated (used only to accept, never to refuse): "no longer
#: scared of the dark" is "fine with the dark", "no longer banned from the oven" "allowed to use
#: the oven", "no longer needs walking to school" "walks to school alone", "no longer wakes at
#: night" "sleeps through the night". ``OPPOSITES`` count too.
NEGATION_ANTONYMS: tuple[tuple[frozenset[str], frozenset[str]], ...] = OPPOSITES + tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        (
            "scared afraid frightened nervous anxious shy fussy picky worried terrified",
            "fine okay ok confident brave comfortable outgoing adventurous relaxed calm happy",
        ),
        ("need needs needed needing help", "alone own independently herself himself themselves"),
        ("wake wakes waking woke awake", "sleep sleeps sleeping asleep slept"),
        ("allowed permitted let", "banned forbidden stopped"),
        ("forget forgets forgot forgetting", "remember remembers remembered"),
        ("miss misses missed missing skip skips skipped", "attend attends attended goes go makes"),
        ("late", "time punctual"),
    )
)


def antonyms(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are opposites a negation may be restated by (``NEGATION_ANTONYMS``)."""
    return any((a in one and b in other) or (a in other and b in one) for one, other in NEGATION_ANTONYMS)


def _flat(words: Iterable[str]) -> frozenset[str]:
    return frozenset(w.replace("-", "") for w in words)


#: ``OPPOSITES`` with hyphens dropped ("drop-off" is "dropoff"), both ways round.
_OPPOSED_FLAT: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    pair for one, other in OPPOSITES for pair in ((_flat(one), _flat(other)), (_flat(other), _flat(one)))
)


def opposed(summary: Sequence[str], pool: Sequence[str], negated: Iterable[str] = ()) -> tuple[str, str] | None:
    """(the turns' word, the summary's) where the summary says a value whose opposite the turns
    say, and says neither the turns' value nor its own is in the turns. A value the turns say
    only under a negation (``negated``: "no longer banned from the oven") is not said: its
    opposite ("allowed to use the oven") restates it."""
    denied = _flat(negated)
    said = _flat([*pool, *(a + b for a, b in pairwise(pool))]) - denied  # "pick up" is "pickup"
    ours = _flat([*summary, *(a + b for a, b in pairwise(summary))])
    for mine, theirs in _OPPOSED_FLAT:
        if ours & mine and not said & mine and said & theirs and not ours & theirs:
            return sorted(said & theirs)[0], sorted(ours & mine)[0]
    return None
