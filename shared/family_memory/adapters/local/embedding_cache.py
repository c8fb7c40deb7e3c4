"""The embedding cache on disk: one SQLite file, vectors as float32 blobs.

It sits beside the index, not inside it, so dropping and rebuilding the index
keeps every vector already paid for.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping

from family_memory.adapters.local.sqlite_file import SQLiteBacked
from family_memory.domain.ids import check_family_id
from family_memory.retrieval.embedding import EmbeddingCache, Vector

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    family_id TEXT NOT NULL,
    hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (family_id, hash)
) WITHOUT ROWID;
"""


def pack(vector: Vector) -> bytes:
    return struct.pack(f"<{len(vector)}f", *vector)


def unpack(blob: bytes) -> Vector:
    return list(struct.unpack(f"<{len(blob) // 4}f", blob))


class SQLiteEmbeddingCache(SQLiteBacked, EmbeddingCache):
    SCHEMA = _SCHEMA

    def get_many(self, family_id: str, hashes: Iterable[str]) -> dict[str, Vector]:
        check_family_id(family_id)
        keys = sorted(set(hashes))
        found: dict[str, Vector] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT hash, vector FROM vectors WHERE family_id = ? AND hash IN ({marks})"  # noqa: S608 (placeholders only)
            for key, blob in self._db().execute(query, (family_id, *chunk)):
                found[key] = unpack(blob)
        return found

    def put_many(self, family_id: str, vectors: Mapping[str, Vector]) -> None:
        check_family_id(family_id)
        with self._transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO vectors (family_id, hash, vector) VALUES (?, ?, ?)",
                [(family_id, key, pack(vector)) for key, vector in vectors.items()],
            )
