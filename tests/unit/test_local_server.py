"""``family-memory serve``: each HTTP request becomes the HTTP API (payload v2) event
Lambda receives, and goes through the same resolver."""

from __future__ import annotations

import base64
import http.client
import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from api_helpers import api_event
from family_memory.app.api import MAX_BODY_BYTES, handle
from family_memory.app.bootstrap import Runtime
from family_memory.app.cli import build_parser
from family_memory.app.local_server import READ_LIMIT_BYTES, http_event, response_parts, serve
from family_memory.domain.clock import FixedClock
from formation_helpers import FAMILY, FRIDAY_MORNING, session_json
from retrieval_helpers import local_runtime


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    return local_runtime(tmp_path / "home", FixedClock(FRIDAY_MORNING + timedelta(hours=1)), embedder="hashed")


def test_a_request_becomes_the_http_api_v2_event_api_gateway_sends() -> None:
    headers = [("Host", "127.0.0.1:8787"), ("Content-Type", "application/json"), ("X-Tag", "a"), ("X-Tag", "b")]
    event = http_event(
        "post", "/families/fam-rivera/tools/search_memory?surface=chat&k=1&k=2", headers, b'{"query": "Thai"}'
    )
    assert event["version"] == "2.0" and event["routeKey"] == "$default"
    assert event["rawPath"] == "/families/fam-rivera/tools/search_memory"
    assert event["rawQueryString"] == "surface=chat&k=1&k=2"
    assert event["queryStringParameters"] == {"surface": "chat", "k": "1,2"}
    assert event["headers"] == {"host": "127.0.0.1:8787", "content-type": "application/json", "x-tag": "a,b"}
    assert event["requestContext"]["http"]["method"] == "POST"
    assert event["requestContext"]["http"]["path"] == event["rawPath"]
    assert event["body"] == '{"query": "Thai"}' and event["isBase64Encoded"] is False


def test_a_request_without_body_or_query_has_neither_in_its_event() -> None:
    event = http_event("GET", "/tool-specs", {}, b"")
    assert "body" not in event and "queryStringParameters" not in event and event["rawQueryString"] == ""


def test_a_body_that_is_not_utf8_is_base64_encoded_as_api_gateway_does() -> None:
    event = http_event("POST", "/families/fam-rivera/context", {}, b"\xff\xfe")
    assert event["isBase64Encoded"] is True and base64.b64decode(event["body"]) == b"\xff\xfe"


def test_the_translated_event_resolves_like_api_gateways_own(rt: Runtime) -> None:
    data = session_json([("user", "lucia", "We love Thai food.")])
    local = handle(rt, http_event("POST", f"/families/{FAMILY}/sessions", {"content-type": "application/json"}, data))
    assert local["statusCode"] == 201
    ours = response_parts(handle(rt, http_event("GET", f"/families/{FAMILY}/memories?limit=5", {}, b"")))
    theirs = response_parts(handle(rt, api_event("GET", f"/families/{FAMILY}/memories", query={"limit": "5"})))
    assert ours == theirs and len(json.loads(ours[2])["memories"]) == 1


def test_response_parts_decode_a_base64_body() -> None:
    response = {
        "statusCode": 201,
        "headers": {"X": "1"},
        "body": base64.b64encode(b"hi").decode(),
        "isBase64Encoded": True,
    }
    assert response_parts(response) == (201, {"X": "1"}, b"hi")


def test_serve_is_a_command_with_host_and_port() -> None:
    args = build_parser().parse_args(["serve", "--port", "0"])
    assert (args.host, args.port) == ("127.0.0.1", 0)


@pytest.fixture
def server(rt: Runtime) -> Iterator[str]:
    running = serve(rt, "127.0.0.1", 0)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    try:
        yield running.url
    finally:
        running.shutdown()
        running.server_close()
        thread.join(timeout=5)


def request(url: str, method: str, path: str, body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_the_local_server_answers_over_http(server: str) -> None:
    data = session_json([("user", "lucia", "We love Thai food.")])
    status, _, body = request(server, "POST", f"/families/{FAMILY}/sessions", data)
    assert status == 201 and json.loads(body)["formation"] == "done"
    status, headers, body = request(server, "POST", f"/families/{FAMILY}/context", b'{"message": "Thai food?"}')
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert "Thai" in json.loads(body)["block"]
    status, _, body = request(server, "GET", "/families/fam-rivera/memories/not-a-ulid")
    assert status == 400 and json.loads(body)["error"]["code"] == "invalid_input"


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_the_local_server_refuses_a_body_above_the_gateways_limit_unread(server: str) -> None:
    host, port = server.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.putrequest("POST", f"/families/{FAMILY}/sessions")
        connection.putheader("Content-Length", str(READ_LIMIT_BYTES + 1))
        connection.endheaders()
        response = connection.getresponse()
        error = json.loads(response.read())["error"]
    finally:
        connection.close()
    assert response.status == 413 and error["code"] == "payload_too_large"
    assert error["message"] == f"body: {READ_LIMIT_BYTES + 1:,} bytes; the most this API takes is {MAX_BODY_BYTES:,}"
