"""The OpenSearch adapter: its mapping and query bodies as built, and its behaviour
against ``Engine`` (tests/opensearch_engine.py), an in-memory index whose engine chooses
the document ids and shows writes to search after a delay, as NextGen does. The contract
suite runs the same port against a real collection when one is configured."""

from __future__ import annotations

import random
import re
from datetime import date
from typing import TYPE_CHECKING, Any, cast

import pytest
from opensearchpy.exceptions import ConnectionError as OSConnectionError

import family_memory.adapters.aws.opensearch_index as adapter
from factories import FAMILY, OTHER_FAMILY, memory
from family_memory.adapters.aws.opensearch_index import (
    HEADROOM,
    MAX_CLAUSES,
    TEXT_BOOSTS,
    Copy,
    OpenSearchIndex,
    cosine_from_score,
    doomed_copies,
    index_body,
    keyword_query,
    semantic_query,
)
from family_memory.domain.memory import Memory, MemoryType, Sensitivity
from family_memory.retrieval.documents import IndexDocument, document_from_memory
from family_memory.retrieval.indexer import IndexReport
from family_memory.retrieval.query_words import MAX_QUERY_TEXT_CHARS, MAX_QUERY_WORDS, query_words
from family_memory.retrieval.search_index import IndexMismatchError, IndexUnavailableError, SearchFilter
from opensearch_engine import ID_REFUSED, Engine, RecordingClient

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

TODAY = date(2026, 11, 30)
FAMILY_TERM = {"term": {"family_id": FAMILY}}
MODEL = "test-model"


def subject(delay: float = 0.0, dimension: int = 2, **kw: Any) -> tuple[OpenSearchIndex, Engine, RecordingClient]:
    engine = Engine(visibility_delay=delay, **kw)
    client = RecordingClient(engine)
    return OpenSearchIndex(cast("OpenSearch", client), dimension, embedding_model=MODEL), engine, client


def doc(m: Memory, family_id: str = FAMILY, vector: tuple[float, float] = (0.6, 0.8)) -> IndexDocument:
    return document_from_memory(family_id, m, MODEL, list(vector))


# --- the bodies ----------------------------------------------------------------------------


def test_the_mapping_has_keywords_english_text_dates_a_knn_vector_and_the_embedding_model() -> None:
    body = index_body(512, MODEL)
    properties = body["mappings"]["properties"]
    for name in ("family_id", "memory_id", "status", "type", "applies_to", "sensitivity", "strength", "authority"):
        assert properties[name] == {"type": "keyword"}
    for name in ("about", "summary", "when_to_use", "body"):
        assert properties[name] == {"type": "text", "analyzer": "english"}
    assert properties["valid_until"]["type"] == "date" and properties["revision"] == {"type": "integer"}
    assert properties["embedding"]["type"] == "knn_vector" and properties["embedding"]["dimension"] == 512
    assert properties["embedding"]["method"]["space_type"] == "innerproduct"
    assert body["settings"]["index"]["knn"] is True and body["mappings"]["dynamic"] == "strict"
    assert body["mappings"]["_meta"] == {"embedding_model": MODEL}
    document_fields = set(document_from_memory(FAMILY, memory(), "m", [0.0]).model_dump())
    assert document_fields == set(properties)


def test_the_semantic_query_puts_the_family_and_eligibility_filters_inside_the_knn_clause() -> None:
    body = semantic_query(FAMILY, [0.5, 0.5], SearchFilter.current(TODAY), 7)
    knn = body["query"]["knn"]["embedding"]
    assert knn["vector"] == [0.5, 0.5] and knn["k"] == 7 + HEADROOM and body["size"] == 7 + HEADROOM
    clauses = knn["filter"]["bool"]["filter"]
    assert clauses[0] == FAMILY_TERM
    assert {"terms": {"status": ["active"]}} in clauses
    validity = clauses[2]["bool"]
    assert validity["minimum_should_match"] == 1
    assert {"range": {"valid_until": {"gt": "2026-11-30"}}} in validity["should"]
    assert body["_source"] == {"excludes": ["embedding"]} and set(body["query"]) == {"knn"}


