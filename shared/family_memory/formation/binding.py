"""Binding: which value, part or referent the turn gives to whom (part of the support check,
``formation/support.py``; DESIGN invariant 2, issue 10 section 2).

The word checks of ``support.py`` ask whether the summary's words are in the turns. A summary
can keep every word and still say something the family did not, by binding the words
otherwise. This module refuses four such classes:

- a value given the qualifier the turn gives another value, where the turn pairs values with
  qualifiers in parallel ("omar's curfew is 10 on weekends, 9 on school nights" is not "10 pm
  on school nights"; "500 yen a week for haruto and 300 for yui" is not "Yui gets 500 yen");
- a part given the person or pet the turn does not give it to, where the turn shares parts
  out among people in parallel ("tobi does the dishes and kemi takes the bins out" is not
  "Kemi does the dishes") or singles one out ("meron's the one with the peanut allergy");
- a pronoun read as the wrong person: "he" or "she" opening the quoted clause is the nearest
  person named before it whom the pronoun fits (a person's gender is known only from the
  turns: "his sister jisoo", "tia rosa", "thabo's mum"), so "riku works weekends and mei
  babysits on fridays", then "she gets about 1,500 yen an hour for it", is not Riku's pay;
- an invented qualifier: a baby's or a pet's sex, a rank or a superlative ("top of his class",
  "won", "the best player", "with distinction") the turns do not say.

Read conservatively: a turn whose later part points back at an earlier one ("omar's fine with
it", "she does too") is not read as parallel, and a summary clause that keeps a qualifier of
the value's own part is not held against it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from family_memory.domain.text import normalise_for_match
from family_memory.formation import support as _s
from family_memory.formation.dates import WEEKDAY_FORMS
from family_memory.formation.text_similarity import STOPWORDS

# --- parallel values and qualifiers ---------------------------------------------------------

#: Where a turn moves on to its next parallel part: "10 on weekends, 9 on school nights",
#: "tobi does the dishes and kemi takes the bins out", "5:30 mon to thurs but 3 on fridays".
_PART = re.compile(
    r"[;!?]+|[,:](?!\d)|(?<!\bmr)(?<!\bmrs)(?<!\bms)(?<!\bdr)(?<!\bst)\.(?!\d)|\s[—–-]\s|"
    r"\b(?:and|but|while|whereas|cos|coz|cuz|because|so|though|although)\b",
    re.I,
)
#: Times of day and week are what parallel parts are told apart by, though a paraphrase may add them.
_TIME_QUALIFIERS = frozenset(
    """morning mornings afternoon afternoons evening evenings night nights weekend weekends weekday
    weekdays""".split()  # noqa: SIM905
)
#: A later part that leans on an earlier one: its qualifiers are the earlier part's too.
_POINTS_BACK = frozenset({"them", "too", "also", "either", "same", "well", "both"})
_ORDINALS = frozenset("first second third fourth fifth sixth seventh eighth ninth tenth".split())  # noqa: SIM905
_WRITER = frozenset({"i", "i'm", "im", "me", "my", "mine", "myself"})


@dataclass(frozen=True)
class _Item:
    kind: str  # "n" a number, "d" a weekday, "p" a person, "w" a word
    key: str
    at: int


def _number_key(token: str, following: str) -> str | None:
    if token in _ORDINALS:
        return None
    if token in ("a", "an") and following == "hour":
        return "1"
    if token[0].isdigit() or token in _s._NUMBER_WORDS:
        values = _s._numbers(token)
        if values:
            return f"{min(values):g}"
    return None


def _items(text: str, people: dict[str, str], writer: str | None) -> list[_Item]:
    """What a piece of text holds, in order: numbers, weekdays, people (the writer for "I") and
    words of substance; a name used only to say whose relative someone is ("anaya's brother vir")
    is not that person's."""
    kin = _s._kin_of(text)
    items: list[_Item] = []
    tokens = _s._tokens(text)
    for n, token in enumerate(tokens):
        following = tokens[n + 1] if n + 1 < len(tokens) else ""
        number = _number_key(token, following)
        if number is not None:
            items.append(_Item("n", number, n))
        elif token in WEEKDAY_FORMS:
            items.append(_Item("d", str(WEEKDAY_FORMS[token]), n))
        elif token in people and token not in kin:
            items.append(_Item("p", people[token], n))
        elif token in _WRITER and writer:
            items.append(_Item("p", writer, n))
        elif (
            token not in STOPWORDS
            and token not in _s.FILLER
            and token not in people
            and token not in _s._RELATIONS
            and (token not in _s.GENERIC or token in _TIME_QUALIFIERS)
            and len(token) > 1
            and not token[0].isdigit()
        ):
            items.append(_Item("w", token, n))
    return items


