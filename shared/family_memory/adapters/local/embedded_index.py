"""The embedded hybrid index: one SQLite file per family on disk, searched in memory.

* Words: BM25F over the family's documents. Text is case-folded, stripped of
  diacritics and stop words and stemmed (Snowball English, as OpenSearch's
  ``english`` analyzer stems); each field counts with the OpenSearch boosts
  (about 3, summary 2, when_to_use, body and the evidence quotes 1) in one combined
  term frequency.
  Per-document term weights are stored with the document; the inverted lists
  are built in memory (numpy) when a process first searches the family, and
  a query adds up ``idf x BM25 term part`` per posting. Small misspellings
  are tolerated the way OpenSearch's ``fuzziness: AUTO`` tolerates them: a
  query word the family's vocabulary does not hold is expanded to the (at
  most 3) nearest vocabulary words within 1 edit (3 to 5 letters) or 2 edits
  (6 or more), found without scanning the vocabulary (``_Vocabulary``).
* Writes carry the in-memory snapshot forward in the writer (``_Delta``), so
  the first search after a write costs what any search costs; a write by
  another process shows as a new ``version`` and the next search reads the
  family afresh.
* Meaning: an exact scan. A family's vectors are float32 matrices in
  memory, filtered by the same rules as the words, and the top k taken with
  ``argpartition``. The vectors of active documents are one matrix and the
  rest (superseded, forgotten, expired, dormant) another, so a search for
  active memories, every turn's, reads only the first (``_Columns``). A
  family holds thousands of memories, not billions; exact search needs no
  tuning and never misses.

SQLite FTS5 was the first engine here; with ORDER BY bm25 over every match and
a join for the filters it needed 3.4 ms per query at 5,000 memories and 34 ms
at 50,000 (docs/retrieval.md), far over the budget, so the words moved into
the same in-memory snapshot as the vectors.

The family filter is structural: each family has its own file, chosen by the
adapter from the validated family id on every call, and every row also
carries the family id, which reads check.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
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
from family_memory.retrieval.query_words import STOPWORDS, query_words, words
from family_memory.retrieval.search_index import (
    Hit,
    IndexMismatchError,
    MemoryIndex,
    SearchFilter,
    check_documents,
    check_k,
)

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
INSERT OR IGNORE INTO meta (key, value) VALUES ('version', 0), ('dimension', 0), ('model_id', '');
"""

FIELD_BOOSTS = (("about", 3.0), ("summary", 2.0), ("when_to_use", 1.0), ("body", 1.0), ("quotes", 1.0))  # as OpenSearch
BM25_K1 = 1.2
BM25_B = 0.75
_STATUS = {status: code for code, status in enumerate(Status)}
_TYPE = {kind: code for code, kind in enumerate(MemoryType)}
_SENSITIVITY = {level: code for code, level in enumerate(Sensitivity)}
_NO_EXPIRY = 2**31 - 1

log = logging.getLogger(__name__)


def edit_budget(word: str) -> int:
    """OpenSearch's ``fuzziness: AUTO``: 0 edits up to 2 letters, 1 up to 5, then 2."""
    return 0 if len(word) <= 2 else 1 if len(word) <= 5 else 2


@functools.cache
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def field_text(document: IndexDocument, field: str) -> str:
    value = getattr(document, field)
    return "\n".join(value) if isinstance(value, list) else str(value)


def term_weights(document: IndexDocument) -> tuple[dict[str, float], float]:
    """The document's stemmed terms with boosted frequencies, and its boosted length."""
    weights: dict[str, float] = {}
    length = 0.0
    for field, boost in FIELD_BOOSTS:
        for word in words(field_text(document, field)):
            if word in STOPWORDS or len(word) < 2:
                continue
            term = stem(word)
            weights[term] = weights.get(term, 0.0) + boost
            length += boost
    return weights, length


#: Buckets of the character histogram that bounds the edit distance (``ord(c) & 31``;
#: a-z fall in distinct buckets, other characters share them, which only loosens the bound).
_HISTOGRAM_BUCKETS = 32
_DEAD_LENGTH = -1000
_EXPANSIONS_CACHED = 4096
#: Up to this many words left by the length and letter bounds are measured without the histogram's.
_MEASURED_OUTRIGHT = 256
#: Query vectors whose scores a snapshot keeps (a lookup's passes, and a few lookups at once).
_SCORED_KEPT = 4
#: A filter whose statuses are among these admits only rows of the active block.
_ACTIVE_ONLY = frozenset({Status.ACTIVE})
_ACTIVE_CODE = _STATUS[Status.ACTIVE]
#: Keyword searches whose hits a snapshot keeps (the day question's pass, a few messages).
_KEYWORD_HITS_KEPT = 16


