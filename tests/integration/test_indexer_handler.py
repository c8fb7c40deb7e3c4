"""The indexer Lambda under moto: S3 and DynamoDB are mocked AWS, the index is
the embedded engine (OpenSearch has no local engine here), and the event is a
real-shaped EventBridge "Object Created" event from tests/events/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_xray_sdk.core  # noqa: F401 - its recorder opens a UDP socket at import: do it at collection, before sockets are off
import pytest
from pydantic import ValidationError

from conftest import TEST_BUCKET, TEST_TABLE, aws_adapters
from factories import FAMILY, add, change_set, memory
from family_memory.adapters.aws.dynamo_embedding_cache import DynamoEmbeddingCache
from family_memory.adapters.local.embedded_index import EmbeddedIndex
from family_memory.app.bootstrap import assemble_aws
from family_memory.app.foundation import Foundation
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.domain.clock import FixedClock
from family_memory.domain.layout import evidence_path
from family_memory.retrieval.search_index import SearchFilter
from family_memory.retrieval.service import build_retrieval
from family_memory.writes.protocol import FamilyWriter
from lambda_harness import EVENTS, LambdaContext, load_handler
from retrieval_helpers import hashed


@pytest.fixture(autouse=True)
def lambda_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # No X-Ray daemon in tests.
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "family-memory")


@pytest.fixture
def lambda_runtime(aws: Any, tmp_path: Path, clock: FixedClock) -> Runtime:
    adapters = aws_adapters(aws, clock)
    settings = load_settings({}, backend="aws", bucket=TEST_BUCKET, table=TEST_TABLE)
    cache = DynamoEmbeddingCache(aws.client("dynamodb"), TEST_TABLE)
    index = EmbeddedIndex(tmp_path / "index", hashed().dimension)
    retrieval = build_retrieval(adapters.store, adapters.catalog, clock, index, hashed(), cache)
    writer = FamilyWriter(adapters.store, adapters.catalog, clock)
    base = Foundation(settings=settings, clock=clock, store=adapters.store, catalog=adapters.catalog, writer=writer)
    return assemble_aws(base, retrieval, aws)


def event_for(path: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / "memory_object_created.json").read_text())
    event["detail"]["object"]["key"] = f"families/{FAMILY}/{path}"
    return event


def test_the_handler_indexes_the_memory_file_named_by_the_event(
    lambda_runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = load_handler("indexer")
    monkeypatch.setattr(app, "runtime", lambda: lambda_runtime)
    m = memory(summary="Coach Alvarez runs Saturday practice.")
    lambda_runtime.writer.apply(change_set(add(m)))
    result = app.handler(event_for(f"memories/{m.id}.md"), LambdaContext("indexer"))
    assert result == {"key": f"families/{FAMILY}/memories/{m.id}.md", "outcome": "indexed"}
    assert lambda_runtime.retrieval is not None
    hits = lambda_runtime.retrieval.index.keyword(FAMILY, "Alvarez", SearchFilter(), 5)
    assert [h.memory_id for h in hits] == [m.id]
    # The vector was cached in the table, in the family's own partition.
    cache = lambda_runtime.retrieval.embeddings.cache
    assert len(cache.get_many(FAMILY, [lambda_runtime.retrieval.indexer._document(FAMILY, m).text_hash])) == 1
    assert cache.get_many("fam-okafor", [lambda_runtime.retrieval.indexer._document(FAMILY, m).text_hash]) == {}


def test_the_handler_reindexes_on_an_evidence_sidecar_and_ignores_other_files(
    lambda_runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = load_handler("indexer")
    monkeypatch.setattr(app, "runtime", lambda: lambda_runtime)
    m = memory()
    # No memory file behind the sidecar: nothing to index, and no document is left.
    assert app.handler(event_for(evidence_path(m.id)), LambdaContext("indexer"))["outcome"] == "removed"
    assert app.handler(event_for("brief.json"), LambdaContext("indexer"))["outcome"] == "ignored"


def test_a_malformed_event_is_refused_before_anything_is_read(
    lambda_runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = load_handler("indexer")
    monkeypatch.setattr(app, "runtime", lambda: lambda_runtime)
    event = event_for("memories/x.md")
    del event["detail"]["object"]
    with pytest.raises(ValidationError):
        app.handler(event, LambdaContext("indexer"))
