"""Titan Text Embeddings V2 through botocore's Stubber with recorded responses."""

from __future__ import annotations

import io
import json
import math

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber
from mypy_boto3_bedrock_runtime import BedrockRuntimeClient

from family_memory.adapters.aws.bedrock_embedder import TITAN_V2, BedrockTitanEmbedder
from family_memory.domain.errors import InvalidInputError
from family_memory.retrieval.embedding import EmbeddingUnavailableError

# A recorded InvokeModel answer, shortened: Titan V2 returns `embedding` and `inputTextTokenCount`.
RECORDED = {"embedding": [0.0441] * 512, "inputTextTokenCount": 9, "embeddingsByType": {"float": [0.0441] * 512}}


def body(payload: dict[str, object]) -> StreamingBody:
    raw = json.dumps(payload).encode()
    return StreamingBody(io.BytesIO(raw), len(raw))


def expected_params(text: str) -> dict[str, object]:
    return {
        "modelId": TITAN_V2,
        "body": json.dumps({"inputText": text, "dimensions": 512, "normalize": True}),
        "contentType": "application/json",
        "accept": "application/json",
    }


@pytest.fixture
def client() -> BedrockRuntimeClient:
    return boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")


def test_titan_v2_is_asked_for_512_normalised_dimensions(client: BedrockRuntimeClient) -> None:
    with Stubber(client) as stub:
        stub.add_response(
            "invoke_model",
            {"body": body(RECORDED), "contentType": "application/json"},
            expected_params("Maya's orthodontist"),
        )
        vector = BedrockTitanEmbedder(client).embed_one("Maya's   orthodontist")
        stub.assert_no_pending_responses()
    assert len(vector) == 512 and math.isclose(sum(x * x for x in vector), 1.0, rel_tol=1e-9)


def test_throttling_is_retried_with_backoff(client: BedrockRuntimeClient) -> None:
    slept: list[float] = []
    with Stubber(client) as stub:
        for _ in range(2):
            stub.add_client_error("invoke_model", "ThrottlingException", "Rate exceeded", 429)
        stub.add_response("invoke_model", {"body": body(RECORDED), "contentType": "application/json"})
        vectors = BedrockTitanEmbedder(client, sleep=slept.append).embed(["one"])
    assert len(vectors) == 1 and len(slept) == 2 and slept[1] > slept[0] * 0.9


def test_persistent_throttling_becomes_embedding_unavailable(client: BedrockRuntimeClient) -> None:
    with Stubber(client) as stub:
        for _ in range(3):
            stub.add_client_error("invoke_model", "ThrottlingException", "Rate exceeded", 429)
        with pytest.raises(EmbeddingUnavailableError, match="ThrottlingException"):
            BedrockTitanEmbedder(client, attempts=3, sleep=lambda _: None).embed_one("text")


def test_a_refused_input_is_invalid_input_and_not_retried(client: BedrockRuntimeClient) -> None:
    with Stubber(client) as stub:
        stub.add_client_error("invoke_model", "ValidationException", "Malformed input request", 400)
        with pytest.raises(InvalidInputError, match="refused"):
            BedrockTitanEmbedder(client, sleep=lambda _: None).embed_one("text")
        stub.assert_no_pending_responses()


def test_an_answer_without_a_512_vector_is_an_error(client: BedrockRuntimeClient) -> None:
    with Stubber(client) as stub:
        stub.add_response("invoke_model", {"body": body({"embedding": [1.0] * 3}), "contentType": "application/json"})
        with pytest.raises(EmbeddingUnavailableError, match="512"):
            BedrockTitanEmbedder(client).embed_one("text")


def test_empty_text_is_refused_before_any_call(client: BedrockRuntimeClient) -> None:
    with Stubber(client), pytest.raises(InvalidInputError, match="empty"):
        BedrockTitanEmbedder(client).embed_one("   ")


class FakeClock:
    """Time that passes only when the embedder sleeps or a call is made."""

    def __init__(self, per_call: float) -> None:
        self.now, self.per_call = 0.0, per_call

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def monotonic(self) -> float:
        self.now += self.per_call / 2  # read before and after each call: half a call each time
        return self.now


def test_a_deadline_stops_the_retries_before_a_wait_would_pass_it(client: BedrockRuntimeClient) -> None:
    clock = FakeClock(per_call=0.3)
    embedder = BedrockTitanEmbedder(
        client, attempts=6, base_delay=0.2, deadline=1.0, sleep=clock.sleep, monotonic=clock.monotonic
    )
    with Stubber(client) as stub:
        for _ in range(6):
            stub.add_client_error("invoke_model", "ThrottlingException", "Rate exceeded", 429)
        with pytest.raises(EmbeddingUnavailableError, match=r"1 s deadline"):
            embedder.embed_one("text")
        tried = 6 - len(stub._queue)  # type: ignore[attr-defined]
    assert 1 < tried < 6 and clock.now <= 1.0 + 0.3


def test_without_a_deadline_every_attempt_is_made(client: BedrockRuntimeClient) -> None:
    clock = FakeClock(per_call=0.3)
    embedder = BedrockTitanEmbedder(client, attempts=4, sleep=clock.sleep, monotonic=clock.monotonic)
    with Stubber(client) as stub:
        for _ in range(4):
            stub.add_client_error("invoke_model", "ThrottlingException", "Rate exceeded", 429)
        with pytest.raises(EmbeddingUnavailableError, match="ThrottlingException"):
            embedder.embed_one("text")
        stub.assert_no_pending_responses()
