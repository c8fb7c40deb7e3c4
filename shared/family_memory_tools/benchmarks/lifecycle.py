"""``bench brief``, ``bench dream``, ``bench fanout``: figures for the lifecycle.

They print what they measured and the machine they ran on; they assert
nothing. Targets from issue 5: compile at most 50 ms at 5,000 memories; a
dream at most 100 ms per family of 1,000 memories; the fan-out for 10,000
families on one machine.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from family_memory.brief.compile import compile_brief
from family_memory.brief.render import brief_tokens
from family_memory.domain.changes import MAX_WRITES_PER_CHANGE_SET, Action, ChangeSet, MemoryWrite
from family_memory.domain.clock import FixedClock
from family_memory.domain.entity import Entity, EntityKind
from family_memory.domain.family import FamilySettings, Member, MemberRole
from family_memory.domain.ids import new_ulid
from family_memory.domain.memory import Authority, Durability, Memory, MemoryType, Sensitivity, Strength

START = datetime(2026, 11, 16, 20, 0, tzinfo=UTC)
ZONES = ("America/Los_Angeles", "America/New_York", "Europe/London", "Europe/Berlin", "Asia/Kolkata", "UTC")
SUBJECTS = (
    "Soccer practice", "School pickup", "Peanut allergy", "Grandma's visit", "Piano lessons", "Dentist",
    "Pizza night", "Family car", "Summer camp", "Pharmacy", "Birthday party", "Swim team", "Carpool",
    "Bedtime", "Screen time", "Groceries", "Vacation", "Homework", "Vet visits", "Weekend chores",
)  # fmt: skip
WORDS = (
    "always", "ask", "before", "booking", "the", "team", "chat", "prefers", "morning", "quiet", "call",
    "Maya", "Lucía", "Marco", "coach", "Friday", "dinner", "weekend", "gluten", "free", "pickup", "3pm",
)  # fmt: skip


def machine() -> str:
    return (
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()} "
        f"({platform.python_implementation()})"
    )


def synthetic_family(family_id: str, time_zone: str = "America/Los_Angeles") -> FamilySettings:
    return FamilySettings(
        family_id=family_id,
        time_zone=time_zone,
        members=[
            Member(id="lucia", name="Lucía Rivera", address_as="Lu"),
            Member(id="marco", name="Marco Rivera"),
            Member(id="maya", name="Maya Rivera", role=MemberRole.CHILD),
            Member(id="leo", name="Leo Rivera", role=MemberRole.CHILD),
        ],
    )


def synthetic_entities(count: int = 10) -> list[Entity]:
    return [
        Entity(
            id=new_ulid(),
            type=EntityKind.PERSON if i % 3 else EntityKind.PLACE,
            name=f"Person {i}",
            relationship="friend" if i % 3 else None,
            created_at=START,
        )
        for i in range(count)
    ]


def synthetic_memories(
    count: int, rng: random.Random, entities: list[Entity], *, start: datetime = START
) -> list[Memory]:
    """A realistic mix: mostly facts and preferences, some directives and constraints,
    a few inferences, a tenth sensitive, some passing facts with end dates."""
    memories = []
    for _ in range(count):
        kind = rng.choices(list(MemoryType), weights=(5, 15, 25, 35, 10, 10))[0]
        authority = rng.choices(list(Authority), weights=(30, 40, 25, 5))[0]
        durability = rng.choices(list(Durability), weights=(60, 10, 30))[0]
        formed = start - timedelta(days=rng.randint(0, 400), minutes=rng.randint(0, 1440))
        reinforced = formed + timedelta(days=rng.randint(0, 30))
        if reinforced > start:
            reinforced = start
        length = rng.choice((6, 10, 16, 30, 45))
        summary = " ".join(rng.choice(WORDS) for _ in range(length)).capitalize() + "."
        hard = kind in (MemoryType.DIRECTIVE, MemoryType.CONSTRAINT) and authority is Authority.USER_EXPLICIT
        memories.append(
            Memory(
                id=new_ulid(),
                type=kind,
                about=rng.choice(SUBJECTS),
                summary=summary[:300],
                applies_to=[rng.choice(entities).id] if entities and rng.random() < 0.4 else [],
                strength=Strength.HARD if hard and rng.random() < 0.5 else Strength.SOFT,
                pin=rng.random() < 0.01,
                authority=authority,
                confidence=round(rng.uniform(0.5, 1.0), 2),
                durability=durability,
                formed_at=formed,
                last_reinforced_at=reinforced,
                reinforcement_count=rng.choice((0, 0, 0, 1, 2, 3, 5)),
                valid_until=(start.date() + timedelta(days=rng.randint(1, 30)))
                if durability is Durability.PASSING and rng.random() < 0.5
                else None,
                sensitivity=Sensitivity.HEALTH if rng.random() < 0.1 else Sensitivity.NORMAL,
            )
        )
    return memories


def _timed(run: Callable[[], object], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        run()
        times.append((time.perf_counter() - began) * 1000)
    return times


def _stats(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"median {statistics.median(ordered):7.2f} ms, p95 {p95:7.2f} ms, min {ordered[0]:7.2f} ms (n={len(ordered)})"
    )


def _verdict(value: float, target: float) -> str:
    return f"median against the {target:.0f} ms target: {'met' if value <= target else 'MISSED'}"


def _sizes(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def register(subparsers: Any) -> None:
    brief = subparsers.add_parser("brief", help="compile time of the brief at 100, 1,000 and 5,000 memories")
    brief.add_argument("--sizes", default="100,1000,5000")
    brief.add_argument("--repeats", type=int, default=30)
    brief.set_defaults(run=bench_brief)
    dream = subparsers.add_parser("dream", help="dream time per family at 100, 1,000 and 5,000 memories (local)")
    dream.add_argument("--sizes", default="100,1000,5000")
    dream.add_argument("--repeats", type=int, default=10)
    dream.set_defaults(run=bench_dream)
    fanout = subparsers.add_parser("fanout", help="hourly fan-out over 10,000 families on one machine")
    fanout.add_argument("--families", type=int, default=10_000)
    fanout.add_argument("--backend", choices=("local", "moto"), default="local")
    fanout.set_defaults(run=bench_fanout)


# --- bench brief ---------------------------------------------------------------


def bench_brief(args: argparse.Namespace) -> int:
    print(machine())
    print("compile_brief: a pure compile from memories already read (the dream compiles from catalog rows)")
    rng = random.Random(5)
    entities = synthetic_entities()
    settings = synthetic_family("fam-bench")
    for size in _sizes(args.sizes):
        memories = synthetic_memories(size, rng, entities)
        compile_brief(memories, settings, entities)  # warm the tokenizer and caches
        times = _timed(functools.partial(compile_brief, memories, settings, entities), args.repeats)
        tokens = brief_tokens(compile_brief(memories, settings, entities))
        target = f"; {_verdict(statistics.median(times), 50)}" if size == 5000 else ""
        print(f"  {size:>5} memories: {_stats(times)}; brief {tokens} tokens{target}")
    return 0


# --- bench dream ---------------------------------------------------------------


def _seed_family(runtime: Any, family_id: str, memories: list[Memory], settings: FamilySettings) -> None:
    from family_memory.families import save_family

    save_family(runtime.store, settings)
    with runtime.writer.open(family_id) as session:
        for start in range(0, len(memories), MAX_WRITES_PER_CHANGE_SET):
            chunk = memories[start : start + MAX_WRITES_PER_CHANGE_SET]
            session.apply(
                ChangeSet(
                    id=new_ulid(),
                    family_id=family_id,
                    actor="process:bench",
                    reason="benchmark seed",
                    created_at=START,
                    memories=[MemoryWrite(action=Action.ADD, memory=m) for m in chunk],
                )
            )


def bench_dream(args: argparse.Namespace) -> int:
    from family_memory.app.bootstrap import build_local
    from family_memory.app.settings import load_settings
    from family_memory.lifecycle.dream import dream_family

    print(machine())
    print("dream_family on the local adapters (directory store with fsync, SQLite catalog), one family at a time")
    rng = random.Random(7)
    for size in _sizes(args.sizes):
        with tempfile.TemporaryDirectory(prefix="fm-bench-dream-") as home:
            clock = FixedClock(START)
            runtime = build_local(load_settings(home=home, backend="local", lease_wait_seconds=5), clock)
            family_id = f"fam-bench-{size}"
            entities = synthetic_entities()
            memories = synthetic_memories(size, rng, entities)
            began = time.perf_counter()
            _seed_family(runtime, family_id, memories, synthetic_family(family_id))
            seeded = time.perf_counter() - began
            deps = runtime.lifecycle.deps
            first = dream_family(deps, family_id, now=clock.now())
            quiet = _timed(functools.partial(dream_family, deps, family_id, now=clock.now()), args.repeats)
            # Nightly passes with work to do: each new day some memories expire.
            nightly: list[float] = []
            transitions = 0
            for day in range(1, min(args.repeats, 10) + 1):
                clock.set(START + timedelta(days=day, hours=12))
                began = time.perf_counter()
                report = dream_family(deps, family_id, now=clock.now())
                nightly.append((time.perf_counter() - began) * 1000)
                transitions += len(report.transitions)
            target = 100 if size == 1000 else None
            print(
                f"  {size:>5} memories (seeded in {seeded:.1f} s; first pass made {len(first.transitions)} transitions)"
            )
            print(
                f"        pass with nothing to do: {_stats(quiet)}"
                + (f"; {_verdict(statistics.median(quiet), target)}" if target else "")
            )
            print(
                f"        nightly pass with work:  {_stats(nightly)}; {transitions / len(nightly):.1f} transitions "
                "per pass (each an fsynced file write)"
                + (f"; {_verdict(statistics.median(nightly), target)}" if target else "")
            )
    return 0


# --- bench fanout --------------------------------------------------------------


def _family_ids(count: int) -> Iterator[str]:
    for i in range(count):
        yield f"fam-{i:06d}"


def bench_fanout(args: argparse.Namespace) -> int:
    print(machine())
    return _fanout_moto(args.families) if args.backend == "moto" else _fanout_local(args.families)


def _states_for(ledger: Any, families: list[str], now: datetime) -> None:
    """Half the families dreamed last night already (not due), a quarter are due, a quarter never dreamed."""
    from family_memory.lifecycle.schedule import next_local_midnight

    for i, family_id in enumerate(families):
        zone = ZONES[i % len(ZONES)]
        if i % 4 == 3:
            continue
        last = now - timedelta(days=1) if i % 4 == 2 else now
        ledger.record_dream(
            family_id, time_zone=zone, local_date=last.date(), next_dream_at=next_local_midnight(last, zone)
        )


def _throughput(elapsed: float, count: int, enqueued: int) -> str:
    return f"  {elapsed * 1000:.0f} ms: {count / elapsed:,.0f} families/s scanned, {enqueued / elapsed:,.0f}/s enqueued"


def _fanout_local(count: int) -> int:
    from family_memory.adapters.local.directory_store import DirectoryStore
    from family_memory.adapters.local.dream_queue import LocalDreamQueue
    from family_memory.adapters.local.sqlite_dream_ledger import SQLiteDreamLedger
    from family_memory.lifecycle.fanout import fan_out

    with tempfile.TemporaryDirectory(prefix="fm-bench-fanout-") as home:
        store = DirectoryStore(Path(home))
        families = list(_family_ids(count))
        for family_id in families:
            store.family_dir(family_id).mkdir(parents=True)
        ledger = SQLiteDreamLedger(Path(home) / "dreams.sqlite3")
        now = START
        _states_for(ledger, families, now)
        queue = LocalDreamQueue()
        began = time.perf_counter()
        report = fan_out(store, ledger, queue, now=now + timedelta(hours=1))
        elapsed = time.perf_counter() - began
    print("fan-out on the local adapters (directory listing, SQLite ledger, in-process queue)")
    print(f"  {report.lines()[0]}")
    print(_throughput(elapsed, count, report.enqueued))
    return 0


def _fanout_moto(count: int) -> int:
    import boto3
    from moto import mock_aws

    from family_memory.adapters.aws.dynamo_catalog import table_definition
    from family_memory.adapters.aws.dynamo_dream_ledger import DynamoDreamLedger
    from family_memory.adapters.aws.s3_store import S3Store
    from family_memory.adapters.aws.sqs_dream_queue import SQSDreamQueue
    from family_memory.lifecycle.fanout import fan_out

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    with mock_aws():
        session = boto3.session.Session(region_name="us-east-1")
        s3, ddb, sqs = session.client("s3"), session.client("dynamodb"), session.client("sqs")
        s3.create_bucket(Bucket="bench")
        ddb.create_table(**table_definition("bench"))
        url = sqs.create_queue(QueueName="dreams")["QueueUrl"]
        store, ledger = S3Store(s3, "bench"), DynamoDreamLedger(ddb, "bench")
        families = list(_family_ids(count))
        for family_id in families:
            store.put(family_id, "family.json", b"{}")
        now = START
        _states_for(ledger, families, now)
        began = time.perf_counter()
        report = fan_out(store, ledger, SQSDreamQueue(sqs, url), now=now + timedelta(hours=1))
        elapsed = time.perf_counter() - began
    print("fan-out against moto's in-process S3, DynamoDB and SQS: the real boto3 calls, but the time is")
    print("  mostly moto's own Python implementation, so this measures moto, not AWS")
    print(f"  {report.lines()[0]}")
    print(_throughput(elapsed, count, report.enqueued))
    return 0
