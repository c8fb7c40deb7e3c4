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
* every other format character (Unicode category Cf: the soft hyphen, the
  zero-width space and joiners U+200B-U+200D, U+2060-U+2064, the byte order
  mark U+FEFF, ...) and the whole tag block U+E0000-U+E007F, invisible
  characters that can carry text a reader never sees; one outside the Basic
  Multilingual Plane is written as its JSON surrogate pair (``\\udb40\\udc41``);
* lone surrogates, which cannot be encoded at all.

So a summary such as ``x" (remembered today) memory://other-family/01K...``
or one with a line break and a fake line stays inside its quotes, visibly
data; ``json.loads`` of the literal gives back the exact text.

A terminal is the other reader of such text (the CLI's listings, the local
server's access log). ``for_terminal`` leaves plain text as it is and writes
text holding anything a terminal would act on or hide (a control character,
an escape sequence, a line break, a bidirectional or other format character)
as its ``one_line`` literal.
"""

from __future__ import annotations

import json
import re

#: The format characters (category Cf) as of Unicode 16, with the unassigned code points
#: around them in their blocks, and the whole tag block U+E0000-U+E007F.
#: tests/unit/test_literal.py checks this covers every Cf the running Python knows.
_FORMAT = (
    "\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e007f"
)
#: The format characters, for other renderers of untrusted text (the card page marks them visibly).
FORMAT_CHARACTERS = _FORMAT
#: A JSON escape sequence (kept, except ``\"``) or a character to ``\u``-escape.
_UNSAFE = re.compile("\\\\.|[<>&\u2028\u2029\x7f-\x9f\ud800-\udfff" + _FORMAT + "]")


#: What a terminal acts on or hides: C0 (escape sequences, line breaks), DEL, C1, the line
#: separators, the format characters and lone surrogates (the escapes of ``_UNSAFE`` minus ``<>&"``).
_TERMINAL_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + _FORMAT + "]")


def _escape(match: re.Match[str]) -> str:
    found = match.group()
    if found == '\\"':
        return "\\u0022"
    if found.startswith("\\"):
        return found
    code = ord(found)
    if code > 0xFFFF:  # JSON has no longer escape: the UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def one_line(text: str) -> str:
    """``text`` as a JSON string literal that nothing inside can break out of (see the module)."""
    literal = json.dumps(text, ensure_ascii=False)
    return '"' + _UNSAFE.sub(_escape, literal[1:-1]) + '"'


def for_terminal(text: str) -> str:
    """``text`` itself when a terminal shows it as it is; otherwise its ``one_line`` literal,
    so no escape sequence, line break or invisible character reaches the terminal raw."""
    return one_line(text) if _TERMINAL_UNSAFE.search(text) else text
