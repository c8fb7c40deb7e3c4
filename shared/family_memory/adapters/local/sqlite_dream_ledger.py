"""The dream ledger in a SQLite file (local mode).

One row per family. Both updates are single upserts whose ``WHERE`` clause
keeps them monotonic (a dream never moves a family back to an earlier date,
the last-conversation pointer only moves to a later session), so concurrent
writers need no lease. Timestamps are stored as fixed-width UTC strings,
which sort in time order.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime

from family_memory.adapters.local.sqlite_file import SQLiteBacked
from family_memory.domain.clock import format_utc, parse_utc
from family_memory.domain.ids import check_family_id, check_session_id
from family_memory.ports.lifecycle import DreamLedger, DreamState

_SCHEMA = """
CREATE TABLE IF NOT EXISTS dream_state (
    family_id TEXT PRIMARY KEY,
    time_zone TEXT,
    last_dream_date TEXT,
    next_dream_at TEXT,
    last_session_id TEXT,
    last_session_started_at TEXT
) WITHOUT ROWID;
"""
_COLUMNS = "family_id, time_zone, last_dream_date, next_dream_at, last_session_id, last_session_started_at"


def _state(row: tuple[str, str | None, str | None, str | None, str | None, str | None]) -> DreamState:
    family_id, time_zone, last_date, next_at, session_id, session_at = row
    return DreamState(
        family_id=family_id,
        time_zone=time_zone,
        last_dream_date=date.fromisoformat(last_date) if last_date else None,
        next_dream_at=parse_utc(next_at) if next_at else None,
        last_session_id=session_id,
        last_session_started_at=parse_utc(session_at) if session_at else None,
    )


class SQLiteDreamLedger(SQLiteBacked, DreamLedger):
    SCHEMA = _SCHEMA

    def get(self, family_id: str) -> DreamState | None:
        row = (
            self._db()
            .execute(
                f"SELECT {_COLUMNS} FROM dream_state WHERE family_id = ?",  # noqa: S608 - constant column list
                (check_family_id(family_id),),
            )
            .fetchone()
        )
        return None if row is None else _state(row)

    def record_dream(self, family_id: str, *, time_zone: str, local_date: date, next_dream_at: datetime) -> None:
        self._db().execute(
            "INSERT INTO dream_state (family_id, time_zone, last_dream_date, next_dream_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (family_id) DO UPDATE SET time_zone = excluded.time_zone, "
            "last_dream_date = excluded.last_dream_date, next_dream_at = excluded.next_dream_at "
            "WHERE dream_state.last_dream_date IS NULL OR dream_state.last_dream_date <= excluded.last_dream_date",
            (check_family_id(family_id), time_zone, local_date.isoformat(), format_utc(next_dream_at)),
        )

    def note_conversation(self, family_id: str, session_id: str, started_at: datetime) -> bool:
        cursor = self._db().execute(
            "INSERT INTO dream_state (family_id, last_session_id, last_session_started_at) VALUES (?, ?, ?) "
            "ON CONFLICT (family_id) DO UPDATE SET last_session_id = excluded.last_session_id, "
            "last_session_started_at = excluded.last_session_started_at "
            "WHERE dream_state.last_session_started_at IS NULL "
            "OR (dream_state.last_session_started_at, dream_state.last_session_id) "
            "< (excluded.last_session_started_at, excluded.last_session_id)",
            (check_family_id(family_id), check_session_id(session_id), format_utc(started_at)),
        )
        return cursor.rowcount > 0

    def states(self) -> Iterator[DreamState]:
        rows = self._db().execute(f"SELECT {_COLUMNS} FROM dream_state ORDER BY family_id").fetchall()  # noqa: S608
        return iter([_state(row) for row in rows])
