"""A claim's distinctive words, for a forget rule's match by meaning (``forgotten.ClaimMeaning``).

The embedder's cosine reads a whole sentence; it scores "Leo has stopped taking piano"
below "Leo takes piano on Thursdays" and "Maya is allergic to eggs" above it once
"Maya is allergic to peanuts" is forgotten. The words that carry the claim say which way
to lean, so the cosine bar is set by what they show (``TermSignal``):

- **key terms** of a text: its content words beyond the subject's names, the words for
  people (mother, sister), days, months, times and numbers, the stance words (the match is
  polarity-blind), and the generic words a paraphrase adds (the support check's ``GENERIC``);
  compared as the support check compares words (stems, typos, its family-talk synonyms and
  what a diet implies: "vegetarian" holds "meat"), one letter apart ("egs", "eggs"), or as
  words for the same thing (``SAME_THING``: "seeing" someone, "dating", "a couple");
- ``KEPT``: every key term of one forgotten text recurs in the candidate (the thing the
  claim is about is still named: "stopped taking piano", "the no-phones-until-13 rule");
- ``SECOND_VALUE``: both name the same slot that holds many values at once (allergies,
  intolerances, likes, dislikes, fears, friends; the calibration set's labelling rule) and
  the candidate names a value the forgotten texts do not, keeping none of theirs ("allergic
  to sesame" after "allergic to eggs"): a second value, never a restatement by meaning;
- ``SAME_SCHEDULE``: a forgotten schedule said again: both name the same days of the week,
  every key term of the forgotten text recurs, and the candidate adds none of its own, a
  word for a kind of class counting as the class it names (``KINDS``: "a mat class on
  Tuesday and Thursday mornings" after "pilates on Tuesdays and Thursdays at 7 am"; a
  sibling is not its kind: "yoga" is not "pilates");
- ``OTHER_ACTIVITY``: the candidate names a class or activity (``ACTIVITIES``) the forgotten
  texts do not, and none of theirs is in the candidate ("yoga on Saturdays", "guitar on
  Thursdays too" after pilates, piano): another activity, never a restatement by meaning;
- ``RECURS``: a clause of the candidate says the forgotten thing happened again or still
  holds ("again", "still", "once more", "as usual") and says nothing else: each of its key
  terms is a word of the forgotten texts. A later episode of a forgotten condition ("Obinna
  had an accident in the night again" after "Obinna still wets the bed some nights"), not
  something else that happened again ("a nightmare again", "a sickle cell crisis again");
- ``NONE`` otherwise.

Clauses (``claim_parts``) are compared as well as whole texts: "Obinna had an accident in
the night again" restates the forgotten claim even when the rest of the sentence is new.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import StrEnum

from family_memory.formation.relations import ADULT_RELATIONS, CHILD_RELATIONS
from family_memory.formation.support import GENERIC, IMPLIED, _alike, _tokens
from family_memory.formation.text_similarity import STOPWORDS

#: Talk around a claim that says nothing of it.
FILLER = frozenset(
    """please pls fyi btw lol ugh yeah yes okay right know anything something everything nothing stuff again
    another back last next first away off says said tell told think thought guess mean actually basically bit
    lot lots kind sort much many few little already ever even half quarter past someone somebody""".split()  # noqa: SIM905
)
#: Words for people: who a claim is about, not what it says.
PEOPLE = frozenset((*CHILD_RELATIONS, *ADULT_RELATIONS)) | frozenset(
    """mom mum mam dad mother father parents grandma grandpa grandmother grandfather nan nana gran granny
    sister brother wife husband cousin aunt auntie uncle friend teacher coach godmother godfather boss
    classmate kids children family household everyone""".split()  # noqa: SIM905
)
_CALENDAR = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun
    january february march april may june july august september october november december christmas easter am pm
    weekend weekends weeknight weeknights""".split()  # noqa: SIM905
)
#: Slots that hold many values at once: a new value in one is a second claim, not the first one again.
MANY_VALUED: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "allergic allergy allergies",
        "intolerant intolerance intolerances",
        "likes like liked loves love loved enjoys enjoy adores adore",
        "dislikes dislike disliked hates hate hated",
        "scared afraid frightened fear fears terrified phobia",
        "friend friends",
    )
)
#: Family-talk words for the same thing that the support check's lexicon does not hold.
SAME_THING: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "seeing dating together couple boyfriend girlfriend relationship",
        "wets wet wetting bedwetting accident accidents",
        "football soccer footy",
    )
)
#: Words for a kind of class or activity, and the named ones each may stand for ("my mat class"
#: for pilates, "keyboard" for piano). One way only: two named ones under one kind ("yoga",
#: "pilates") are not alike.
KINDS: dict[str, frozenset[str]] = {
    kind: frozenset(named.split())
    for kind, named in (
        ("mat", "pilates yoga barre"),
        ("reformer", "pilates"),
        ("keyboard", "piano"),
        ("keys", "piano"),
        ("instrument", "piano keyboard guitar violin viola cello drums flute clarinet trumpet saxophone"),
        ("music", "piano keyboard guitar violin viola cello drums flute clarinet trumpet saxophone singing"),
        ("dance", "ballet tap jazz salsa hiphop contemporary ballroom zumba"),
        ("martial", "karate judo taekwondo kickboxing jujitsu aikido"),
        ("dojo", "karate judo taekwondo aikido"),
        ("workout", "pilates yoga barre spin spinning zumba crossfit aerobics bootcamp"),
        ("fitness", "pilates yoga barre spin spinning zumba crossfit aerobics bootcamp"),
        ("sport", "football soccer rugby netball basketball tennis cricket hockey swimming gymnastics"),
        ("sports", "football soccer rugby netball basketball tennis cricket hockey swimming gymnastics"),
    )
}
#: The named classes and activities (a new one in a candidate is another activity).
ACTIVITIES = frozenset().union(*KINDS.values()) | frozenset({"chess", "choir", "swim", "swims", "scouts", "brownies"})
#: Words saying a claim happened before and again, or still holds.
RECURRENCE = frozenset({"again", "still"})
_RECURRENCE_PHRASES = re.compile(r"\b(?:once more|as usual|as always|same as (?:always|before|usual))\b", re.I)
#: Days of the week as a family writes them, to the day they name.
WEEKDAYS: dict[str, str] = {
    spelling: day
    for day, spellings in (
        ("monday", "monday mondays mon"),
        ("tuesday", "tuesday tuesdays tue tues"),
        ("wednesday", "wednesday wednesdays wed weds"),
        ("thursday", "thursday thursdays thu thur thurs"),
        ("friday", "friday fridays fri"),
        ("saturday", "saturday saturdays sat"),
        ("sunday", "sunday sundays sun"),
    )
    for spelling in spellings.split()
}
#: Words that make such a slot hold one value ("best friend", "favourite food").
ONE_VALUE = frozenset({"best", "favourite", "favorite", "fave", "only"})
_CLAUSE = re.compile(r"[;:!?]+|,(?!\d)|\.(?!\d)|\s[—–-]\s|\b(?:but|while|whereas|so|because|though|although)\b", re.I)
#: A clause shorter than this is a fragment ("so", "lol"), not a claim.
MIN_CLAUSE_WORDS = 3


