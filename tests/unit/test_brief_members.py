"""The last conversation is the served member's own (DESIGN invariant 6; issue 11, section 4).

The compiled brief holds each member's own last conversation; a member's chat is
served theirs, never another member's private session; the household surface and a
request that names no member get none. Compiled, loaded, patched on a forget and
served by the API, on the local runtime with sessions formed the way the service
forms them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from api_helpers import api_event, payload
from family_memory.app.api import resolve_api_event
from family_memory.app.runtime import Runtime
from family_memory.app.sessions import end_session
from family_memory.brief.compile import LastConversation, compile_brief
from family_memory.brief.model import BriefLine, MemberConversation, parse_brief
from family_memory.brief.render import render_brief
from family_memory.card.operations import forget_memory
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import FamilySettings, Member, Surface
from family_memory.domain.layout import BRIEF
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.lifecycle.dream import dream_family
from formation_helpers import FAMILY, FRIDAY_MORNING, candidate, family, save_family, session_json
from retrieval_helpers import local_runtime

RIVERAS = FamilySettings(
    family_id=FAMILY,
    members=[Member(id="lucia", name="Lucía Rivera"), Member(id="marco", name="Marco Rivera")],
)
NOW = datetime(2026, 11, 20, tzinfo=UTC)


def lines(brief: Any, member_id: str | None, surface: Surface = Surface.CHAT) -> list[str]:
    return [line.text for line in brief.served(member_id, surface).last_conversation]


# --- compiled: one per member, each served only their own ------------------------------------


def test_each_member_is_served_their_own_last_conversation_never_anothers() -> None:
    marcos = LastConversation("s1", NOW, "Marco asked: never book red-eyes.", members=("marco",))
    # Lucía's private planning about Marco, the family's newest session.
    lucias = LastConversation(
        "s2", NOW + timedelta(hours=2), "Lucía planned: Marco's surprise party.", members=("lucia",)
    )
    brief = compile_brief([], RIVERAS, conversations=[lucias, marcos])
    assert lines(brief, "lucia") == [lucias.summary]
    assert lines(brief, "marco") == [marcos.summary]
    assert "surprise" not in render_brief(brief.served("marco"))
    for nobody in (None, "maya", "someone-else"):
        assert lines(brief, nobody) == []
    for member in ("lucia", "marco", None):
        assert lines(brief, member, Surface.HOUSEHOLD) == []
        assert "surprise" not in render_brief(brief.served(member, Surface.HOUSEHOLD), Surface.HOUSEHOLD)
    # The compiled brief itself renders no one's: what a prompt gets is always served.
    assert "Last conversation\n- (none)" in render_brief(brief)
    assert brief.conversations == {
        "lucia": MemberConversation(session_id="s2", lines=(BriefLine(text=lucias.summary),)),
        "marco": MemberConversation(session_id="s1", lines=(BriefLine(text=marcos.summary),)),
    }


def test_a_session_two_members_took_part_in_is_the_last_of_both() -> None:
    older = LastConversation("s1", NOW, "Marco asked: never book red-eyes.", members=("marco",))
    both = LastConversation("s2", NOW + timedelta(hours=1), "Lucía planned: pizza night.", members=("lucia", "marco"))
    brief = compile_brief([], RIVERAS, conversations=[older, both])
    assert lines(brief, "lucia") == lines(brief, "marco") == [both.summary]


def test_a_members_newest_session_is_their_last_even_when_it_has_nothing_to_say() -> None:
    said = LastConversation("s1", NOW, "Marco asked: never book red-eyes.", members=("marco",))
    quiet = LastConversation("s2", NOW + timedelta(hours=1), "", members=("marco",))
    brief = compile_brief([], RIVERAS, conversations=[said, quiet])
    assert lines(brief, "marco") == []  # never an older session passed off as the last one
    assert brief.conversations["marco"].session_id == "s2"


def test_a_brief_from_before_member_conversations_serves_no_last_conversation() -> None:
    # brief@1 held the family's newest session, whoever had it: nobody knows whose it was.
    old = b'{"type": "brief", "schema": "family-memory/brief@1", "family_id": "fam-rivera", "last_conversation": [{"text": "Planned the surprise."}]}'
    brief = parse_brief(old)
    for member in ("lucia", "marco", None):
        assert lines(brief, member) == []


# --- on the runtime: formed, loaded, patched, served by the API --------------------------------


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    runtime = local_runtime(tmp_path / "home", FixedClock(FRIDAY_MORNING + timedelta(hours=3)), embedder="hashed")
    save_family(runtime.store, family())
    return runtime


def session(rt: Runtime, session_id: str, member: str, text: str, hours: int, *claims: dict[str, Any]) -> None:
    data = session_json(
        [("user", member, text)], session_id=session_id, started_at=FRIDAY_MORNING + timedelta(hours=hours)
    )
    end_session(rt, data, supplied=SuppliedCandidates(list(claims)))


def brief_api(rt: Runtime, **query: str) -> dict[str, Any]:
    response = resolve_api_event(rt, api_event("GET", f"/families/{FAMILY}/brief", query=query or None))
    assert response["statusCode"] == 200, response
    return {"body": payload(response), "etag": response["headers"]["ETag"]}


RED_EYES = candidate(
    type="directive",
    about="Flight times",
    summary="Never book red-eye flights.",
    authority="user_explicit",
    evidence=[{"turns": [1], "quote": "Never book red-eye flights"}],
)
SURPRISE = candidate(
    about="Lucía's birthday",
    summary="The family is planning a surprise dinner for Lucía's birthday.",
    evidence=[{"turns": [1], "quote": "planning a surprise dinner for Lucía's birthday"}],
)
THAI = candidate(evidence=[{"turns": [1], "quote": "We love Thai food"}])


def formed(rt: Runtime) -> None:
    session(rt, "s-lucia", "lucia", "Never book red-eye flights. We love Thai food.", 0, RED_EYES, THAI)
    # Marco's private planning about Lucía is the family's newest session.
    session(rt, "s-marco", "marco", "We are planning a surprise dinner for Lucía's birthday.", 1, SURPRISE)


def test_the_agent_loads_the_asking_members_own_last_conversation(rt: Runtime) -> None:
    formed(rt)
    loader = rt.brief.loader
    lucia = loader.load(FAMILY, member_id="lucia")
    marco = loader.load(FAMILY, member_id="marco")
    assert lucia is not None and marco is not None
    assert [line.text for line in lucia.last_conversation] == [
        "Lucía asked: never book red-eye flights; mentioned: the family loves Thai food."
    ]
    assert [line.text for line in marco.last_conversation] == [
        "Marco mentioned: the family is planning a surprise dinner for Lucía's birthday."
    ]
    assert "surprise" not in loader.prompt(FAMILY, Surface.CHAT, member_id="lucia").brief
    assert loader.load(FAMILY).last_conversation == ()  # type: ignore[union-attr]
    assert "surprise" not in loader.prompt(FAMILY, Surface.HOUSEHOLD, member_id="marco").brief


def test_the_brief_route_takes_the_member_and_tags_each_members_brief_apart(rt: Runtime) -> None:
    formed(rt)
    lucia, marco, nobody = brief_api(rt, member_id="lucia"), brief_api(rt, member_id="marco"), brief_api(rt)
    assert "never book red-eye flights; mentioned" in lucia["body"]["prompt"]
    assert "surprise" not in lucia["body"]["prompt"] and "surprise" in marco["body"]["prompt"]
    assert "Last conversation\n- (none)" in nobody["body"]["prompt"]
    assert len({lucia["etag"], marco["etag"], nobody["etag"]}) == 3
    household = brief_api(rt, member_id="marco", surface="household")
    assert "surprise" not in household["body"]["prompt"] and "Last conversation" not in household["body"]["prompt"]
    bad = resolve_api_event(rt, api_event("GET", f"/families/{FAMILY}/brief", query={"member_id": "../x"}))
    assert bad["statusCode"] == 400


def test_a_forget_drops_the_line_that_repeats_it_at_once_and_only_that_members(rt: Runtime) -> None:
    formed(rt)
    thai = next(r for r in rt.catalog.all_rows(FAMILY) if "Thai" in r.summary)
    marco_before = rt.brief.loader.load(FAMILY, member_id="marco").last_conversation  # type: ignore[union-attr]
    forget_memory(rt.writer, FAMILY, thai.id, "lucia")  # patched at once, before any recompile
    loader = rt.brief.loader
    assert loader.load(FAMILY, member_id="lucia").last_conversation == ()  # type: ignore[union-attr]
    assert loader.load(FAMILY, member_id="marco").last_conversation == marco_before  # type: ignore[union-attr]
    assert marco_before
    patched = rt.store.read(FAMILY, BRIEF).data
    dream_family(rt.lifecycle.deps, FAMILY, now=rt.clock.now(), sweep=False)
    assert rt.store.read(FAMILY, BRIEF).data == patched  # what a recompile writes, byte for byte


def test_the_compiled_brief_is_byte_stable_across_compiles(rt: Runtime) -> None:
    formed(rt)
    first = rt.store.read(FAMILY, BRIEF).data
    dream_family(rt.lifecycle.deps, FAMILY, now=rt.clock.now(), sweep=False)
    assert rt.store.read(FAMILY, BRIEF).data == first
