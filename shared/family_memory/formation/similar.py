"""Finding a family's memories that resemble a candidate.

``SimilarMemories`` is the port the reconciler takes in its constructor. The
retrieval part provides an index-backed implementation with the same method;
until it is wired in, ``CatalogSimilarMemories`` scores every catalog row of
the family by text similarity. Either way: scores in 0..1, best first, only
that family's rows, any status (the reconciler decides what a superseded or
retracted match means).
"""

from __future__ import annotations

import logging
from typing import Protocol

from family_memory.formation.text_similarity import similarity
from family_memory.ports.catalog import Catalog, CatalogRow

log = logging.getLogger(__name__)


class SimilarMemories(Protocol):
    def similar(self, family_id: str, text: str, limit: int = 5) -> list[tuple[CatalogRow, float]]:
        """The family's memories most like ``text``: (row, score in 0..1), best first, any status."""
        ...


def row_text(row: CatalogRow) -> str:
    """What a memory is compared on: about + summary + when_to_use (what the index embeds)."""
    return "\n".join(part for part in (row.about, row.summary, row.when_to_use) if part)


class CatalogSimilarMemories:
    """Text similarity over the family's catalog rows. Exact and consistent (the
    catalog is read strongly), linear in the family's size: the stand-in until
    the search index exists."""

    def __init__(self, catalog: Catalog, *, min_score: float = 0.15) -> None:
        self.catalog = catalog
        self.min_score = min_score

    def similar(self, family_id: str, text: str, limit: int = 5) -> list[tuple[CatalogRow, float]]:
        scored: list[tuple[CatalogRow, float]] = []
        for row in self.catalog.all_rows(family_id):
            score = max(similarity(text, row_text(row)), similarity(text, f"{row.about}\n{row.summary}"))
            if score >= self.min_score:
                scored.append((row, score))
        scored.sort(key=lambda item: (-item[1], item[0].id))
        return scored[:limit]


class FallingBackTo:
    """``primary``'s answer; ``fallback``'s while ``primary`` raises one of ``unusable``
    (an error that waiting will not cure, such as an index built by another embedder:
    formation goes on, exactly and more slowly, instead of failing every retry)."""

    def __init__(
        self, primary: SimilarMemories, fallback: SimilarMemories, unusable: tuple[type[Exception], ...]
    ) -> None:
        self.primary, self.fallback, self.unusable = primary, fallback, unusable

    def similar(self, family_id: str, text: str, limit: int = 5) -> list[tuple[CatalogRow, float]]:
        try:
            return self.primary.similar(family_id, text, limit)
        except self.unusable as exc:
            log.warning(
                "similar memories by catalog text: the index cannot answer",
                extra={"family_id": family_id, "error": str(exc)},
            )
            return self.fallback.similar(family_id, text, limit)


class IndexWithRecentCatalog:
    """The index's answer, plus the family's newest catalog rows scored by text.

    A search index lags its writes (OpenSearch Serverless: seconds), so a memory
    formed by the previous session may not be searchable yet when the next one is
    reconciled. The newest rows (by formed_at) cover that window at the cost of one
    catalog query, keeping the lookup bounded however large the family grows."""

    def __init__(self, index: SimilarMemories, catalog: Catalog, *, recent: int = 50, min_score: float = 0.15) -> None:
        self.index = index
        self.catalog = catalog
        self.recent = recent
        self.min_score = min_score

    def similar(self, family_id: str, text: str, limit: int = 5) -> list[tuple[CatalogRow, float]]:
        best: dict[str, tuple[CatalogRow, float]] = {
            row.id: (row, score) for row, score in self.index.similar(family_id, text, limit)
        }
        for row in self.catalog.list_rows(family_id, limit=self.recent).rows:
            score = max(similarity(text, row_text(row)), similarity(text, f"{row.about}\n{row.summary}"))
            if score >= self.min_score and score > best.get(row.id, (row, -1.0))[1]:
                best[row.id] = (row, score)
        ranked = sorted(best.values(), key=lambda item: (-item[1], item[0].id))
        return ranked[:limit]
