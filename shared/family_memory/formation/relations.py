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
    # Other languages' and Englishes' words for a relation, as families write them (without
    # accents: the check reads "mamó" as "mamo"). Left out: words that are also an English word
    # or a name ("tad", "pop", "tutu", "anna", "ate", "beta", "me"), or another relation in
    # another language ("baba" is a father and, in Slavic, a grandmother; Hindi "mama" an uncle).
    "ouma": "grandmother",  # Afrikaans
    "oupa": "grandfather",
    "tannie": "aunt",
    "oom": "uncle",
    "gogo": "grandmother",  # Zulu, Xhosa
    "ugogo": "grandmother",
    "mkhulu": "grandfather",
    "umkhulu": "grandfather",
    "nain": "grandmother",  # Welsh
    "taid": "grandfather",
    "mamgu": "grandmother",
    "tadcu": "grandfather",
    "mamo": "grandmother",  # Irish
    "daideo": "grandfather",
    "granda": "grandfather",  # Scots, Irish English
    "grannie": "grandmother",
    "gramma": "grandmother",
    "grampa": "grandfather",
    "thatha": "grandfather",  # Tamil, Telugu
    "thaatha": "grandfather",
    "paati": "grandmother",
    "ammamma": "grandmother",
    "appa": "father",  # Tamil, Korean
    "akka": "sister",
    "thambi": "brother",
    "nanaji": "grandfather",  # Hindi, Urdu
    "naniji": "grandmother",
    "dadaji": "grandfather",
    "dadiji": "grandmother",
    "abbu": "father",
    "didi": "sister",
    "bhaiya": "brother",
    "bhai": "brother",
    "chacha": "uncle",
    "chachi": "aunt",
    "mamu": "uncle",
    "mausi": "aunt",
    "masi": "aunt",
    "bua": "aunt",
    "khala": "aunt",
    "khalu": "uncle",
    "khalo": "uncle",
    "phupho": "aunt",
    "nanay": "mother",  # Tagalog
    "inay": "mother",
    "tatay": "father",
    "itay": "father",
    "tita": "aunt",
    "tito": "uncle",
    "kuya": "brother",
    "abuelita": "grandmother",  # Spanish, Portuguese
    "abuelito": "grandfather",
    "tia": "aunt",
    "tio": "uncle",
    "nonna": "grandmother",  # Italian
    "nonno": "grandfather",
    "zia": "aunt",
    "zio": "uncle",
    "tante": "aunt",  # French, German, Dutch
    "oncle": "uncle",
    "onkel": "uncle",
    "mutti": "mother",
    "vati": "father",
    "omi": "grandmother",
    "opi": "grandfather",
    "mormor": "grandmother",  # Swedish, Norwegian, Danish
    "farmor": "grandmother",
    "morfar": "grandfather",
    "farfar": "grandfather",
    "babushka": "grandmother",  # Russian
    "dedushka": "grandfather",
    "dziadzia": "grandfather",  # Polish
    "yiayia": "grandmother",  # Greek
    "yaya": "grandmother",
    "papou": "grandfather",
    "zayde": "grandfather",  # Yiddish
    "zaidy": "grandfather",
    "savta": "grandmother",  # Hebrew
    "saba": "grandfather",
    "harabeoji": "grandfather",  # Korean
    "halmoni": "grandmother",
    "eomma": "mother",
    "umma": "mother",
    "obaachan": "grandmother",  # Japanese
    "ojiichan": "grandfather",
    "okaasan": "mother",
    "otousan": "father",
    "popo": "grandmother",  # Cantonese
    "nainai": "grandmother",  # Mandarin
    "yeye": "grandfather",
    "laolao": "grandmother",
    "ba": "father",  # Vietnamese
    "bibi": "grandmother",  # Swahili
    "babu": "grandfather",
    "maame": "mother",  # Twi
    "nne": "mother",  # Igbo
    "nna": "father",
    "kuia": "grandmother",  # Maori
    "koro": "grandfather",
    "nene": "grandmother",  # Turkish
    "dede": "grandfather",
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