class _Vocabulary:
    """A family's words (with their document frequency) and the search for the
    words near a misspelling, the way OpenSearch's ``fuzziness: AUTO`` finds them.

    Scanning every word with rapidfuzz costs a few milliseconds per unknown word
    in a vocabulary of 20,000; most of that is spent on words that cannot be
    within the edit budget. Two exact filters leave a handful of words to measure:
    the length (a word within ``budget`` edits is within ``budget`` letters of the
    same length) and a character histogram (each insertion, deletion or
    substitution adds at most one to the letters one word has in excess, and at
    most one to the letters the other has in excess). Expansions are cached until
    the vocabulary changes.

    Shared by the snapshots of one family and updated in place by the writer
    (under its lock); it is only consulted to widen a query, so a reader that sees
    a word a moment early or late still gets a correct answer for its snapshot.
    """

    def __init__(self, df: dict[str, int]) -> None:
        import numpy as np

        self._lock = threading.Lock()
        self.df = dict(df)
        self._words: list[str | None] = list(self.df)
        self._slot = {word: slot for slot, word in enumerate(self._words)}
        self._free: list[int] = []
        capacity = len(self._words) + 1024
        self._lengths = np.full(capacity, _DEAD_LENGTH, dtype=np.int32)
        self._lengths[: len(self._words)] = [len(w) for w in self.df]
        self._histograms = np.zeros((capacity, _HISTOGRAM_BUCKETS), dtype=np.int16)
        if self._words:
            text = "".join(self.df).encode("utf-32-le", "surrogatepass")
            codes = (np.frombuffer(text, dtype=np.uint32) & (_HISTOGRAM_BUCKETS - 1)).astype(np.intp)
            owners = np.repeat(np.arange(len(self._words)), self._lengths[: len(self._words)])
            np.add.at(self._histograms, (owners, codes), 1)
        #: Which buckets each word uses at all, one bit each: a cheap first cut.
        self._letters = np.zeros(capacity, dtype=np.uint32)
        self._letters[: len(self._words)] = _letter_bits(self._histograms[: len(self._words)])
        self._expansions: dict[str, tuple[str, ...]] = {}
        #: The slots in order of their words' length, their letter bits in that order, and where each
        #: length's slots start (``_by_length``).
        self._sorted: tuple[Any, Any, list[int]] | None = None

    def __contains__(self, word: str) -> bool:
        return word in self.df

    def __len__(self) -> int:
        return len(self.df)

    def add(self, words: Iterable[str]) -> None:
        with self._lock:
            for word in words:
                count = self.df.get(word, 0)
                self.df[word] = count + 1
                if count == 0:
                    self._place(word)

    def remove(self, words: Iterable[str]) -> None:
        with self._lock:
            for word in words:
                count = self.df.get(word, 0) - 1
                if count > 0:
                    self.df[word] = count
                    continue
                self.df.pop(word, None)
                slot = self._slot.pop(word, None)
                if slot is not None:
                    self._words[slot] = None
                    self._lengths[slot] = _DEAD_LENGTH
                    self._free.append(slot)
                    self._expansions.clear()
                    self._sorted = None

    def _place(self, word: str) -> None:
        import numpy as np

        if self._free:
            slot = self._free.pop()
            self._words[slot] = word
        else:
            slot = len(self._words)
            self._words.append(word)
            if slot >= len(self._lengths):
                grown = len(self._lengths) * 2
                lengths = np.full(grown, _DEAD_LENGTH, dtype=np.int32)
                lengths[:slot] = self._lengths[:slot]
                histograms = np.zeros((grown, _HISTOGRAM_BUCKETS), dtype=np.int16)
                histograms[:slot] = self._histograms[:slot]
                letters = np.zeros(grown, dtype=np.uint32)
                letters[:slot] = self._letters[:slot]
                self._lengths, self._histograms, self._letters = lengths, histograms, letters
        self._slot[word] = slot
        self._lengths[slot] = len(word)
        self._histograms[slot] = _histogram(word)
        self._letters[slot] = _letter_bits(self._histograms[slot : slot + 1])[0]
        self._expansions.clear()
        self._sorted = None

    def _by_length(self) -> tuple[Any, Any, list[int]]:
        """The used slots ordered by their word's length (a dead slot's is ``_DEAD_LENGTH``, first),
        their letter bits in that order, and for each length from 0 to the longest word's plus one
        where its slots start: the words within an edit budget of a length are one slice. Built on
        the first search after the vocabulary changed (under the lock)."""
        import numpy as np

        if self._sorted is None:
            used = len(self._words)
            lengths = self._lengths[:used]
            order = np.argsort(lengths, kind="stable")
            longest = int(lengths.max(initial=0))
            starts = np.searchsorted(lengths[order], np.arange(longest + 2), side="left").tolist()
            self._sorted = (order, self._letters[:used][order], starts)
        return self._sorted

    def near(self, word: str, budget: int) -> tuple[str, ...]:
        """Up to 3 vocabulary words within ``budget`` edits of ``word``, closest first
        (ties in code-point order), as ``rapidfuzz.process.extract`` over the sorted
        vocabulary gives them."""
        import numpy as np
        from rapidfuzz.distance import Levenshtein

        with self._lock:
            cached = self._expansions.get(word)
            if cached is not None:
                return cached
            bits = 0
            for ch in word:
                bits |= 1 << (ord(ch) & (_HISTOGRAM_BUCKETS - 1))
            letters = np.uint32(bits)
            # Only the words of a length within the budget, one slice of the slots by length.
            order, by_length_letters, starts = self._by_length()
            first = starts[min(max(len(word) - budget, 0), len(starts) - 1)]
            last = starts[min(len(word) + budget + 1, len(starts) - 1)]
            window = by_length_letters[first:last]
            # Each letter one word has and the other lacks costs at least one edit.
            possible = np.bitwise_count(window & ~letters) <= budget
            possible &= np.bitwise_count(letters & ~window) <= budget
            candidates = order[first:last][possible]
            # The histogram's bound costs about as much as measuring a few dozen words: only worth
            # it for more (a bound only passes over words the measure would refuse: same answer).
            if len(candidates) > _MEASURED_OUTRIGHT:
                excess = self._histograms[candidates] - _histogram(word)
                more = np.clip(excess, 0, None).sum(axis=1)
                fewer = np.clip(-excess, 0, None).sum(axis=1)
                candidates = candidates[np.maximum(more, fewer) <= budget]
            # The candidates' order does not matter: the words found are sorted by distance, then by
            # the word itself (no two words are equal).
            found = []
            for slot in candidates.tolist():
                other = self._words[slot]
                if other is None:
                    continue
                distance = Levenshtein.distance(word, other, score_cutoff=budget)
                if distance <= budget:
                    found.append((distance, other))
            found.sort()
            expansion = tuple(other for _, other in found[:3])
            if len(self._expansions) >= _EXPANSIONS_CACHED:
                self._expansions.clear()
            self._expansions[word] = expansion
            return expansion


