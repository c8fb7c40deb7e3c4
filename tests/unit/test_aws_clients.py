"""The runtime's AWS clients: one per service and configuration, bounded timeouts, and the
OpenSearch client for each kind of endpoint (AOSS and OpenSearch Service signed with
SigV4 by opensearch-py's current signer; a self-managed cluster over http(s) with basic
auth or none)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from opensearchpy import RequestsAWSV4SignerAuth

from family_memory.adapters.aws.clients import DEFAULT_CONFIG, SharedClients
from family_memory.adapters.aws.opensearch_index import opensearch_client
from family_memory.app.bootstrap import build_aws
from family_memory.app.settings import load_settings
from family_memory.domain.errors import InvalidInputError


def session() -> Any:
    return boto3.session.Session(region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")


def test_the_same_client_is_made_once_and_a_different_configuration_gets_its_own() -> None:
    from botocore.config import Config

    clients = SharedClients(session())
    assert clients.client("dynamodb") is clients.client("dynamodb")
    slow = clients.client("bedrock-runtime", config=Config(read_timeout=120))
    assert slow is clients.client("bedrock-runtime", config=Config(read_timeout=120))
    assert slow is not clients.client("bedrock-runtime", config=Config(read_timeout=2))
    assert slow.meta.config.read_timeout == 120 and slow.meta.config.connect_timeout == DEFAULT_CONFIG.connect_timeout  # type: ignore[attr-defined]
    assert clients.client("s3").meta.config.retries["total_max_attempts"] == 3  # the first try included
    assert clients.made == 4


def test_an_aws_runtime_makes_one_dynamodb_and_one_sqs_client(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    real = session()
    original = real.client

    def counting(service: str, **kw: Any) -> Any:
        made.append(service)
        return original(service, **kw)

    monkeypatch.setattr(real, "client", counting)
    settings = load_settings(
        {
            "FAMILY_MEMORY_BACKEND": "aws",
            "MEMORY_BUCKET": "b",
            "MEMORY_TABLE": "t",
            "AWS_REGION": "us-east-1",
            "OPENSEARCH_ENDPOINT": "https://abc.us-east-1.aoss.amazonaws.com",
            "RECONCILE_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/1/q.fifo",
            "IDEMPOTENCY_TABLE": "idem",
            "DREAM_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/1/d",
            "FORMATION_EXTRACTOR": "bedrock",
        }
    )
    monkeypatch.setenv("DREAM_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/1/d")
    build_aws(settings, session=real)
    # Catalog, embedding cache, dream ledger and idempotency share one DynamoDB client; the
    # reconcile and dream queues one SQS client. Bedrock: the indexer's, a turn's, extraction's.
    assert sorted(made) == sorted(["s3", "dynamodb", "sqs", "bedrock-runtime", "bedrock-runtime", "bedrock-runtime"])


@pytest.mark.parametrize(
    ("endpoint", "service"),
    [
        ("https://abc123.us-east-1.aoss.amazonaws.com", "aoss"),
        ("abc123.us-east-1.aoss.amazonaws.com", "aoss"),
        ("https://search-fm-x.us-east-1.es.amazonaws.com", "es"),
    ],
)
def test_aws_endpoints_are_signed_with_the_current_signer_for_their_service(endpoint: str, service: str) -> None:
    client = opensearch_client(endpoint, "us-east-1", session())
    connection = client.transport.get_connection()
    auth = connection.session.auth
    assert type(auth) is RequestsAWSV4SignerAuth and auth.service == service
    assert connection.host.startswith("https://") and connection.host.endswith(":443")


def test_a_self_managed_cluster_takes_basic_auth_over_https_or_plain_http() -> None:
    basic = opensearch_client("https://admin:s%40cret@search.internal:9200", None).transport.get_connection()
    assert basic.session.auth == ("admin", "s@cret") and basic.host == "https://search.internal:9200"
    plain = opensearch_client("http://127.0.0.1:9200", None).transport.get_connection()
    assert plain.session.auth is None and plain.host == "http://127.0.0.1:9200"


def test_a_deadline_gives_one_try_timed_out_at_it() -> None:
    client = opensearch_client("http://127.0.0.1:9200", None, timeout=3.0, max_retries=0)
    assert client.transport.max_retries == 0 and client.transport.get_connection().timeout == 3.0


@pytest.mark.parametrize("endpoint", ["ftp://host", "https://", "https://host/some/path", "https://host?x=1"], ids=str)
def test_an_endpoint_that_is_not_one_is_refused_naming_the_setting(endpoint: str) -> None:
    with pytest.raises(InvalidInputError, match="OPENSEARCH_ENDPOINT"):
        opensearch_client(endpoint, "us-east-1", session())
