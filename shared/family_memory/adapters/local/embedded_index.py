"""The embedded hybrid index: one SQLite file per family on disk, searched in memory.

* Words: BM25F over the family's documents. Text is case-folded, stripped of
  diacritics and stop words and stemmed (Snowball English, as OpenSearch's
  ``english`` analyzer stems); each field counts with the OpenSearch boosts
  (about 3, summary 2, when_to_use and body 1) in one combined term frequency.
  Per-document term weights are stored with the document; the inverted lists
  are built in memory (numpy) when the family is first searched after a
  change, and a query adds up ``idf x weight`` per posting. Small misspellings
  are tolerated the way OpenSearch's ``fuzziness: AUTO`` tolerates them: a
  query word the family's vocabulary does not hold is expanded to the
  vocabulary words within 1 edit (3 to 5 letters) or 2 edits (6 or more),
  found with rapidfuzz.
* Meaning: an exact scan. A family's vectors are one float32 matrix in
  memory, filtered by the same rules as the words, and the top k taken with
  ``argpartition``. A family holds thousands of memories, not billions; exact
  search needs no tuning and never misses.

SQLite FTS5 was the first engine here; with ORDER BY bm25 over every match and
a join for the filters it needed 3.4 ms per query at 5,000 memories and 34 ms
at 50,000 (docs/retrieval.md), far over the budget, so the words moved into
the same in-memory snapshot as the vectors.

The family filter is structural: each family has its own file, chosen by the
adapter from the validated family id on every call, and every row also
carries the family id, which reads check.
"""

from __future__ import annotations

