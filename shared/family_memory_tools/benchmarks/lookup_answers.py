"""Record what the turn-level lookup answers over the bench family, to compare two commits.

A speed change to the lookup must not change any answer. This builds the bench family of
``bench retrieval`` (fixed memory ids, and some rows made to apply to the bench's people and
made hard, so every branch of the must-know pass runs), then for every message records, on both
surfaces, with and without a member and with smaller caps: the lookup's block, tokens, items
(id, how found, line), must-know ids, dropped and lagging hits; ``ranked`` (matches and the tail
below the floor); ``rules_for``; ``schedule_for``; and both engines' 200 hits with their scores.
Every 60 messages it writes: a new memory (index and catalog), an edit of a rule's summary, a
superseded row and a deleted one, so caches must see each write.

    PYTHONHASHSEED=0 PYTHONPATH=shared python -m family_memory_tools.benchmarks.lookup_answers OUT.jsonl [--size 5000]

Run it on both commits and compare the files (``cmp A B``); each line is one message's record.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import tempfile
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

# As the service runs (family-memory sets it): with two BLAS threads each thread scores its half
# of the rows, and the last rows of each half round differently.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import family_memory_tools.benchmarks.retrieval as bench
from family_memory.adapters.local.embedded_index import EmbeddedIndex
from family_memory.adapters.local.sqlite_catalog import SQLiteCatalog
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import Surface
from family_memory.domain.memory import MemoryType, Status, Strength
from family_memory.retrieval.lookup import LookupResult, TurnLookup
from family_memory.retrieval.must_know import names_of
from family_memory.retrieval.search_index import SearchFilter

#: Messages that reach the facts pass and the rules the bench's plain questions do not.
TASKS = [
    "what should we bring to the potluck with {a}",
    "plan dinner for everyone on Friday, {a} is coming",
    "can {p} have ice cream at {a}'s party",
    "what does {p} take tonight",
    "who can watch {p} on Tuesday",
    "book a table for the family at {a}",
    "pack {p}'s lunch for the field trip",
    "drive {p} to soccer practice after school",
    "send a message to {a} about the sleepover",
    "what's on for {p} on Saturday",
    "I need to pick up {p} from piano lesson",
    "is {p} allowed to eat pizza",
]


def deterministic_ids() -> Iterator[str]:
    for n in itertools.count():
        yield f"01J{n:023d}"


def messages(count: int) -> list[str]:
    rng = random.Random(29)
    plain = bench.bench_messages(count)
    out: list[str] = []
    for n, message in enumerate(plain):
        out.append(message)
        if n % 2 == 0:
            template = TASKS[(n // 2) % len(TASKS)]
            out.append(template.format(p=rng.choice(bench.PEOPLE), a=bench.family_name(rng)))
    return out[:count]


def result_record(result: LookupResult) -> dict[str, Any]:
    return {
        "block": result.block,
        "tokens": result.tokens,
        "hits": result.hits,
        "items": [(i.row.id, i.via, i.ref, i.age, i.line) for i in result.items],
        "must_know": result.must_know,
        "dropped": sorted(result.dropped.items()),
        "lagging": result.lagging,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--messages", type=int, default=400)
    args = parser.parse_args()

    from family_memory.adapters.local.minilm_embedder import MiniLMEmbedder

    ids = deterministic_ids()
    bench.new_ulid = lambda: next(ids)  # type: ignore[attr-defined]
    embedder = MiniLMEmbedder()
    texts = messages(args.messages)
    vectors = embedder.embed(texts)
    rng = random.Random(5)
    people = [f"01K{n:023d}" for n in range(len(bench.PEOPLE))]
    book = names_of(list(zip(people, [[person] for person in bench.PEOPLE], strict=True)))
    with tempfile.TemporaryDirectory(prefix="fm-answers-") as tmp:
        home = Path(tmp)
        documents, rows = bench.synthetic_family(args.size, embedder.dimension)
        # Some rows apply to the bench's people, and some rules are hard: the must-know pass's
        # named, household and hard branches all run.
        rows = [
            row.model_copy(
                update={
                    "applies_to": rng.sample(people, rng.choice([1, 1, 2])) if rng.random() < 0.5 else [],
                    "strength": Strength.HARD if rng.random() < 0.3 else Strength.SOFT,
                }
            )
            for row in rows
        ]
        index = EmbeddedIndex(home / "index", embedder.dimension)
        catalog = SQLiteCatalog(home / "catalog.sqlite3")
        index.upsert(bench.FAMILY, documents)
        lease = catalog.acquire_lease(bench.FAMILY, "answers", timedelta(hours=1))
        catalog.put_rows(bench.FAMILY, rows, lease=lease)
        clock = FixedClock(bench.NOW)

        def names(_family_id: str) -> dict[str, frozenset[str]]:
            return book

        lookup = TurnLookup(index, embedder, catalog, clock, lambda _f: "UTC", names=names)
        peer = TurnLookup(index, embedder, catalog, clock, lambda _f: "UTC", settings=bench.PEER, names=names)
        current = SearchFilter.current(date(2026, 11, 30))
        fresh_docs, fresh_rows = bench.synthetic_family(60, embedder.dimension, seed=11)
        by_id = {row.id: row for row in rows}
        rules = [row for row in rows if row.type in (MemoryType.CONSTRAINT, MemoryType.DIRECTIVE)]
        with args.out.open("w") as out:
            for n, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
                if n and n % 60 == 0:
                    w = n // 60
                    # A new memory; a rule's summary edited; a row superseded; a row deleted.
                    index.upsert(bench.FAMILY, [fresh_docs[w]])
                    catalog.put_rows(bench.FAMILY, [fresh_rows[w]], lease=lease)
                    edited = rules[w * 7 % len(rules)]
                    by_id[edited.id] = edited.model_copy(
                        update={"summary": edited.summary + " No peanuts at dinner.", "revision": edited.revision + 1}
                    )
                    superseded = rows[w * 13 % len(rows)]
                    by_id[superseded.id] = superseded.model_copy(
                        update={"status": Status.SUPERSEDED, "revision": superseded.revision + 1}
                    )
                    catalog.put_rows(bench.FAMILY, [by_id[edited.id], by_id[superseded.id]], lease=lease)
                    gone = rows[w * 17 % len(rows)].id
                    catalog.delete_rows(bench.FAMILY, [gone], lease=lease)
                    index.delete(bench.FAMILY, [gone])
                member = people[n % len(people)]
                record: dict[str, Any] = {"n": n, "message": text}
                for surface in (Surface.CHAT, Surface.HOUSEHOLD):
                    s = surface.value
                    record[f"lookup/{s}"] = result_record(
                        lookup.lookup(bench.FAMILY, text, surface, query_vector=vector)
                    )
                    record[f"lookup/{s}/member"] = result_record(
                        lookup.lookup(bench.FAMILY, text, surface, query_vector=vector, member_id=member)
                    )
                    record[f"lookup/{s}/caps"] = result_record(
                        lookup.lookup(bench.FAMILY, text, surface, query_vector=vector, max_items=3, max_tokens=200)
                    )
                    record[f"peer/{s}"] = result_record(peer.lookup(bench.FAMILY, text, surface, query_vector=vector))
                    confirmed, result, _ = lookup.ranked(bench.FAMILY, text, surface, query_vector=vector)
                    record[f"ranked/{s}"] = [[row.id, via] for row, via in confirmed] + [sorted(result.dropped)]
                    found, withheld = lookup.rules_for(bench.FAMILY, text, surface, vector, member)
                    record[f"rules_for/{s}"] = [[row.id for row in found], withheld]
                    record[f"schedule/{s}"] = [row.id for row in lookup.schedule_for(bench.FAMILY, text, surface)]
                record["semantic"] = [
                    [h.memory_id, repr(h.score)] for h in index.semantic(bench.FAMILY, vector, current, 200)
                ]
                record["keyword"] = [
                    [h.memory_id, repr(h.score)] for h in index.keyword(bench.FAMILY, text, current, 200)
                ]
                out.write(json.dumps(record, sort_keys=True) + "\n")
    print(f"{len(texts)} messages recorded to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
