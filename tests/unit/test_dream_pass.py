"""The dream pass for one family: through the write protocol, logged, idempotent per date,
and triggered by changes (coalesced, converging) on the local runtime."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from conftest import Adapters
from factories import FAMILY, OTHER_FAMILY, change_set, memory, update
from family_memory.adapters.local.directory_store import DirectoryStore
from family_memory.app.bootstrap import build_local
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.brief.model import parse_brief
from family_memory.card.operations import forget_memory
from family_memory.domain.changes import Action, ChangeRecord, ChangeSet, MemoryWrite
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import FamilySettings, Member
from family_memory.domain.layout import BRIEF, CHANGES, INDEX, LOG, candidates_path, session_path
from family_memory.domain.memory import Authority, Durability, Memory, MemoryType, Status
from family_memory.domain.okf import check_bundle, parse_json, parse_memory, serialise_json, serialise_memory
from family_memory.families import save_family
from family_memory.formation.document import CandidatesDocument
from family_memory.lifecycle.dream import DreamDeps, dream_family
from family_memory.lifecycle.triggers import Trigger, dream_on_triggers, trigger_for_key
from family_memory.ports.lifecycle import DreamLedger
from family_memory.writes.protocol import FamilyWriter

LA = "America/Los_Angeles"
EVENING_16TH = datetime(2026, 11, 17, 4, 0, tzinfo=UTC)  # 20:00 on the 16th in Los Angeles
MIDNIGHT_17TH = datetime(2026, 11, 17, 8, 0, tzinfo=UTC)  # 00:00 on the 17th in Los Angeles


def directive(**kw: object) -> Memory:
    values: dict[str, object] = {"type": MemoryType.DIRECTIVE, "authority": Authority.USER_EXPLICIT}
    values.update(kw)
    return memory(**values)


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    clock = FixedClock(EVENING_16TH)
    rt = build_local(load_settings(home=str(tmp_path / "home"), backend="local", lease_wait_seconds=5), clock)
    save_family(rt.store, FamilySettings(family_id=FAMILY, time_zone=LA, members=[Member(id="lu", name="Lu")]))
    return rt


def files(rt: Runtime, family_id: str = FAMILY) -> dict[str, bytes]:
    return {path: rt.store.read(family_id, path).data for path in rt.store.list(family_id)}


def add_all(rt: Runtime, *memories: Memory, **kw: Any) -> ChangeSet:
    cs = change_set(*(MemoryWrite(action=Action.ADD, memory=m) for m in memories), **kw)
    rt.writer.apply(cs)
    return cs


def brief_texts(rt: Runtime, member_id: str = "lu") -> list[str]:
    """The identity, directives and last-conversation lines ``member_id`` is served."""
    brief = parse_brief(rt.store.read(FAMILY, BRIEF).data).served(member_id)
    return [
        line.text for section in ("identity", "directives", "last_conversation") for line in getattr(brief, section)
    ]


def put_candidates(rt: Runtime, session_id: str, data: bytes, *members: str) -> None:
    """A candidates file, and the session's transcript with a turn by each of ``members``
    (Lu by default), written beside the runtime so that no formation event starts."""
    spoke = members or ("lu",)
    turns = [{"n": n, "role": "user", "member_id": m, "text": "hi"} for n, m in enumerate(spoke, start=1)]
    transcript = {"family_id": FAMILY, "session_id": session_id, "turns": turns}
    DirectoryStore(rt.settings.home).put(FAMILY, session_path(session_id), json.dumps(transcript).encode())
    rt.store.put(FAMILY, candidates_path(session_id), data)


# --- the pass ------------------------------------------------------------------------


def test_dream_applies_transitions_as_a_change_set_and_logs_a_dated_entry(runtime: Runtime) -> None:
    tonight = directive(summary="Pizza night is tonight.", valid_until=date(2026, 11, 17))
    habit = memory(
        summary="Likes oat milk.",
        authority=Authority.USER_IMPLICIT,
        durability=Durability.PASSING,
        reinforcement_count=3,
    )
    odd = directive(about="Odd ] [ about](x) ## 2026-01-01", summary="* [not](a link) - ## heading")
    add_all(runtime, tonight, habit, odd)
    deps = runtime.lifecycle.deps
    first = dream_family(deps, FAMILY, now=EVENING_16TH)
    assert [t.action for t in first.transitions] == [Action.PROMOTE]
    report = dream_family(deps, FAMILY, now=MIDNIGHT_17TH)
    assert [(t.memory_id, t.action) for t in report.transitions] == [(tonight.id, Action.EXPIRE)]
    assert report.local_date == date(2026, 11, 17) and report.brief_changed

    record = parse_json(ChangeRecord, runtime.store.read(FAMILY, f"{CHANGES}{report.change_ids[0]}.json").data, "c")
    assert record.actor == "process:dream" and [c.action for c in record.memories] == [Action.EXPIRE]
    on_disk = parse_memory(runtime.store.read(FAMILY, f"memories/{tonight.id}.md").data)
    assert (on_disk.status, on_disk.revision, on_disk.summary) == (Status.EXPIRED, 2, tonight.summary)
    assert runtime.catalog.get_rows(FAMILY, [tonight.id])[tonight.id].status is Status.EXPIRED
    assert "Pizza night is tonight." not in brief_texts(runtime)

    log = runtime.store.read(FAMILY, LOG).data.decode()
    assert log.index("## 2026-11-17") < log.index("## 2026-11-16")
    entry = log[log.index("## 2026-11-17") : log.index("## 2026-11-16")]
    assert "**Expire**" in entry and f"/changes/{report.change_ids[0]}.json" in entry and "**Brief**" in entry
    assert check_bundle({p: d for p, d in files(runtime).items() if p.endswith(".md")}) == []


def test_running_the_same_pass_twice_for_the_same_date_changes_nothing(runtime: Runtime) -> None:
    add_all(
        runtime,
        directive(summary="Ends today.", valid_until=date(2026, 11, 17)),
        memory(
            summary="Guess.",
            authority=Authority.INFERRED,
            formed_at=datetime(2026, 1, 1, tzinfo=UTC),
            last_reinforced_at=datetime(2026, 1, 1, tzinfo=UTC),
        ),
    )
    deps = runtime.lifecycle.deps
    first = dream_family(deps, FAMILY, now=MIDNIGHT_17TH)
    assert len(first.transitions) == 2
    before, state = files(runtime), deps.ledger.get(FAMILY)
    again = dream_family(deps, FAMILY, now=MIDNIGHT_17TH + timedelta(hours=20))  # still the 17th in LA
    assert again.transitions == [] and again.change_ids == [] and not again.changed_anything
    assert files(runtime) == before
    assert deps.ledger.get(FAMILY) == state


def test_a_big_sweep_is_split_into_change_sets_of_at_most_forty(runtime: Runtime) -> None:
    ending = [directive(summary=f"Ends {i}.", valid_until=date(2026, 11, 17)) for i in range(95)]
    for start in range(0, 95, 40):
        add_all(runtime, *ending[start : start + 40])
    report = dream_family(runtime.lifecycle.deps, FAMILY, now=MIDNIGHT_17TH)
    assert len(report.transitions) == 95 and len(report.change_ids) == 3
    assert all(row.status is Status.EXPIRED for row in runtime.catalog.all_rows(FAMILY))


def test_transition_decided_on_a_lagging_catalog_row_is_checked_against_the_file(runtime: Runtime) -> None:
    """The catalog says the fact ends today, but the family already extended it in the file."""
    fact = directive(summary="Grandma visits.", valid_until=date(2026, 11, 17))
    add_all(runtime, fact)
    extended = fact.evolve(valid_until=date(2026, 11, 30), revision=2)
    path = f"memories/{fact.id}.md"
    runtime.store.replace(FAMILY, path, serialise_memory(extended), expected_tag=runtime.store.read(FAMILY, path).tag)
    report = dream_family(runtime.lifecycle.deps, FAMILY, now=MIDNIGHT_17TH)
    assert report.transitions == []
    assert parse_memory(runtime.store.read(FAMILY, f"memories/{fact.id}.md").data).status is Status.ACTIVE


def test_index_lists_current_then_earlier_memories(runtime: Runtime) -> None:
    add_all(
        runtime,
        directive(about="Zebra", summary="z"),
        directive(about="apple", summary="a", valid_until=date(2026, 11, 17)),
    )
    dream_family(runtime.lifecycle.deps, FAMILY, now=MIDNIGHT_17TH)
    index = runtime.store.read(FAMILY, INDEX).data.decode()
    assert index.startswith('---\nokf_version: "0.2"\n---')
    assert index.index("# Memories") < index.index("[Zebra]") < index.index("# Earlier memories")
    assert index.index("# Earlier memories") < index.index("[apple]") and "(expired) a" in index


# --- the last conversation ---------------------------------------------------------------


def candidates(session_id: str, started_at: str, summary: str) -> bytes:
    return json.dumps(
        {"session_id": session_id, "surface": "chat", "started_at": started_at, "summary": summary, "candidates": []}
    ).encode()


def test_last_conversation_is_the_newest_session_by_start_time(runtime: Runtime) -> None:
    put_candidates(runtime, "sess-b", candidates("sess-b", "2026-11-16T18:00:00Z", "Newest."))
    put_candidates(runtime, "sess-a", candidates("sess-a", "2026-11-15T18:00:00Z", "Older."))
    runtime.store.put(FAMILY, candidates_path("sess-bad"), b"{not json")
    runtime.drain()  # candidates events only move the ledger pointer: no compile
    assert not runtime.store.exists(FAMILY, BRIEF)
    assert runtime.lifecycle.ledger.get(FAMILY).last_session_id == "sess-b"  # type: ignore[union-attr]
    dream_family(runtime.lifecycle.deps, FAMILY, now=EVENING_16TH)
    assert brief_texts(runtime)[-1] == "Newest."


def test_last_conversation_is_found_by_scanning_when_the_ledger_has_no_pointer(runtime: Runtime) -> None:
    lifecycle = runtime.lifecycle
    put_candidates(runtime, "sess-a", candidates("sess-a", "2026-11-15T18:00:00Z", "Older."))
    put_candidates(runtime, "sess-b", candidates("sess-b", "2026-11-16T18:00:00Z", "Newest."))
    # Not drained: the ledger never heard of either session (as after losing the ledger).
    assert lifecycle.ledger.get(FAMILY) is None
    dream_family(lifecycle.deps, FAMILY, now=EVENING_16TH)
    assert brief_texts(runtime)[-1] == "Newest."
    assert lifecycle.ledger.get(FAMILY).last_session_id == "sess-b"  # type: ignore[union-attr]


def reconciled(session_id: str, started_at: str, summary: str, change_ids: list[str]) -> bytes:
    doc = json.loads(candidates(session_id, started_at, summary))
    doc["reconciliation"] = {"reconciled_at": started_at, "change_ids": change_ids, "outcomes": []}
    return json.dumps(doc).encode()


def test_a_summary_reaches_the_brief_when_its_change_event_was_handled_first(runtime: Runtime) -> None:
    # Extraction wrote nothing we saw; the session's change set landed and was compiled;
    # then formation rewrote the candidates file with its reconciliation (events unordered).
    cs = add_all(runtime, directive(summary="Call before booking."))
    runtime.drain()
    assert "Planned the week." not in brief_texts(runtime)
    put_candidates(runtime, "sess-n", reconciled("sess-n", "2026-11-16T18:00:00Z", "Planned the week.", [cs.id]))
    runtime.drain()
    assert brief_texts(runtime)[-1] == "Planned the week."


def test_a_session_that_changed_nothing_starts_no_dream(runtime: Runtime) -> None:
    add_all(runtime, directive(summary="Call before booking."))
    runtime.drain()
    before = files(runtime)
    runtime.store.put(
        FAMILY, candidates_path("sess-q"), reconciled("sess-q", "2026-11-16T18:00:00Z", "Nothing new.", [])
    )
    runtime.drain()
    after = files(runtime)
    after.pop(candidates_path("sess-q"))
    assert after == before


def formation_output(session_id: str, summary: str, *, health: str = "", suppressed: str = "") -> bytes:
    """A candidates file in formation's own format (``CandidatesDocument``), with one health-tagged
    candidate about ``health`` and one that a forget rule suppressed, about ``suppressed``."""

    def entry(index: int, about: str, sensitivity: str) -> dict[str, object]:
        candidate = {
            "type": "fact",
            "about": about,
            "summary": f"{about}.",
            "authority": "user_explicit",
            "confidence": 0.9,
            "sensitivity": sensitivity,
            "evidence": [{"turns": [1], "quote": about}],
        }
        return {"index": index, "verdict": "accepted", "candidate": candidate, "proposed": candidate}

    entries = [entry(1, "Bake sale", "normal")]
    if health:
        entries.append(entry(2, health, "health"))
    if suppressed:
        entries.append(entry(3, suppressed, "normal"))
    document = CandidatesDocument.model_validate(
        {
            "family_id": FAMILY,
            "session_id": session_id,
            "surface": "chat",
            "started_at": "2026-11-16T18:00:00Z",
            "time_zone": LA,
            "extractor": {"name": "test", "version": "1", "kind": "supplied", "label": "test"},
            "summary": summary,
            "transcript_sha256": "0" * 64,
            "extracted_at": "2026-11-16T18:30:00Z",
            "candidates": entries,
            "reconciliation": {
                "reconciled_at": "2026-11-16T18:31:00Z",
                "outcomes": [{"index": 3, "kind": "suppressed"}] if suppressed else [],
            },
        }
    )
    return serialise_json(document)


@pytest.mark.parametrize(
    ("summary", "kw"),
    [
        ("Talked about Ana's therapy and the bake sale.", {"health": "Ana's therapy"}),
        ("Talked about the piano recital and the bake sale.", {"suppressed": "Piano recital"}),
    ],
)
def test_the_last_conversation_never_names_what_its_session_withheld(
    runtime: Runtime, summary: str, kw: dict[str, str]
) -> None:
    put_candidates(runtime, "sess-a", formation_output("sess-a", summary, **kw))
    dream_family(runtime.lifecycle.deps, FAMILY, now=EVENING_16TH)
    assert parse_brief(runtime.store.read(FAMILY, BRIEF).data).served("lu").last_conversation == ()
    put_candidates(runtime, "sess-b", formation_output("sess-b", "Planned the bake sale."))
    runtime.drain()  # the next session's candidates move the ledger's pointer
    dream_family(runtime.lifecycle.deps, FAMILY, now=EVENING_16TH + timedelta(hours=1))
    assert brief_texts(runtime)[-1] == "Planned the bake sale."


def test_a_recompile_leaves_out_a_last_conversation_naming_a_forgotten_memory(runtime: Runtime) -> None:
    piano = directive(about="Leo's piano lessons", summary="Leo has piano on Tuesdays.")
    add_all(runtime, piano)
    put_candidates(runtime, "sess-a", formation_output("sess-a", "Moved Leo's piano lessons."))
    dream_family(runtime.lifecycle.deps, FAMILY, now=EVENING_16TH)
    assert brief_texts(runtime)[-1] == "Moved Leo's piano lessons."
    unpatched = runtime.store.read(FAMILY, BRIEF).data
    forget_memory(runtime.writer, FAMILY, piano.id, "lu")
    runtime.store.put(FAMILY, BRIEF, unpatched)  # as if the patch had failed: the recompile is the backstop
    dream_family(runtime.lifecycle.deps, FAMILY, now=EVENING_16TH, sweep=False)
    assert parse_brief(runtime.store.read(FAMILY, BRIEF).data).served("lu").last_conversation == ()


# --- triggers on the local runtime ---------------------------------------------------------


def test_a_change_starts_one_compile_and_the_dreams_own_change_converges(runtime: Runtime) -> None:
    add_all(
        runtime,
        directive(summary="Call before booking."),
        memory(
            summary="Oat milk.", authority=Authority.USER_IMPLICIT, durability=Durability.PASSING, reinforcement_count=3
        ),
    )
    compiles: list[str] = []
    assert runtime.bus is not None
    runtime.bus.subscribe(
        r"families/[^/]+/changes/[^/]+\.json", lambda e: compiles.append(e["detail"]["object"]["key"])
    )
    runtime.drain()
    # The formation change, then the dream's own promotion change: two compiles, then quiet.
    assert len(compiles) == 2
    assert runtime.drain() == 0
    assert "Call before booking." in brief_texts(runtime)
    log = runtime.store.read(FAMILY, LOG).data.decode()
    assert log.count("**Add**") == 2 and log.count("**Promote**") == 1


def test_a_burst_of_changes_coalesces_into_one_brief_write(runtime: Runtime) -> None:
    writes: list[str] = []
    runtime.store.listeners.append(lambda family, path, tag: writes.append(path) if path == BRIEF else None)  # type: ignore[attr-defined]
    sets = [add_all(runtime, directive(summary=f"Rule {i}.")) for i in range(5)]
    runtime.drain()
    assert writes == [BRIEF]  # the first compile saw all five; the next four found the same bytes
    assert all(f"Rule {i}." in brief_texts(runtime) for i in range(5))
    log = runtime.store.read(FAMILY, LOG).data.decode()
    assert all(f"/changes/{cs.id}.json" in log for cs in sets)


def test_one_batch_of_triggers_dreams_a_family_once(runtime: Runtime) -> None:
    sets = [add_all(runtime, directive(summary=f"Rule {i}.")) for i in range(3)]
    deps = runtime.lifecycle.deps
    triggers = [Trigger(FAMILY, change_id=cs.id) for cs in sets] + [Trigger(FAMILY, session_id="sess-x")]
    report = dream_on_triggers(deps, FAMILY, triggers, now=EVENING_16TH)
    assert report is not None and sorted(report.logged_changes) == sorted(cs.id for cs in sets)
    assert dream_on_triggers(deps, FAMILY, [Trigger(FAMILY, session_id="sess-x")], now=EVENING_16TH) is None


def test_a_session_that_changed_nothing_causes_no_compile(runtime: Runtime) -> None:
    result = runtime.writer.apply(change_set())
    assert not result.applied
    put_candidates(runtime, "sess-1", candidates("sess-1", "2026-11-16T18:00:00Z", "Chat."))
    runtime.drain()
    assert not runtime.store.exists(FAMILY, BRIEF)
    assert list(runtime.store.list(FAMILY, CHANGES)) == []


def test_keys_become_triggers_and_foreign_keys_are_ignored() -> None:
    assert trigger_for_key(f"families/{FAMILY}/changes/01ABC.json") == Trigger(FAMILY, change_id="01ABC")
    assert trigger_for_key(f"families/{FAMILY}/candidates/sess-1.json") == Trigger(FAMILY, session_id="sess-1")
    assert trigger_for_key(f"families/{FAMILY}/brief.json") is None
    with pytest.raises(Exception, match="not under families/"):
        trigger_for_key("elsewhere/x/changes/a.json")


def test_a_quiet_familys_nightly_dream_expires_without_any_change_event(runtime: Runtime) -> None:
    lifecycle = runtime.lifecycle
    add_all(runtime, directive(summary="Until the 17th.", valid_until=date(2026, 11, 17)))
    runtime.drain()
    save_family(runtime.store, FamilySettings(family_id=OTHER_FAMILY, time_zone="Europe/London"))
    assert lifecycle.local_queue is not None
    from family_memory.lifecycle.fanout import dream_requested, fan_out

    # 08:00Z on the 17th: midnight passed in London long ago and just now in Los Angeles.
    report = fan_out(runtime.store, lifecycle.ledger, lifecycle.local_queue, now=MIDNIGHT_17TH)
    assert report.due == 2
    lifecycle.local_queue.drain(lambda body: dream_requested(lifecycle.deps, body, now=MIDNIGHT_17TH))
    assert "Until the 17th." not in brief_texts(runtime)
    assert fan_out(runtime.store, lifecycle.ledger, lifecycle.local_queue, now=MIDNIGHT_17TH).due == 0


def test_replay_adapter_dreams_one_family_by_id(runtime: Runtime) -> None:
    add_all(runtime, directive(summary="Call before booking."))
    report = runtime.dream(FAMILY)
    assert report.family_id == FAMILY and "Call before booking." in brief_texts(runtime)


# --- both adapter sets ---------------------------------------------------------------------


def test_dream_pass_runs_the_same_on_s3_and_dynamodb(adapters: Adapters, request: pytest.FixtureRequest) -> None:
    from family_memory.adapters.local.sqlite_dream_ledger import SQLiteDreamLedger

    ledger: DreamLedger
    if adapters.kind == "aws":
        from conftest import TEST_TABLE
        from family_memory.adapters.aws.dynamo_dream_ledger import DynamoDreamLedger

        ledger = DynamoDreamLedger(request.getfixturevalue("aws").client("dynamodb"), TEST_TABLE)
    else:
        ledger = SQLiteDreamLedger(":memory:")
    writer = FamilyWriter(adapters.store, adapters.catalog, adapters.clock)
    save_family(adapters.store, FamilySettings(family_id=FAMILY, time_zone=LA))
    ending = directive(summary="Ends on the 17th.", valid_until=date(2026, 11, 17))
    stays = directive(summary="Stays.")
    writer.apply(
        change_set(MemoryWrite(action=Action.ADD, memory=ending), MemoryWrite(action=Action.ADD, memory=stays))
    )
    deps = DreamDeps(writer, ledger)
    report = dream_family(deps, FAMILY, now=MIDNIGHT_17TH)
    assert [t.action for t in report.transitions] == [Action.EXPIRE]
    brief = parse_brief(adapters.store.read(FAMILY, BRIEF).data)
    assert [line.text for line in brief.directives] == ["Stays."]
    assert ledger.get(FAMILY).next_dream_at == datetime(2026, 11, 18, 8, tzinfo=UTC)  # type: ignore[union-attr]
    assert dream_family(deps, FAMILY, now=MIDNIGHT_17TH).change_ids == []


def test_an_edit_of_a_memorys_words_reaches_the_brief(runtime: Runtime) -> None:
    rule = directive(summary="Call before booking.")
    add_all(runtime, rule)
    runtime.drain()
    runtime.writer.apply(change_set(update(rule, summary="Text Lu before booking.")))
    assert "Text Lu before booking." in brief_texts(runtime)  # patched at once
    runtime.drain()
    assert "Text Lu before booking." in brief_texts(runtime) and "Call before booking." not in brief_texts(runtime)
