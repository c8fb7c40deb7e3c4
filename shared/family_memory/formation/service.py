"""Formation's service functions: what the handlers, the CLI and replay call.

- ``receive_session``: intake (optionally with candidates supplied by the caller).
- ``extract_session``: a stored session to ``candidates/{session_id}.json``,
  then one reconcile request on the queue.
- ``reconcile_session``: the accepted candidates into memories, under the lease.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from family_memory.domain.clock import Clock
from family_memory.domain.entity import Entity
from family_memory.domain.errors import (
    AlreadyExistsError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StaleRevisionError,
)
from family_memory.domain.family import FamilySettings
from family_memory.domain.layout import MEMORIES, candidates_path, memory_id_from_path, session_path
from family_memory.domain.memory import Status
from family_memory.domain.okf import parse_json, parse_memory, serialise_json
from family_memory.domain.transcript import Transcript, check_not_ahead, parse_transcript
from family_memory.families import load_family, mark_children
from family_memory.forgotten import ClaimMeaning, SuppressionRules
from family_memory.formation.candidate import Candidate
from family_memory.formation.children import children_learned
from family_memory.formation.document import (
    CandidatesDocument,
    ExtractionFailure,
    Limits,
    transcript_hash,
)
from family_memory.formation.entities import EntityDirectory
from family_memory.formation.extraction import (
    ExtractionRefusedError,
    Extractor,
    SuppliedCandidates,
    check_supplied_count,
)
from family_memory.formation.intake import IntakeResult, check_not_conflicting, ensure_family, receive_transcript
from family_memory.formation.queue import ReconcileQueue, ReconcileRequest
from family_memory.formation.reconcile import Reconciler, ReconcileReport
from family_memory.formation.similar import SimilarMemories
from family_memory.formation.summary import KeptOut, derive_summary
from family_memory.formation.validation import validate_proposals
from family_memory.ports.store import Store
from family_memory.writes.protocol import FamilyWriter

log = logging.getLogger(__name__)


@dataclass
class FormationDeps:
    """What formation needs from the runtime. ``finder`` is swappable: the catalog
    stand-in now, the index-backed finder once retrieval is wired in."""

    store: Store
    writer: FamilyWriter
    clock: Clock
    extractor: Extractor
    finder: SimilarMemories
    queue: ReconcileQueue | None = None
    limits: Limits = field(default_factory=Limits)
    #: Forget rules matched by meaning too, where the embedder has a calibrated threshold.
    meaning: ClaimMeaning | None = None

    def reconciler(self) -> Reconciler:
        return Reconciler(self.writer, self.finder, self.clock, meaning=self.meaning)


@dataclass(frozen=True)
class ExtractResult:
    document: CandidatesDocument
    extracted: bool  # False when an existing document was reused
    enqueued: bool


@dataclass(frozen=True)
class SessionReceipt:
    intake: IntakeResult
    document: CandidatesDocument | None = None  # when candidates were supplied


def build_document(
    transcript: Transcript,
    raw: bytes,
    family: FamilySettings,
    extractor: Extractor,
    limits: Limits,
    clock: Clock,
    kept_out: KeptOut | None = None,
    entities: Sequence[Entity] = (),
    on_file: Sequence[str] = (),
) -> CandidatesDocument:
    """Run ``extractor`` on the transcript and validate every proposal. The summary is
    derived from the accepted claims that are not sensitive and not ``kept_out``.
    ``entities`` are the family's entities on file (a child among them makes a claim
    about them ``minors``); ``on_file`` the summaries of its current memories
    (``claims_on_file``), which the support check reads as what the family said before.

    Relative dates are resolved in the family's time zone: when the transcript names
    another, the family's is used (so the dates a claim is given and the day it
    expires agree) and the difference is recorded in ``problems``."""
    problems: list[str] = []
    if transcript.time_zone != family.time_zone:
        problems.append(
            f"the transcript's time zone {transcript.time_zone} differs from the family's {family.time_zone}; "
            f"dates were read in {family.time_zone} (change it with: family-memory family set-zone)"
        )
        transcript = transcript.model_copy(update={"time_zone": family.time_zone})
    extraction = extractor.extract(transcript, family)
    entries = validate_proposals(transcript, family, extraction.candidates, limits, entities, on_file)
    accepted = [e.candidate for e in entries if e.accepted and e.candidate is not None]
    problems += extraction.problems
    summary = derive_summary(transcript, family, accepted, kept_out or (lambda _: False))
    usage = dict(extraction.usage)
    if extraction.attempts > 1:
        usage["attempts"] = extraction.attempts
    return CandidatesDocument(
        **_about_the_session(transcript, raw, extractor, limits),
        summary=summary,
        extracted_at=clock.now(),
        problems=problems,
        usage=usage,
        candidates=entries,
    )


def summary_filter(store: Store, family: FamilySettings, directory: EntityDirectory) -> KeptOut:
    """What the family's own state keeps out of a session summary: a claim one of its forget
    rules suppresses (the rules as they are now), or one about a child it has told us of
    (an entity whose relationship is a child's, or a member whose role is child)."""
    rules = SuppressionRules.load(store, family.family_id)
    children = directory.child_ids()
    if not rules.rules and not children:
        return lambda _: False

    def kept_out(candidate: Candidate) -> bool:
        resolution = directory.resolve(candidate.subject_names(), list(candidate.entities))
        if children & set(resolution.entity_ids):
            return True
        return rules.match(candidate, resolution.entity_ids) is not None

    return kept_out


def claims_on_file(store: Store, family_id: str) -> list[str]:
    """The summaries of the family's current memories (active or dormant; never a forgotten,
    superseded or expired one), in file order: one read per memory file, as the entities
    are read. A file that does not parse is skipped here: reading it is not this step's job
    (``bundle check`` and the indexer report it)."""
    out: list[str] = []
    for path in store.list(family_id, MEMORIES):
        if memory_id_from_path(path) is None:
            continue
        try:
            memory = parse_memory(store.read(family_id, path).data, path)
        except (InvalidInputError, NotFoundError):
            continue
        if memory.status in (Status.ACTIVE, Status.DORMANT):
            out.append(memory.summary)
    return out


def _document_for(
    deps: FormationDeps, transcript: Transcript, raw: bytes, family: FamilySettings, extractor: Extractor
) -> CandidatesDocument:
    """``build_document`` with what the family has on file: its forget rules and its entities.
    A household member the accepted claims first call someone's child ("my daughter Maya",
    said by Lucía) is recorded as a child in ``family.json`` (``children``)."""
    directory = EntityDirectory.load(deps.store, family.family_id, family, deps.clock.now())
    kept_out = summary_filter(deps.store, family, directory)
    entities = list(directory.entities.values())
    on_file = claims_on_file(deps.store, family.family_id)
    document = build_document(transcript, raw, family, extractor, deps.limits, deps.clock, kept_out, entities, on_file)
    learned = children_learned([c for _, c in document.accepted()], transcript, directory)
    if learned:
        mark_children(deps.store, family.family_id, learned)
    return document


def failed_document(
    transcript: Transcript,
    raw: bytes,
    extractor: Extractor,
    limits: Limits,
    clock: Clock,
    error: ExtractionRefusedError,
) -> CandidatesDocument:
    """The record of a session the extractor refused for good: no candidates, no summary, the reason."""
    now = clock.now()
    return CandidatesDocument(
        **_about_the_session(transcript, raw, extractor, limits),
        summary="",
        extracted_at=now,
        problems=[f"extraction failed and will not be retried ({error.code}): {error.reason}"[:1000]],
        extraction_failed=ExtractionFailure(code=error.code[:200], reason=error.reason[:1000], failed_at=now),
    )


def _about_the_session(transcript: Transcript, raw: bytes, extractor: Extractor, limits: Limits) -> dict[str, Any]:
    """The fields every candidates document takes from its session and extractor."""
    return {
        "family_id": transcript.family_id,
        "session_id": transcript.session_id,
        "surface": transcript.surface,
        "started_at": transcript.started_at,
        "time_zone": transcript.time_zone,
        "extractor": extractor.info,
        "transcript_sha256": transcript_hash(raw),
        "limits": limits,
    }


def read_document(store: Store, family_id: str, session_id: str) -> CandidatesDocument | None:
    found = store.read_optional(family_id, candidates_path(session_id))
    return parse_json(CandidatesDocument, found.data, candidates_path(session_id)) if found else None


def _read_session(store: Store, family_id: str, session_id: str) -> tuple[Transcript, bytes]:
    data = store.read(family_id, session_path(session_id)).data
    transcript = parse_transcript(data, f"{family_id}/{session_path(session_id)}")
    if (transcript.family_id, transcript.session_id) != (family_id, session_id):
        raise InvalidInputError(
            f"{family_id}/{session_path(session_id)} holds session {transcript.session_id} of family "
            f"{transcript.family_id}; a session is stored under its own family and id"
        )
    return transcript, data


def _enqueue(deps: FormationDeps, document: CandidatesDocument) -> bool:
    if deps.queue is None:
        return False
    deps.queue.send(
        ReconcileRequest(
            family_id=document.family_id, session_id=document.session_id, content_hash=document.content_hash()
        )
    )
    return True


def extract_session(
    deps: FormationDeps,
    family_id: str,
    session_id: str,
    *,
    force: bool = False,
    enqueue: bool = True,
    extractor: Extractor | None = None,
    retry_failed: bool = False,
) -> ExtractResult:
    """``sessions/{id}.json`` -> ``candidates/{id}.json`` -> a reconcile request.

    An existing candidates document is reused unless ``force`` (a session is
    extracted once: a redelivered event must not pay for, or get a different
    answer from, a second model call); the request is queued either way, since
    the run that wrote the document may have stopped before queueing. The
    document is written conditionally (create-only, or replace-if-unchanged
    when forced): when two extractions of one session race, the one that
    loses uses the document that won (``extracted`` False).

    When the extractor refuses the session for good (``ExtractionRefusedError``,
    a client error), the document records ``extraction_failed`` with the reason
    and nothing is queued; such a document is reused like any other (so a
    redelivered event does not call the model again) unless ``force`` or
    ``retry_failed`` (replay). ``ExtractionUnavailableError`` propagates: the
    event is retried."""
    transcript, raw = _read_session(deps.store, family_id, session_id)
    path = candidates_path(session_id)
    stored = deps.store.read_optional(family_id, path)
    if stored is not None and not force:
        existing = parse_json(CandidatesDocument, stored.data, path)
        if existing.extraction_failed is None or not retry_failed:
            queued = enqueue and existing.extraction_failed is None and _enqueue(deps, existing)
            return ExtractResult(existing, extracted=False, enqueued=queued)
    ensure_family(deps.store, transcript)
    family = load_family(deps.store, family_id)
    chosen = extractor or deps.extractor
    try:
        document = _document_for(deps, transcript, raw, family, chosen)
    except ExtractionRefusedError as exc:
        log.error(
            "the extractor refused the session; recorded as extraction-failed, not retried",
            extra={"family_id": family_id, "session_id": session_id, "code": exc.code, "reason": exc.reason[:300]},
        )
        document = failed_document(transcript, raw, chosen, deps.limits, deps.clock, exc)
    try:
        # Conditional, so two deliveries of one event cannot both write: the second reads what the first wrote.
        if stored is None:
            deps.store.create(family_id, path, serialise_json(document))
        else:
            deps.store.replace(family_id, path, serialise_json(document), expected_tag=stored.tag)
    except StaleRevisionError:
        winner = read_document(deps.store, family_id, session_id)
        if winner is None:
            raise
        log.info(
            "another extraction of this session stored its candidates first; using those",
            extra={"family_id": family_id, "session_id": session_id},
        )
        queued = enqueue and winner.extraction_failed is None and _enqueue(deps, winner)
        return ExtractResult(winner, extracted=False, enqueued=queued)
    log.info(
        "extracted",
        extra={
            "family_id": family_id,
            "session_id": session_id,
            "proposed": len(document.candidates),
            "accepted": len(document.accepted()),
        },
    )
    queued = enqueue and document.extraction_failed is None and _enqueue(deps, document)
    return ExtractResult(document, extracted=True, enqueued=queued)


def receive_session(
    deps: FormationDeps, data: bytes, *, supplied: SuppliedCandidates | None = None, family_id: str | None = None
) -> SessionReceipt:
    """Intake, optionally with candidates supplied by the caller.

    Supplied candidates are validated and stored *before* the session, so the
    session's arrival event finds them and the extractor is not run. A session
    dated in the future, or more than ``MAX_SUPPLIED_CANDIDATES`` supplied
    candidates, is refused before anything is stored."""
    now = deps.clock.now()
    if supplied is None:
        return SessionReceipt(receive_transcript(deps.store, data, now=now, family_id=family_id))
    check_supplied_count(len(supplied.candidates))
    transcript = parse_transcript(data)
    if family_id is not None and family_id != transcript.family_id:
        raise InvalidInputError(f"family_id: the transcript is for family {transcript.family_id}, not {family_id}")
    check_not_ahead(transcript, now)
    check_not_conflicting(deps.store, transcript)
    ensure_family(deps.store, transcript)
    family = load_family(deps.store, transcript.family_id)
    document = _document_for(deps, transcript, data, family, supplied)
    existing = read_document(deps.store, transcript.family_id, transcript.session_id)
    if existing is not None:
        if existing.extractor != document.extractor or existing.candidates != document.candidates:
            raise ConflictError(
                f"session {transcript.session_id} already has candidates from {existing.extractor.label}; "
                "candidates are supplied once, with the session"
            )
        document = existing
    else:
        try:
            deps.store.create(transcript.family_id, candidates_path(transcript.session_id), serialise_json(document))
        except AlreadyExistsError as exc:
            raise ConflictError(f"session {transcript.session_id} already has candidates") from exc
    intake = receive_transcript(deps.store, data, now=now)
    if not intake.stored and existing is None:
        # The session was already there, so no arrival event will come: queue it here.
        _enqueue(deps, document)
    return SessionReceipt(intake, document)


def reconcile_session(deps: FormationDeps, family_id: str, session_id: str) -> ReconcileReport:
    return deps.reconciler().reconcile(family_id, session_id)
