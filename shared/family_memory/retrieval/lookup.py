"""Turn-level retrieval: the memories closest to what the user just said.

For each message the semantic search (on the message's embedding) and the
keyword search (on its words, tolerant of small misspellings) run together.
Their two lists are fused by reciprocal rank (``reciprocal_rank_fusion``, k 60):
a memory scores 1/(60 + rank) in each list it is in, so one both halves found
leads; the seed's interleave (the top few semantic hits, then the keyword hits,
then the rest) is kept as a setting. The comparison that chose RRF, on the
harness's evidence recall, is in docs/retrieval.md.

What counts as a match: a keyword hit, or a semantic hit at or above the
embedder's relevance floor. The turn-level lookup shows matches only, so an
unrelated message adds nothing. ``search_memory`` (the agent asked, with a
limit) ranks the nearest memories below the floor after every match, when
there is at least one match: the list no longer stops at the floor, so a task
("what should we bring to the potluck") whose constraints share no word with it
still reaches them.

Only active memories whose ``valid_until`` has not arrived on the family's
local date are eligible. The index is asked with that filter, and then every
hit is confirmed against the catalog (a strongly consistent batch read), so a
memory forgotten, edited or expired a moment ago is never returned while the
index catches up. Lines are rendered from the catalog row, which is current,
not from the index, which may lag.

The block is capped (5 items and 450 tokens by default, counted with the
project's tokenizer; the must-know rules a task touches have a budget of their own beside
it, 8 items and 500 tokens, ``must_know.py``; a question about a day puts the standing
arrangements that fall on it first among the candidates, ``schedule.py``), labelled as candidates
to weigh, not facts to repeat,
and every line carries the summary (one JSON string literal, ``one_line``, as
the brief writes its lines), its age in words and its reference.

Household surface (shared threads that several people read): the post says
memories belong to individuals. The lookup still runs there (a shared thread
needs "we use the Walgreens on 5th" as much as a private one) but only
memories tagged ``normal`` sensitivity are eligible: health, finances and
minors never enter a thread others read. The read tools are not offered on
that surface at all (see ``tools.py``). In private chat sensitive memories are
eligible and their lines say so, so the model uses them only for the task.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from itertools import zip_longest
from typing import Literal

from family_memory.domain.clock import Clock, local_date
from family_memory.domain.errors import FamilyMemoryError, InvalidInputError
from family_memory.domain.family import Surface
from family_memory.domain.ids import check_family_id
from family_memory.domain.literal import one_line
from family_memory.domain.memory import MemoryType, Sensitivity, Status
from family_memory.domain.refs import MemoryRef
from family_memory.domain.text import normalise_for_match
from family_memory.domain.tokens import count_tokens
from family_memory.formation.dates import WEEKDAYS
from family_memory.ports.catalog import Catalog, CatalogRow
from family_memory.retrieval.age import days_in_words
from family_memory.retrieval.caps import (
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_RULE_ITEMS,
    DEFAULT_RULE_TOKENS,
    MAX_ITEMS_LIMIT,
    MAX_TOKENS_LIMIT,
)
from family_memory.retrieval.embedding import Embedder, EmbeddingUnavailableError, Vector
from family_memory.retrieval.must_know import (
    FACT_TASKS,
    FACT_TYPES,
    POOL,
    POOL_TYPES,
    NameBook,
    kin_said,
    must_know,
    people_named,
    tasks_of,
)
from family_memory.retrieval.schedule import activity_words, arrangement_words, asked_weekday, covers, recurs
from family_memory.retrieval.search_index import MAX_K, Hit, IndexUnavailableError, MemoryIndex, SearchFilter

log = logging.getLogger(__name__)

#: How a lookup item was found: by either search or both; "rule": a must-know rule the task
#: touches; "schedule": a standing arrangement on the day the message asks about.
Via = Literal["semantic", "keyword", "both", "rule", "schedule"]

DEFAULT_SCHEDULE_ITEMS = 4
#: The keyword pass for standing arrangements: any weekday's name, any form.
SCHEDULE_QUERY = " ".join([*WEEKDAYS, *(d + "s" for d in WEEKDAYS), "weekdays", "weekends"])
MAX_QUERY_CHARS = 2000
#: Rendered lines a lookup keeps (``TurnLookup._line``).
LINES_KEPT = 8192

LOOKUP_OPEN = '<memory_lookup kind="candidates">'
LOOKUP_NOTE = (
    "Looked up for this message: candidates to weigh, not facts to repeat. "
    "Open one with read_memory when you need detail. Never show a reference in a reply."
)
LOOKUP_CLOSE = "</memory_lookup>"
#: Said on the household surface when a private (health, minors, finances) rule bears on the
#: message: the thread learns that a rule exists, never whose or what (docs/retrieval.md).
WITHHELD_NOTE = (
    "A private rule of someone in this household bears on this request (kept out of shared threads): "
    "do not guess it here; suggest checking in a private chat before going ahead."
)


#: How the two hit lists become one: reciprocal-rank fusion (the default) or the seed's interleave.
FUSIONS = ("rrf", "interleave")
#: RRF's constant (Cormack, Clarke and Buttcher 2009); not tuned here: every k from 1 to 60 ranks
#: within 0.007 of it at every cut-off of the harness's evidence recall, with either offline
#: embedder (docs/retrieval.md, ``family-memory bench fusion``).
DEFAULT_RRF_K = 60


def interleave(semantic: Sequence[str], keyword: Sequence[str], lead: int = 3) -> list[str]:
    """The top ``lead`` semantic ids, then the keyword ids, then the rest of the
    semantic ids; each id once, at its first place."""
    merged: list[str] = []
    seen: set[str] = set()
    for memory_id in (*semantic[:lead], *keyword, *semantic[lead:]):
        if memory_id not in seen:
            seen.add(memory_id)
            merged.append(memory_id)
    return merged


def reciprocal_rank_fusion(semantic: Sequence[str], keyword: Sequence[str], k: int = DEFAULT_RRF_K) -> list[str]:
    """Every id of either list, best first by the sum of 1 / (k + rank) over the lists it is in
    (rank 1 is the top; a list names an id once, at its first place). Equal sums keep the order in
    which the ids first appear taking the lists in turn, semantic first, so the answer depends only
    on the two lists. Ranks only: neither engine's scores need to be comparable with the other's."""
    # Each list's score of an id is its first place's (setdefault keeps it); an id in both sums the
    # two, semantic first, as adding them in turn to 0.0 would.
    score: dict[str, float] = {}
    for rank, memory_id in enumerate(semantic, start=k + 1):
        score.setdefault(memory_id, 1.0 / rank)
    keyword_score: dict[str, float] = {}
    for rank, memory_id in enumerate(keyword, start=k + 1):
        keyword_score.setdefault(memory_id, 1.0 / rank)
    for memory_id, part in keyword_score.items():
        earlier = score.get(memory_id)
        score[memory_id] = part if earlier is None else earlier + part
    # First appearances, the lists taken in turn place by place (a dict keeps the first insertion).
    first = dict.fromkeys(memory_id for pair in zip_longest(semantic, keyword) for memory_id in pair)
    first.pop(None, None)
    # Best first, then by first appearance (no two ids share a place, so an id is never compared).
    return [memory_id for _, _, memory_id in sorted((-score[m], n, m) for n, m in enumerate(first))]


@dataclass(frozen=True)
class LookupSettings:
    max_items: int = DEFAULT_MAX_ITEMS
    max_tokens: int = DEFAULT_MAX_TOKENS
    #: "rrf" (reciprocal-rank fusion with ``rrf_k``) or "interleave" (the seed's, ``semantic_lead`` first).
    fusion: str = "rrf"
    rrf_k: int = DEFAULT_RRF_K
    semantic_lead: int = 3
    #: How many hits each search is asked for before confirmation and capping (search_memory's
    #: largest limit, so a search at that limit still ranks a full list from each half).
    candidates_per_search: int = 25
    #: Cosine similarity below which a semantic hit is no match; None: the embedder's floor.
    min_similarity: float | None = None
    #: The must-know rules' own budget, beside the candidates' (DESIGN invariant 10): the rules a
    #: task touches never push the message's own candidates out, nor the other way round.
    rule_items: int = DEFAULT_RULE_ITEMS
    rule_tokens: int = DEFAULT_RULE_TOKENS
    #: A question about a day: how many of its standing arrangements go first among the
    #: candidates (inside their budget; 0 turns the pass off).
    schedule_items: int = DEFAULT_SCHEDULE_ITEMS

    def __post_init__(self) -> None:
        if self.fusion not in FUSIONS:
            raise InvalidInputError(f"fusion must be one of {', '.join(FUSIONS)}, got {self.fusion!r}")
        if self.rrf_k < 0 or self.semantic_lead < 0:
            raise InvalidInputError("rrf_k and semantic_lead must not be negative")
        if not 1 <= self.candidates_per_search <= MAX_K:
            raise InvalidInputError(f"candidates_per_search must be between 1 and {MAX_K}")

    def fuse(self, semantic: Sequence[str], keyword: Sequence[str]) -> list[str]:
        """The two engines' ids as one list, best first, each id once."""
        if self.fusion == "interleave":
            return interleave(semantic, keyword, self.semantic_lead)
        return reciprocal_rank_fusion(semantic, keyword, self.rrf_k)


