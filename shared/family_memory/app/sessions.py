"""Session end: a finished conversation handed to formation, the same way from
``family-memory ingest`` and from ``POST /families/{family_id}/sessions``.

The transcript is validated and stored once at ``sessions/{session_id}.json``.
On AWS that object's S3 event starts extraction, so nothing more happens here.
On one machine (a runtime with an in-process bus) extraction and
reconciliation run now, through the same handlers Lambda runs, and the
session's candidates document is returned with each verdict and outcome.

Candidates produced elsewhere come as one JSON document, read the same way
from ``ingest --candidates FILE`` and from the session route's ``candidates``
member (``supplied_candidates``): a list of candidates, or ``{"candidates":
[...], "producer": "..."}``. They replace the extractor and go through the same
validation and reconciliation.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from family_memory.app.runtime import Runtime
from family_memory.domain.errors import InvalidInputError
from family_memory.formation.document import CandidatesDocument
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.formation.intake import IntakeResult
from family_memory.formation.service import extract_session, read_document, receive_session


class Formation(StrEnum):
    """Where a stored session's formation stands when session end returns."""

    DONE = "done"  # extracted and reconciled here; the document holds the outcomes
    STARTED = "started"  # runs elsewhere: on AWS the session's S3 event starts it
    PENDING = "pending"  # ran here and did not finish (logged); a later drain retries it


#: The most characters of a producer's name kept (it labels the candidates document).
PRODUCER_MAX = 60


def supplied_candidates(data: Any, *, producer: str, where: str) -> SuppliedCandidates:
    """Candidates supplied with a session: ``data`` is a list of candidates, or an object with
    ``candidates`` (a list) and an optional ``producer``; ``producer`` names them otherwise.
    A ``summary`` key is accepted and ignored: a session's summary is always derived from what
    was accepted (formation/summary.py). ``where`` names the source in the error."""
    if isinstance(data, list):
        return SuppliedCandidates(data, producer=producer[:PRODUCER_MAX])
    if isinstance(data, dict) and isinstance(data.get("candidates"), list):
        named = data.get("producer") or producer
        return SuppliedCandidates(data["candidates"], producer=str(named)[:PRODUCER_MAX])
    raise InvalidInputError(f"{where}: expected a list of candidates or an object with 'candidates'")


@dataclass(frozen=True)
class SessionEnd:
    intake: IntakeResult
    formation: Formation
    #: The candidates document once formation ran here (None on AWS, or when it produced none).
    document: CandidatesDocument | None = None


def end_session(
    runtime: Runtime,
    data: bytes,
    *,
    family_id: str | None = None,
    supplied: SuppliedCandidates | None = None,
    strict: bool = True,
) -> SessionEnd:
    """Store the transcript ``data`` (for ``family_id`` when the caller names one: a
    transcript of another family is refused) and, on one machine, form memories now.
    Receiving the same session again changes nothing; a stopped run is finished.
    ``strict`` (a command): a formation error is raised once everything else was
    delivered; not ``strict`` (the API, where the stored transcript is the answer):
    it is logged and the session is PENDING."""
    services = runtime.formation
    receipt = receive_session(services.deps, data, supplied=supplied, family_id=family_id)
    transcript = receipt.intake.transcript
    if runtime.bus is None:
        return SessionEnd(receipt.intake, Formation.STARTED)
    if not receipt.intake.stored:
        # No arrival event this time: make sure a run that stopped half-way is finished.
        extract_session(services.deps, transcript.family_id, transcript.session_id)
    runtime.drain(strict=strict)
    document = read_document(runtime.store, transcript.family_id, transcript.session_id)
    done = document is not None and document.reconciliation is not None
    return SessionEnd(receipt.intake, Formation.DONE if done else Formation.PENDING, document)
