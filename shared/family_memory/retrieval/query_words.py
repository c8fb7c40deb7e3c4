"""The words of a keyword query, one rule for both index adapters.

A message can be long; both engines search its first distinct words that are
not stop words (and longer than one letter), taken from its first
``MAX_QUERY_CHARS`` characters. The embedded index expands each to its near
neighbours in the family's vocabulary; OpenSearch gets them as the
``multi_match`` text, so a long message stays well under OpenSearch's 1,024
clause limit once fuzziness expands every word. Pure functions, no engine.

The limit counts what OpenSearch's analyzer will make of the words, not the
words: a run of Han, Hiragana, Katakana or Hangul letters has no spaces, so it
is one word here but one token per character there (times four fields). So a
word costs one token per CJK character plus one per stretch of other letters,
the chosen words cost at most ``MAX_QUERY_WORDS`` tokens in all (a CJK run that
would go over is cut to what fits), no word is longer than ``MAX_WORD_CHARS``
and the words hold at most ``MAX_QUERY_TEXT_CHARS`` characters together.
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
#: At most this many analyzer tokens (words, or CJK characters) per query.
MAX_QUERY_WORDS = 24
#: A longer word is cut to this many characters.
MAX_WORD_CHARS = 32
#: The chosen words hold at most this many characters together.
MAX_QUERY_TEXT_CHARS = 200

#: Scripts written without spaces, which an analyzer splits into single characters
#: (Han, Hiragana, Katakana, Hangul syllables and jamo, as they look after NFKD).
_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff"
    "\u3130-\u318f\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff"
    "\uf900-\ufaff\uff66-\uffdc\U00020000-\U0003ffff"
)
#: One analyzer token: a CJK character, or a stretch of other letters and digits.
_ANALYZER_TOKEN = re.compile(f"[{_CJK}]|[^{_CJK}]+")


def words(text: str) -> list[str]:
    """Words as the FTS tokenizer sees them before stemming: case-folded, diacritics removed."""
    if text.isascii():
        # ASCII case-folds to its lower case, and NFKD leaves it as it is, with no combining marks.
        return _TOKEN.findall(text.lower())
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _TOKEN.findall(plain)


def analyzer_tokens(word: str) -> list[str]:
    """What an analyzer makes of one word: each CJK character alone, other letters together."""
    if word.isascii():
        return [word] if word else []  # no CJK character: the word is one stretch
    return _ANALYZER_TOKEN.findall(word)


def query_words(text: str) -> list[str]:
    """The first distinct, non-stop words of ``text``, in order, within the limits of the module."""
    found: list[str] = []
    tokens = chars = 0
    for whole in words(text[:MAX_QUERY_CHARS]):
        word = whole[:MAX_WORD_CHARS]
        if word in found or word in STOPWORDS or len(word) < 2:
            continue
        pieces = analyzer_tokens(word)
        if tokens + len(pieces) > MAX_QUERY_WORDS:
            # Cut a long CJK run to the characters that still fit; then the query is full.
            word = "".join(pieces[: MAX_QUERY_WORDS - tokens])
            pieces = analyzer_tokens(word)
            if len(word) < 2 or word in found:
                break
        if chars + len(word) > MAX_QUERY_TEXT_CHARS:
            break
        found.append(word)
        tokens += len(pieces)
        chars += len(word)
        if tokens >= MAX_QUERY_WORDS:
            break
    return found
