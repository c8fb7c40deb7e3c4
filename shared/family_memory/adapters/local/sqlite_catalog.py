"""The catalog, lease and change ledger in one SQLite file.

Every write runs in a ``BEGIN IMMEDIATE`` transaction that first checks the
lease (holder and fencing token), so a writer whose lease was taken over is
refused exactly as the DynamoDB adapter refuses it. Each thread has its own
connection; WAL mode lets readers run beside the writer.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from family_memory.adapters.local.sqlite_file import SQLiteBacked
from family_memory.domain.clock import Clock, SystemClock
from family_memory.domain.errors import LeaseHeldError, LeaseLostError, StaleRevisionError
from family_memory.domain.ids import check_change_id, check_family_id, check_memory_id
from family_memory.domain.memory import Status
from family_memory.ports.catalog import Catalog, CatalogRow, Lease, PendingIntent, check_lease_family

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    family_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    status TEXT NOT NULL,
    sort_key TEXT NOT NULL,
    revision INTEGER NOT NULL,
    row_json TEXT NOT NULL,
    PRIMARY KEY (family_id, memory_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memories_newest ON memories (family_id, sort_key DESC);
CREATE INDEX IF NOT EXISTS memories_status ON memories (family_id, status, sort_key DESC);
CREATE TABLE IF NOT EXISTS leases (
    family_id TEXT PRIMARY KEY,
    holder TEXT,
    token INTEGER NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS intents (
    family_id TEXT NOT NULL,
    change_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (family_id, change_id)
);
CREATE TABLE IF NOT EXISTS applied (
    family_id TEXT NOT NULL,
    change_id TEXT NOT NULL,
    outcome TEXT NOT NULL,
    PRIMARY KEY (family_id, change_id)
);
"""


#: How many parsed rows ``get_rows`` keeps (by their stored JSON text; and per thread, by id
#: while the file is unchanged).
PARSED_ROWS_KEPT = 16384


