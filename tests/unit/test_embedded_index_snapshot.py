"""The embedded index's in-memory side: the misspelling search over a large
vocabulary, the snapshot a write carries forward (instead of the next reader
reading the whole family again), and the embedder the family was indexed with."""

from __future__ import annotations

import logging
import random
import string
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from factories import FAMILY, memory
from family_memory.adapters.local.embedded_index import (
    _ACTIVE_CODE,
    _MEASURED_OUTRIGHT,
    EmbeddedIndex,
    _Vocabulary,
    edit_budget,
)
from family_memory.domain.memory import Memory, MemoryType, Sensitivity, Status, embedding_text
from family_memory.retrieval.documents import IndexDocument, document_from_memory
from family_memory.retrieval.search_index import IndexMismatchError, SearchFilter
from retrieval_helpers import hashed

TODAY = date(2026, 11, 30)


def doc(m: Memory, model_id: str | None = None) -> IndexDocument:
    embedder = hashed()
    return document_from_memory(FAMILY, m, model_id or embedder.model_id, embedder.embed_one(embedding_text(m)))


def random_word(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 12)))


def misspell(rng: random.Random, word: str) -> str:
    letters = list(word)
    for _ in range(rng.randint(1, 2)):
        at = rng.randrange(len(letters) + 1)
        kind = rng.choice("isd")
        if kind == "i" or not letters:
            letters.insert(at, rng.choice(string.ascii_lowercase))
        elif kind == "s" and at < len(letters):
            letters[at] = rng.choice(string.ascii_lowercase)
        elif at < len(letters):
            del letters[at]
    return "".join(letters)


