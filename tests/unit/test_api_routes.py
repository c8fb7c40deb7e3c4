"""The HTTP API on the local runtime: every route through real-shaped HTTP API (payload v2)
events, the same resolver Lambda runs (``family_memory.app.api``)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from api_helpers import api_event, error_of, payload
from family_memory.app.api import MAX_BODY_BYTES, RETRY_AFTER_SECONDS, openapi_document, resolve_api_event
from family_memory.app.routes.agent import entity_tag
from family_memory.app.runtime import Runtime
from family_memory.card import operations
from family_memory.domain.clock import FixedClock
from family_memory.domain.ids import new_ulid
from family_memory.retrieval.search_index import IndexUnavailableError
from family_memory.retrieval.tools import TOOL_NAMES
from formation_helpers import FAMILY, FRIDAY_MORNING, candidate, session_json
from retrieval_helpers import local_runtime

OTHER = "fam-okafor"
TURNS = [("user", "lucia", "We love Thai food. Never book red-eyes."), ("assistant", None, "Noted!")]


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    return local_runtime(tmp_path / "home", FixedClock(FRIDAY_MORNING + timedelta(hours=1)), embedder="hashed")


def call(rt: Runtime, method: str, path: str, body: Any = None, **kw: Any) -> dict[str, Any]:
    return resolve_api_event(rt, api_event(method, path, body, **kw))


def end_session(rt: Runtime, family_id: str = FAMILY, session_id: str = "sess-1", turns: Any = TURNS) -> dict[str, Any]:
    data = session_json(turns, family_id=family_id, session_id=session_id)
    return call(rt, "POST", f"/families/{family_id}/sessions", raw_body=data)


@pytest.fixture
def family(rt: Runtime) -> dict[str, str]:
    """fam-rivera after one session (two memories) and fam-okafor after one of its own."""
    assert end_session(rt)["statusCode"] == 201
    other = [("user", "ade", "We are vegetarian.")]
    assert end_session(rt, OTHER, "sess-o1", other)["statusCode"] == 201
    rows = payload(call(rt, "GET", f"/families/{FAMILY}/memories"))["memories"]
    by_summary = {row["summary"]: row["id"] for row in rows}
    (other_id,) = [r["id"] for r in payload(call(rt, "GET", f"/families/{OTHER}/memories"))["memories"]]
    thai = next(i for s, i in by_summary.items() if "Thai" in s)
    red_eye = next(i for s, i in by_summary.items() if "red-eye" in s)
    return {"thai": thai, "red_eye": red_eye, "other": other_id}


# --- session end ---------------------------------------------------------------------------


def test_session_end_forms_memories_now_on_one_machine(rt: Runtime) -> None:
    response = end_session(rt)
    assert response["statusCode"] == 201
    body = payload(response)
    assert body["stored"] is True and body["formation"] == "done" and body["family_created"] is True
    assert [o["kind"] for o in body["candidates"]["outcomes"]] == ["added", "added"]
    again = end_session(rt)
    assert again["statusCode"] == 200 and payload(again)["stored"] is False


def test_session_end_refuses_a_transcript_of_another_family(rt: Runtime) -> None:
    data = session_json(TURNS, family_id=OTHER)
    status, code, message = error_of(call(rt, "POST", f"/families/{FAMILY}/sessions", raw_body=data))
    assert (status, code) == (400, "invalid_input")
    assert message == f"family_id: the transcript is for family {OTHER}, not {FAMILY}"
    assert list(rt.store.families()) == []


def test_session_end_names_the_turn_a_transcript_fails_on(rt: Runtime) -> None:
    data = session_json([("user", None, "hello")])
    status, code, message = error_of(call(rt, "POST", f"/families/{FAMILY}/sessions", raw_body=data))
    assert (status, code) == (400, "invalid_input") and "turn 1 is a user turn without a member_id" in message


# --- brief, context, tools -----------------------------------------------------------------


def test_brief_returns_the_prompt_block_and_its_token_counts(rt: Runtime, family: dict[str, str]) -> None:
    body = payload(call(rt, "GET", f"/families/{FAMILY}/brief"))
    assert body["compiled"] is True and body["surface"] == "chat"
    assert "Thai food" in body["prompt"] and "<family_brief>" in body["prompt"]
    assert body["system"][-1] == {"cachePoint": {"type": "default"}}
    tokens = body["tokens"]
    assert 0 < tokens["brief"] <= tokens["cap"] == 2000
    assert [s["section"] for s in tokens["sections"]] == ["identity", "directives", "topics", "last_conversation"]
    household = payload(call(rt, "GET", f"/families/{FAMILY}/brief", query={"surface": "household"}))
    assert "last_conversation" not in [s["section"] for s in household["tokens"]["sections"]]


def test_brief_of_a_family_without_one_is_the_instructions_and_an_empty_brief(rt: Runtime) -> None:
    body = payload(call(rt, "GET", "/families/fam-new/brief"))
    assert body["compiled"] is False and "- (none)" in body["prompt"]


def test_context_returns_the_turn_level_block_and_its_items(rt: Runtime, family: dict[str, str]) -> None:
    response = call(rt, "POST", f"/families/{FAMILY}/context", {"message": "any Thai food ideas?"})
    assert response["statusCode"] == 200
    body = payload(response)
    assert body["items"] and body["items"][0]["memory_id"] == family["thai"]
    assert body["items"][0]["ref"] == f"memory://{FAMILY}/{family['thai']}"
    assert body["block"].count("memory://") == len(body["items"]) and body["tokens"] > 0


def test_tool_specs_are_the_converse_tool_specs(rt: Runtime) -> None:
    body = payload(call(rt, "GET", "/tool-specs"))
    assert [t["toolSpec"]["name"] for t in body["tools"]] == list(TOOL_NAMES)
    assert payload(call(rt, "GET", "/tool-specs", query={"surface": "household"})) == {"tools": []}


def test_each_read_tool_runs_for_the_family_in_the_path(rt: Runtime, family: dict[str, str]) -> None:
    search = payload(call(rt, "POST", f"/families/{FAMILY}/tools/search_memory", {"query": "Thai food"}))
    assert search["status"] == "success" and family["thai"] in search["text"]
    ref = f"memory://{FAMILY}/{family['thai']}"
    read = payload(call(rt, "POST", f"/families/{FAMILY}/tools/read_memory", {"ref": ref}))
    assert read["status"] == "success" and "conv://fam-rivera/sess-1#turn=1" in read["text"]
    excerpt = {"ref": "conv://fam-rivera/sess-1#turn=1"}
    turns = payload(call(rt, "POST", f"/families/{FAMILY}/tools/read_conversation_excerpt", excerpt))
    assert turns["status"] == "success" and "We love Thai food" in turns["text"]


def test_a_tool_cannot_read_another_familys_memory(rt: Runtime, family: dict[str, str]) -> None:
    ref = f"memory://{OTHER}/{family['other']}"
    result = payload(call(rt, "POST", f"/families/{FAMILY}/tools/read_memory", {"ref": ref}))
    assert result["status"] == "error" and "vegetarian" not in result["text"]


def test_an_unknown_tool_is_404_naming_the_known_ones(rt: Runtime) -> None:
    status, code, message = error_of(call(rt, "POST", f"/families/{FAMILY}/tools/remember", {"x": 1}))
    assert (status, code) == (404, "not_found")
    assert message == "there is no tool named 'remember'; the tools are " + ", ".join(TOOL_NAMES)


# --- the memory card -----------------------------------------------------------------------


def test_list_pages_newest_first_and_filters_by_status(rt: Runtime, family: dict[str, str]) -> None:
    first = payload(call(rt, "GET", f"/families/{FAMILY}/memories", query={"limit": "1"}))
    assert len(first["memories"]) == 1 and first["cursor"]
    second = payload(call(rt, "GET", f"/families/{FAMILY}/memories", query={"limit": "1", "cursor": first["cursor"]}))
    assert {first["memories"][0]["id"], second["memories"][0]["id"]} == {family["thai"], family["red_eye"]}
    retracted = payload(call(rt, "GET", f"/families/{FAMILY}/memories", query={"status": "retracted"}))
    assert retracted == {"memories": [], "cursor": None}


def test_show_evidence_and_lineage_of_a_memory(rt: Runtime, family: dict[str, str]) -> None:
    base = f"/families/{FAMILY}/memories/{family['thai']}"
    shown = payload(call(rt, "GET", base))
    assert shown["memory"]["id"] == family["thai"] and shown["memory"]["status"] == "active"
    assert shown["conflicts"] == []
    evidence = payload(call(rt, "GET", f"{base}/evidence"))["evidence"]
    assert evidence[0]["ref"] == "conv://fam-rivera/sess-1#turn=1" and evidence[0]["speaker"] == "lucia"
    lineage = payload(call(rt, "GET", f"{base}/lineage"))
    assert lineage["asked"] == lineage["current"] == family["thai"] and len(lineage["versions"]) == 1


def test_add_edit_and_forget_through_the_card(rt: Runtime, family: dict[str, str]) -> None:
    added = call(
        rt,
        "POST",
        f"/families/{FAMILY}/memories",
        {"member_id": "lucia", "type": "preference", "about": "tea", "summary": "Lucía drinks green tea."},
    )
    assert added["statusCode"] == 201
    new = payload(added)["memory"]
    assert new["authority"] == "user_explicit" and new["verified"][0]["by"] == "human:lucia"
    edited = payload(
        call(
            rt,
            "PATCH",
            f"/families/{FAMILY}/memories/{new['id']}",
            {"member_id": "lucia", "summary": "Lucía drinks mint tea."},
        )
    )
    assert edited["superseded"]["status"] == "superseded" and edited["memory"]["supersedes"] == new["id"]
    lineage = payload(call(rt, "GET", f"/families/{FAMILY}/memories/{new['id']}/lineage"))
    assert [v["memory"]["id"] for v in lineage["versions"]] == [new["id"], edited["memory"]["id"]]
    forget = {"member_id": "lucia", "reason": "not true"}
    forgotten = payload(call(rt, "POST", f"/families/{FAMILY}/memories/{family['thai']}/forget", forget))
    assert forgotten["memory"]["status"] == "retracted" and forgotten["suppression_rule"]
    again = payload(call(rt, "POST", f"/families/{FAMILY}/memories/{family['thai']}/forget", forget))
    assert again["already_forgotten"] is True and again["suppression_rule"] is None
    # the brief is patched at once: the forgotten line is gone from the next reply
    assert "Thai" not in payload(call(rt, "GET", f"/families/{FAMILY}/brief"))["prompt"]


def test_forget_group_previews_then_forgets_the_confirmed_count(rt: Runtime, family: dict[str, str]) -> None:
    path = f"/families/{FAMILY}/forget-group"
    preview = payload(call(rt, "POST", path, {"member_id": "lucia", "topic": "Thai"}))
    assert preview["confirmed"] is False and preview["count"] == 1
    token = preview["to_confirm"]["preview_token"]
    assert preview["to_confirm"] == {"confirm": True, "expected_count": 1, "preview_token": token}
    stale = call(rt, "POST", path, {"member_id": "lucia", "topic": "Thai", "confirm": True, "expected_count": 2})
    assert error_of(stale)[:2] == (409, "conflict")
    wrong = {"member_id": "lucia", "topic": "Thai", "confirm": True, "expected_count": 1, "preview_token": "0" * 32}
    status, code, message = error_of(call(rt, "POST", path, wrong))
    assert (status, code) == (409, "conflict") and "preview the group again" in message
    confirmed = {"member_id": "lucia", "topic": "Thai", "confirm": True, "expected_count": 1, "preview_token": token}
    done = payload(call(rt, "POST", path, confirmed))
    assert done["forgotten"] == [family["thai"]] and done["suppression_rules"]
    unconfirmed = call(rt, "POST", path, {"member_id": "lucia", "topic": "Thai", "confirm": True})
    assert error_of(unconfirmed) == (
        400,
        "invalid_input",
        "expected_count: required with confirm (the count the preview showed)",
    )


# --- family isolation ----------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["", "/evidence", "/lineage"])
def test_another_familys_memory_id_is_not_found_and_shows_nothing(
    rt: Runtime, family: dict[str, str], suffix: str
) -> None:
    response = call(rt, "GET", f"/families/{FAMILY}/memories/{family['other']}{suffix}")
    status, code, message = error_of(response)
    assert (status, code) == (404, "not_found")
    assert message == f"memory {family['other']} does not exist in family {FAMILY}"
    assert OTHER not in response["body"] and "vegetarian" not in response["body"]


def test_another_familys_memory_cannot_be_edited_or_forgotten_through_this_family(
    rt: Runtime, family: dict[str, str]
) -> None:
    other = family["other"]
    edit = call(rt, "PATCH", f"/families/{FAMILY}/memories/{other}", {"member_id": "lucia", "summary": "x"})
    forget = call(rt, "POST", f"/families/{FAMILY}/memories/{other}/forget", {"member_id": "lucia"})
    for response in (edit, forget):
        assert error_of(response)[:2] == (404, "not_found") and "vegetarian" not in response["body"]
    (row,) = payload(call(rt, "GET", f"/families/{OTHER}/memories"))["memories"]
    assert row["status"] == "active" and row["revision"] == 1


# --- errors --------------------------------------------------------------------------------


def test_malformed_json_is_400(rt: Runtime) -> None:
    response = call(rt, "POST", f"/families/{FAMILY}/context", raw_body=b'{"message": ')
    status, code, message = error_of(response)
    assert (status, code) == (400, "invalid_input") and message.startswith("body: not valid JSON")


def test_a_body_that_is_not_an_object_is_400(rt: Runtime) -> None:
    assert error_of(call(rt, "POST", f"/families/{FAMILY}/context", ["hi"])) == (
        400,
        "invalid_input",
        "body: expected a JSON object, got list",
    )
    assert error_of(call(rt, "POST", f"/families/{FAMILY}/context")) == (
        400,
        "invalid_input",
        "body: a JSON object is required",
    )


def test_json_nested_too_deeply_is_400(rt: Runtime) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    for path in ("/context", "/memories", "/sessions"):
        assert error_of(call(rt, "POST", f"/families/{FAMILY}{path}", raw_body=deep)) == (
            400,
            "invalid_input",
            "body: nested too deeply",
        )


LONE = "body: a string holds an unpaired surrogate (a lone \\ud800-\\udfff escape); send valid Unicode text"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/memories", b'{"member_id": "lucia", "type": "fact", "about": "x", "summary": "Tea \\ud800."}'),
        ("PATCH", "/memories/{thai}", b'{"member_id": "lucia", "summary": "Thai \\udc00 food."}'),
        ("POST", "/memories/{thai}/forget", b'{"member_id": "lucia", "reason": "\\ud800"}'),
        ("POST", "/forget-group", b'{"member_id": "lucia", "topic": "\\ud83d"}'),
        ("POST", "/context", b'{"message": "hi \\ud800"}'),
        ("POST", "/tools/search_memory", b'{"query": "\\udfff"}'),
        ("POST", "/sessions", b'{"family_id": "fam-rivera", "note": "\\ud800"}'),
    ],
)
def test_a_lone_surrogate_in_any_body_is_400_naming_it(
    rt: Runtime, family: dict[str, str], method: str, path: str, body: bytes
) -> None:
    response = call(rt, method, f"/families/{FAMILY}{path.format(**family)}", raw_body=body)
    assert error_of(response) == (400, "invalid_input", LONE)


def test_a_surrogate_pair_is_text(rt: Runtime, family: dict[str, str]) -> None:
    body = b'{"member_id": "lucia", "type": "fact", "about": "x", "summary": "Tea \\ud83c\\udf75."}'
    added = call(rt, "POST", f"/families/{FAMILY}/memories", raw_body=body)
    assert added["statusCode"] == 201 and payload(added)["memory"]["summary"] == "Tea \U0001f375."


def test_a_pydantic_error_escaping_a_service_is_400_naming_the_field_and_logged(
    rt: Runtime, family: dict[str, str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from family_memory.domain.evidence import EvidenceRecord

    def escapes(*_: Any, **__: Any) -> Any:
        return EvidenceRecord.model_validate({"ref": "memory://x", "quote": 7})

    monkeypatch.setattr(operations, "add_memory", escapes)
    with caplog.at_level("ERROR"):
        response = call(rt, "POST", f"/families/{FAMILY}/memories", TEA)
    status, code, message = error_of(response)
    assert (status, code) == (400, "invalid_input") and "quote" in message
    assert any("validation error escaped" in r.getMessage() for r in caplog.records)


def test_a_validation_error_names_the_field(rt: Runtime, family: dict[str, str]) -> None:
    status, code, message = error_of(
        call(rt, "POST", f"/families/{FAMILY}/context", {"message": "hi", "surface": "tv"})
    )
    assert (status, code) == (400, "invalid_input") and message.startswith("body: surface: Input should be")
    body = {"member_id": "lucia", "type": "rumour", "about": "x", "summary": "y"}
    message = error_of(call(rt, "POST", f"/families/{FAMILY}/memories", body))[2]
    assert message.startswith("body: type: Input should be")
    message = error_of(
        call(rt, "POST", f"/families/{FAMILY}/memories", {"type": "fact", "about": "x", "summary": "y"})
    )[2]
    assert message == "body: member_id: Field required"
    unknown = error_of(call(rt, "POST", f"/families/{FAMILY}/context", {"message": "hi", "colour": "red"}))[2]
    assert unknown == "body: colour: Extra inputs are not permitted"


def test_a_bad_id_is_400_naming_it(rt: Runtime) -> None:
    status, code, message = error_of(call(rt, "GET", f"/families/{FAMILY}/memories/not-a-ulid"))
    assert (status, code) == (400, "invalid_input") and message.startswith("memory id")
    status, code, message = error_of(call(rt, "GET", "/families/..%2Fetc/memories"))
    assert (status, code) == (400, "invalid_input") and message.startswith("family id")
    status, code, message = error_of(call(rt, "GET", f"/families/{FAMILY.upper()}/memories"))
    assert (status, code) == (400, "invalid_input") and message.startswith("family ids are lower case")


def test_an_unknown_memory_is_404(rt: Runtime, family: dict[str, str]) -> None:
    missing = new_ulid()
    assert error_of(call(rt, "GET", f"/families/{FAMILY}/memories/{missing}")) == (
        404,
        "not_found",
        f"memory {missing} does not exist in family {FAMILY}",
    )


def test_an_oversize_body_is_413(rt: Runtime) -> None:
    big = b'{"message": "' + b"x" * MAX_BODY_BYTES + b'"}'
    for base64_body in (False, True):
        response = call(rt, "POST", f"/families/{FAMILY}/sessions", raw_body=big, base64_body=base64_body)
        status, code, message = error_of(response)
        assert (status, code) == (413, "payload_too_large")
        assert message == f"body: {len(big):,} bytes; the most this API takes is {MAX_BODY_BYTES:,}"


def test_a_busy_family_is_503_with_retry_after(tmp_path: Path) -> None:
    rt = local_runtime(
        tmp_path / "home", FixedClock(FRIDAY_MORNING + timedelta(hours=1)), embedder="hashed", lease_wait_seconds=0
    )
    assert end_session(rt)["statusCode"] == 201
    (row, *_) = rt.catalog.all_rows(FAMILY)
    lease = rt.catalog.acquire_lease(FAMILY, "another-writer", timedelta(seconds=30))
    assert lease is not None
    response = call(rt, "POST", f"/families/{FAMILY}/memories/{row.id}/forget", {"member_id": "lucia"})
    status, code, message = error_of(response)
    assert (status, code) == (503, "family_busy")
    assert message == "another change to this family is in progress; retry in a few seconds"
    assert "another-writer" not in response["body"]  # the lease holder (host:pid:uuid in production) is logged only
    assert response["headers"]["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert rt.catalog.get_rows(FAMILY, [row.id])[row.id].status.value == "active"


# --- a committed write answers success whatever its delivery does -------------------------

TEA = {"member_id": "lucia", "type": "preference", "about": "tea", "summary": "Lucía drinks green tea."}


def test_an_add_whose_indexing_fails_is_201_and_indexed_at_the_next_drain(
    rt: Runtime, family: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert rt.retrieval is not None
    index = rt.retrieval.indexer.index
    real_upsert = index.upsert
    down = [True]

    def flaky_upsert(*args: Any, **kwargs: Any) -> None:
        if down[0]:
            raise IndexUnavailableError("connection refused by search-node-7.internal:9200")
        real_upsert(*args, **kwargs)

    monkeypatch.setattr(index, "upsert", flaky_upsert)
    added = call(rt, "POST", f"/families/{FAMILY}/memories", TEA)
    assert added["statusCode"] == 201
    memory_id = payload(added)["memory"]["id"]
    assert rt.bus is not None and rt.bus.pending == 2  # the file's and its evidence sidecar's index events were kept
    assert memory_id not in index.revisions(FAMILY)
    down[0] = False  # the index is back
    rt.drain()
    assert rt.bus.pending == 0 and memory_id in index.revisions(FAMILY)
    items = payload(call(rt, "POST", f"/families/{FAMILY}/context", {"message": "green tea?"}))["items"]
    assert memory_id in [item["memory_id"] for item in items]


def test_a_lease_taken_between_commit_and_delivery_still_answers_201(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt = local_runtime(
        tmp_path / "home", FixedClock(FRIDAY_MORNING + timedelta(hours=1)), embedder="hashed", lease_wait_seconds=0
    )
    assert end_session(rt)["statusCode"] == 201
    real_add = operations.add_memory
    leases = []

    def add_then_another_writer_comes(*args: Any, **kwargs: Any) -> Any:
        added = real_add(*args, **kwargs)
        leases.append(rt.catalog.acquire_lease(FAMILY, "another-writer", timedelta(seconds=30)))
        return added

    monkeypatch.setattr(operations, "add_memory", add_then_another_writer_comes)
    added = call(rt, "POST", f"/families/{FAMILY}/memories", TEA)
    assert added["statusCode"] == 201 and leases[0] is not None
    memory_id = payload(added)["memory"]["id"]
    assert rt.catalog.get_rows(FAMILY, [memory_id])[memory_id].status.value == "active"
    assert rt.bus is not None and rt.bus.pending > 0  # what could not run under the other lease waits
    rt.catalog.release_lease(leases[0])
    rt.drain()
    assert rt.bus.pending == 0


def test_every_write_route_answers_success_when_delivery_after_its_commit_fails(
    rt: Runtime, family: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    def broken_pump() -> int:
        raise RuntimeError("the dream queue is stuck")

    rt.pumps.append(broken_pump)
    base = f"/families/{FAMILY}"
    added = call(rt, "POST", f"{base}/memories", TEA)
    assert added["statusCode"] == 201
    new = payload(added)["memory"]["id"]
    edited = call(rt, "PATCH", f"{base}/memories/{new}", {"member_id": "lucia", "summary": "Mint tea."})
    assert edited["statusCode"] == 200
    assert call(rt, "POST", f"{base}/memories/{family['thai']}/forget", {"member_id": "lucia"})["statusCode"] == 200
    group = {"member_id": "lucia", "topic": "red-eyes", "confirm": True, "expected_count": 1}
    assert call(rt, "POST", f"{base}/forget-group", group)["statusCode"] == 200
    ended = end_session(rt, session_id="sess-2")
    assert ended["statusCode"] == 201
    # The bus still delivered (the new memories are indexed); the stuck queue is logged each time.
    assert payload(ended)["formation"] == "done"
    assert rt.bus is not None and rt.bus.pending == 0
    stuck = [r for r in caplog.records if "a local queue failed to deliver" in r.getMessage()]
    assert len(stuck) >= 5 and all("the dream queue is stuck" in str(r.exc_info) for r in stuck)


def test_search_unavailable_says_so_without_the_engines_error_text(
    rt: Runtime, family: dict[str, str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assert rt.retrieval is not None

    def down(*_: Any, **__: Any) -> Any:
        raise IndexUnavailableError("ConnectionError(<urllib3.connection.HTTPSConnection> search-7.internal:443)")

    for method in ("keyword", "semantic"):
        monkeypatch.setattr(rt.retrieval.index, method, down)
    with caplog.at_level("WARNING"):
        response = call(rt, "POST", f"/families/{FAMILY}/context", {"message": "Thai food?"})
        tool = call(rt, "POST", f"/families/{FAMILY}/tools/search_memory", {"query": "Thai food"})
    assert error_of(response) == (503, "search_unavailable", "search is unavailable right now; try again shortly")
    assert payload(tool) == {
        "tool": "search_memory",
        "status": "error",
        "text": "search is unavailable right now; try again shortly",
    }
    assert "search-7.internal" not in response["body"] + tool["body"]
    assert sum("search-7.internal" in str(r.__dict__) for r in caplog.records) == 2  # the operator still sees it
    # The model's own tool calls (ReadTools.run, outside the API) get the same public text.
    direct = rt.retrieval.tools(FAMILY).run("search_memory", {"query": "Thai food"})
    assert (direct.status, direct.text) == ("error", "search is unavailable right now; try again shortly")


def test_an_unexpected_error_is_500_without_internals(rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("database password is hunter2")

    monkeypatch.setattr("family_memory.app.routes.card.list_memories", broken)
    response = call(rt, "GET", f"/families/{FAMILY}/memories")
    status, code, message = error_of(response)
    assert (status, code, message) == (500, "internal_error", "the request failed")
    assert "hunter2" not in response["body"]


def test_an_unknown_route_is_404(rt: Runtime) -> None:
    assert error_of(call(rt, "GET", "/nowhere")) == (404, "no_route", "no route for GET /nowhere")
    # A body is looked at only by a route that takes one: no route is still 404, body or none.
    assert error_of(call(rt, "POST", "/nowhere")) == (404, "no_route", "no route for POST /nowhere")
    assert error_of(call(rt, "PUT", "/families/x/y", raw_body=b"[")) == (
        404,
        "no_route",
        "no route for PUT /families/x/y",
    )


# --- replaying a request changes nothing (DESIGN invariant 4) ------------------------------


def test_an_add_retried_with_its_id_adds_one_memory(rt: Runtime, family: dict[str, str]) -> None:
    memory_id = new_ulid()
    body = {"id": memory_id, "member_id": "lucia", "type": "preference", "about": "tea", "summary": "Green tea."}
    first, again = (call(rt, "POST", f"/families/{FAMILY}/memories", body) for _ in range(2))
    assert first["statusCode"] == again["statusCode"] == 201
    assert payload(first)["memory"]["id"] == payload(again)["memory"]["id"] == memory_id
    rows = payload(call(rt, "GET", f"/families/{FAMILY}/memories"))["memories"]
    assert [r["id"] for r in rows].count(memory_id) == 1 and len(rows) == 3
    other = call(rt, "POST", f"/families/{FAMILY}/memories", {**body, "summary": "Black coffee."})
    status, code, message = error_of(other)
    assert (status, code) == (409, "conflict") and "a new memory needs a new id" in message


def test_an_add_retried_after_its_valid_until_passed_returns_the_memory(rt: Runtime, family: dict[str, str]) -> None:
    memory_id = new_ulid()
    body = {"id": memory_id, **TEA, "valid_until": "2026-11-30"}
    assert call(rt, "POST", f"/families/{FAMILY}/memories", body)["statusCode"] == 201
    rt.clock.advance(timedelta(days=5))  # type: ignore[attr-defined]
    again = call(rt, "POST", f"/families/{FAMILY}/memories", body)
    assert again["statusCode"] == 201 and payload(again)["memory"]["id"] == memory_id
    fresh = call(rt, "POST", f"/families/{FAMILY}/memories", {**body, "id": new_ulid()})
    assert error_of(fresh)[:2] == (400, "invalid_input") and "valid_until" in error_of(fresh)[2]


@pytest.mark.parametrize(
    ("changed", "named"),
    [
        ({"body": "Lucía drinks green tea every morning."}, "body"),
        ({"when_to_use": "when ordering drinks"}, "when_to_use"),
        ({"applies_to": ["Lucía"]}, "applies_to"),
        ({"strength": "hard"}, "strength"),
        ({"pin": True}, "pin"),
        ({"valid_until": "2027-01-01"}, "valid_until"),
        ({"sensitivity": "health"}, "sensitivity"),
        ({"body": "Other.", "strength": "hard"}, "body, strength"),
    ],
)
def test_an_add_retried_with_its_id_but_other_fields_is_a_conflict_naming_them(
    rt: Runtime, family: dict[str, str], changed: dict[str, Any], named: str
) -> None:
    memory_id = new_ulid()
    assert call(rt, "POST", f"/families/{FAMILY}/memories", {"id": memory_id, **TEA})["statusCode"] == 201
    status, code, message = error_of(
        call(rt, "POST", f"/families/{FAMILY}/memories", {"id": memory_id, **TEA, **changed})
    )
    assert (status, code) == (409, "conflict")
    assert message == (
        f"memory id {memory_id} was added with other values for {named}; "
        "a retry must repeat the request as it was, and a change is an edit"
    )
    assert call(rt, "POST", f"/families/{FAMILY}/memories", {"id": memory_id, **TEA})["statusCode"] == 201


def test_an_add_retried_with_the_same_names_and_derived_fields_is_the_same_add(
    rt: Runtime, family: dict[str, str]
) -> None:
    memory_id = new_ulid()
    body = {"id": memory_id, **TEA, "applies_to": ["Lucía", "Abuela Rosa"], "durability": "passing"}
    first = payload(call(rt, "POST", f"/families/{FAMILY}/memories", body))["memory"]
    again = call(rt, "POST", f"/families/{FAMILY}/memories", body)
    assert again["statusCode"] == 201 and payload(again)["memory"] == first


def test_a_memory_is_unpinned_with_pin_false(rt: Runtime, family: dict[str, str]) -> None:
    pinned = payload(call(rt, "POST", f"/families/{FAMILY}/memories", {**TEA, "pin": True}))["memory"]
    assert pinned["pin"] is True
    edited = call(rt, "PATCH", f"/families/{FAMILY}/memories/{pinned['id']}", {"member_id": "lucia", "pin": False})
    assert edited["statusCode"] == 200
    new = payload(edited)["memory"]
    assert new["pin"] is False and new["supersedes"] == pinned["id"] and new["summary"] == pinned["summary"]
    nothing = call(rt, "PATCH", f"/families/{FAMILY}/memories/{new['id']}", {"member_id": "lucia"})
    assert error_of(nothing)[:2] == (400, "invalid_input") and "at least one field" in error_of(nothing)[2]
    only_false = {"member_id": "lucia", "clear_valid_until": False}
    refused = call(rt, "PATCH", f"/families/{FAMILY}/memories/{new['id']}", only_false)
    assert "at least one field" in error_of(refused)[2]


def test_an_edit_or_a_group_forget_retried_changes_nothing(rt: Runtime, family: dict[str, str]) -> None:
    edit = {"member_id": "lucia", "summary": "We love Thai and Lao food."}
    assert call(rt, "PATCH", f"/families/{FAMILY}/memories/{family['thai']}", edit)["statusCode"] == 200
    status, code, _ = error_of(call(rt, "PATCH", f"/families/{FAMILY}/memories/{family['thai']}", edit))
    assert (status, code) == (409, "conflict")
    group = {"member_id": "lucia", "topic": "red-eyes", "confirm": True, "expected_count": 1}
    assert call(rt, "POST", f"/families/{FAMILY}/forget-group", group)["statusCode"] == 200
    assert error_of(call(rt, "POST", f"/families/{FAMILY}/forget-group", group))[:2] == (409, "conflict")
    statuses = sorted(r["status"] for r in payload(call(rt, "GET", f"/families/{FAMILY}/memories"))["memories"])
    assert statuses == ["active", "retracted", "superseded"]


def test_public_message_hides_the_text_of_errors_that_carry_internals() -> None:
    from family_memory.domain.errors import LeaseHeldError, NotFoundError, public_message
    from family_memory.retrieval.embedding import EmbeddingUnavailableError

    assert public_message(LeaseHeldError("held by host-3:4121:9f2c")) == (
        "another change to this family is in progress; retry in a few seconds"
    )
    assert public_message(EmbeddingUnavailableError("bedrock-runtime.us-east-1 timed out")) == (
        "search is unavailable right now; try again shortly"
    )
    assert public_message(NotFoundError("memory 01X does not exist")) == "memory 01X does not exist"


def test_a_paired_surrogate_escape_is_text_and_a_lone_one_is_refused(rt: Runtime, family: dict[str, str]) -> None:
    paired = b'{"message": "tea \\ud83c\\udf75 please"}'  # an emoji, escaped as JSON allows
    assert call(rt, "POST", f"/families/{FAMILY}/context", raw_body=paired)["statusCode"] == 200
    lone = b'{"message": "tea \\uD800 please"}'
    status, code, message = error_of(call(rt, "POST", f"/families/{FAMILY}/context", raw_body=lone))
    assert (status, code) == (400, "invalid_input") and "unpaired surrogate" in message


# --- the conditional brief fetch ------------------------------------------------------------


def test_the_brief_is_a_conditional_fetch_whose_tag_changes_at_once_on_a_forget(
    rt: Runtime, family: dict[str, str]
) -> None:
    path = f"/families/{FAMILY}/brief"
    first = call(rt, "GET", path)
    assert first["statusCode"] == 200
    tag = first["headers"]["ETag"]
    assert tag.startswith('"') and tag.endswith('"') and len(tag) == 34 and not tag.startswith('W/"')
    assert first["headers"]["Cache-Control"] == "private, no-cache"
    assert tag == entity_tag(first["body"].encode("utf-8"))  # the hash of the exact bytes sent
    # The same brief again, and again under any If-None-Match form that names it: 304, no body.
    for given in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        again = call(rt, "GET", path, headers={"If-None-Match": given})
        assert again["statusCode"] == 304 and again["body"] == "", given
        assert again["headers"]["ETag"] == tag and again["headers"]["Cache-Control"] == "private, no-cache"
    assert call(rt, "GET", path, headers={"If-None-Match": '"stale"'})["statusCode"] == 200
    # Per surface: the household brief is another body with another tag.
    household = call(rt, "GET", path, query={"surface": "household"}, headers={"If-None-Match": tag})
    assert household["statusCode"] == 200 and household["headers"]["ETag"] != tag
    # A forget patches the brief at once: the old tag no longer matches, the new body lacks the line.
    forget = call(rt, "POST", f"/families/{FAMILY}/memories/{family['thai']}/forget", {"member_id": "lucia"})
    assert forget["statusCode"] == 200
    after = call(rt, "GET", path, headers={"If-None-Match": tag})
    assert after["statusCode"] == 200 and after["headers"]["ETag"] != tag
    assert "Thai" in payload(first)["prompt"] and "Thai" not in payload(after)["prompt"]
    # An edit does the same.
    edit = {"member_id": "lucia", "summary": "Never book overnight flights."}
    assert call(rt, "PATCH", f"/families/{FAMILY}/memories/{family['red_eye']}", edit)["statusCode"] == 200
    edited = call(rt, "GET", path, headers={"If-None-Match": after["headers"]["ETag"]})
    assert edited["statusCode"] == 200 and "overnight flights" in payload(edited)["prompt"]


# --- strict inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("confirm", ["yes", "on", "1", "true", 1, 1.0, [True], {"x": True}])
def test_only_json_true_confirms_a_group_forget(rt: Runtime, family: dict[str, str], confirm: Any) -> None:
    body = {"member_id": "lucia", "topic": "Thai", "confirm": confirm, "expected_count": 1}
    status, code, message = error_of(call(rt, "POST", f"/families/{FAMILY}/forget-group", body))
    assert (status, code) == (400, "invalid_input") and message == "body: confirm: Input should be a valid boolean"
    row = rt.catalog.get_rows(FAMILY, [family["thai"]])[family["thai"]]
    assert row.status.value == "active"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        (
            "/forget-group",
            {"member_id": "lucia", "topic": "Thai", "confirm": True, "expected_count": True},
            "expected_count",
        ),
        (
            "/forget-group",
            {"member_id": "lucia", "topic": "Thai", "confirm": True, "expected_count": "1"},
            "expected_count",
        ),
        (
            "/forget-group",
            {"member_id": "lucia", "topic": "Thai", "confirm": True, "expected_count": 1.5},
            "expected_count",
        ),
        ("/context", {"message": "Thai?", "max_items": True}, "max_items"),
        ("/context", {"message": "Thai?", "max_tokens": "100"}, "max_tokens"),
        ("/tools/search_memory", {"query": "Thai", "limit": True}, None),
    ],
)
def test_numbers_are_json_integers_only(
    rt: Runtime, family: dict[str, str], path: str, body: Any, field: str | None
) -> None:
    response = call(rt, "POST", f"/families/{FAMILY}{path}", body)
    if field is None:  # a tool's input is the tool's: its refusal is a result for the model
        assert payload(response)["status"] == "error" and "limit" in payload(response)["text"]
        return
    status, code, message = error_of(response)
    assert (status, code) == (400, "invalid_input") and message == f"body: {field}: Input should be a valid integer"


@pytest.mark.parametrize(
    ("method", "suffix", "body", "expected"),
    [
        (
            "POST",
            "",
            {**{"member_id": "lucia", "type": "fact", "about": "x", "summary": "y."}, "pin": "yes"},
            "body: pin: Input should be a valid boolean",
        ),
        (
            "POST",
            "",
            {**{"member_id": "lucia", "type": "fact", "about": "x", "summary": "y."}, "pin": 1},
            "body: pin: Input should be a valid boolean",
        ),
        (
            "POST",
            "",
            {**{"member_id": "lucia", "type": "fact", "about": "x", "summary": "y."}, "valid_until": 1798761600},
            "body: valid_until: a date is written YYYY-MM-DD, not as a number",
        ),
        ("PATCH", "/{thai}", {"member_id": "lucia", "pin": "false"}, "body: pin: Input should be a valid boolean"),
        (
            "PATCH",
            "/{thai}",
            {"member_id": "lucia", "clear_valid_until": "on"},
            "body: clear_valid_until: Input should be a valid boolean",
        ),
        ("POST", "/{thai}/forget", {"member_id": 7}, "body: member_id: Input should be a valid string"),
    ],
)
def test_card_booleans_and_dates_are_strict(
    rt: Runtime, family: dict[str, str], method: str, suffix: str, body: Any, expected: str
) -> None:
    response = call(rt, method, f"/families/{FAMILY}/memories{suffix.format(**family)}", body)
    assert error_of(response) == (400, "invalid_input", expected)
    assert len(list(rt.catalog.all_rows(FAMILY))) == 2  # nothing was written


def test_a_confirmed_forget_of_an_empty_group_answers_the_same_rule_when_retried(
    rt: Runtime, family: dict[str, str]
) -> None:
    body = {"member_id": "lucia", "topic": "sushi", "confirm": True, "expected_count": 0}
    first = payload(call(rt, "POST", f"/families/{FAMILY}/forget-group", body))
    again = payload(call(rt, "POST", f"/families/{FAMILY}/forget-group", body))
    assert first["count"] == again["count"] == 0 and first["forgotten"] == again["forgotten"] == []
    assert first["already_forgotten"] is False and again["already_forgotten"] is True
    assert len(first["suppression_rules"]) == 1 and again["suppression_rules"] == first["suppression_rules"]
    assert [p for p in rt.store.list(FAMILY, "suppressions")] == [f"suppressions/{first['suppression_rules'][0]}.json"]


@pytest.mark.parametrize("family_id", ["con", "nul", "com1", "lpt9", "aux", "prn"])
def test_a_windows_device_name_is_not_a_family(rt: Runtime, family_id: str) -> None:
    status, code, message = error_of(call(rt, "GET", f"/families/{family_id}/memories"))
    assert (status, code) == (400, "invalid_input") and "a name Windows reserves for a device" in message
    data = session_json(TURNS, family_id=family_id)
    assert error_of(call(rt, "POST", f"/families/{family_id}/sessions", raw_body=data))[:2] == (400, "invalid_input")
    assert list(rt.store.families()) == []


def test_a_session_id_that_is_a_device_name_is_refused(rt: Runtime) -> None:
    status, code, message = error_of(end_session(rt, session_id="CON"))
    assert (status, code) == (400, "invalid_input") and "session id 'CON' is not allowed" in message


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", f"/families/{FAMILY}/memories", "GET, POST"),
        ("DELETE", f"/families/{FAMILY}/memories/01M8EZ65M0W3HDWVDNSGP7ZJES", "GET, PATCH"),
        ("OPTIONS", f"/families/{FAMILY}/brief", "GET"),
        ("TRACE", "/tool-specs", "GET"),
        ("GET", f"/families/{FAMILY}/sessions", "POST"),
    ],
)
def test_another_method_on_a_known_path_is_405_naming_the_allowed_ones(
    rt: Runtime, method: str, path: str, allow: str
) -> None:
    response = call(rt, method, path)
    status, code, message = error_of(response)
    assert (status, code) == (405, "method_not_allowed") and response["headers"]["Allow"] == allow
    assert message == f"{method} is not allowed on {path}; use {' or '.join(allow.split(', '))}"


def test_a_body_of_another_media_type_is_415(rt: Runtime) -> None:
    for content_type in ("application/x-www-form-urlencoded", "text/plain"):
        response = call(
            rt, "POST", f"/families/{FAMILY}/context", {"message": "hi"}, headers={"content-type": content_type}
        )
        assert error_of(response)[:2] == (415, "unsupported_media_type"), content_type
    for content_type in ("application/json; charset=utf-8", "Application/JSON"):
        response = call(
            rt, "POST", f"/families/{FAMILY}/context", {"message": "hi"}, headers={"content-type": content_type}
        )
        assert response["statusCode"] == 200, content_type


# --- supplied candidates on the session route -------------------------------------------------


def test_candidates_supplied_with_a_session_go_through_the_same_validation(rt: Runtime) -> None:
    transcript = json.loads(session_json([("user", "lucia", "We love Thai food.")]))
    bad = candidate(evidence=[{"turns": [4], "quote": "x"}])
    for shape in ([candidate(), bad], {"producer": "batch", "candidates": [candidate(), bad], "summary": "ignored"}):
        rt_family = f"fam-{'list' if isinstance(shape, list) else 'object'}"
        body = {"transcript": {**transcript, "family_id": rt_family}, "candidates": shape}
        response = call(rt, "POST", f"/families/{rt_family}/sessions", body)
        assert response["statusCode"] == 201, response["body"]
        answer = payload(response)
        producer = "batch" if isinstance(shape, dict) else "supplied"
        assert answer["candidates"]["extractor"] == f"candidates supplied by the caller ({producer})"
        assert answer["candidates"]["accepted"] == [1] and [r["index"] for r in answer["candidates"]["rejected"]] == [2]
        reasons = answer["candidates"]["rejected"][0]["reasons"]
        assert {"rule": "turns_exist", "message": "evidence 1 cites turn 4, but the session has 1 turns"} in reasons
        assert [o["kind"] for o in answer["candidates"]["outcomes"]] == ["added"]
        # The transcript is stored (as JSON of the member sent); a retry with the same candidates changes nothing.
        stored = json.loads(rt.store.read(rt_family, "sessions/sess-1.json").data)
        assert stored == body["transcript"]
        again = call(rt, "POST", f"/families/{rt_family}/sessions", body)
        assert again["statusCode"] == 200 and payload(again)["stored"] is False
        # Other candidates for that session are refused: they are supplied once, with the session.
        other = {**body, "candidates": [candidate(summary="The family loves Lao food.")]}
        assert error_of(call(rt, "POST", f"/families/{rt_family}/sessions", other))[:2] == (409, "conflict")


def test_supplied_candidates_are_refused_whole_when_too_many_or_malformed(rt: Runtime) -> None:
    transcript = json.loads(session_json([("user", "lucia", "We love Thai food.")]))
    too_many = {"transcript": transcript, "candidates": [candidate()] * 201}
    status, code, message = error_of(call(rt, "POST", f"/families/{FAMILY}/sessions", too_many))
    assert (status, code) == (400, "invalid_input") and "at most 200 items" in message
    for shape in ("all of them", 7, {"producer": "x"}):
        status, code, _ = error_of(
            call(rt, "POST", f"/families/{FAMILY}/sessions", {"transcript": transcript, "candidates": shape})
        )
        assert (status, code) == (400, "invalid_input"), shape
    unknown = {"transcript": transcript, "candidates": [], "note": "x"}
    assert error_of(call(rt, "POST", f"/families/{FAMILY}/sessions", unknown))[:2] == (400, "invalid_input")
    assert list(rt.store.families()) == []


def test_the_openapi_document_is_generated_from_the_routes() -> None:
    document = openapi_document()
    assert document["openapi"].startswith("3.1")
    operations = {(path, method) for path, ops in document["paths"].items() for method in ops}
    assert operations == {
        ("/families/{family_id}/brief", "get"),
        ("/families/{family_id}/context", "post"),
        ("/tool-specs", "get"),
        ("/families/{family_id}/tools/{name}", "post"),
        ("/families/{family_id}/memories", "get"),
        ("/families/{family_id}/memories", "post"),
        ("/families/{family_id}/memories/{memory_id}", "get"),
        ("/families/{family_id}/memories/{memory_id}", "patch"),
        ("/families/{family_id}/memories/{memory_id}/evidence", "get"),
        ("/families/{family_id}/memories/{memory_id}/lineage", "get"),
        ("/families/{family_id}/memories/{memory_id}/forget", "post"),
        ("/families/{family_id}/forget-group", "post"),
        ("/families/{family_id}/sessions", "post"),
    }
    for (path, method), operation in ((k, document["paths"][k[0]][k[1]]) for k in operations):
        error = operation["responses"]["500"]["content"]["application/json"]["schema"]
        assert error == {"$ref": "#/components/schemas/ErrorResponse"}, (path, method)
        if method in ("post", "patch"):
            assert operation["requestBody"]["required"] is True, (path, method)
    schemas = document["components"]["schemas"]
    assert "HTTPValidationError" not in schemas and "ErrorResponse" in schemas
    assert schemas["GroupRequest"]["properties"]["confirm"]["type"] == "boolean"
    assert schemas["GroupRequest"]["additionalProperties"] is False


def test_an_integral_number_is_an_integer_as_json_schema_says(rt: Runtime, family: dict[str, str]) -> None:
    assert call(rt, "POST", f"/families/{FAMILY}/context", {"message": "Thai?", "max_items": 3.0})["statusCode"] == 200
    group = {"member_id": "lucia", "topic": "Thai", "confirm": True, "expected_count": 1.0}
    assert payload(call(rt, "POST", f"/families/{FAMILY}/forget-group", group))["forgotten"] == [family["thai"]]
