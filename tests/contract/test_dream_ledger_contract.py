"""The dream ledger contract, on SQLite and on DynamoDB (moto)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from family_memory.domain.errors import InvalidInputError
from family_memory.ports.lifecycle import DreamLedger, DreamState

T0 = datetime(2026, 11, 17, 8, tzinfo=UTC)


@pytest.fixture(params=["local", "aws"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> DreamLedger:
    if request.param == "local":
        from family_memory.adapters.local.sqlite_dream_ledger import SQLiteDreamLedger

        return SQLiteDreamLedger(tmp_path / "dreams.sqlite3")
    from conftest import TEST_TABLE
    from family_memory.adapters.aws.dynamo_dream_ledger import DynamoDreamLedger

    return DynamoDreamLedger(request.getfixturevalue("aws").client("dynamodb"), TEST_TABLE)


def test_a_family_that_never_dreamed_is_unknown(ledger: DreamLedger) -> None:
    assert ledger.get("fam-rivera") is None
    assert list(ledger.states()) == []


def test_a_dream_is_recorded_and_never_moves_backwards(ledger: DreamLedger) -> None:
    ledger.record_dream("fam-rivera", time_zone="America/Los_Angeles", local_date=date(2026, 11, 17), next_dream_at=T0)
    later = datetime(2026, 11, 19, 8, tzinfo=UTC)
    ledger.record_dream(
        "fam-rivera", time_zone="America/Los_Angeles", local_date=date(2026, 11, 18), next_dream_at=later
    )
    ledger.record_dream("fam-rivera", time_zone="UTC", local_date=date(2026, 11, 16), next_dream_at=T0)
    assert ledger.get("fam-rivera") == DreamState(
        "fam-rivera", "America/Los_Angeles", date(2026, 11, 18), later, None, None
    )


def test_the_conversation_pointer_only_moves_to_a_later_session(ledger: DreamLedger) -> None:
    assert ledger.note_conversation("fam-rivera", "sess-b", T0)
    assert not ledger.note_conversation("fam-rivera", "sess-a", datetime(2026, 11, 16, tzinfo=UTC))
    assert not ledger.note_conversation("fam-rivera", "sess-a", T0)  # same start: the larger id wins
    assert ledger.note_conversation("fam-rivera", "sess-c", T0)
    state = ledger.get("fam-rivera")
    assert state is not None and (state.last_session_id, state.last_session_started_at) == ("sess-c", T0)
    assert state.last_dream_date is None  # noting a conversation is not a dream


def test_dreams_and_conversation_notes_do_not_overwrite_each_other(ledger: DreamLedger) -> None:
    ledger.note_conversation("fam-rivera", "sess-1", T0)
    ledger.record_dream("fam-rivera", time_zone="UTC", local_date=date(2026, 11, 17), next_dream_at=T0)
    ledger.note_conversation("fam-rivera", "sess-2", datetime(2026, 11, 18, tzinfo=UTC))
    state = ledger.get("fam-rivera")
    assert state is not None and state.last_dream_date == date(2026, 11, 17) and state.last_session_id == "sess-2"


def test_states_lists_every_family_in_id_order(ledger: DreamLedger) -> None:
    for family_id in ("fam-c", "fam-a", "fam-b"):
        ledger.record_dream(family_id, time_zone="UTC", local_date=date(2026, 11, 17), next_dream_at=T0)
    assert [s.family_id for s in ledger.states()] == ["fam-a", "fam-b", "fam-c"]


def test_ids_are_validated_before_they_become_keys(ledger: DreamLedger) -> None:
    with pytest.raises(InvalidInputError):
        ledger.get("../other")
    with pytest.raises(InvalidInputError):
        ledger.note_conversation("fam-rivera", "sess/../x", T0)
