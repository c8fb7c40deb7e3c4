"""One contract, three indexes: the embedded index always; the OpenSearch adapter against
osmem-server (an in-memory OpenSearch-compatible engine from PyPI, started here on
127.0.0.1) for everything but kNN, as a second opinion beside the hand-written engine
model (a test reaching a semantic search is skipped there, with the reason); and
OpenSearch Serverless when OPENSEARCH_ENDPOINT names a collection (with AWS credentials
and AWS_REGION in the environment; see docs/retrieval.md). Each run against an engine
uses a fresh index and deletes it afterwards."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from factories import FAMILY, OTHER_FAMILY, memory
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import Memory, MemoryType, Sensitivity, Status, embedding_text
from family_memory.retrieval.documents import IndexDocument, document_from_memory
from family_memory.retrieval.search_index import MemoryIndex, SearchFilter
from retrieval_helpers import hashed

TODAY = date(2026, 11, 30)
ENDPOINT = os.environ.get("OPENSEARCH_ENDPOINT")


class Subject:
    def __init__(self, index: MemoryIndex, settle: bool) -> None:
        self.index = index
        self._settle = settle

    def settle(self, family_id: str, ids: list[str]) -> None:
        """A real collection refreshes on its own schedule; wait until writes are searchable."""
        if self._settle:
            self.index.wait_until_searchable(family_id, ids)  # type: ignore[attr-defined]

    def eventually(self, check: Callable[[], bool], timeout: float = 60.0) -> bool:
        """``check()``, once for the embedded index (its writes are read at once); against a
        real collection, retried until it holds or ``timeout`` passes (a write reaches
        search about 10 s later, a delete too)."""
        deadline = time.monotonic() + (timeout if self._settle else 0.0)
        while not check() and time.monotonic() < deadline:
            time.sleep(1.0)
        return check()


@pytest.fixture(scope="session")
def osmem() -> Iterator[str]:
    """The URL of an osmem-server on 127.0.0.1 for this test session (skipped, with the
    reason, where it cannot start: no binary for this platform, or it did not come up)."""
    try:
        from osmem_server import OsmemError, OsmemServer  # type: ignore[import-untyped]
    except ImportError as exc:
        pytest.skip(f"osmem-server is not installed ({exc}); it is in the dev extra")
    try:
        server = OsmemServer.start(addr="127.0.0.1:0", japanese=False, startup_timeout=20)
    except (OsmemError, OSError) as exc:
        pytest.skip(f"osmem-server could not start here: {exc}")
    if not server.url.startswith("http://127.0.0.1:"):
        server.close()
        pytest.skip(f"osmem-server listens on {server.url}, not on loopback")
    try:
        yield server.url
    finally:
        server.close()


@pytest.fixture(params=["embedded", "osmem", "opensearch"])
def subject(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Subject]:
    embedder = hashed()
    if request.param == "embedded":
        from family_memory.adapters.local.embedded_index import EmbeddedIndex

        yield Subject(EmbeddedIndex(tmp_path / "index", embedder.dimension), settle=False)
        return
    if request.param == "osmem":
        url = request.getfixturevalue("osmem")
        request.getfixturevalue("socket_enabled")
        from family_memory.adapters.aws.opensearch_index import opensearch_client

        client = opensearch_client(url, None)  # plain http, no auth: the self-managed path
        name = f"family-memories-contract-{uuid.uuid4().hex[:8]}"
        try:
            yield Subject(WithoutKnn(client, embedder.dimension, name, embedder.model_id), settle=True)
        finally:
            client.indices.delete(index=name, ignore_unavailable=True)
        return
    if not ENDPOINT:
        pytest.skip("OPENSEARCH_ENDPOINT is not set: the contract runs against the embedded index only")
    request.getfixturevalue("socket_enabled")
    from family_memory.adapters.aws.opensearch_index import OpenSearchIndex, opensearch_client

    client = opensearch_client(ENDPOINT, os.environ["AWS_REGION"])
    name = f"family-memories-contract-{uuid.uuid4().hex[:8]}"
    index = OpenSearchIndex(client, embedder.dimension, name, embedder.model_id)
    try:
        yield Subject(index, settle=True)
    finally:
        client.indices.delete(index=name, ignore_unavailable=True)


def _without_knn() -> type:
    from family_memory.adapters.aws.opensearch_index import OpenSearchIndex

    class NoKnnIndex(OpenSearchIndex):
        """The adapter as it is, but a semantic search skips the test: osmem-server has no kNN."""

        def semantic(self, *args: object, **kwargs: object) -> list[Any]:
            pytest.skip("osmem-server emulates OpenSearch's REST API except kNN (semantic search)")

    return NoKnnIndex


def WithoutKnn(*args: Any) -> MemoryIndex:
    index: MemoryIndex = _without_knn()(*args)
    return index


def doc(family_id: str = FAMILY, m: Memory | None = None, **overrides: object) -> IndexDocument:
    m = m or memory(**overrides)
    embedder = hashed()
    return document_from_memory(family_id, m, embedder.model_id, embedder.embed_one(embedding_text(m)))


def vector(text: str) -> list[float]:
    return hashed().embed_one(text)


def test_documents_are_keyed_by_memory_id_and_read_back_without_embeddings(subject: Subject) -> None:
    first, second = doc(summary="Coach Alvarez runs practice."), doc(summary="Pizza on Fridays.")
    subject.index.upsert(FAMILY, [first, second])
    subject.settle(FAMILY, [first.memory_id, second.memory_id])
    got = subject.index.get(FAMILY, [first.memory_id, second.memory_id, new_ulid()])
    assert got == {first.memory_id: first.without_embedding(), second.memory_id: second.without_embedding()}
    assert list(subject.index.documents(FAMILY)) == sorted(got.values(), key=lambda d: d.memory_id)
    assert subject.index.revisions(FAMILY) == {first.memory_id: 1, second.memory_id: 1}


def test_another_familys_documents_never_come_back(subject: Subject) -> None:
    ours = doc(FAMILY, summary="Dentist is Dr. Chen on Main Street.")
    theirs = doc(OTHER_FAMILY, summary="Dentist is Dr. Chen on Main Street.")
    subject.index.upsert(FAMILY, [ours])
    subject.index.upsert(OTHER_FAMILY, [theirs])
    subject.settle(FAMILY, [ours.memory_id])
    subject.settle(OTHER_FAMILY, [theirs.memory_id])
    anything = SearchFilter.any_status()
    assert [h.memory_id for h in subject.index.keyword(FAMILY, "dentist Chen", anything, 10)] == [ours.memory_id]
    assert subject.index.get(FAMILY, [theirs.memory_id]) == {}
    assert [d.memory_id for d in subject.index.documents(FAMILY)] == [ours.memory_id]
    subject.index.delete(FAMILY, [theirs.memory_id])  # deleting "their" id through our family does nothing
    assert subject.index.get(OTHER_FAMILY, [theirs.memory_id]) != {}
    assert [h.memory_id for h in subject.index.semantic(FAMILY, vector("dentist Chen"), anything, 10)] == [
        ours.memory_id
    ]


def test_a_document_of_another_family_or_without_a_vector_is_refused(subject: Subject) -> None:
    with pytest.raises(InvalidInputError, match="belongs to family"):
        subject.index.upsert(FAMILY, [doc(OTHER_FAMILY)])
    with pytest.raises(InvalidInputError, match="embedding"):
        subject.index.upsert(FAMILY, [doc().without_embedding()])


def test_semantic_search_ranks_the_closest_first_with_cosine_scores(subject: Subject) -> None:
    docs = [
        doc(about="Soccer", summary="Coach Alvarez runs Saturday soccer practice."),
        doc(about="Pharmacy", summary="Prescriptions at the Walgreens on 5th Street."),
        doc(about="Piano", summary="Leo has piano lessons on Wednesdays."),
    ]
    subject.index.upsert(FAMILY, docs)
    subject.settle(FAMILY, [d.memory_id for d in docs])
    assert docs[0].embedding is not None
    hits = subject.index.semantic(FAMILY, docs[0].embedding, SearchFilter(), 2)
    assert hits[0].memory_id == docs[0].memory_id and len(hits) == 2
    assert hits[0].score == pytest.approx(1.0, abs=1e-3) and hits[0].score > hits[1].score >= -1.0
    assert hits[0].revision == 1


def test_keyword_search_tolerates_small_misspellings(subject: Subject) -> None:
    camp = doc(about="Summer camp", summary="Maya went to Camp Kinnikinnick by the lake.")
    other = doc(about="Piano", summary="Leo has piano lessons on Wednesdays.")
    subject.index.upsert(FAMILY, [camp, other])
    subject.settle(FAMILY, [camp.memory_id, other.memory_id])
    for query in ("Kinnikinnick", "kinikinnick", "Kinnikinick camp", "lessons piano"):
        hits = subject.index.keyword(FAMILY, query, SearchFilter(), 5)
        assert hits, query
    assert subject.index.keyword(FAMILY, "kinikinnick", SearchFilter(), 5)[0].memory_id == camp.memory_id
    assert subject.index.keyword(FAMILY, "xylophone", SearchFilter(), 5) == []


CASES: list[dict[str, Any]] = [
    {"status": Status.ACTIVE},
    {"status": Status.DORMANT},
    {"status": Status.EXPIRED},
    {"status": Status.RETRACTED},
    {"status": Status.ACTIVE, "valid_until": date(2026, 11, 30)},
    {"status": Status.ACTIVE, "valid_until": date(2026, 12, 1)},
    {"status": Status.ACTIVE, "type": MemoryType.DIRECTIVE},
    {"status": Status.ACTIVE, "sensitivity": Sensitivity.HEALTH},
    {"status": Status.ACTIVE, "applies_to": ["01K6N1R0A0B0C0D0E0F0ENT002"]},
]
FILTERS = [
    SearchFilter(),
    SearchFilter.current(TODAY),
    SearchFilter.any_status(),
    SearchFilter(statuses=frozenset({Status.DORMANT, Status.EXPIRED})),
    SearchFilter.current(TODAY, types=frozenset({MemoryType.DIRECTIVE})),
    SearchFilter.current(TODAY, sensitivities=frozenset({Sensitivity.NORMAL})),
    SearchFilter(statuses=None, applies_to=frozenset({"01K6N1R0A0B0C0D0E0F0ENT002"})),
]


def test_keyword_search_finds_the_familys_own_words_in_the_quotes(subject: Subject) -> None:
    m = memory(summary="Kai swims at the recreation center.", about="Kai's swimming", body="")
    embedder = hashed()
    quoted = document_from_memory(
        FAMILY, m, embedder.model_id, embedder.embed_one(embedding_text(m)), ["kai swims at the rec on alder"]
    )
    other = doc(summary="Pizza on Fridays.")
    subject.index.upsert(FAMILY, [quoted, other])
    subject.settle(FAMILY, [quoted.memory_id, other.memory_id])
    assert [h.memory_id for h in subject.index.keyword(FAMILY, "alder", SearchFilter(), 10)] == [m.id]
    assert subject.index.get(FAMILY, [m.id])[m.id].quotes == ["kai swims at the rec on alder"]


def test_both_searches_apply_the_filter_exactly_as_the_rule_states(subject: Subject) -> None:
    docs = [
        doc(summary=f"Swimming lessons note {n}.", about="Swimming lessons", **case) for n, case in enumerate(CASES)
    ]
    subject.index.upsert(FAMILY, docs)
    subject.settle(FAMILY, [d.memory_id for d in docs])
    # Keyword first for every filter, then semantic (an engine without kNN checks the first half).
    for search_filter in FILTERS:
        expected = {d.memory_id for d in docs if search_filter.admits(d)}
        keyword = subject.index.keyword(FAMILY, "swimming lessons", search_filter, 50)
        assert {h.memory_id for h in keyword} == expected, search_filter
    for search_filter in FILTERS:
        expected = {d.memory_id for d in docs if search_filter.admits(d)}
        semantic = subject.index.semantic(FAMILY, vector("swimming lessons"), search_filter, 50)
        assert {h.memory_id for h in semantic} == expected, search_filter


def test_an_older_revision_never_replaces_a_newer_one_unless_forced(subject: Subject) -> None:
    m = memory(summary="Revision one.")
    newer = m.evolve(revision=3, summary="Revision three.")
    subject.index.upsert(FAMILY, [doc(m=newer)])
    subject.index.upsert(FAMILY, [doc(m=m)])  # a late event (a real collection may not show revision 3 yet)
    subject.settle(FAMILY, [m.id])
    assert subject.index.get(FAMILY, [m.id])[m.id].revision == 3
    subject.index.upsert(FAMILY, [doc(m=newer)])  # the same revision again is fine (a duplicate event)
    assert subject.index.get(FAMILY, [m.id])[m.id].revision == 3
    subject.index.upsert(FAMILY, [doc(m=m)], force=True)  # a rebuild from the files wins
    assert subject.eventually(lambda: subject.index.revisions(FAMILY) == {m.id: 1})
    assert subject.eventually(lambda: subject.index.duplicates(FAMILY) == {})  # one document per memory


def test_delete_removes_documents_and_ignores_absent_ones(subject: Subject) -> None:
    kept, gone = doc(), doc()
    subject.index.upsert(FAMILY, [kept, gone])
    subject.settle(FAMILY, [kept.memory_id, gone.memory_id])
    subject.index.delete(FAMILY, [gone.memory_id, new_ulid()])
    assert subject.eventually(
        lambda: set(subject.index.get(FAMILY, [kept.memory_id, gone.memory_id])) == {kept.memory_id}
    )


def test_a_family_with_no_documents_finds_nothing(subject: Subject) -> None:
    assert subject.index.keyword("fam-empty", "anything", SearchFilter(), 5) == []
    assert list(subject.index.documents("fam-empty")) == []
    assert subject.index.semantic("fam-empty", vector("anything"), SearchFilter(), 5) == []


def test_bad_family_ids_and_k_are_refused(subject: Subject) -> None:
    with pytest.raises(InvalidInputError):
        subject.index.keyword(FAMILY, "x", SearchFilter(), 0)
    with pytest.raises(InvalidInputError):
        subject.index.keyword("../etc", "x", SearchFilter(), 5)
    with pytest.raises(InvalidInputError):
        subject.index.semantic("../etc", vector("x"), SearchFilter(), 5)