import functools
import json
import math
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import check_family_id, check_memory_id
from family_memory.domain.memory import MemoryType, Sensitivity, Status
from family_memory.retrieval.documents import IndexDocument
from family_memory.retrieval.embedding import Vector
from family_memory.retrieval.index import Hit, MemoryIndex, SearchFilter, check_documents, check_k
from family_memory.retrieval.query_words import STOPWORDS, query_words, words

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    rowid INTEGER PRIMARY KEY,
    memory_id TEXT NOT NULL UNIQUE,
    family_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    status TEXT NOT NULL,
    type TEXT NOT NULL,
    sensitivity TEXT NOT NULL,
    valid_until TEXT,
    applies_json TEXT NOT NULL,
    doc_json TEXT NOT NULL,
    terms_json TEXT NOT NULL,
    length REAL NOT NULL,
    vector BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS words (word TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (key, value) VALUES ('version', 0), ('dimension', 0);
"""

FIELD_BOOSTS = (("about", 3.0), ("summary", 2.0), ("when_to_use", 1.0), ("body", 1.0))  # the OpenSearch boosts
BM25_K1 = 1.2
BM25_B = 0.75
_STATUS = {status: code for code, status in enumerate(Status)}
_TYPE = {kind: code for code, kind in enumerate(MemoryType)}
_SENSITIVITY = {level: code for code, level in enumerate(Sensitivity)}
_NO_EXPIRY = 2**31 - 1


def edit_budget(word: str) -> int:
    """OpenSearch's ``fuzziness: AUTO``: 0 edits up to 2 letters, 1 up to 5, then 2."""
    return 0 if len(word) <= 2 else 1 if len(word) <= 5 else 2


@functools.cache
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def term_weights(document: IndexDocument) -> tuple[dict[str, float], float]:
    """The document's stemmed terms with boosted frequencies, and its boosted length."""
    weights: dict[str, float] = {}
    length = 0.0
    for field, boost in FIELD_BOOSTS:
        for word in words(getattr(document, field)):
            if word in STOPWORDS or len(word) < 2:
                continue
            term = stem(word)
            weights[term] = weights.get(term, 0.0) + boost
            length += boost
    return weights, length


@dataclass
class _Snapshot:
    """A family's documents in memory for the vector scan."""

    version: int
    ids: list[str]
    revisions: Any  # np.ndarray[int64]
    status: Any
    type: Any
    sensitivity: Any
    valid_until: Any  # ordinal, _NO_EXPIRY when none
    applies: list[frozenset[str]]
    matrix: Any  # (n, dim) float32
    vocabulary: list[str]
    vocabulary_set: frozenset[str]
    masks: OrderedDict[SearchFilter, Any]
    #: stem -> (positions int32, BM25 term-frequency parts float32)
    postings: dict[str, tuple[Any, Any]]

    def mask(self, search_filter: SearchFilter) -> Any:
        import numpy as np

        cached = self.masks.get(search_filter)
        if cached is not None:
            return cached
        mask = np.ones(len(self.ids), dtype=bool)
        if search_filter.statuses is not None:
            mask &= np.isin(self.status, [_STATUS[s] for s in search_filter.statuses])
        if search_filter.valid_on is not None:
            mask &= self.valid_until > search_filter.valid_on.toordinal()
        if search_filter.types is not None:
            mask &= np.isin(self.type, [_TYPE[t] for t in search_filter.types])
        if search_filter.sensitivities is not None:
            mask &= np.isin(self.sensitivity, [_SENSITIVITY[s] for s in search_filter.sensitivities])
        if search_filter.applies_to is not None:
            wanted = search_filter.applies_to
            mask &= np.fromiter((bool(wanted & a) for a in self.applies), dtype=bool, count=len(self.applies))
        self.masks[search_filter] = mask
        if len(self.masks) > 8:
            self.masks.popitem(last=False)
        return mask


class EmbeddedIndex(MemoryIndex):
    def __init__(self, root: Path | str, dimension: int, *, cached_families: int = 8) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.dimension = dimension
        self._local = threading.local()
        self._snapshots: OrderedDict[str, _Snapshot] = OrderedDict()
        self._snapshot_lock = threading.Lock()
        self._cached_families = cached_families

    # --- files and connections --------------------------------------------------

    def _path(self, family_id: str) -> Path:
        return self.root / f"{check_family_id(family_id)}.sqlite3"

    def _db(self, family_id: str, *, create: bool) -> sqlite3.Connection | None:
        connections: OrderedDict[str, sqlite3.Connection] | None = getattr(self._local, "connections", None)
        if connections is None:
            connections = self._local.connections = OrderedDict()
        db = connections.get(family_id)
        if db is not None:
            connections.move_to_end(family_id)
            return db
        path = self._path(family_id)
        if not path.exists() and not create:
            return None
        db = sqlite3.connect(str(path), timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=30000")
        db.executescript(_SCHEMA)
        stored = db.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()[0]
        if stored == 0:
            db.execute("UPDATE meta SET value = ? WHERE key = 'dimension'", (self.dimension,))
        elif stored != self.dimension:
            db.close()
            raise InvalidInputError(
                f"the index of family {family_id} holds {stored}-dimension vectors; this embedder makes "
                f"{self.dimension} (run rebuild-index after changing the embedder)"
            )
        connections[family_id] = db
        if len(connections) > 64:
            _, oldest = connections.popitem(last=False)
            oldest.close()
        return db

    @staticmethod
    def _version(db: sqlite3.Connection) -> int:
        return int(db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0])

    # --- writes -----------------------------------------------------------------

    def upsert(self, family_id: str, documents: Sequence[IndexDocument], *, force: bool = False) -> None:
        import numpy as np

        check_documents(family_id, documents, self.dimension)
        if not documents:
            return
        db = self._db(family_id, create=True)
        assert db is not None
        db.execute("BEGIN IMMEDIATE")
        try:
            changed = False
            for document in documents:
                stored = db.execute(
                    "SELECT rowid, revision FROM docs WHERE memory_id = ?", (document.memory_id,)
                ).fetchone()
                if stored is not None:
                    if stored[1] > document.revision and not force:
                        continue  # an older event arriving late: the index already holds newer
                    self._remove(db, stored[0])
                vector = np.asarray(document.embedding, dtype="<f4").tobytes()
                weights, length = term_weights(document)
                db.execute(
                    "INSERT INTO docs (memory_id, family_id, revision, status, type, sensitivity, valid_until, "
                    "applies_json, doc_json, terms_json, length, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        document.memory_id,
                        family_id,
                        document.revision,
                        document.status.value,
                        document.type.value,
                        document.sensitivity.value,
                        document.valid_until.isoformat() if document.valid_until else None,
                        json.dumps(sorted(document.applies_to)),
                        document.without_embedding().model_dump_json(),
                        json.dumps(weights, separators=(",", ":")),
                        length,
                        vector,
                    ),
                )
                db.executemany(
                    "INSERT INTO words (word, df) VALUES (?, 1) ON CONFLICT (word) DO UPDATE SET df = df + 1",
                    [(w,) for w in self._document_words(document)],
                )
                changed = True
            if changed:
                db.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @staticmethod
    def _document_words(document: IndexDocument) -> set[str]:
        text = " ".join((document.about, document.summary, document.when_to_use, document.body))
        return {w for w in words(text) if len(w) > 1 and w not in STOPWORDS}

    def _remove(self, db: sqlite3.Connection, rowid: int) -> None:
        (doc_json,) = db.execute("SELECT doc_json FROM docs WHERE rowid = ?", (rowid,)).fetchone()
        old = IndexDocument.model_validate_json(doc_json)
        db.executemany("UPDATE words SET df = df - 1 WHERE word = ?", [(w,) for w in self._document_words(old)])
        db.execute("DELETE FROM words WHERE df <= 0")
        db.execute("DELETE FROM docs WHERE rowid = ?", (rowid,))

    def delete(self, family_id: str, memory_ids: Iterable[str]) -> None:
        ids = [check_memory_id(i) for i in memory_ids]
        db = self._db(family_id, create=False)
        if db is None or not ids:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            removed = 0
            for memory_id in ids:
                row = db.execute("SELECT rowid FROM docs WHERE memory_id = ?", (memory_id,)).fetchone()
                if row is not None:
                    self._remove(db, row[0])
                    removed += 1
            if removed:
                db.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # --- reads --------------------------------------------------------------------

    def get(self, family_id: str, memory_ids: Iterable[str]) -> dict[str, IndexDocument]:
        ids = sorted({check_memory_id(i) for i in memory_ids})
        db = self._db(family_id, create=False)
        found: dict[str, IndexDocument] = {}
        if db is None:
            return found
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT doc_json FROM docs WHERE family_id = ? AND memory_id IN ({marks})"  # noqa: S608 (placeholders only)
            for (doc_json,) in db.execute(query, (family_id, *chunk)):
                document = IndexDocument.model_validate_json(doc_json)
                found[document.memory_id] = document
        return found

    def documents(self, family_id: str) -> Iterator[IndexDocument]:
        db = self._db(family_id, create=False)
        if db is None:
            return iter(())
        rows = db.execute("SELECT doc_json FROM docs WHERE family_id = ? ORDER BY memory_id", (family_id,)).fetchall()
        return (IndexDocument.model_validate_json(r[0]) for r in rows)

    def revisions(self, family_id: str) -> dict[str, int]:
        db = self._db(family_id, create=False)
        if db is None:
            return {}
        return dict(db.execute("SELECT memory_id, revision FROM docs WHERE family_id = ?", (family_id,)).fetchall())

    # --- the snapshot for the vector scan and the vocabulary ------------------------

    def _snapshot(self, family_id: str, db: sqlite3.Connection) -> _Snapshot:
        import numpy as np

        version = self._version(db)
        with self._snapshot_lock:
            snapshot = self._snapshots.get(family_id)
            if snapshot is not None and snapshot.version == version:
                self._snapshots.move_to_end(family_id)
                return snapshot
        db.execute("BEGIN")  # one consistent read of rows, vocabulary and version
        try:
            version = self._version(db)
            rows = db.execute(
                "SELECT memory_id, revision, status, type, sensitivity, valid_until, applies_json, vector, "
                "terms_json, length FROM docs WHERE family_id = ? ORDER BY rowid",
                (family_id,),
            ).fetchall()
            vocabulary = [w for (w,) in db.execute("SELECT word FROM words WHERE df > 0")]
        finally:
            db.execute("COMMIT")
        count = len(rows)
        matrix = np.frombuffer(b"".join(r[7] for r in rows), dtype="<f4").reshape(count, self.dimension)
        snapshot = _Snapshot(
            version=version,
            ids=[r[0] for r in rows],
            revisions=np.fromiter((r[1] for r in rows), dtype=np.int64, count=count),
            status=np.fromiter((_STATUS[Status(r[2])] for r in rows), dtype=np.int8, count=count),
            type=np.fromiter((_TYPE[MemoryType(r[3])] for r in rows), dtype=np.int8, count=count),
            sensitivity=np.fromiter((_SENSITIVITY[Sensitivity(r[4])] for r in rows), dtype=np.int8, count=count),
            valid_until=np.fromiter(
                (_ordinal(r[5]) for r in rows),
                dtype=np.int64,
                count=count,
            ),
            applies=[frozenset(json.loads(r[6])) for r in rows],
            matrix=np.ascontiguousarray(matrix),
            vocabulary=vocabulary,
            vocabulary_set=frozenset(vocabulary),
            masks=OrderedDict(),
            postings=_postings([(r[8], r[9]) for r in rows]),
        )
        with self._snapshot_lock:
            self._snapshots[family_id] = snapshot
            self._snapshots.move_to_end(family_id)
            while len(self._snapshots) > self._cached_families:
                self._snapshots.popitem(last=False)
        return snapshot

    # --- search -------------------------------------------------------------------

    def semantic(self, family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> list[Hit]:
        import numpy as np

        check_k(k)
        if len(vector) != self.dimension:
            raise InvalidInputError(f"the query vector has {len(vector)} floats; the index holds {self.dimension}")
        db = self._db(family_id, create=False)
        if db is None:
            return []
        snapshot = self._snapshot(family_id, db)
        if not snapshot.ids:
            return []
        mask = snapshot.mask(search_filter)
        eligible = int(mask.sum())
        if eligible == 0:
            return []
        scores = snapshot.matrix @ np.asarray(vector, dtype=np.float32)
        scores = np.where(mask, scores, -np.inf)
        take = min(k, eligible)
        top = np.argpartition(scores, len(scores) - take)[-take:]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [Hit(snapshot.ids[i], float(scores[i]), int(snapshot.revisions[i])) for i in top]

    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        import numpy as np

        check_k(k)
        db = self._db(family_id, create=False)
        if db is None:
            return []
        snapshot = self._snapshot(family_id, db)
        count = len(snapshot.ids)
        if count == 0:
            return []
        scores = np.zeros(count, dtype=np.float32)
        matched = False
        for term in {stem(word) for word in self._query_words(text, snapshot)}:
            entry = snapshot.postings.get(term)
            if entry is None:
                continue
            positions, parts = entry
            idf = math.log(1.0 + (count - len(positions) + 0.5) / (len(positions) + 0.5))
            scores[positions] += np.float32(idf) * parts
            matched = True
        if not matched:
            return []
        scores[~snapshot.mask(search_filter)] = 0.0
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > k:
            candidates = candidates[np.argpartition(scores[candidates], len(candidates) - k)[-k:]]
        candidates = candidates[np.argsort(-scores[candidates], kind="stable")]
        return [Hit(snapshot.ids[i], float(scores[i]), int(snapshot.revisions[i])) for i in candidates]

    @staticmethod
    def _query_words(text: str, snapshot: _Snapshot) -> list[str]:
        """The message's words, each misspelled one joined by its near neighbours in the vocabulary."""
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        found: list[str] = []
        for word in query_words(text):
            found.append(word)
            budget = edit_budget(word)
            if word in snapshot.vocabulary_set or budget == 0 or not snapshot.vocabulary:
                continue
            for candidate, _, _ in process.extract(
                word, snapshot.vocabulary, scorer=Levenshtein.distance, score_cutoff=budget, limit=3
            ):
                found.append(candidate)
        return found


def _postings(rows: list[tuple[str, float]]) -> dict[str, tuple[Any, Any]]:
    """Inverted lists with the BM25 term-frequency part precomputed per posting."""
    import numpy as np

    if not rows:
        return {}
    average = sum(length for _, length in rows) / len(rows) or 1.0
    collected: dict[str, tuple[list[int], list[float]]] = {}
    for position, (terms_json, length) in enumerate(rows):
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * length / average)
        for term, tf in json.loads(terms_json).items():
            entry = collected.get(term)
            if entry is None:
                entry = collected[term] = ([], [])
            entry[0].append(position)
            entry[1].append(tf * (BM25_K1 + 1.0) / (tf + norm))
    return {
        term: (np.array(positions, dtype=np.int64), np.array(parts, dtype=np.float32))
        for term, (positions, parts) in collected.items()
    }


def _ordinal(value: str | None) -> int:
    from datetime import date

    return _NO_EXPIRY if value is None else date.fromisoformat(value).toordinal()
