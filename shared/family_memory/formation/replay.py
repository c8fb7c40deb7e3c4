"""Replay of history (seed section 12): a family's past sessions through the
same extraction and reconciliation, oldest first, then one dream.

Chronological order matters: a later statement must supersede an earlier one,
not the reverse. The run keeps a ledger at ``replay/ledger.json`` (which
sessions are done, and what each did), so a stopped replay resumes where it
left off; a finished ledger makes the next replay a fresh run. Replaying is
idempotent: sessions already reconciled change nothing the second time.

``dream`` is injected (the lifecycle provides it): it is called once, at the
end, for the family. Without one the report says plainly that no dream ran.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from family_memory.domain.clock import UtcDatetime
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.layout import SESSIONS
from family_memory.domain.okf import parse_json, serialise_json
from family_memory.domain.transcript import parse_transcript
from family_memory.formation.document import ExtractorKind, OutcomeKind
from family_memory.formation.service import FormationDeps, extract_session, read_document, reconcile_session

log = logging.getLogger(__name__)

LEDGER = "replay/ledger.json"
Dream = Callable[[str], object]
Progress = Callable[[str], None]


class SessionLedgerEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    session_id: str
    started_at: UtcDatetime
    extracted: bool
    counts: dict[str, int] = Field(default_factory=dict)
    rejected: dict[str, int] = Field(default_factory=dict)
    change_ids: list[str] = Field(default_factory=list)


class RunLedger(BaseModel):
    """What a run over a family's history (a replay, a migration) has done so far: a stopped
    run resumes from it, a complete one is not run again."""

    model_config = ConfigDict(extra="allow")

    family_id: str
    status: Literal["running", "complete"] = "running"
    started_at: UtcDatetime
    finished_at: UtcDatetime | None = None
    dream: str = "not run"


class ReplayLedger(RunLedger):
    type: Literal["replay_ledger"] = "replay_ledger"
    done: list[SessionLedgerEntry] = Field(default_factory=list)


@dataclass
class ReplayReport:
    family_id: str
    sessions: int = 0
    resumed_from: int = 0  # sessions already done by a stopped run
    processed: list[str] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: {k.value: 0 for k in OutcomeKind})
    rejected: dict[str, int] = field(default_factory=dict)
    change_sets: int = 0
    dream_ran: bool = False
    dream_result: object = None

    def add(self, entry: SessionLedgerEntry) -> None:
        for kind, n in entry.counts.items():
            self.counts[kind] = self.counts.get(kind, 0) + n
        for rule, n in entry.rejected.items():
            self.rejected[rule] = self.rejected.get(rule, 0) + n
        self.change_sets += len(entry.change_ids)

    @property
    def changed(self) -> bool:
        return self.change_sets > 0

    def lines(self) -> list[str]:
        c = self.counts
        out = [
            f"family {self.family_id}: {self.sessions} sessions, oldest first"
            + (f" (resumed: {self.resumed_from} already done)" if self.resumed_from else ""),
            f"  memories added {c.get('added', 0)}, reinforced {c.get('reinforced', 0)}, "
            f"superseded {c.get('superseded', 0)}, contradictions {c.get('contradiction', 0)}, "
            f"unchanged {c.get('noop', 0)}, suppressed {c.get('suppressed', 0)}",
            f"  change sets applied: {self.change_sets}",
        ]
        rejected = ", ".join(f"{rule} {n}" for rule, n in sorted(self.rejected.items())) or "none"
        out.append(f"  candidates rejected by reason: {rejected}")
        for session_id, why in sorted(self.unreadable.items()):
            out.append(f"  skipped unreadable session {session_id}: {why}")
        if self.dream_ran:
            describe = getattr(self.dream_result, "lines", None)
            dream_lines = describe() if callable(describe) else [str(self.dream_result)]
            out.append("  then the family's dream:")
            out += [f"    {line}" for line in dream_lines]
        return out


def _sessions(deps: FormationDeps, family_id: str, report: ReplayReport) -> list[tuple[datetime, str]]:
    found = []
    for path in deps.store.list(family_id, SESSIONS):
        if not path.endswith(".json"):
            continue
        session_id = path[len(SESSIONS) : -len(".json")]
        try:
            transcript = parse_transcript(deps.store.read(family_id, path).data, path)
        except InvalidInputError as exc:
            report.unreadable[session_id] = str(exc)
            continue
        found.append((transcript.started_at, transcript.session_id))
    return sorted(found)


@dataclass
class RetryReport:
    """What ``retry_failed_extractions`` did for one family."""

    family_id: str
    #: Sessions extracted again (oldest first): no candidates yet, or a failed extraction recorded.
    retried: list[str] = field(default_factory=list)
    #: Sessions the extractor refused again for good, with the reason (their input, not the model).
    still_failed: dict[str, str] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: {k.value: 0 for k in OutcomeKind})
    change_sets: int = 0
    dream_ran: bool = False

    def lines(self) -> list[str]:
        if not self.retried and not self.unreadable:
            return [f"family {self.family_id}: no session waits for extraction"]
        changed = ", ".join(f"{k} {v}" for k, v in self.counts.items() if v) or "no memory changed"
        out = [
            f"family {self.family_id}: {len(self.retried)} sessions extracted again ({', '.join(self.retried)}): "
            f"{changed}; change sets applied: {self.change_sets}"
        ]
        out += [f"  refused again: {sid}: {why}" for sid, why in sorted(self.still_failed.items())]
        out += [f"  skipped unreadable session {sid}: {why}" for sid, why in sorted(self.unreadable.items())]
        if self.dream_ran:
            out.append("  then the family's dream ran")
        return out


def waiting_for_extraction(deps: FormationDeps, family_id: str, report: ReplayReport | None = None) -> list[str]:
    """Sessions of ``family_id``, oldest first, that have no candidates document (their
    extraction failed before anything was recorded, as when the model could not be called)
    or whose document records a failed extraction."""
    waiting = []
    for _, session_id in _sessions(deps, family_id, report or ReplayReport(family_id)):
        document = read_document(deps.store, family_id, session_id)
        if document is None or document.extraction_failed is not None:
            waiting.append(session_id)
    return waiting


def retry_failed_extractions(
    deps: FormationDeps, family_id: str, *, dream: Dream | None, progress: Progress | None = None
) -> RetryReport:
    """Extract and reconcile, oldest first, the sessions of ``family_id`` that wait for
    extraction (``waiting_for_extraction``): what a misconfigured or unavailable model left
    behind, once it is fixed. Sessions already formed are not touched (unlike ``replay``).
    While the model still cannot be called the first session raises
    ``ExtractorMisconfiguredError`` (nothing is recorded) and the rest are left as they were.
    A later statement is never replaced by an earlier one reconciled late: reconciliation
    compares when each claim was said. ``dream`` runs once at the end when anything changed."""
    scan = ReplayReport(family_id)
    report = RetryReport(family_id)
    waiting = waiting_for_extraction(deps, family_id, scan)
    report.unreadable = scan.unreadable
    for number, session_id in enumerate(waiting, start=1):
        extracted = extract_session(deps, family_id, session_id, enqueue=False, retry_failed=True)
        report.retried.append(session_id)
        failure = extracted.document.extraction_failed
        if failure is not None:
            report.still_failed[session_id] = f"{failure.code}: {failure.reason}"[:300]
            continue
        result = reconcile_session(deps, family_id, session_id)
        for kind, n in result.counts().items():
            report.counts[kind] = report.counts.get(kind, 0) + n
        report.change_sets += len(result.change_ids)
        if progress is not None:
            counts = ", ".join(f"{k} {v}" for k, v in result.counts().items() if v) or "nothing to reconcile"
            progress(f"[{number}/{len(waiting)}] {session_id}: {counts}")
    if dream is not None and report.change_sets:
        dream(family_id)
        report.dream_ran = True
    return report


def _load_ledger(deps: FormationDeps, family_id: str, restart: bool) -> ReplayLedger:
    existing = deps.store.read_optional(family_id, LEDGER)
    if existing is not None and not restart:
        ledger = parse_json(ReplayLedger, existing.data, LEDGER)
        if ledger.status == "running":
            return ledger
    return ReplayLedger(family_id=family_id, started_at=deps.clock.now())


def _supplied(deps: FormationDeps, family_id: str, session_id: str) -> bool:
    document = read_document(deps.store, family_id, session_id)
    return document is not None and document.extractor.kind is ExtractorKind.SUPPLIED


def replay_family(
    deps: FormationDeps,
    family_id: str,
    *,
    dream: Dream | None,
    restart: bool = False,
    re_extract: bool = False,
    progress: Progress | None = None,
) -> ReplayReport:
    """Replay every stored session of ``family_id`` in chronological order.

    ``re_extract`` runs the extractor again even where a candidates document
    exists (to migrate to a new extractor), except where the candidates were
    supplied by a caller (``ingest --candidates``, a migration: no extractor made
    them); by default existing documents are reused, except those recording a
    failed extraction, which are tried again.
    ``restart`` ignores the ledger of a stopped run."""
    report = ReplayReport(family_id)
    sessions = _sessions(deps, family_id, report)
    report.sessions = len(sessions)
    ledger = _load_ledger(deps, family_id, restart)
    done = {entry.session_id for entry in ledger.done}
    report.resumed_from = len(done)
    for entry in ledger.done:
        report.add(entry)
    for number, (started_at, session_id) in enumerate(sessions, start=1):
        if session_id in done:
            continue
        # Candidates a caller supplied (``ingest --candidates``, a migration) came from no extractor: kept.
        force = re_extract and not _supplied(deps, family_id, session_id)
        extracted = extract_session(deps, family_id, session_id, force=force, enqueue=False, retry_failed=True)
        result = reconcile_session(deps, family_id, session_id)
        entry = SessionLedgerEntry(
            session_id=session_id,
            started_at=started_at,
            extracted=extracted.extracted,
            counts=result.counts(),
            rejected=result.rejected,
            change_ids=result.change_ids,
        )
        ledger.done.append(entry)
        deps.store.put(family_id, LEDGER, serialise_json(ledger))
        report.add(entry)
        report.processed.append(session_id)
        if progress is not None:
            counts = ", ".join(f"{k} {v}" for k, v in entry.counts.items() if v) or "nothing to reconcile"
            progress(f"[{number}/{len(sessions)}] {session_id} ({started_at:%Y-%m-%d}): {counts}")
    ledger.status = "complete"
    ledger.finished_at = deps.clock.now()
    if dream is not None:
        report.dream_result = dream(family_id)
        report.dream_ran = True
        ledger.dream = "ran"
    deps.store.put(family_id, LEDGER, serialise_json(ledger))
    return report
