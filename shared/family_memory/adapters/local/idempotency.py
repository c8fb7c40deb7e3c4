"""Powertools idempotency records in SQLite, for the local mode.

The same contract as Powertools' DynamoDB layer: a record is written only if
none exists, or the one there has expired, or it is an in-progress record
whose in-progress deadline has passed; otherwise the existing record is
raised back (``IdempotencyItemAlreadyExistsError``) so Powertools returns the
stored result instead of running the function again.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord

from family_memory.adapters.local.sqlite_file import SQLiteFile

_SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    expiration INTEGER,
    in_progress_expiration INTEGER,
    data TEXT NOT NULL DEFAULT '',
    validation TEXT NOT NULL DEFAULT ''
)
"""


class SQLiteIdempotencyStore(BasePersistenceLayer):
    def __init__(self, path: Path | str) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.file = SQLiteFile(path, _SCHEMA)
        self.path = self.file.path

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        yield self.file.connection()

    @staticmethod
    def _record(row: tuple[str, str, int | None, int | None, str, str]) -> DataRecord:
        return DataRecord(
            idempotency_key=row[0],
            status=row[1],
            expiry_timestamp=row[2],
            in_progress_expiry_timestamp=row[3],
            response_data=row[4],
            payload_hash=row[5],
        )

    def _get_record(self, idempotency_key: str) -> DataRecord:
        with self._connection() as db:
            row = db.execute(
                "SELECT id, status, expiration, in_progress_expiration, data, validation FROM idempotency WHERE id = ?",
                (idempotency_key,),
            ).fetchone()
        if row is None:
            raise IdempotencyItemNotFoundError
        return self._record(row)

    def _put_record(self, data_record: DataRecord) -> None:
        now = int(time.time())
        with self.file.transaction() as db:
            row = db.execute(
                "SELECT id, status, expiration, in_progress_expiration, data, validation FROM idempotency WHERE id = ?",
                (data_record.idempotency_key,),
            ).fetchone()
            if row is not None:
                expired = row[2] is not None and row[2] < now
                stale_progress = row[1] == "INPROGRESS" and row[3] is not None and row[3] < now * 1000
                if not (expired or stale_progress):
                    raise IdempotencyItemAlreadyExistsError(old_data_record=self._record(row))
            db.execute(
                "INSERT OR REPLACE INTO idempotency (id, status, expiration, in_progress_expiration, data, validation) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    data_record.idempotency_key,
                    data_record.status,
                    data_record.expiry_timestamp,
                    data_record.in_progress_expiry_timestamp,
                    data_record.response_data or "",
                    data_record.payload_hash or "",
                ),
            )

    def _update_record(self, data_record: DataRecord) -> None:
        with self._connection() as db:
            db.execute(
                "UPDATE idempotency SET status = ?, expiration = ?, data = ?, validation = ? WHERE id = ?",
                (
                    data_record.status,
                    data_record.expiry_timestamp,
                    data_record.response_data or "",
                    data_record.payload_hash or "",
                    data_record.idempotency_key,
                ),
            )

    def _delete_record(self, data_record: DataRecord) -> None:
        with self._connection() as db:
            db.execute("DELETE FROM idempotency WHERE id = ?", (data_record.idempotency_key,))
