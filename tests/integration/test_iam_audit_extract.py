"""The IAM audit of extraction on its own: Bedrock through a foundation model id and
through a cross-region inference profile, and the bug the audit was written for (the
extract role could not read ``entities/`` or ``suppressions/``, so every session after a
family's first failed in Lambda while every moto test passed)."""

from __future__ import annotations

import io
import json
from dataclasses import replace

import pytest
from botocore.exceptions import ClientError

import family_memory.app.observability  # noqa: F401 - X-Ray's recorder opens a socket at import: before sockets are off
from conftest import TEST_BUCKET
from family_memory.formation.extraction import ExtractorMisconfiguredError
from iam_audit import FAMILY, cloud, forget
from iam_policy import ACCOUNT, REGION, Statement

SESSION = ["Our dog Pepper hates baths.", "We love Thai food."]
NEXT_SESSION = ["Pepper loves baths now."]


@pytest.mark.parametrize(
    "model",
    [
        "anthropic.claude-haiku-4-5-20251001-v1:0",
        "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
    ],
    ids=["foundation-model", "us-inference-profile", "eu-inference-profile"],
)
def test_bedrock_extraction_is_allowed_for_a_model_and_through_an_inference_profile(model: str) -> None:
    with cloud(ExtractorKind="bedrock", BedrockModelId=model) as c:
        result = c.extract("s1", SESSION)
        assert result["status"] == "extracted"
        assert [str(denial) for denial in c.audit.denied] == []
        used = {
            (grant.sid, grant.resource) for grant in c.audit.used["extract"] if grant.action == "bedrock:InvokeModel"
        }
    if "." in model.split("anthropic.")[0]:
        # The profile, and the one model it routes to in each of its destination Regions.
        assert used == {
            ("ExtractWithBedrockModel", f"arn:aws:bedrock:{REGION}:{ACCOUNT}:inference-profile/{model}"),
            ("TheProfilesModelInEachOfItsRegions", f"arn:aws:bedrock:*::foundation-model/{model.split('.', 1)[1]}"),
        }
    else:
        assert used == {("ExtractWithBedrockModel", f"arn:aws:bedrock:{REGION}::foundation-model/{model}")}


def test_the_default_model_is_an_active_haiku_through_the_us_inference_profile() -> None:
    from family_memory.app.settings import Settings
    from iam_policy import Stack

    default = Stack({}).values["BedrockModelId"]
    # Claude 3.5 Haiku reached end of life on Bedrock on 2026-06-19; Haiku 4.5 is Active.
    assert default == "us.anthropic.claude-haiku-4-5-20251001-v1:0" == Settings().bedrock_model_id
    assert "claude-3" not in default


def test_through_a_profile_the_role_may_invoke_only_that_profiles_model() -> None:
    with cloud(ExtractorKind="bedrock") as c:
        statements = c.audit.statements["extract"]
    from iam_policy import grants, request

    profile = f"arn:aws:bedrock:{REGION}:{ACCOUNT}:inference-profile/us.anthropic.claude-haiku-4-5-20251001-v1:0"
    through = {"bedrock:InferenceProfileArn": profile}
    model = "arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0"
    other = "arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-opus-4-1-20250805-v1:0"
    assert grants(statements, request("bedrock:InvokeModel", model, through))
    assert not grants(statements, request("bedrock:InvokeModel", model))  # not directly, only through it
    assert not grants(statements, request("bedrock:InvokeModel", other, through))


def _statement(sid: str, action: str, resources: list[str]) -> Statement:
    return Statement.parse({"Sid": sid, "Effect": "Allow", "Action": action, "Resource": resources}, sid)


#: The extract role as it was: sessions, candidates and family.json only.
BEFORE_THE_FIX = [
    _statement(
        "ReadSessionsAndFamilySettings",
        "s3:GetObject",
        [f"arn:aws:s3:::{TEST_BUCKET}/families/*/{part}" for part in ("sessions/*", "candidates/*", "family.json")],
    ),
    _statement(
        "WriteCandidatesAndNewFamilySettings",
        "s3:PutObject",
        [f"arn:aws:s3:::{TEST_BUCKET}/families/*/{part}" for part in ("candidates/*", "family.json")],
    ),
    _statement("MissingKeysAnswer404Not403", "s3:ListBucket", [f"arn:aws:s3:::{TEST_BUCKET}"]),
    _statement("QueueReconciliation", "sqs:SendMessage", [f"arn:aws:sqs:{REGION}:{ACCOUNT}:ReconcileQueue.fifo"]),
]


