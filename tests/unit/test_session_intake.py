"""Session-end intake: validated whole, stored once, family.json made on first sight."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from conftest import Adapters
from family_memory.adapters.local.directory_store import DirectoryStore
from family_memory.card.operations import MemoryDraft, add_memory
from family_memory.domain.errors import ConflictError, InvalidInputError, PayloadTooLargeError
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.layout import FAMILY_SETTINGS, session_path
from family_memory.domain.memory import MemoryType
from family_memory.domain.okf import parse_json, serialise_json
from family_memory.families import add_member
from family_memory.formation.intake import receive_transcript
from family_memory.writes.protocol import FamilyWriter
from formation_helpers import FAMILY, FRIDAY_MORNING, session_json

#: The service's clock: an hour after the session started.
NOW = FRIDAY_MORNING + timedelta(hours=1)
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
        receive_transcript(store, payload, now=NOW)
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
    # Names ZoneInfo cannot even look up (OSError: a folder of the zone data, a name too long
    # for a file; found by the API fuzzing) are the same clear refusal, not a server error.
    refuse(store, raw(time_zone="America"), "time zone")
    refuse(store, raw(time_zone="Ṱo invoke the hive-mind " * 9), "time zone")


def test_too_many_turns_or_bytes_are_refused(store: DirectoryStore) -> None:
    many = [{"n": n, "role": "assistant", "text": "ok"} for n in range(1, 2002)]
    refuse(store, raw(turns=many), "2001 turns; the limit is 2000")
    long_turns = [{"n": n, "role": "user", "member_id": "lucia", "text": "x" * 19_000} for n in range(1, 61)]
    huge = raw(turns=long_turns)
    with pytest.raises(PayloadTooLargeError, match="the limit is 1000000"):
        receive_transcript(store, json.dumps(huge).encode(), now=NOW)
    assert list(store.list(FAMILY)) == []


def test_a_session_is_stored_once_and_the_same_content_again_is_a_noop(adapters: Adapters) -> None:
    first = receive_transcript(adapters.store, session_json(TURNS), now=NOW)
    tag = adapters.store.read(FAMILY, session_path("sess-1")).tag
    # Same content, different formatting: still the same session.
    again = receive_transcript(adapters.store, json.dumps(json.loads(session_json(TURNS)), indent=4).encode(), now=NOW)
    assert first.stored and not again.stored
    assert adapters.store.read(FAMILY, session_path("sess-1")).tag == tag


def test_the_same_id_with_different_content_is_a_conflict(adapters: Adapters) -> None:
    receive_transcript(adapters.store, session_json(TURNS), now=NOW)
    with pytest.raises(ConflictError, match="already stored with different content"):
        receive_transcript(adapters.store, session_json([("user", "lucia", "Something else.")]), now=NOW)


def test_a_new_family_gets_settings_from_the_transcript(store: DirectoryStore) -> None:
    result = receive_transcript(store, session_json(TURNS), now=NOW)
    settings = parse_json(FamilySettings, store.read(FAMILY, FAMILY_SETTINGS).data, "family.json")
    assert result.family_created
    assert settings.time_zone == "America/Los_Angeles"
    assert [m.id for m in settings.members] == ["lucia", "marco"]


def test_existing_family_settings_are_kept_and_only_gain_new_speakers(store: DirectoryStore) -> None:
    mine = FamilySettings(
        family_id=FAMILY,
        time_zone="Europe/Madrid",
        members=[Member(id="ana", name="Ana Ruiz", address_as="Anita"), Member(id="lucia", name="Lucía Rivera")],
    )
    store.put(FAMILY, FAMILY_SETTINGS, serialise_json(mine))
    result = receive_transcript(store, session_json(TURNS), now=NOW)
    assert not result.family_created
    settings = parse_json(FamilySettings, store.read(FAMILY, FAMILY_SETTINGS).data, "family.json")
    # The zone and every member stay as they were (Lucía keeps her name); Marco, new, is added.
    assert settings.time_zone == "Europe/Madrid"
    assert settings.members[:2] == mine.members
    assert [(m.id, m.name) for m in settings.members[2:]] == [("marco", "marco")]


def test_a_later_speaker_becomes_a_member_the_card_accepts(adapters: Adapters) -> None:
    receive_transcript(adapters.store, session_json([("user", "lucia", "We love Thai food.")]), now=NOW)
    later = session_json([("user", "ben", "Hi, Ben here.")], session_id="sess-2")
    receive_transcript(adapters.store, later, now=NOW)
    settings = parse_json(FamilySettings, adapters.store.read(FAMILY, FAMILY_SETTINGS).data, "family.json")
    assert [m.id for m in settings.members] == ["lucia", "ben"]
    writer = FamilyWriter(adapters.store, adapters.catalog, adapters.clock)
    draft = MemoryDraft(type=MemoryType.PREFERENCE, about="Tea", summary="Ben likes green tea.")
    assert add_memory(writer, FAMILY, "ben", draft).verified is not None  # "not a member" before the fix


def test_a_speaker_added_meanwhile_by_another_writer_is_kept(store: DirectoryStore) -> None:
    receive_transcript(store, session_json([("user", "lucia", "Hello.")]), now=NOW)
    original_replace = store.replace
    raced: list[bool] = []

    def replace_after_someone_else(family_id: str, path: str, data: bytes, *, expected_tag: str) -> str:
        if path == FAMILY_SETTINGS and not raced:
            raced.append(True)  # another writer adds a member between our read and our write
            add_member(store, FAMILY, "nora", "Nora")
        return original_replace(family_id, path, data, expected_tag=expected_tag)

    store.replace = replace_after_someone_else  # type: ignore[method-assign]
    receive_transcript(store, session_json([("user", "ben", "Hi.")], session_id="sess-2"), now=NOW)
    settings = parse_json(FamilySettings, store.read(FAMILY, FAMILY_SETTINGS).data, "family.json")
    assert [m.id for m in settings.members] == ["lucia", "nora", "ben"]


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"started_at": "2030-01-01T00:00:00Z"}, "started_at 2030-01-01T00:00:00Z is in the future"),
        (
            {"turns": [{"n": 1, "role": "user", "member_id": "lucia", "text": "Hi.", "at": "2030-01-01T00:00:00Z"}]},
            "turn 1: at 2030-01-01T00:00:00Z is in the future",
        ),
    ],
)
def test_a_session_dated_in_the_future_is_refused(store: DirectoryStore, changes: dict[str, Any], match: str) -> None:
    refuse(store, raw(**changes), match)


def test_a_session_a_few_minutes_ahead_is_clock_skew_and_accepted(store: DirectoryStore) -> None:
    skewed = session_json(TURNS, started_at=NOW + timedelta(minutes=9))
    assert receive_transcript(store, skewed, now=NOW).stored
    with pytest.raises(InvalidInputError, match="in the future"):
        receive_transcript(store, session_json(TURNS, session_id="s2", started_at=NOW + timedelta(minutes=11)), now=NOW)


def test_a_caller_naming_another_family_is_refused(store: DirectoryStore) -> None:
    with pytest.raises(InvalidInputError, match="family_id"):
        receive_transcript(store, session_json(TURNS), family_id="fam-okafor", now=NOW)
    assert list(store.list(FAMILY)) == []