def _same(a: _Item, b: _Item) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind == "w":
        return _s._alike(a.key, b.key)
    if a.kind == "n":
        return _s._number_supported(float(a.key), {float(b.key)})
    return a.key == b.key


def _holds(items: Sequence[_Item], item: _Item) -> bool:
    return any(_same(item, other) for other in items)


@dataclass
class _Part:
    text: str
    items: list[_Item]
    head: list[_Item]  # leading words every part shares ("omar's curfew is")


def _parts(text: str, kind: str, people: dict[str, str], writer: str | None) -> list[_Part]:
    """The parallel parts of ``text`` for values of ``kind``: pieces that hold a value of their
    own. A piece without one belongs to the part before it ("8:30 fridays, and saturdays too"),
    a piece of values only continues the part before ("swim tues and thurs") or, for people,
    opens the next ("leon and jonas both swim"); the words before the first part's value are
    the parts' shared head ("omar's curfew is"), and what trails the last part is read as no
    part's ("..., for both boys")."""
    groups: list[list[str]] = []
    lead: list[str] = []  # before the first value: the head
    between: list[str] = []  # pieces without a value since the last part began
    names: list[str] = []  # a list of people waiting for its predicate
    for piece in (p.strip() for p in _PART.split(text) if p and p.strip()):
        items = _items(piece, people, writer)
        values = [i for i in items if i.kind == kind]
        if not values:
            (between if groups else lead).append(piece)
            continue
        if all(i.kind == kind for i in items):
            if kind == "p":
                names.append(piece)
                continue
            if groups:
                groups[-1] += [*between, piece]
                between = []
                continue
        if groups:
            groups[-1] += between
        groups.append([*lead, *names, piece])
        lead, names, between = [], [], []
    if names and groups:
        groups[-1] += names
    parts = [_Part(" ".join(group), _items(" ".join(group), people, writer), []) for group in groups]
    if len(parts) < 2:
        return parts
    starts = [next((i.at for i in p.items if i.kind == kind), 0) for p in parts]
    lead_in = min(starts[1:])  # "on school nights 9": the value comes after its qualifier
    cut = max(0, starts[0] - lead_in)
    first = parts[0]
    first.head = [i for i in first.items if i.at < cut]
    first.items = [i for i in first.items if i.at >= cut]
    return parts


def _leans_back(part: _Part) -> bool:
    words = _s._raw_words(part.text)
    return any(w in _POINTS_BACK for w in words) or "it" in words[1:] or "that" in words[1:]


def _unique(parts: Sequence[_Part], n: int, item: _Item) -> bool:
    return not any(_holds(p.items, item) or _holds(p.head, item) for m, p in enumerate(parts) if m != n)


def _clauses(summary: str, kind: str, people: dict[str, str], writer: str | None) -> list[list[_Item]]:
    """The summary's clauses that hold a value of ``kind``, a piece without one joined to the
    clause before it (or, at the start, to the one after)."""
    clauses: list[str] = []
    pending: list[str] = []
    for piece in (p.strip() for p in _PART.split(summary) if p and p.strip()):
        if any(i.kind == kind for i in _items(piece, people, writer)):
            clauses.append(" ".join([*pending, piece]))
            pending = []
        elif clauses:
            clauses[-1] += " " + piece
        else:
            pending.append(piece)
    return [_items(clause, people, writer) for clause in clauses]


def _parallel_swap(summary: str, quoted: Sequence[str], people: dict[str, str], writer: str | None) -> str | None:
    """A value of one parallel part put beside the qualifiers of another, and none of its own."""
    for kind in ("n", "d", "p"):
        for text in quoted:
            if _s._CORRECTION.search(text):
                continue  # "mr. cohen, oops I mean mr. katz": a value taken back is no part
            parts = _parts(text, kind, people, writer)
            if len(parts) < 2 or any(_leans_back(p) for p in parts[1:]):
                continue
            for clause in _clauses(summary, kind, people, writer):
                found = _swap_in(clause, parts, kind)
                if found:
                    return found
    return None


