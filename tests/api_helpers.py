"""Builders for the HTTP API tests: real-shaped API Gateway HTTP API (payload v2) events
made from ``tests/events/api_http_v2.json``, and the response body as JSON."""

from __future__ import annotations

import base64
import contextlib
import copy
import json
import threading
import uuid
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

EVENTS = Path(__file__).parent / "events"


@cache
def _template() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((EVENTS / "api_http_v2.json").read_text())
    return loaded


def api_event(
    method: str,
    path: str,
    body: Any = None,
    *,
    query: dict[str, str] | None = None,
    raw_body: bytes | None = None,
    base64_body: bool = False,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The event API Gateway sends for ``method path`` with ``body`` (JSON-encoded unless
    ``raw_body`` is given); ``headers`` are added (names in lower case, as API Gateway sends them)."""
    event = copy.deepcopy(_template())
    event["rawPath"] = path
    event["requestContext"]["http"]["method"] = method
    event["requestContext"]["http"]["path"] = path
    event["requestContext"]["requestId"] = str(uuid.uuid4())
    for name, value in (headers or {}).items():
        event["headers"][name.lower()] = value
    if query:
        event["queryStringParameters"] = dict(query)
        event["rawQueryString"] = urlencode(query)
    data = raw_body if raw_body is not None else (None if body is None else json.dumps(body).encode())
    if data is not None:
        if base64_body:
            event["body"], event["isBase64Encoded"] = base64.b64encode(data).decode(), True
        else:
            event["body"] = data.decode("utf-8")
    return event


def payload(response: dict[str, Any]) -> Any:
    return json.loads(response["body"])


def error_of(response: dict[str, Any]) -> tuple[int, str, str]:
    error = payload(response)["error"]
    return response["statusCode"], error["code"], error["message"]


@contextlib.contextmanager
def running_server(runtime: Any) -> Iterator[str]:
    """``family-memory serve`` for ``runtime`` on 127.0.0.1 (any free port), in a thread: its URL."""
    from family_memory.app.local_server import serve

    server = serve(runtime, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
