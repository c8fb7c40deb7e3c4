"""The api Lambda handler under moto: S3 and DynamoDB as on AWS, the runtime built the
way Lambda builds it (``build_aws``), events shaped as API Gateway's HTTP API sends them.

Session end on AWS only stores the transcript: its S3 event starts extraction."""

from __future__ import annotations

import json
from typing import Any

import pytest

from api_helpers import api_event, error_of, payload
from conftest import TEST_BUCKET, TEST_REGION, TEST_TABLE
from family_memory.app.bootstrap import build_aws
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.domain.clock import FixedClock
from formation_helpers import FAMILY, FRIDAY_MORNING, session_json
from lambda_harness import LambdaContext, load_handler

OTHER = "fam-okafor"


@pytest.fixture
def invoke(aws: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    settings = load_settings({}, backend="aws", bucket=TEST_BUCKET, table=TEST_TABLE, region=TEST_REGION)
    rt: Runtime = build_aws(settings, FixedClock(FRIDAY_MORNING), session=aws)
    module = load_handler("api")
    monkeypatch.setattr(module, "runtime", lambda: rt)

    def call(method: str, path: str, body: Any = None, **kw: Any) -> dict[str, Any]:
        response: dict[str, Any] = module.handler(api_event(method, path, body, **kw), LambdaContext("ApiFunction"))
        return response

    call.runtime = rt  # type: ignore[attr-defined]
    call.s3 = aws.client("s3")  # type: ignore[attr-defined]
    return call


def test_session_end_on_aws_stores_the_transcript_for_its_s3_event(invoke: Any) -> None:
    data = session_json([("user", "lucia", "We love Thai food.")])
    response = invoke("POST", f"/families/{FAMILY}/sessions", raw_body=data)
    assert response["statusCode"] == 201
    assert payload(response) == {
        "family_id": FAMILY,
        "session_id": "sess-1",
        "stored": True,
        "family_created": True,
        "formation": "started",
    }
    stored = invoke.s3.get_object(Bucket=TEST_BUCKET, Key=f"families/{FAMILY}/sessions/sess-1.json")["Body"].read()
    assert stored == data  # as received: the extract function's S3 event names this object
    assert list(invoke.runtime.catalog.all_rows(FAMILY)) == []  # formation runs in the extract function, not here


def test_a_session_for_another_family_stores_nothing(invoke: Any) -> None:
    data = session_json([("user", "lucia", "We love Thai food.")], family_id=OTHER)
    status, code, message = error_of(invoke("POST", f"/families/{FAMILY}/sessions", raw_body=data))
    assert (status, code) == (400, "invalid_input") and OTHER in message
    assert "Contents" not in invoke.s3.list_objects_v2(Bucket=TEST_BUCKET)


def test_the_card_lists_adds_and_keeps_families_apart(invoke: Any) -> None:
    for family_id, member in ((FAMILY, "lucia"), (OTHER, "ade")):
        data = session_json([("user", member, "Hello.")], family_id=family_id)
        assert invoke("POST", f"/families/{family_id}/sessions", raw_body=data)["statusCode"] == 201
    body = {"member_id": "ade", "type": "preference", "about": "food", "summary": "Ade is vegetarian."}
    added = payload(invoke("POST", f"/families/{OTHER}/memories", body))["memory"]
    listed = payload(invoke("GET", f"/families/{OTHER}/memories"))["memories"]
    assert [row["id"] for row in listed] == [added["id"]]
    assert payload(invoke("GET", f"/families/{FAMILY}/memories"))["memories"] == []
    response = invoke("GET", f"/families/{FAMILY}/memories/{added['id']}")
    assert error_of(response)[:2] == (404, "not_found") and "vegetarian" not in response["body"]


def test_search_without_an_opensearch_endpoint_is_unavailable_not_a_bad_request(invoke: Any) -> None:
    response = invoke("POST", f"/families/{FAMILY}/context", {"message": "dinner?"})
    assert error_of(response) == (
        503,
        "search_unavailable",
        "search is unavailable right now; try again shortly",
    )
    assert response["headers"]["Retry-After"]


def test_the_response_is_an_http_api_v2_lambda_response(invoke: Any) -> None:
    response = invoke("GET", "/tool-specs")
    assert response["statusCode"] == 200 and response["isBase64Encoded"] is False
    assert response["headers"]["Content-Type"] == "application/json"
    assert json.loads(response["body"])["tools"]