def _letter_bits(histograms: Any) -> Any:
    """One bit per histogram bucket a word uses."""
    import numpy as np

    weights = np.left_shift(np.uint32(1), np.arange(_HISTOGRAM_BUCKETS, dtype=np.uint32))
    return ((histograms > 0).astype(np.uint32) * weights).sum(axis=1, dtype=np.uint32)


def _histogram(word: str) -> Any:
    import numpy as np

    counts = [0] * _HISTOGRAM_BUCKETS
    for ch in word:
        counts[ord(ch) & (_HISTOGRAM_BUCKETS - 1)] += 1
    return np.array(counts, dtype=np.int16)


class _Columns:
    """A family's per-document columns, with room to grow: rows below a snapshot's
    ``count`` never change, so a writer appends a document without copying them
    and the snapshots readers hold stay valid.

    The vectors are in two blocks: ``active`` holds the documents whose status is active and
    ``matrix`` the others, each filled in the order rows are written, with the row of each place
    (``active_rows``, ``other_rows``); a snapshot uses the first ``active_count`` and
    ``other_count`` places. A document's status never changes in place (a new status is a new
    document, on a new row), so a search for active memories scans ``active`` alone: every
    row it can admit is there."""

    def __init__(self, capacity: int, dimension: int) -> None:
        import numpy as np

        self.capacity = capacity
        self.dimension = dimension
        self.ids: list[str] = []
        self.applies: list[frozenset[str]] = []
        self.revisions = np.zeros(capacity, dtype=np.int64)
        self.status = np.zeros(capacity, dtype=np.int8)
        self.type = np.zeros(capacity, dtype=np.int8)
        self.sensitivity = np.zeros(capacity, dtype=np.int8)
        self.valid_until = np.zeros(capacity, dtype=np.int64)  # ordinal, _NO_EXPIRY when none
        self.lengths = np.zeros(capacity, dtype=np.float64)
        # np.zeros leaves pages untouched until written: the two blocks' room costs no memory. Three
        # rows more, so a product can always take whole groups of four (``_Snapshot.scores``).
        self.matrix = np.zeros((capacity + 3, dimension), dtype=np.float32)
        self.active = np.zeros((capacity + 3, dimension), dtype=np.float32)
        self.other_rows = np.zeros(capacity, dtype=np.int64)
        self.active_rows = np.zeros(capacity, dtype=np.int64)
        self.places = np.zeros(capacity, dtype=np.int64)  # row -> its place in its block

    def grown(self, count: int, needed: int, active_count: int, other_count: int) -> _Columns:
        """These columns if ``needed`` rows fit, else a larger copy of the first ``count`` rows
        (and the blocks' first ``active_count`` and ``other_count`` places)."""
        if needed <= self.capacity:
            return self
        bigger = _Columns(needed + needed // 8 + 256, self.dimension)
        bigger.ids, bigger.applies = self.ids[:count], self.applies[:count]
        for name in ("revisions", "status", "type", "sensitivity", "valid_until", "lengths", "places"):
            getattr(bigger, name)[:count] = getattr(self, name)[:count]
        bigger.active[:active_count] = self.active[:active_count]
        bigger.active_rows[:active_count] = self.active_rows[:active_count]
        bigger.matrix[:other_count] = self.matrix[:other_count]
        bigger.other_rows[:other_count] = self.other_rows[:other_count]
        return bigger

    def put(self, slot: int, place: int, memory_id: str, document: IndexDocument, length: float) -> None:
        """Row ``slot`` for ``document``, its vector at ``place`` of its status's block."""
        import numpy as np

        if slot < len(self.ids):  # a row left by a write that never committed
            self.ids[slot], self.applies[slot] = memory_id, frozenset(document.applies_to)
        else:
            self.ids.append(memory_id)
            self.applies.append(frozenset(document.applies_to))
        self.revisions[slot] = document.revision
        self.status[slot] = _STATUS[document.status]
        self.type[slot] = _TYPE[document.type]
        self.sensitivity[slot] = _SENSITIVITY[document.sensitivity]
        self.valid_until[slot] = _NO_EXPIRY if document.valid_until is None else document.valid_until.toordinal()
        self.lengths[slot] = length
        self.places[slot] = place
        vector = np.asarray(document.embedding, dtype=np.float32)
        if document.status is Status.ACTIVE:
            self.active[place], self.active_rows[place] = vector, slot
        else:
            self.matrix[place], self.other_rows[place] = vector, slot


@dataclass
class _Snapshot:
    """A family's documents in memory: the columns, which rows are live, the
    inverted lists and the vocabulary. Readers never see it change: a write makes
    a new snapshot from the last one (``_Delta``)."""

    version: int
    model_id: str
    count: int  # rows in use, live or not
    columns: _Columns
    #: Places in use in the columns' two blocks of vectors (active documents', the others').
    active_count: int
    other_count: int
    alive: Any  # (count,) bool
    live: int
    total_length: float
    #: stem -> (positions int64, boosted term frequencies float32), live rows only
    postings: dict[str, tuple[Any, Any]]
    vocabulary: _Vocabulary
    #: memory id -> row, for the writer (shared by the snapshots of one family)
    rows: dict[str, int]
    masks: OrderedDict[SearchFilter, Any]
    #: (query vector, active rows only?) -> its cosine score against every row (against the
    #: active documents' rows only: the others are -inf): a lookup's passes (its candidates, the
    #: must-know rules, the facts that lift a food rule) search one vector under several filters,
    #: and the scan is done once. A snapshot's rows never change, so nothing here goes stale.
    scored: dict[tuple[tuple[float, ...], bool], Any] = dataclasses.field(default_factory=dict)
    scored_lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    #: stem -> (positions, its BM25 part in each), as the keyword search first needed it.
    bm25: dict[str, tuple[Any, Any]] = dataclasses.field(default_factory=dict)
    #: (text, filter, k) -> the keyword hits: a day question's pass asks the same words on every
    #: lookup. A snapshot's rows never change, and a write makes a new snapshot with none kept.
    keyword_hits: OrderedDict[tuple[str, SearchFilter, int], list[Hit]] = dataclasses.field(default_factory=OrderedDict)
    keyword_lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    #: filter -> the rows it admits (``mask``'s positions, read-only), as a search first needed them.
    admitted_rows: dict[SearchFilter, Any] = dataclasses.field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        return self.columns.ids

    def term_scores(self, term: str) -> tuple[Any, Any] | None:
        """The rows holding ``term`` and its BM25 part in each (float32), or None. Computed once per
        term and snapshot: it depends only on the snapshot's rows and lengths, which never change."""
        cached = self.bm25.get(term)
        if cached is not None:
            return cached
        entry = self.postings.get(term)
        if entry is None:
            return None
        import numpy as np

        positions, frequencies = entry
        average = self.total_length / self.live or 1.0
        idf = math.log(1.0 + (self.live - len(positions) + 0.5) / (len(positions) + 0.5))
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * self.columns.lengths[positions] / average)
        part = (idf * frequencies * (BM25_K1 + 1.0) / (frequencies + norm)).astype(np.float32)
        part.flags.writeable = False
        self.bm25[term] = (positions, part)
        return positions, part

    def scores(self, vector: Vector, active_only: bool = False) -> Any:
        """Every row's score for ``vector`` (read-only), scanned once per vector and snapshot;
        ``active_only``: only the active documents' rows are scored (the rest are -inf), for a
        filter that admits no other status."""
        import numpy as np

        key = (tuple(vector), active_only)
        with self.scored_lock:
            cached = self.scored.get(key)
        if cached is not None:
            return cached
        query = np.asarray(vector, dtype=np.float32)
        c = self.columns
        scores = np.full(self.count, -np.inf, dtype=np.float32)
        # Each score as one product over all ``count`` rows in row order would give it, to the bit:
        # BLAS scores rows in groups of four alike wherever a group starts, and the last rows of a
        # product, fewer than four, another way (a product of one row another way again). So each
        # block is scanned in whole groups of four (the rows past its end are discarded), and the
        # snapshot's last count % 4 rows again as the last rows of a product of the last
        # rows of the snapshot (with the one product's group of four before them, if it has one).
        blocks = [(c.active, c.active_rows, self.active_count)]
        if not active_only:
            blocks.append((c.matrix, c.other_rows, self.other_count))
        for block, rows, used in blocks:
            if used:
                scores[rows[:used]] = (block[: used + (-used) % 4] @ query)[:used]
        tail = self.count % 4
        if tail:
            last = range(max(0, self.count - tail - 4), self.count)
            active = [bool(c.status[row] == _ACTIVE_CODE) for row in last]
            vectors = np.stack(
                [(c.active if on else c.matrix)[c.places[row]] for row, on in zip(last, active, strict=True)]
            )
            for row, on, score in list(zip(last, active, (vectors @ query).tolist(), strict=True))[-tail:]:
                if on or not active_only:
                    scores[row] = score
        scores.flags.writeable = False
        with self.scored_lock:
            if len(self.scored) >= _SCORED_KEPT:
                del self.scored[next(iter(self.scored))]
            self.scored[key] = scores
        return scores

    def mask(self, search_filter: SearchFilter) -> Any:
        cached = self.masks.get(search_filter)
        if cached is not None:
            return cached
        mask = self.filter_rows(search_filter, 0, self.count)
        self.masks[search_filter] = mask
        if len(self.masks) > 8:
            self.masks.popitem(last=False)
        return mask

    def admitted(self, search_filter: SearchFilter) -> Any:
        """The rows ``search_filter`` admits, in row order (read-only): ``mask``'s positions, kept
        with the snapshot (whose rows never change) for the few filters of the moment."""
        cached = self.admitted_rows.get(search_filter)
        if cached is not None:
            return cached
        import numpy as np

        rows = np.flatnonzero(self.mask(search_filter))
        rows.flags.writeable = False
        if len(self.admitted_rows) >= 8:
            self.admitted_rows.pop(next(iter(self.admitted_rows)), None)  # a reader may be adding one
        self.admitted_rows[search_filter] = rows
        return rows

    def filter_rows(self, search_filter: SearchFilter, start: int, stop: int) -> Any:
        """Which rows in ``start:stop`` are live and admitted by the filter."""
        import numpy as np

        c = self.columns
        mask = self.alive[start:stop].copy()
        if search_filter.statuses is not None:
            mask &= np.isin(c.status[start:stop], [_STATUS[s] for s in search_filter.statuses])
        if search_filter.valid_on is not None:
            mask &= c.valid_until[start:stop] > search_filter.valid_on.toordinal()
        if search_filter.types is not None:
            mask &= np.isin(c.type[start:stop], [_TYPE[t] for t in search_filter.types])
        if search_filter.sensitivities is not None:
            mask &= np.isin(c.sensitivity[start:stop], [_SENSITIVITY[s] for s in search_filter.sensitivities])
        if search_filter.applies_to is not None:
            wanted = search_filter.applies_to
            applies = c.applies[start:stop]
            mask &= np.fromiter((bool(wanted & a) for a in applies), dtype=bool, count=len(applies))
        return mask


