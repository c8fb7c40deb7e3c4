"""How the offline extractor cuts a user turn into clauses, and what it does to a clause's words.

- Sentences end at ".", "!" or "?" followed by a space, but not after a title or
  an abbreviation ("Dr. Osei", "St. Mary's", "e.g."), an initial ("J. K.") or
  inside a number ("5.30"): a claim is never cut there.
- Clauses break at ", and" / ", but" / ", so", ";", " - ", at "and he's" /
  "and she" (a second subject), after "btw," when a new subject follows, and before
  ", can you ..." (a request after the statement), never inside a self-correction.
- A self-correction ("Friday, sorry, Saturday"; "at 10:40, no sorry, 11:40";
  "the 9th. Sorry, the 10th") keeps only the value given instead: the clause's
  words with the retracted value replaced by the new one. When the value taken
  back cannot be found (the speaker took back a whole thought: "she lands the
  10th, no wait, she moved her flight"), the clause says nothing the extractor
  can trust and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TypeVar

from family_memory.domain.transcript import Turn
from family_memory.formation.dates import find_dates

T = TypeVar("T")

#: Words that end with a full stop without ending the sentence ("Dr. Osei", "St. Mary's").
ABBREVIATIONS = frozenset(
    {"dr", "mr", "mrs", "ms", "mx", "prof", "st", "mt", "sr", "jr", "vs", "etc", "approx", "e.g", "i.e", "fr", "rev"}
)

_SENTENCE_END = re.compile(r"[.!?]+(?=\s)|\n+")
_CLAUSE_BREAK = re.compile(
    r",\s+(?:and|but|so)\s+|;\s+|\s+[-–—]\s+|\s+so\s+(?=(?:no|we|i|she|he|they|it|there)\b)"
    r"|\s+and\s+(?=(?:he|she|they|we)(?:['’](?:s|re|ll|ve|d)\b|\s))"
    # A request after the statement ("the dresses have to be picked up saturday, can u remind mom")
    # and a statement after "btw," ("the fitting went great btw, the dress needs hemming").
    r"|,\s+(?=(?:can|could|would|will)\s+(?:you|u|ya)\b)|(?<=\bbtw),\s+(?=(?:the|my|our|i|we|he|she)\s)"
    r"|\s+but\s+(?=(?:i|i['’]m|im|we|we['’]re|he|he['’]s|she|she['’]s|they|my|our)\s)"
    r"|\s+but\s+(?=(?:at|on|in)\s+(?:home|school|work|weekends)\s+(?:we|i)\s)"
    # "NOT the mushroom ones i hate mushrooms": a new first-person statement of a like or dislike.
    r"|\s+(?<!what\s)(?<!that\s)(?<!which\s)(?<!how\s)(?=i\s+(?:really\s+)?(?:hate|love|can['’]?t\s+stand)\s)"
    # A comma splice that says what someone loves or cannot have: "I want to book somewhere
    # nice, she loves Greenes"; "..., he's allergic to eggs".
    r"|,\s+(?=(?:she|he)(?:['’]s)?\s+(?:(?:also|really|still|so)\s+)?(?:loves?|likes?|hates?|adores?|prefers?|"
    r"is\s+allergic|allergic|can['’]?t\s+(?:have|eat)|doesn['’]?t\s+eat|is\s+vegetarian|vegetarian|vegan)\b)",
    re.I,
)
#: A self-correction: the marker between the value taken back and the one given instead.
_MARKER = re.compile(
    r"\s*(?:[,–—-]|\.\.\.|…|\.(?=\s))\s*(?:(?:no\s+)?sorry|no\s+wait|wait\s+no|i\s+mean|oops|no\s+no|or\s+rather|"
    r"scratch\s+that|correction|(?<=,\s)no(?=\s*,)|(?<=\.\.\.)\s*no(?=\s*,)|(?<=…)\s*no(?=\s*,))\s*(?:[,:–—-]\s*|\s+(?=\S))",
    re.I,
)

#: What people put in front of a statement ("oh, and ...", "yes pls", "btw", "food wise").
_FILLER_PHRASES: tuple[str, ...] = tuple(
    """oh ok okay also and but so btw fyi hi hey hello thanks yes yeah yep yup ya yah nah ugh ah oops lol
    haha omg sure right well great cool perfect awesome alright first firstly second secondly next then
    plus update random actually important medically remember foodwise just
    """.split()  # noqa: SIM905
)
_FILLER_PHRASES += (
    "by the way",
    "just so you know",
    "remember that",
    "please note that",
    "please note",
    "note that",
    "one more thing",
    "one more",
    "another thing",
    "quick thing",
    "heads up",
    "thank you",
    "first of all",
    "and also",
    "quick update",
    "good news",
    "bad news",
    "food wise",
    "diet wise",
    "health wise",
    "most important thing",
    "v important",
    "very important",
    "also important",
)
_FILLER = re.compile(
    r"^(?:(?:hmm+|um+|aw+|"
    + "|".join(p.replace(" ", r"\s+") for p in sorted(_FILLER_PHRASES, key=len, reverse=True))
    + r"),?\s+)+",
    re.I,
)
#: Fillers that count only with a comma after them ("no, she's fine"; not "no nuts for Kai"), and
#: a short heading ("Portugal update,", "one for me:").
_COMMA_FILLER = re.compile(
    r"^(?:(?:no|wait|look|listen|honestly|anyway|anyways|see|so yeah|now|correct|exactly|true|indeed|agreed),\s+"
    r"|(?:[\w'’-]+\s+){0,2}update[,:]\s+|(?:one|another|this one|next one)\s+for\s+(?:me|us|\w+)\s*:\s+"
    r"|(?:[\w'’-]+\s+){0,5}?(?:rule|reminder|important|big one|thing|note|heads up|update|fyi)[\w\s'’-]{0,20}:\s+)",
    re.I,
)

#: Laughter, eye-rolls and the like: a sentence holding one is small talk, not an instruction.
SMALL_TALK = re.compile(
    r"\b(?:lol|lmao|lmfao|rofl|haha\w*|hehe\w*|jk|just kidding|kidding|i swear|swear)\b|[😂🤣🙄😅😆😜😭🙈]",
    re.I,
)

#: A passing state given as the reason for what follows ("yusuf's fasting so", "she's poorly so").
_PASSING_REASON = re.compile(
    r"\b(?:is|are|am|['’]s|['’]re|['’]m)\s+(?:(?:still|also|now|a\s+bit|really)\s+)*(?:fasting|poorly|sick|ill|unwell|"
    r"recovering|teething|off\s+sick|on\s+antibiotics|on\s+a\s+course\s+of\s+\w+)\b[^.!?]{0,40}?,?\s+so\s*$",
    re.I,
)


def rests_on_passing_state(clause: Clause) -> bool:
    """Whether the clause follows "so" after a state that passes ("yusuf's fasting so no weekday
    lunches for him", "he's on antibiotics so no dairy for him"): a rule for as long as the state
    lasts, which the clause does not say, so no standing rule."""
    return bool(_PASSING_REASON.search(clause.turn.text[max(0, clause.start - 120) : clause.start]))


_TIME = re.compile(
    r"\b(?:half\s+(?:past\s+)?\d{1,2}|quarter\s+(?:past|to)\s+\d{1,2}|\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?"
    r"|noon|midday|midnight)\b",
    re.I,
)
_WEEKDAY_WORD = (
    r"(?:mon|tues?|wed|thu|thur|thurs|fri|sat|sun)(?:day)?s?|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday"
)
_WEEKDAY_RUN = re.compile(rf"\b(?:{_WEEKDAY_WORD})(?:(?:\s+|\s*(?:,|and|&|/|-)\s*)(?:{_WEEKDAY_WORD}))*\b", re.I)
_NUMBER = re.compile(r"[$£€]?\d+(?:[.,]\d+)?\s*(?:k|ml|mg|kg|g|l)?\b", re.I)


@dataclass(frozen=True)
class Clause:
    """One clause of a user turn."""

    turn: Turn
    quote: str  # exactly as written in the turn
    core: str  # the quote without leading fillers, with any self-correction applied
    question: bool
    start: int  # where the quote starts in the turn's text
    sentence: str  # the sentence the clause is part of, as written
    today: date  # the turn's local date in the family's zone
    corrected: bool = False


def _sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each sentence starts and ends, never cutting after "Dr." or inside a correction."""
    protected = [(m.start(), m.end()) for m in _MARKER.finditer(text)]
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        if match.group(0).startswith("."):
            word = re.search(r"(?:^|\s)([\w.'’]+)$", text[start : match.start()])
            before = word.group(1) if word else ""
            initial = re.fullmatch(r"[A-Z]", before) is not None  # "J. K. Rowling"
            if before.lower() in ABBREVIATIONS or initial or re.match(r"\d", text[end:][:2]):
                continue
        if any(a <= match.start() < b for a, b in protected):
            continue
        yield start, end
        start = end
    if start < len(text):
        yield start, len(text)


def clauses(turn: Turn, today: date) -> Iterator[Clause]:
    """The turn's clauses in order, each with its words as written and as meant."""
    text = turn.text
    for s_start, s_end in _sentence_spans(text):
        sentence = text[s_start:s_end]
        protected = [(m.start(), m.end()) for m in _MARKER.finditer(sentence)]
        cuts = [
            m for m in _CLAUSE_BREAK.finditer(sentence) if not any(a < m.end() and m.start() < b for a, b in protected)
        ]
        start = 0
        for match in [*cuts, None]:
            end = match.start() if match else len(sentence)
            raw = sentence[start:end]
            offset = start
            start = match.end() if match else len(sentence)
            stripped = raw.strip()
            lead = len(raw) - len(raw.lstrip())
            question = stripped.endswith("?")
            quote = stripped.rstrip(".!?,;: ").strip()
            if len(quote) < 3:
                continue
            core = quote
            while True:
                trimmed = _COMMA_FILLER.sub("", _FILLER.sub("", core)).strip()
                if trimmed == core:
                    break
                core = trimmed
            corrected = False
            if _MARKER.search(core):
                fixed = correct(core, today)
                if fixed is None:
                    continue  # the speaker took something back and the extractor cannot tell what
                core, corrected = fixed, True
            if core:
                yield Clause(turn, quote, core, question, s_start + offset + lead, sentence.strip(), today, corrected)


def _kind(value: str, today: date) -> str | None:
    """What sort of value a correction gives: a date, a run of weekdays, a time, a number."""
    value = value.strip()
    if not value or len(value.split()) > 6:
        return None
    if _WEEKDAY_RUN.fullmatch(value):
        return "weekdays"
    if find_dates(value, today):
        return "date"
    if re.fullmatch(rf"(?:at\s+)?{_TIME.pattern}", value, re.I):
        return "time"
    if _NUMBER.fullmatch(value):
        return "number"
    return None


def _last(pattern: re.Pattern[str], text: str) -> tuple[int, int] | None:
    found = [m.span() for m in pattern.finditer(text)]
    return found[-1] if found else None


def _retracted(left: str, kind: str, today: date) -> tuple[int, int] | None:
    """Where the value of ``kind`` that the speaker took back is in ``left``."""
    if kind == "weekdays":
        return _last(_WEEKDAY_RUN, left)
    if kind == "date":
        dates = find_dates(left, today)
        if dates:
            last = dates[-1]
            return last.start, last.end
        return _last(_WEEKDAY_RUN, left)
    if kind == "time":
        spans = [span for span in (m.span() for m in _TIME.finditer(left))]
        day_numbers = [(d.start, d.end) for d in find_dates(left, today)]
        spans = [s for s in spans if not any(a <= s[0] < b for a, b in day_numbers)]
        return spans[-1] if spans else None
    return _last(_NUMBER, left)


def correct(text: str, today: date) -> str | None:
    """``text`` with each self-corrected value replaced by the one given instead, or None when
    what was taken back cannot be told: "Saturday at 11, no, half 11" -> "Saturday at half 11"."""
    for _ in range(3):
        marker = _MARKER.search(text)
        if marker is None:
            return text
        left, right = text[: marker.start()], text[marker.end() :]
        given = re.match(r"[^,;.!?]+", right)
        if given is None:
            return None
        value = given.group(0).strip()
        rest = right[given.end() :]
        kind = _kind(value, today)
        if kind is None:
            # "tuesday the 27th at 7": the date first, then what goes with it.
            head = re.match(r"(.+?)\s+(?=at\b|in\b|with\b|for\b)", value)
            if head and _kind(head.group(1), today) == "date":
                kind, value, rest = "date", head.group(1), value[head.end(1) :] + rest
        if kind is None:
            return None
        span = _retracted(left, kind, today)
        if span is None:
            return None
        text = (left[: span[0]] + value + left[span[1] :] + rest).strip()
    return None if _MARKER.search(text) else text


def last_sentence(text: str) -> str:
    """The last sentence ``text`` holds, as written (all of it when it holds one)."""
    return re.split(r"(?<=[.!?])\s+", text.strip())[-1]


def sentence_case(text: str) -> str:
    """One sentence: spaces tidied, a capital first letter, a full stop at the end."""
    text = " ".join(text.split()).strip(" .,;:")
    return (text[:1].upper() + text[1:] + ".") if text else text


def short(text: str, words: int = 8, limit: int = 80) -> str:
    parts = text.split()
    out = " ".join(parts[:words])
    if len(parts) > words:
        out += "…"
    return out[:limit]


def first_found(text: str, table: Sequence[tuple[re.Pattern[str], T]], default: T) -> T:
    """The value beside the first pattern of ``table`` found in ``text``; ``default`` when none is."""
    return next((value for pattern, value in table if pattern.search(text)), default)


_OBJECT_END = re.compile(
    r"\s+(?:because|since|as|though|although|which|when|so|too|either|as well|also|anymore|any more|now|btw|"
    r"by the way|lol|haha\w*|tho|though)\b.*$",
    re.I,
)


def object_of(text: str) -> str:
    """The thing a predicate is about, without trailing asides ("Thai food, by the way")."""
    text = re.split(r"[,;:(!?]|\s[-–—]\s", text, maxsplit=1)[0]
    text = _OBJECT_END.sub("", text)
    return text.strip(" .,;:!?")[:100]


_FIRST_PERSON = re.compile(
    r"\b(?P<w>i['’]m|im|i['’]ve|i['’]ll|i['’]d|i|me|myself|my|mine)\b(?P<verb>\s+(?:(?:also|always|still|usually|"
    r"only|just|really|normally|often)\s+)?(?P<v>[a-z]+))?",
    re.I,
)
_IRREGULAR = {
    "have": "has",
    "do": "does",
    "go": "goes",
    "am": "is",
    "was": "was",
    "don't": "doesn't",
    "dont": "doesn't",
    "can't": "can't",
    "can": "can",
    "will": "will",
    "would": "would",
    "could": "could",
    "should": "should",
    "must": "must",
    "may": "may",
    "might": "might",
    "had": "had",
    "did": "did",
    "didn't": "didn't",
    "wasn't": "wasn't",
    "won't": "won't",
}
#: Words after "I" that are not a present-tense verb to put in the third person.
_NOT_VERBS = frozenset({"also", "always", "still", "usually", "only", "just", "really", "and", "or", "the", "a"})


def third_person(verb: str) -> str:
    """``verb`` as "she" says it: have -> has, coach -> coaches, carry -> carries, work -> works."""
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low.endswith(("ed", "ing", "s")) or low in _NOT_VERBS:
        return verb
    if low.endswith(("sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def name_first_person(text: str, name: str) -> tuple[str, bool]:
    """``text`` with the speaker's first-person words replaced by their name, verbs agreeing:
    "I have swim club" -> "Maisie has swim club", "check with me" -> "check with Ana",
    "my car" -> "Ana's car", "I'm" -> "Ana is". Also whether there were any."""

    def named(match: re.Match[str]) -> str:
        word = match.group("w").lower().replace("’", "'")
        verb = match.group("verb") or ""
        if word in ("my", "mine"):
            return f"{name}'s{verb}"
        if word in ("i'm", "im"):
            return f"{name} is{verb}"
        if word == "i've":
            return f"{name} has{verb}"
        if word == "i'll":
            return f"{name} will{verb}"
        if word == "i'd":
            return f"{name} would{verb}"
        if word == "i" and match.group("v"):
            v = match.group("v")
            return f"{name}{verb[: len(verb) - len(v)]}{third_person(v)}"
        return f"{name}{verb}"

    replaced, count = _FIRST_PERSON.subn(named, text)
    return replaced, count > 0
