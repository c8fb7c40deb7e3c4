"""The lifecycle's Lambda handlers under moto: the hourly fan-out through SQS to the
dream worker and a new brief, partial batch failures, and the compile on ``changes/``."""

from __future__ import annotations

import copy
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

# Powertools' Tracer loads the X-Ray SDK, which opens a UDP socket when imported: import it
# here, at collection, before pytest-socket turns sockets off for the tests.
import family_memory.app.observability  # noqa: F401
from conftest import TEST_BUCKET, TEST_TABLE
from factories import memory
from family_memory.app import bootstrap
from family_memory.app.bootstrap import build_aws
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.brief.model import parse_brief
from family_memory.domain.changes import Action, ChangeSet, MemoryWrite
from family_memory.domain.clock import local_date
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.ids import new_ulid
from family_memory.domain.layout import BRIEF, LOG, candidates_path, session_path
from family_memory.domain.memory import Authority, Memory, MemoryType
from family_memory.families import save_family
from family_memory.lifecycle.dream import dream_family
from family_memory.lifecycle.schedule import next_local_midnight
from iam_policy import Stack
from lambda_harness import LambdaContext, event, load_handler

LA = "America/Los_Angeles"


@dataclass
class Cloud:
    session: Any
    queue_url: str
    dead_letter_url: str

    def runtime(self) -> Runtime:
        return build_aws(
            load_settings(backend="aws", bucket=TEST_BUCKET, table=TEST_TABLE, lease_wait_seconds=5),
            session=self.session,
        )


@pytest.fixture
def cloud(aws: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cloud]:
    """moto with the dream queue and its dead-letter queue, and the functions' environment."""
    sqs = aws.client("sqs")
    dead = sqs.create_queue(QueueName="dream-dlq")["QueueUrl"]
    dead_arn = sqs.get_queue_attributes(QueueUrl=dead, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(
        QueueName="dreams",
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dead_arn, "maxReceiveCount": "3"})},
    )["QueueUrl"]
    for name, value in {
        "FAMILY_MEMORY_BACKEND": "aws",
        "MEMORY_BUCKET": TEST_BUCKET,
        "MEMORY_TABLE": TEST_TABLE,
        "DREAM_QUEUE_URL": url,
        "POWERTOOLS_METRICS_DISABLED": "false",
    }.items():
        monkeypatch.setenv(name, value)
    bootstrap.runtime.cache_clear()
    yield Cloud(aws, url, dead)
    bootstrap.runtime.cache_clear()


def directive(**kw: Any) -> Memory:
    values: dict[str, Any] = {"type": MemoryType.DIRECTIVE, "authority": Authority.USER_EXPLICIT}
    values.update(kw)
    return memory(**values)


def add(rt: Runtime, family_id: str, *memories: Memory) -> ChangeSet:
    cs = ChangeSet(
        id=new_ulid(),
        family_id=family_id,
        actor="process:formation",
        reason="a session",
        created_at=datetime.now(UTC),
        memories=[MemoryWrite(action=Action.ADD, memory=m) for m in memories],
    )
    rt.writer.apply(cs)
    return cs


def sqs_event(messages: list[dict[str, Any]], queue: str = "family-memory-DreamQueue") -> dict[str, Any]:
    """An SQS event for the worker from received messages (the shape Lambda's poller delivers)."""
    template = event("dream_worker_sqs.json")["Records"][0]
    records = []
    for message in messages:
        record = copy.deepcopy(template)
        record.update(
            messageId=message["MessageId"],
            receiptHandle=message["ReceiptHandle"],
            body=message["Body"],
            md5OfBody=message["MD5OfBody"],
            eventSourceARN=f"arn:aws:sqs:us-east-1:123456789012:{queue}",
        )
        records.append(record)
    return {"Records": records}


def receive_all(cloud: Cloud) -> list[dict[str, Any]]:
    sqs = cloud.session.client("sqs")
    messages: list[dict[str, Any]] = []
    while True:
        batch = sqs.receive_message(QueueUrl=cloud.queue_url, MaxNumberOfMessages=10).get("Messages", [])
        if not batch:
            return messages
        messages += batch


