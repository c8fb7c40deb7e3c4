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
from family_memory.formation.calendar_values import PARTS_OF_DAY
from family_memory.formation.dates import WEEKDAY_FORMS
from family_memory.formation.text_similarity import STOPWORDS

# --- parallel values and qualifiers ---------------------------------------------------------

#: Where a turn moves on to its next parallel part: "10 on weekends, 9 on school nights",
#: "tobi does the dishes and kemi takes the bins out", "5:30 mon to thurs but 3 on fridays".
_PART = re.compile(
    r"[;!?]+|[,:](?!\d)|(?<!\bmr)(?<!\bmrs)(?<!\bms)(?<!\bdr)(?<!\bst)\.(?!\d)|\s[—–-]\s|"
    r"\b(?:and|but|while|whereas|cos|coz|cuz|because|so|though|although|plus|then)\b",
    re.I,
)
#: Times of the week and meals are what parallel parts are told apart by, though a paraphrase may
#: add them ("dad does breakfast, mum does dinner"); parts of the day are values of their own.
_TIME_QUALIFIERS = frozenset("weekend weekends weekday weekdays breakfast lunch dinner".split())  # noqa: SIM905
#: Words that tell no part from another: units of the clock, joining words.
_NO_QUALIFIER = frozenset({"am", "pm", "o'clock", "oclock", "plus", "then", "instead", "now", "still", "each"})
#: A later part that leans on an earlier one: its qualifiers are the earlier part's too.
_POINTS_BACK = frozenset({"them", "too", "also", "either", "same"})
_ORDINALS = frozenset("first second third fourth fifth sixth seventh eighth ninth tenth".split())  # noqa: SIM905
_WRITER = frozenset({"i", "i'm", "im", "me", "my", "mine", "myself"})
_MONTHS = frozenset(
    """jan january feb february mar march apr april may jun june jul july aug august sep sept september oct
    october nov november dec december""".split()  # noqa: SIM905
)
#: A person opens the part they are the subject of: "tobi does ...", "her brother vir does ...".
_SUBJECT_WITHIN = 2


@dataclass(frozen=True)
class _Item:
    kind: str  # "n" a number, "d" a weekday, "t" a part of the day, "p" a person, "w" a word
    key: str
    at: int


def _number_key(tokens: Sequence[str], n: int) -> str | None:
    """A number the word states, if it is a quantity, a price or a time: not an ordinal, not a
    day of the month or a year ("june 20", "the 4th", "2026"; dates are checked apart), not the
    "one" that stands for a thing ("the evening one", "their own one", "one of")."""
    word = tokens[n]
    following = tokens[n + 1] if n + 1 < len(tokens) else ""
    if word in ("a", "an") and following == "hour":
        return "1"
    if word in ("midnight", "noon", "midday"):
        return "12"  # "home by 10 on school nights, weekends it's 12": midnight is the 12
    if word in _ORDINALS or re.fullmatch(r"\d+(?:st|nd|rd|th)", word):
        return None
    if word == "one" and (not following or following in STOPWORDS):
        return None
    if not (word[0].isdigit() or word in _s._NUMBER_WORDS):
        return None
    if re.fullmatch(r"(?:19|20)\d\d", word):
        return None
    if {tokens[n - 1] if n else "", following} & _MONTHS:
        return None
    clock = re.fullmatch(r"([01]\d|2[0-3])([0-5]\d)", word)
    if clock and n and re.fullmatch(_s.TIME_LEAD, tokens[n - 1]):  # "cca ends 1530": 3:30 pm
        return f"{int(clock.group(1)) + int(clock.group(2)) / 60:g}"
    dotted = _s._DOT_TIME.fullmatch(word)
    if dotted:  # "6.40" is keyed as the time "6:40" is, so either spelling finds the other
        return f"{int(dotted.group(1)) + int(dotted.group(2)) / 60:g}"
    values = _s._numbers(word)
    return f"{min(values):g}" if values else None


