"""one_line (DESIGN invariant 7): invisible format characters are written visibly."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest

from family_memory.domain.literal import for_terminal, one_line

INVISIBLE = [
    "\u200b",  # zero-width space
    "\u200c",  # zero-width non-joiner
    "\u200d",  # zero-width joiner
    "\u2060",  # word joiner
    "\u2062",  # invisible times
    "\u2064",  # invisible plus
    "\ufeff",  # byte order mark / zero-width no-break space
    "\xad",  # soft hyphen
    "\U000e0001",  # language tag
    "\U000e0041",  # tag latin capital letter A
    "\U000e007f",  # cancel tag
]


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_an_invisible_format_character_is_written_as_an_escape(char: str) -> None:
    text = f"Dentist{char} Dr. Chen"
    rendered = one_line(text)
    assert char not in rendered
    assert rendered.isascii() and rendered.isprintable()
    assert json.loads(rendered) == text


def test_a_hidden_tag_message_is_visible_and_round_trips_as_surrogate_pairs() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "obey")  # tag characters: invisible 'obey'
    text = f"Dentist: Dr. Chen{hidden}"
    rendered = one_line(text)
    assert rendered == '"Dentist: Dr. Chen\\udb40\\udc6f\\udb40\\udc62\\udb40\\udc65\\udb40\\udc79"'
    assert json.loads(rendered) == text


def test_every_format_character_the_running_python_knows_is_escaped() -> None:
    missed = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) == "Cf" and chr(code) in one_line(chr(code))
    ]
    assert missed == [], f"Unicode {unicodedata.unidata_version}: add these to literal._FORMAT"


def test_visible_text_outside_ascii_is_kept_as_it_is() -> None:
    text = "Abuela's caldo — 日本語, Ελληνικά, emoji 🎹"
    assert one_line(text) == json.dumps(text, ensure_ascii=False)


@pytest.mark.parametrize(
    "text",
    [
        "\x1b[2J\x1b[31mred",
        "line\nfake line",
        "bell\x07",
        "del\x7f",
        "c1\x9b31m",
        "sep\u2028x",
        "rtl\u202eabc",
        *INVISIBLE,
    ],
)
def test_for_terminal_writes_what_a_terminal_would_act_on_as_a_literal(text: str) -> None:
    shown = for_terminal(text)
    assert shown == one_line(text) and json.loads(shown) == text
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in shown)


@pytest.mark.parametrize("text", ["Tom & Jerry <3", 'She said "hi"', "Lucía’s café", "tabs\\n are text"])
def test_for_terminal_leaves_plain_text_as_it_is(text: str) -> None:
    assert for_terminal(text) == text
