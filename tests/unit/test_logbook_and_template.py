"""log.md entries land under their date, newest first; the template wires the lifecycle as the code expects."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml

from family_memory.domain.changes import Action, ChangeRecord, MemoryChange
from family_memory.domain.memory import Status
from family_memory.domain.okf import check_log
from family_memory.lifecycle.logbook import change_lines, insert_entry, is_logged
from family_memory.lifecycle.triggers import CANDIDATES_KEY, CHANGES_KEY

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


def template() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.load((ROOT / "template.yaml").read_text(), Loader=_CfnLoader)  # noqa: S506
    return loaded["Resources"]


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
        assert re.fullmatch(CHANGES_KEY, sample) or re.fullmatch(CANDIDATES_KEY, sample)
    assert not any(re.fullmatch(r, "families/fam-rivera/brief.json") for r in as_regex)
