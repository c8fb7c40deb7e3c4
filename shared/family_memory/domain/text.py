"""Rules for free text that ends up in files and prompts.

Memory text is data from outside. Single-line fields (about, summary,
when_to_use, names) may not contain line breaks or control characters; the
body may contain newlines and tabs but no other control characters. Length
caps keep every line of the brief and of a retrieval block bounded.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated

from pydantic import AfterValidator

from family_memory.domain.errors import InvalidInputError

ABOUT_MAX = 120
SUMMARY_MAX = 300
WHEN_TO_USE_MAX = 300
BODY_MAX = 4000
NAME_MAX = 120
QUOTE_MAX = 1000
REASON_MAX = 500

# C0 and C1 controls, DEL, and the Unicode line/paragraph separators that YAML
# and many renderers treat as line breaks.
_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_BODY_FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_SPACES = re.compile(r"\s+")


def _first_bad(text: str, pattern: re.Pattern[str]) -> str | None:
    match = pattern.search(text)
    return None if match is None else f"U+{ord(match.group()):04X}"


def single_line(field: str, max_len: int, *, allow_empty: bool = False) -> AfterValidator:
    """A validator for a one-line field: trimmed, no control characters, capped."""

    def check(value: str) -> str:
        value = value.strip()
        if not value and not allow_empty:
            raise InvalidInputError(f"{field} is empty")
        bad = _first_bad(value, _LINE_BREAKING)
        if bad is not None:
            raise InvalidInputError(
                f"{field} contains a line break or control character ({bad}); it must be one line of text"
            )
        if len(value) > max_len:
            raise InvalidInputError(f"{field} is {len(value)} characters long; the limit is {max_len}")
        return value

    return AfterValidator(check)


def check_body(value: str, field: str = "body", max_len: int = BODY_MAX) -> str:
    """Normalise line endings, trim, and reject control characters other than newline and tab."""
    value = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    bad = _first_bad(value, _BODY_FORBIDDEN)
    if bad is not None:
        raise InvalidInputError(f"{field} contains a control character ({bad})")
    if len(value) > max_len:
        raise InvalidInputError(f"{field} is {len(value)} characters long; the limit is {max_len}")
    return value


def normalise_for_match(text: str) -> str:
    """Case-fold, unify Unicode forms and collapse whitespace: the comparison form
    used when checking that a quote appears in a turn."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return _SPACES.sub(" ", text).strip().casefold()


About = Annotated[str, single_line("about", ABOUT_MAX)]
Summary = Annotated[str, single_line("summary", SUMMARY_MAX)]
WhenToUse = Annotated[str, single_line("when_to_use", WHEN_TO_USE_MAX, allow_empty=True)]
Name = Annotated[str, single_line("name", NAME_MAX)]
Body = Annotated[str, AfterValidator(check_body)]


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def holds_words(normalised: str, wanted: str) -> bool:
    """Whether ``normalised`` holds ``wanted`` (both in comparison form) as whole words."""
    if not wanted:
        return False
    start = normalised.find(wanted)
    while start != -1:
        end = start + len(wanted)
        if (start == 0 or not _is_word(normalised[start - 1])) and (
            end == len(normalised) or not _is_word(normalised[end])
        ):
            return True
        start = normalised.find(wanted, start + 1)
    return False
