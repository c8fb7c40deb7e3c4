"""Session-end intake: validated whole, stored once, family.json made on first sight."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Adapters
from family_memory.adapters.local.directory_store import DirectoryStore
from family_memory.domain.errors import ConflictError, InvalidInputError, PayloadTooLargeError
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.layout import FAMILY_SETTINGS, session_path
from family_memory.domain.okf import parse_json, serialise_json
from family_memory.formation.intake import receive_transcript
from formation_helpers import FAMILY, session_json

TURNS = [("user", "lucia", "We love Thai food."), ("assistant", None, "Noted!"), ("user", "marco", "Me too.")]


@pytest.fixture
def store(tmp_path: Path) -> DirectoryStore:
    return DirectoryStore(tmp_path / "bundle")


def raw(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(session_json(TURNS))
    data.update(changes)
    return data


def refuse(store: DirectoryStore, data: dict[str, Any] | bytes, match: str) -> None:
    payload = data if isinstance(data, bytes) else json.dumps(data).encode()
    with pytest.raises(InvalidInputError, match=match):
        receive_transcript(store, payload)
    assert list(store.list(FAMILY)) == [], "nothing is stored when a transcript is refused"


@pytest.mark.parametrize(
    ("turns", "match"),
    [
        ([{"n": 1, "role": "robot", "text": "hi"}], "role"),
        (
            [{"n": 1, "role": "user", "member_id": "lucia", "text": "a"}, {"n": 3, "role": "assistant", "text": "b"}],
            "missing",
        ),
        (
            [{"n": 1, "role": "user", "member_id": "lucia", "text": "a"}, {"n": 1, "role": "assistant", "text": "b"}],
            "repeated",
        ),
        ([{"n": 1, "role": "user", "text": "hi"}], "without a member_id"),
        ([{"n": 1, "role": "user", "member_id": "lucia", "text": "   "}], "text is empty"),
        ([{"n": 1, "role": "user", "member_id": "../etc", "text": "hi"}], "member id"),
    ],
)
def test_malformed_turns_are_refused_with_the_rule_named(
    store: DirectoryStore, turns: list[dict[str, Any]], match: str
) -> None:
    refuse(store, raw(turns=turns), match)


def test_bad_ids_and_time_zones_are_refused(store: DirectoryStore) -> None:
    refuse(store, raw(session_id="a/../b"), "session id")
    refuse(store, raw(family_id="fam rivera"), "family id")
    refuse(store, raw(time_zone="Mars/Olympus"), "time zone")


def test_too_many_turns_or_bytes_are_refused(store: DirectoryStore) -> None:
    many = [{"n": n, "role": "assistant", "text": "ok"} for n in range(1, 2002)]
    refuse(store, raw(turns=many), "2001 turns; the limit is 2000")
    long_turns = [{"n": n, "role": "user", "member_id": "lucia", "text": "x" * 19_000} for n in range(1, 61)]
    huge = raw(turns=long_turns)
    with pytest.raises(PayloadTooLargeError, match="the limit is 1000000"):
        receive_transcript(store, json.dumps(huge).encode())
    assert list(store.list(FAMILY)) == []


def test_a_session_is_stored_once_and_the_same_content_again_is_a_noop(adapters: Adapters) -> None:
    first = receive_transcript(adapters.store, session_json(TURNS))
    tag = adapters.store.read(FAMILY, session_path("sess-1")).tag
    # Same content, different formatting: still the same session.
    again = receive_transcript(adapters.store, json.dumps(json.loads(session_json(TURNS)), indent=4).encode())
    assert first.stored and not again.stored
    assert adapters.store.read(FAMILY, session_path("sess-1")).tag == tag


def test_the_same_id_with_different_content_is_a_conflict(adapters: Adapters) -> None:
    receive_transcript(adapters.store, session_json(TURNS))
    with pytest.raises(ConflictError, match="already stored with different content"):
        receive_transcript(adapters.store, session_json([("user", "lucia", "Something else.")]))


def test_a_new_family_gets_settings_from_the_transcript(store: DirectoryStore) -> None:
    result = receive_transcript(store, session_json(TURNS))
    settings = parse_json(FamilySettings, store.read(FAMILY, FAMILY_SETTINGS).data, "family.json")
    assert result.family_created
    assert settings.time_zone == "America/Los_Angeles"
    assert [m.id for m in settings.members] == ["lucia", "marco"]


def test_existing_family_settings_are_never_overwritten(store: DirectoryStore) -> None:
    mine = FamilySettings(family_id=FAMILY, time_zone="Europe/Madrid", members=[Member(id="ana", name="Ana")])
    store.put(FAMILY, FAMILY_SETTINGS, serialise_json(mine))
    result = receive_transcript(store, session_json(TURNS))
    assert not result.family_created
    assert parse_json(FamilySettings, store.read(FAMILY, FAMILY_SETTINGS).data, "family.json") == mine


def test_a_caller_naming_another_family_is_refused(store: DirectoryStore) -> None:
    with pytest.raises(InvalidInputError, match="family_id"):
        receive_transcript(store, session_json(TURNS), family_id="fam-okafor")
    assert list(store.list(FAMILY)) == []
