"""Word patterns read by a text's words: the answer of ``pattern.search``, without trying the
pattern at every character of the text.

The must-know pass reads many patterns of one shape, ``\\b(?:alternative|alternative|...)\\b``
with ``re.IGNORECASE``, each alternative starting with a letter or a digit ("allerg\\w*",
"nuts?", "pick ?up", "can (?!you\\b)[\\w'-]+ (?:have|eat|drink)"). Such a pattern can only match
where a word (a run of ``\\w``) starts, and the word it starts on says a great deal: a word of
the alternatives ("nuts") is a match there; a word that starts as one of them ("allergic" for
"allerg\\w*") is too; a word that begins a longer alternative ("pick", "can") may be, and the
pattern itself is tried there to say (``pattern.match`` at that position, the answer ``search``
would give). Any other word cannot start a match. So a text's answer is a few set look-ups per
word, each distinct word classified once (``PatternSet``), and the pattern runs only where a
word may begin a longer alternative.

Exact, not approximate: the words are compared in lower case, which is what ``re.IGNORECASE``
does for ASCII letters; the four characters it folds otherwise (``FOLDS_TO_ASCII``: the dotted
and dotless i, the long s, the Kelvin sign) send a text to the pattern's own ``search``. A
pattern whose alternatives this reading cannot classify is searched as it is. Tests check both
ways agree on texts built from every alternative (``tests/unit/test_retrieval_units.py``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Characters outside ASCII that re.IGNORECASE matches to an ASCII letter, or whose lower case
#: holds one (a test recomputes them from every code point).
FOLDS_TO_ASCII = frozenset("\u0130\u0131\u017f\u212a")
_RUN = re.compile(r"\w+")
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_QUANTIFIERS = frozenset("?*+{")
#: Literal characters that end a word: after one, the word an alternative starts on is its letters.
_WORD_ENDS = frozenset(" -&'")
_SIMPLE_GROUP = re.compile(r"\(\?:([a-z0-9]+(?:\|[a-z0-9]+)*)\)")
#: How many distinct words a set keeps classified before it starts afresh.
WORDS_KEPT = 65536


def alternatives(source: str) -> list[str] | None:
    """The top-level alternatives of ``\\b(?:a|b|...)\\b``; None for a pattern of another shape."""
    if not (source.startswith(r"\b(?:") and source.endswith(r")\b")):
        return None
    body = source[5:-3]
    found: list[str] = []
    depth, start, n, in_class = 0, 0, 0, False
    while n < len(body):
        char = body[n]
        if char == "\\":
            n += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return None  # the outer group closed before the end: not one alternation
        elif char == "|" and depth == 0:
            found.append(body[start:n])
            start = n + 1
        n += 1
    if depth != 0 or in_class:
        return None
    found.append(body[start:])
    return found


def _expand(alternative: str) -> set[str] | None:
    """Every text of an alternative made only of letters, optional letters and optional groups of
    words ("nuts?", "grocer(?:y|ies)", "tomato(?:es)?"); None for any other."""
    texts = {""}
    n = 0
    while n < len(alternative):
        char = alternative[n]
        if char in _WORD_CHARS:
            options, n = [char], n + 1
        elif (group := _SIMPLE_GROUP.match(alternative, n)) is not None:
            options, n = group.group(1).split("|"), group.end()
        else:
            return None
        if n < len(alternative) and alternative[n] == "?":
            options, n = [*options, ""], n + 1
        elif n < len(alternative) and alternative[n] in _QUANTIFIERS:
            return None
        texts = {text + option for text in texts for option in options}
        if len(texts) > 64:
            return None
    return texts


def _leads(alternative: str) -> tuple[set[str], set[str], bool] | None:
    """What the first word of any match of ``alternative`` must be: (words it equals, words it
    starts with, whether it may start with a digit); None when that cannot be read."""
    n = 0
    while n < len(alternative) and alternative[n] in _WORD_CHARS:
        n += 1
    if n < len(alternative) and alternative[n] in _QUANTIFIERS:
        n -= 1  # "minds? ...": the last letter is optional
    if n > 0:
        letters, rest = [alternative[:n]], alternative[n:]
    elif (group := _SIMPLE_GROUP.match(alternative)) is not None:
        letters, rest = group.group(1).split("|"), alternative[group.end() :]
        if rest[:1] in _QUANTIFIERS:
            return None
    elif alternative.startswith("\\d"):
        return set(), set(), True
    else:
        return None
    # After a literal character that is no letter ("pick up", "a&e") or a word boundary, unless
    # that is optional ("pick ?up", "check-?up"), the word is the letters themselves.
    if rest.startswith("\\b"):
        ends_word = rest[2:3] not in _QUANTIFIERS
    else:
        ends_word = rest[:1] in _WORD_ENDS and rest[1:2] not in _QUANTIFIERS
    return (set(letters), set(), False) if ends_word else (set(), set(letters), False)


@dataclass(frozen=True, slots=True)
class _Alternation:
    """One pattern, its alternatives read: ``matches`` / ``prefixes``: a word equal to / starting
    with one is a match where it starts; ``maybe`` / ``maybe_prefixes`` / ``digit``: a word equal
    to / starting with one (or starting with anything but a letter) may begin one; ``general``:
    not read, searched as it is."""

    pattern: re.Pattern[str]
    matches: frozenset[str]
    prefixes: tuple[str, ...]
    maybe: frozenset[str]
    maybe_prefixes: tuple[str, ...]
    digit: bool
    general: bool

    @classmethod
    def read(cls, pattern: re.Pattern[str]) -> _Alternation:
        found = alternatives(pattern.pattern) if pattern.flags == re.IGNORECASE | re.UNICODE else None
        matches: set[str] = set()
        prefixes: set[str] = set()
        maybe: set[str] = set()
        maybe_prefixes: set[str] = set()
        digit = False
        for alternative in found or []:
            if (texts := _expand(alternative)) is not None and "" not in texts:
                matches |= texts
            elif alternative.endswith(r"\w*") and (texts := _expand(alternative[:-3])) is not None and "" not in texts:
                prefixes |= texts
            elif (leads := _leads(alternative)) is not None:
                maybe |= leads[0]
                maybe_prefixes |= leads[1]
                digit = digit or leads[2]
            else:
                found = None
                break
        return cls(
            pattern,
            frozenset(matches),
            tuple(sorted(prefixes)),
            frozenset(maybe),
            tuple(sorted(maybe_prefixes)),
            digit,
            general=found is None,
        )

    def code(self, word: str) -> int:
        """2 when a match starts on ``word`` (in lower case), 1 when one may, 0 when none can."""
        if word in self.matches or (self.prefixes and word.startswith(self.prefixes)):
            return 2
        if word in self.maybe or (self.maybe_prefixes and word.startswith(self.maybe_prefixes)):
            return 1
        return 1 if self.digit and not ("a" <= word[0] <= "z") else 0


class TextWords:
    """A text's words (runs of ``\\w``) in lower case, and what each pattern of a set can do
    there: bit i of ``matched`` / ``maybe`` is set when a word of the text starts / may start a
    match of the set's i-th pattern (``codes``: each word's bits). ``words`` is None for a text
    read by searching."""

    __slots__ = ("_starts", "codes", "matched", "maybe", "text", "words")

    def __init__(
        self, text: str, words: list[str] | None, codes: list[tuple[int, int]], matched: int, maybe: int
    ) -> None:
        self.text = text
        self.words = words
        self.codes = codes
        self.matched = matched
        self.maybe = maybe
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        """Where each word starts (found when first asked: most texts never need it)."""
        if self._starts is None:
            self._starts = [m.start() for m in _RUN.finditer(self.text)]
        return self._starts


class PatternSet:
    """Patterns by name, each answering as its ``search`` does, read off a text's words."""

    def __init__(self, patterns: Mapping[str, re.Pattern[str]]) -> None:
        self.names = list(patterns)
        self._index = {name: i for i, name in enumerate(self.names)}
        self._alternations = [_Alternation.read(pattern) for pattern in patterns.values()]
        self._general = sum(1 << i for i, a in enumerate(self._alternations) if a.general)
        # Every pattern's words and prefixes in one table, so a new word is classified for all of
        # them by one look-up and one ``startswith``.
        self._exact: dict[str, tuple[int, int]] = {}
        self._prefixes: list[tuple[str, int, int]] = []
        self._digit = 0
        for i, a in enumerate(self._alternations):
            if a.general:
                continue
            bit = 1 << i
            for word in a.matches:
                m, b = self._exact.get(word, (0, 0))
                self._exact[word] = (m | bit, b)
            for word in a.maybe:
                m, b = self._exact.get(word, (0, 0))
                self._exact[word] = (m, b | bit)
            self._prefixes += [(prefix, bit, 0) for prefix in a.prefixes]
            self._prefixes += [(prefix, 0, bit) for prefix in a.maybe_prefixes]
            self._digit |= bit if a.digit else 0
        self._any_prefix = tuple(prefix for prefix, _, _ in self._prefixes)
        #: A word in lower case -> (bits of the patterns a match of starts on it, bits of those one may).
        self._codes: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()

    def general(self, name: str) -> bool:
        """Whether the pattern is searched as it is (its alternatives not read)."""
        return self._alternations[self._index[name]].general

    def _code(self, word: str) -> tuple[int, int]:
        """``_Alternation.code`` of every pattern, as bits (a general pattern's are never read)."""
        matched, maybe = self._exact.get(word, (0, 0))
        if self._any_prefix and word.startswith(self._any_prefix):
            for prefix, m, b in self._prefixes:
                if word.startswith(prefix):
                    matched |= m
                    maybe |= b
        if self._digit and not ("a" <= word[0] <= "z"):
            maybe |= self._digit
        code = (matched, maybe & ~matched)
        with self._lock:
            if len(self._codes) >= WORDS_KEPT:
                self._codes.clear()
            self._codes[word] = code
        return code

    def read(self, text: str) -> TextWords:
        if text.isascii():
            # Lower case keeps an ASCII text's length and its words where they were.
            words = _RUN.findall(text.lower())
        elif FOLDS_TO_ASCII.isdisjoint(text):
            words = [word.lower() for word in _RUN.findall(text)]
        else:
            return TextWords(text, None, [], 0, 0)
        known = self._codes
        codes = [known.get(word) or self._code(word) for word in words]
        matched = maybe = 0
        for m, b in codes:
            matched |= m
            maybe |= b
        return TextWords(text, words, codes, matched, maybe)

    def join(self, parts: Sequence[TextWords], separator: str = " ") -> TextWords:
        """``read(separator.join(part.text for part in parts))`` from the parts' readings (the
        separator holds no word character, so no word runs across it)."""
        if not separator or _RUN.search(separator) or not FOLDS_TO_ASCII.isdisjoint(separator):
            raise ValueError(f"a separator must hold no word character: {separator!r}")
        text = separator.join(part.text for part in parts)
        words: list[str] = []
        codes: list[tuple[int, int]] = []
        matched = maybe = 0
        for part in parts:
            if part.words is None:
                return TextWords(text, None, [], 0, 0)
            words += part.words
            codes += part.codes
            matched |= part.matched
            maybe |= part.maybe
        return TextWords(text, words, codes, matched, maybe)

    def search(self, words: TextWords, name: str) -> bool:
        """``bool(pattern.search(text))`` for the named pattern."""
        i = self._index[name]
        if words.words is None or self._general >> i & 1:
            return self._alternations[i].pattern.search(words.text) is not None
        if words.matched >> i & 1:
            return True
        if not words.maybe >> i & 1:
            return False
        pattern, text = self._alternations[i].pattern, words.text
        return any(
            code[1] >> i & 1 and pattern.match(text, start) is not None
            for start, code in zip(words.starts, words.codes, strict=True)
        )

    def found(self, text: str) -> frozenset[str]:
        """The names of the patterns ``search`` finds in ``text``."""
        words = self.read(text)
        return frozenset(name for name in self.names if self.search(words, name))

    def matches_at(self, words: TextWords, name: str) -> list[tuple[int, str]] | None:
        """The words (where each starts, in lower case) at which the named pattern matches, in
        order; None for a text or pattern read by searching."""
        i = self._index[name]
        if words.words is None or self._general >> i & 1:
            return None
        if not (words.matched | words.maybe) >> i & 1:
            return []
        pattern, text = self._alternations[i].pattern, words.text
        return [
            (start, word)
            for start, word, (matched, maybe) in zip(words.starts, words.words, words.codes, strict=True)
            if matched >> i & 1 or (maybe >> i & 1 and pattern.match(text, start) is not None)
        ]
