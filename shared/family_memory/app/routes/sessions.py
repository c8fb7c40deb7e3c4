"""Session end: a finished conversation handed to formation (``app/sessions.py``).

The body is the transcript as the backend has it, stored as received at
``sessions/{session_id}.json``; or ``{"transcript": ..., "candidates": ...}`` with
candidates produced elsewhere (a list, or ``{candidates, producer}``), read as
``family-memory ingest --candidates`` reads its file, which replace the extractor
and go through the same validation and reconciliation. With candidates, the stored
transcript is the ``transcript`` member written as JSON.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from family_memory.app.routes.schema import SessionBody, SessionEnded
from family_memory.app.routes.shared import FamilyPath, body_of, error_responses, json_response, ok, runtime_of
from family_memory.app.sessions import SessionEnd, end_session, supplied_candidates

router = Router()  # type: ignore[no-untyped-call]


def session_out(ended: SessionEnd) -> SessionEnded:
    transcript = ended.intake.transcript
    out: dict[str, object] = {
        "family_id": transcript.family_id,
        "session_id": transcript.session_id,
        "stored": ended.intake.stored,
        "family_created": ended.intake.family_created,
        "formation": ended.formation.value,
    }
    doc = ended.document
    if doc is not None:
        outcomes = doc.reconciliation.outcomes if doc.reconciliation else []
        out["candidates"] = {
            "extractor": doc.extractor.label,
            "summary": doc.summary,
            "accepted": [e.index for e in doc.candidates if e.accepted],
            "rejected": [
                {"index": e.index, "reasons": [{"rule": r.rule, "message": r.message} for r in e.reasons]}
                for e in doc.candidates
                if not e.accepted
            ],
            "outcomes": [o.model_dump(include={"index", "kind", "memory_id", "detail"}) for o in outcomes],
        }
    return SessionEnded.model_validate(out)


@router.post(
    "/families/<family_id>/sessions",
    summary="Session end: store a finished conversation and form memories from it",
    description="201 when stored, 200 when the same session was already stored with the same content (a retry "
    "changes nothing); the same session id with other content is 409. On AWS formation starts from the stored "
    'session ("formation": "started"); on one machine it runs now ("done").',
    tags=["sessions"],
    status_code=HTTPStatus.CREATED,
    responses={
        **ok(SessionEnded, "Stored now.", 201),
        **ok(SessionEnded, "Already stored with the same content: nothing changed."),
        **error_responses(400, 409, 413, 415, 503),
    },
)
def session_end(family_id: FamilyPath, session: Annotated[SessionBody, Body()]) -> Response[str]:
    runtime = runtime_of(router)
    body = body_of(router)
    data, supplied = body.data, None
    if "transcript" in body.parsed:
        # Validated by its model already; read as the command line reads --candidates.
        data = json.dumps(body.parsed["transcript"], ensure_ascii=False).encode("utf-8")
        supplied = supplied_candidates(body.parsed["candidates"], producer="supplied", where="candidates")
    ended = end_session(runtime, data, family_id=family_id, supplied=supplied, strict=False)
    status = HTTPStatus.CREATED if ended.intake.stored else HTTPStatus.OK
    # ``candidates`` is left out where formation runs elsewhere (AWS), as before the model.
    return json_response(status, session_out(ended).model_dump(mode="json", exclude_none=True))