def test_the_keyword_query_is_a_bounded_fuzzy_multi_match_with_the_family_filter() -> None:
    search_filter = SearchFilter.current(
        TODAY, types=frozenset({MemoryType.FACT}), sensitivities=frozenset({Sensitivity.NORMAL})
    )
    body = keyword_query(FAMILY, "The orthodontst, the ORTHODONTST!", search_filter, 5)
    assert body is not None and body["size"] == 5 + HEADROOM
    multi = body["query"]["bool"]["must"][0]["multi_match"]
    assert multi["fuzziness"] == "AUTO" and multi["query"] == "orthodontst"
    assert multi["prefix_length"] == 1 and multi["max_expansions"] == adapter.MAX_EXPANSIONS
    assert multi["fields"] == ["about^3", "summary^2", "when_to_use", "body", "quotes"]
    clauses = body["query"]["bool"]["filter"]
    assert clauses[0] == FAMILY_TERM
    assert {"terms": {"type": ["fact"]}} in clauses and {"terms": {"sensitivity": ["normal"]}} in clauses
    assert keyword_query(FAMILY, "the and of it", search_filter, 5) is None


# What OpenSearch's analyzers make of text written without spaces: one token per character of
# Han, Hiragana, Katakana or Hangul (as they look after NFKD: Hangul syllables become jamo).
_CJK = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_ANALYZED = re.compile(f"[{_CJK}]|[^{_CJK}\\W_]+")


def analyzed_tokens(text: str) -> list[str]:
    return _ANALYZED.findall(text)


def worst_clauses(body: dict[str, Any]) -> int:
    """Each analyzed token may expand to max_expansions terms in each field; filters add a few."""
    multi = body["query"]["bool"]["must"][0]["multi_match"]
    tokens = analyzed_tokens(multi["query"])
    return len(tokens) * len(TEXT_BOOSTS) * int(multi["max_expansions"]) + 3 * len(body["query"]["bool"]["filter"])


def test_a_long_message_is_cut_to_the_words_the_embedded_engine_searches_and_stays_under_the_clause_limit() -> None:
    message = " ".join(f"word{n} the word{n}" for n in range(400))
    body = keyword_query(FAMILY, message, SearchFilter.current(TODAY), 10)
    assert body is not None
    sent = body["query"]["bool"]["must"][0]["multi_match"]["query"].split()
    assert sent == query_words(message) == [f"word{n}" for n in range(MAX_QUERY_WORDS)]
    assert worst_clauses(body) <= MAX_CLAUSES


LONG_CJK_MESSAGES = [
    "玛雅的正畸医生是帕特尔医生每六周去一次榆树街的诊所" * 40,  # Chinese, no spaces at all
    "マヤの歯医者はパテル先生です。六週間ごとにエルム通りへ行きます。" * 30,  # Japanese, kana and kanji
    "마야의치과의사는파텔선생님입니다 " * 60,  # Korean
    " ".join(f"orthodontist{n} 玛雅的正畸医生{n}" for n in range(100)),  # mixed, many short runs
]


@pytest.mark.parametrize("message", LONG_CJK_MESSAGES, ids=["zh", "ja", "ko", "mixed"])
def test_a_long_cjk_message_counts_one_token_a_character_and_stays_under_the_clause_limit(message: str) -> None:
    body = keyword_query(FAMILY, message, SearchFilter.current(TODAY), 10)
    assert body is not None
    sent = body["query"]["bool"]["must"][0]["multi_match"]["query"]
    assert sent == " ".join(query_words(message)) and sent
    assert len(analyzed_tokens(sent)) <= MAX_QUERY_WORDS and len(sent) <= MAX_QUERY_TEXT_CHARS
    assert worst_clauses(body) <= MAX_CLAUSES