def test_with_the_old_extract_policy_the_second_session_fails_loudly_and_writes_nothing() -> None:
    with cloud(ExtractorKind="offline") as c:
        c.audit.statements["extract"] = BEFORE_THE_FIX
        # A family's first session reads no entity and no forget rule: it passed.
        assert c.extract("s1", SESSION)["status"] == "extracted"
        c.reconcile()
        forget(c, "Thai")
        with pytest.raises(ClientError, match="AccessDenied"):
            c.extract("s2", NEXT_SESSION)
        # The invocation fails, so Lambda retries it and then sends it to the dead-letter
        # queue and its alarm; no candidates file claims the session and nothing is queued.
        assert c.keys("candidates/s2") == [] and c.receive("ReconcileQueue") == []
        denied = {(d.function, d.request.action, d.request.resource.rsplit("/", 2)[-2]) for d in c.audit.denied}
        assert denied <= {("extract", "s3:GetObject", "entities"), ("extract", "s3:GetObject", "suppressions")}
        assert denied


@pytest.mark.parametrize("refusal", ["AccessDeniedException", "ResourceNotFoundException"])
def test_a_model_the_role_may_not_use_fails_the_invocation_with_one_line_and_an_alarm_and_records_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, refusal: str
) -> None:
    from family_memory.app.observability import logger

    log = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", log)
    with cloud(ExtractorKind="bedrock") as c:
        c.audit.bedrock_refusal = refusal
        capsys.readouterr()
        # The invocation fails: Lambda retries it, then the dead-letter queue (alarmed) keeps it.
        with pytest.raises(ExtractorMisconfiguredError):
            c.extract("s1", SESSION)
        # Not a verdict on the session: no candidates file, nothing queued.
        assert c.keys("candidates/") == [] and c.receive("ReconcileQueue") == []
        alarm = c.stack.resource("ExtractorMisconfiguredAlarm")["Properties"]
        model = c.stack.values["BedrockModelId"]
    out = capsys.readouterr().out.splitlines()
    lines = [json.loads(line) for line in log.getvalue().splitlines() if '"level":"ERROR"' in line]
    (line,) = lines
    assert model in line["message"] and refusal in line["message"] and line["model_id"] == model
    emitted = [json.loads(line) for line in out if line.startswith('{"_aws"')]
    counted = next(doc for doc in emitted if "ExtractorMisconfigured" in doc)
    (directive,) = counted["_aws"]["CloudWatchMetrics"]
    assert counted["ExtractorMisconfigured"] == [1.0]
    # The metric the handler publishes is the one the alarm watches, and the alarm notifies.
    assert (alarm["Namespace"], alarm["MetricName"]) == (directive["Namespace"], "ExtractorMisconfigured")
    assert {d["Name"]: d["Value"] for d in alarm["Dimensions"]} == {k: counted[k] for k in directive["Dimensions"][0]}
    assert alarm["Threshold"] == 0 and alarm["ComparisonOperator"] == "GreaterThanThreshold"
    assert alarm["AlarmActions"]


def test_once_the_model_answers_the_sessions_left_waiting_are_extracted_by_replay() -> None:
    from family_memory.formation.replay import retry_failed_extractions

    with cloud(ExtractorKind="bedrock") as c:
        c.audit.bedrock_refusal = "ResourceNotFoundException"
        for session in ("s1", "s2"):
            with pytest.raises(ExtractorMisconfiguredError):
                c.extract(session, SESSION if session == "s1" else NEXT_SESSION)
        c.audit.bedrock_refusal = None  # the model id was fixed
        # An operator runs the replay with their own credentials (not audited), and Bedrock as extract calls it.
        deps = replace(c.admin_runtime().formation.deps, extractor=c.runtime("extract").formation.deps.extractor)
        report = retry_failed_extractions(deps, FAMILY, dream=None)
        assert report.retried == ["s1", "s2"] and report.still_failed == {}
        assert sorted(c.keys("candidates/")) == [f"families/{FAMILY}/candidates/{s}.json" for s in ("s1", "s2")]
