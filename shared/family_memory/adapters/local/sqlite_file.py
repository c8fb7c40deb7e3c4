"""One SQLite file shared by the threads of a process.

Each thread gets its own connection (SQLite connections are not shared across
threads), in autocommit mode with WAL and a generous busy timeout so readers
run beside a writer and writers queue instead of failing. ``transaction()``
is ``BEGIN IMMEDIATE`` ... ``COMMIT``: the write lock is taken up front, so a
read-then-write inside it is atomic across threads and processes.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar


class SQLiteFile:
    def __init__(self, path: Path | str, schema: str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self.connection().executescript(schema)

    def connection(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=30000")
            self._local.db = db
        return db

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        db = self.connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


class SQLiteBacked:
    """A port kept in one SQLite file: ``SCHEMA`` is created when it opens; ``_db()`` is
    this thread's connection and ``_transaction()`` a ``BEGIN IMMEDIATE`` one."""

    SCHEMA: ClassVar[str]

    def __init__(self, path: Path | str) -> None:
        self.file = SQLiteFile(path, self.SCHEMA)
        self.path = self.file.path

    def _db(self) -> sqlite3.Connection:
        return self.file.connection()

    def _transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return self.file.transaction()
