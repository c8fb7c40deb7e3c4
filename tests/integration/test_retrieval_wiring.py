"""Retrieval as the rest of the system meets it: the similar-memory finder for
the reconciler, the DynamoDB embedding cache, the composition roots and the
command line."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from conftest import TEST_BUCKET, TEST_TABLE
from factories import FAMILY, OTHER_FAMILY
from family_memory.adapters.aws.bedrock_embedder import TURN_DEADLINE, TURN_READ_TIMEOUT
from family_memory.adapters.aws.dynamo_embedding_cache import DynamoEmbeddingCache
from family_memory.app.bootstrap import build_aws
from family_memory.app.cli import main
from family_memory.app.formation import similar_finder
from family_memory.app.settings import load_settings
from family_memory.domain.changes import Action
from family_memory.domain.clock import FixedClock
from family_memory.domain.memory import Status
from family_memory.retrieval.documents import document_from_memory
from family_memory.retrieval.search_index import IndexMismatchError
from family_memory.retrieval.tools import TOOL_SPECS
from retrieval_helpers import change, fact, local_runtime, remember, retrieval_of

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_similar_returns_that_familys_memories_of_any_status_best_first_scored_0_to_1(tmp_path: Path) -> None:
    runtime = local_runtime(tmp_path, FixedClock(NOW))
    close = fact("Maya's orthodontist is Dr. Patel on Elm Street.", "Orthodontist")
    far = fact("Recycling bins go out on Tuesday night.", "Recycling")
    theirs = fact("Maya's orthodontist is Dr. Patel on Elm Street.", "Orthodontist")
    remember(runtime, close, far)
    remember(runtime, theirs, family_id=OTHER_FAMILY)
    change(runtime, close, Action.RETRACT, status=Status.RETRACTED)
    found = retrieval_of(runtime).similar.similar(FAMILY, "Dr. Patel is Maya's orthodontist", limit=5)
    assert [row.id for row, _ in found] == [close.id, far.id]
    assert found[0][0].status is Status.RETRACTED  # any status: the reconciler decides what to do with it
    scores = [score for _, score in found]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores) and scores[0] > 0.7
    assert retrieval_of(runtime).similar.similar(FAMILY, "   ") == []


def test_the_dynamodb_embedding_cache_round_trips_in_batches_per_family(aws: Any) -> None:
    cache = DynamoEmbeddingCache(aws.client("dynamodb"), TEST_TABLE)
    vectors = {f"hash-{n:03d}": [float(n), 0.5, -1.25] for n in range(130)}
    cache.put_many(FAMILY, vectors)
    assert cache.get_many(FAMILY, [*vectors, "missing"]) == vectors
    assert cache.get_many(OTHER_FAMILY, vectors) == {}


def test_aws_mode_without_an_opensearch_endpoint_has_no_retrieval(aws: Any) -> None:
    settings = load_settings({}, backend="aws", bucket=TEST_BUCKET, table=TEST_TABLE, region="us-east-1")
    assert build_aws(settings, session=aws).retrieval is None


def test_aws_mode_with_an_endpoint_wires_opensearch_and_titan(aws: Any) -> None:
    settings = load_settings(
        {"OPENSEARCH_ENDPOINT": "https://abc123.us-east-1.aoss.amazonaws.com"},
        backend="aws",
        bucket=TEST_BUCKET,
        table=TEST_TABLE,
        region="us-east-1",
    )
    retrieval = build_aws(settings, session=aws).retrieval
    assert retrieval is not None
    assert type(retrieval.index).__name__ == "OpenSearchIndex" and retrieval.index.dimension == 512
    assert retrieval.embedder.model_id == "bedrock/amazon.titan-embed-text-v2:0/512"
    # Turns embed with the same model behind a short deadline; the indexer keeps its patience.
    turns = retrieval.lookup.embedder
    assert turns is not retrieval.embedder and turns.model_id == retrieval.embedder.model_id
    assert getattr(turns, "_deadline", None) == TURN_DEADLINE and getattr(retrieval.embedder, "_deadline", 0) is None
    assert turns._client.meta.config.read_timeout == TURN_READ_TIMEOUT  # type: ignore[attr-defined]


def run_cli(home: Path, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["--home", str(home), *argv])
    return code, capsys.readouterr().out


def test_the_command_line_rebuilds_looks_up_and_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAMILY_MEMORY_EMBEDDER", "hashed")
    runtime = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    m = fact("Coach Alvarez runs Saturday soccer practice.", "Soccer coach")
    remember(runtime, m)
    code, out = run_cli(tmp_path, "rebuild-index", "--family", FAMILY, capsys=capsys)
    assert code == 0 and "embeddings computed: 0" in out and "equivalent" in out
    code, out = run_cli(tmp_path, "lookup", "--family", FAMILY, "--explain", "who coaches soccer?", capsys=capsys)
    assert code == 0 and f"memory://{FAMILY}/{m.id}" in out and "found by" in out
    code, out = run_cli(tmp_path, "read", "--family", FAMILY, f"memory://{FAMILY}/{m.id}", capsys=capsys)
    assert code == 0 and f'id: "{m.id}"' in out
    code, out = run_cli(tmp_path, "read", "--family", FAMILY, f"memory://{OTHER_FAMILY}/{m.id}", capsys=capsys)
    assert code == 2 and "can only read its own" in out
    code, out = run_cli(tmp_path, "tool-specs", capsys=capsys)
    assert json.loads(out) == {"tools": TOOL_SPECS}


def test_rebuild_index_check_only_exits_1_when_the_index_differs_and_2_for_an_unknown_family(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAMILY_MEMORY_EMBEDDER", "hashed")
    runtime = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    remember(runtime, fact("Indexed.", "Indexed"))
    remember(runtime, fact("Not indexed yet.", "Pending"), drain=False)
    code, out = run_cli(tmp_path, "rebuild-index", "--family", FAMILY, "--check-only", capsys=capsys)
    assert code == 1 and "missing document" in out
    # A mistyped family is an error, not an empty index that is "equivalent" to no files.
    for extra in (["--check-only"], []):
        assert main(["--home", str(tmp_path), "rebuild-index", "--family", "nosuch", *extra]) == 2
        captured = capsys.readouterr()
        assert "family nosuch has no files in this store" in captured.err and "equivalent" not in captured.out
    assert not (tmp_path / "families" / "nosuch").exists()


def test_bench_retrieval_prints_the_machine_and_the_figures_for_each_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_cli(tmp_path, "bench", "retrieval", "--sizes", "60,120", "--runs", "5", capsys=capsys)
    assert code == 0 and out.startswith("machine: ")
    for size in ("60 memories", "120 memories"):
        assert size in out
    assert out.count("lookup, query vector given") == 2 and out.count("p95") == 18
    assert out.count("peer: the seed's lookup") == 2 and out.count("the lookup's own work") == 2
    assert out.count("distinct words") == 2 and out.count("first lookup after a write") == 2


def test_an_index_built_by_another_embedder_is_searched_by_words_until_rebuild_index_re_embeds_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Both offline embedders make 384 floats: only the recorded model id tells them apart.
    hashed_runtime = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    ortho = fact("Maya sees Dr. Patel, her orthodontist, for her braces.", "Maya's orthodontist")
    remember(hashed_runtime, ortho)
    runtime = local_runtime(tmp_path, FixedClock(NOW), embedder="minilm")
    lookup = retrieval_of(runtime).lookup
    with caplog.at_level("WARNING"):
        result = lookup.lookup(FAMILY, "is Dr. Patel the orthodontist?")
    assert [(i.row.id, i.via) for i in result.items] == [(ortho.id, "keyword")]
    assert any("another embedder" in r.getMessage() for r in caplog.records)
    assert lookup.lookup(FAMILY, "who fixes the kids teeth?").items == []  # meaning alone: nothing yet
    report = retrieval_of(runtime).indexer.rebuild(FAMILY)
    assert report.consistent and report.embeddings_computed == 1
    result = lookup.lookup(FAMILY, "who fixes the kids teeth?")
    assert [(i.row.id, i.via) for i in result.items] == [(ortho.id, "semantic")]
    # A write by the old embedder is now the one refused.
    with pytest.raises(IndexMismatchError, match="rebuild-index"):
        retrieval_of(hashed_runtime).indexer.index.upsert(
            FAMILY, [document_from_memory(FAMILY, ortho, "local/hashed-ngrams-384", [0.0] * 383 + [1.0])]
        )


def test_reconcile_finds_similar_memories_by_catalog_text_while_the_index_holds_another_embedders_vectors(
    tmp_path: Path,
) -> None:
    hashed_runtime = local_runtime(tmp_path, FixedClock(NOW), embedder="hashed")
    ortho = fact("Maya sees Dr. Patel, her orthodontist, for her braces.", "Maya's orthodontist")
    remember(hashed_runtime, ortho)
    runtime = local_runtime(tmp_path, FixedClock(NOW), embedder="minilm")
    with pytest.raises(IndexMismatchError, match="rebuild-index"):
        retrieval_of(runtime).similar.similar(FAMILY, "Maya's orthodontist is Dr. Patel")
    # Formation's finder does not fail every retry until an operator acts: it scans the catalog.
    found = similar_finder(runtime.catalog, runtime.retrieval).similar(FAMILY, "Maya's orthodontist is Dr. Patel", 3)
    assert [row.id for row, _ in found] == [ortho.id]
