"""Evidence recall: do the memories a search ranks first cite the turns that answer the question?

For each labelled question (a current fact's probe, a task-shaped query) the
gold is the set of turns that state the answer. A ranked list of memories
covers the turns their evidence cites; recall@k is the share of gold turns
covered by the first k, and recall within a token budget the share covered by
the lines that fit in it (each line as the agent would read it).

Two plain baselines run on the same questions, so the hybrid search has to
earn its place:

- **BM25 over the raw turns**: every turn of the family's conversations is a
  document (Okapi BM25, k1 1.2, b 0.75, the index's own stemmer); a turn
  covers itself, and costs its own text in tokens.
- **Vector search over the memories' summaries**: the same current memories,
  embedded by their summary alone with the runtime's embedder, ranked by
  cosine similarity.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from family_memory.domain.memory import Status
from family_memory.domain.tokens import count_tokens
from family_memory.evaluation.dataset import EvalFamily, Place
from family_memory.evaluation.runner import FamilyRun, Ranked, questions
from family_memory.retrieval.embedding import Embedder

KS = (1, 5, 10, 20)
BUDGETS = (300, 2000)
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def _stemmer() -> Callable[[str], str]:
    try:
        import Stemmer  # PyStemmer, the embedded index's stemmer (local extra)

        stem = Stemmer.Stemmer("english")
        return lambda w: str(stem.stemWord(w))
    except ImportError:  # pragma: no cover - the local extra is installed wherever eval runs
        return lambda w: w


def terms(text: str, stem: Callable[[str], str]) -> list[str]:
    return [stem(w) for w in _TOKEN.findall(text.lower())]


class BM25:
    """Okapi BM25 over a small in-memory corpus."""

    def __init__(self, documents: Sequence[str], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.stem = _stemmer()
        self.docs = [Counter(terms(d, self.stem)) for d in documents]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        df: Counter[str] = Counter()
        for d in self.docs:
            df.update(d.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.k1, self.b = k1, b

    def rank(self, query: str) -> list[int]:
        q = set(terms(query, self.stem))
        scores: list[tuple[float, int]] = []
        for i, doc in enumerate(self.docs):
            s = 0.0
            for t in q:
                f = doc.get(t, 0)
                if f:
                    norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / (self.avg or 1))
                    s += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            if s > 0:
                scores.append((s, i))
        scores.sort(key=lambda x: (-x[0], x[1]))
        return [i for _, i in scores]


@dataclass
class RecallTotals:
    """Summed recall over questions, per cut-off."""

    questions: int = 0
    at_k: dict[int, float] = field(default_factory=lambda: dict.fromkeys(KS, 0.0))
    in_budget: dict[int, float] = field(default_factory=lambda: dict.fromkeys(BUDGETS, 0.0))

    def add(self, covered_by_rank: list[set[tuple[str, int]]], costs: list[int], gold: set[tuple[str, int]]) -> None:
        self.questions += 1
        for k in KS:
            got: set[tuple[str, int]] = set().union(*covered_by_rank[:k]) if covered_by_rank else set()
            self.at_k[k] += len(got & gold) / len(gold)
        for budget in BUDGETS:
            got, used = set(), 0
            for covered, cost in zip(covered_by_rank, costs, strict=True):
                if used + cost > budget:
                    break
                used += cost
                got |= covered
            self.in_budget[budget] += len(got & gold) / len(gold)

    def means(self) -> dict[str, float]:
        n = self.questions or 1
        out = {f"R@{k}": v / n for k, v in self.at_k.items()}
        out.update({f"R@{b}tok": v / n for b, v in self.in_budget.items()})
        return out


def _gold(places: list[Place]) -> set[tuple[str, int]]:
    return {(p.session, p.turn) for p in places}


def evidence_recall(runs: list[FamilyRun], embedder: Embedder) -> dict[str, dict[str, float]]:
    """Mean recall per method: ``hybrid`` (search_memory's ranking), ``bm25_turns``, ``vector_summaries``."""
    import numpy as np

    totals = {"hybrid": RecallTotals(), "bm25_turns": RecallTotals(), "vector_summaries": RecallTotals()}
    for run in runs:
        family: EvalFamily = run.family
        turns = [(s.id, t.n, t.text) for s in family.sessions for t in s.turns]
        bm25 = BM25([text for _, _, text in turns])
        turn_costs = [count_tokens(text) for _, _, text in turns]
        current = [v for v in run.memories.values() if v.memory.status is Status.ACTIVE]
        matrix = np.array(embedder.embed([v.memory.summary for v in current])) if current else None
        for question_id, text, places in questions(family):
            gold = _gold(places)
            ranked: list[Ranked] = run.ranked.get(question_id, [])
            totals["hybrid"].add(
                [run.memories[r.memory_id].cited() for r in ranked], [count_tokens(r.line) + 1 for r in ranked], gold
            )
            order = bm25.rank(text)
            totals["bm25_turns"].add(
                [{(turns[i][0], turns[i][1])} for i in order], [turn_costs[i] + 1 for i in order], gold
            )
            if matrix is not None:
                q = np.array(embedder.embed_one(text))
                sims = matrix @ q / ((np.linalg.norm(matrix, axis=1) * np.linalg.norm(q)) + 1e-12)
                by = [current[i] for i in np.argsort(-sims, kind="stable")]
                lines = {r.memory_id: r.line for r in ranked}
                costs = [count_tokens(lines.get(v.id, f"- {v.memory.summary} memory://x/{v.id}")) + 1 for v in by]
                totals["vector_summaries"].add([v.cited() for v in by], costs, gold)
            else:
                totals["vector_summaries"].add([], [], gold)
    return {name: t.means() | {"questions": float(t.questions)} for name, t in totals.items()}
