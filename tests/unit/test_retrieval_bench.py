"""``family-memory bench retrieval``: the peer timed in the same rounds, and the lookup's own cost
measured over the engines' hits replayed (docs/benchmarks.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from factories import FAMILY
from family_memory.adapters.local.embedded_index import EmbeddedIndex
from family_memory.retrieval.search_index import Hit, SearchFilter
from family_memory_tools.benchmarks.retrieval import PEER, ReplayIndex, _fusion, _measure, bench_messages, paired
from retrieval_helpers import hashed


def test_paired_times_every_fn_on_the_same_messages_in_rotating_order() -> None:
    calls: list[tuple[str, int]] = []
    fns = [lambda n, name=name: calls.append((name, n)) for name in ("a", "b", "c")]
    samples = paired(fns, count=10, runs=4, warmup=2)
    assert [len(s) for s in samples] == [4, 4, 4]
    timed = calls[6:]  # after 2 warm-up rounds of 3
    assert [name for name, _ in timed] == ["a", "b", "c", "b", "c", "a", "c", "a", "b", "a", "b", "c"]
    assert [n for _, n in timed] == [2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5]


def test_the_replay_index_answers_with_the_hits_it_recorded(tmp_path: Path) -> None:
    class Recorded(EmbeddedIndex):
        def semantic(self, family_id: str, vector: list[float], search_filter: SearchFilter, k: int) -> list[Hit]:
            return [Hit("s1", 0.9, 1), Hit("s2", 0.5, 1)]

        def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
            return [Hit(f"k-{text}", 3.0, 1)]

    replay = ReplayIndex(Recorded(tmp_path / "index", 4))
    replay.record(7, FAMILY, "x", [0.0] * 4, SearchFilter(), 20)
    replay.play(7)
    assert [h.memory_id for h in replay.semantic(FAMILY, [1.0] * 4, SearchFilter(), 1)] == ["s1"]
    assert [h.memory_id for h in replay.keyword(FAMILY, "other text", SearchFilter(), 5)] == ["k-x"]
    assert PEER.fusion == "interleave" and PEER.candidates_per_search == 20


def test_the_bench_prints_the_lookup_its_peer_its_own_work_and_each_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    embedder = hashed()
    runs = 5
    messages = bench_messages(6 * (runs + 20) + 150)
    _measure(tmp_path, 300, embedder, messages, embedder.embed(messages), runs)
    out = capsys.readouterr().out
    for row in (
        "lookup, query vector given",
        "peer: the seed's lookup",
        "the lookup's own work",
        "semantic engine alone (k=25)",
        "keyword engine alone (k=25)",
        "first lookup after a write",
    ):
        assert row in out, row


def test_the_fusion_comparison_ranks_with_the_lookups_own_rule(capsys: pytest.CaptureFixture[str]) -> None:
    # One small family through the harness's supplied mode: the replica of the current settings
    # (fused from the two engines' lists) is what TurnLookup.ranked returns, question by question.
    args = argparse.Namespace(data=None, family=["eval-nakamura"])
    assert _fusion(args) == 0
    out = capsys.readouterr().out
    assert "TurnLookup.ranked and its replica disagreed on 0 questions" in out
    for row in ("baseline: bm25_turns", "seed: interleave 3, 20 a search, matches only", "rrf k=60", "oracle"):
        assert row in out, row
