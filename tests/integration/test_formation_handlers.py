"""The extract and reconcile Lambda handlers under moto: from a session landing in S3 to
memory files, evidence sidecars and catalog rows; SQS FIFO hand-off; partial batch
failures; Powertools idempotency on redelivery."""

from __future__ import annotations

import copy
import io
import json
import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

from conftest import TEST_BUCKET, TEST_TABLE
from family_memory.adapters.aws.dynamo_catalog import DynamoCatalog
from family_memory.adapters.aws.s3_store import S3Store
from family_memory.adapters.aws.sqs_reconcile_queue import SqsReconcileQueue
from family_memory.app.bootstrap import runtime
from family_memory.app.observability import logger
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.layout import evidence_path, memory_path
from family_memory.domain.okf import parse_memory
from family_memory.formation.queue import ReconcileRequest
from family_memory.formation.service import read_document
from formation_helpers import FAMILY, FRIDAY_MORNING, session_json
from lambda_harness import EVENTS, LambdaContext, load_handler

IDEMPOTENCY_TABLE = "family-memory-test-idempotency"
SESSION = "sess-2026-11-27-lucia"


@dataclass
class Stack:
    session: Any
    queue_url: str
    extract: ModuleType
    reconcile: ModuleType

    @property
    def s3(self) -> Any:
        return self.session.client("s3")

    def put_session(
        self, turns: list[tuple[str, str | None, str]], session_id: str = SESSION, family_id: str = FAMILY
    ) -> dict[str, Any]:
        key = f"families/{family_id}/sessions/{session_id}.json"
        body = session_json(turns, session_id=session_id, family_id=family_id, started_at=FRIDAY_MORNING)
        self.s3.put_object(Bucket=TEST_BUCKET, Key=key, Body=body)
        event = json.loads((EVENTS / "s3_session_object_created.json").read_text())
        event["detail"]["object"]["key"] = key
        return dict(event)

    def receive(self) -> dict[str, Any]:
        """What Lambda's SQS event source would hand the reconcile function."""
        sqs = self.session.client("sqs")
        response = sqs.receive_message(
            QueueUrl=self.queue_url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"]
        )
        template = json.loads((EVENTS / "sqs_reconcile_batch.json").read_text())["Records"][0]
        records = []
        for message in response.get("Messages", []):
            record = copy.deepcopy(template)
            record["messageId"] = message["MessageId"]
            record["receiptHandle"] = message["ReceiptHandle"]
            record["body"] = message["Body"]
            record["attributes"].update(message.get("Attributes", {}))
            records.append(record)
            sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
        return {"Records": records}


