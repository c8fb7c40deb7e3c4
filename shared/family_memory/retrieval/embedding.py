"""The embedding port and the content-hash cache in front of it.

An embedder turns text into unit-length vectors of a fixed dimension. The
index stores one vector per memory, computed from ``embedding_text(memory)``
(about + summary + when_to_use). Vectors are cached by the hash of that text
and the model, per family, so rebuilding an index from the files does not pay
for the same embeddings twice.

Vectors cross this port as plain ``list[float]``: the AWS side (Bedrock in,
OpenSearch out) never needs numpy, and the Lambda layer stays lean.
"""

from __future__ import annotations

import hashlib
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence

from family_memory.domain.errors import SEARCH_UNAVAILABLE, FamilyMemoryError, InvalidInputError

Vector = list[float]

#: Longest text sent to an embedder; a turn can be long, its first part is what a lookup needs.
MAX_EMBED_CHARS = 2000


class EmbeddingUnavailableError(FamilyMemoryError):
    """The embedding service could not answer (after the adapter's retries)."""

    public = SEARCH_UNAVAILABLE


class Embedder(ABC):
    """Text to unit vectors. ``model_id`` names the model and its settings, so
    vectors from different models never mix in one cache or index."""

    model_id: str
    dimension: int
    #: Cosine similarity below which a semantic hit is not worth placing in a turn.
    relevance_floor: float = 0.2

    @abstractmethod
    def _embed(self, texts: Sequence[str]) -> list[Vector]:
        """One unit vector per text, in order (texts are non-empty and capped)."""

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Unit vectors of ``self.dimension`` floats, one per text."""
        prepared = [prepare_text(text) for text in texts]
        if not prepared:
            return []
        vectors = self._embed(prepared)
        if len(vectors) != len(prepared) or any(len(v) != self.dimension for v in vectors):
            raise RuntimeError(f"embedder {self.model_id} returned vectors of the wrong shape")
        return vectors

    def embed_one(self, text: str) -> Vector:
        return self.embed([text])[0]


#: What no embedder should be sent: control characters (C0 other than whitespace, DEL,
#: C1) and lone surrogates, which cannot be encoded at all (a tokenizer raises on them).
_UNSENDABLE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff]")


def prepare_text(text: str) -> str:
    """The text an embedder is sent: control characters and lone surrogates dropped,
    whitespace runs made one space, capped at ``MAX_EMBED_CHARS``."""
    text = _UNSENDABLE.sub("", text[: MAX_EMBED_CHARS * 4])
    text = " ".join(text.split())[:MAX_EMBED_CHARS]
    if not text:
        raise InvalidInputError("cannot embed empty text")
    return text


def normalise(vector: Sequence[float]) -> Vector:
    """``vector`` scaled to unit length (a zero vector stays zero)."""
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm > 0 else [0.0 for _ in vector]


def content_hash(model_id: str, text: str) -> str:
    """The cache key of ``text`` under ``model_id``."""
    return hashlib.sha256(f"{model_id}\n{prepare_text(text)}".encode()).hexdigest()


class EmbeddingCache(ABC):
    """Vectors by (family, content hash). The family is part of every key, so one
    family's cache never answers for another's."""

    @abstractmethod
    def get_many(self, family_id: str, hashes: Iterable[str]) -> dict[str, Vector]:
        """The cached vectors among ``hashes``."""

    @abstractmethod
    def put_many(self, family_id: str, vectors: Mapping[str, Vector]) -> None:
        """Store vectors by hash (idempotent)."""


class CachedEmbeddings:
    """An embedder behind a cache: only texts whose hash is not cached are embedded."""

    def __init__(self, embedder: Embedder, cache: EmbeddingCache, *, batch_size: int = 32) -> None:
        self.embedder = embedder
        self.cache = cache
        self.batch_size = batch_size
        self.computed = 0  # how many vectors were paid for (for reports and tests)

    def vectors(self, family_id: str, texts: Sequence[str]) -> list[Vector]:
        keys = [content_hash(self.embedder.model_id, text) for text in texts]
        found = self.cache.get_many(family_id, set(keys))
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in found and key not in missing:
                missing[key] = text
        todo = list(missing.items())
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            fresh = self.embedder.embed([text for _, text in batch])
            computed = {key: vector for (key, _), vector in zip(batch, fresh, strict=True)}
            self.cache.put_many(family_id, computed)
            self.computed += len(computed)
            found.update(computed)
        return [found[key] for key in keys]

    def vector(self, family_id: str, text: str) -> Vector:
        return self.vectors(family_id, [text])[0]


class MemoryEmbeddingCache(EmbeddingCache):
    """An in-process cache (tests, benchmarks)."""

    def __init__(self) -> None:
        self._vectors: dict[tuple[str, str], Vector] = {}

    def get_many(self, family_id: str, hashes: Iterable[str]) -> dict[str, Vector]:
        return {h: self._vectors[(family_id, h)] for h in hashes if (family_id, h) in self._vectors}

    def put_many(self, family_id: str, vectors: Mapping[str, Vector]) -> None:
        for key, vector in vectors.items():
            self._vectors[(family_id, key)] = list(vector)