def _tokens(text: str, people: dict[str, str]) -> list[str]:
    """The check's tokens, a name kept as the name where it is also a typed form ("jun" is June
    as a month, and Jun as a boy of the family)."""
    out: list[str] = []
    for raw in _s._TOKEN.findall(normalise_for_match(text)):
        word = raw.replace("’", "'").removesuffix("'s")
        out += [word] if word in people else _s._tokens(word)
    return out


_OPENING_PREPOSITIONS = frozenset("in at on for during round around".split())  # noqa: SIM905
#: A relative who opens a piece is its subject: "dad does breakfast, mum does dinner".
_OPENING_KIN = frozenset(
    """mum mom mam mummy mommy mother dad daddy father nana nan gran granny grandma grandad grandpa
    grandmother grandfather auntie aunt uncle""".split()  # noqa: SIM905
)


def _items(text: str, people: dict[str, str], writer: str | None) -> list[_Item]:
    """What a piece of text holds, in order: numbers, weekdays, parts of the day, people (the
    writer for "I"; a parent or grandparent named by kin alone, "dad does breakfast") and words
    of substance; a name used only to say whose relative someone is ("anaya's brother vir") is
    not that person's."""
    kin = _s._kin_of(text)
    items: list[_Item] = []
    tokens = _tokens(text, people)
    # A piece that opens on where or when ("in our house dad does breakfast") opens on its subject after it.
    opener = 0
    if tokens[:1] and tokens[0] in _OPENING_PREPOSITIONS:
        opener = next((n for n, t in enumerate(tokens[:5]) if t in people or t in _OPENING_KIN), 0)
    for n, token in enumerate(tokens):
        number = _number_key(tokens, n)
        if number is not None:
            items.append(_Item("n", number, n))
        elif token in WEEKDAY_FORMS:
            items.append(_Item("d", str(WEEKDAY_FORMS[token]), n))
        elif token in PARTS_OF_DAY:
            items.append(_Item("t", PARTS_OF_DAY[token], n))
        elif token in people and token not in kin:
            items.append(_Item("p", people[token], n - opener if n == opener else n))
        elif token in _WRITER and writer:
            items.append(_Item("p", writer, n))
        elif token in _OPENING_KIN and (n == opener or (n == opener + 1 and tokens[n - 1] in ("my", "our", "the"))):
            items.append(_Item("p", "~" + _s.ABBREVIATIONS.get(token, token), n - opener))
        elif (
            token not in STOPWORDS
            and token not in _s.FILLER
            and token not in _NO_QUALIFIER
            and token not in _MONTHS
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


def _values(items: Sequence[_Item], kind: str) -> list[_Item]:
    """The values of ``kind`` a piece holds; a person only as the one the piece opens on."""
    return [i for i in items if i.kind == kind and (kind != "p" or i.at <= _SUBJECT_WITHIN)]


@dataclass
class _Part:
    items: list[_Item]
    head: list[_Item]  # what the first part says before its value, which every part shares


def _only_names(piece: str, people: dict[str, str]) -> bool:
    words = _s._raw_words(piece)
    return bool(words) and all(w in people or w in ("and", "&", "or") for w in words)


def _own_subject(piece: str, items: Sequence[_Item]) -> bool:
    """A piece that opens on someone of its own ("adaeze takes the bus", "she's back at 4")."""
    words = _s._raw_words(piece)
    return bool(_values(items, "p")) or bool(words[:1] and words[0] in _OPENING_PRONOUNS)


_OPENING_PRONOUNS = frozenset("he he's she she's they they're we we're i i'm im it it's you u".split())  # noqa: SIM905


def _parts(text: str, kind: str, people: dict[str, str], writer: str | None) -> list[_Part]:
    """The parallel parts of ``text`` for values of ``kind``: the pieces that hold a value of
    their own. What comes before the first part is every part's (the head: "screen time is ..."),
    and so is what the first part says before its value when the later parts open on theirs
    ("omar's curfew is 10 on weekends, 9 on school nights"); a list of names opens the part after
    it ("leon and jonas both swim") and a piece of values only continues the part before ("swim
    tues and thurs"). A piece without a value between two parts is the earlier part's ("dylan's
    the early bird, up at 5, but ffion ...") unless it opens on someone of its own ("adaeze takes
    the school bus home, she's back around 4"); what trails the last part is no part's ("..., for
    both boys")."""
    head: list[str] = []
    groups: list[list[str]] = []
    between: list[str] = []
    names: list[str] = []
    for piece in (p.strip() for p in _PART.split(text) if p and p.strip()):
        items = _items(piece, people, writer)
        values = _values(items, kind)
        if not values:
            if not groups:
                head.append(piece)
            elif not _own_subject(piece, items) and not between:
                between.append(piece)
            else:
                between.append("")  # a break: what follows is no longer the part's
            continue
        if kind == "p" and _only_names(piece, people):
            names.append(piece)
            continue
        if kind != "p" and all(i.kind == kind for i in items) and groups:
            groups[-1].append(piece)
            continue
        if groups and between and between[0]:
            groups[-1].append(between[0])
        between = []
        groups.append([*names, piece])
        names = []
    if names and groups:
        groups[-1] += names
    parts = [_Part(_items(" ".join(group), people, writer), []) for group in groups]
    shared = _items(" ".join(head), people, writer)
    for part in parts[:1]:
        part.head = shared
    # Later parts that open on their value leave out what the first says before its own:
    # "omar's curfew is 10 on weekends, 9 on school nights" (not "the rent's 1,450 and the
    # parking space is another 90").
    if len(parts) > 1 and all(p.items and p.items[0].kind == kind for p in parts[1:]):
        first = parts[0]
        at = min((i.at for i in _values(first.items, kind)), default=0)
        first.head += [i for i in first.items if i.at < at]
        first.items = [i for i in first.items if i.at >= at]
    return parts


def _unique(parts: Sequence[_Part], n: int, item: _Item) -> bool:
    return not any(_holds(p.items, item) or _holds(p.head, item) for m, p in enumerate(parts) if m != n)


def _clauses(summary: str, kind: str, people: dict[str, str], writer: str | None) -> list[list[_Item]]:
    """The summary's clauses that hold a value of ``kind``; a piece without one opens the first
    ("Rocky has bad hips, so he is walked just once a day"), continues the one before unless it
    opens on someone of its own, and is else no clause's."""
    clauses: list[str] = []
    pending: list[str] = []
    for piece in (p.strip() for p in _PART.split(summary) if p and p.strip()):
        if kind == "p" and _only_names(piece, people):
            pending.append(piece)  # "Aoife and Cian walk to school"
        elif _values(items := _items(piece, people, writer), kind):
            clauses.append(" ".join([*pending, piece]))
            pending = []
        elif not clauses:
            pending.append(piece)
        elif not _own_subject(piece, items):
            clauses[-1] += " " + piece  # "Ffion is the early bird, up at 5"
    return [_items(clause, people, writer) for clause in clauses]


def _parallel_swap(summary: str, quoted: Sequence[str], people: dict[str, str], writer: str | None) -> str | None:
    """A value of one parallel part put beside the qualifiers of another, and none of its own."""
    for kind in ("n", "d", "t", "p"):
        for text in quoted:
            if _s._CORRECTION.search(text):
                continue  # "mr. cohen, oops I mean mr. katz": a value taken back is no part
            parts = _parts(text, kind, people, writer)
            words = [_s._raw_words(" ".join(i.key for i in p.items)) for p in parts[1:]]
            if len(parts) < 2 or any(set(w) & _POINTS_BACK for w in words) or _points_back(text, kind):
                continue
            for clause in _clauses(summary, kind, people, writer):
                found = _swap_in(clause, parts, kind)
                if found:
                    return found
    return None


def _points_back(text: str, kind: str) -> bool:
    """A later piece leans on an earlier one: "omar's fine with it", "she does too"."""
    for piece in _PART.split(text)[1:]:
        words = _s._raw_words(piece or "")
        after_first = (piece or "").strip().split(None, 1)[1:]  # "it" opening a piece is its subject
        if set(words) & _POINTS_BACK or (after_first and _POINTING_IT.search(after_first[0])):
            return True
    return False


#: "it" or "that" standing for a thing said before ("omar's fine with it", "she hates that"), not
#: the "it's" / "that's" of a value or a comment ("weekends it's 12", "fam that's long").
_POINTING_IT = re.compile(r"\b(?:it|that)\b(?!['’]s\b|\s+(?:is|was)\b)", re.I)


def _swap_in(clause: Sequence[_Item], parts: Sequence[_Part], kind: str) -> str | None:
    values = _values(clause, kind) if kind == "p" else [i for i in clause if i.kind == kind]
    holders = {n for v in values for n, p in enumerate(parts) if _holds(p.items, v)}
    if len(holders) != 1:
        return None  # the clause speaks of several parts at once, or of none
    own_part = holders.pop()
    # The turn tells its parts apart by words of their own; without them there is nothing to swap.
    own_words = [i for i in parts[own_part].items if i.kind != kind and _unique(parts, own_part, i)]
    if not own_words:
        return None
    for value in values:
        if any(_holds(p.head, value) for p in parts):
            continue
        own: list[int] = []
        other: list[tuple[int, _Item]] = []
        for item in clause:
            if item.kind == kind:
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
        to_another = (
            bool(own_people) and any(i.kind == "p" for _, i in other) and not any(_holds(clause, i) for i in own_people)
        )
        if not own or to_another or (len(other) > len(own) and nearest_other < min(own)):
            word = min(other, key=lambda pair: pair[0])[1]
            return f"the turn pairs {_shown(value)} with other words than {_shown(word)}"
    return None


_DAY_NAMES = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()  # noqa: SIM905


def _shown(item: _Item) -> str:
    return _DAY_NAMES[int(item.key)] if item.kind == "d" else item.key.removeprefix("~")


# --- "X is the one who ...": a part given to one person alone --------------------------------

_CLEFT = re.compile(
    r"\b(?P<who>[^\W\d_][\w-]*)(?:'s| is| was) the (?:only )?one\b(?P<what>[^,;.!?]*)"
    r"|\bit(?:'s| is| was) (?P<who2>[^\W\d_][\w-]*) (?:who|that)\b(?P<what2>[^,;.!?]*)",
    re.I,
)


def _singled_out(summary: str, quoted: Sequence[str], people: dict[str, str], writer: str | None) -> str | None:
    """ "meron's the one with the peanut allergy" gives the allergy to Meron and to no one else; "it's
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
    start: int  # word positions in the clause
    end: int
    subject: bool  # the person a piece of the turn opens on ("mei babysits ..."), not an object
    possessor: str | None = None  # whose relative an unnamed one is ("thabo's mum": thabo)
    named: bool = True
    group: int = -1  # people named together share one ("noor and omar": as near as each other)
    here: bool = False  # named in the pronoun's own turn


#: Words a piece's subject may follow: "now it's hamza's turn", "tia rosa", "so is isla" is no subject.
_BEFORE_SUBJECT = frozenset("now then it its well oh also tia tía tio tío auntie aunt uncle mr mrs ms dr nana".split())  # noqa: SIM905


def _gender_of(word: str) -> str | None:
    forms = {word, _s.ABBREVIATIONS.get(word, word)}
    return "f" if forms & _FEMALE else "m" if forms & _MALE else None


def _mentions(text: str, people: dict[str, str], writer: str | None, first_group: int = 0) -> list[_Mention]:
    """The people ``text`` names, in order, each with the gender its words give: "his sister jisoo"
    (Jisoo, she), "tia rosa" (Rosa, she), "thabo's mum" (Thabo's mother, she), "minho ... his".
    A relative named only by a possessive pronoun ("my mum", "his doctor") is no one to bind to."""
    out: list[_Mention] = []
    group = first_group
    for clause in _s._person_clauses(text):
        words: list[str] = []
        starts: list[int] = []
        for piece in _PART.split(clause):
            starts.append(len(words))
            words += _s._raw_words(piece or "")
        in_clause: list[_Mention] = []
        n = 0
        while n < len(words):
            word = words[n]
            piece_start = max(s for s in starts if s <= n)
            opening = all(w in _BEFORE_SUBJECT for w in words[piece_start:n])
            after = [_s.ABBREVIATIONS.get(w, w) for w in words[n + 1 : n + 3]]
            relation = after[0] if after and after[0] in _s._RELATIONS else None
            found: _Mention | None = None
            if word in _POSSESSORS and relation:
                if word in ("his", "her"):
                    _give_gender(in_clause, "m" if word == "his" else "f")
                named = len(after) > 1 and words[n + 2] in people
                if named:
                    found = _Mention(people[words[n + 2]], _gender_of(relation), n, n + 2, opening)
                n += 3 if named else 2
            elif word in people and people[word] != writer:
                if in_clause and in_clause[-1].end == n - 1 and words[n - 1] in people:
                    in_clause[-1].end = n  # "lola carmen": one person's two names
                    n += 1
                    continue
                if relation:
                    named = len(after) > 1 and words[n + 2] in people
                    who = people[words[n + 2]] if named else f"{people[word]}'s {relation}"
                    possessor = None if named else people[word]
                    width = 3 if named else 2
                    found = _Mention(who, _gender_of(relation), n, n + width - 1, opening, possessor, named)
                    n += width
                else:
                    gender = _gender_of(word) or (_gender_of(words[n - 1]) if n > 0 else None)  # "tia rosa"
                    found = _Mention(people[word], gender, n, n, opening)
                    n += 1
            elif word in ("his", "her", "him"):
                _give_gender(in_clause, "f" if word == "her" else "m")
                n += 1
            elif _gender_of(word) and word in _s._RELATIONS and (n == 0 or words[n - 1] not in people):
                found = _Mention(word, _gender_of(word), n, n, opening, None, False)
                n += 1
            else:
                n += 1
            if found is None:
                continue
            previous = in_clause[-1] if in_clause else None
            # "noor and omar", "my brother andrés and his wife carmen": the piece before was only a name.
            together = (
                previous is not None
                and found.start in starts
                and previous.start in starts
                and starts[starts.index(previous.start) + 1 :][:1] == [previous.end + 1]
            )
            if not together:
                group += 1
            found.group = group
            in_clause.append(found)
        out.extend(in_clause)
    return out


def _give_gender(before: list[_Mention], gender: str) -> None:
    """A "his" or "her" after one person named in the clause is theirs: "minho starts monday and
    his sister jisoo ..." makes Minho a he."""
    if len(before) == 1 and before[0].gender is None:
        before[0].gender = gender


def _referent(mentions: Sequence[_Mention], gender: str) -> _Mention | None:
    """The nearest person named before the pronoun whom it fits, a subject before an object ("tia
    rosa is picking up lucas today and he ...": Lucas, as Rosa is a she; "nana lesieli has losa
    after school. she lives ...": Lesieli); none when that is unclear: two named together, or a
    nearer person of unknown gender before a farther one known to fit."""
    fitting = [m for m in mentions if m.gender in (None, gender)]
    if not fitting:
        return None
    # A subject before an object of the same turn ("the dog is moose ... he's on fluoxetine": Moose).
    subjects = [m for m in fitting if m.subject and m.here == fitting[-1].here]
    if subjects:
        fitting = [m for m in fitting if m.here != fitting[-1].here] + subjects
    nearest = fitting[-1]
    if any(m.group == nearest.group for m in fitting[:-1]):
        return None
    # "grandad's coming ... and isla", then "he can't manage long walks": Isla may be no he.
    # In the pronoun's own turn the nearer one holds: "now it's hamza's turn, he gets them fitted".
    if nearest.gender is None and not nearest.here and any(m.gender == gender for m in fitting[:-1]):
        return None
    return nearest


def _pronoun_clause(quoted: Sequence[str], quotes: Sequence[str], substance: Sequence[str]) -> tuple[str, str] | None:
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
    before: Sequence[_s.SpokenTurn],
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
    opening = re.match(r"\s*[^\W\d_][\w-]*['’]s ([\w-]+)", first)
    if opening and opening.group(1).lower() not in _s._RELATIONS:
        return None  # "Moose's vet is Dr. Hollett": the subject is the vet, whom the summary names
    ours = _s._subject(first, people, writer, frozenset())
    if len(ours) != 1 or "family" in ours or writer in ours:
        return None
    gender = "f" if pronoun in _SHE else "m"
    # The turn before counts only when the same family member goes on ("riku works weekends ...
    # and mei babysits", then "she gets about 1,500 yen an hour"): after an assistant's turn or
    # further back, who "she" is was settled in words the check does not read.
    earlier = [before[-1].text] if before and before[-1].role == "user" else []
    mentions: list[_Mention] = []
    for n, text in enumerate([*earlier, lead]):
        said = _mentions(text, people, writer, max((m.group for m in mentions), default=0) + 1)
        for mention in said:
            mention.here = n == len(earlier)
        mentions += said
    referent = _referent(mentions, gender)
    if referent is None:
        return None
    (person,) = ours
    if person == referent.who or _s._compatible(ours, frozenset({referent.who})):
        return None
    named_before = {people[w] for text in [*earlier, lead] for w in _s._raw_words(text) if w in people}
    if person not in named_before:
        return None  # the summary's person is not one the turns name before the pronoun
    if not referent.named and referent.possessor != person:
        return None  # "my dad ... he moved in": the summary may name him ("Stan")
    return f"'{pronoun}' in the turn is {referent.who}, not {person}"


# --- invented qualifiers ----------------------------------------------------------------------

#: A sex the summary gives (a baby's, a pet's, twins'), and the words of the turns that give it.
_SEX_WORDS = {"girl": "f", "girls": "f", "female": "f", "boy": "m", "boys": "m", "male": "m"}
_SEX_SAID = {
    "f": frozenset(
        {"girl", "girls", "daughter", "daughters", "female", "she", "she's", "her", "hers", "lass", "lasses"}
    ),
    "m": frozenset({"boy", "boys", "son", "sons", "male", "he", "he's", "him", "his", "lad", "lads"}),
}
#: Ranks and superlatives: where someone stands is a value, never a paraphrase of doing well.
RANKS = frozenset(
    """best worst top fastest slowest oldest youngest eldest highest lowest biggest smallest tallest shortest
    strongest smartest brightest won win wins winning winner winners champion champions medal medals gold
    silver bronze distinction trophy record""".split()  # noqa: SIM905
)


#: A medal the turns name is a win: "got silver in the olympiad" is "won a silver medal".
_MEDALS = frozenset({"gold", "silver", "bronze"})
_WON = frozenset({"won", "win", "wins", "winning", "medal", "medals"})


def _invented_qualifier(summary: str, pool: Sequence[str]) -> str | None:
    words = _s._tokens(summary)
    said = set(pool)
    for word in dict.fromkeys(words):
        if _s._capitalised(word, summary) or (word in _WON and said & _MEDALS):
            continue  # "the TOP tour fee", "Top Gear": a name
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
    people, writer = _s._people_and_writer([*claim.names, *claim.known_names], quoted, claim.aliases)
    texts = [t.text for t in quoted]
    found = (
        _invented_qualifier(claim.summary, pool)
        or _parallel_swap(summary, texts, people, writer)
        or _singled_out(claim.summary, texts, people, writer)
        or _wrong_referent(claim.summary, claim.quotes, texts, before, people, writer)
    )
    return [found] if found else []