def _swap_in(clause: Sequence[_Item], parts: Sequence[_Part], kind: str) -> str | None:
    for value in (i for i in clause if i.kind == kind):
        holding = [n for n, p in enumerate(parts) if _holds(p.items, value)]
        if len(holding) != 1 or any(_holds(p.head, value) for p in parts):
            continue
        own_part = holding[0]
        own: list[int] = []
        other: list[tuple[int, _Item]] = []
        for item in clause:
            if item.kind == kind or item is value:
                continue
            for n, part in enumerate(parts):
                if _holds(part.items, item) and _unique(parts, n, item):
                    if n == own_part:
                        own.append(abs(item.at - value.at))
                    else:
                        other.append((abs(item.at - value.at), item))
        if not other:
            continue
        nearest_other = min(d for d, _ in other)
        own_people = [i for i in parts[own_part].items if i.kind == "p"]
        to_another = any(i.kind == "p" for _, i in other) and not any(_holds(clause, i) for i in own_people)
        if not own or to_another or (len(other) > len(own) and nearest_other < min(own)):
            said = next((i.key for i in parts[own_part].items if i.kind == kind), value.key)
            word = min(other, key=lambda pair: pair[0])[1]
            return f"the turn gives {_shown(word)} another {_KIND_NAMES[kind]} than {_shown(value)} ({said})"
    return None


_KIND_NAMES = {"n": "value", "d": "day", "p": "person"}
_DAY_NAMES = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()  # noqa: SIM905


def _shown(item: _Item) -> str:
    return _DAY_NAMES[int(item.key)] if item.kind == "d" else item.key


# --- "X is the one who ...": a part given to one person alone --------------------------------

_CLEFT = re.compile(
    r"\b(?P<who>[^\W\d_][\w-]*)(?:'s| is| was) the (?:only )?one\b(?P<what>[^,;.!?]*)"
    r"|\bit(?:'s| is| was) (?P<who2>[^\W\d_][\w-]*) (?:who|that)\b(?P<what2>[^,;.!?]*)",
    re.I,
)


def _singled_out(summary: str, quoted: Sequence[str], people: dict[str, str], writer: str | None) -> str | None:
    """"meron's the one with the peanut allergy" gives the allergy to Meron and to no one else; "it's
    bran who can't have chicken" the chicken to Bran."""
    first = _s._person_clauses(summary)[0] if summary.strip() else ""
    ours = _s._subject(first, people, writer, frozenset())
    if not ours or "family" in ours:
        return None
    for text in quoted:
        folded = normalise_for_match(text).replace("’", "'")
        for match in _CLEFT.finditer(folded):
            who = match.group("who") or match.group("who2") or ""
            what = match.group("what") if match.group("who") else match.group("what2")
            if who in STOPWORDS or who in _s._RELATIONS or who in ("it", "that", "this", "he", "she", "they"):
                continue
            opening = _s._person_clauses(folded[: match.start()] + who)[-1]  # "nikos's mum", "it's bran"
            theirs = _s._subject(opening, people, writer, frozenset()) or frozenset({who})
            if _s._compatible(ours, theirs):
                continue
            substance = [w for w in _s._content(_s._tokens(what or "")) if w not in _s.GENERIC]
            said = _s._tokens(first)
            if substance and sum(_s._held(w, said) for w in substance) * 2 >= len(substance):
                return f"the turn says that of {' and '.join(sorted(theirs))} alone, not {' and '.join(sorted(ours))}"
    return None


# --- a pronoun's referent ---------------------------------------------------------------------

_FEMALE = frozenset(
    """mum mom mam mother wife sister daughter grandma gran granny nan nana nanna aunt auntie aunty tia tía niece
    girlfriend stepmom stepmum stepmother abuela oma lola halmeoni nani dadi girl mrs ms miss grandmother
    mother-in-law sister-in-law""".split()  # noqa: SIM905
)
_MALE = frozenset(
    """dad father husband hubby brother son grandad granddad grandpa uncle tio tío nephew boyfriend stepdad
    stepfather abuelo opa lolo boy mr grandfather father-in-law brother-in-law""".split()  # noqa: SIM905
)
_SHE = frozenset({"she", "she's", "shes"})
_HE = frozenset({"he", "he's", "hes"})
_POSSESSORS = frozenset({"my", "his", "her", "their", "our"})


@dataclass
class _Mention:
    who: str
    gender: str | None  # "f", "m" or unknown
    start: int  # word positions in the text
    end: int
    group: int = -1  # people named together share one ("noor and omar": as near as each other)
    here: bool = False  # named in the pronoun's own turn


def _gender_of(word: str) -> str | None:
    forms = {word, _s.ABBREVIATIONS.get(word, word)}
    return "f" if forms & _FEMALE else "m" if forms & _MALE else None


