"""The OpenSearch adapter through its mapping and query bodies, and its
requests through a recording client (OpenSearch has no local engine here;
the contract suite runs against a real collection when one is configured)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import RequestError

from factories import FAMILY, OTHER_FAMILY, memory
from family_memory.adapters.aws.opensearch_index import (
    OpenSearchIndex,
    cosine_from_score,
    index_body,
    keyword_query,
    semantic_query,
)
from family_memory.domain.memory import MemoryType, Sensitivity, Status, embedding_text
from family_memory.retrieval.documents import document_from_memory
from family_memory.retrieval.index import IndexUnavailableError, SearchFilter

TODAY = date(2026, 11, 30)
FAMILY_TERM = {"term": {"family_id": FAMILY}}


class RecordingClient:
    """opensearch-py's surface as the adapter uses it, recording each request."""

    def __init__(self, responses: dict[str, list[Any]] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.responses = responses or {}
        self.indices = self

    def _answer(self, name: str, **kwargs: Any) -> Any:
        self.calls.append((name, kwargs))
        queued = self.responses.get(name)
        answer = queued.pop(0) if queued else {}
        if isinstance(answer, Exception):
            raise answer
        return answer

    def exists(self, **kw: Any) -> Any:
        return self._answer("exists", **kw) or False

    def create(self, **kw: Any) -> Any:
        return self._answer("create", **kw)

    def bulk(self, **kw: Any) -> Any:
        return self._answer("bulk", **kw)

    def mget(self, **kw: Any) -> Any:
        return self._answer("mget", **kw)

    def search(self, **kw: Any) -> Any:
        return self._answer("search", **kw) or {"hits": {"hits": []}}


def test_the_mapping_has_keywords_english_text_dates_and_a_knn_vector_of_the_embedder_dimension() -> None:
    body = index_body(512)
    properties = body["mappings"]["properties"]
    for name in ("family_id", "status", "type", "applies_to", "sensitivity", "strength", "authority"):
        assert properties[name] == {"type": "keyword"}
    for name in ("about", "summary", "when_to_use", "body"):
        assert properties[name] == {"type": "text", "analyzer": "english"}
    assert properties["valid_until"]["type"] == "date" and properties["revision"] == {"type": "integer"}
    assert properties["embedding"]["type"] == "knn_vector" and properties["embedding"]["dimension"] == 512
    assert properties["embedding"]["method"]["space_type"] == "innerproduct"
    assert body["settings"]["index"]["knn"] is True and body["mappings"]["dynamic"] == "strict"
    document_fields = set(document_from_memory(FAMILY, memory(), "m", [0.0]).model_dump())
    assert document_fields == set(properties)


def test_the_semantic_query_puts_the_family_and_eligibility_filters_inside_the_knn_clause() -> None:
    body = semantic_query(FAMILY, [0.5, 0.5], SearchFilter.current(TODAY), 7)
    knn = body["query"]["knn"]["embedding"]
    assert knn["vector"] == [0.5, 0.5] and knn["k"] == 7 and body["size"] == 7
    clauses = knn["filter"]["bool"]["filter"]
    assert clauses[0] == FAMILY_TERM
    assert {"terms": {"status": ["active"]}} in clauses
    validity = clauses[2]["bool"]
    assert validity["minimum_should_match"] == 1
    assert {"range": {"valid_until": {"gt": "2026-11-30"}}} in validity["should"]
    assert body["_source"] == {"excludes": ["embedding"]}


def test_the_keyword_query_is_a_fuzzy_multi_match_with_the_family_filter() -> None:
    search_filter = SearchFilter.current(
        TODAY, types=frozenset({MemoryType.FACT}), sensitivities=frozenset({Sensitivity.NORMAL})
    )
    body = keyword_query(FAMILY, "orthodontst", search_filter, 5)
    multi = body["query"]["bool"]["must"][0]["multi_match"]
    assert multi["fuzziness"] == "AUTO" and multi["query"] == "orthodontst"
    assert multi["fields"] == ["about^3", "summary^2", "when_to_use", "body"]
    clauses = body["query"]["bool"]["filter"]
    assert clauses[0] == FAMILY_TERM
    assert {"terms": {"type": ["fact"]}} in clauses and {"terms": {"sensitivity": ["normal"]}} in clauses


def test_the_family_filter_is_added_even_when_the_caller_asks_for_anything() -> None:
    for body in (
        semantic_query(OTHER_FAMILY, [1.0], SearchFilter.any_status(), 3),
        keyword_query(OTHER_FAMILY, "x", SearchFilter.any_status(), 3),
    ):
        text = repr(body)
        assert "{'term': {'family_id': 'fam-okafor'}}" in text and "status" not in text


def test_upserts_are_keyed_by_family_and_memory_id_with_external_revisions() -> None:
    client = RecordingClient({"bulk": [{"errors": False}]})
    index = OpenSearchIndex(client, 2)
    m = memory(revision=4)
    document = document_from_memory(FAMILY, m, "test", [0.6, 0.8])
    index.upsert(FAMILY, [document])
    names = [name for name, _ in client.calls]
    assert names == ["exists", "create", "bulk"]
    assert client.calls[1][1]["body"] == index_body(2)
    action, source = client.calls[2][1]["body"]
    assert action == {
        "index": {"_index": "family-memories", "_id": f"{FAMILY}.{m.id}", "version": 4, "version_type": "external_gte"}
    }
    assert source["embedding"] == [0.6, 0.8] and source["family_id"] == FAMILY and source["status"] == "active"


def test_a_late_older_revision_is_tolerated_but_other_bulk_failures_are_errors() -> None:
    conflict = {"errors": True, "items": [{"index": {"_id": "x", "status": 409, "error": "version conflict"}}]}
    broken = {"errors": True, "items": [{"index": {"_id": "y", "status": 400, "error": "mapper_parsing"}}]}
    client = RecordingClient({"exists": [True], "bulk": [conflict, broken]})
    index = OpenSearchIndex(client, 1)
    document = document_from_memory(FAMILY, memory(), "test", [1.0])
    index.upsert(FAMILY, [document])
    with pytest.raises(IndexUnavailableError, match="mapper_parsing"):
        index.upsert(FAMILY, [document])


def test_a_forced_upsert_deletes_before_it_writes() -> None:
    client = RecordingClient({"exists": [True], "bulk": [{"errors": False}]})
    m = memory()
    OpenSearchIndex(client, 1).upsert(FAMILY, [document_from_memory(FAMILY, m, "t", [1.0])], force=True)
    operations = client.calls[-1][1]["body"]
    assert operations[0] == {"delete": {"_index": "family-memories", "_id": f"{FAMILY}.{m.id}"}}


def test_search_hits_become_cosine_scores_and_other_families_hits_are_dropped() -> None:
    m = memory()
    response = {
        "hits": {
            "hits": [
                {"_score": 1.75, "_source": {"family_id": FAMILY, "memory_id": m.id, "revision": 2}},
                {"_score": 1.5, "_source": {"family_id": OTHER_FAMILY, "memory_id": m.id, "revision": 1}},
            ]
        }
    }
    client = RecordingClient({"exists": [True], "search": [response]})
    hits = OpenSearchIndex(client, 1).semantic(FAMILY, [1.0], SearchFilter(), 5)
    assert [(h.memory_id, round(h.score, 6), h.revision) for h in hits] == [(m.id, 0.75, 2)]


def test_get_reads_documents_of_the_family_only() -> None:
    m = memory()
    document = document_from_memory(FAMILY, m, "t", None)
    source = document.model_dump(mode="json")
    response = {"docs": [{"found": True, "_source": source}, {"found": False}]}
    client = RecordingClient({"exists": [True], "mget": [response]})
    got = OpenSearchIndex(client, 1).get(FAMILY, [m.id])
    assert got == {m.id: document}
    assert client.calls[-1][1]["body"] == {"ids": [f"{FAMILY}.{m.id}"]}


def test_a_search_before_the_index_exists_finds_nothing_and_never_creates_it() -> None:
    # Reconcile's role may describe and read the index, not create it: only the indexer does.
    client = RecordingClient({"exists": [False, False, False, False, True]})
    index = OpenSearchIndex(client, 2)
    assert index.semantic(FAMILY, [0.6, 0.8], SearchFilter(), 5) == []
    assert index.keyword(FAMILY, "pills", SearchFilter(), 5) == []
    assert index.get(FAMILY, [memory().id]) == {}
    assert list(index.documents(FAMILY)) == []
    assert [name for name, _ in client.calls] == ["exists"] * 4
    # Once it exists, the search goes through (and the answer is remembered).
    index.keyword(FAMILY, "pills", SearchFilter(), 5)
    index.keyword(FAMILY, "pills", SearchFilter(), 5)
    assert [name for name, _ in client.calls][4:] == ["exists", "search", "search"]


REFUSED_ID = "Document ID is not supported in create/index operation request"


def test_a_collection_refusing_client_document_ids_is_named_as_the_likely_cause() -> None:
    # A Classic serverless collection answers each bulk item with OpenSearch's own error.
    refused = {
        "errors": True,
        "items": [
            {
                "index": {
                    "_id": "x",
                    "status": 400,
                    "error": {"type": "illegal_argument_exception", "reason": REFUSED_ID},
                }
            }
        ],
    }
    index = OpenSearchIndex(RecordingClient({"exists": [True], "bulk": [refused]}), 2)
    document = document_from_memory(FAMILY, memory(), "test", [0.6, 0.8])
    with pytest.raises(IndexUnavailableError) as caught:
        index.upsert(FAMILY, [document])
    message = str(caught.value)
    assert REFUSED_ID in message and "Classic" in message and "NextGen collection" in message


def test_a_whole_bulk_request_refused_for_its_ids_names_the_cause_too() -> None:
    error = RequestError(400, "illegal_argument_exception", {"error": {"reason": REFUSED_ID}})
    index = OpenSearchIndex(RecordingClient({"exists": [True], "bulk": [error]}), 2)
    with pytest.raises(IndexUnavailableError, match="NextGen collection"):
        index.delete(FAMILY, [memory().id])
    # Any other refusal is reported as OpenSearch gave it, without a guess.
    other = RequestError(400, "mapper_parsing_exception", {"error": {"reason": "failed to parse"}})
    index = OpenSearchIndex(RecordingClient({"exists": [True], "bulk": [other]}), 2)
    with pytest.raises(IndexUnavailableError) as caught:
        index.delete(FAMILY, [memory().id])
    assert "failed to parse" in str(caught.value) and "NextGen" not in str(caught.value)


def test_cosine_is_recovered_from_innerproduct_scores() -> None:
    assert cosine_from_score(2.0) == 1.0
    assert cosine_from_score(1.0) == 0.0
    assert cosine_from_score(0.5) == pytest.approx(-1.0)


def test_connection_failures_become_index_unavailable() -> None:
    client = RecordingClient({"exists": [OSConnectionError("N/A", "refused", Exception("refused"))]})
    with pytest.raises(IndexUnavailableError, match="index check"):
        OpenSearchIndex(client, 1).keyword(FAMILY, "x", SearchFilter(), 5)


def test_documents_of_a_family_page_with_search_after() -> None:
    m = memory()
    source = document_from_memory(FAMILY, m, "t", None).model_dump(mode="json")
    page = {"hits": {"hits": [{"_source": source, "sort": [m.id]}] * 500}}
    client = RecordingClient({"exists": [True], "search": [page, {"hits": {"hits": []}}]})
    assert len(list(OpenSearchIndex(client, 1).documents(FAMILY))) == 500
    second = client.calls[-1][1]["body"]
    assert second["search_after"] == [m.id] and second["query"]["bool"]["filter"] == [FAMILY_TERM]
    assert Status.ACTIVE.value not in repr(second)
    assert embedding_text(m)
