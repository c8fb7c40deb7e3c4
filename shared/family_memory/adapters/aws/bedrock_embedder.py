"""Embeddings from Amazon Bedrock: Titan Text Embeddings V2 at 512 dimensions.

One InvokeModel call per text (the model takes one ``inputText``), with
``normalize: true`` so vectors arrive unit-length. Throttling and transient
service errors are retried with exponential backoff and jitter; botocore's
own retries are turned down to one attempt so the two do not multiply.
Vendor errors become the core's: a refused input is InvalidInputError,
anything still failing after the retries is EmbeddingUnavailableError.

Indexing can afford patience; a conversation's turn cannot. ``turn_embedder``
builds the same model behind short timeouts and a deadline on the retries, so a
throttled Bedrock costs a turn its semantic half (the lookup falls back to the
keyword engine), not seconds of the family's time.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from family_memory.domain.errors import InvalidInputError
from family_memory.retrieval.embedding import Embedder, EmbeddingUnavailableError, Vector, normalise

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime import BedrockRuntimeClient

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
        client: BedrockRuntimeClient,
        *,
        model: str = TITAN_V2,
        attempts: int = 6,
        base_delay: float = 0.2,
        max_delay: float = 5.0,
        sleep: Callable[[float], None] = time.sleep,
        deadline: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """``deadline``: seconds one text may take, retries included; a retry whose wait
        would pass it is not made (None: only ``attempts`` bounds the retries)."""
        self._client = client
        self.model = model
        self.model_id = f"bedrock/{model}/{DIMENSION}"
        self._attempts = attempts
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._sleep = sleep
        self._deadline = deadline
        self._monotonic = monotonic

    def _embed(self, texts: Sequence[str]) -> list[Vector]:
        return [self._one(text) for text in texts]

    def _one(self, text: str) -> Vector:
        body = json.dumps({"inputText": text, "dimensions": DIMENSION, "normalize": True})
        started = self._monotonic()
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
                delay = min(self._max_delay, self._base_delay * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
                spent = self._monotonic() - started
                if self._deadline is not None and spent + delay > self._deadline:
                    raise EmbeddingUnavailableError(
                        f"Bedrock embedding failed ({code}) and a retry would pass the "
                        f"{self._deadline:g} s deadline ({spent:.2f} s spent, attempt {attempt}): {exc}"
                    ) from exc
                self._sleep(delay)
        raise AssertionError("unreachable")

    def _vector(self, response: Mapping[str, Any]) -> Vector:
        payload = json.loads(response["body"].read())
        embedding = payload.get("embedding")
        if not isinstance(embedding, list) or len(embedding) != DIMENSION:
            raise EmbeddingUnavailableError(f"Bedrock returned no {DIMENSION}-dimension embedding")
        # Titan normalises already; normalising again guards the unit-length contract cheaply.
        return normalise([float(x) for x in embedding])


#: A turn's query embedding: connect and read timeouts, and the deadline on its retries (seconds).
TURN_CONNECT_TIMEOUT = 1
TURN_READ_TIMEOUT = 2
TURN_DEADLINE = 1.0


def bedrock_runtime_client(
    session: Any, region: str | None = None, *, connect_timeout: float = 3, read_timeout: float = 20
) -> Any:
    from botocore.config import Config

    config = Config(
        retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=connect_timeout, read_timeout=read_timeout
    )
    return session.client("bedrock-runtime", region_name=region, config=config)


def turn_embedder(session: Any, region: str | None = None) -> BedrockTitanEmbedder:
    """Titan for a conversation's turn: the same vectors as the indexer's, given up on
    quickly (short timeouts, at most three tries inside ``TURN_DEADLINE``)."""
    client = bedrock_runtime_client(
        session, region, connect_timeout=TURN_CONNECT_TIMEOUT, read_timeout=TURN_READ_TIMEOUT
    )
    return BedrockTitanEmbedder(client, attempts=3, base_delay=0.1, max_delay=0.4, deadline=TURN_DEADLINE)
