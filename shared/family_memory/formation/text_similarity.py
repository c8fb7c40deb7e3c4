"""Text similarity for matching claims: content words and character trigrams.

Deterministic and dependency-free. It is what the reconciler uses until the
search index exists, and what suppression matching always uses: two phrasings
of one claim ("We love Thai food" / "the family loves thai food") score high,
claims that only share a subject score in the middle.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from family_memory.domain.text import normalise_for_match

STOPWORDS = frozenset(
    """a an the and or but if so of to in on at by for with from into about as is are was were be been being am
    i me my we us our you your he him his she her they them their it its this that these those there here
    do does did doing have has had having will would shall should can could may might must
    not no nor very really just also too than then own same such only any each every all some more most
    what which who whom whose when where why how up down out over under again further once""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def _stem(word: str) -> str:
    """A light, predictable stemmer: plurals and common verb endings."""
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_tokens(text: str) -> list[str]:
    """The stemmed content words of ``text``, in order (stopwords dropped)."""
    words = _WORD.findall(normalise_for_match(text))
    return [_stem(w) for w in words if w not in STOPWORDS]


#: Words to their stems (or None for a stopword), for ``content_words``: a family's vocabulary is
#: small beside the texts read, so a word is stemmed once. Started afresh when full.
_STEMS: dict[str, str | None] = {}
_STEMS_KEPT = 65536


def content_words(text: str) -> frozenset[str]:
    """``frozenset(content_tokens(text))``, each word's stem looked up once it is known."""
    stems = _STEMS
    found: set[str] = set()
    for word in _WORD.findall(normalise_for_match(text)):
        try:
            stem = stems[word]
        except KeyError:
            stem = None if word in STOPWORDS else _stem(word)
            if len(stems) >= _STEMS_KEPT:
                stems.clear()
            stems[word] = stem
        if stem is not None:
            found.add(stem)
    return frozenset(found)


def _dice(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def _trigrams(tokens: Iterable[str]) -> set[str]:
    joined = f" {' '.join(tokens)} "
    return {joined[i : i + 3] for i in range(len(joined) - 2)} if len(joined) > 3 else set()


def similarity(a: str, b: str) -> float:
    """0..1: 1.0 for the same words, high for rephrasings, low for unrelated text."""
    norm_a, norm_b = normalise_for_match(a), normalise_for_match(b)
    if not norm_a or not norm_b:
        return 0.0
    if norm_a == norm_b:
        return 1.0
    tokens_a, tokens_b = content_tokens(a), content_tokens(b)
    words = _dice(set(tokens_a), set(tokens_b))
    grams = _dice(_trigrams(tokens_a), _trigrams(tokens_b))
    return round(min(1.0, 0.6 * words + 0.4 * grams), 4)


def contains_all(haystack: str, needle: str) -> bool:
    """Whether every content word of ``needle`` occurs in ``haystack`` (a topic match)."""
    wanted = set(content_tokens(needle))
    return bool(wanted) and wanted <= set(content_tokens(haystack))


_NEGATIONS = frozenset(
    "not no never nor cannot none nobody nothing without hate hates hated dislike dislikes disliked".split()  # noqa: SIM905
)


def negated(text: str) -> bool:
    """Whether ``text`` says something is not so ("does not like", "can't", "never", "hates").
    Two claims of opposite polarity are never the same claim, however many words they share."""
    words = _WORD.findall(normalise_for_match(text))
    return any(w in _NEGATIONS or w.endswith("n't") for w in words)
