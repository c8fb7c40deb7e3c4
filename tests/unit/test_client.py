"""``family_memory.client``: the Python client, against ``family-memory serve`` on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from api_helpers import running_server
from family_memory.app.runtime import Runtime
from family_memory.client import ApiError, FamilyMemoryClient, SigV4Signer
from family_memory.domain.clock import FixedClock
from family_memory.retrieval.tools import TOOL_NAMES, tool_config
from formation_helpers import FAMILY, FRIDAY_MORNING, candidate, session_json
from retrieval_helpers import local_runtime

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

TURNS = [("user", "lucia", "We love Thai food. Never book red-eyes."), ("assistant", None, "Noted!")]


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    return local_runtime(
        tmp_path / "home", FixedClock(FRIDAY_MORNING + timedelta(hours=1)), embedder="hashed", lease_wait_seconds=0
    )


@pytest.fixture
def url(rt: Runtime) -> Iterator[str]:
    with running_server(rt) as found:
        yield found


@pytest.fixture
def client(url: str) -> FamilyMemoryClient:
    return FamilyMemoryClient(url)


@pytest.fixture
def memories(client: FamilyMemoryClient) -> dict[str, str]:
    ended = client.end_session(session_json(TURNS))
    assert ended.stored and ended.formation == "done"
    rows = {row.summary: row.id for row in client.all_memories(FAMILY)}
    return {
        "thai": next(i for s, i in rows.items() if "Thai" in s),
        "red_eye": next(i for s, i in rows.items() if "red-eye" in s),
    }


def test_every_route_has_a_typed_method(client: FamilyMemoryClient, memories: dict[str, str]) -> None:
    thai = memories["thai"]
    assert client.context(FAMILY, "any Thai food ideas?").items[0].memory_id == thai
    assert client.context(FAMILY, "Thai?", max_items=0).items == []
    assert [t["toolSpec"]["name"] for t in client.tool_specs()] == list(TOOL_NAMES)
    found = client.call_tool(FAMILY, "search_memory", {"query": "Thai food"})
    assert found.status == "success" and thai in found.text
    shown = client.memory(FAMILY, thai)
    assert shown.memory.id == thai and shown.memory.ref == f"memory://{FAMILY}/{thai}"
    evidence = client.evidence(FAMILY, thai).evidence
    assert evidence[0].ref == "conv://fam-rivera/sess-1#turn=1" and evidence[0].speaker == "lucia"
    assert client.lineage(FAMILY, thai).current == thai
    page = client.memories(FAMILY, limit=1)
    assert len(page.memories) == 1 and page.cursor is not None

    added = client.add_memory(FAMILY, "lucia", type="preference", about="tea", summary="Lucía drinks green tea.")
    tea = added.memory
    assert tea.authority.value == "user_explicit" and tea.verified and tea.verified[0].by == "human:lucia"
    edited = client.edit_memory(FAMILY, tea.id, "lucia", summary="Lucía drinks mint tea.", pin=True)
    assert edited.superseded.status.value == "superseded" and edited.memory.pin is True
    forgotten = client.forget(FAMILY, thai, "lucia", reason="not true")
    assert forgotten.memory.status.value == "retracted" and forgotten.suppression_rule
    assert client.forget(FAMILY, thai, "lucia").already_forgotten is True

    preview = client.preview_group(FAMILY, "lucia", topic="red-eyes")
    assert preview.count == 1 and preview.to_confirm.expected_count == 1
    done = client.forget_group(FAMILY, "lucia", topic="red-eyes", expected_count=preview.count)
    assert done.forgotten == [memories["red_eye"]] and done.already_forgotten is False
    with pytest.raises(ApiError) as stale:
        client.forget_group(FAMILY, "lucia", topic="red-eyes", expected_count=1)
    assert (stale.value.status, stale.value.code) == (409, "conflict")

    supplied = json.loads(session_json([("user", "lucia", "We love Thai food.")], session_id="sess-2"))
    ended = client.end_session(supplied, candidates={"producer": "batch", "candidates": [candidate()]})
    assert ended.candidates is not None and ended.candidates.extractor == "candidates supplied by the caller (batch)"


def test_an_add_is_safe_to_retry_because_the_client_chooses_its_id(
    client: FamilyMemoryClient, memories: dict[str, str]
) -> None:
    first = client.add_memory(FAMILY, "lucia", type="fact", about="car", summary="The car is blue.")
    again = client.add_memory(
        FAMILY, "lucia", type="fact", about="car", summary="The car is blue.", memory_id=first.memory.id
    )
    assert again.memory.id == first.memory.id
    assert [r.id for r in client.all_memories(FAMILY)].count(first.memory.id) == 1


def test_errors_raise_with_the_status_code_and_message(client: FamilyMemoryClient, memories: dict[str, str]) -> None:
    with pytest.raises(ApiError) as missing:
        client.memory("fam-okafor", memories["thai"])
    assert (missing.value.status, missing.value.code) == (404, "not_found") and "Thai" not in missing.value.message
    with pytest.raises(ApiError) as bad:
        client.memory(FAMILY, "not-a-ulid")
    assert (bad.value.status, bad.value.code) == (400, "invalid_input") and bad.value.message.startswith("memory id")
    with pytest.raises(ApiError) as strict:
        client.forget_group(FAMILY, "lucia", topic="Thai", expected_count="1")  # type: ignore[arg-type]
    assert strict.value.message == "body: expected_count: Input should be a valid integer"


def test_the_brief_is_fetched_again_only_when_it_changed(client: FamilyMemoryClient, memories: dict[str, str]) -> None:
    first = client.brief(FAMILY)
    tag = client.brief_tag(FAMILY)
    assert "Thai" in first.prompt and tag is not None
    assert client.brief(FAMILY) is first  # 304: the copy it holds
    assert client.brief_fetches == {"downloaded": 1, "not_modified": 1}
    client.forget(FAMILY, memories["thai"], "lucia")
    after = client.brief(FAMILY)  # the forget patched the brief: a new tag, a new body
    assert client.brief_fetches == {"downloaded": 2, "not_modified": 1}
    assert client.brief_tag(FAMILY) != tag and "Thai" not in after.prompt
    household = client.brief(FAMILY, "household")
    assert household.surface.value == "household" and client.brief_tag(FAMILY, "household") != client.brief_tag(FAMILY)


def test_a_busy_family_is_retried_after_retry_after(rt: Runtime, url: str, memories: dict[str, str]) -> None:
    lease = rt.catalog.acquire_lease(FAMILY, "another-writer", timedelta(seconds=30))
    assert lease is not None
    waits: list[float] = []

    def wait(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 2:
            rt.catalog.release_lease(lease)  # the other writer finishes while the client waits

    client = FamilyMemoryClient(url, sleep=wait, retries=3)
    forgotten = client.forget(FAMILY, memories["thai"], "lucia")
    assert forgotten.memory.status.value == "retracted"
    assert waits == [2.0, 2.0]  # the server's Retry-After, each time

    rt.catalog.acquire_lease(FAMILY, "another-writer", timedelta(seconds=30))
    capped = FamilyMemoryClient(url, sleep=waits.append, retries=2, max_retry_wait=0.5)
    with pytest.raises(ApiError) as busy:
        capped.forget(FAMILY, memories["red_eye"], "lucia")
    assert (busy.value.status, busy.value.code, busy.value.retry_after) == (503, "family_busy", 2.0)
    assert waits[2:] == [0.5, 0.5]  # capped, and given up after the retries


def test_converse_tool_config_and_tool_results(client: FamilyMemoryClient, memories: dict[str, str]) -> None:
    assert client.tool_config() == tool_config()
    assert client.tool_config("household") is None
    ref = f"memory://{FAMILY}/{memories['thai']}"
    content: list[Mapping[str, Any]] = [
        {"text": "Let me look."},
        {"toolUse": {"toolUseId": "t1", "name": "read_memory", "input": {"ref": ref}}},
        {"toolUse": {"toolUseId": "t2", "name": "read_memory", "input": {"ref": "memory://x"}}},
    ]
    first, second = client.tool_results(FAMILY, content)
    assert first["toolResult"]["toolUseId"] == "t1" and first["toolResult"]["status"] == "success"
    assert "Thai" in first["toolResult"]["content"][0]["text"]
    assert second["toolResult"] == {
        "toolUseId": "t2",
        "content": [second["toolResult"]["content"][0]],
        "status": "error",
    }


# --- SigV4 --------------------------------------------------------------------------------------


class _Recorder(BaseHTTPRequestHandler):
    seen: list[tuple[str, str, dict[str, str], bytes]] = []

    def _answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.seen.append((self.command, self.path, dict(self.headers.items()), body))
        data = json.dumps({"tools": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_requests_to_a_deployed_stack_are_signed_with_sigv4_for_execute_api() -> None:
    import boto3
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    session = boto3.session.Session(
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="secret",
        aws_session_token="token",
        region_name="eu-west-1",
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/prod"
        client = FamilyMemoryClient.for_aws(base, session=session)
        assert isinstance(client.signer, SigV4Signer) and client.signer.region == "eu-west-1"
        client.tool_specs("household")
        client.request("POST", f"/families/{FAMILY}/context", {"message": "Thai? ünïcode"})
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    for method, path, headers, body in _Recorder.seen:
        authorization = headers["Authorization"]
        assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
        assert "/eu-west-1/execute-api/aws4_request" in authorization
        assert headers["X-Amz-Security-Token"] == "token"
        # The signature covers exactly what was sent: recompute it from the request as received.
        signed = authorization.split("SignedHeaders=", 1)[1].split(",", 1)[0].split(";")
        unsigned = {k: v for k, v in headers.items() if k.lower() in signed}
        request = AWSRequest(method=method, url=f"http://{headers['Host']}{path}", data=body, headers=unsigned)
        request.context["timestamp"] = headers["X-Amz-Date"]
        signer = SigV4Auth(Credentials("AKIDEXAMPLE", "secret", "token"), "execute-api", "eu-west-1")
        expected = signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)
        assert authorization.endswith(f"Signature={expected}"), (method, path)
    assert [(m, p) for m, p, _, _ in _Recorder.seen] == [
        ("GET", "/prod/tool-specs?surface=household"),
        ("POST", f"/prod/families/{FAMILY}/context"),
    ]