def _mentions(text: str, people: dict[str, str], writer: str | None) -> list[_Mention]:
    """The people ``text`` names, in order, each with the gender its words give: "his sister jisoo"
    (Jisoo, she), "tia rosa" (Rosa, she), "thabo's mum" (Thabo's mother, she), "minho ... his"."""
    out: list[_Mention] = []
    offset = 0
    for clause in _s._person_clauses(text):
        words = _s._raw_words(clause)
        in_clause: list[_Mention] = []
        n = 0
        while n < len(words):
            word = words[n]
            after = [_s.ABBREVIATIONS.get(w, w) for w in words[n + 1 : n + 3]]
            relation = after[0] if after and after[0] in _s._RELATIONS else None
            if word in _POSSESSORS and relation:
                named = len(after) > 1 and words[n + 2] in people
                owner = writer if word == "my" and writer else word
                who = people[words[n + 2]] if named else f"{owner}'s {relation}"
                if word in ("his", "her"):
                    _give_gender(in_clause, "m" if word == "his" else "f")
                width = 3 if named else 2
                in_clause.append(_Mention(who, _gender_of(relation), offset + n, offset + n + width - 1))
                n += width
                continue
            if word in people and people[word] != writer:
                if in_clause and in_clause[-1].end == offset + n - 1 and words[n - 1] in people:
                    in_clause[-1].end += 1  # "lola carmen": one person's two names
                    n += 1
                    continue
                if relation:
                    named = len(after) > 1 and words[n + 2] in people
                    who = people[words[n + 2]] if named else f"{people[word]}'s {relation}"
                    width = 3 if named else 2
                    in_clause.append(_Mention(who, _gender_of(relation), offset + n, offset + n + width - 1))
                    n += width
                    continue
                gender = _gender_of(word) or (_gender_of(words[n - 1]) if n > 0 else None)  # "tia rosa"
                in_clause.append(_Mention(people[word], gender, offset + n, offset + n))
            elif word in ("his", "her", "him"):
                _give_gender(in_clause, "f" if word == "her" else "m")
            elif _gender_of(word) and word in _s._RELATIONS and (n == 0 or words[n - 1] not in people):
                in_clause.append(_Mention(word, _gender_of(word), offset + n, offset + n))
            n += 1
        out.extend(in_clause)
        offset += len(words) + 1
    return out


def _give_gender(before: list[_Mention], gender: str) -> None:
    """A "his" or "her" after one person named in the clause is theirs: "minho starts monday and
    his sister jisoo ..." makes Minho a he."""
    if len(before) == 1 and before[0].gender is None:
        before[0].gender = gender


def _coordinate(text: str, mentions: list[_Mention], first_group: int) -> int:
    """Number the groups of people named together ("noor and omar both need new shoes");
    returns the next free number."""
    words = [w for clause in _s._person_clauses(text) for w in [*_s._raw_words(clause), ""]]
    group = first_group
    for n, mention in enumerate(mentions):
        if n:
            between = words[mentions[n - 1].end + 1 : mention.start]
            if not (between and all(w in ("and", "&", "or", "") for w in between)):
                group += 1
        mention.group = group
    return group + 1


def _referent(mentions: Sequence[_Mention], gender: str) -> _Mention | None:
    """The nearest person named before the pronoun whom it fits; none when that is unclear: two
    named together, or a nearer person of unknown gender before a farther one known to fit."""
    fitting = [m for m in mentions if m.gender in (None, gender)]
    if not fitting:
        return None
    nearest = fitting[-1]
    if any(m.group == nearest.group for m in fitting[:-1]):
        return None
    # "grandad's coming, and so is isla", then "he can't manage long walks": Isla may be no he.
    # In the pronoun's own turn the nearer one holds: "now it's hamza's turn, he gets them fitted".
    if nearest.gender is None and not nearest.here and any(m.gender == gender for m in fitting[:-1]):
        return None
    return nearest


def _pronoun_clause(
    quoted: Sequence[str], quotes: Sequence[str], substance: Sequence[str]
) -> tuple[str, str] | None:
    """(the turn's text before the clause, the pronoun) where the clause of a quote that holds
    most of the summary's ``substance`` (else the one the quote begins in) opens on "he" or "she"."""
    for text in quoted:
        folded = normalise_for_match(text).replace("’", "'")
        for quote in quotes:
            said = normalise_for_match(quote).replace("’", "'").strip(" .!?\"'")
            at = folded.find(said)
            if at < 0 or not said:
                continue
            clauses = [(a, b) for a, b in _clause_spans(folded) if b > at and a < at + len(said)]
            if not clauses:
                continue
            scores = [sum(_s._held(w, _s._tokens(folded[a:b])) for w in substance) for a, b in clauses]
            best = max(scores)
            start, end = clauses[scores.index(best)] if best and best * 2 >= len(substance) else clauses[0]
            words = _s._raw_words(folded[start:end])
            if words[:1] and words[0] in ("now", "then", "and"):
                words = words[1:]
            if words[:1] and words[0] in _SHE | _HE:
                return folded[:start], words[0]
    return None