@dataclass
class _Removed:
    memory_id: str
    terms: dict[str, float]
    words: set[str]


@dataclass
class _Added:
    document: IndexDocument
    terms: dict[str, float]
    length: float
    words: set[str]


class _Delta:
    """What one write transaction changed, to carry the family's snapshot forward
    without reading the whole family again."""

    def __init__(self) -> None:
        self.changes: list[_Removed | _Added] = []

    def apply(self, base: _Snapshot, version: int) -> _Snapshot:
        import numpy as np

        added = sum(isinstance(change, _Added) for change in self.changes)
        count = base.count
        columns = base.columns.grown(count, count + added, base.active_count, base.other_count)
        active_count, other_count = base.active_count, base.other_count
        alive = np.zeros(count + added, dtype=bool)
        alive[:count] = base.alive
        postings = dict(base.postings)
        live, total = base.live, base.total_length
        removed_rows: list[int] = []
        for change in self.changes:
            if isinstance(change, _Removed):
                row = base.rows.pop(change.memory_id)
                alive[row] = False
                removed_rows.append(row)
                live -= 1
                total -= float(columns.lengths[row])
                for term in change.terms:
                    positions, frequencies = postings[term]
                    keep = positions != row
                    if keep.any():
                        postings[term] = (positions[keep], frequencies[keep])
                    else:
                        del postings[term]
                base.vocabulary.remove(change.words)
                continue
            row = count
            count += 1
            if change.document.status is Status.ACTIVE:
                place, active_count = active_count, active_count + 1
            else:
                place, other_count = other_count, other_count + 1
            columns.put(row, place, change.document.memory_id, change.document, change.length)
            alive[row] = True
            base.rows[change.document.memory_id] = row
            live += 1
            total += change.length
            for term, frequency in change.terms.items():
                entry = postings.get(term)
                if entry is None:
                    postings[term] = (np.array([row], dtype=np.int64), np.array([frequency], dtype=np.float32))
                else:
                    postings[term] = (np.append(entry[0], row), np.append(entry[1], np.float32(frequency)))
            base.vocabulary.add(change.words)
        snapshot = _Snapshot(
            version=version,
            model_id=base.model_id,
            count=count,
            columns=columns,
            active_count=active_count,
            other_count=other_count,
            alive=alive,
            live=live,
            total_length=total,
            postings=postings,
            vocabulary=base.vocabulary,
            rows=base.rows,
            masks=OrderedDict(),
        )
        for search_filter, mask in list(base.masks.items()):  # a reader may be adding one
            carried = np.zeros(count, dtype=bool)
            carried[: base.count] = mask
            carried[removed_rows] = False
            carried[base.count :] = snapshot.filter_rows(search_filter, base.count, count)
            snapshot.masks[search_filter] = carried
        return snapshot