class TermSignal(StrEnum):
    KEPT = "kept"
    SECOND_VALUE = "second_value"
    SAME_SCHEDULE = "same_schedule"
    OTHER_ACTIVITY = "other_activity"
    RECURS = "recurs"
    NONE = "none"


def words(text: str) -> list[str]:
    return _tokens(text)


def _cue(word: str) -> bool:
    return any(word in group for group in MANY_VALUED)


#: The slots whose words carry a stance, not a content (the match is polarity-blind).
_STANCES = MANY_VALUED[2:4]


def key_terms(text: str, names: Iterable[str] = ()) -> list[str]:
    """The distinctive words of ``text`` (module docstring), in order, each once."""
    skip = {w for name in names for w in words(name)}
    out: list[str] = []
    for word in words(text):
        if len(word) < 3 or not word.replace("-", "").isalpha() or word in out or word in skip:
            continue
        if word in STOPWORDS or word in GENERIC or word in FILLER or word in PEOPLE or word.rstrip("s") in PEOPLE:
            continue
        if word in _CALENDAR or word.rstrip("s") in _CALENDAR or any(word in group for group in _STANCES):
            continue
        out.append(word)
    return out


def _one_letter_apart(a: str, b: str) -> bool:
    if min(len(a), len(b)) < 3 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swap = len(diff) == 2 and diff[1] == diff[0] + 1 and (a[diff[0]], a[diff[1]]) == (b[diff[1]], b[diff[0]])
        return len(diff) == 1 or swap
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def alike(a: str, b: str) -> bool:
    """One word two ways: as the support check compares words, one letter apart, a compound
    ending in the other ("smartphones", "phones"), or what a diet implies."""
    if _alike(a, b) or _one_letter_apart(a, b):
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 4 and len(long_) >= 6 and long_.endswith(short):
        return True
    if any(a in group and b in group for group in SAME_THING):
        return True
    if b in KINDS.get(a, ()) or a in KINDS.get(b, ()):
        return True
    return b in IMPLIED.get(a, ()) or a in IMPLIED.get(b, ())


