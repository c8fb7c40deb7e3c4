"""``family-memory serve``: each HTTP request becomes the HTTP API (payload v2) event
Lambda receives, and goes through the same resolver."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from api_helpers import api_event
from family_memory.app.api import MAX_BODY_BYTES, resolve_api_event
from family_memory.app.cli import build_parser
from family_memory.app.local_server import READ_LIMIT_BYTES, allowed_hosts, http_event, response_parts, serve
from family_memory.app.runtime import Runtime
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
    local = resolve_api_event(
        rt, http_event("POST", f"/families/{FAMILY}/sessions", {"content-type": "application/json"}, data)
    )
    assert local["statusCode"] == 201
    ours = response_parts(resolve_api_event(rt, http_event("GET", f"/families/{FAMILY}/memories?limit=5", {}, b"")))
    theirs = response_parts(
        resolve_api_event(rt, api_event("GET", f"/families/{FAMILY}/memories", query={"limit": "5"}))
    )
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


# --- who may call, and what framing is accepted ---------------------------------------------


def raw_exchange(url: str, data: bytes) -> bytes:
    """Send ``data`` as it is and read everything the server answers until it closes."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(data)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def call_with(
    url: str, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, dict[str, Any]]:
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.putrequest(method, path, skip_host="Host" in headers)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_host_other_than_this_servers_is_refused(server: str) -> None:
    port = server.rsplit(":", 1)[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}"):
        assert call_with(server, "GET", "/tool-specs", {"Host": host})[0] == 200, host
    for host in (f"attacker.example:{port}", "127.0.0.1:80", f"127.0.0.1.nip.io:{port}", ""):
        status, answer = call_with(server, "GET", "/tool-specs", {"Host": host})
        assert status == 403 and answer["error"]["code"] == "forbidden", host
        assert answer["error"]["message"].startswith("Host: ")


def test_a_server_bound_to_every_interface_answers_any_host_and_one_bound_to_an_address_that_too() -> None:
    assert allowed_hosts("0.0.0.0", 8787) is None and allowed_hosts("::", 8787) is None  # noqa: S104
    assert allowed_hosts("127.0.0.1", 8787) == frozenset({"127.0.0.1:8787", "localhost:8787", "[::1]:8787"})
    assert allowed_hosts("192.168.1.20", 9000) == frozenset(
        {"127.0.0.1:9000", "localhost:9000", "[::1]:9000", "192.168.1.20:9000"}
    )


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_server_bound_to_every_interface_still_refuses_a_web_page(rt: Runtime) -> None:
    running = serve(rt, "0.0.0.0", 0)  # noqa: S104
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{running.server_address[1]}"
        assert call_with(url, "GET", "/tool-specs", {"Host": "my-laptop.lan:8787"})[0] == 200
        status, answer = call_with(url, "GET", "/tool-specs", {"Host": "x.lan", "Origin": "https://x.lan"})
        assert status == 403 and answer["error"]["code"] == "forbidden"
    finally:
        running.shutdown()
        running.server_close()
        thread.join(timeout=5)


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_request_with_an_origin_is_refused_unread(server: str, rt: Runtime) -> None:
    body = json.dumps({"member_id": "lucia", "type": "fact", "about": "x", "summary": "Cross-site."}).encode()
    headers = {"Origin": "https://evil.example", "Content-Type": "application/json"}
    status, answer = call_with(server, "POST", f"/families/{FAMILY}/memories", headers, body)
    assert status == 403 and answer["error"] == {
        "code": "forbidden",
        "message": "requests from a web page (with an Origin header) are refused; call this API from a backend",
    }
    assert call_with(server, "GET", "/tool-specs", {"Origin": "null"})[0] == 403
    assert list(rt.store.families()) == []


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_body_must_be_sent_as_json(server: str) -> None:
    path = f"/families/{FAMILY}/context"
    body = b'{"message": "Thai food?"}'
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        headers: dict[str, str] = {} if content_type is None else {"Content-Type": content_type}
        status, answer = call_with(server, "POST", path, headers, body)
        assert status == 415 and answer["error"]["code"] == "unsupported_media_type", content_type
    for content_type in ("application/json", "Application/JSON; charset=utf-8"):
        assert call_with(server, "POST", path, {"Content-Type": content_type}, body)[0] == 200, content_type
    assert call_with(server, "GET", "/tool-specs", {})[0] == 200  # no body, no type needed


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_content_length_that_is_not_a_number_is_400(server: str) -> None:
    host = server.removeprefix("http://")
    for length in ("abc", "-5", "1e3", "5, 6"):
        request = (
            f"POST /families/{FAMILY}/context HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n"
        ).encode() + b'{"message": "hi"}'
        answer = raw_exchange(server, request)
        assert answer.startswith(b"HTTP/1.1 400 "), (length, answer[:80])
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "invalid_input"


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_chunked_body_is_refused_and_not_read_as_the_next_request(server: str) -> None:
    host = server.removeprefix("http://")
    smuggled = f"GET /tool-specs HTTP/1.1\r\nHost: {host}\r\n\r\n"
    chunk = f'{{"message": "hi"}}\r\n{smuggled}'
    request = (
        f"POST /families/{FAMILY}/context HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Transfer-Encoding: chunked\r\n\r\n{len(chunk):x}\r\n{chunk}\r\n0\r\n\r\n"
    ).encode()
    answer = raw_exchange(server, request)  # returns once the server closes the connection
    assert answer.startswith(b"HTTP/1.1 501 ") and answer.count(b"HTTP/1.1 ") == 1
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "not_implemented"