def test_every_request_of_every_operation_carries_the_family_term() -> None:
    index, _, client = subject()
    m = memory()
    index.upsert(FAMILY, [doc(m)])
    index.upsert(FAMILY, [doc(m.evolve(revision=2))], force=True)
    index.get(FAMILY, [m.id])
    list(index.documents(FAMILY))
    index.duplicates(FAMILY)
    index.semantic(FAMILY, [1.0, 0.0], SearchFilter.any_status(), 3)
    index.keyword(FAMILY, "anything", SearchFilter.any_status(), 3)
    index.delete(FAMILY, [m.id])
    searches = [kw["body"] for name, kw in client.calls if name == "search"]
    assert len(searches) == 8
    for body in searches:
        query = body["query"]
        clauses = query["knn"]["embedding"]["filter"]["bool"]["filter"] if "knn" in query else query["bool"]["filter"]
        assert clauses[0] == FAMILY_TERM, body


# --- writes without client ids -----------------------------------------------------------------


def test_a_write_is_a_bulk_index_without_an_id_or_a_version() -> None:
    index, engine, client = subject()
    document = doc(memory(revision=4))
    index.upsert(FAMILY, [document])
    assert client.names() == ["exists", "create", "search", "bulk"]
    assert client.calls[1][1]["body"] == index_body(2, MODEL)
    search = client.calls[2][1]["body"]
    assert search["_source"] == ["family_id", "memory_id", "revision"]
    assert {"terms": {"memory_id": [document.memory_id]}} in search["query"]["bool"]["filter"]
    action, source = client.calls[3][1]["body"]
    assert action == {"index": {"_index": "family-memories"}}
    assert source == document.model_dump(mode="json")
    assert [s["revision"] for s in engine.copies(document.memory_id)] == [4]


def test_out_of_order_upserts_converge_on_the_newest_revision() -> None:
    index, engine, _ = subject(delay=10.0)
    m = memory()
    index.upsert(FAMILY, [doc(m.evolve(revision=3))])
    index.upsert(FAMILY, [doc(m)])  # the late event: its search cannot see revision 3 yet
    assert sorted(s["revision"] for s in engine.copies(m.id)) == [1, 3]
    engine.settle()
    assert index.get(FAMILY, [m.id])[m.id].revision == 3  # reads keep the newest copy
    assert index.revisions(FAMILY) == {m.id: 3} and index.duplicates(FAMILY) == {m.id: 2}
    index.upsert(FAMILY, [doc(m)])  # the late event once more, now seeing both: it cleans up
    assert [s["revision"] for s in engine.copies(m.id)] == [3]
    index.upsert(FAMILY, [doc(m.evolve(revision=4))])
    assert [s["revision"] for s in engine.copies(m.id)] == [4]


def test_a_forced_upsert_replaces_a_newer_document() -> None:
    index, engine, client = subject()
    m = memory()
    index.upsert(FAMILY, [doc(m.evolve(revision=5))])
    index.upsert(FAMILY, [doc(m)], force=True)
    assert [s["revision"] for s in engine.copies(m.id)] == [1]
    bulks = [kw["body"] for name, kw in client.calls if name == "bulk"]
    assert "index" in bulks[-2][0] and "delete" in bulks[-1][0]  # written before the old copy goes
    assert index.get(FAMILY, [m.id])[m.id].revision == 1


def test_same_revision_copies_written_at_once_converge_on_the_smallest_id() -> None:
    index, engine, _ = subject(delay=10.0)
    m = memory(revision=2)
    index.upsert(FAMILY, [doc(m)])
    index.upsert(FAMILY, [doc(m)])  # a second indexer, at the same moment
    ids = sorted(engine.stored)
    assert len(ids) == 2
    engine.settle()
    assert len(index.get(FAMILY, [m.id])) == 1 and [d.memory_id for d in index.documents(FAMILY)] == [m.id]
    # Two more events at once: both searches see both copies; both keep the smaller id.
    index.upsert(FAMILY, [doc(m)])
    index.upsert(FAMILY, [doc(m)])
    assert list(engine.stored) == ids[:1]


