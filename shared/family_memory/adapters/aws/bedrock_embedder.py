"""Embeddings from Amazon Bedrock: Titan Text Embeddings V2 at 512 dimensions.

One InvokeModel call per text (the model takes one ``inputText``), with
``normalize: true`` so vectors arrive unit-length. Throttling and transient
service errors are retried with exponential backoff and jitter; botocore's
own retries are turned down to one attempt so the two do not multiply.
Vendor errors become the core's: a refused input is InvalidInputError,
anything still failing after the retries is EmbeddingUnavailableError.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from botocore.exceptions import ClientError

from family_memory.domain.errors import InvalidInputError
from family_memory.retrieval.embedding import Embedder, EmbeddingUnavailableError, Vector, normalise

TITAN_V2 = "amazon.titan-embed-text-v2:0"
DIMENSION = 512
RETRYABLE = frozenset(
    {
        "ThrottlingException",
        "ServiceUnavailableException",
        "ModelNotReadyException",
        "InternalServerException",
        "ModelTimeoutException",
        "TooManyRequestsException",
    }
)


class BedrockTitanEmbedder(Embedder):
    dimension = DIMENSION
    relevance_floor = 0.2

    def __init__(
        self,
        client: Any,
        *,
        model: str = TITAN_V2,
        attempts: int = 6,
        base_delay: float = 0.2,
        max_delay: float = 5.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._client = client
        self.model = model
        self.model_id = f"bedrock/{model}/{DIMENSION}"
        self._attempts = attempts
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._sleep = sleep

    def _embed(self, texts: Sequence[str]) -> list[Vector]:
        return [self._one(text) for text in texts]

    def _one(self, text: str) -> Vector:
        body = json.dumps({"inputText": text, "dimensions": DIMENSION, "normalize": True})
        for attempt in range(1, self._attempts + 1):
            try:
                response = self._client.invoke_model(
                    modelId=self.model, body=body, contentType="application/json", accept="application/json"
                )
                return self._vector(response)
            except ClientError as exc:
                code = str(exc.response.get("Error", {}).get("Code", ""))
                if code == "ValidationException":
                    raise InvalidInputError(f"Bedrock refused the text to embed: {exc}") from exc
                if code not in RETRYABLE or attempt == self._attempts:
                    raise EmbeddingUnavailableError(f"Bedrock embedding failed ({code or 'error'}): {exc}") from exc
                delay = min(self._max_delay, self._base_delay * 2 ** (attempt - 1))
                self._sleep(delay * (0.5 + random.random() / 2))
        raise AssertionError("unreachable")

    def _vector(self, response: dict[str, Any]) -> Vector:
        payload = json.loads(response["body"].read())
        embedding = payload.get("embedding")
        if not isinstance(embedding, list) or len(embedding) != DIMENSION:
            raise EmbeddingUnavailableError(f"Bedrock returned no {DIMENSION}-dimension embedding")
        # Titan normalises already; normalising again guards the unit-length contract cheaply.
        return normalise([float(x) for x in embedding])


def bedrock_runtime_client(session: Any, region: str | None = None) -> Any:
    from botocore.config import Config

    config = Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=3, read_timeout=20)
    return session.client("bedrock-runtime", region_name=region, config=config)