def test_hourly_fan_out_goes_through_sqs_to_the_worker_and_the_new_brief(
    cloud: Cloud, capsys: pytest.CaptureFixture[str]
) -> None:
    rt = cloud.runtime()
    deps = rt.lifecycle.deps
    now = datetime.now(UTC)
    today = local_date(now, LA)
    # fam-rivera dreamed yesterday; its local midnight has passed since. A fact valid until today is now over.
    save_family(rt.store, FamilySettings(family_id="fam-rivera", time_zone=LA))
    ending = directive(summary="Marco is away until today.", valid_until=today)
    add(rt, "fam-rivera", ending, directive(summary="Call Lu before booking."))
    dream_family(deps, "fam-rivera", now=now - timedelta(days=1))
    assert "Marco is away until today." in rt.store.read("fam-rivera", BRIEF).data.decode()
    # fam-okafor already dreamed for its current date; fam-new never dreamed.
    save_family(rt.store, FamilySettings(family_id="fam-okafor", time_zone="Europe/London"))
    deps.ledger.record_dream(
        "fam-okafor",
        time_zone="Europe/London",
        local_date=local_date(now, "Europe/London"),
        next_dream_at=next_local_midnight(now, "Europe/London"),
    )
    save_family(rt.store, FamilySettings(family_id="fam-new"))

    fanout = load_handler("dream_fanout").handler(event("dream_schedule.json"), LambdaContext())
    assert fanout == {"families": 3, "due": 2, "enqueued": 2}

    messages = receive_all(cloud)
    assert sorted(json.loads(m["Body"])["family_id"] for m in messages) == ["fam-new", "fam-rivera"]
    capsys.readouterr()
    result = load_handler("dream_worker").handler(sqs_event(messages), LambdaContext())
    assert result == {"batchItemFailures": []}
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]
    dreamed = next(doc for doc in emitted if "FamiliesDreamed" in doc)
    assert dreamed["FamiliesDreamed"] == [1.0, 1.0] and len(dreamed["BriefTokens"]) == 2
    transitions = [doc for doc in emitted if "Transitions" in doc]
    assert [(doc["kind"], doc["Transitions"], doc["service"]) for doc in transitions] == [
        ("expire", [1.0], "family-memory")
    ]

    brief = parse_brief(rt.store.read("fam-rivera", BRIEF).data)
    assert [line.text for line in brief.directives] == ["Call Lu before booking."]
    assert rt.catalog.get_rows("fam-rivera", [ending.id])[ending.id].status.value == "expired"
    assert "**Expire**" in rt.store.read("fam-rivera", LOG).data.decode()
    assert deps.ledger.get("fam-rivera").last_dream_date == today  # type: ignore[union-attr]
    assert rt.store.exists("fam-new", BRIEF)
    # An hour later nobody is due: each family dreamed for its current date.
    again = load_handler("dream_fanout").handler(event("dream_schedule.json"), LambdaContext())
    assert again["due"] == 0 and receive_all(cloud) == []


def test_worker_reports_only_the_failed_message_of_a_batch(cloud: Cloud) -> None:
    rt = cloud.runtime()
    save_family(rt.store, FamilySettings(family_id="fam-rivera"))
    good = event("dream_worker_sqs.json")
    bad_record = copy.deepcopy(good["Records"][0])
    bad_record.update(messageId="bad-1", body='{"family_id": "../../etc"}')
    worse_record = copy.deepcopy(good["Records"][0])
    worse_record.update(messageId="bad-2", body="not json at all")
    batch = {"Records": [good["Records"][0], bad_record, worse_record]}
    result = load_handler("dream_worker").handler(batch, LambdaContext())
    assert sorted(f["itemIdentifier"] for f in result["batchItemFailures"]) == ["bad-1", "bad-2"]
    assert rt.store.exists("fam-rivera", BRIEF)


def compile_record(key: str) -> dict[str, Any]:
    record: dict[str, Any] = copy.deepcopy(event("compile_changes_sqs.json")["Records"][0])
    body = json.loads(record["body"])
    body["detail"]["object"]["key"] = key
    record.update(messageId=str(uuid.uuid4()), body=json.dumps(body))
    return record


