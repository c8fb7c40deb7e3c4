"""The dream queue: SQS batches under moto, retries of failed entries, and the in-process queue."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

import pytest

from family_memory.adapters.aws.sqs_dream_queue import SQSDreamQueue
from family_memory.adapters.local.dream_queue import LocalDreamQueue
from family_memory.domain.errors import InvalidInputError
from family_memory.ports.lifecycle import DreamQueueError, DreamRequest

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient


def test_requests_are_sent_in_batches_of_ten_and_arrive_intact(aws: Any) -> None:
    sqs = aws.client("sqs")
    url = sqs.create_queue(QueueName="dreams")["QueueUrl"]
    requests = [
        DreamRequest(f"fam-{i:02d}", datetime(2026, 11, 17, 8, tzinfo=UTC) if i % 2 else None) for i in range(25)
    ]
    calls: list[int] = []
    sqs.meta.events.register(
        "provide-client-params.sqs.SendMessageBatch", lambda params, **_: calls.append(len(params["Entries"]))
    )
    assert SQSDreamQueue(sqs, url).send(requests) == 25
    assert sorted(calls) == [5, 10, 10]
    received = []
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        received += [DreamRequest.from_body(m["Body"]) for m in batch]
    assert sorted(received, key=lambda r: r.family_id) == requests


class FlakySQS:
    """A stand-in for the SQS client at the third-party edge: fails chosen entries once."""

    def __init__(self, transient: set[str], permanent: set[str]) -> None:
        self.transient, self.permanent = set(transient), set(permanent)
        self.delivered: list[str] = []

    def send_message_batch(self, QueueUrl: str, Entries: list[dict[str, str]]) -> dict[str, Any]:  # noqa: N803
        failed = []
        for entry in Entries:
            family = json.loads(entry["MessageBody"])["family_id"]
            if family in self.permanent:
                failed.append({"Id": entry["Id"], "SenderFault": True, "Code": "InvalidMessageContents"})
            elif family in self.transient:
                self.transient.discard(family)
                failed.append({"Id": entry["Id"], "SenderFault": False, "Code": "InternalError"})
            else:
                self.delivered.append(family)
        return {"Successful": [], "Failed": failed}


def test_entries_that_fail_for_the_service_are_retried() -> None:
    client = FlakySQS(transient={"fam-b", "fam-c"}, permanent=set())
    queue = SQSDreamQueue(cast("SQSClient", client), "https://sqs/q", backoff_seconds=0)
    assert queue.send([DreamRequest(f) for f in ("fam-a", "fam-b", "fam-c")]) == 3
    assert sorted(client.delivered) == ["fam-a", "fam-b", "fam-c"]


def test_entries_the_service_refuses_raise_after_the_rest_are_sent() -> None:
    client = FlakySQS(transient=set(), permanent={"fam-b"})
    queue = SQSDreamQueue(cast("SQSClient", client), "https://sqs/q", backoff_seconds=0, max_workers=1)
    with pytest.raises(DreamQueueError, match="1 of 12 dream requests"):
        queue.send([DreamRequest(f"fam-{c}") for c in "abcdefghijkl"])
    assert len(client.delivered) == 11


def test_malformed_requests_name_the_problem() -> None:
    for body, message in [
        ("nope", "not JSON"),
        ("[]", "JSON object"),
        ("{}", "family_id is missing"),
        ('{"family_id": "../x"}', "family id"),
        ('{"family_id": "fam-a", "extra": 1}', "unknown fields"),
        ('{"family_id": "fam-a", "due_at": 5}', "due_at"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            DreamRequest.from_body(body)


def test_local_queue_retries_then_dead_letters_a_failing_message() -> None:
    queue = LocalDreamQueue(max_receives=3)
    queue.send([DreamRequest("fam-a"), DreamRequest("fam-bad")])
    seen: list[str] = []

    def worker(body: str) -> None:
        request = DreamRequest.from_body(body)
        seen.append(request.family_id)
        if request.family_id == "fam-bad":
            raise RuntimeError("boom")

    report = queue.drain(worker)
    assert report.processed == 1 and report.failed_attempts == 3
    assert seen.count("fam-bad") == 3 and [json.loads(b)["family_id"] for b, _ in queue.dead_letters] == ["fam-bad"]
