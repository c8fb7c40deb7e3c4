"""One machine: the bus delivers session events to the extract handler, the in-process
FIFO queue delivers SQS-shaped batches to the reconcile handler, Powertools idempotency
keeps records in SQLite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig
from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyItemAlreadyExistsError

from family_memory.adapters.local.events import MAX_ATTEMPTS, InProcessBus
from family_memory.adapters.local.idempotency import SQLiteIdempotencyStore
from family_memory.adapters.local.queue import InProcessQueue
from family_memory.app.bootstrap import build_local
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.domain.clock import FixedClock
from family_memory.domain.errors import DeliveryFailedError
from family_memory.formation.document import Limits
from family_memory.formation.queue import ReconcileRequest
from family_memory.formation.service import read_document, receive_session
from formation_helpers import FAMILY, FRIDAY_MORNING, session_json

REQUEST = ReconcileRequest(family_id=FAMILY, session_id="sess-1", content_hash="a" * 64)


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    return build_local(load_settings({}, home=str(tmp_path / "home"), backend="local"), FixedClock(FRIDAY_MORNING))


def test_a_stored_session_flows_through_the_same_handlers_lambda_runs(runtime: Runtime) -> None:
    services = runtime.formation
    receive_session(services.deps, session_json([("user", "lucia", "We love Thai food. Never book red-eyes.")]))
    assert runtime.bus is not None and runtime.bus.pending == 1
    # One EventBridge-shaped event to extract, one SQS-shaped record to reconcile; the memory
    # files and the change record then reach the indexer and the compile the same way.
    assert runtime.drain() >= 2
    assert runtime.drain() == 0
    document = read_document(runtime.store, FAMILY, "sess-1")
    assert document is not None and document.reconciliation is not None
    assert [o.kind.value for o in document.reconciliation.outcomes] == ["added", "added"]
    assert sum(1 for p in runtime.store.list(FAMILY, "memories/") if p.endswith(".md")) == 2
    totals = services.metrics.totals  # type: ignore[attr-defined]
    assert totals["CandidatesProposed"] == 2 and totals["MemoryChanges_added"] == 2


def test_a_malformed_session_is_refused_without_a_crash_or_a_retry(runtime: Runtime) -> None:
    runtime.store.put(FAMILY, "sessions/bad.json", b'{"family_id": "fam-rivera"}')
    runtime.drain()
    assert read_document(runtime.store, FAMILY, "bad") is None
    assert runtime.formation.metrics.totals["SessionsRefused"] == 1  # type: ignore[attr-defined]


@pytest.mark.filterwarnings("ignore:Couldn.t determine the remaining time")
def test_a_message_delivered_twice_reconciles_once(runtime: Runtime) -> None:
    runs: list[dict[str, str]] = []

    def run(request: dict[str, str]) -> dict[str, Any]:
        runs.append(request)
        return {"counts": {"added": len(runs)}}

    reconcile = runtime.formation.guard(run)
    first, second = reconcile(REQUEST), reconcile(REQUEST)
    assert len(runs) == 1 and first == second == {"counts": {"added": 1}}
    reconcile(REQUEST.model_copy(update={"content_hash": "b" * 64}))
    assert len(runs) == 2  # another extraction of the session is another key


def record_body(record: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(record["body"])
    return body


def test_the_local_queue_speaks_sqs_fifo_and_deduplicates() -> None:
    queue = InProcessQueue()
    batches: list[dict[str, Any]] = []
    queue.set_handler(lambda event: batches.append(event) or {"batchItemFailures": []})  # type: ignore[func-returns-value]
    queue.send(REQUEST)
    queue.send(REQUEST)  # same deduplication id within five minutes: dropped
    queue.send(REQUEST.model_copy(update={"session_id": "sess-2"}))
    assert queue.pump() == 2
    [batch] = batches
    first = batch["Records"][0]
    assert first["eventSource"] == "aws:sqs" and first["attributes"]["MessageGroupId"] == FAMILY
    assert [record_body(r)["session_id"] for r in batch["Records"]] == ["sess-1", "sess-2"]


def test_failed_records_come_back_in_order_then_go_to_the_dead_letter_queue() -> None:
    queue = InProcessQueue(max_receive_count=3)
    seen: list[str] = []

    def handler(event: dict[str, Any]) -> dict[str, Any]:
        failures = []
        for record in event["Records"]:
            session = record_body(record)["session_id"]
            seen.append(session)
            if session == "sess-1":
                failures.append({"itemIdentifier": record["messageId"]})
        return {"batchItemFailures": failures}

    queue.set_handler(handler)
    queue.send(REQUEST)
    queue.send(REQUEST.model_copy(update={"session_id": "sess-2"}))
    queue.pump()
    assert seen == ["sess-1", "sess-2", "sess-1", "sess-1"]
    [dead] = queue.dead_letters
    assert record_body(dead)["session_id"] == "sess-1" and dead["attributes"]["ApproximateReceiveCount"] == "3"


@pytest.mark.filterwarnings("ignore:Couldn.t determine the remaining time")
def test_sqlite_idempotency_refuses_a_second_in_progress_record(tmp_path: Path) -> None:
    store = SQLiteIdempotencyStore(tmp_path / "idem.sqlite3")
    store.configure(IdempotencyConfig(event_key_jmespath="session_id"), function_name="test")
    store.save_inprogress({"session_id": "s1"})
    with pytest.raises(IdempotencyItemAlreadyExistsError):
        store.save_inprogress({"session_id": "s1"})
    store.save_success({"session_id": "s1"}, {"ok": True})
    record = store.get_record({"session_id": "s1"})
    assert record is not None and record.status == "COMPLETED" and record.response_json_as_dict() == {"ok": True}
    store.delete_record({"session_id": "s1"}, RuntimeError("boom"))
    store.save_inprogress({"session_id": "s1"})  # gone, so it can start again


def test_extraction_metrics_count_rejections_by_rule_and_token_usage(runtime: Runtime) -> None:
    from family_memory.app.formation_events import record_extraction_metrics
    from family_memory.domain.transcript import parse_transcript
    from family_memory.formation.document import CandidatesDocument, ExtractorInfo, ExtractorKind
    from family_memory.formation.validation import validate_proposals
    from formation_helpers import candidate, family

    transcript = parse_transcript(session_json([("user", "lucia", "We love Thai food.")]))
    entries = validate_proposals(transcript, family(), [candidate(), candidate(valid_until="soon"), "junk"], Limits())
    document = CandidatesDocument(
        family_id=FAMILY,
        session_id="sess-1",
        surface=transcript.surface,
        started_at=transcript.started_at,
        time_zone=transcript.time_zone,
        extractor=ExtractorInfo(name="bedrock-converse", version="1", kind=ExtractorKind.BEDROCK, label="Bedrock"),
        summary="Thai food.",
        transcript_sha256="0" * 64,
        extracted_at=FRIDAY_MORNING,
        usage={"inputTokens": 1200, "outputTokens": 300, "attempts": 2},
        candidates=entries,
    )
    services = runtime.formation
    record_extraction_metrics(services, document)
    totals = services.metrics.totals  # type: ignore[attr-defined]
    assert (totals["CandidatesProposed"], totals["CandidatesAccepted"], totals["CandidatesRejected"]) == (3, 1, 2)
    assert totals["CandidatesRejected_valid_until"] == 1 and totals["CandidatesRejected_schema"] == 1
    assert (totals["ExtractionInputTokens"], totals["ExtractionOutputTokens"], totals["ExtractionAttempts"]) == (
        1200,
        300,
        2,
    )


def test_a_handler_that_raises_keeps_its_event_for_the_next_drain(caplog: pytest.LogCaptureFixture) -> None:
    bus = InProcessBus()
    seen: list[str] = []
    failures = [RuntimeError("index down")]

    def flaky(event: dict[str, Any]) -> None:
        if failures:
            raise failures.pop()
        seen.append(event["detail"]["object"]["key"])

    others: list[str] = []
    bus.subscribe(r"families/[^/]+/memories/.+", flaky)
    bus.subscribe(r"families/[^/]+/memories/.+", lambda event: others.append("x"))
    bus.on_write(FAMILY, "memories/a.md", "t1")
    with caplog.at_level("ERROR"):
        assert bus.drain() == 1  # the other handler took it; the failed delivery is not retried in this drain
    assert seen == [] and others == ["x"] and bus.pending == 1
    assert any("delivered again at a later drain" in r.getMessage() for r in caplog.records)
    assert [str(e) for e in bus.errors] == ["index down"]
    assert bus.drain() == 1  # retried once, by the handler that failed only
    assert seen == [f"families/{FAMILY}/memories/a.md"] and others == ["x"] and bus.pending == 0
    assert bus.drain() == 0


def test_a_delivery_that_keeps_failing_is_dead_lettered_after_max_attempts(caplog: pytest.LogCaptureFixture) -> None:
    bus = InProcessBus()
    calls: list[int] = []

    def broken(event: dict[str, Any]) -> None:
        calls.append(1)
        raise RuntimeError("index of another embedder")

    bus.subscribe(r"families/[^/]+/memories/.+", broken)
    bus.on_write(FAMILY, "memories/a.md", "t1")
    with caplog.at_level("ERROR"):
        for _ in range(MAX_ATTEMPTS + 3):
            bus.drain()
    assert len(calls) == MAX_ATTEMPTS and bus.pending == 0
    assert [d.attempts for d in bus.dead_letters] == [MAX_ATTEMPTS]
    assert any("dead-lettered" in r.getMessage() for r in caplog.records)


def test_a_runtime_drain_ends_when_a_handler_writes_and_then_raises(tmp_path: Path) -> None:
    # The handler's own write is delivered (to itself again), it raises each time: the drain
    # must neither loop nor retry within the call; strict raises the first error at the end.
    runtime = build_local(
        load_settings({}, home=str(tmp_path), backend="local", embedder="hashed"), FixedClock(FRIDAY_MORNING)
    )
    assert runtime.bus is not None
    calls: list[str] = []

    def writes_then_fails(event: dict[str, Any]) -> None:
        calls.append(event["detail"]["object"]["key"])
        if len(calls) < 10:
            runtime.bus.on_write(FAMILY, f"memories/loop-{len(calls)}.md", "t")  # type: ignore[union-attr]
        raise RuntimeError(f"failed {len(calls)}")

    runtime.bus.subscribe(r"families/[^/]+/memories/loop-.+", writes_then_fails)
    runtime.bus.on_write(FAMILY, "memories/loop-0.md", "t")
    with pytest.raises(DeliveryFailedError, match="failed 1"):
        runtime.drain()
    # Each event was delivered once; none of the failures was retried within the call.
    assert len(calls) == 10 and len(set(calls)) == 10
    assert runtime.drain(strict=False) == 0 and len(calls) == 20  # the next drain retries each once


def _runtime(tmp_path: Path) -> Runtime:
    runtime = build_local(
        load_settings({}, home=str(tmp_path), backend="local", embedder="hashed"), FixedClock(FRIDAY_MORNING)
    )
    assert runtime.bus is not None
    return runtime


def test_a_strict_drain_reports_only_what_failed_in_it_and_wraps_foreign_errors(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    assert runtime.bus is not None

    def disk_full(event: dict[str, Any]) -> None:
        raise OSError(28, "No space left on device")

    runtime.bus.subscribe(r"families/[^/]+/x-test/full-.+", disk_full)
    runtime.bus.on_write(FAMILY, "x-test/full-1.md", "t")
    with pytest.raises(DeliveryFailedError, match="No space left on device"):
        runtime.drain()  # a command reports it as the core's error (exit 2), not a traceback
    # A later, healthy command is not failed by the old delivery's retry (only logged).
    seen: list[str] = []
    runtime.bus.subscribe(r"families/[^/]+/x-test/ok-.+", lambda event: seen.append("ok"))
    runtime.bus.on_write(FAMILY, "x-test/ok-1.md", "t")
    assert runtime.drain() == 1 and seen == ["ok"] and runtime.bus.failed == 1


def test_a_pump_that_raises_is_not_called_again_within_the_drain(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    assert runtime.bus is not None
    runtime.bus.subscribe(r"families/[^/]+/x-test/.+", lambda event: None)
    calls: list[int] = []

    def writes_then_raises() -> int:
        calls.append(1)
        runtime.bus.on_write(FAMILY, f"x-test/p-{len(calls)}.md", "t")  # type: ignore[union-attr]
        raise RuntimeError("the queue is stuck")

    runtime.pumps.append(writes_then_raises)
    runtime.bus.on_write(FAMILY, "x-test/p-0.md", "t")
    assert runtime.drain(strict=False) == 2  # p-0, then the pump's own write; the pump once
    assert calls == [1]
    with pytest.raises(DeliveryFailedError, match="stuck"):
        runtime.drain()