class EmbeddedIndex(MemoryIndex):
    """``model_id``, when given, is the embedder that makes the query vectors: a
    family indexed with another embedder is searched by words only (with a warning)
    until ``rebuild-index`` re-embeds it."""

    in_process = True

    def __init__(
        self, root: Path | str, dimension: int, *, model_id: str | None = None, cached_families: int = 8
    ) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.dimension = dimension
        self.model_id = model_id
        self._local = threading.local()
        self._snapshots: OrderedDict[str, _Snapshot] = OrderedDict()
        self._snapshot_lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}
        self._cached_families = cached_families
        #: Full reads of a family into memory (tests and benchmarks watch it).
        self.loads = 0

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
        db.execute("BEGIN IMMEDIATE")
        try:
            if self._meta(db, "dimension") == 0:
                db.execute("UPDATE meta SET value = ? WHERE key = 'dimension'", (self.dimension,))
            if self._meta(db, "model_id") == "":
                # An index written before the model was recorded: its documents name it.
                row = db.execute("SELECT doc_json FROM docs LIMIT 1").fetchone()
                if row is not None:
                    model = IndexDocument.model_validate_json(row[0]).embedding_model
                    db.execute("UPDATE meta SET value = ? WHERE key = 'model_id'", (model,))
        except BaseException:
            db.execute("ROLLBACK")
            db.close()
            raise
        db.execute("COMMIT")
        connections[family_id] = db
        if len(connections) > 64:
            _, oldest = connections.popitem(last=False)
            oldest.close()
        return db

    @staticmethod
    def _meta(db: sqlite3.Connection, key: str) -> Any:
        return db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0]

    @staticmethod
    def _version(db: sqlite3.Connection) -> int:
        return int(db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0])

    def _stored_space(self, db: sqlite3.Connection) -> tuple[str, int]:
        """The embedder the family's vectors came from: its model id ("" before the first write) and dimension."""
        return str(self._meta(db, "model_id")), int(self._meta(db, "dimension"))

    # --- writes -----------------------------------------------------------------

    def _claim_space(
        self, db: sqlite3.Connection, family_id: str, documents: Sequence[IndexDocument], force: bool
    ) -> bool:
        """Check the documents' embedder against the family's; a forced write (a rebuild
        from the files) with another embedder starts the family's index afresh.
        True when the index was emptied."""
        models = {document.embedding_model for document in documents}
        if len(models) != 1:
            raise InvalidInputError(f"one write mixes vectors of several embedders: {', '.join(sorted(models))}")
        (model,) = models
        stored_model, stored_dimension = self._stored_space(db)
        if stored_model in ("", model) and stored_dimension in (0, self.dimension):
            if stored_model == "" or stored_dimension == 0:
                db.execute("UPDATE meta SET value = ? WHERE key = 'model_id'", (model,))
                db.execute("UPDATE meta SET value = ? WHERE key = 'dimension'", (self.dimension,))
            return False
        if not force:
            raise IndexMismatchError(
                f"the index of family {family_id} holds vectors of {stored_model or 'another embedder'} "
                f"({stored_dimension} dimensions); these come from {model} ({self.dimension}): "
                f"run `family-memory rebuild-index --family {family_id}` to re-embed it with this embedder"
            )
        log.warning(
            "rebuilding the index with another embedder: its documents are replaced",
            extra={"family_id": family_id, "was": stored_model, "now": model},
        )
        db.execute("DELETE FROM docs")
        db.execute("DELETE FROM words")
        db.execute("UPDATE meta SET value = ? WHERE key = 'model_id'", (model,))
        db.execute("UPDATE meta SET value = ? WHERE key = 'dimension'", (self.dimension,))
        return True

    def upsert(self, family_id: str, documents: Sequence[IndexDocument], *, force: bool = False) -> None:
        import numpy as np

        check_documents(family_id, documents, self.dimension)
        if not documents:
            return
        db = self._db(family_id, create=True)
        assert db is not None
        db.execute("BEGIN IMMEDIATE")
        delta: _Delta | None = _Delta()
        try:
            before = self._version(db)
            if self._claim_space(db, family_id, documents, force):
                delta = None  # everything went: the next search reads the family afresh
            changed = False
            for document in documents:
                stored = db.execute(
                    "SELECT rowid, revision FROM docs WHERE memory_id = ?", (document.memory_id,)
                ).fetchone()
                if stored is not None:
                    if stored[1] > document.revision and not force:
                        continue  # an older event arriving late: the index already holds newer
                    removed = self._remove(db, stored[0])
                    if delta is not None:
                        delta.changes.append(removed)
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
                document_words = self._document_words(document)
                db.executemany(
                    "INSERT INTO words (word, df) VALUES (?, 1) ON CONFLICT (word) DO UPDATE SET df = df + 1",
                    [(w,) for w in document_words],
                )
                if delta is not None:
                    delta.changes.append(_Added(document, weights, length, document_words))
                changed = True
            if changed:
                db.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._commit(family_id, db, before, delta if changed else _Delta())

    def _commit(self, family_id: str, db: sqlite3.Connection, before: int, delta: _Delta | None) -> None:
        """Commit the write and carry the family's snapshot forward in this (the
        writer's) thread, so the next search does not read the whole family again.
        Another process's write shows as a version this snapshot does not have: the
        next search then reads the family afresh."""
        with self._snapshot_lock:
            base = self._snapshots.get(family_id)
        snapshot = None
        if base is not None and delta is not None and delta.changes and base.version == before:
            try:
                snapshot = delta.apply(base, before + 1)
            except Exception:  # the cache must never fail a write: the next search reads the file
                log.exception("could not carry the index snapshot forward", extra={"family_id": family_id})
                self._forget(family_id)
        try:
            db.execute("COMMIT")
        except BaseException:
            if snapshot is not None:
                self._forget(family_id)  # the delta has touched the shared rows of a write that did not happen
            db.execute("ROLLBACK")
            raise
        if snapshot is None:
            return
        if snapshot.count - snapshot.live > max(256, snapshot.count // 4):
            self._load(family_id, db)  # mostly replaced rows: read the family compactly
            return
        self._publish(family_id, snapshot)

    def _forget(self, family_id: str) -> None:
        with self._snapshot_lock:
            self._snapshots.pop(family_id, None)

    @staticmethod
    def _document_words(document: IndexDocument) -> set[str]:
        text = " ".join(field_text(document, field) for field, _ in FIELD_BOOSTS)
        return {w for w in words(text) if len(w) > 1 and w not in STOPWORDS}

    def _remove(self, db: sqlite3.Connection, rowid: int) -> _Removed:
        doc_json, terms_json = db.execute("SELECT doc_json, terms_json FROM docs WHERE rowid = ?", (rowid,)).fetchone()
        old = IndexDocument.model_validate_json(doc_json)
        old_words = self._document_words(old)
        db.executemany("UPDATE words SET df = df - 1 WHERE word = ?", [(w,) for w in old_words])
        db.execute("DELETE FROM words WHERE df <= 0")
        db.execute("DELETE FROM docs WHERE rowid = ?", (rowid,))
        return _Removed(old.memory_id, json.loads(terms_json), old_words)

    def delete(self, family_id: str, memory_ids: Iterable[str]) -> None:
        ids = [check_memory_id(i) for i in memory_ids]
        db = self._db(family_id, create=False)
        if db is None or not ids:
            return
        db.execute("BEGIN IMMEDIATE")
        delta = _Delta()
        try:
            before = self._version(db)
            for memory_id in ids:
                row = db.execute("SELECT rowid FROM docs WHERE memory_id = ?", (memory_id,)).fetchone()
                if row is not None:
                    delta.changes.append(self._remove(db, row[0]))
            if delta.changes:
                db.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._commit(family_id, db, before, delta)

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

    def _publish(self, family_id: str, snapshot: _Snapshot) -> None:
        with self._snapshot_lock:
            current = self._snapshots.get(family_id)
            if current is None or current.version <= snapshot.version:
                self._snapshots[family_id] = snapshot
            self._snapshots.move_to_end(family_id)
            while len(self._snapshots) > self._cached_families:
                self._snapshots.popitem(last=False)

    def _snapshot(self, family_id: str, db: sqlite3.Connection) -> _Snapshot:
        version = self._version(db)
        with self._snapshot_lock:
            snapshot = self._snapshots.get(family_id)
            if snapshot is not None and snapshot.version == version:
                self._snapshots.move_to_end(family_id)
                return snapshot
            loading = self._loading.setdefault(family_id, threading.Lock())
        with loading:  # the keyword and semantic searches of one lookup read the family once
            with self._snapshot_lock:
                snapshot = self._snapshots.get(family_id)
            if snapshot is not None and snapshot.version == self._version(db):
                return snapshot
            return self._load(family_id, db)

    def _load(self, family_id: str, db: sqlite3.Connection) -> _Snapshot:
        """Read the whole family into memory (after another process wrote it, or on first use)."""
        import numpy as np

        db.execute("BEGIN")  # one consistent read of rows, vocabulary and version
        try:
            version = self._version(db)
            model_id, dimension = self._stored_space(db)
            rows = db.execute(
                "SELECT memory_id, revision, status, type, sensitivity, valid_until, applies_json, vector, "
                "terms_json, length FROM docs WHERE family_id = ? ORDER BY rowid",
                (family_id,),
            ).fetchall()
            vocabulary = dict(db.execute("SELECT word, df FROM words WHERE df > 0 ORDER BY word").fetchall())
        finally:
            db.execute("COMMIT")
        self.loads += 1
        count = len(rows)
        columns = _Columns(count + count // 8 + 256, dimension or self.dimension)
        columns.ids = [r[0] for r in rows]
        columns.applies = [frozenset(json.loads(r[6])) for r in rows]
        columns.revisions[:count] = [r[1] for r in rows]
        columns.status[:count] = [_STATUS[Status(r[2])] for r in rows]
        columns.type[:count] = [_TYPE[MemoryType(r[3])] for r in rows]
        columns.sensitivity[:count] = [_SENSITIVITY[Sensitivity(r[4])] for r in rows]
        columns.valid_until[:count] = [_ordinal(r[5]) for r in rows]
        columns.lengths[:count] = [r[9] for r in rows]
        active = [n for n, r in enumerate(rows) if r[2] == Status.ACTIVE.value]
        other = [n for n, r in enumerate(rows) if r[2] != Status.ACTIVE.value]
        for block, places, where in (
            (columns.active, columns.active_rows, active),
            (columns.matrix, columns.other_rows, other),
        ):
            if where:
                vectors = np.frombuffer(b"".join(rows[n][7] for n in where), dtype="<f4")
                block[: len(where)] = vectors.reshape(len(where), columns.dimension)
                places[: len(where)] = where
                columns.places[where] = np.arange(len(where))
        snapshot = _Snapshot(
            version=version,
            model_id=model_id,
            count=count,
            columns=columns,
            active_count=len(active),
            other_count=len(other),
            alive=np.ones(count, dtype=bool),
            live=count,
            total_length=float(columns.lengths[:count].sum()),
            postings=_postings([r[8] for r in rows]),
            vocabulary=_Vocabulary(vocabulary),
            rows={r[0]: n for n, r in enumerate(rows)},
            masks=OrderedDict(),
        )
        self._publish(family_id, snapshot)
        return snapshot

    # --- search -------------------------------------------------------------------

    def semantic(self, family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> list[Hit]:
        check_k(k)
        if len(vector) != self.dimension:
            raise InvalidInputError(f"the query vector has {len(vector)} floats; the index holds {self.dimension}")
        db = self._db(family_id, create=False)
        if db is None:
            return []
        snapshot = self._snapshot(family_id, db)
        if not snapshot.live:
            return []
        if snapshot.columns.dimension != self.dimension or (
            self.model_id is not None and snapshot.model_id not in ("", self.model_id)
        ):
            log.warning(
                "the family's index was built with another embedder; searching by words only until rebuild-index",
                extra={"family_id": family_id, "index_model": snapshot.model_id, "query_model": self.model_id},
            )
            raise IndexMismatchError(
                f"the index of family {family_id} holds vectors of {snapshot.model_id} "
                f"({snapshot.columns.dimension} dimensions), not of {self.model_id} ({self.dimension}): "
                f"run `family-memory rebuild-index --family {family_id}`"
            )
        rows = snapshot.admitted(search_filter)
        if not len(rows):
            return []
        active_only = search_filter.statuses is not None and search_filter.statuses <= _ACTIVE_ONLY
        scores = snapshot.scores(vector, active_only)
        return _hits(snapshot, scores, _best(scores, rows, k))

    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        check_k(k)
        db = self._db(family_id, create=False)
        if db is None:
            return []
        snapshot = self._snapshot(family_id, db)
        if snapshot.live == 0:
            return []
        key = (text, search_filter, k)
        with snapshot.keyword_lock:
            kept = snapshot.keyword_hits.get(key)
        if kept is not None:
            return list(kept)
        hits = self._keyword(snapshot, text, search_filter, k)
        with snapshot.keyword_lock:
            snapshot.keyword_hits[key] = hits
            if len(snapshot.keyword_hits) > _KEYWORD_HITS_KEPT:
                snapshot.keyword_hits.popitem(last=False)
        return list(hits)

    def _keyword(self, snapshot: _Snapshot, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        import numpy as np

        scores = np.zeros(snapshot.count, dtype=np.float32)
        matched = False
        for term in {stem(word) for word in self._query_words(text, snapshot)}:
            entry = snapshot.term_scores(term)
            if entry is None:
                continue
            positions, term_scores = entry
            scores[positions] += term_scores
            matched = True
        if not matched:
            return []
        # Rows the filter refuses keep their score, but no refused row is a candidate.
        matching = scores > 0
        matching &= snapshot.mask(search_filter)
        return _hits(snapshot, scores, _best(scores, np.flatnonzero(matching), k))

    @staticmethod
    def _query_words(text: str, snapshot: _Snapshot) -> list[str]:
        """The message's words, each misspelled one joined by its near neighbours in the vocabulary."""
        found: list[str] = []
        for word in _chosen_words(text):
            found.append(word)
            budget = edit_budget(word)
            if word in snapshot.vocabulary or budget == 0 or not len(snapshot.vocabulary):
                continue
            found.extend(snapshot.vocabulary.near(word, budget))
        return found


#: A ``Hit`` made without its frozen ``__init__`` (which sets each field through ``object.__setattr__``):
#: the object and its three slots, set as ``__init__`` sets them (same type, fields, equality and
#: hash), in about half the time; a lookup makes a hundred hits.
_new_hit = object.__new__
_set_memory_id = Hit.memory_id.__set__  # type: ignore[attr-defined]
_set_score = Hit.score.__set__  # type: ignore[attr-defined]
_set_revision = Hit.revision.__set__  # type: ignore[attr-defined]


def _hits(snapshot: _Snapshot, scores: Any, rows: Any) -> list[Hit]:
    """The hits of ``rows`` (best first), each with its score and revision (read in one go)."""
    ids = snapshot.ids
    hits = []
    for row, score, revision in zip(
        rows.tolist(), scores[rows].tolist(), snapshot.columns.revisions[rows].tolist(), strict=True
    ):
        hit = _new_hit(Hit)
        _set_memory_id(hit, ids[row])
        _set_score(hit, score)
        _set_revision(hit, revision)
        hits.append(hit)
    return hits


@functools.lru_cache(maxsize=256)
def _chosen_words(text: str) -> tuple[str, ...]:
    """``query_words`` of a text, remembered: the day question's pass asks the same words each time."""
    return tuple(query_words(text))


def _best(scores: Any, candidates: Any, k: int) -> Any:
    """The ``k`` best of ``candidates`` (rows), highest score first; equal scores in
    row order (the order the family's documents were written), so the answer does
    not depend on how the arrays happen to be laid out."""
    import numpy as np

    if len(candidates) > k:
        values = scores[candidates]
        threshold = np.partition(values, len(values) - k)[len(values) - k]  # the k-th best score
        above = candidates[values > threshold]
        candidates = np.concatenate([above, candidates[values == threshold][: k - len(above)]])
    return candidates[np.lexsort((candidates, -scores[candidates]))]


def _postings(rows: list[str]) -> dict[str, tuple[Any, Any]]:
    """Inverted lists: for each stem, the rows holding it and its boosted frequency there."""
    import numpy as np

    collected: dict[str, tuple[list[int], list[float]]] = {}
    for position, terms_json in enumerate(rows):
        for term, tf in json.loads(terms_json).items():
            entry = collected.get(term)
            if entry is None:
                entry = collected[term] = ([], [])
            entry[0].append(position)
            entry[1].append(tf)
    return {
        term: (np.array(positions, dtype=np.int64), np.array(frequencies, dtype=np.float32))
        for term, (positions, frequencies) in collected.items()
    }


def _ordinal(value: str | None) -> int:
    from datetime import date

    return _NO_EXPIRY if value is None else date.fromisoformat(value).toordinal()