def brute_force(vocabulary: list[str], word: str, budget: int) -> tuple[str, ...]:
    """What the engine did before: rapidfuzz over the whole sorted vocabulary."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    found = process.extract(word, vocabulary, scorer=Levenshtein.distance, score_cutoff=budget, limit=3)
    return tuple(candidate for candidate, _, _ in found)


def test_misspellings_find_the_same_words_as_a_scan_of_the_whole_vocabulary(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    vocabulary = sorted({random_word(rng) for _ in range(8000)} | {"pianno", "piano", "pianos", "kinnikinnick"})
    index = _Vocabulary(dict.fromkeys(vocabulary, 1))
    queries = [misspell(rng, rng.choice(vocabulary)) for _ in range(300)] + ["piano", "kinikinnick", "pianoo"]
    queries = [q for q in queries if edit_budget(q) > 0 and q not in index]
    expected = [brute_force(vocabulary, query, edit_budget(query)) for query in queries]
    measured: list[str] = []
    from rapidfuzz.distance import Levenshtein

    real = Levenshtein.distance

    def counting(a: str, b: str, **kw: Any) -> int:
        measured.append(b)
        return int(real(a, b, **kw))

    monkeypatch.setattr(Levenshtein, "distance", counting)
    for query, want in zip(queries, expected, strict=True):
        measured.clear()
        assert index.near(query, edit_budget(query)) == want, query
        # The length and letter bounds (and above _MEASURED_OUTRIGHT words the histogram's) leave a few
        # dozen words to measure, never more than _MEASURED_OUTRIGHT, not 8,000.
        assert len(measured) <= _MEASURED_OUTRIGHT, (query, len(measured))


def test_misspellings_follow_words_added_and_removed_as_a_scan_of_the_vocabulary() -> None:
    """The slots by length are rebuilt after every change: a word removed (its slot freed and
    reused by a word of another length) or added is found, or not, as a scan finds it."""
    rng = random.Random(5)
    words = sorted({random_word(rng) for _ in range(3000)})
    present = set(words[:2000])
    index = _Vocabulary(dict.fromkeys(present, 1))
    for step in range(60):
        removed = rng.sample(sorted(present), 20)
        index.remove(removed)
        present -= set(removed)
        added = rng.sample([w for w in words if w not in present], 25)
        index.add(added)
        present |= set(added)
        vocabulary = sorted(present)
        for _ in range(5):
            query = misspell(rng, rng.choice(removed + added + vocabulary[:50]))
            if edit_budget(query) == 0 or query in index:
                continue
            assert index.near(query, edit_budget(query)) == brute_force(vocabulary, query, edit_budget(query)), (
                step,
                query,
            )


def test_the_vocabulary_follows_writes_and_forgets_cached_expansions() -> None:
    index = _Vocabulary({"piano": 1, "pizza": 2})
    assert index.near("pianno", 2) == ("piano",)
    index.add(["pianos"])
    assert index.near("pianno", 2) == ("piano", "pianos")
    index.remove(["piano"])
    assert index.near("pianno", 2) == ("pianos",) and "piano" not in index
    index.remove(["pizza"])
    assert "pizza" in index  # one document still holds it
    many = [f"w{n:05d}" for n in range(3000)]
    index.add(many)  # grows past its first capacity
    assert index.near("w01234x", 2)[0] == "w01234"


FILTERS = [
    SearchFilter(),
    SearchFilter.current(TODAY),
    SearchFilter.current(TODAY, sensitivities=frozenset({Sensitivity.NORMAL})),
    SearchFilter(statuses=None, applies_to=frozenset({"01K6N1R0A0B0C0D0E0F0ENT002"})),
]
TOPICS = ["piano lessons", "soccer practice", "orthodontist visit", "pizza night", "camp Kinnikinnick", "vet visit"]
QUERIES = ["piano", "pianno lessons", "soccer", "orthodontsit", "Kinikinnick camp", "pizza vet", "xylophone"]


def random_memory(rng: random.Random, n: int) -> Memory:
    topic = rng.choice(TOPICS)
    return memory(
        about=topic.title(),
        summary=f"Note {n}: {rng.choice(['Maya', 'Leo', 'Rosa'])} has {topic} {rng.choice(['today', 'weekly'])}.",
        status=rng.choice([Status.ACTIVE, Status.ACTIVE, Status.DORMANT]),
        sensitivity=rng.choice([Sensitivity.NORMAL, Sensitivity.NORMAL, Sensitivity.HEALTH]),
        type=rng.choice([MemoryType.FACT, MemoryType.PREFERENCE]),
        applies_to=rng.choice([[], ["01K6N1R0A0B0C0D0E0F0ENT002"]]),
        valid_until=rng.choice([None, None, date(2026, 11, 30), date(2026, 12, 5)]),
    )


def answers(index: EmbeddedIndex) -> list[object]:
    out: list[object] = []
    for search_filter in FILTERS:
        for query in QUERIES:
            out.append(
                [(h.memory_id, round(h.score, 4), h.revision) for h in index.keyword(FAMILY, query, search_filter, 5)]
            )
            vector = hashed().embed_one(query)
            out.append([(h.memory_id, round(h.score, 4)) for h in index.semantic(FAMILY, vector, search_filter, 5)])
    return out


def test_a_write_carries_the_snapshot_forward_and_searches_answer_as_after_a_full_read(tmp_path: Path) -> None:
    rng = random.Random(5)
    index = EmbeddedIndex(tmp_path / "index", hashed().dimension)
    live = [random_memory(rng, n) for n in range(40)]
    index.upsert(FAMILY, [doc(m) for m in live])
    answers(index)  # the first search reads the family (and caches filter masks)
    assert index.loads == 1
    for step in range(30):
        action = rng.choice(["add", "replace", "delete"])
        if action == "add" or len(live) < 5:
            live.append(random_memory(rng, 100 + step))
            index.upsert(FAMILY, [doc(live[-1])])
        elif action == "replace":
            at = rng.randrange(len(live))
            old = live[at]
            live[at] = random_memory(rng, 200 + step).model_copy(update={"id": old.id, "revision": old.revision + 1})
            index.upsert(FAMILY, [doc(live[at])])
        else:
            gone = live.pop(rng.randrange(len(live)))
            index.delete(FAMILY, [gone.id])
        fresh = EmbeddedIndex(tmp_path / "index", hashed().dimension)  # reads the file from scratch
        assert answers(index) == answers(fresh), step
    # Not one search after the first had to read the whole family again.
    assert index.loads == 1


def test_a_write_by_another_process_is_seen_by_the_next_search(tmp_path: Path) -> None:
    ours = EmbeddedIndex(tmp_path / "index", hashed().dimension)
    theirs = EmbeddedIndex(tmp_path / "index", hashed().dimension)  # another process, the same file
    piano = memory(about="Piano", summary="Leo has piano lessons on Wednesdays.")
    ours.upsert(FAMILY, [doc(piano)])
    assert [h.memory_id for h in ours.keyword(FAMILY, "piano", SearchFilter(), 5)] == [piano.id]
    soccer = memory(about="Soccer", summary="Maya has soccer practice on Saturdays.")
    theirs.upsert(FAMILY, [doc(soccer)])
    theirs.delete(FAMILY, [piano.id])
    assert ours.keyword(FAMILY, "piano", SearchFilter(), 5) == []
    assert [h.memory_id for h in ours.keyword(FAMILY, "soccer", SearchFilter(), 5)] == [soccer.id]
    assert ours.loads == 2


def test_a_family_indexed_by_another_embedder_is_searched_by_words_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    built = EmbeddedIndex(tmp_path / "index", hashed().dimension, model_id=hashed().model_id)
    piano = memory(about="Piano", summary="Leo has piano lessons on Wednesdays.")
    built.upsert(FAMILY, [doc(piano)])
    vector = hashed().embed_one("piano lessons")
    assert [h.memory_id for h in built.semantic(FAMILY, vector, SearchFilter(), 5)] == [piano.id]
    other = EmbeddedIndex(tmp_path / "index", hashed().dimension, model_id="local/another-model-384")
    with caplog.at_level(logging.WARNING), pytest.raises(IndexMismatchError, match="rebuild-index"):
        other.semantic(FAMILY, vector, SearchFilter(), 5)
    assert any("another embedder" in r.getMessage() for r in caplog.records)
    assert [h.memory_id for h in other.keyword(FAMILY, "piano", SearchFilter(), 5)] == [piano.id]
    soccer = memory(about="Soccer", summary="Maya has soccer practice on Saturdays.")
    with pytest.raises(IndexMismatchError, match="family-memory rebuild-index"):
        other.upsert(FAMILY, [doc(soccer, "local/another-model-384")])
    # A rebuild (forced writes from the files) with the new embedder starts the family afresh.
    other.upsert(FAMILY, [doc(soccer, "local/another-model-384")], force=True)
    assert list(other.revisions(FAMILY)) == [soccer.id]
    assert [h.memory_id for h in other.semantic(FAMILY, vector, SearchFilter(), 5)] == [soccer.id]


def test_when_most_rows_are_replaced_the_writer_reads_the_family_compactly(tmp_path: Path) -> None:
    rng = random.Random(9)
    index = EmbeddedIndex(tmp_path / "index", hashed().dimension)
    live = [random_memory(rng, n) for n in range(20)]
    index.upsert(FAMILY, [doc(m) for m in live])
    answers(index)
    for step in range(300):  # every replacement leaves a dead row behind
        at = step % len(live)
        live[at] = live[at].model_copy(update={"revision": live[at].revision + 1, "summary": f"Note {step}."})
        index.upsert(FAMILY, [doc(live[at])])
    assert index.loads == 2  # once at the first search, once by the writer past 256 dead rows
    snapshot = index._snapshots[FAMILY]
    assert snapshot.count - snapshot.live < 256
    assert answers(index) == answers(EmbeddedIndex(tmp_path / "index", hashed().dimension))
    assert index.loads == 2


def test_each_filter_is_answered_by_the_rows_it_admits_before_and_after_a_write(tmp_path: Path) -> None:
    # A snapshot keeps the rows each filter admits: kept by the wrong key (a filter's statuses alone,
    # say), a filter would be answered by another's rows. The oracle is SearchFilter.admits.
    rng = random.Random(9)
    index = EmbeddedIndex(tmp_path / "index", hashed().dimension)
    live = {m.id: m for m in (random_memory(rng, n) for n in range(40))}
    index.upsert(FAMILY, [doc(m) for m in live.values()])
    vector = hashed().embed_one("piano lessons")

    def check() -> None:
        for _ in range(2):  # the second round is answered by the kept rows
            for search_filter in FILTERS:
                found = {h.memory_id for h in index.semantic(FAMILY, vector, search_filter, 100)}
                assert found == {i for i, m in live.items() if search_filter.admits(doc(m))}, search_filter

    check()
    added = random_memory(rng, 99).model_copy(update={"status": Status.ACTIVE, "valid_until": None})
    live[added.id] = added
    index.upsert(FAMILY, [doc(added)])
    check()
    gone = next(iter(live))
    del live[gone]
    index.delete(FAMILY, [gone])
    check()


def test_every_score_is_the_one_product_over_all_rows_to_the_bit(tmp_path: Path) -> None:
    # The active documents' vectors and the others' are scanned as two blocks; each score must be
    # what one product over every row in row order gives (BLAS scores the last rows of a product,
    # fewer than four, another way than the rest, so a row's place in the product shows in its
    # last bit), and a row must be in the block of its status: before and after writes that add,
    # supersede and delete, whatever the row count modulo 4, for active-only and any-status filters.
    import numpy as np

    rng = random.Random(13)
    index = EmbeddedIndex(tmp_path / "index", hashed().dimension)
    live = {m.id: m for m in (random_memory(rng, n) for n in range(41))}
    index.upsert(FAMILY, [doc(m) for m in live.values()])
    vectors = [hashed().embed_one(q) for q in QUERIES]
    current = SearchFilter.current(date(2026, 11, 30))

    def check() -> None:
        index.semantic(FAMILY, vectors[0], current, 1)  # the first search reads the family
        snapshot = index._snapshots[FAMILY]
        rows = dict(snapshot.rows)
        by_row: dict[int, list[float]] = {row: list(doc(live[m]).embedding or []) for m, row in rows.items()}
        for dead in set(range(snapshot.count)) - set(by_row):  # a deleted or replaced document's row
            block = (
                snapshot.columns.active if snapshot.columns.status[dead] == _ACTIVE_CODE else snapshot.columns.matrix
            )
            by_row[dead] = block[snapshot.columns.places[dead]].tolist()
        full = np.array([by_row[row] for row in range(snapshot.count)], dtype=np.float32)
        for vector in vectors:
            want = full @ np.asarray(vector, dtype=np.float32)
            assert np.array_equal(snapshot.scores(vector), want)
            active = snapshot.scores(vector, True)
            for memory_id, row in rows.items():
                if live[memory_id].status is Status.ACTIVE:
                    assert active[row] == want[row]
                else:
                    assert active[row] == -np.inf
            for search_filter in (current, SearchFilter.any_status()):
                hits = index.semantic(FAMILY, vector, search_filter, 100)
                assert {h.memory_id for h in hits} == {i for i, m in live.items() if search_filter.admits(doc(m))}
                assert [h.score for h in hits] == sorted((float(want[rows[h.memory_id]]) for h in hits), reverse=True)

    check()
    for step in range(12):
        action = step % 3
        if action == 0:
            added = random_memory(rng, 100 + step)
            live[added.id] = added
            index.upsert(FAMILY, [doc(added)])
        elif action == 1:
            old = rng.choice(sorted(live))
            status = Status.SUPERSEDED if live[old].status is Status.ACTIVE else Status.ACTIVE
            live[old] = live[old].model_copy(update={"status": status, "revision": live[old].revision + 1})
            index.upsert(FAMILY, [doc(live[old])])
        else:
            gone = rng.choice(sorted(live))
            del live[gone]
            index.delete(FAMILY, [gone])
        check()


def test_the_engine_s_hits_are_hits_as_their_constructor_makes_them(tmp_path: Path) -> None:
    """``_hits`` sets a hit's slots without ``Hit.__init__``: every field must be the one it names
    (a field added to ``Hit`` and left unset there fails here)."""
    import dataclasses

    from family_memory.retrieval.search_index import Hit

    assert [f.name for f in dataclasses.fields(Hit)] == ["memory_id", "score", "revision"]
    index = EmbeddedIndex(tmp_path / "index", hashed().dimension)
    memories = [memory(summary=f"piano lesson {n}", about="piano") for n in range(6)]
    index.upsert(FAMILY, [doc(m) for m in memories])
    revisions = {m.id: doc(m).revision for m in memories}
    vector = hashed().embed_one("piano lesson")
    hits = [*index.semantic(FAMILY, vector, SearchFilter(), 6), *index.keyword(FAMILY, "piano", SearchFilter(), 6)]
    assert len(hits) == 12
    for hit in hits:
        assert type(hit) is Hit
        assert hit == Hit(hit.memory_id, hit.score, hit.revision) and hash(hit) == hash(Hit(*dataclasses.astuple(hit)))
        assert hit.revision == revisions[hit.memory_id] and isinstance(hit.score, float)
