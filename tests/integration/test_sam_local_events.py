"""``events/`` and ``env.json``, what ``sam local invoke`` and ``sam local start-api`` are
given (docs/deploy.md), fed to the handlers here under moto.

Every event file goes to its function's handler in the order a family's day would send
them (a session ends through the API, is extracted, reconciled, indexed and compiled; the
agent reads the brief, the card and a turn's lookup; the hourly fan-out and a dream), with
the environment ``env.json`` gives that function and resources named as ``env.json``
names them. Bedrock has no moto, so the extractor is the offline one and the embedder the
hashed one; OpenSearch is the in-memory engine model. ``env.json`` is checked against the
template too: ``sam local`` only overrides variables the template declares for a function.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import boto3
import pytest

from conftest import fake_credentials, serialise_moto_requests
from family_memory.app.bootstrap import build_aws
from family_memory.app.settings import load_settings
from family_memory.domain.clock import FixedClock
from iam_policy import Stack
from lambda_harness import LambdaContext, load_handler
from opensearch_engine import Engine, RecordingClient

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
ENV = json.loads((ROOT / "env.json").read_text())
FUNCTIONS = {
    "api": "ApiFunction",
    "extract": "ExtractFunction",
    "reconcile": "ReconcileFunction",
    "indexer": "IndexerFunction",
    "compile": "CompileFunction",
    "dream_fanout": "DreamFanoutFunction",
    "dream_worker": "DreamWorkerFunction",
}
#: A family's day, one event file a step (every file in events/ appears once).
DAY = [
    "api.session-end.json",
    "extract.session-stored.json",
    "reconcile.candidates-queued.json",
    "indexer.memory-written.json",
    "compile.candidates-written.json",
    "api.brief.json",
    "api.memories.json",
    "api.context.json",
    "dream_fanout.hourly.json",
    "dream_worker.dream-requested.json",
]


def environment(logical: str) -> dict[str, str]:
    return {**ENV["Parameters"], **ENV.get(logical, {})}


def test_every_event_file_is_fed_to_its_handler_below() -> None:
    assert sorted(DAY) == sorted(p.name for p in EVENTS.glob("*.json"))
    assert {name.split(".", 1)[0] for name in DAY} == set(FUNCTIONS)


def test_env_json_sets_only_what_the_template_declares_for_each_function() -> None:
    stack = Stack({})
    functions = {n for n, r in stack.template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}
    assert set(ENV) - {"Parameters"} == functions == set(FUNCTIONS.values())
    for logical in functions:
        declared = set(stack.environment(logical))
        ignored = set(environment(logical)) - declared
        assert ignored == set(), (
            f"sam local ignores {sorted(ignored)} for {logical}: the template does not declare them"
        )


def test_the_events_name_the_resources_env_json_names() -> None:
    bucket = ENV["Parameters"]["MEMORY_BUCKET"]
    for name in DAY:
        text = (EVENTS / name).read_text()
        for found in set(__import__("re").findall(r'"name": "([^"]+)"|arn:aws:s3:::([^"\\]+)', text)):
            assert bucket in found, f"{name} names bucket {found}, env.json {bucket}"
    reconcile = json.loads((EVENTS / "reconcile.candidates-queued.json").read_text())["Records"][0]
    queue = urlparse(ENV["ExtractFunction"]["RECONCILE_QUEUE_URL"]).path.rsplit("/", 1)[-1]
    assert reconcile["eventSourceARN"].endswith(f":{queue}")
    dream = json.loads((EVENTS / "dream_worker.dream-requested.json").read_text())["Records"][0]
    assert dream["eventSourceARN"].endswith(":" + ENV["DreamFanoutFunction"]["DREAM_QUEUE_URL"].rsplit("/", 1)[-1])


@pytest.fixture
def moto_stack(monkeypatch: pytest.MonkeyPatch) -> Any:
    from moto import mock_aws

    from family_memory.adapters.aws.dynamo_catalog import table_definition

    fake_credentials(monkeypatch, POWERTOOLS_TRACE_DISABLED="true")
    serialise_moto_requests()
    with mock_aws():
        session = boto3.session.Session(region_name="us-east-1")
        session.client("s3").create_bucket(Bucket=ENV["Parameters"]["MEMORY_BUCKET"])
        session.client("dynamodb").create_table(**table_definition(ENV["Parameters"]["MEMORY_TABLE"]))
        session.client("dynamodb").create_table(
            TableName=ENV["ReconcileFunction"]["IDEMPOTENCY_TABLE"],
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        sqs = session.client("sqs")
        reconcile = ENV["ExtractFunction"]["RECONCILE_QUEUE_URL"].rsplit("/", 1)[-1]
        sqs.create_queue(QueueName=reconcile, Attributes={"FifoQueue": "true"})
        sqs.create_queue(QueueName=ENV["DreamFanoutFunction"]["DREAM_QUEUE_URL"].rsplit("/", 1)[-1])
        yield session


def test_a_familys_day_in_event_files_goes_through_every_handler(
    moto_stack: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import UTC, datetime

    clock = FixedClock(datetime(2026, 11, 28, 9, 30, tzinfo=UTC))  # 01:30 the next day in Los Angeles
    engine = Engine()
    results: dict[str, Any] = {}
    for name in DAY:
        function = name.split(".", 1)[0]
        logical = FUNCTIONS[function]
        values = environment(logical)
        # No Bedrock under moto: the offline extractor and the hashed embedder stand in.
        values |= {"FORMATION_EXTRACTOR": "offline", "AWS_REGION": "us-east-1"}
        if "FAMILY_MEMORY_EMBEDDER" in values:
            values["FAMILY_MEMORY_EMBEDDER"] = "hashed"
        with monkeypatch.context() as env:
            for key, value in values.items():
                env.setenv(key, value)
            runtime = build_aws(load_settings(values), clock, session=moto_stack, search_client=RecordingClient(engine))
            handler = load_handler(function)
            env.setattr(handler, "runtime", lambda rt=runtime: rt)
            results[name] = handler.handler(json.loads((EVENTS / name).read_text()), LambdaContext(logical))
        engine.settle()

    def body(name: str) -> Any:
        assert results[name]["statusCode"] == 200 or results[name]["statusCode"] == 201, results[name]
        return json.loads(results[name]["body"])

    assert body("api.session-end.json")["stored"] is True
    assert results["extract.session-stored.json"]["status"] == "extracted"
    assert results["extract.session-stored.json"]["accepted"] >= 1
    assert results["reconcile.candidates-queued.json"] == {"batchItemFailures": []}
    # The file the event names was not formed from this transcript: its document is removed (not an error).
    assert results["indexer.memory-written.json"]["outcome"] == "removed"
    assert results["compile.candidates-written.json"] == {"batchItemFailures": []}
    assert body("api.brief.json")["compiled"] is True
    summaries = [m["summary"] for m in body("api.memories.json")["memories"]]
    assert any("peanut" in s for s in summaries), summaries
    assert body("api.context.json")["family_id"] == "fam-rivera"
    assert results["dream_fanout.hourly.json"]["families"] == 1
    assert results["dream_worker.dream-requested.json"] == {"batchItemFailures": []}
