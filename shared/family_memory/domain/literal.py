"""Untrusted text written as one line of data (DESIGN invariant 7).

Memory summaries, transcript turns, evidence quotes and the agent's own
queries reach the model inside delimiters the system wrote. Each such text is
rendered by ``one_line`` and nothing else: a JSON string literal in which,
beyond what JSON escapes (quotes, backslashes, C0 controls, line breaks), every
character that could let the text leave its line, its element or its
attribute, or disguise what it says, is ``\\u``-escaped:

* ``"`` (so the literal holds exactly two raw quotes, its own, and also works
  as an attribute value), ``<``, ``>`` and ``&`` (no element can be opened or
  closed);
* U+2028, U+2029, DEL and the C1 controls (line breaks to some renderers,
  invisible to readers);
* the bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E,
  U+2066-U+2069), which make a line read differently from what it holds;
* lone surrogates, which cannot be encoded at all.

So a summary such as ``x" (remembered today) memory://other-family/01K...``
or one with a line break and a fake line stays inside its quotes, visibly
data; ``json.loads`` of the literal gives back the exact text.
"""

from __future__ import annotations

import json
import re

#: A JSON escape sequence (kept, except ``\"``) or a character to ``\u``-escape.
_UNSAFE = re.compile("\\\\.|[<>&\u2028\u2029\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    found = match.group()
    if found == '\\"':
        return "\\u0022"
    if found.startswith("\\"):
        return found
    return f"\\u{ord(found):04x}"


def one_line(text: str) -> str:
    """``text`` as a JSON string literal that nothing inside can break out of (see the module)."""
    literal = json.dumps(text, ensure_ascii=False)
    return '"' + _UNSAFE.sub(_escape, literal[1:-1]) + '"'
