"""log.md entries land under their date, newest first; the template wires the lifecycle as the code expects."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest
import yaml

from family_memory.domain.changes import Action, ChangeRecord, MemoryChange
from family_memory.domain.layout import Service, starts
from family_memory.domain.memory import Status
from family_memory.domain.okf import check_log
from family_memory.lifecycle.logbook import change_lines, insert_entry, is_logged

ROOT = Path(__file__).resolve().parents[2]


def test_entries_are_inserted_under_their_own_date_newest_first() -> None:
    log = insert_entry(None, date(2026, 11, 10), ["ten"])
    log = insert_entry(log, date(2026, 11, 20), ["twenty"])
    log = insert_entry(log, date(2026, 11, 15), ["fifteen"])  # a late event for an older day
    log = insert_entry(log, date(2026, 11, 20), ["twenty, later"])
    log = insert_entry(log, date(2026, 11, 1), ["first"])
    text = log.decode()
    assert check_log(text) == []
    order = [
        text.index(s)
        for s in ("## 2026-11-20", "twenty, later", "* twenty\n", "## 2026-11-15", "## 2026-11-10", "## 2026-11-01")
    ]
    assert order == sorted(order)
    assert text.startswith("# Memory log\n")


def test_a_change_is_logged_once_with_links_to_the_memory_and_the_change() -> None:
    record = ChangeRecord(
        id="01KB2F7Q9W3X5Y7Z9A1B3C5D7E",
        family_id="fam-rivera",
        actor="human:lucia",
        reason="forget from the\nmemory card",
        source=None,
        created_at=datetime(2026, 11, 17, tzinfo=UTC),
        applied_at=datetime(2026, 11, 17, tzinfo=UTC),
        memories=[
            MemoryChange(
                memory_id="01KB2F7Q9W3X5Y7Z9A1B3C5D7F",
                action=Action.RETRACT,
                from_revision=1,
                to_revision=2,
                status=Status.RETRACTED,
                summary="Breakfast [milk] is oat",
            ),
        ],
        entities=[],
        suppressions=["01KB2F7Q9W3X5Y7Z9A1B3C5D7G"],
    )
    lines = change_lines(record)
    assert lines[0] == (
        "**Retract**: forgot [Breakfast \\[milk\\] is oat](/memories/01KB2F7Q9W3X5Y7Z9A1B3C5D7F.md): forget from the "
        "memory card (human:lucia; [change](/changes/01KB2F7Q9W3X5Y7Z9A1B3C5D7E.json))"
    )
    assert lines[1].startswith("**Change**: 1 forget rule")
    log = insert_entry(None, date(2026, 11, 17), lines).decode()
    assert is_logged(log, record.id) and not is_logged(log, "01KB2F7Q9W3X5Y7Z9A1B3C5D7H")
    assert check_log(log) == []


# --- template.yaml ---------------------------------------------------------------------


class _CfnLoader(yaml.SafeLoader):
    """Reads CloudFormation short-form tags (!Ref, !GetAtt, !Sub) as plain values."""


_CfnLoader.add_multi_constructor(
    "!",
    lambda loader, suffix, node: (
        loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode) else loader.construct_sequence(node)
    ),
)


@functools.cache
def template() -> dict[str, Any]:
    """The template's resources, parsed once (read-only for the tests)."""
    loaded: dict[str, Any] = yaml.load((ROOT / "template.yaml").read_text(), Loader=_CfnLoader)  # noqa: S506
    resources: dict[str, Any] = loaded["Resources"]
    return resources


