"""The dependency-free fallback embedder: hashed words and character n-grams.

Each word contributes itself and its character 3- and 4-grams (with boundary
marks), hashed with CRC-32 into a signed bucket of a fixed-size vector; counts
are damped (1 + log tf) and the vector is L2-normalised. It knows spelling,
not meaning: "orthodontist" and "dentist" share n-grams, "teeth" and "braces"
share nothing. Kept as the fallback when the ``local`` extra is not
installed; the comparison with MiniLM is in docs/embedder-comparison.md.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence

from family_memory.retrieval.embedding import Embedder, Vector, normalise

_WORD = re.compile(r"\w+", re.UNICODE)


def _features(text: str) -> Counter[str]:
    features: Counter[str] = Counter()
    for word in _WORD.findall(text.casefold()):
        features[f"w:{word}"] += 2
        marked = f"<{word}>"
        for n in (3, 4):
            for i in range(len(marked) - n + 1):
                features[marked[i : i + n]] += 1
    return features


class HashedNgramEmbedder(Embedder):
    relevance_floor = 0.15

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension
        self.model_id = f"local/hashed-ngrams-{dimension}"

    def _embed(self, texts: Sequence[str]) -> list[Vector]:
        return [self._one(text) for text in texts]

    def _one(self, text: str) -> Vector:
        vector = [0.0] * self.dimension
        for feature, count in _features(text).items():
            h = zlib.crc32(feature.encode("utf-8"))
            sign = 1.0 if (h >> 31) & 1 else -1.0
            vector[h % self.dimension] += sign * (1.0 + math.log(count))
        return normalise(vector)
