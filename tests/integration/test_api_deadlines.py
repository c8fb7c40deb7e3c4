"""Every API request answers within its deadline, never as a gateway timeout.

A collection scaled to zero can take 10-30 s to answer its first search; API Gateway
waits 30 s and the api function times out at 29. With a slow fake index (each search
sleeping far past the search deadline), a turn's lookup answers 503
``search_unavailable`` with ``Retry-After`` within the search deadline; when only one
half is slow, the other half's hits still answer. Past the request's own deadline no
further AWS call is made and the answer is 503 ``deadline_exceeded``."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest
from aws_lambda_powertools.utilities.typing import LambdaContext

from api_helpers import api_event, error_of, payload
from conftest import TEST_BUCKET, TEST_REGION, TEST_TABLE
from factories import FAMILY
from family_memory.app.api import resolve_api_event
from family_memory.app.bootstrap import build_aws
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.domain.clock import FixedClock
from family_memory.retrieval.deadline import DeadlineExceededError, DeadlineIndex, SearchTimeoutError, request_deadline
from family_memory.retrieval.embedding import Vector
from family_memory.retrieval.search_index import Hit, MemoryIndex, SearchFilter
from formation_helpers import session_json
from iam_policy import Stack
from lambda_harness import LambdaContext as HarnessContext
from retrieval_helpers import fact, local_runtime, remember

SESSION = session_json([("user", "lucia", "We love Thai food.")])
SLOW = 10.0  # seconds a slow search would take; the tests never wait for it
DEADLINE = 0.5

#: A context shaped like Lambda's (the harness's), typed as the one Lambda passes.
CONTEXT = cast(LambdaContext, HarnessContext())


class SlowIndex:
    """The runtime's index, with a chosen half answering only after ``SLOW`` seconds (or
    when the test ends): a collection still waking from zero."""

    def __init__(self, index: MemoryIndex, slow: set[str]) -> None:
        self.index, self.slow = index, slow
        self.released = threading.Event()

    def _maybe_wait(self, half: str) -> None:
        if half in self.slow:
            self.released.wait(SLOW)

    def semantic(self, family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> list[Hit]:
        self._maybe_wait("semantic")
        return self.index.semantic(family_id, vector, search_filter, k)

    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        self._maybe_wait("keyword")
        return self.index.keyword(family_id, text, search_filter, k)


@pytest.fixture
def slowed(tmp_path: Path) -> Iterator[Any]:
    clock = FixedClock(datetime(2026, 11, 27, 17, 0, tzinfo=UTC))
    rt = local_runtime(tmp_path / "home", clock, embedder="hashed", search_deadline_seconds=DEADLINE)
    remember(rt, fact("Maya is allergic to peanuts.", "Maya's peanut allergy", "meals and snacks"))
    assert rt.retrieval is not None
    bounded = rt.retrieval.lookup.index
    assert isinstance(bounded, DeadlineIndex) and bounded.seconds == DEADLINE
    stand_ins: list[SlowIndex] = []

    def slow(*halves: str) -> Runtime:
        stand_in = SlowIndex(bounded.index, set(halves))
        stand_ins.append(stand_in)
        bounded.index = stand_in  # type: ignore[assignment]
        return rt

    yield slow
    for stand_in in stand_ins:
        stand_in.released.set()


def _context(rt: Runtime, message: str) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    response = resolve_api_event(rt, api_event("POST", f"/families/{FAMILY}/context", {"message": message}), CONTEXT)
    return response, time.monotonic() - started


def test_a_search_slower_than_its_deadline_answers_503_with_retry_after_in_time(slowed: Any) -> None:
    rt = slowed("semantic", "keyword")
    response, took = _context(rt, "any snacks Maya can have at the party?")
    status, code, _ = error_of(response)
    assert (status, code) == (503, "search_unavailable")
    assert response["headers"]["Retry-After"].isdigit()
    assert took < DEADLINE + 1.0, f"answered after {took:.2f} s"


def test_with_one_half_slow_the_other_half_still_answers(slowed: Any) -> None:
    rt = slowed("semantic")
    response, took = _context(rt, "peanut snacks for Maya")
    assert response["statusCode"] == 200, response["body"]
    items = payload(response)["items"]
    assert [item["summary"] for item in items] == ["Maya is allergic to peanuts."]
    assert items[0]["found_by"] == "keyword" and took < DEADLINE + 1.0


def test_the_brief_answers_while_search_is_unavailable(slowed: Any) -> None:
    rt = slowed("semantic", "keyword")
    assert resolve_api_event(rt, api_event("GET", f"/families/{FAMILY}/brief"), CONTEXT)["statusCode"] == 200


def test_a_search_gets_no_more_than_what_is_left_of_the_request(slowed: Any) -> None:
    rt = slowed("semantic", "keyword")
    assert rt.retrieval is not None
    started = time.monotonic()
    with request_deadline(0.1), pytest.raises(SearchTimeoutError, match="within 0.1"):
        rt.retrieval.lookup.index.keyword(FAMILY, "peanuts", SearchFilter(), 5)
    assert time.monotonic() - started < DEADLINE


def test_past_the_requests_deadline_no_aws_call_is_made_and_the_answer_is_503(aws: Any) -> None:
    clock = FixedClock(datetime(2026, 11, 27, 17, 0, tzinfo=UTC))
    settings = load_settings({}, backend="aws", bucket=TEST_BUCKET, table=TEST_TABLE, region=TEST_REGION)
    before = build_aws(settings, clock, session=aws)
    ended = resolve_api_event(before, api_event("POST", f"/families/{FAMILY}/sessions", raw_body=SESSION), CONTEXT)
    assert ended["statusCode"] == 201  # the family exists (family.json), as the card needs
    calls: list[str] = []

    def slow_call(model: Any = None, **_: Any) -> None:  # each S3/DynamoDB call takes 0.2 s from here on
        calls.append(model.name)
        time.sleep(0.2)

    aws.events.register("before-call", slow_call)
    rt = build_aws(settings.model_copy(update={"api_deadline_seconds": 0.3}), clock, session=aws)
    draft = {"member_id": "lucia", "type": "fact", "about": "Bedtime", "summary": "Bed at 8."}
    started = time.monotonic()
    response = resolve_api_event(rt, api_event("POST", f"/families/{FAMILY}/memories", draft), CONTEXT)
    status, code, message = error_of(response)
    assert (status, code) == (503, "deadline_exceeded") and "Retry-After" in response["headers"]
    assert "passed" not in message  # the detail (which call, how late) is for the log only
    assert 1 <= len(calls) <= 3 and time.monotonic() - started < 1.0
    with request_deadline(0.01):
        time.sleep(0.02)
        with pytest.raises(DeadlineExceededError, match="before s3.GetObject"):
            rt.store.read(FAMILY, "family.json")


def test_lambdas_remaining_time_shortens_the_deadline(slowed: Any) -> None:
    class AlmostOut(HarnessContext):
        def get_remaining_time_in_millis(self) -> int:
            return 1_600  # 1.6 s left: the request gets 0.1 s, the search no more than that

    rt = slowed("semantic", "keyword")
    started = time.monotonic()
    response = resolve_api_event(
        rt, api_event("POST", f"/families/{FAMILY}/context", {"message": "snacks"}), cast(LambdaContext, AlmostOut())
    )
    assert error_of(response)[:2] == (503, "search_unavailable") and time.monotonic() - started < 0.5


def test_the_template_gives_the_api_deadlines_under_its_timeout_and_api_gateways() -> None:
    stack = Stack({})
    env = stack.environment("ApiFunction")
    timeout = stack.resource("ApiFunction")["Properties"]["Timeout"]
    search, overall = float(env["SEARCH_DEADLINE_SECONDS"]), float(env["API_DEADLINE_SECONDS"])
    assert search <= 3 < overall <= 25 < timeout < 30
    settings = load_settings({k: v for k, v in env.items() if k.endswith("_SECONDS")})
    assert (settings.search_deadline_seconds, settings.api_deadline_seconds) == (search, overall)