def test_no_interleaving_of_indexer_events_deletes_every_copy() -> None:
    # Random schedules of events for one memory (revisions 1..4, duplicates, out of order),
    # each write reaching search after its own delay of up to 10 s, with random pauses.
    raced = 0
    for seed in range(150):
        rng = random.Random(seed)
        index, engine, _ = subject(delay=10.0, seed=seed)
        m = memory()
        written = 0
        for _ in range(rng.randint(2, 12)):
            revision = rng.randint(1, 4)
            index.upsert(FAMILY, [doc(m.evolve(revision=revision))])
            written = max(written, revision)
            engine.advance(rng.choice([0.0, 0.0, 1.0, 4.0, 12.0]))
            copies = engine.copies(m.id)
            assert copies, f"seed {seed}: every copy was deleted"
            assert max(c["revision"] for c in copies) == written, seed
            raced += len(copies) > 1
        engine.settle()
        index.upsert(FAMILY, [doc(m.evolve(revision=written))])  # the memory's next event
        assert [c["revision"] for c in engine.copies(m.id)] == [written], seed
    assert raced > 100  # the schedules did leave several copies at once, often


def test_the_keeper_among_same_revision_copies_is_the_one_every_skipper_picks() -> None:
    a, b, older = Copy("a1", 3), Copy("b2", 3), Copy("0", 2)
    assert doomed_copies([b, older, a], 3, written=False, force=False) == [b, older]
    assert doomed_copies([b, a], 3, written=False, force=False) == [b]
    assert doomed_copies([older], 3, written=True, force=False) == [older]
    assert doomed_copies([a, b], 1, written=True, force=True) == [a, b]


def test_stale_copies_are_hidden_from_every_read() -> None:
    index, engine, _ = subject(delay=10.0)
    m = memory(summary="Soccer practice moved to Tuesdays.")
    index.upsert(FAMILY, [doc(m.evolve(revision=2, summary="Soccer practice moved to Thursdays."))])
    index.upsert(FAMILY, [doc(m, vector=(0.8, 0.6))])
    engine.settle()
    assert len(engine.copies(m.id)) == 2
    assert [h.revision for h in index.semantic(FAMILY, [0.8, 0.6], SearchFilter(), 5)] == [2]
    assert [h.revision for h in index.keyword(FAMILY, "soccer practice", SearchFilter(), 5)] == [2]
    assert [d.revision for d in index.documents(FAMILY)] == [2]
    assert index.get(FAMILY, [m.id])[m.id].summary.endswith("Thursdays.")


def test_duplicates_do_not_starve_k() -> None:
    index, engine, _ = subject(delay=10.0)
    memories = [memory(summary=f"Piano lesson {n}.") for n in range(6)]
    for m in memories:  # each memory twice: one stale copy per memory
        index.upsert(FAMILY, [doc(m)])
        index.upsert(FAMILY, [doc(m.evolve(revision=2))])
    engine.settle()
    assert len(engine.stored) == 12
    assert len({h.memory_id for h in index.semantic(FAMILY, [0.6, 0.8], SearchFilter(), 5)}) == 5
    assert len(index.keyword(FAMILY, "piano", SearchFilter(), 6)) == 6


def test_documents_page_without_splitting_a_memorys_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adapter, "PAGE", 3)
    index, engine, client = subject(delay=10.0)
    memories = sorted((memory() for _ in range(5)), key=lambda m: m.id)
    for m in memories:  # two indexers at once, same revision: copies that tie on the sort
        index.upsert(FAMILY, [doc(m.evolve(revision=2))])
        index.upsert(FAMILY, [doc(m.evolve(revision=2))])
    index.upsert(FAMILY, [doc(memories[0])])  # and a stale one
    engine.settle()
    assert [(d.memory_id, d.revision) for d in index.documents(FAMILY)] == [(m.id, 2) for m in memories]
    assert index.duplicates(FAMILY) == {m.id: 2 for m in memories} | {memories[0].id: 3}
    pages = [kw["body"] for name, kw in client.calls if name == "search"][-5:]
    assert all(page["sort"] == [{"memory_id": "asc"}, {"revision": "desc"}] for page in pages)


