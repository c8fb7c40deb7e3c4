"""Session end: a finished conversation handed to formation, the same way from
``family-memory ingest`` and from ``POST /families/{family_id}/sessions``.

The transcript is validated and stored once at ``sessions/{session_id}.json``.
On AWS that object's S3 event starts extraction, so nothing more happens here.
On one machine (a runtime with an in-process bus) extraction and
reconciliation run now, through the same handlers Lambda runs, and the
session's candidates document is returned with each verdict and outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from family_memory.app.bootstrap import Runtime
from family_memory.app.formation import formation
from family_memory.formation.document import CandidatesDocument
from family_memory.formation.extraction import SuppliedCandidates
from family_memory.formation.intake import IntakeResult
from family_memory.formation.service import extract_session, read_document, receive_session


@dataclass(frozen=True)
class SessionEnd:
    intake: IntakeResult
    #: False on AWS: formation runs later, started by the session's S3 event; False here when
    #: a delivery failed (logged) and waits for the next drain.
    formed_now: bool
    #: The candidates document once formation ran here (None on AWS, or when it produced none).
    document: CandidatesDocument | None = None


def end_session(
    runtime: Runtime,
    data: bytes,
    *,
    family_id: str | None = None,
    supplied: SuppliedCandidates | None = None,
) -> SessionEnd:
    """Store the transcript ``data`` (for ``family_id`` when the caller names one: a
    transcript of another family is refused) and, on one machine, form memories now.
    Receiving the same session again changes nothing; a stopped run is finished."""
    services = formation(runtime)
    receipt = receive_session(services.deps, data, supplied=supplied, family_id=family_id)
    transcript = receipt.intake.transcript
    if runtime.bus is None:
        return SessionEnd(receipt.intake, formed_now=False)
    if not receipt.intake.stored:
        # No arrival event this time: make sure a run that stopped half-way is finished.
        extract_session(services.deps, transcript.family_id, transcript.session_id)
    runtime.drain_committed()  # the transcript is stored: formation left undone is retried at the next drain
    document = read_document(runtime.store, transcript.family_id, transcript.session_id)
    return SessionEnd(receipt.intake, formed_now=runtime.bus.pending == 0, document=document)
