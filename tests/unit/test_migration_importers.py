"""The migration's readers on the golden inputs: every entry with its line, member and date;
every line they could not read, with the reason; nothing guessed, nothing dropped silently."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conftest import FIXTURES
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.family import Member
from family_memory.formation.importers import (
    ReadContext,
    SourceFormat,
    SourceReading,
    read_explicit,
    read_list,
    read_mem0,
    read_source,
)
from formation_helpers import TZ, family

GOLDEN = FIXTURES / "migration"
AS_OF = datetime(2026, 11, 1, tzinfo=UTC)
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def context(**overrides: object) -> ReadContext:
    values: dict[str, object] = {
        "members": family().members,
        "time_zone": TZ,
        "as_of": AS_OF,
        "now": NOW,
        "default_member": None,
    }
    values.update(overrides)
    return ReadContext(**values)  # type: ignore[arg-type]


def golden(name: str) -> bytes:
    return (GOLDEN / name).read_bytes()


def by_line(reading: SourceReading) -> dict[int, tuple[str, str | None, str]]:
    return {e.line: (e.text, e.member_id, e.at.strftime("%Y-%m-%d") if e.dated else "undated") for e in reading.entries}


def test_the_explicit_file_golden_entries_members_and_dates() -> None:
    reading = read_explicit(golden("explicit-memories.md"), context())
    entries = by_line(reading)
    assert entries[5] == ("Always check with me before booking flights", "lucia", "2026-03-02")
    assert entries[7] == ("Call me Lucy", "lucia", "2026-02-10")
    assert entries[8] == entries[9] == ("We love Thai food", "lucia", "undated")
    # A bullet continued on the next, indented line is one entry, ending on that line.
    dentist = next(e for e in reading.entries if e.line == 12)
    assert dentist.last_line == 13 and dentist.text.endswith("she wants to see Maya every six months")
    # The heading names who asked; "lucia:" on a line under Marco's heading names her instead.
    assert entries[17] == ("I'm vegetarian", "marco", "2026-09-01")
    assert entries[23] == ("Maya is no longer allergic to peanuts", "marco", "2026-11-15")
    assert entries[24] == ("Make sure to CC Marco on school emails", "lucia", "undated")
    # Brackets that are no member and no date are the entry's own words.
    assert entries[27][0] == "[Important] Bring a [link](javascript:alert(1)) to | the | party"
    assert len(reading.entries) == 17
    assert next(e for e in reading.entries if e.line == 5).member_from == "section"
    # A dated entry starts at local midnight of its day (Los Angeles: 08:00 UTC in March).
    assert next(e for e in reading.entries if e.line == 5).at == datetime(2026, 3, 2, 8, tzinfo=UTC)


def test_the_explicit_file_golden_lines_it_could_not_read_say_why() -> None:
    reading = read_explicit(golden("explicit-memories.md"), context())
    problems = {p.line: p.reason for p in reading.problems}
    assert set(problems) == {10, 11, 29, 30}
    assert "'2026-13-45' is not a calendar date" in problems[10]
    assert "'grandpa', who is not a member of the family (members: lucia, marco, maya)" in problems[11]
    assert "control character (U+0007)" in problems[29]
    assert "not UTF-8 text (byte 0xe9 at column 6)" in problems[30]
    shown = {p.line: p.excerpt for p in reading.problems}
    assert "\x07" not in shown[29] and "\ufffd" in shown[29]  # a report never carries the control character
    skipped = {s.line: s.why for s in reading.skipped}
    assert skipped == {
        1: "a heading",
        3: "a heading naming lucia: the lines below are theirs",
        15: "a heading naming marco: the lines below are theirs",
        28: "a horizontal rule",
    }
    # Every line of the file is accounted for: an entry, a problem, structure, or blank.
    text_lines = golden("explicit-memories.md").split(b"\n")[:-1]
    accounted = {e.line for e in reading.entries} | {13} | set(problems) | set(skipped)
    blank = {n for n, line in enumerate(text_lines, start=1) if not line.strip()}
    assert accounted | blank == set(range(1, len(text_lines) + 1))


def test_member_and_date_forms_of_an_explicit_line() -> None:
    ctx = context(default_member="marco")
    lines = "\n".join(
        [
            "[lucia, 2026-03-02] one with both in brackets",
            "(2026-03-03) a date in parentheses",
            "2026-03-04: a date and a colon",
            "2026-03-05 Lucía: a date then a member's first name",
            "Lu: her address-as, then a colon",
            "* something at the end (lucia, 2026-03-06)",
            "- said at the end - added 2026-03-07 by Marco",
            "1. allergic to peanuts (Maya)",
            "Note: the note is part of the entry",
            "[2026-03-08T09:30] with a local time",
        ]
    )
    got = by_line(read_explicit(lines.encode(), ctx))
    assert got[1] == ("one with both in brackets", "lucia", "2026-03-02")
    assert got[2] == ("a date in parentheses", "marco", "2026-03-03")
    assert got[3] == ("a date and a colon", "marco", "2026-03-04")
    assert got[4] == ("a date then a member's first name", "lucia", "2026-03-05")
    assert got[5] == ("her address-as, then a colon", "lucia", "undated")
    assert got[6] == ("something at the end", "lucia", "2026-03-06")
    assert got[7] == ("said at the end", "marco", "2026-03-07")
    # A name at the end without a date may be whom it is about: it stays in the words.
    assert got[8] == ("allergic to peanuts (Maya)", "marco", "undated")
    assert got[9] == ("Note: the note is part of the entry", "marco", "undated")
    assert got[10][2] == "2026-03-08"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("[lucia, marco] two members", "it names two members (lucia, marco)"),
        ("[2026-03-01, 2026-03-02] two dates", "it carries two dates"),
        ("[2027-01-01] dated after now", "after now: an entry cannot have been written in the future"),
        ("[lucia, 2026-02-30] no such day", "'2026-02-30' is not a calendar date"),
        ("[lucia]", "it holds no text besides its member and date"),
        ("x" * 4001, "is 4001 characters long; the limit is 4000: one memory holds at most that"),
    ],
)
def test_an_explicit_line_that_cannot_be_read_is_a_problem_not_an_entry(line: str, reason: str) -> None:
    reading = read_explicit(f"- fine entry\n{line}\n".encode(), context(default_member="lucia"))
    assert [e.text for e in reading.entries] == ["fine entry"]
    assert len(reading.problems) == 1 and reading.problems[0].line == 2
    assert reason in reading.problems[0].reason


def test_entries_name_no_member_when_the_file_does_not_and_there_is_no_default() -> None:
    reading = read_explicit(b"We love Thai food\n[marco] Call me Marc\n", context())
    assert [(e.text, e.member_id) for e in reading.entries] == [("We love Thai food", None), ("Call me Marc", "marco")]
    defaulted = read_explicit(b"We love Thai food\n", context(default_member="lucia"))
    assert defaulted.entries[0].member_id == "lucia" and defaulted.entries[0].member_from == "default"


def test_a_new_familys_default_member_is_recognised_by_id() -> None:
    ctx = context(members=[], default_member="ana")
    reading = read_explicit(b"[ana, 2026-01-05] Call me Annie\nana: we love tacos\n", ctx)
    assert [(e.member_id, e.text) for e in reading.entries] == [("ana", "Call me Annie"), ("ana", "we love tacos")]


def test_the_list_golden_takes_bullets_and_accounts_for_every_other_line() -> None:
    reading = read_list(golden("remember.txt"), context(default_member="lucia"))
    assert [(e.line, e.text) for e in reading.entries] == [
        (3, "User's name is Lucía and she prefers to be called Lu"),
        (4, "Is vegetarian"),
        (5, "Has a daughter named Maya who is allergic to peanuts"),
        (6, "Prefers metric units"),
        (7, "Works as a nurse on night shifts, so never call before noon on weekdays"),
        (9, "Prefers metric units"),
    ]
    assert all(e.member_id == "lucia" and not e.dated and e.at == AS_OF for e in reading.entries)
    assert reading.entries[4].last_line == 8
    assert {s.line: s.why for s in reading.skipped} == {
        1: "a label",
        10: "not a bullet, in a list of bullets (a title or a note)",
        11: "not a bullet, in a list of bullets (a title or a note)",
    }
    assert reading.problems == []


def test_a_list_without_bullets_takes_every_line() -> None:
    reading = read_list(b"Is vegetarian\r\n\r\nPrefers metric units\r\n", context(default_member="lucia"))
    assert [(e.line, e.text) for e in reading.entries] == [(1, "Is vegetarian"), (3, "Prefers metric units")]


def test_the_list_has_no_member_syntax_its_words_stay_as_written() -> None:
    reading = read_list(b"- [marco, 2026-01-01] Prefers tea\n", context(default_member="lucia"))
    assert [(e.text, e.member_id, e.dated) for e in reading.entries] == [
        ("[marco, 2026-01-01] Prefers tea", "lucia", False)
    ]


def test_the_mem0_golden_entries_keep_every_other_field() -> None:
    reading = read_mem0(
        golden("mem0-export.json"), context(default_member="lucia", user_map={"marco.r@example.com": "marco"})
    )
    entries = {e.pointer: e for e in reading.entries}
    assert list(entries) == [
        "/results/0",
        "/results/1",
        "/results/2",
        "/results/3",
        "/results/7",
        "/results/8",
        "/results/10",
    ]
    first = entries["/results/0"]
    assert (first.text, first.member_id, first.member_from, first.line) == ("Is vegetarian", "lucia", "user_id", 3)
    assert first.at == datetime(2026, 6, 1, 17, tzinfo=UTC) and first.dated  # the offset read, microseconds dropped
    window = entries["/results/1"]
    assert window.at == datetime(2026, 7, 2, 16, 30, tzinfo=UTC)  # updated_at wins over created_at
    assert window.fields == {
        "id": "0f9d7a52-6a3c-4a51-8d3e-2c6b7e8f9a02",
        "hash": "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d",
        "metadata": {"category": "travel", "source_app": "trip-planner"},
        "categories": ["travel"],
        "created_at": "2026-05-01T08:00:00-07:00",
        "updated_at": "2026-07-02T09:30:00-07:00",
        "user_id": "lucia",
    }
    marco = entries["/results/2"]
    assert (marco.member_id, marco.member_from) == ("marco", "map")
    pepper = entries["/results/8"]
    assert pepper.fields["custom_field"] == {"nested": [1, 2, 3]} and pepper.fields["agent_id"] == "family-bot"
    # The metadata's "strength: hard" is another system's field: kept, never read as a rule.
    assert entries["/results/7"].fields["metadata"] == {"strength": "hard", "priority": "high"}
    problems = {p.pointer: p.reason for p in reading.problems}
    assert problems == {
        "/results/4": "its 'memory' is not text but int",
        "/results/5": "it has no 'memory' field: the text of the memory",
        "/results/6": "a memory must be a JSON object, not str",
        "/results/9": "its created_at: 'last Tuesday' is not a calendar date (write YYYY-MM-DD)",
    }
    assert {p.pointer: p.line for p in reading.problems}["/results/9"] == 62


def test_a_mem0_user_id_that_is_no_member_falls_to_the_default_and_is_kept() -> None:
    data = b'[{"memory": "Likes jazz", "user_id": "../../etc/passwd"}]'
    reading = read_mem0(data, context(default_member="marco"))
    entry = reading.entries[0]
    assert (entry.member_id, entry.member_from, entry.fields["user_id"]) == ("marco", "default", "../../etc/passwd")
    assert entry.pointer == "/0" and entry.at == AS_OF and not entry.dated


def test_a_minified_mem0_export_still_names_each_item() -> None:
    data = b'{"results":[{"memory":"Likes jazz"},{"memory":"Plays chess"}],"relations":[]}'
    reading = read_mem0(data, context(default_member="lucia"))
    assert [(e.pointer, e.line) for e in reading.entries] == [("/results/0", 1), ("/results/1", 1)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"results": [', "it is not valid JSON (line 1, column 14"),
        (
            b'{"memories": []}',
            "it is not a Mem0 export: expected a list of memories, or an object with a 'results' list",
        ),
        (b"\xff\xfe[]", "it is not UTF-8 text"),
    ],
)
def test_a_file_that_is_no_mem0_export_is_refused_whole_saying_where(data: bytes, message: str) -> None:
    with pytest.raises(InvalidInputError, match="nothing was read from it") as caught:
        read_mem0(data, context(default_member="lucia"))
    assert message in str(caught.value)


def test_read_source_dispatches_by_format() -> None:
    assert read_source(SourceFormat.LIST, b"- Likes tea\n", context(default_member="lucia")).format is SourceFormat.LIST


def test_member_names_resolve_by_id_name_first_name_and_address_as() -> None:
    ctx = context(members=[Member(id="lucia", name="Lucía Rivera", address_as="Lu")])
    assert [ctx.member_named(n) for n in ("lucia", "LUCIA", "Lucía Rivera", "lucía", "Lu", "@lucia", "Lucy")] == [
        "lucia",
        "lucia",
        "lucia",
        "lucia",
        "lucia",
        "lucia",
        None,
    ]