def test_delete_removes_every_copy_and_ignores_absent_ones() -> None:
    index, engine, _ = subject(delay=10.0)
    kept, gone = memory(), memory()
    index.upsert(FAMILY, [doc(kept), doc(gone)])
    index.upsert(FAMILY, [doc(gone.evolve(revision=2))])
    engine.settle()
    index.delete(FAMILY, [gone.id, memory().id])
    assert engine.copies(gone.id) == [] and len(engine.copies(kept.id)) == 1
    engine.settle()
    index.delete(FAMILY, [gone.id])  # nothing left to find: nothing sent
    assert set(index.get(FAMILY, [kept.id, gone.id])) == {kept.id}


def test_another_familys_documents_are_neither_read_nor_deleted() -> None:
    index, engine, _ = subject()
    m = memory()
    index.upsert(OTHER_FAMILY, [doc(m, OTHER_FAMILY)])
    index.upsert(FAMILY, [doc(m.evolve(revision=5), FAMILY)])
    assert index.get(OTHER_FAMILY, [m.id])[m.id].revision == 1  # the other family's copy is not ours to clean
    index.delete(FAMILY, [m.id])
    assert [(s["family_id"], s["revision"]) for s in engine.copies(m.id)] == [(OTHER_FAMILY, 1)]


def test_search_hits_become_cosine_scores_and_other_families_hits_are_dropped() -> None:
    m = memory()
    response = {
        "hits": {
            "hits": [
                {"_id": "a", "_score": 1.75, "_source": {"family_id": FAMILY, "memory_id": m.id, "revision": 2}},
                {"_id": "b", "_score": 1.9, "_source": {"family_id": OTHER_FAMILY, "memory_id": m.id, "revision": 9}},
            ]
        }
    }
    index, _, client = subject()
    client.engine.exists = True
    client.engine.search = lambda body: response  # type: ignore[method-assign]
    hits = index.semantic(FAMILY, [1.0, 0.0], SearchFilter(), 5)
    assert [(h.memory_id, round(h.score, 6), h.revision) for h in hits] == [(m.id, 0.75, 2)]


# --- failures ------------------------------------------------------------------------------------


def test_a_refused_write_raises_naming_the_memory_and_nothing_is_deleted() -> None:
    index, engine, _ = subject()
    good, bad = memory(), memory()
    index.upsert(FAMILY, [doc(good), doc(bad)])
    engine.refuse = lambda action, key: (
        {"status": 409, "type": "version_conflict_engine_exception"} if key == bad.id else None
    )
    with pytest.raises(IndexUnavailableError, match=f"index {bad.id}: 409"):
        index.upsert(FAMILY, [doc(good.evolve(revision=2)), doc(bad.evolve(revision=2))])
    # The old copies stay: an upsert deletes only after every write succeeded.
    assert sorted(s["revision"] for s in engine.copies(bad.id)) == [1]
    assert sorted(s["revision"] for s in engine.copies(good.id)) == [1, 2]


def test_a_refused_delete_raises_but_a_document_already_gone_is_fine() -> None:
    index, engine, _ = subject(delay=10.0)
    m = memory()
    index.upsert(FAMILY, [doc(m)])
    engine.settle()
    (doc_id,) = engine.stored
    del engine.stored[doc_id]  # gone, and search has not caught up
    index.delete(FAMILY, [m.id])
    index.upsert(FAMILY, [doc(m.evolve(revision=2))])
    engine.settle()
    engine.refuse = lambda action, key: {"status": 500, "type": "boom"} if action == "delete" else None
    with pytest.raises(IndexUnavailableError, match="delete .*: 500"):
        index.delete(FAMILY, [m.id])


def test_a_client_chosen_id_is_what_a_vectorsearch_collection_refuses() -> None:
    # The engine model refuses ids as the collection does, so the writes above prove none is sent.
    answer = Engine().bulk([{"index": {"_index": "x", "_id": "fam.m"}}, {"memory_id": "m"}])
    assert answer["errors"] and answer["items"][0]["index"]["error"]["reason"] == ID_REFUSED


def test_connection_failures_become_index_unavailable() -> None:
    client = RecordingClient(failures={"exists": [OSConnectionError("N/A", "refused", Exception("refused"))]})
    with pytest.raises(IndexUnavailableError, match="index check"):
        OpenSearchIndex(cast("OpenSearch", client), 1).keyword(FAMILY, "xylophone", SearchFilter(), 5)