# --- methods it does not serve, and what reaches the terminal -------------------------------


def head_and_body(answer: bytes) -> tuple[bytes, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return status.encode(), headers, body


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_connect_is_501_json(server: str) -> None:
    host = server.removeprefix("http://")
    status, headers, body = head_and_body(
        raw_exchange(server, f"CONNECT {host} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    )
    assert status.startswith(b"HTTP/1.1 501 ") and headers["content-type"] == "application/json"
    assert json.loads(body) == {
        "error": {
            "code": "not_implemented",
            "message": "'CONNECT' is not supported here; the API takes GET, POST and PATCH",
        }
    }


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_head_is_405_without_a_body(server: str) -> None:
    host = server.removeprefix("http://")
    answer = raw_exchange(server, f"HEAD /tool-specs HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    status, headers, body = head_and_body(answer)
    assert status.startswith(b"HTTP/1.1 405 ") and headers["allow"] == "GET" and body == b""
    assert int(headers["content-length"]) > 0  # what a body would have been


@pytest.mark.allow_hosts(["127.0.0.1"])
@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", f"/families/{FAMILY}/memories", "GET, POST"),
        ("DELETE", f"/families/{FAMILY}/memories/01M8EZ65M0W3HDWVDNSGP7ZJES", "GET, PATCH"),
        ("OPTIONS", f"/families/{FAMILY}/brief", "GET"),
        ("DELETE", "/tool-specs", "GET"),
        ("TRACE", f"/families/{FAMILY}/memories/01M8EZ65M0W3HDWVDNSGP7ZJES/lineage", "GET"),
        ("QUERY", f"/families/{FAMILY}/context", "POST"),
        ("PROPFIND", "/tool-specs", "GET"),
    ],
)
def test_another_method_on_a_known_path_is_405_json_with_allow(server: str, method: str, path: str, allow: str) -> None:
    host = server.removeprefix("http://")
    answer = raw_exchange(server, f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    status, headers, body = head_and_body(answer)
    assert status.startswith(b"HTTP/1.1 405 ") and headers["allow"] == allow
    assert headers["content-type"] == "application/json" and json.loads(body)["error"]["code"] == "method_not_allowed"


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_an_unknown_path_is_404_json_whatever_the_method(server: str) -> None:
    for method in ("GET", "PUT", "DELETE", "OPTIONS", "TRACE", "FOO"):
        status, answer = call_with(server, method, "/nowhere", {})
        assert status == 404 and answer["error"]["code"] == "no_route", method


@pytest.mark.allow_hosts(["127.0.0.1"])
@pytest.mark.parametrize(
    ("request_line", "code"),
    [
        (b"GET /tool-specs HTTP/9.9", "http_version_not_supported"),
        (b"GET", "invalid_input"),
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1", "uri_too_long"),
    ],
)
def test_a_malformed_request_line_is_answered_as_json(server: str, request_line: bytes, code: str) -> None:
    # http.server answers some of these as HTTP/0.9 would (no status line): the body is JSON all the same.
    answer = raw_exchange(server, request_line + b"\r\n\r\n")
    assert b"<html" not in answer.lower() and b"<!doctype" not in answer.lower()
    assert json.loads(answer.rpartition(b"\r\n\r\n")[2] or answer)["error"]["code"] == code


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_the_access_log_escapes_control_characters_from_the_request(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    host = server.removeprefix("http://")
    evil = f"GET /\x1b[2J\x1b[31mowned\x07 HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode("latin-1")
    raw_exchange(server, evil)
    raw_exchange(server, f"FOO\x1b]0;title\x07 / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode("latin-1"))
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\u001b[2J\\u001b[31mowned\\u0007" in out and "\\u001b]0;title" in out