def _clause_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for match in _s._PERSON_CLAUSE.finditer(text):
        if text[start : match.start()].strip():
            spans.append((start, match.start()))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _wrong_referent(
    summary: str,
    quotes: Sequence[str],
    quoted: Sequence[str],
    before: Sequence[str],
    people: dict[str, str],
    writer: str | None,
) -> str | None:
    """The summary gives the part of a quoted clause that opens on "he" or "she" to someone named
    before it who is not the nearest person the pronoun fits."""
    first = _s._person_clauses(summary)[0] if summary.strip() else ""
    substance = [
        w
        for w in dict.fromkeys(_s._content(_s._tokens(first)))
        if w not in _s.GENERIC and w not in people and w not in _s._RELATIONS
    ]
    found = _pronoun_clause(quoted, quotes, substance)
    if found is None:
        return None
    lead, pronoun = found
    ours = _s._subject(first, people, writer, frozenset())
    if len(ours) != 1 or "family" in ours or writer in ours:
        return None
    gender = "f" if pronoun in _SHE else "m"
    mentions: list[_Mention] = []
    group = 0
    for n, text in enumerate([*before, lead]):
        said = _mentions(text, people, writer)
        group = _coordinate(text, said, group)
        for mention in said:
            mention.here = n == len(before)
        mentions += said
    referent = _referent(mentions, gender)
    if referent is None:
        return None
    (person,) = ours
    if person == referent.who or _s._compatible(ours, frozenset({referent.who})):
        return None
    named_before = {people[w] for text in [*before, lead] for w in _s._raw_words(text) if w in people}
    if person not in named_before:
        return None  # the summary's person is not one the turns name before the pronoun
    return f"'{pronoun}' in the turn is {referent.who}, not {person}"


# --- invented qualifiers ----------------------------------------------------------------------

#: A sex the summary gives (a baby's, a pet's, twins'), and the words of the turns that give it.
_SEX_WORDS = {"girl": "f", "girls": "f", "female": "f", "boy": "m", "boys": "m", "male": "m"}
_SEX_SAID = {
    "f": frozenset({"girl", "girls", "daughter", "daughters", "female", "she", "she's", "her", "hers", "lass", "lasses"}),
    "m": frozenset({"boy", "boys", "son", "sons", "male", "he", "he's", "him", "his", "lad", "lads"}),
}
#: Ranks and superlatives: where someone stands is a value, never a paraphrase of doing well.
RANKS = frozenset(
    """best worst top fastest slowest oldest youngest eldest highest lowest biggest smallest tallest shortest
    strongest smartest brightest won win wins winning winner winners champion champions medal medals gold
    silver bronze distinction trophy record""".split()  # noqa: SIM905
)


def _invented_qualifier(summary: str, pool: Sequence[str]) -> str | None:
    words = _s._tokens(summary)
    said = set(pool)
    for word in dict.fromkeys(words):
        sex = _SEX_WORDS.get(word)
        if sex is not None and not (said & _SEX_SAID[sex]) and not _s._held(word, pool):
            return f"the turns do not say {word}"
        if word in RANKS and not _s._held(word, pool):
            return f"the turns do not say {word}"
    return None


# --- the check --------------------------------------------------------------------------------


def binding_problems(
    claim: _s.Claim,
    quoted: Sequence[_s.SpokenTurn],
    before: Sequence[_s.SpokenTurn],
    summary: str,
    pool: Sequence[str],
) -> list[str]:
    """What the summary binds otherwise than the quoted turns do (``support.check_support``).
    ``before``: the turns said before the quoted ones that the check may read (the context and
    the cited turns before them); ``summary``: the summary with its absolute dates cut; ``pool``:
    the words of the turns that may support it."""
    people, writer = _s._people_and_writer([*claim.names, *claim.known_names], quoted)
    texts = [t.text for t in quoted]
    found = (
        _invented_qualifier(claim.summary, pool)
        or _parallel_swap(summary, texts, people, writer)
        or _singled_out(claim.summary, texts, people, writer)
        or _wrong_referent(claim.summary, claim.quotes, texts, [t.text for t in before], people, writer)
    )
    return [found] if found else []