@dataclass(frozen=True)
class LookupItem:
    row: CatalogRow
    ref: str
    age: str
    line: str
    via: Via


@dataclass
class LookupResult:
    family_id: str
    items: list[LookupItem]
    block: str
    tokens: int
    hits: int = 0
    #: Hits the catalog overruled (no longer current, or not for this surface), with the reason.
    dropped: dict[str, str] = field(default_factory=dict)
    #: Hits whose index document lags the catalog (rendered from the catalog).
    lagging: list[str] = field(default_factory=list)
    #: Rules put ahead of ordinary candidates because the message touches them (must-know).
    must_know: list[str] = field(default_factory=list)


class FamilyZones:
    """The family's time zone, re-read at most once a minute (it almost never changes)."""

    def __init__(self, load: Callable[[str], str], ttl_seconds: float = 60.0) -> None:
        self._load = load
        self._ttl = ttl_seconds
        self._cache: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def __call__(self, family_id: str) -> str:
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(family_id)
        if cached is not None and now - cached[0] < self._ttl:
            return cached[1]
        zone = self._load(family_id)
        with self._lock:
            self._cache[family_id] = (now, zone)
        return zone


def line_for(
    row: CatalogRow, ref: str, age: str, zone: str = "UTC", *, rule: bool = False, said: date | None = None
) -> str:
    """One lookup line: the summary as a literal, when it was said (its age and its absolute
    local date, so "when did..." is answerable from the line), the last day a dated fact holds,
    the sensitivity, the reference. A must-know rule's line says it is a standing rule instead
    of when it was said (it holds now; the reference opens its history): the rules a task
    touches are many in some families, and each must fit. ``said``: the local date of ``formed_at``
    in ``zone``, when the caller has it."""
    if rule:
        when = "standing rule"
    else:
        said = local_date(row.formed_at, zone) if said is None else said
        when = f"remembered {age}, said {said.isoformat()}"
    if row.valid_until is not None:
        when += f"; through {(row.valid_until - timedelta(days=1)).isoformat()}"
    marker = ""
    if row.sensitivity is not Sensitivity.NORMAL:
        marker = f" [sensitive: {row.sensitivity.value}; use only for this task]"
    return f"- {one_line(row.summary)} ({when}){marker} {ref}"