def held(word: str, pool: Sequence[str]) -> bool:
    return any(alike(word, other) for other in pool)


def claim_parts(texts: Sequence[str]) -> list[str]:
    """``texts`` and each of their clauses of at least ``MIN_CLAUSE_WORDS`` words, distinct
    (a number's comma or point does not split: "$12,000", "7.10")."""
    out = list(dict.fromkeys(texts))
    for text in texts:
        for clause in _CLAUSE.split(text):
            clause = clause.strip() if clause else ""
            if len(clause.split()) >= MIN_CLAUSE_WORDS and clause not in out:
                out.append(clause)
    return out


def _slots(text: str) -> set[int]:
    said = set(words(text))
    if said & ONE_VALUE:
        return set()
    return {n for n, group in enumerate(MANY_VALUED) if said & group}


def weekdays(text: str) -> frozenset[str]:
    """The days of the week ``text`` names."""
    return frozenset(WEEKDAYS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in WEEKDAYS)


def _says_again(text: str) -> bool:
    return bool(RECURRENCE & set(words(text)) or _RECURRENCE_PHRASES.search(text))


def recurs(forgotten_words: Sequence[str], texts: Sequence[str], names: Iterable[str] = ()) -> bool:
    """Whether a clause of ``texts`` says the forgotten thing happened again or still holds,
    and nothing else: it has key terms, each a word of the forgotten texts."""
    names = list(names)
    for part in claim_parts(texts):
        if not _says_again(part):
            continue
        terms = key_terms(part, names)
        if terms and all(held(w, forgotten_words) for w in terms):
            return True
    return False


def _other_activity(forgotten: Sequence[str], texts: Sequence[str], names: Sequence[str]) -> bool:
    said = [w for text in texts for w in words(text)]
    forgotten_words = [w for text in forgotten for w in words(text)]
    theirs = [w for text in forgotten for w in key_terms(text, names) if w in ACTIVITIES]
    ours = [w for w in key_terms(texts[0], names) if w in ACTIVITIES and not held(w, forgotten_words)]
    return bool(ours and theirs) and not any(held(w, said) for w in theirs)


def term_signal(forgotten: Sequence[str], texts: Sequence[str], names: Iterable[str] = ()) -> TermSignal:
    """What the key terms of ``texts`` (a candidate's summary first, then its quotes) show
    against the ``forgotten`` texts of a rule (module docstring); ``names``: the candidate's
    people, whose names are not key terms."""
    if not forgotten or not texts:
        return TermSignal.NONE
    names = list(names)
    said = [w for text in texts for w in words(text)]
    forgotten_terms = [key_terms(text, names) for text in forgotten]
    forgotten_words = [w for text in forgotten for w in words(text)]
    own = [w for w in key_terms(texts[0], names) if not held(w, forgotten_words)]
    slots = _slots(texts[0])
    same_slot = [terms for text, terms in zip(forgotten, forgotten_terms, strict=True) if _slots(text) & slots]
    values = [w for terms in same_slot for w in terms if not _cue(w)]
    if [w for w in own if not _cue(w)] and values and not any(held(w, said) for w in values):
        return TermSignal.SECOND_VALUE
    if _other_activity(forgotten, texts, names):
        return TermSignal.OTHER_ACTIVITY
    kept = [
        text
        for text, terms in zip(forgotten, forgotten_terms, strict=True)
        if terms and all(held(w, said) for w in terms)
    ]
    days = weekdays(texts[0])
    if days and not own and any(weekdays(text) == days for text in kept):
        return TermSignal.SAME_SCHEDULE
    if kept:
        return TermSignal.KEPT
    if recurs(forgotten_words, texts, names):
        return TermSignal.RECURS
    return TermSignal.NONE
