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