class TurnLookup:
    """Semantic + keyword search, fused, confirmed against the catalog, capped."""

    def __init__(
        self,
        index: MemoryIndex,
        embedder: Embedder,
        catalog: Catalog,
        clock: Clock,
        time_zone: Callable[[str], str],
        settings: LookupSettings | None = None,
        executor: Executor | None = None,
        names: NameBook | None = None,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.catalog = catalog
        self.clock = clock
        self.time_zone = time_zone
        self.settings = settings or LookupSettings()
        #: family id -> every name the family uses for its people, to entity ids (must-know rules).
        self.names = names
        self._executor = executor or ThreadPoolExecutor(max_workers=2, thread_name_prefix="lookup")
        #: (row object's id, family, day, zone, rule?) -> (the row, its ref, age, line, tokens): ``_line``.
        self._lines: dict[tuple[int, str, date, str, bool], tuple[CatalogRow, tuple[str, str, str, int]]] = {}
        self._lines_lock = threading.Lock()

    # --- the pieces ---------------------------------------------------------------

    def eligibility(self, family_id: str, surface: Surface) -> tuple[SearchFilter, date, str]:
        zone = self.time_zone(family_id)
        today = local_date(self.clock.now(), zone)
        sensitivities = frozenset({Sensitivity.NORMAL}) if surface is Surface.HOUSEHOLD else None
        return SearchFilter.current(today, sensitivities=sensitivities), today, zone

    def why_not_current(self, row: CatalogRow | None, today: date, surface: Surface) -> str | None:
        """The catalog's verdict on a hit: None when it may be returned."""
        if row is None:
            return "no catalog row"
        if row.status is not Status.ACTIVE:
            return f"status is {row.status.value}"
        if row.valid_until is not None and row.valid_until <= today:
            return f"valid until {row.valid_until.isoformat()}, which has arrived"
        if surface is Surface.HOUSEHOLD and row.sensitivity is not Sensitivity.NORMAL:
            return f"{row.sensitivity.value} memories stay out of shared threads"
        return None

    def embed_query(self, family_id: str, query: str) -> Vector:
        """The message's vector. Whatever goes wrong inside the embedder (a tokenizer
        refusing a character, a message with nothing left to embed) costs the turn its
        semantic half, never the turn: it surfaces as EmbeddingUnavailableError."""
        try:
            return self.embedder.embed_one(query)
        except EmbeddingUnavailableError:
            raise
        except Exception as exc:  # any embedder failure degrades the same way
            log.warning(
                "the embedder failed on a message; keyword search only",
                extra={"family_id": family_id, "error": f"{type(exc).__name__}: {exc}"[:300]},
            )
            raise EmbeddingUnavailableError(f"embedder {self.embedder.model_id} failed: {type(exc).__name__}") from exc

    def ranked(
        self,
        family_id: str,
        query: str,
        surface: Surface = Surface.CHAT,
        *,
        query_vector: Vector | None = None,
        need: int | None = None,
        matches_only: bool = False,
    ) -> tuple[list[tuple[CatalogRow, Via]], LookupResult, str]:
        """Confirmed rows in fused order, with how each was found. With ``need``,
        hits are confirmed a chunk at a time until that many are confirmed.

        The matches (keyword hits, semantic hits at or above the floor) come first, fused; then,
        unless ``matches_only`` or nothing matched, the rest of the semantic hits, nearest first."""
        family_id = check_family_id(family_id)
        if not isinstance(query, str):
            raise InvalidInputError("the query must be a string")
        query = query.strip()[:MAX_QUERY_CHARS]
        result = LookupResult(family_id, [], "", 0)
        if not query:
            return [], result, "UTC"
        search_filter, today, zone = self.eligibility(family_id, surface)
        k = max(self.settings.candidates_per_search, need or 0)

        def search_words() -> list[Hit]:
            return self.index.keyword(family_id, query, search_filter, k)

        # An engine that answers in this process (the embedded index) searches on this thread when
        # the vector is given: a worker's hand-off and the two threads' turns at the interpreter
        # cost more than the overlap saves. Otherwise the keyword half runs beside the embedding
        # and the semantic half; the worker runs in the caller's context, so the request's deadline
        # bounds it too.
        inline = query_vector is not None and self.index.in_process
        keyword_future = None if inline else self._executor.submit(contextvars.copy_context().run, search_words)
        semantic_error: FamilyMemoryError | None = None
        try:
            vector = query_vector if query_vector is not None else self.embed_query(family_id, query)
            semantic_hits = self.index.semantic(family_id, vector, search_filter, k)
        except (EmbeddingUnavailableError, IndexUnavailableError) as exc:
            # A throttled embedder or a slow engine costs this turn its semantic half, not its lookup.
            semantic_error, semantic_hits = exc, []
        try:
            keyword_hits = search_words() if keyword_future is None else keyword_future.result()
        except (EmbeddingUnavailableError, IndexUnavailableError):
            if semantic_error is not None:
                raise
            keyword_hits = []
            log.warning("keyword search failed; semantic hits only", extra={"family_id": family_id})
        if semantic_error is not None:
            log.warning("semantic search failed; keyword hits only", extra={"family_id": family_id})
        floor = self.settings.min_similarity
        floor = self.embedder.relevance_floor if floor is None else floor
        below = [hit for hit in semantic_hits if hit.score < floor]
        semantic_hits = [hit for hit in semantic_hits if hit.score >= floor]
        order = self.settings.fuse([h.memory_id for h in semantic_hits], [h.memory_id for h in keyword_hits])
        if order and not matches_only:
            # Below the floor: no match, but the next nearest, ranked after every match.
            matched = set(order)
            tail = [hit for hit in below if hit.memory_id not in matched]
            order += [hit.memory_id for hit in tail]
            semantic_hits += tail
        result.hits = len(order)
        via = _found_by(semantic_hits, keyword_hits)
        indexed_revision = {h.memory_id: h.revision for h in (*keyword_hits, *semantic_hits)}
        confirmed: list[tuple[CatalogRow, Via]] = []
        chunk = max(2 * need, 8) if need else max(len(order), 1)
        for start in range(0, len(order), chunk):
            if need is not None and len(confirmed) >= need:
                break
            ids = order[start : start + chunk]
            rows = self.catalog.get_rows(family_id, ids)
            for memory_id in ids:
                row = rows.get(memory_id)
                reason = self.why_not_current(row, today, surface)
                if reason is not None or row is None:
                    result.dropped[memory_id] = reason or "no catalog row"
                    continue
                if row.revision != indexed_revision[memory_id]:
                    result.lagging.append(memory_id)
                confirmed.append((row, via[memory_id]))
        if result.dropped:
            log.info("index hits overruled by the catalog", extra={"family_id": family_id, "dropped": result.dropped})
        return confirmed, result, zone

    # --- the turn-level lookup ---------------------------------------------------------

    def lookup(
        self,
        family_id: str,
        message: str,
        surface: Surface = Surface.CHAT,
        *,
        max_items: int | None = None,
        max_tokens: int | None = None,
        query_vector: Vector | None = None,
        member_id: str | None = None,
    ) -> LookupResult:
        """The block to place in the turn for ``message`` ("" when nothing qualifies).
        ``member_id``: who sent it, so their own rules count as concerning them ("book me...")."""
        items_cap = self.settings.max_items if max_items is None else max_items
        tokens_cap = self.settings.max_tokens if max_tokens is None else max_tokens
        if not 0 <= items_cap <= MAX_ITEMS_LIMIT:
            raise InvalidInputError(f"max_items must be between 0 and {MAX_ITEMS_LIMIT}, got {items_cap}")
        if not 0 <= tokens_cap <= MAX_TOKENS_LIMIT:
            raise InvalidInputError(f"max_tokens must be between 0 and {MAX_TOKENS_LIMIT}, got {tokens_cap}")
        if query_vector is None and message.strip():
            try:
                query_vector = self.embed_query(family_id, message.strip()[:MAX_QUERY_CHARS])
            except EmbeddingUnavailableError:
                query_vector = None  # the ranked search degrades to keywords; the rules pass is skipped
        confirmed, result, zone = self.ranked(
            family_id, message, surface, query_vector=query_vector, need=items_cap, matches_only=True
        )
        rules, withheld = self.rules_for(family_id, message, surface, query_vector, member_id)
        note = LOOKUP_NOTE + (f" {WITHHELD_NOTE}" if withheld else "")
        frame = count_tokens(f"{LOOKUP_OPEN}\n{note}\n{LOOKUP_CLOSE}")
        now = self.clock.now()
        rule_items, rule_cost = self._fit(
            family_id, [(r, "rule") for r in rules], self.settings.rule_items, self.settings.rule_tokens, now, zone
        )
        taken = {item.row.id for item in rule_items}
        # What the day asked about holds comes first among the candidates, in their own budget.
        # Ranked as the message ranks them (those of the people it names first).
        place = {row.id: n for n, (row, _) in enumerate(confirmed)}
        planned: list[tuple[CatalogRow, Via]] = [
            (row, "schedule") for row in self.schedule_for(family_id, message, surface, place) if row.id not in taken
        ]
        taken |= {row.id for row, _ in planned}
        candidates = [*planned, *((row, via) for row, via in confirmed if row.id not in taken)]
        candidate_items, candidate_cost = self._fit(family_id, candidates, items_cap, tokens_cap - frame, now, zone)
        result.items = [*rule_items, *candidate_items]
        result.must_know = [item.row.id for item in rule_items]
        if result.items:
            result.block = "\n".join([LOOKUP_OPEN, note, *(item.line for item in result.items), LOOKUP_CLOSE])
            # The block's count is the frame's and each line's with its newline, as ``_fit`` counted
            # them (counting the block again cost a lookup 0.05 to 0.3 ms). Exact: cl100k splits text
            # into pieces before merging, and no piece spans a line break here, since every line
            # starts "- " and ends with its reference's id (letters and digits) and the note ends
            # with "." (tests/integration/test_lookup_caches.py counts the block both ways).
            result.tokens = frame + rule_cost + candidate_cost
        return result

    def _fit(
        self,
        family_id: str,
        rows: Sequence[tuple[CatalogRow, Via]],
        max_items: int,
        max_tokens: int,
        now: datetime,
        zone: str,
    ) -> tuple[list[LookupItem], int]:
        """As many of ``rows`` as fit ``max_items`` and ``max_tokens`` (each line and the newline
        joining it counted), in order, and the tokens they take; a line too long for what is left
        is skipped, not the rest."""
        items: list[LookupItem] = []
        used = 0
        today = local_date(now, zone)
        for row, via in rows:
            if len(items) >= max_items:
                break
            ref, age, line, cost = self._line(family_id, row, today, zone, via == "rule")
            if used + cost > max_tokens:
                continue  # a shorter one further down may still fit
            used += cost
            items.append(LookupItem(row, ref, age, line, via))
        return items, used

    def _line(self, family_id: str, row: CatalogRow, today: date, zone: str, rule: bool) -> tuple[str, str, str, int]:
        """A row's reference, age, line and the tokens the line takes with its newline, kept by the
        row object itself (held with the entry, so its id is not reused while the entry lives), the
        day and the zone: a row is frozen and a write is a new row, so no line outlives its data."""
        key = (id(row), family_id, today, zone, rule)
        kept = self._lines.get(key)
        if kept is not None and kept[0] is row:
            return kept[1]
        ref = str(MemoryRef(family_id, row.id))
        said = local_date(row.formed_at, zone)
        age = days_in_words((today - said).days)
        line = line_for(row, ref, age, zone, rule=rule, said=said)
        made = (ref, age, line, count_tokens(line) + 1)
        with self._lines_lock:
            if len(self._lines) >= LINES_KEPT:
                del self._lines[next(iter(self._lines))]  # the oldest kept (a dict keeps insertion order)
            self._lines[key] = (row, made)
        return made

    def schedule_for(
        self, family_id: str, message: str, surface: Surface, place: dict[str, int] | None = None
    ) -> list[CatalogRow]:
        """The standing arrangements that fall on the day ``message`` asks about ("what's on
        tuesday": "madrasa Monday to Thursday, 5 to 6:30"), those of the people it names first,
        at most ``schedule_items`` (``schedule.py``). One keyword pass for any weekday's name,
        confirmed against the catalog."""
        search_filter, today, _ = self.eligibility(family_id, surface)
        weekday = asked_weekday(message, today)
        if weekday is None or self.settings.schedule_items == 0:
            return []
        current = self._current_words_hits(family_id, SCHEDULE_QUERY, search_filter, today, surface)
        planned = [row for row in current if covers(row.summary, weekday)]
        book = self.names(family_id) if self.names is not None else {}
        also = [
            row
            for row in self._named_arrangements(family_id, activity_words(message, book), search_filter, today, surface)
            if row not in planned
        ]
        named = people_named(message, book) if self.names is not None else set()
        rank = place or {}

        def order(row: CatalogRow) -> tuple[int, int]:
            return (0 if set(row.applies_to) & named else 1, rank.get(row.id, len(rank)))

        return [*sorted(planned, key=order), *sorted(also, key=order)][: self.settings.schedule_items]

    def _current_words_hits(
        self, family_id: str, words: str, search_filter: SearchFilter, today: date, surface: Surface
    ) -> list[CatalogRow]:
        """The keyword hits for ``words`` (at most ``POOL``), confirmed current against the catalog,
        in hit order; none while the index is unavailable."""
        try:
            hits = self.index.keyword(family_id, words, search_filter, POOL)
        except IndexUnavailableError:
            return []
        rows = self.catalog.get_rows(family_id, [h.memory_id for h in hits])
        return [
            row
            for hit in hits
            if (row := rows.get(hit.memory_id)) is not None and self.why_not_current(row, today, surface) is None
        ]

    def _named_arrangements(
        self, family_id: str, activities: set[str], search_filter: SearchFilter, today: date, surface: Surface
    ) -> list[CatalogRow]:
        """The standing arrangements a day question names by what they are ("is there piano that
        day?": "piano moved to Wednesdays and Fridays" answers it), whatever their days: one keyword
        pass for the words (the day names' pass ranks by days), a word kept when at most two
        arrangements share it."""
        if not activities:
            return []
        words = " ".join(sorted(activities))
        arrangements = [
            row
            for row in self._current_words_hits(family_id, words, search_filter, today, surface)
            if recurs(row.summary)
        ]
        found: list[CatalogRow] = []
        for word in sorted(activities):
            sharing = [row for row in arrangements if word in arrangement_words(row.summary)]
            if len(sharing) <= 2:
                found += [row for row in sharing if row not in found]
        return found

    def rules_for(
        self, family_id: str, message: str, surface: Surface, vector: Vector | None, member_id: str | None = None
    ) -> tuple[list[CatalogRow], bool]:
        """The family's current constraints and directives that bear on ``message``, most pressing
        first (``must_know``); and whether a sensitive one was withheld (household surface).
        One filtered pass over the index (a family has few rules), confirmed against the catalog."""
        if vector is None or self.names is None or not message.strip():
            return [], False
        _, today, _ = self.eligibility(family_id, Surface.CHAT)
        rule_filter = SearchFilter.current(today, types=POOL_TYPES)
        try:
            hits = self.index.semantic(family_id, vector, rule_filter, POOL)
        except IndexUnavailableError:
            return [], False
        tasks = tasks_of(message)
        if tasks & FACT_TASKS:
            # The facts that lift or narrow a food rule ("no longer lactose intolerant"), the
            # medicines someone takes, who looks after the children; after the rules.
            types = FACT_TYPES if "care" in tasks else frozenset({MemoryType.FACT})
            fact_filter = SearchFilter.current(today, types=types)
            with contextlib.suppress(IndexUnavailableError):
                hits = [*hits, *self.index.semantic(family_id, vector, fact_filter, POOL)]
        kin = kin_said(message) if member_id else []
        if kin and "care" not in tasks:
            # "take ma maw for her lunch": who the speaker's mother is, to reach her rules.
            kin_filter = SearchFilter.current(today, types=frozenset({MemoryType.RELATIONSHIP}))
            with contextlib.suppress(IndexUnavailableError):
                hits = [*hits, *self.index.semantic(family_id, vector, kin_filter, POOL)]
        rows = self.catalog.get_rows(family_id, [h.memory_id for h in hits])
        current = [
            (row, place)
            for place, hit in enumerate(hits)
            if (row := rows.get(hit.memory_id)) is not None and self.why_not_current(row, today, Surface.CHAT) is None
        ]
        names = self.names(family_id)
        speaker = names.get(normalise_for_match(member_id), frozenset()) if member_id else frozenset()
        chosen = must_know(message, current, names, speaker, kin)
        if surface is Surface.HOUSEHOLD:
            shared = [m.row for m in chosen if m.row.sensitivity is Sensitivity.NORMAL]
            return shared, len(shared) < len(chosen)
        return [m.row for m in chosen], False


def _found_by(semantic: Sequence[Hit], keyword: Sequence[Hit]) -> dict[str, Via]:
    in_semantic = {h.memory_id for h in semantic}
    in_keyword = {h.memory_id for h in keyword}
    return {
        memory_id: "both"
        if memory_id in in_semantic and memory_id in in_keyword
        else ("semantic" if memory_id in in_semantic else "keyword")
        for memory_id in in_semantic | in_keyword
    }