@pytest.fixture
def stack(aws: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    session = aws
    queue_url = session.client("sqs").create_queue(
        QueueName="family-memory-reconcile.fifo",
        Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "false"},
    )["QueueUrl"]
    session.client("dynamodb").create_table(
        TableName=IDEMPOTENCY_TABLE,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for name, value in {
        "FAMILY_MEMORY_BACKEND": "aws",
        "MEMORY_BUCKET": TEST_BUCKET,
        "MEMORY_TABLE": TEST_TABLE,
        "RECONCILE_QUEUE_URL": queue_url,
        "IDEMPOTENCY_TABLE": IDEMPOTENCY_TABLE,
        "FORMATION_EXTRACTOR": "offline",
        "POWERTOOLS_METRICS_NAMESPACE": "FamilyMemoryTest",
    }.items():
        monkeypatch.setenv(name, value)
    runtime.cache_clear()
    yield Stack(session, queue_url, load_handler("extract"), load_handler("reconcile"))
    runtime.cache_clear()


def test_from_session_upload_to_memory_files_sidecars_and_catalog_rows(stack: Stack) -> None:
    event = stack.put_session(
        [
            ("user", "lucia", "My daughter Maya is allergic to peanuts."),
            ("assistant", None, "Noted."),
            ("user", "lucia", "Never book flights before 7am."),
        ]
    )
    result = stack.extract.handler(event, LambdaContext("extract"))
    assert result["status"] == "extracted" and result["accepted"] == 3 and result["enqueued"]

    batch = stack.receive()
    [record] = batch["Records"]
    assert record["attributes"]["MessageGroupId"] == FAMILY
    assert stack.reconcile.handler(batch, LambdaContext("reconcile")) == {"batchItemFailures": []}

    store = S3Store(stack.session.client("s3"), TEST_BUCKET)
    catalog = DynamoCatalog(stack.session.client("dynamodb"), TEST_TABLE)
    rows = {row.summary: row for row in catalog.all_rows(FAMILY)}
    assert set(rows) == {
        "Maya is the family's daughter.",
        "Maya is allergic to peanuts.",
        "Never book flights before 7am.",
    }
    allergy = rows["Maya is allergic to peanuts."]
    memory = parse_memory(store.read(FAMILY, memory_path(allergy.id)).data)
    assert memory.sensitivity.value == "health" and allergy.tag == store.read(FAMILY, memory_path(allergy.id)).tag
    [evidence] = parse_ledger(store.read(FAMILY, evidence_path(allergy.id)).data)
    assert evidence.ref == f"conv://{FAMILY}/{SESSION}#turn=1"
    document = read_document(store, FAMILY, SESSION)
    assert document is not None and document.reconciliation is not None
    assert len(list(store.list(FAMILY, "changes/"))) == 1


def test_a_redelivered_message_changes_nothing(stack: Stack) -> None:
    stack.extract.handler(stack.put_session([("user", "lucia", "We love Thai food.")]), LambdaContext("reconcile"))
    batch = stack.receive()
    first = stack.reconcile.handler(batch, LambdaContext("reconcile"))
    store = S3Store(stack.session.client("s3"), TEST_BUCKET)
    before = {p: store.read(FAMILY, p).tag for p in store.list(FAMILY)}
    assert stack.reconcile.handler(batch, LambdaContext("reconcile")) == first == {"batchItemFailures": []}
    assert {p: store.read(FAMILY, p).tag for p in store.list(FAMILY)} == before
    items = stack.session.client("dynamodb").scan(TableName=IDEMPOTENCY_TABLE)["Items"]
    assert [item["status"]["S"] for item in items] == ["COMPLETED"]


def test_the_same_session_event_twice_extracts_once_and_queues_once(stack: Stack) -> None:
    event = stack.put_session([("user", "lucia", "We love Thai food.")])
    assert stack.extract.handler(event, LambdaContext("reconcile"))["status"] == "extracted"
    assert stack.extract.handler(event, LambdaContext("reconcile"))["status"] == "reused"
    assert len(stack.receive()["Records"]) == 1  # FIFO deduplication on (family, session, content hash)


def test_a_failed_record_fails_the_rest_of_its_family_but_not_other_families(stack: Stack) -> None:
    stack.extract.handler(stack.put_session([("user", "lucia", "We love Thai food.")]), LambdaContext("reconcile"))
    stack.extract.handler(
        stack.put_session([("user", "ada", "We love jollof rice.")], "sess-9", "fam-okafor"), LambdaContext("reconcile")
    )
    good, other = sorted(stack.receive()["Records"], key=lambda r: r["attributes"]["MessageGroupId"] != FAMILY)
    broken = copy.deepcopy(good) | {"messageId": str(uuid.uuid4()), "body": '{"family_id": "fam-rivera"}'}
    response = stack.reconcile.handler({"Records": [broken, good, other]}, LambdaContext("reconcile"))
    # The broken record fails, and so does the one behind it in the same family (order is kept);
    # the other family's record is reconciled.
    assert {item["itemIdentifier"] for item in response["batchItemFailures"]} == {
        broken["messageId"],
        good["messageId"],
    }
    catalog = DynamoCatalog(stack.session.client("dynamodb"), TEST_TABLE)
    assert [row.summary for row in catalog.all_rows("fam-okafor")] == ["The family loves jollof rice."]
    assert list(catalog.all_rows(FAMILY)) == []
    assert stack.reconcile.handler({"Records": [good]}, LambdaContext("reconcile")) == {"batchItemFailures": []}
    assert [row.summary for row in catalog.all_rows(FAMILY)] == ["The family loves Thai food."]


def test_a_malformed_session_is_refused_and_not_retried(stack: Stack) -> None:
    key = f"families/{FAMILY}/sessions/broken.json"
    stack.s3.put_object(Bucket=TEST_BUCKET, Key=key, Body=b"{}")
    event = json.loads((EVENTS / "s3_session_object_created.json").read_text())
    event["detail"]["object"]["key"] = key
    result = stack.extract.handler(event, LambdaContext("reconcile"))
    assert result["status"] == "refused" and "family_id" in result["reason"]
    assert stack.receive()["Records"] == []


def test_the_sqs_adapter_sends_to_the_familys_message_group(stack: Stack) -> None:
    queue = SqsReconcileQueue(stack.session.client("sqs"), stack.queue_url)
    request = ReconcileRequest(family_id=FAMILY, session_id="sess-1", content_hash="f" * 64)
    queue.send(request)
    queue.send(request)
    [record] = stack.receive()["Records"]
    assert record["attributes"]["MessageGroupId"] == FAMILY
    assert record["attributes"]["MessageDeduplicationId"] == request.deduplication_id
    assert ReconcileRequest.model_validate_json(record["body"]) == request


def test_every_log_line_of_a_run_carries_the_family_and_session(stack: Stack) -> None:
    handler = logger.registered_handler
    assert isinstance(handler, logging.StreamHandler)
    buffer = io.StringIO()
    previous, level = handler.setStream(buffer), logger.log_level
    logger.setLevel("INFO")
    try:
        stack.extract.handler(stack.put_session([("user", "lucia", "We love Thai food.")]), LambdaContext("reconcile"))
        stack.reconcile.handler(stack.receive(), LambdaContext("reconcile"))
    finally:
        handler.setStream(previous)
        logger.setLevel(level)
    lines = [json.loads(line) for line in buffer.getvalue().splitlines()]
    messages = {line["message"]: line for line in lines}
    assert {"session extracted", "session reconciled"} <= set(messages)
    for line in lines:
        assert line["family_id"] == FAMILY and line["session_id"] == SESSION, line


def stubbed_bedrock(stack: Stack) -> Any:
    """The extract function's extractor swapped for Bedrock on a client botocore's Stubber answers."""
    from botocore.config import Config
    from botocore.stub import Stubber

    from family_memory.adapters.aws.bedrock_extractor import BedrockExtractor
    from family_memory.formation.extraction import RetryPolicy

    client = stack.session.client("bedrock-runtime", config=Config(retries={"max_attempts": 1, "mode": "standard"}))
    retry = RetryPolicy(max_attempts=2, sleep=lambda _: None)
    runtime().formation.deps.extractor = BedrockExtractor(
        client, "us.anthropic.claude-haiku-4-5-20251001-v1:0", retry=retry
    )
    return Stubber(client)


def test_a_session_bedrock_refuses_is_recorded_as_extraction_failed_and_not_retried(stack: Stack) -> None:
    stub = stubbed_bedrock(stack)
    event = stack.put_session([("user", "lucia", "We love Thai food.")])
    with stub:
        stub.add_client_error(
            "converse",
            service_error_code="ValidationException",
            service_message="Input is too long for requested model.",
            http_status_code=400,
        )
        result = stack.extract.handler(event, LambdaContext("extract"))
        # A redelivery of the event does not call the model again (the stub has nothing more to give).
        again = stack.extract.handler(event, LambdaContext("extract"))
        stub.assert_no_pending_responses()
    assert result["status"] == again["status"] == "extraction_failed"
    assert "Input is too long" in result["reason"]
    document = read_document(S3Store(stack.session.client("s3"), TEST_BUCKET), FAMILY, SESSION)
    assert document is not None and document.extraction_failed is not None
    assert document.extraction_failed.code == "ValidationException" and document.candidates == []
    assert document.summary == "" and stack.receive()["Records"] == []


def test_a_bedrock_server_error_fails_the_invocation_so_the_event_is_retried(stack: Stack) -> None:
    from family_memory.formation.extraction import ExtractionUnavailableError

    stub = stubbed_bedrock(stack)
    event = stack.put_session([("user", "lucia", "We love Thai food.")])
    with stub:
        stub.add_client_error("converse", service_error_code="InternalServerException", http_status_code=500)
        with pytest.raises(ExtractionUnavailableError):
            stack.extract.handler(event, LambdaContext("extract"))
    assert read_document(S3Store(stack.session.client("s3"), TEST_BUCKET), FAMILY, SESSION) is None
