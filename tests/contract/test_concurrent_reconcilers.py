"""Two reconcilers on one family at once (both adapter sets): the lease serialises them and
revision checks keep every update; nothing is lost and nothing is doubled."""

from __future__ import annotations

import threading
from datetime import timedelta

from conftest import Adapters
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.layout import evidence_path
from family_memory.domain.memory import Status
from family_memory.formation.intake import receive_transcript
from family_memory.formation.reconcile import Reconciler
from family_memory.formation.service import extract_session
from family_memory.formation.similar import CatalogSimilarMemories
from family_memory.writes.projections import check_catalog
from family_memory.writes.protocol import FamilyWriter
from formation_helpers import FAMILY, FRIDAY_MORNING, deps, save_family, session_json

SESSIONS = {
    "sess-a": "We love Thai food. Never book flights before 7am.",
    "sess-b": "We love Thai food. Maya loves swimming.",
    "sess-c": "We love Thai food. Pepper needs her pills at 8.",
    "sess-d": "We love Thai food. Always call grandma on Sundays.",
}


def test_two_reconcilers_on_one_family_never_lose_an_update(adapters: Adapters) -> None:
    save_family(adapters.store)
    d = deps(adapters)
    for n, (session_id, text) in enumerate(SESSIONS.items()):
        started = FRIDAY_MORNING + timedelta(hours=n)
        receive_transcript(
            adapters.store,
            session_json([("user", "lucia", text)], session_id=session_id, started_at=started),
            now=adapters.clock.now(),
        )
        extract_session(d, FAMILY, session_id, enqueue=False)

    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def work(sessions: list[str], holder: str) -> None:
        writer = FamilyWriter(adapters.store, adapters.catalog, adapters.clock, holder=holder)
        reconciler = Reconciler(writer, CatalogSimilarMemories(adapters.catalog), adapters.clock)
        barrier.wait()
        try:
            for session_id in sessions:
                reconciler.reconcile(FAMILY, session_id)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=work, args=(["sess-a", "sess-c"], "reconciler-1")),
        threading.Thread(target=work, args=(["sess-b", "sess-d"], "reconciler-2")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors

    rows = list(adapters.catalog.all_rows(FAMILY))
    thai = [r for r in rows if r.summary == "The family loves Thai food."]
    assert len(thai) == 1, "the shared fact is one memory, not one per reconciler"
    assert thai[0].reinforcement_count == 3 and thai[0].revision == 4
    ledger = parse_ledger(adapters.store.read(FAMILY, evidence_path(thai[0].id)).data)
    assert sorted(r.ref.split("/")[-1].split("#")[0] for r in ledger) == sorted(SESSIONS)
    assert {r.summary for r in rows} == {
        "The family loves Thai food.",
        "Never book flights before 7am.",
        "Maya loves swimming.",
        "Pepper needs her pills at 8.",
        "Always call grandma on Sundays.",
    }
    assert all(r.status is Status.ACTIVE for r in rows)
    assert adapters.catalog.pending_intents(FAMILY) == []
    assert check_catalog(adapters.store, adapters.catalog, FAMILY).consistent
