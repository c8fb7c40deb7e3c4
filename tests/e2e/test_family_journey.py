"""A family's journey through the HTTP API, end to end, as the assistant's backend sees it:
a session ends, its claims become memories, a later turn finds one, the agent
opens it and its evidence, another family's path finds nothing, the family forgets it, it
never comes back (not in a lookup a moment later, not from a restatement, not in the
brief).

Two targets, one test:

- by default, ``family-memory serve`` on 127.0.0.1 over a fresh local home (the offline
  extractor and embedder; formation runs before the session-end call returns);
- with ``FAMILY_MEMORY_E2E=1`` and ``FAMILY_MEMORY_E2E_API_URL`` (the stack output
  ``ApiUrl``), the deployed stack: requests are signed with SigV4 for ``execute-api`` from
  the environment's AWS credentials, and each step waits (up to
  ``FAMILY_MEMORY_E2E_TIMEOUT`` seconds, default 180) for the asynchronous pipeline
  (extract, reconcile, indexer; the search index is about 10 s behind). Each run uses a
  new family id (``e2e-…``); nothing else in the stack is touched.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
import requests

from family_memory.app.bootstrap import build_local
from family_memory.app.local_server import serve
from family_memory.app.settings import load_settings
from family_memory.domain.clock import SystemClock

DEPLOYED = os.environ.get("FAMILY_MEMORY_E2E") == "1"
TIMEOUT = float(os.environ.get("FAMILY_MEMORY_E2E_TIMEOUT", "180")) if DEPLOYED else 0.0
ZONE = "America/Los_Angeles"
SYNONYM = "Planning snacks for the party: any food to keep away from anyone?"

pytestmark = [pytest.mark.e2e, pytest.mark.enable_socket] if DEPLOYED else [pytest.mark.e2e]

T = TypeVar("T")


@dataclass
class Api:
    """The HTTP API at ``base``; ``auth`` signs each request (None locally)."""

    base: str
    auth: Any = None

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        data = body if isinstance(body, bytes) else None if body is None else json.dumps(body).encode()
        response = requests.request(
            method,
            self.base.rstrip("/") + path,
            data=data,
            headers={"Content-Type": "application/json"},
            auth=self.auth,
            timeout=30,
        )
        return response.status_code, response.json()

    def ok(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        status, answer = self.call(method, path, body)
        assert status in (200, 201), f"{method} {path}: {status} {answer}"
        return answer


def eventually(what: str, probe: Callable[[], T | None]) -> T:
    """``probe()``'s first non-None answer; locally it must come at once, deployed within TIMEOUT."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = probe()
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {TIMEOUT:g} s")
        time.sleep(3)


def deployed_api() -> Api:
    import boto3
    from requests_aws4auth import AWS4Auth

    url = os.environ.get("FAMILY_MEMORY_E2E_API_URL")
    if not url:
        pytest.fail("FAMILY_MEMORY_E2E=1 needs FAMILY_MEMORY_E2E_API_URL (the stack output ApiUrl)")
    session = boto3.session.Session()
    credentials = session.get_credentials()
    if credentials is None or session.region_name is None:
        pytest.fail("FAMILY_MEMORY_E2E=1 needs AWS credentials and a region in the environment")
    frozen = credentials.get_frozen_credentials()
    auth = AWS4Auth(
        frozen.access_key, frozen.secret_key, session.region_name, "execute-api", session_token=frozen.token
    )
    return Api(url, auth)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    if DEPLOYED:
        yield deployed_api()
        return
    home: Path = tmp_path_factory.mktemp("e2e-home")
    runtime = build_local(load_settings({}, home=str(home), backend="local", embedder="minilm"), SystemClock())
    server = serve(runtime, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Api(server.url)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def transcript(family_id: str, session_id: str, texts: list[str], minutes_ago: int) -> dict[str, Any]:
    started = datetime.now(UTC) - timedelta(minutes=minutes_ago)
    return {
        "family_id": family_id,
        "session_id": session_id,
        "surface": "chat",
        "started_at": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "time_zone": ZONE,
        "turns": [{"n": n, "role": "user", "member_id": "lucia", "text": t} for n, t in enumerate(texts, 1)],
    }


def allergy(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((r for r in rows if "peanut" in r["summary"].lower()), None)


def active(api: Api, family: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = api.ok("GET", f"/families/{family}/memories?status=active&limit=100")["memories"]
    return rows


def looked_up(api: Api, family: str, message: str) -> list[str]:
    answer = api.ok("POST", f"/families/{family}/context", {"message": message})
    assert "candidates to weigh, not facts to repeat" in answer["block"]
    return [item["memory_id"] for item in answer["items"]]


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_family_remembers_finds_reads_forgets_and_it_stays_forgotten(api: Api) -> None:
    family, other = f"e2e-{uuid.uuid4().hex[:12]}", f"e2e-{uuid.uuid4().hex[:12]}"
    first = transcript(
        family,
        "sess-e2e-1",
        ["My daughter Maya is allergic to peanuts.", "We love Thai food."],
        minutes_ago=90,
    )
    assert api.ok("POST", f"/families/{family}/sessions", first)["stored"] is True

    memory = eventually("a memory of the peanut allergy", lambda: allergy(active(api, family)))
    ref = f"memory://{family}/{memory['id']}"

    # A later turn about food: the lookup offers it.
    eventually("the lookup finding it", lambda: memory["id"] in looked_up(api, family, SYNONYM) or None)

    # The agent opens it, then the words it came from.
    opened = api.ok("POST", f"/families/{family}/tools/read_memory", {"ref": ref})
    assert opened["status"] == "success" and memory["summary"] in opened["text"]
    evidence = api.ok("GET", f"/families/{family}/memories/{memory['id']}/evidence")["evidence"]
    excerpt = api.ok("POST", f"/families/{family}/tools/read_conversation_excerpt", {"ref": evidence[0]["ref"]})
    assert excerpt["status"] == "success" and "allergic to peanuts" in excerpt["text"]

    # Another family's path knows nothing of it.
    status, answer = api.call("GET", f"/families/{other}/memories/{memory['id']}")
    assert status == 404 and memory["summary"] not in json.dumps(answer)
    foreign = api.ok("POST", f"/families/{other}/tools/read_memory", {"ref": ref})
    assert foreign["status"] == "error" and memory["summary"] not in foreign["text"]

    # The family forgets it: gone from the next lookup at once, whatever the index still holds.
    forgotten = api.ok("POST", f"/families/{family}/memories/{memory['id']}/forget", {"member_id": "lucia"})
    assert forgotten["memory"]["status"] == "retracted"
    assert memory["id"] not in looked_up(api, family, SYNONYM)
    assert api.ok("POST", f"/families/{family}/tools/read_memory", {"ref": ref})["status"] == "error"

    # Said again in a later session, it is not learned back.
    again = transcript(family, "sess-e2e-2", ["Remember that Maya is allergic to peanuts."], minutes_ago=10)
    ended = api.ok("POST", f"/families/{family}/sessions", again)
    if DEPLOYED:
        time.sleep(min(TIMEOUT, 90))  # formation runs after the call; give it time to (not) learn it
    else:
        assert ended["formation"] == "done"
    assert allergy(active(api, family)) is None
    assert memory["id"] not in looked_up(api, family, SYNONYM)
    brief = api.ok("GET", f"/families/{family}/brief")
    assert "peanut" not in brief["prompt"].lower()
