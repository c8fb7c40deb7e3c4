"""What an operator relies on in template.yaml: every alarm notifies someone, every
dead-letter queue is one of this template's own (so an alarm can name it), listing is
limited to ``families/``, and the layer's build does not copy the repository."""

from __future__ import annotations

from typing import Any

from iam_policy import Stack, raw_template


def resources() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = raw_template()["Resources"]
    return found


def alarms() -> dict[str, dict[str, Any]]:
    return {name: r for name, r in resources().items() if r["Type"] == "AWS::CloudWatch::Alarm"}


def test_every_alarm_notifies_the_alarm_topic_or_the_one_given() -> None:
    assert len(alarms()) >= 9
    created = Stack({"AlarmTopic": "arn:aws:sns:us-east-1:123456789012:created"})
    given = Stack({}, {"AlarmTopicArn": "arn:aws:sns:us-east-1:123456789012:ops"})
    for name, alarm in alarms().items():
        for actions in ("AlarmActions", "OKActions"):
            assert actions in alarm["Properties"], f"{name} has no {actions}"
            assert created.resolve(alarm["Properties"][actions]) == ["arn:aws:sns:us-east-1:123456789012:created"]
            assert given.resolve(alarm["Properties"][actions]) == ["arn:aws:sns:us-east-1:123456789012:ops"]


def test_the_alarm_topic_is_created_only_when_none_is_given_and_mails_whoever_is_named() -> None:
    assert resources()["AlarmTopic"]["Condition"] == "CreateAlarmTopic"
    assert resources()["AlarmEmailSubscription"]["Condition"] == "SubscribeAlarmEmail"
    assert Stack({}).condition("CreateAlarmTopic") and not Stack({}).condition("SubscribeAlarmEmail")
    mailed = Stack({}, {"AlarmEmail": "ops@example.com"})
    assert mailed.condition("SubscribeAlarmEmail")
    assert not Stack({}, {"AlarmTopicArn": "arn:aws:sns:us-east-1:1:x", "AlarmEmail": "a@b.co"}).condition(
        "SubscribeAlarmEmail"
    )


def test_no_dead_letter_queue_is_left_for_sam_to_create_out_of_the_alarms_reach() -> None:
    # A SAM event with DeadLetterConfig {Type: SQS} makes a queue no alarm names: the extract
    # rule's was one. Each rule's dead-letter queue is a resource here, with its own alarm.
    for name, resource in resources().items():
        for event in resource.get("Properties", {}).get("Events", {}).values():
            config = event.get("Properties", {}).get("DeadLetterConfig")
            assert config is None or "Arn" in config, f"{name}: SAM would create a dead-letter queue of its own"
    rule = resources()["SessionLandedRule"]["Properties"]
    (target,) = rule["Targets"]
    assert target["DeadLetterConfig"]["Arn"].value == "SessionLandedDeadLetterQueue.Arn"
    watched = {
        getattr(dimension["Value"], "value", dimension["Value"])
        for alarm in alarms().values()
        for dimension in alarm["Properties"]["Dimensions"]
    }
    assert "SessionLandedDeadLetterQueue.QueueName" in watched


def test_every_list_grant_is_limited_to_the_families_prefix() -> None:
    stack = Stack({"MemoryBucket": "bucket"})
    functions = [name for name, r in resources().items() if r["Type"] == "AWS::Serverless::Function"]
    listing = 0
    for function in functions:
        for statement in stack.statements(function):
            if any(a.lower() == "s3:listbucket" for a in statement.actions):
                listing += 1
                assert ("StringLike", "s3:prefix", ("families/*",)) in statement.conditions, (
                    f"{function} {statement.sid} lists the whole bucket"
                )
    assert listing >= 7


def test_the_layer_is_built_from_its_own_folder_not_the_repository() -> None:
    layer = resources()["FamilyMemoryLayer"]
    assert layer["Properties"]["ContentUri"] == "layers/family-memory/"
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    for name, resource in resources().items():
        uri = resource.get("Properties", {}).get("CodeUri") or resource.get("Properties", {}).get("ContentUri")
        if uri is not None:
            assert uri not in (".", "./", ""), f"{name} would copy the whole repository"


def test_sam_validate_lint_passes_offline() -> None:
    """``sam validate --lint`` where the SAM CLI is installed (``make sam-validate`` installs
    it in ``.venv-sam``: its pins conflict with this project's, so it is not a dev extra)."""
    import os
    import shutil
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = [os.environ.get("SAM_CLI", ""), str(root / ".venv-sam" / "bin" / "sam"), shutil.which("sam") or ""]
    sam = next((path for path in found if path and Path(path).is_file()), None)
    if sam is None:
        import pytest

        pytest.skip("the SAM CLI is not installed (make sam-validate installs it apart from the project's pins)")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "SAM_CLI_TELEMETRY": "0",
        "AWS_ACCESS_KEY_ID": "placeholder",
        "AWS_SECRET_ACCESS_KEY": "placeholder",
    }
    command = [sam, "validate", "--lint", "--region", "us-east-1", "--template", str(root / "template.yaml")]
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=root, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "is a valid SAM Template" in result.stdout + result.stderr
