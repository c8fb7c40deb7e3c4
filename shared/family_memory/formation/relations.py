"""Words for how people and pets relate to a household ("daughter", "grandpa", "dog"),
and whether a phrase is such a relation rather than a name.

"my daughter", "our dog", "Lucía's daughter" are *generic*: two families, or two
daughters in one family, can use the same phrase for different people. A name
("Maya", "Pepper") is not. Entity resolution treats the two differently.
"""

from __future__ import annotations

from family_memory.domain.text import normalise_for_match

CHILD_RELATIONS = ("daughter", "son", "kid", "child", "baby", "stepdaughter", "stepson", "boy", "girl")
ADULT_RELATIONS = (
    "wife",
    "husband",
    "partner",
    "mom",
    "mum",
    "mother",
    "dad",
    "father",
    "sister",
    "brother",
    "grandma",
    "grandmother",
    "granny",
    "grandpa",
    "grandfather",
    "aunt",
    "uncle",
    "cousin",
    "niece",
    "nephew",
    "nanny",
    "babysitter",
    "friend",
    "neighbour",
    "neighbor",
)
PETS = (
    "dog",
    "cat",
    "puppy",
    "kitten",
    "bird",
    "hamster",
    "rabbit",
    "bunny",
    "fish",
    "horse",
    "parrot",
    "turtle",
    "tortoise",
    "guinea pig",
    "lizard",
    "snake",
)
RELATION_WORDS = frozenset((*CHILD_RELATIONS, *ADULT_RELATIONS, *PETS))
#: Other words for a relation, to the relation ("ma", "maw" and "mum" are a mother; "nani", "dadi"
#: and "teta" a grandmother): the support check reads them as the relation, and a lookup reads
#: "my mum", "ma maw" as the speaker's mother.
KIN_WORDS: dict[str, str] = {
    "mom": "mother",
    "mum": "mother",
    "mam": "mother",
    "ma": "mother",
    "mama": "mother",
    "mommy": "mother",
    "mummy": "mother",
    "mammy": "mother",
    "dad": "father",
    "da": "father",
    "papa": "father",
    "daddy": "father",
    "pa": "father",
    "nan": "grandmother",
    "nana": "grandmother",
    "nanna": "grandmother",
    "gran": "grandmother",
    "granny": "grandmother",
    "grandma": "grandmother",
    "grandmom": "grandmother",
    "oma": "grandmother",
    "abuela": "grandmother",
    "nani": "grandmother",
    "dadi": "grandmother",
    "lola": "grandmother",
    "halmeoni": "grandmother",
    "babcia": "grandmother",
    "bubbe": "grandmother",
    "grandpa": "grandfather",
    "gramps": "grandfather",
    "granddad": "grandfather",
    "grandad": "grandfather",
    "opa": "grandfather",
    "abuelo": "grandfather",
    "nana-ji": "grandfather",
    "lolo": "grandfather",
    "dziadek": "grandfather",
    "hubby": "husband",
    "wifey": "wife",
    "bro": "brother",
    "sis": "sister",
    "maw": "mother",
    "mither": "mother",
    "amma": "mother",
    "ammi": "mother",
    "faither": "father",
    "teta": "grandmother",
    "jiddo": "grandfather",
    "missus": "wife",
}
_DETERMINERS = frozenset({"my", "our", "his", "her", "their", "your", "the", "a"})


def _plain(word: str) -> str:
    return word.removesuffix("s") if word.endswith("s") and word[:-1] in RELATION_WORDS else word


def is_generic(phrase: str, relationship: str | None = None) -> bool:
    """Whether ``phrase`` names a relation, not a person: "my daughter", "our dog",
    "the kids' nanny", "Lucía's daughter", "daughter" (or ``relationship`` itself)."""
    text = normalise_for_match(phrase)
    words = text.split()
    if not words:
        return False
    relations = set(RELATION_WORDS)
    if relationship:
        relations.add(normalise_for_match(relationship))
    last = _plain(words[-1])
    tail2 = " ".join(words[-2:])
    ends_in_relation = last in relations or tail2 in relations
    if len(words) == 1 or (len(words) == 2 and tail2 in relations):
        return ends_in_relation
    first = words[0]
    possessive = first in _DETERMINERS or first.endswith(("'s", "s'", "’s"))
    return possessive and ends_in_relation


def is_child_relation(relationship: str | None) -> bool:
    """Whether ``relationship`` makes someone a child of the household ("daughter", "sons",
    "youngest son", "my daughter")."""
    if not relationship:
        return False
    words = normalise_for_match(relationship).split()
    return bool(words) and _plain(words[-1]) in CHILD_RELATIONS
