"""Word senses, from WordNet 3.0: is a summary's word the turn's word said otherwise, or
another thing of the same kind?

A faithful summary may name a thing by a synonym ("kid" for "child") or by a kind it
belongs to ("dog" for "puppy", "doctor" for "GP"); an unfaithful one swaps it for a
sibling, a thing of the same kind that is not it ("knee" for "hip", "dentist" for
"doctor", "lunch" for "dinner"). Word overlap cannot tell the two apart: both drop one
word of the turn and add one. WordNet's hypernym graph can: a sibling shares a near
ancestor with the turn's word and is neither its synonym nor one of its kinds.

The lexicon is a compact extract of Princeton WordNet 3.0 (nouns and verbs; single-word
lemmas; each lemma's first senses, which WordNet orders by frequency; every synset those
reach by hypernym links), built by ``python -m family_memory_tools.lexicon`` and shipped
with the package (``lexicon/wordnet-senses.json.gz``, about 0.7 MB; its licence beside it).
It is read once per process, on the first question that reaches it (0.25 s measured on a
busy 2-core machine); nothing is fetched at run time. English only: a word WordNet does not
know has no relation, and the check falls back to what it did before.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Literal

#: How many of a lemma's senses count (WordNet lists them most frequent first): enough for
#: "hip" the joint and "class" the lesson, few enough that a rare sense does not make
#: every two words relatives.
SENSES = 6

#: How near the shared ancestor must be, in hypernym links from each word's sense: two
#: links make cousins ("knee joint" and "hip joint" are both synovial joints), not three
#: ("a weekend" and "a fortnight" meet only at "time period").
NEAR = 2

#: How specific the shared ancestor must be, in links from the root of WordNet's noun graph:
#: "synovial joint" (6), "medical practitioner" (7), "vegetable" (6), "Gregorian calendar
#: month" (6) make siblings; "small indefinite quantity" (4: "a bit" and "a little"), "time
#: period" (4) or "event" near the root do not ("a fall" and "a sound" are both events).
SPECIFIC = 6

#: How far a kind may be above the word it stands for ("animal" for "puppy" is three links).
KIND_OF = 6

_POS = ("n", "v")

Relation = Literal["same", "broader", "narrower", "sibling"]


@dataclass(frozen=True)
class Lexicon:
    #: Each synset's hypernyms, by index, as the builder writes them ("12,40"; "" for a root).
    hypernyms: list[str]
    #: Each synset's fewest links from a root, a base-36 character by index.
    depths: str
    #: Each lemma's senses, most frequent first, as the builder writes them: "nouns;verbs", each
    #: a comma-separated list of synset numbers ("12,40;7"); read by ``senses_of``.
    lemmas: dict[str, str]
    #: Lemmas WordNet's tagged corpus uses more often as verbs than as nouns ("support", "sign").
    verbal: frozenset[str]

    def parents(self, synset: int) -> tuple[int, ...]:
        part = self.hypernyms[synset]
        return tuple(int(n) for n in part.split(",")) if part else ()

    def depth(self, synset: int) -> int:
        return int(self.depths[synset], 36)


@cache
def lexicon() -> Lexicon:
    raw = resources.files("family_memory.formation").joinpath("lexicon/wordnet-senses.json.gz").read_bytes()
    data = json.loads(gzip.decompress(raw))
    return Lexicon(
        hypernyms=data["hypernyms"].split(";"),
        depths=data["depths"],
        lemmas=data["lemmas"],
        verbal=frozenset(data["verbal"]),
    )


def _bases(word: str) -> list[str]:
    """The lemmas ``word`` may be an inflection of ("onions" -> "onion", "flying" -> "fly")."""
    word = word.lower()
    out = [word]
    for suffix, replacement in (
        ("ies", "y"),
        ("ied", "y"),
        ("es", ""),
        ("s", ""),
        ("ing", ""),
        ("ing", "e"),
        ("ed", ""),
        ("ed", "e"),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            out.append(word[: -len(suffix)] + replacement)
    if word.endswith(("ying", "ding", "ning", "ting", "ping", "ging", "ming")) and len(word) >= 7:
        stem = word[:-3]
        if stem[-1] == stem[-2]:
            out.append(stem[:-1])  # "running" -> "run"
    return list(dict.fromkeys(out))


def senses_of(lemma: str, pos: str) -> tuple[int, ...]:
    """The synsets of ``lemma`` as a noun (``pos`` "n") or a verb ("v"), most frequent first."""
    entry = lexicon().lemmas.get(lemma)
    if not entry:
        return ()
    part = entry.split(";")[0 if pos == "n" else 1]
    return tuple(int(n) for n in part.split(",")) if part else ()


@lru_cache(maxsize=4096)
def _senses(word: str, pos: str) -> tuple[int, ...]:
    found: list[int] = []
    for base in _bases(word):
        found += senses_of(base, pos)[:SENSES]
    return tuple(dict.fromkeys(found))


@lru_cache(maxsize=8192)
def _ancestors(synset: int, depth: int) -> dict[int, int]:
    """Each ancestor of ``synset`` within ``depth`` hypernym links, with its distance (itself at 0)."""
    lex = lexicon()
    out = {synset: 0}
    frontier = [synset]
    for distance in range(1, depth + 1):
        following: list[int] = []
        for node in frontier:
            for parent in lex.parents(node):
                if parent not in out:
                    out[parent] = distance
                    following.append(parent)
        frontier = following
    return out


@lru_cache(maxsize=16384)
def relation(new: str, said: str) -> Relation | None:
    """How ``new`` (a summary's word) stands to ``said`` (a word of the turns), over the
    words' first senses: ``same`` (a shared sense: "kid", "child"), ``broader`` (``new`` is a
    kind ``said`` belongs to: "dog" for "puppy"), ``narrower`` (the other way), ``sibling``
    (a near shared ancestor and none of these: "knee" for "hip"), or None (unrelated, or a
    word WordNet does not know). A relation by any sense of the words counts; ``same``,
    ``broader`` and ``narrower`` come before ``sibling``, in any part of speech."""
    if new == said:
        return "same"
    pairs = [(_senses(new, pos), _senses(said, pos)) for pos in _POS]
    for ours, theirs in pairs:
        if set(ours) & set(theirs):
            return "same"
    for ours, theirs in pairs:
        if any(o in _ancestors(t, KIND_OF) for t in theirs for o in ours):
            return "broader"
    for ours, theirs in pairs:
        if any(t in _ancestors(o, KIND_OF) for o in ours for t in theirs):
            return "narrower"
    # Siblings are things, named by words mostly used as nouns: verbs' hierarchy is shallow
    # and general ("collect" and "grab" are both "get"), and "supports" is not "a support".
    if not (_thing(new) and _thing(said)):
        return None
    ours, theirs = pairs[0]
    lex = lexicon()
    for o in ours:
        near = _ancestors(o, NEAR)
        for t in theirs:
            if any(lex.depth(a) >= SPECIFIC for a in near.keys() & _ancestors(t, NEAR).keys()):
                return "sibling"
    return None


def _thing(word: str) -> bool:
    """Whether ``word`` names a thing: a noun lemma of it, none of them mostly a verb."""
    bases = [b for b in _bases(word) if senses_of(b, "n")]
    return bool(bases) and not any(b in lexicon().verbal for b in bases)


def swapped(new: Iterable[str], dropped: Sequence[str], summary: Sequence[str]) -> tuple[str, str] | None:
    """The first (turn's word, summary's word) where the summary names a sibling of a word the
    turns said and the summary dropped, with nothing else to account for either: the new
    word is no synonym or kind of any dropped word, and no word of the summary restates the
    dropped one. "hip op" -> "knee operation" gives ("hip", "knee")."""
    for word in new:
        relations = [relation(word, other) for other in dropped]
        if any(r in ("same", "broader") for r in relations):
            continue
        for other, found in zip(dropped, relations, strict=True):
            if found != "sibling":
                continue
            if any(relation(kept, other) in ("same", "broader") for kept in summary if kept != word):
                continue
            return other, word
    return None
