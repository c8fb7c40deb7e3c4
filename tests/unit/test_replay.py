"""Replay of history: oldest first, resumable from a ledger, idempotent, one dream at the end."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from conftest import local_adapters
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Status
from family_memory.domain.okf import parse_json
from family_memory.domain.transcript import Transcript
from family_memory.formation.extraction import (
    Extraction,
    ExtractionRefusedError,
    Extractor,
    ExtractorMisconfiguredError,
    RetryPolicy,
)
from family_memory.formation.intake import receive_transcript
from family_memory.formation.offline import OfflineExtractor
from family_memory.formation.replay import (
    LEDGER,
    ReplayLedger,
    replay_family,
    retry_failed_extractions,
    waiting_for_extraction,
)
from family_memory.formation.service import FormationDeps, extract_session, read_document, reconcile_session
from formation_helpers import FAMILY, deps, save_family, session_json

# Session ids sort the other way round from their dates: replay must go by date.
HISTORY = [
    ("sess-z", datetime(2026, 10, 1, 17, tzinfo=UTC), "My favourite colour is green. We love Thai food."),
    ("sess-m", datetime(2026, 10, 9, 17, tzinfo=UTC), "We love Thai food."),
    ("sess-a", datetime(2026, 10, 20, 17, tzinfo=UTC), "My favourite colour is blue."),
]


class StopReplayError(Exception):
    pass


@pytest.fixture
def d(tmp_path: Path, clock: FixedClock) -> FormationDeps:
    adapters = local_adapters(tmp_path, clock)
    save_family(adapters.store)
    for session_id, started, text in HISTORY:
        receive_transcript(
            adapters.store,
            session_json([("user", "marco", text)], session_id=session_id, started_at=started),
            now=clock.now(),
        )
    return deps(adapters)


def memories(d: FormationDeps) -> dict[str, str]:
    return {p: d.store.read(FAMILY, p).tag for p in d.store.list(FAMILY, "memories/")}


def active(d: FormationDeps) -> set[str]:
    return {r.summary for r in d.writer.catalog.all_rows(FAMILY) if r.status is Status.ACTIVE}


def test_replay_goes_oldest_first_so_the_later_statement_wins(d: FormationDeps) -> None:
    lines: list[str] = []
    report = replay_family(d, FAMILY, dream=None, progress=lines.append)
    assert report.processed == ["sess-z", "sess-m", "sess-a"]
    assert active(d) == {"Marco's favourite colour is blue.", "The family loves Thai food."}
    assert report.counts["added"] == 2 and report.counts["reinforced"] == 1 and report.counts["superseded"] == 1
    assert len(lines) == 3 and lines[0].startswith("[1/3] sess-z (2026-10-01)")


def test_replaying_again_changes_nothing(d: FormationDeps) -> None:
    replay_family(d, FAMILY, dream=None)
    before = memories(d)
    again = replay_family(d, FAMILY, dream=None)
    assert not again.changed and again.counts["added"] == again.counts["reinforced"] == 0
    assert memories(d) == before


def test_a_stopped_replay_resumes_from_its_ledger(d: FormationDeps) -> None:
    def stop_after_first(line: str) -> None:
        raise StopReplayError(line)

    with pytest.raises(StopReplayError):
        replay_family(d, FAMILY, dream=None, progress=stop_after_first)
    ledger = parse_json(ReplayLedger, d.store.read(FAMILY, LEDGER).data, LEDGER)
    assert ledger.status == "running" and [e.session_id for e in ledger.done] == ["sess-z"]
    report = replay_family(d, FAMILY, dream=None)
    assert report.resumed_from == 1 and report.processed == ["sess-m", "sess-a"]
    assert report.counts["added"] == 2  # the stopped run's work is counted in the report too
    assert active(d) == {"Marco's favourite colour is blue.", "The family loves Thai food."}
    assert parse_json(ReplayLedger, d.store.read(FAMILY, LEDGER).data, LEDGER).status == "complete"


def test_the_dream_runs_once_at_the_end_and_its_absence_is_reported(d: FormationDeps) -> None:
    calls: list[str] = []
    report = replay_family(d, FAMILY, dream=lambda family_id: calls.append(family_id) or "brief recompiled")  # type: ignore[func-returns-value]
    assert calls == [FAMILY] and report.dream_ran and report.dream_result == "brief recompiled"
    without = replay_family(d, FAMILY, dream=None)
    assert not without.dream_ran
    assert parse_json(ReplayLedger, d.store.read(FAMILY, LEDGER).data, LEDGER).dream == "not run"


def test_unreadable_sessions_are_reported_and_skipped(d: FormationDeps) -> None:
    d.store.put(FAMILY, "sessions/broken.json", b"{not json")
    report = replay_family(d, FAMILY, dream=None)
    assert "broken" in report.unreadable and report.sessions == 3
    assert any("skipped unreadable session broken" in line for line in report.lines())


class RefusingExtractor(Extractor):
    """A provider that refuses every session for good (as Bedrock does an input too long for the model)."""

    info = OfflineExtractor.info

    def __init__(self) -> None:
        super().__init__(RetryPolicy(max_attempts=1))
        self.calls = 0

    def _extract(self, transcript: Transcript, family: FamilySettings) -> Extraction:
        self.calls += 1
        raise ExtractionRefusedError("ValidationException", "Input is too long for requested model.")


def test_a_refused_session_is_recorded_not_retried_and_replay_tries_it_again(d: FormationDeps) -> None:
    refusing = RefusingExtractor()
    first = extract_session(d, FAMILY, "sess-m", enqueue=False, extractor=refusing)
    assert first.document.extraction_failed is not None and first.document.candidates == []
    assert "will not be retried (ValidationException)" in first.document.problems[0]
    again = extract_session(d, FAMILY, "sess-m", enqueue=False, extractor=refusing)
    assert refusing.calls == 1 and again.extracted is False
    replay_family(d, FAMILY, dream=None)
    document = read_document(d.store, FAMILY, "sess-m")
    assert document is not None and document.extraction_failed is None and document.accepted()


# --- sessions left waiting by a model that could not be called ---------------------------------


class BrokenModel(Extractor):
    """A model that cannot be called as configured (ResourceNotFound, AccessDenied)."""

    def __init__(self) -> None:
        super().__init__(RetryPolicy(max_attempts=1))
        self.info = OfflineExtractor().info

    def _extract(self, transcript: Transcript, family: FamilySettings) -> Extraction:
        raise ExtractorMisconfiguredError("us.anthropic.gone-v1:0", "ResourceNotFoundException", "end of life")


def test_a_misconfigured_model_records_nothing_and_the_session_waits_for_extraction(d: FormationDeps) -> None:
    broken = replace(d, extractor=BrokenModel())
    with pytest.raises(ExtractorMisconfiguredError, match=r"us\.anthropic\.gone-v1:0.*ResourceNotFoundException"):
        extract_session(broken, FAMILY, "sess-z")
    assert read_document(d.store, FAMILY, "sess-z") is None
    assert waiting_for_extraction(d, FAMILY) == ["sess-z", "sess-m", "sess-a"]


def test_failed_only_extracts_the_waiting_sessions_once_the_model_is_fixed_and_touches_no_other(
    d: FormationDeps,
) -> None:
    # The newest session was formed while the model worked; the two older ones waited.
    extract_session(d, FAMILY, "sess-a", enqueue=False)
    reconcile_session(d, FAMILY, "sess-a")
    formed = read_document(d.store, FAMILY, "sess-a")
    with pytest.raises(ExtractorMisconfiguredError):
        retry_failed_extractions(replace(d, extractor=BrokenModel()), FAMILY, dream=None)
    assert waiting_for_extraction(d, FAMILY) == ["sess-z", "sess-m"]  # still waiting, nothing recorded

    dreamed: list[str] = []
    report = retry_failed_extractions(d, FAMILY, dream=dreamed.append)
    assert report.retried == ["sess-z", "sess-m"] and report.still_failed == {}
    assert waiting_for_extraction(d, FAMILY) == [] and dreamed == [FAMILY]
    assert read_document(d.store, FAMILY, "sess-a") == formed  # a formed session is not extracted again
    # The older "green" reconciled late does not replace the newer "blue".
    assert "Marco's favourite colour is blue." in active(d)
    assert "Marco's favourite colour is green." not in active(d)
    again = retry_failed_extractions(d, FAMILY, dream=dreamed.append)
    assert (
        again.retried == []
        and dreamed == [FAMILY]
        and again.lines() == [f"family {FAMILY}: no session waits for extraction"]
    )


def test_failed_only_tries_a_recorded_refusal_again_and_reports_it_when_refused_again(d: FormationDeps) -> None:
    class Refusing(BrokenModel):
        def _extract(self, transcript: Transcript, family: FamilySettings) -> Extraction:
            raise ExtractionRefusedError("ValidationException", "Input is too long for requested model.")

    extract_session(replace(d, extractor=Refusing()), FAMILY, "sess-z", enqueue=False)
    assert waiting_for_extraction(d, FAMILY)[0] == "sess-z"
    report = retry_failed_extractions(replace(d, extractor=Refusing()), FAMILY, dream=None)
    assert report.still_failed["sess-z"].startswith("ValidationException")
