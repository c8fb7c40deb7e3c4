"""The event table (domain/layout.py) is what template.yaml's rules say, and what the local bus runs."""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from factories import FAMILY, add, change_set, memory
from family_memory.app.bootstrap import build_local
from family_memory.app.settings import load_settings
from family_memory.domain.layout import OBJECT_EVENTS, SCHEDULED, Service, events_of, key_pattern, starts
from iam_policy import Intrinsic, raw_template

ROOT = Path(__file__).resolve().parents[2]
#: The function each service is on AWS.
FUNCTION = {
    Service.EXTRACT: "ExtractFunction",
    Service.COMPILE: "CompileFunction",
    Service.INDEX: "IndexerFunction",
    Service.FAN_OUT: "DreamFanoutFunction",
}
#: Where an EventBridge rule's target leads: the function itself, or the queue the function reads.
QUEUE_OF = {"CompileQueue": "CompileFunction"}


def _target_function(arn: object) -> str:
    """``!GetAtt X.Arn`` -> the function X is, or reaches through its queue."""
    value = arn.value if isinstance(arn, Intrinsic) else arn
    name = str(value).removesuffix(".Arn")
    return QUEUE_OF.get(name, name)


def _rules() -> dict[str, set[str]]:
    """For each function, the S3 object-key wildcards of the EventBridge rules that reach it."""
    wildcards: dict[str, set[str]] = defaultdict(set)
    for resource in raw_template()["Resources"].values():
        if resource["Type"] != "AWS::Events::Rule":
            continue
        pattern = resource["Properties"].get("EventPattern", {})
        if pattern.get("source") != ["aws.s3"] or pattern.get("detail-type") != ["Object Created"]:
            continue
        keys = {k["wildcard"] for k in pattern["detail"]["object"]["key"]}
        for target in resource["Properties"]["Targets"]:
            wildcards[_target_function(target["Arn"])] |= keys
    return wildcards


def test_every_s3_rule_of_the_template_is_a_row_of_the_event_table_and_back() -> None:
    rules = _rules()
    table = {FUNCTION[s]: {e.wildcard for e in events_of(s)} for s in Service if events_of(s)}
    assert rules == table


def test_the_schedule_starts_the_service_the_table_names() -> None:
    schedules = [r for r in raw_template()["Resources"].values() if r["Type"] == "AWS::Scheduler::Schedule"]
    assert [_target_function(s["Properties"]["Target"]["Arn"]) for s in schedules] == [FUNCTION[SCHEDULED]]


@pytest.mark.parametrize(
    "path",
    [
        "sessions/s1.json",
        "sessions/s1.txt",
        "changes/01K6N1R0A0B0C0D0E0F0G0H010.json",
        "candidates/s1.json",
        "memories/01K6N1R0A0B0C0D0E0F0G0H010.md",
        "memories/01K6N1R0A0B0C0D0E0F0G0H010.evidence.jsonl",
        "brief.json",
        "log.md",
        "suppressions/r1.json",
    ],
)
def test_a_key_starts_in_code_exactly_the_services_whose_rules_match_it(path: str) -> None:
    key = f"families/{FAMILY}/{path}"
    rules = _rules()
    for service in (e.service for e in OBJECT_EVENTS):
        by_rule = any(fnmatch.fnmatchcase(key, w) for w in rules[FUNCTION[service]])  # EventBridge: * crosses '/'
        assert starts(service, key) is by_rule, (service, key)


def test_the_local_bus_delivers_each_write_to_the_services_the_table_names(tmp_path: Path) -> None:
    runtime = build_local(load_settings({}, home=str(tmp_path), embedder="hashed"))
    assert runtime.bus is not None
    delivered: list[tuple[str, str]] = []

    def recorder(service: Service) -> Callable[[dict[str, Any]], None]:
        def record(event: dict[str, Any]) -> None:
            delivered.append((service.value, event["detail"]["object"]["key"].split("/")[2]))

        return record

    for service in Service:
        if events_of(service):
            runtime.bus.subscribe(key_pattern(service), recorder(service))
    m = memory()
    runtime.writer.apply(change_set(add(m)))
    runtime.drain()
    # A change set writes its memory file, evidence sidecar and change record: index and compile.
    assert {(s, folder) for s, folder in delivered} == {("index", "memories"), ("compile", "changes")}


def test_every_handler_is_a_thin_call() -> None:
    for handler in sorted((ROOT / "functions").glob("*/app.py")):
        lines = handler.read_text().splitlines()
        assert len(lines) <= 40, f"{handler.relative_to(ROOT)} has {len(lines)} lines"
