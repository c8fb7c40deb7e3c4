"""What the lookup keeps between lookups never outlives a write (issue 11, speed clause).

The SQLite catalog answers rows a thread read again while SQLite's data_version shows no other
connection has committed; the embedded index scans a query vector once per snapshot for the
lookup's passes; must_know and schedule read a rule's words by its text. Each is checked here
against a write between two lookups, and the block's token count against counting the block."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factories import FAMILY, memory
from family_memory.adapters.local.embedded_index import EmbeddedIndex
from family_memory.adapters.local.sqlite_catalog import SQLiteCatalog
from family_memory.app.runtime import Runtime
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import Surface
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import Memory, MemoryType, Sensitivity, Status, Strength, embedding_text
from family_memory.domain.refs import MemoryRef
from family_memory.domain.tokens import count_tokens
from family_memory.ports.catalog import CatalogRow
from family_memory.retrieval.documents import IndexDocument, document_from_memory
from family_memory.retrieval.lookup import LOOKUP_CLOSE, LOOKUP_NOTE, LOOKUP_OPEN, WITHHELD_NOTE, line_for
from family_memory.retrieval.must_know import must_know, names_of
from family_memory.retrieval.search_index import SearchFilter
from retrieval_helpers import change, fact, hashed, local_runtime, remember, retrieval_of, set_zone

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TODAY = date(2026, 11, 30)
TTL = timedelta(minutes=5)


def row(summary: str = "Friday is pizza night.", **kw: object) -> CatalogRow:
    return CatalogRow.from_memory(memory(summary=summary, body=summary, **kw), "t")


@pytest.fixture
def catalog(tmp_path: Path) -> SQLiteCatalog:
    return SQLiteCatalog(tmp_path / "catalog.sqlite3")


def put(catalog: SQLiteCatalog, *rows: CatalogRow, force: bool = False) -> None:
    lease = catalog.acquire_lease(FAMILY, "test", TTL)
    catalog.put_rows(FAMILY, list(rows), lease=lease, force=force)
    catalog.release_lease(lease)


def test_a_row_written_through_the_same_catalog_is_read_at_once(catalog: SQLiteCatalog) -> None:
    first = row()
    put(catalog, first)
    assert catalog.get_rows(FAMILY, [first.id])[first.id].summary == "Friday is pizza night."
    edited = first.model_copy(update={"summary": "Saturday is pizza night.", "revision": 2})
    put(catalog, edited)
    assert catalog.get_rows(FAMILY, [first.id])[first.id] == edited


def test_a_row_written_by_another_connection_or_thread_is_read_at_once(tmp_path: Path) -> None:
    reader = SQLiteCatalog(tmp_path / "catalog.sqlite3")
    writer = SQLiteCatalog(tmp_path / "catalog.sqlite3")  # another connection to the same file
    first, absent = row(), row("Leo's piano is on Wednesdays.")
    put(writer, first)
    assert set(reader.get_rows(FAMILY, [first.id, absent.id])) == {first.id}  # the absence is read too
    put(writer, absent)
    assert set(reader.get_rows(FAMILY, [first.id, absent.id])) == {first.id, absent.id}
    # The same revision written again with other text (a forced rebuild from the files).
    rebuilt = first.model_copy(update={"summary": "Pizza night moved to Saturday."})
    put(writer, rebuilt, force=True)
    assert reader.get_rows(FAMILY, [first.id])[first.id].summary == "Pizza night moved to Saturday."
    # Another thread of the reader's own catalog (its own connection).
    retired = rebuilt.model_copy(update={"status": Status.RETRACTED, "revision": 2})
    worker = threading.Thread(target=put, args=(reader, retired))
    worker.start()
    worker.join()
    assert reader.get_rows(FAMILY, [first.id])[first.id].status is Status.RETRACTED


def test_a_deleted_row_is_gone_from_the_next_read(catalog: SQLiteCatalog) -> None:
    first, second = row(), row("Leo's piano is on Wednesdays.")
    put(catalog, first, second)
    assert set(catalog.get_rows(FAMILY, [first.id, second.id])) == {first.id, second.id}
    lease = catalog.acquire_lease(FAMILY, "test", TTL)
    catalog.delete_rows(FAMILY, [first.id], lease=lease)
    assert set(catalog.get_rows(FAMILY, [first.id, second.id])) == {second.id}
    assert catalog.get_rows("fam-okafor", [second.id]) == {}  # rows are kept by family


def test_one_scan_serves_every_filter_and_a_write_is_searched_at_once(tmp_path: Path) -> None:
    embedder = hashed()
    index = EmbeddedIndex(tmp_path / "index", embedder.dimension, model_id=embedder.model_id)
    kinds = [MemoryType.FACT, MemoryType.CONSTRAINT, MemoryType.PREFERENCE, MemoryType.DIRECTIVE]
    memories = [
        memory(summary=f"Leo has piano practice number {n}.", about=f"Piano {n}", type=kinds[n % 4]) for n in range(40)
    ]

    def docs(ms: list[Memory]) -> list[IndexDocument]:
        return [document_from_memory(FAMILY, m, embedder.model_id, embedder.embed_one(embedding_text(m))) for m in ms]

    index.upsert(FAMILY, docs(memories))
    vector = embedder.embed_one("piano practice")
    filters = [
        SearchFilter.current(TODAY),
        SearchFilter.current(TODAY, types=frozenset({MemoryType.CONSTRAINT, MemoryType.PREFERENCE})),
        SearchFilter.current(TODAY, types=frozenset({MemoryType.FACT})),
    ]
    answers = [index.semantic(FAMILY, vector, f, 10) for f in filters]
    fresh = EmbeddedIndex(tmp_path / "index", embedder.dimension, model_id=embedder.model_id)  # nothing kept
    assert answers == [fresh.semantic(FAMILY, vector, f, 10) for f in filters]
    nearest = memory(summary="piano practice", about="piano practice", type=MemoryType.CONSTRAINT)
    index.upsert(FAMILY, docs([nearest]))
    for f in filters[:2]:
        assert index.semantic(FAMILY, vector, f, 10)[0].memory_id == nearest.id
    assert nearest.id not in [h.memory_id for h in index.semantic(FAMILY, vector, filters[2], 10)]


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    return local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")


def hard_rule(summary: str, about: str, **kw: Any) -> Memory:
    return fact(summary, about, type=MemoryType.CONSTRAINT, strength=Strength.HARD, **kw)


def rule_lines(runtime: Runtime, message: str) -> list[str]:
    result = retrieval_of(runtime).lookup.lookup(FAMILY, message)
    return [item.line for item in result.items if item.via == "rule"]


def test_an_edited_rule_is_read_afresh_by_the_next_lookup(runtime: Runtime) -> None:
    peanuts = hard_rule("No peanuts in the house; Leo is allergic.", "Peanut rule")
    remember(runtime, peanuts)
    dinner, tickets = "what should we cook for dinner tonight", "can you buy the concert tickets"
    assert any("No peanuts" in line for line in rule_lines(runtime, dinner))
    assert rule_lines(runtime, tickets) == []
    change(runtime, peanuts, summary="Check with Layla before paying for anything.", about="Paying rule")
    assert rule_lines(runtime, dinner) == []  # no longer a food rule
    assert any("Check with Layla" in line for line in rule_lines(runtime, tickets))


def test_a_standing_arrangement_edited_off_the_day_leaves_the_day(runtime: Runtime) -> None:
    piano = fact("Leo has piano every Tuesday at 5.", "Leo's piano")
    remember(runtime, piano)
    lookup = retrieval_of(runtime).lookup

    def planned() -> list[str]:
        return [i.row.id for i in lookup.lookup(FAMILY, "what's on tuesday").items if i.via == "schedule"]

    assert planned() == [piano.id]
    change(runtime, piano, summary="Leo has piano every Thursday at 5.")
    assert planned() == []


def test_the_blocks_count_is_the_count_of_the_block(runtime: Runtime) -> None:
    sesame = hard_rule(
        'Noor: no sesame (tahini, "hummus") \u2014 <b>ever</b>!', "Sesame", sensitivity=Sensitivity.HEALTH
    )
    pizza = fact("Friday is pizza night at home, 6pm...", "Pizza night")
    kitchen = fact("The kitchen is nut-free (all of it).", "Nut-free kitchen", type=MemoryType.CONSTRAINT)
    remember(runtime, sesame, pizza, kitchen, fact("Leo: 12,345 steps. New record \u202e!", "Steps"))
    lookup = retrieval_of(runtime).lookup
    notes = set()
    for surface in Surface:
        for message in ("what should we bring to the potluck?", "pizza night", "steps record"):
            result = lookup.lookup(FAMILY, message, surface)
            assert result.items and result.tokens == count_tokens(result.block), (surface, message)
            notes.add(WITHHELD_NOTE in result.block)
    assert notes == {True, False}  # with and without the note that a private rule was withheld


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=120), min_size=1, max_size=6), st.booleans(), st.booleans())
def test_a_block_counts_as_its_frame_and_its_lines(summaries: list[str], withheld: bool, rule: bool) -> None:
    note = LOOKUP_NOTE + (f" {WITHHELD_NOTE}" if withheld else "")
    lines = []
    for summary in summaries:
        memory_row = row().model_copy(update={"summary": summary})
        lines.append(line_for(memory_row, str(MemoryRef(FAMILY, new_ulid())), "3 weeks ago", rule=rule))
    block = "\n".join([LOOKUP_OPEN, note, *lines, LOOKUP_CLOSE])
    frame = count_tokens(f"{LOOKUP_OPEN}\n{note}\n{LOOKUP_CLOSE}")
    assert count_tokens(block) == frame + sum(count_tokens(line) + 1 for line in lines)


def test_a_rules_edited_people_and_type_are_read_afresh_by_must_know() -> None:
    """must_know keeps what it reads off a row by the row object: an edit is a new row, read anew
    (kept by the memory's id instead, the edited rule would keep its old people and type)."""
    leo, maya = new_ulid(), new_ulid()
    names = names_of([(leo, ["Leo"]), (maya, ["Maya"])])
    seat = row("Maya rides in the booster seat in the car.", type=MemoryType.CONSTRAINT, applies_to=[maya])
    drive = "can you drive Leo to practice?"
    assert must_know(drive, [(seat, 0)], names) == []
    assert must_know(drive, [(seat, 0)], names) == []  # asked again: the kept reading answers
    for_leo = seat.model_copy(update={"applies_to": [leo]})
    assert [m.row for m in must_know(drive, [(for_leo, 0)], names)] == [for_leo]
    assert must_know(drive, [(for_leo.model_copy(update={"type": MemoryType.PREFERENCE}), 0)], names) == []
    soft, hard = for_leo, for_leo.model_copy(update={"id": new_ulid(), "about": "Leo's seat"})
    assert [m.row for m in must_know(drive, [(soft, 0), (hard, 1)], names)] == [soft, hard]
    hard = hard.model_copy(update={"strength": Strength.HARD})
    assert [m.row for m in must_know(drive, [(soft, 0), (hard, 1)], names)] == [hard, soft]


def test_a_kept_line_follows_the_row_the_day_and_the_zone(runtime: Runtime) -> None:
    """The lookup keeps each rendered line by the row object, the day and the zone: an edit, the
    next day or another zone renders it anew (kept by the memory's id, each would show the old line)."""
    pizza = fact("Friday is pizza night at home.", "Pizza night", formed=NOW - timedelta(days=2))
    remember(runtime, pizza)
    lookup = retrieval_of(runtime).lookup

    def line() -> str:
        (item,) = [i for i in lookup.lookup(FAMILY, "pizza night").items if i.row.id == pizza.id]
        assert item.line == line_for(item.row, item.ref, item.age, lookup.time_zone(FAMILY))
        return item.line

    assert "remembered 2 days ago, said 2026-11-28" in line() and line() == line()
    edited = change(runtime, pizza, summary="Saturday is pizza night at home.", sensitivity=Sensitivity.HEALTH)
    assert "Saturday is pizza night" in line() and "[sensitive: health" in line()
    assert isinstance(lookup.clock, FixedClock)
    lookup.clock.advance(timedelta(days=1))
    assert "remembered 3 days ago" in line()
    set_zone(runtime, "Pacific/Kiritimati")  # UTC+14: 2026-12-02 there, and the memory was said on the 29th
    lookup.time_zone = lambda _family: "Pacific/Kiritimati"
    assert "said 2026-11-29" in line() and edited.id == pizza.id


def test_kept_keyword_hits_never_outlive_a_write(tmp_path: Path) -> None:
    """The embedded index keeps a snapshot's keyword hits by the words, the filter and k (the day
    question asks the same words on every lookup): a write, by this process or another, is
    searched at once (kept across snapshots, the new and the edited memories would be missed)."""
    embedder = hashed()
    index = EmbeddedIndex(tmp_path / "index", embedder.dimension, model_id=embedder.model_id)

    def docs(*ms: Memory) -> list[IndexDocument]:
        return [document_from_memory(FAMILY, m, embedder.model_id, embedder.embed_one(embedding_text(m))) for m in ms]

    piano = memory(summary="Leo has piano every Tuesday.", about="Leo's piano")
    swim = memory(summary="Maya swims on Saturdays.", about="Maya's swimming")
    index.upsert(FAMILY, docs(piano, swim))
    days, current = "tuesday tuesdays saturday saturdays", SearchFilter.current(TODAY)

    def found(searcher: EmbeddedIndex = index) -> set[str]:
        return {h.memory_id for h in searcher.keyword(FAMILY, days, current, 10)}

    assert found() == found() == {piano.id, swim.id}
    chess = memory(summary="Noor has chess club on Tuesdays.", about="Noor's chess")
    index.upsert(FAMILY, docs(chess))
    assert found() == {piano.id, swim.id, chess.id}
    moved = piano.model_copy(update={"summary": "Leo has piano every Monday.", "revision": 2})
    other = EmbeddedIndex(tmp_path / "index", embedder.dimension, model_id=embedder.model_id)  # another process
    other.upsert(FAMILY, docs(moved))
    assert found() == {swim.id, chess.id} == found(other)
    index.delete(FAMILY, [swim.id])
    assert found() == {chess.id}