def test_both_queues_report_partial_batch_failures_and_dead_letter_after_retries() -> None:
    resources = template()
    for function, queue, dead in (
        ("CompileFunction", "CompileQueue", "CompileDeadLetterQueue"),
        ("DreamWorkerFunction", "DreamQueue", "DreamDeadLetterQueue"),
    ):
        events = resources[function]["Properties"]["Events"]
        (source,) = events.values()
        assert source["Type"] == "SQS" and source["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
        redrive = resources[queue]["Properties"]["RedrivePolicy"]
        assert redrive["deadLetterTargetArn"] == f"{dead}.Arn" and 1 < redrive["maxReceiveCount"] <= 5
        assert resources[function]["Properties"]["CodeUri"] == f"functions/{function_dir(function)}/"


def function_dir(function: str) -> str:
    return {"CompileFunction": "compile", "DreamWorkerFunction": "dream_worker"}[function]


def test_schedule_runs_the_fan_out_hourly_and_the_rule_sends_the_keys_the_compile_handles() -> None:
    resources = template()
    schedule = resources["DreamSchedule"]["Properties"]
    assert re.fullmatch(r"cron\(\d+ \* \* \* \? \*\)", schedule["ScheduleExpression"])
    assert schedule["Target"]["Arn"] == "DreamFanoutFunction.Arn"
    assert "DREAM_QUEUE_URL" in resources["DreamFanoutFunction"]["Properties"]["Environment"]["Variables"]
    wildcards = [
        k["wildcard"] for k in resources["MemoryChangedRule"]["Properties"]["EventPattern"]["detail"]["object"]["key"]
    ]
    as_regex = [re.escape(w).replace(r"\*", "[^/]+") for w in wildcards]
    samples = ["families/fam-rivera/changes/01ABC.json", "families/fam-rivera/candidates/sess-1.json"]
    for sample in samples:
        assert any(re.fullmatch(r, sample) for r in as_regex)
        assert starts(Service.COMPILE, sample)
    assert not any(re.fullmatch(r, "families/fam-rivera/brief.json") for r in as_regex)


# --- permissions the code paths need -----------------------------------------------------

BUCKET_ARN = "arn:aws:s3:::family-memory-bucket"
TABLE_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/family-memory"
FAMILY_KEYS = f"{BUCKET_ARN}/families/fam-rivera"
MEMORY_ID = "01K6N1R0A0B0C0D0E0F0G0H010"


def _arn(value: str) -> str:
    value = value.replace("${MemoryBucket.Arn}", BUCKET_ARN).replace("${MemoryTable.Arn}", TABLE_ARN)
    return {"MemoryBucket.Arn": BUCKET_ARN, "MemoryTable.Arn": TABLE_ARN}.get(value, value)


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def statements(function: str) -> Iterator[dict[str, Any]]:
    for policy in template()[function]["Properties"].get("Policies", []):
        if isinstance(policy, dict):
            for statement in policy.get("Statement", []):
                # A statement under !If [condition, statement, !Ref AWS::NoValue] reads as a list here.
                yield from (
                    [s for s in statement if isinstance(s, dict)] if isinstance(statement, list) else [statement]
                )


def allowed(function: str, action: str, resource: str) -> bool:
    """Whether an Allow statement of the function's policies grants ``action`` on ``resource``
    (IAM wildcards; conditions are not evaluated)."""
    return any(
        statement["Effect"] == "Allow"
        and any(fnmatchcase(action, a) for a in _listed(statement["Action"]))
        and any(isinstance(r, str) and fnmatchcase(resource, _arn(r)) for r in _listed(statement["Resource"]))
        for statement in statements(function)
    )


def functions() -> list[str]:
    return [name for name, r in template().items() if r["Type"] == "AWS::Serverless::Function"]


#: What the brief patcher on a writer touches when a change set settles (brief/patch.py).
PATCHER_NEEDS = [
    ("s3:GetObject", f"{FAMILY_KEYS}/brief.json"),
    ("s3:PutObject", f"{FAMILY_KEYS}/brief.json"),
    ("s3:GetObject", f"{FAMILY_KEYS}/family.json"),
    ("s3:GetObject", f"{FAMILY_KEYS}/memories/{MEMORY_ID}.md"),
    ("s3:GetObject", f"{FAMILY_KEYS}/entities/{MEMORY_ID}.md"),
    ("s3:GetObject", f"{FAMILY_KEYS}/suppressions/{MEMORY_ID}.json"),
    ("s3:ListBucket", BUCKET_ARN),  # entities are listed; a missing brief must answer 404, not 403
    ("dynamodb:Query", TABLE_ARN),  # the catalog rows the topic counts are derived from
]


def test_every_function_that_settles_change_sets_can_patch_the_brief() -> None:
    # Settling a change set writes changes/{id}.json: a function allowed to do that runs a
    # writer, and every writer has the brief patcher (app/lifecycle.py) listening.
    settling = [f for f in functions() if allowed(f, "s3:PutObject", f"{FAMILY_KEYS}/changes/{MEMORY_ID}.json")]
    assert sorted(settling) == ["ApiFunction", "CompileFunction", "DreamWorkerFunction", "ReconcileFunction"]
    for function in settling:
        missing = [(action, key) for action, key in PATCHER_NEEDS if not allowed(function, action, key)]
        assert missing == [], f"{function} cannot {missing}"


def test_a_function_that_cannot_settle_a_change_set_cannot_write_the_brief() -> None:
    for function in ("ExtractFunction", "IndexerFunction", "DreamFanoutFunction"):
        assert not allowed(function, "s3:PutObject", f"{FAMILY_KEYS}/brief.json")


# --- nothing fails silently ------------------------------------------------------------------


def _asynchronous(resources: dict[str, Any]) -> set[str]:
    """Functions invoked asynchronously: by a SAM EventBridge/schedule event, an EventBridge rule
    target or an EventBridge Scheduler schedule."""
    found = set()
    for name, resource in resources.items():
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::Serverless::Function":
            if any(e["Type"] in ("EventBridgeRule", "Schedule") for e in props.get("Events", {}).values()):
                found.add(name)
        elif resource["Type"] == "AWS::Events::Rule":
            found |= {t["Arn"].removesuffix(".Arn") for t in props["Targets"]}
        elif resource["Type"] == "AWS::Scheduler::Schedule":
            found.add(props["Target"]["Arn"].removesuffix(".Arn"))
    return {name for name in found if resources.get(name, {}).get("Type") == "AWS::Serverless::Function"}


def test_every_asynchronously_invoked_function_keeps_the_events_it_failed_on() -> None:
    resources = template()
    invoked = _asynchronous(resources)
    assert {"IndexerFunction", "ExtractFunction", "DreamFanoutFunction"} <= invoked
    for function in sorted(invoked):
        props = resources[function]["Properties"]
        on_failure = props.get("EventInvokeConfig", {}).get("DestinationConfig", {}).get("OnFailure")
        dead_letters = props.get("DeadLetterQueue")
        assert on_failure or dead_letters, f"{function}: a failure after Lambda's retries would be dropped"
        target = on_failure["Destination"] if on_failure else dead_letters["TargetArn"]
        assert resources[target.removesuffix(".Arn")]["Type"] == "AWS::SQS::Queue"


def _dead_letter_queues(resources: dict[str, Any]) -> set[str]:
    queues = set()
    for resource in resources.values():
        props = resource.get("Properties", {})
        if "RedrivePolicy" in props:
            queues.add(props["RedrivePolicy"]["deadLetterTargetArn"])
        if resource["Type"] == "AWS::Events::Rule":
            queues |= {t["DeadLetterConfig"]["Arn"] for t in props["Targets"] if "DeadLetterConfig" in t}
        if resource["Type"] == "AWS::Serverless::Function":
            on_failure = props.get("EventInvokeConfig", {}).get("DestinationConfig", {}).get("OnFailure")
            if on_failure:
                queues.add(on_failure["Destination"])
            if "DeadLetterQueue" in props:
                queues.add(props["DeadLetterQueue"]["TargetArn"])
    return {q.removesuffix(".Arn") for q in queues}


def test_every_dead_letter_and_failure_queue_has_an_alarm() -> None:
    resources = template()
    queues = _dead_letter_queues(resources)
    assert {"IndexerFailureQueue", "IndexerDeadLetterQueue", "CompileDeadLetterQueue"} <= queues
    alarmed = {
        dimension["Value"].removesuffix(".QueueName")
        for resource in resources.values()
        if resource["Type"] == "AWS::CloudWatch::Alarm"
        and resource["Properties"]["MetricName"] == "ApproximateNumberOfMessagesVisible"
        and resource["Properties"]["Threshold"] == 0
        for dimension in resource["Properties"]["Dimensions"]
        if dimension["Name"] == "QueueName"
    }
    assert sorted(queues - alarmed) == []


def test_the_indexer_rule_retries_dead_letters_and_may_invoke_only_the_indexer() -> None:
    resources = template()
    (target,) = resources["MemoryFileWrittenRule"]["Properties"]["Targets"]
    assert target["Arn"] == "IndexerFunction.Arn" and target["DeadLetterConfig"]["Arn"] == "IndexerDeadLetterQueue.Arn"
    assert target["RetryPolicy"]["MaximumRetryAttempts"] > 0
    permission = resources["MemoryFileWrittenPermission"]["Properties"]
    assert permission["FunctionName"] == "IndexerFunction"
    assert permission["SourceArn"] == "MemoryFileWrittenRule.Arn"
    (statement,) = resources["IndexerDeadLetterQueuePolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Condition"]["ArnEquals"]["aws:SourceArn"] == "MemoryFileWrittenRule.Arn"
    keys = resources["MemoryFileWrittenRule"]["Properties"]["EventPattern"]["detail"]["object"]["key"]
    assert keys == [{"wildcard": "families/*/memories/*"}]


def test_the_indexer_rule_delivers_what_the_local_bus_delivers_to_the_indexer() -> None:
    # Memory files and their evidence sidecars (whose quotes the search document holds), and nothing else.
    import fnmatch

    (key,) = template()["MemoryFileWrittenRule"]["Properties"]["EventPattern"]["detail"]["object"]["key"]
    memory = "01K6N1R0A0B0C0D0E0F0G0H010"
    for path in (f"memories/{memory}.md", f"memories/{memory}.evidence.jsonl"):
        object_key = f"families/fam-rivera/{path}"
        assert fnmatch.fnmatchcase(object_key, key["wildcard"]) and starts(Service.INDEX, object_key)
    for path in ("sessions/s1.json", "brief.json", "changes/c1.json"):
        assert not fnmatch.fnmatchcase(f"families/fam-rivera/{path}", key["wildcard"])


@pytest.mark.parametrize("function", ["IndexerFunction", "DreamFanoutFunction"])
def test_failure_destinations_are_sqs_queues_sam_grants_the_function(function: str) -> None:
    on_failure = template()[function]["Properties"]["EventInvokeConfig"]["DestinationConfig"]["OnFailure"]
    assert on_failure["Type"] == "SQS"  # SAM adds sqs:SendMessage on the destination to the function's role