class SQLiteCatalog(SQLiteBacked, Catalog):
    SCHEMA = _SCHEMA

    def __init__(self, path: Path | str, *, clock: Clock | None = None) -> None:
        super().__init__(path)
        self.clock = clock or SystemClock()
        #: Stored JSON text -> the row it parses to, so text parsed before is not parsed again.
        #: Keyed by the whole text: a row written since (any field, any revision) is new text.
        #: A row is frozen, a pure function of its text.
        self._parsed: dict[str, CatalogRow] = {}
        self._parsed_lock = threading.Lock()
        #: Per thread (each has its own connection): the rows ``get_rows`` read, by family and id
        #: (None: no such row), while the file is unchanged (SQLite's ``data_version``).
        self._read = threading.local()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        # SQLite's data_version does not move for this connection's own commits: forget what
        # this thread read, before and after its write.
        self._read.rows = None
        try:
            with self.file.transaction() as db:
                yield db
        finally:
            self._read.rows = None

    def _now(self) -> float:
        return self.clock.now().timestamp()

    @staticmethod
    def _check_fence(db: sqlite3.Connection, lease: Lease) -> None:
        row = db.execute("SELECT holder, token FROM leases WHERE family_id = ?", (lease.family_id,)).fetchone()
        if row is None or row[0] != lease.holder or row[1] != lease.token:
            raise LeaseLostError(f"the lease on family {lease.family_id} was taken over (token {lease.token} is stale)")

    # --- lease ----------------------------------------------------------------

    def acquire_lease(self, family_id: str, holder: str, ttl: timedelta) -> Lease:
        check_family_id(family_id)
        now = self._now()
        with self._transaction() as db:
            row = db.execute(
                "SELECT holder, token, expires_at FROM leases WHERE family_id = ?", (family_id,)
            ).fetchone()
            if row is not None and row[0] is not None and row[2] > now:
                expires = datetime.fromtimestamp(row[2], UTC)
                raise LeaseHeldError(f"family {family_id} is being written by {row[0]} until {expires.isoformat()}")
            token = (row[1] if row is not None else 0) + 1
            expires_at = now + ttl.total_seconds()
            db.execute(
                "INSERT INTO leases (family_id, holder, token, expires_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (family_id) DO UPDATE SET holder = excluded.holder, token = excluded.token, "
                "expires_at = excluded.expires_at",
                (family_id, holder, token, expires_at),
            )
        return Lease(family_id, holder, token, datetime.fromtimestamp(expires_at, UTC))

    def renew_lease(self, lease: Lease, ttl: timedelta) -> Lease:
        expires_at = self._now() + ttl.total_seconds()
        with self._transaction() as db:
            self._check_fence(db, lease)
            db.execute("UPDATE leases SET expires_at = ? WHERE family_id = ?", (expires_at, lease.family_id))
        return Lease(lease.family_id, lease.holder, lease.token, datetime.fromtimestamp(expires_at, UTC))

    def release_lease(self, lease: Lease) -> bool:
        with self._transaction() as db:
            cursor = db.execute(
                "UPDATE leases SET holder = NULL, expires_at = 0 WHERE family_id = ? AND holder = ? AND token = ?",
                (lease.family_id, lease.holder, lease.token),
            )
            return cursor.rowcount == 1

    # --- rows -----------------------------------------------------------------

    def put_rows(self, family_id: str, rows: Sequence[CatalogRow], *, lease: Lease, force: bool = False) -> None:
        check_lease_family(lease, family_id)
        with self._transaction() as db:
            self._check_fence(db, lease)
            for row in rows:
                stored = db.execute(
                    "SELECT revision FROM memories WHERE family_id = ? AND memory_id = ?", (family_id, row.id)
                ).fetchone()
                if stored is not None and stored[0] > row.revision and not force:
                    raise StaleRevisionError(
                        f"catalog holds revision {stored[0]} of memory {row.id}; "
                        f"refusing to write revision {row.revision}"
                    )
                db.execute(
                    "INSERT INTO memories (family_id, memory_id, status, sort_key, revision, row_json) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (family_id, memory_id) DO UPDATE SET "
                    "status = excluded.status, sort_key = excluded.sort_key, revision = excluded.revision, "
                    "row_json = excluded.row_json",
                    (family_id, row.id, row.status.value, row.sort_key, row.revision, row.model_dump_json()),
                )

    def delete_rows(self, family_id: str, memory_ids: Iterable[str], *, lease: Lease) -> None:
        check_lease_family(lease, family_id)
        ids = [check_memory_id(i) for i in memory_ids]
        with self._transaction() as db:
            self._check_fence(db, lease)
            db.executemany("DELETE FROM memories WHERE family_id = ? AND memory_id = ?", [(family_id, i) for i in ids])

    def get_rows(self, family_id: str, memory_ids: Iterable[str]) -> dict[str, CatalogRow]:
        """Strongly consistent: a row this thread read is answered again only while SQLite's
        ``data_version`` says no other connection has committed since it was read (and this
        thread's own writes forget what it read), so every write is seen by the next read."""
        check_family_id(family_id)
        wanted = list(memory_ids)
        db = self._db()
        # The version is read before the rows, so a row read is never older than its version.
        version = db.execute("PRAGMA data_version").fetchone()[0]
        families: dict[str, dict[str, CatalogRow | None]] | None = getattr(self._read, "rows", None)
        if families is None or self._read.version != version or self._read.count > PARSED_ROWS_KEPT:
            families = self._read.rows = {}
            self._read.version, self._read.count = version, 0
        read = families.setdefault(family_id, {})
        # An id this thread has read is one it validated then (``read`` holds validated ids only).
        ids = sorted({check_memory_id(i) for i in wanted if type(i) is not str or i not in read})
        if ids:
            found = self._select_rows(db, family_id, ids)
            read.update((memory_id, found.get(memory_id)) for memory_id in ids)
            self._read.count += len(ids)
        return {i: row for i in sorted(set(wanted)) if (row := read[i]) is not None}

    def _select_rows(self, db: sqlite3.Connection, family_id: str, ids: list[str]) -> dict[str, CatalogRow]:
        found: dict[str, CatalogRow] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for (row_json,) in db.execute(
                f"SELECT row_json FROM memories WHERE family_id = ? AND memory_id IN ({marks})",  # noqa: S608 (placeholders only)
                (family_id, *chunk),
            ):
                row = self._parse(row_json)
                found[row.id] = row
        return found

    def _parse(self, row_json: str) -> CatalogRow:
        row = self._parsed.get(row_json)
        if row is None:
            row = CatalogRow.model_validate_json(row_json)
            with self._parsed_lock:
                if len(self._parsed) >= PARSED_ROWS_KEPT:
                    del self._parsed[next(iter(self._parsed))]  # the oldest kept (a dict keeps insertion order)
                self._parsed[row_json] = row
        return row

    def _page(
        self, family_id: str, status: Status | None, limit: int, after: dict[str, str] | None
    ) -> tuple[list[CatalogRow], dict[str, str] | None]:
        clauses = ["family_id = ?"]
        params: list[object] = [family_id]
        if status is not None:
            clauses.append("status = ?")
            params.append(status.value)
        if after is not None and "k" in after:
            clauses.append("sort_key < ?")
            params.append(after["k"])
        query = f"SELECT row_json FROM memories WHERE {' AND '.join(clauses)} ORDER BY sort_key DESC LIMIT ?"  # noqa: S608
        params.append(limit + 1)
        rows = [CatalogRow.model_validate_json(r[0]) for r in self._db().execute(query, params)]
        if len(rows) > limit:
            return rows[:limit], {"k": rows[limit - 1].sort_key}
        return rows, None

    def _family_rows(self, query: str, family_id: str) -> list[tuple[str, ...]]:
        """Every row ``query`` selects with the family id (validated) as its one parameter."""
        rows: list[tuple[str, ...]] = self._db().execute(query, (check_family_id(family_id),)).fetchall()
        return rows

    def all_rows(self, family_id: str) -> Iterator[CatalogRow]:
        rows = self._family_rows("SELECT row_json FROM memories WHERE family_id = ? ORDER BY memory_id", family_id)
        return (CatalogRow.model_validate_json(r[0]) for r in rows)

    # --- change ledger --------------------------------------------------------

    def record_intent(self, family_id: str, change_id: str, payload: str, *, lease: Lease) -> None:
        check_lease_family(lease, family_id)
        check_change_id(change_id)
        with self._transaction() as db:
            self._check_fence(db, lease)
            db.execute(
                "INSERT OR IGNORE INTO intents (family_id, change_id, payload) VALUES (?, ?, ?)",
                (family_id, change_id, payload),
            )

    def pending_intents(self, family_id: str) -> list[PendingIntent]:
        query = "SELECT change_id, payload FROM intents WHERE family_id = ? ORDER BY change_id"
        return [PendingIntent(r[0], r[1]) for r in self._family_rows(query, family_id)]

    def settle(self, family_id: str, change_id: str, *, lease: Lease, outcome: str = "applied") -> None:
        check_lease_family(lease, family_id)
        check_change_id(change_id)
        with self._transaction() as db:
            self._check_fence(db, lease)
            db.execute("DELETE FROM intents WHERE family_id = ? AND change_id = ?", (family_id, change_id))
            db.execute(
                "INSERT OR REPLACE INTO applied (family_id, change_id, outcome) VALUES (?, ?, ?)",
                (family_id, change_id, outcome),
            )

    def is_applied(self, family_id: str, change_id: str) -> bool:
        row = (
            self._db()
            .execute(
                "SELECT 1 FROM applied WHERE family_id = ? AND change_id = ?",
                (check_family_id(family_id), check_change_id(change_id)),
            )
            .fetchone()
        )
        return row is not None
