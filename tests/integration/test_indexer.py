"""The indexer keeps the index a projection of the files: it re-reads the file
on every event, converges under duplicate and out-of-order events, and a
rebuild gives the same documents without paying for embeddings twice."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from factories import FAMILY, add, change_set, evidence
from family_memory.adapters.aws.opensearch_index import OpenSearchIndex
from family_memory.adapters.local.events import object_created_event
from family_memory.app.runtime import Runtime
from family_memory.domain.changes import Action
from family_memory.domain.clock import FixedClock
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.layout import evidence_path, memory_path
from family_memory.domain.memory import Status
from family_memory.retrieval.indexer import Indexer, IndexOutcome
from family_memory.retrieval.search_index import SearchFilter
from opensearch_engine import Engine, RecordingClient
from retrieval_helpers import change, fact, local_runtime, remember, retrieval_of

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    return local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")


def key(memory_id: str, family_id: str = FAMILY) -> str:
    return f"families/{family_id}/{memory_path(memory_id)}"


def test_a_memory_write_reaches_the_index_through_the_object_created_event(runtime: Runtime) -> None:
    m = fact("Coach Alvarez runs Saturday practice.", "Coach")
    remember(runtime, m, drain=False)
    retrieval = retrieval_of(runtime)
    assert retrieval.index.get(FAMILY, [m.id]) == {}
    runtime.drain()
    document = retrieval.index.get(FAMILY, [m.id])[m.id]
    assert (document.summary, document.revision, document.embedding) == (m.summary, 1, None)


def test_duplicate_and_out_of_order_events_converge_on_the_files_state(runtime: Runtime) -> None:
    m = fact("Coach Alvarez runs Saturday practice.", "Coach")
    remember(runtime, m)
    newer = change(runtime, m, drain=False, summary="Coach Alvarez runs Sunday practice now.")
    stale_event = object_created_event("bucket", key(m.id), "etag-of-revision-1")
    indexer = retrieval_of(runtime).indexer
    runtime.drain()  # the event for revision 2
    for _ in range(2):  # revision 1's event arrives late, twice
        assert indexer.handle_event(stale_event) is IndexOutcome.INDEXED
    document = retrieval_of(runtime).index.get(FAMILY, [m.id])[m.id]
    assert (document.revision, document.summary) == (2, newer.summary)


def test_an_older_document_never_replaces_a_newer_one(runtime: Runtime) -> None:
    m = fact("Coach Alvarez runs Saturday practice.", "Coach")
    remember(runtime, m)
    newer = change(runtime, m, summary="Coach Alvarez runs Sunday practice now.")
    retrieval = retrieval_of(runtime)
    old_document = retrieval.indexer._document(FAMILY, m)
    retrieval.index.upsert(FAMILY, [old_document])
    assert retrieval.index.get(FAMILY, [m.id])[m.id].summary == newer.summary


def test_an_evidence_sidecar_event_indexes_the_familys_own_words(runtime: Runtime) -> None:
    # The summary paraphrased; the family said "the rec". A message in their words finds the memory.
    m = fact("Kai swims at the recreation center on Alder.", "Kai's swimming")
    runtime.writer.apply(change_set(add(m, evidence("kai swims at the rec on alder"))))
    indexer = retrieval_of(runtime).indexer
    assert indexer.on_object_key(f"families/{FAMILY}/{evidence_path(m.id)}") is IndexOutcome.INDEXED
    document = retrieval_of(runtime).index.get(FAMILY, [m.id])[m.id]
    assert document.quotes == ["kai swims at the rec on alder"]
    hits = retrieval_of(runtime).index.keyword(FAMILY, "rec", SearchFilter(), 5)
    assert [h.memory_id for h in hits] == [m.id]
    assert indexer.rebuild(FAMILY).consistent  # a rebuild reads the same sidecar: the same document


def test_quotes_a_memory_was_contradicted_with_are_not_its_words(runtime: Runtime) -> None:
    m = fact("Maya is allergic to peanuts.", "Maya's peanut allergy")
    against = evidence("she outgrew the peanut thing").model_copy(update={"stance": "contradicts"})
    runtime.writer.apply(change_set(add(m, evidence("maya is allergic to peanuts"), against)))
    runtime.drain()
    assert retrieval_of(runtime).index.get(FAMILY, [m.id])[m.id].quotes == ["maya is allergic to peanuts"]


def test_events_for_other_files_are_ignored(runtime: Runtime) -> None:
    indexer = retrieval_of(runtime).indexer
    assert indexer.on_object_key(f"families/{FAMILY}/brief.json") is IndexOutcome.IGNORED
    assert indexer.on_object_key(f"families/{FAMILY}/sessions/s1.json") is IndexOutcome.IGNORED
    with pytest.raises(InvalidInputError):
        indexer.on_object_key("families/../etc/memories/x.md")
    with pytest.raises(InvalidInputError, match="detail.object.key"):
        indexer.handle_event({"detail": {}})


def test_a_missing_file_removes_its_document(runtime: Runtime) -> None:
    m = fact("Coach Alvarez runs Saturday practice.", "Coach")
    remember(runtime, m)
    (Path(runtime.settings.home) / key(m.id)).unlink()
    assert retrieval_of(runtime).indexer.on_object_key(key(m.id)) is IndexOutcome.REMOVED
    assert retrieval_of(runtime).index.get(FAMILY, [m.id]) == {}


def test_an_unreadable_file_is_reported_not_indexed(runtime: Runtime) -> None:
    m = fact("Coach Alvarez runs Saturday practice.", "Coach")
    remember(runtime, m)
    (Path(runtime.settings.home) / key(m.id)).write_text("---\ntype: [\n---\n")
    assert retrieval_of(runtime).indexer.on_object_key(key(m.id)) is IndexOutcome.UNREADABLE
    report = retrieval_of(runtime).indexer.check(FAMILY)
    assert memory_path(m.id) in report.unreadable and not report.consistent


def test_rebuild_gives_the_same_documents_and_pays_for_no_embedding_twice(runtime: Runtime) -> None:
    memories = [fact(f"Fact number {n} about the family.", f"Fact {n}") for n in range(7)]
    remember(runtime, *memories)
    change(runtime, memories[0], Action.RETRACT, status=Status.RETRACTED)
    retrieval = retrieval_of(runtime)
    before = list(retrieval.index.documents(FAMILY))
    assert retrieval.indexer.check(FAMILY).consistent
    shutil.rmtree(Path(runtime.settings.home) / "index")  # the index is lost
    rebuilt = local_runtime(Path(runtime.settings.home), FixedClock(NOW), embedder="hashed")
    report = retrieval_of(rebuilt).indexer.rebuild(FAMILY)
    assert report.consistent, report.lines()
    assert report.embeddings_computed == 0  # every vector came from the content-hash cache
    assert list(retrieval_of(rebuilt).index.documents(FAMILY)) == before
    assert report.files == report.documents == 7
    assert "equivalent" in report.lines()[-1]


def test_rebuild_removes_documents_without_files_and_reports_differences_first(runtime: Runtime) -> None:
    kept, dropped = fact("Kept fact.", "Kept"), fact("Dropped fact.", "Dropped")
    remember(runtime, kept, dropped)
    (Path(runtime.settings.home) / key(dropped.id)).unlink()
    change(runtime, kept, drain=False, summary="Kept fact, edited.")
    indexer = retrieval_of(runtime).indexer
    report = indexer.check(FAMILY)
    assert report.extra == [dropped.id] and report.different == {kept.id: ["summary", "revision", "text_hash"]}
    assert indexer.rebuild(FAMILY).consistent
    assert set(retrieval_of(runtime).index.revisions(FAMILY)) == {kept.id}


def test_a_stale_copy_in_an_index_with_engine_ids_is_reported_and_a_rebuild_removes_it(runtime: Runtime) -> None:
    # OpenSearch chooses document ids: a late event whose search missed the newer copy
    # (NextGen shows writes ~10 s later) leaves a second document for the memory.
    m = fact("Coach Alvarez runs Saturday practice.", "Coach")
    remember(runtime, m)
    newer = change(runtime, m, summary="Coach Alvarez runs Sunday practice now.")
    retrieval = retrieval_of(runtime)
    engine = Engine(visibility_delay=10.0)
    client = cast("OpenSearch", RecordingClient(engine))
    index = OpenSearchIndex(client, retrieval.embedder.dimension, "i", retrieval.embedder.model_id)
    indexer = Indexer(runtime.store, index, retrieval.embeddings)
    index.upsert(FAMILY, [indexer._document(FAMILY, newer)])
    index.upsert(FAMILY, [indexer._document(FAMILY, m)])
    engine.settle()
    report = indexer.check(FAMILY)
    assert report.duplicated == {m.id: 2} and not report.consistent
    assert report.different == {} and report.missing == report.extra == []  # reads keep the newest copy
    assert any("duplicated" in line for line in report.lines())
    indexer.rebuild(FAMILY)
    engine.settle()
    assert indexer.check(FAMILY).consistent and [c["revision"] for c in engine.copies(m.id)] == [2]