def test_a_search_before_the_index_exists_finds_nothing_and_never_creates_it() -> None:
    # Reconcile's role may describe and read the index, not create it: only the indexer does.
    index, engine, client = subject()
    assert index.semantic(FAMILY, [0.6, 0.8], SearchFilter(), 5) == []
    assert index.keyword(FAMILY, "pills", SearchFilter(), 5) == []
    assert index.get(FAMILY, [memory().id]) == {}
    assert list(index.documents(FAMILY)) == []
    index.delete(FAMILY, [memory().id])
    assert client.names() == ["exists"] * 5 and not engine.exists
    engine.exists = True  # the indexer created it meanwhile: searches go through, the answer remembered
    index.keyword(FAMILY, "pills", SearchFilter(), 5)
    index.keyword(FAMILY, "pills", SearchFilter(), 5)
    assert client.names()[5:] == ["exists", "search", "search"]


# --- the existing index must fit the embedder ------------------------------------------------------


def existing(mapping: dict[str, Any]) -> tuple[OpenSearchIndex, RecordingClient]:
    engine = Engine(exists=True, mapping=mapping)
    client = RecordingClient(engine)
    return OpenSearchIndex(cast("OpenSearch", client), 2, embedding_model=MODEL), client


def test_an_existing_index_is_checked_once_against_the_embedder() -> None:
    index, client = existing(index_body(2, MODEL)["mappings"])
    index.upsert(FAMILY, [doc(memory())])
    index.upsert(FAMILY, [doc(memory())])
    assert client.names().count("get_mapping") == 1 and "create" not in client.names()


@pytest.mark.parametrize(
    ("mapping", "named"),
    [
        (index_body(1024, MODEL)["mappings"], "1024 dimensions, the embedder's have 2"),
        (index_body(2, "amazon.titan-embed-text-v1")["mappings"], "amazon.titan-embed-text-v1, the embedder is"),
    ],
)
def test_an_index_built_for_another_embedder_is_refused(mapping: dict[str, Any], named: str) -> None:
    index, client = existing(mapping)
    with pytest.raises(IndexMismatchError, match=named) as caught:
        index.upsert(FAMILY, [doc(memory())])
    assert "run rebuild-index into a new OPENSEARCH_INDEX" in str(caught.value)
    assert "bulk" not in client.names()


def test_another_space_type_is_refused() -> None:
    mapping = index_body(2, MODEL)["mappings"]
    mapping["properties"]["embedding"]["method"]["space_type"] = "l2"
    index, _ = existing(mapping)
    with pytest.raises(IndexMismatchError, match="space type is l2"):
        index.upsert(FAMILY, [doc(memory())])


def test_an_index_without_a_recorded_model_is_used_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    index, client = existing(index_body(2)["mappings"])
    index.upsert(FAMILY, [doc(memory())])
    assert "bulk" in client.names() and "does not record its embedding model" in caplog.text


# --- the rebuild report ---------------------------------------------------------------------------


def test_the_equivalence_report_names_duplicated_memories() -> None:
    report = IndexReport(FAMILY, duplicated={"01K6N1R0A0B0C0D0E0F0MEM001": 2})
    assert not report.consistent
    assert "  duplicated        01K6N1R0A0B0C0D0E0F0MEM001: 2 documents" in report.lines()


def test_cosine_is_recovered_from_innerproduct_scores() -> None:
    assert cosine_from_score(2.0) == 1.0
    assert cosine_from_score(1.0) == 0.0
    assert cosine_from_score(0.5) == pytest.approx(-1.0)


def test_an_index_made_before_the_quotes_field_is_refused_with_what_to_do() -> None:
    from family_memory.adapters.aws.opensearch_index import mapping_problems

    old = index_body(2, MODEL)["mappings"]
    del old["properties"]["quotes"]
    assert mapping_problems(old, 2, MODEL) == ["its mapping has no quotes field"]
    assert mapping_problems(index_body(2, MODEL)["mappings"], 2, MODEL) == []
