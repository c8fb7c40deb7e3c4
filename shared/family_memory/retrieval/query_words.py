"""The words of a keyword query, one rule for both index adapters.

A message can be long; both engines search its first ``MAX_QUERY_WORDS``
distinct words that are not stop words (and longer than one letter), taken
from its first ``MAX_QUERY_CHARS`` characters. The embedded index expands each
to its near neighbours in the family's vocabulary; OpenSearch gets them as the
``multi_match`` text, so a long message stays well under OpenSearch's 1,024
clause limit once fuzziness expands every word. Pure functions, no engine.
"""

from __future__ import annotations

import re
import unicodedata

MAX_QUERY_CHARS = 2000
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
# Words too common to say anything about which memory a message is after.
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "ll",
        "re",
        "ve",
        "d",
        "m",
        "o",
        "y",
    ]
)
MAX_QUERY_WORDS = 24


def words(text: str) -> list[str]:
    """Words as the FTS tokenizer sees them before stemming: case-folded, diacritics removed."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _TOKEN.findall(plain)


def query_words(text: str) -> list[str]:
    """The first ``MAX_QUERY_WORDS`` distinct, non-stop words of ``text``, in order."""
    found: list[str] = []
    for word in words(text[:MAX_QUERY_CHARS]):
        if word in found or word in STOPWORDS or len(word) < 2:
            continue
        found.append(word)
        if len(found) == MAX_QUERY_WORDS:
            break
    return found