def test_compile_dreams_each_family_in_a_batch_once_and_notes_conversations(cloud: Cloud) -> None:
    rt = cloud.runtime()
    save_family(rt.store, FamilySettings(family_id="fam-rivera", time_zone=LA, members=[Member(id="lu", name="Lu")]))
    sets = [add(rt, "fam-rivera", directive(summary=f"Rule {i}.")) for i in range(3)]
    transcript = {"family_id": "fam-rivera", "session_id": "sess-7", "turns": [{"role": "user", "member_id": "lu"}]}
    rt.store.put("fam-rivera", session_path("sess-7"), json.dumps(transcript).encode())
    rt.store.put(
        "fam-rivera",
        candidates_path("sess-7"),
        json.dumps(
            {
                "session_id": "sess-7",
                "surface": "chat",
                "started_at": "2026-11-16T18:00:00Z",
                "summary": "Talked about the rules.",
            }
        ).encode(),
    )
    garbage = compile_record("families/fam-rivera/changes/x.json")
    garbage["body"] = "{}"
    records = [compile_record("families/fam-rivera/candidates/sess-7.json")]
    records += [compile_record(f"families/fam-rivera/changes/{cs.id}.json") for cs in sets]
    records += [garbage, compile_record("families/fam-rivera/brief.json")]

    result = load_handler("compile").handler({"Records": records}, LambdaContext())

    assert result == {"batchItemFailures": [{"itemIdentifier": garbage["messageId"]}]}
    brief = parse_brief(rt.store.read("fam-rivera", BRIEF).data)
    assert sorted(line.text for line in brief.directives) == ["Rule 0.", "Rule 1.", "Rule 2."]
    assert [line.text for line in brief.served("lu").last_conversation] == ["Talked about the rules."]
    assert brief.served(None).last_conversation == ()  # a request naming no member gets none
    log = rt.store.read("fam-rivera", LOG).data.decode()
    assert all(f"/changes/{cs.id}.json" in log for cs in sets) and log.count("**Brief**") == 1


def test_compile_reports_every_message_of_a_family_whose_dream_failed(cloud: Cloud) -> None:
    rt = cloud.runtime()
    rt.store.put("fam-broken", "family.json", b"{not json")
    records = [compile_record(f"families/fam-broken/changes/{new_ulid()}.json") for _ in range(2)]
    result = load_handler("compile").handler({"Records": records}, LambdaContext())
    assert sorted(f["itemIdentifier"] for f in result["batchItemFailures"]) == sorted(r["messageId"] for r in records)


def test_fan_out_without_a_queue_is_a_configuration_error(cloud: Cloud, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DREAM_QUEUE_URL")
    bootstrap.runtime.cache_clear()
    with pytest.raises(Exception, match="DREAM_QUEUE_URL"):
        load_handler("dream_fanout").handler(event("dream_schedule.json"), LambdaContext())


@pytest.mark.parametrize("function", ["compile", "dream_worker"])
def test_a_family_another_writer_holds_fails_fast_and_the_rest_of_the_batch_is_dreamed(
    cloud: Cloud, monkeypatch: pytest.MonkeyPatch, function: str
) -> None:
    # The wait the template gives the function (not the 60 s default that outlasted a batch).
    logical = {"compile": "CompileFunction", "dream_worker": "DreamWorkerFunction"}[function]
    wait = Stack({}).environment(logical)["LEASE_WAIT_SECONDS"]
    monkeypatch.setenv("LEASE_WAIT_SECONDS", wait)
    bootstrap.runtime.cache_clear()
    rt = cloud.runtime()
    for family in ("fam-busy", "fam-free"):
        save_family(rt.store, FamilySettings(family_id=family, time_zone=LA))
    busy_sets = [add(rt, "fam-busy", directive(summary=f"Rule {i}.")) for i in range(2)]
    free_set = add(rt, "fam-free", directive(summary="Call Lu before booking."))
    rt.catalog.acquire_lease("fam-busy", "a-reconcile-elsewhere", timedelta(minutes=2))

    if function == "compile":
        busy = [compile_record(f"families/fam-busy/changes/{cs.id}.json") for cs in busy_sets]
        records = [*busy, compile_record(f"families/fam-free/changes/{free_set.id}.json")]
    else:
        template = event("dream_worker_sqs.json")["Records"][0]
        busy, records = [], []
        for family in ("fam-busy", "fam-free"):
            record = copy.deepcopy(template)
            record.update(messageId=f"msg-{family}", body=json.dumps({"family_id": family}))
            records.append(record)
            busy += [record] if family == "fam-busy" else []
    started = time.monotonic()
    result = load_handler(function).handler({"Records": records}, LambdaContext())
    elapsed = time.monotonic() - started

    assert sorted(f["itemIdentifier"] for f in result["batchItemFailures"]) == sorted(r["messageId"] for r in busy)
    assert elapsed < float(wait) + 5  # one short wait, not the 60 s default per busy family
    assert rt.store.exists("fam-free", BRIEF) and not rt.store.exists("fam-busy", BRIEF)
