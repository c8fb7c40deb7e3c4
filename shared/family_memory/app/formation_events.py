"""Formation's event handling, shared by the Lambda handlers and the local mode.

``handle_session_created`` takes an EventBridge "Object Created" event for a
``sessions/`` key (a session the extractor refuses for good is recorded as
extraction-failed and the invocation succeeds, so it is not retried; one it
cannot reach for now fails the invocation, so it is; a model that cannot be
called as configured fails it with one log line naming the model and the
alarmed ``ExtractorMisconfigured`` metric); ``handle_reconcile_batch`` takes an SQS batch from the FIFO
reconcile queue and reports partial failures (a failed record fails the rest
of its family's records in the batch, keeping that family's order; other
families carry on). Every log line carries the family and session ids.
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.data_classes import S3EventBridgeNotificationEvent
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from family_memory.app.formation import FormationServices
from family_memory.app.observability import logger
from family_memory.domain.errors import InvalidInputError, NotFoundError
from family_memory.domain.layout import SESSIONS, Service, split_key, starts
from family_memory.formation.document import CandidatesDocument
from family_memory.formation.extraction import ExtractorMisconfiguredError
from family_memory.formation.queue import ReconcileRequest
from family_memory.formation.service import extract_session

if TYPE_CHECKING:
    from family_memory.app.runtime import Runtime

_SESSION_PATH = re.compile(rf"{SESSIONS}([A-Za-z0-9][A-Za-z0-9_-]*)\.json")


def _count(services: FormationServices, name: str, value: float, unit: MetricUnit = MetricUnit.Count) -> None:
    services.metrics.add_metric(name=name, unit=unit, value=value)


def record_extraction_metrics(services: FormationServices, document: CandidatesDocument) -> None:
    """Candidates proposed, accepted, rejected (in total and by rule) and the extractor's token usage."""
    accepted = len(document.accepted())
    _count(services, "CandidatesProposed", len(document.candidates))
    _count(services, "CandidatesAccepted", accepted)
    _count(services, "CandidatesRejected", len(document.candidates) - accepted)
    for rule, n in document.rejected_by_rule().items():
        _count(services, f"CandidatesRejected_{rule}", n)
    for key, name in (("inputTokens", "ExtractionInputTokens"), ("outputTokens", "ExtractionOutputTokens")):
        if key in document.usage:
            _count(services, name, document.usage[key])
    if "attempts" in document.usage:
        _count(services, "ExtractionAttempts", document.usage["attempts"])


def handle_session_created(runtime: Runtime, event: dict[str, Any]) -> dict[str, Any]:
    """A session landed: extract it (once), store the candidates, queue the reconciliation."""
    services = runtime.formation
    key = S3EventBridgeNotificationEvent(event).detail.object.key
    try:
        family_id, path = split_key(key)
    except InvalidInputError as exc:
        logger.warning("ignored an object outside the families layout", extra={"key": key[:200], "error": str(exc)})
        return {"status": "ignored", "key": key[:200]}
    match = _SESSION_PATH.fullmatch(path) if starts(Service.EXTRACT, key) else None
    if match is None:
        return {"status": "ignored", "key": key[:200]}
    session_id = match.group(1)
    logger.append_keys(family_id=family_id, session_id=session_id)
    try:
        result = extract_session(services.deps, family_id, session_id)
    except ExtractorMisconfiguredError as exc:
        # The deployment's error, not the session's: nothing is recorded against it; the
        # invocation fails (retried, then kept in the dead-letter queue) and the metric is alarmed.
        logger.error(
            f"extraction model {exc.model_id} cannot be called ({exc.code}): {exc.reason}; "
            "the invocation fails and is retried; fix BEDROCK_MODEL_ID or model access, then "
            "run `family-memory replay --failed-only --all`",
            extra={"model_id": exc.model_id, "code": exc.code},
        )
        _count(services, "ExtractorMisconfigured", 1)
        raise
    except (InvalidInputError, NotFoundError) as exc:
        # A malformed or vanished session: retrying cannot help. It stays where it is, refused.
        logger.error("session refused", extra={"error": str(exc)})
        _count(services, "SessionsRefused", 1)
        return {"status": "refused", "family_id": family_id, "session_id": session_id, "reason": str(exc)[:500]}
    finally:
        logger.remove_keys(["family_id", "session_id"])
    document = result.document
    if document.extraction_failed is not None:
        # Refused for good (a client error): recorded in the candidates file, not retried.
        failure = document.extraction_failed
        logger.error(
            "extraction failed; recorded and not retried",
            extra={"family_id": family_id, "session_id": session_id, "code": failure.code, "reason": failure.reason},
        )
        if result.extracted:
            _count(services, "ExtractionsFailed", 1)
        return {
            "status": "extraction_failed",
            "family_id": family_id,
            "session_id": session_id,
            "reason": f"{failure.code}: {failure.reason}"[:500],
        }
    if result.extracted:
        record_extraction_metrics(services, document)
    logger.info(
        "session extracted" if result.extracted else "session already extracted; reconciliation queued again",
        extra={"family_id": family_id, "session_id": session_id, "accepted": len(document.accepted())},
    )
    return {
        "status": "extracted" if result.extracted else "reused",
        "family_id": family_id,
        "session_id": session_id,
        "proposed": len(document.candidates),
        "accepted": len(document.accepted()),
        "enqueued": result.enqueued,
    }


def handle_reconcile_batch(runtime: Runtime, event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """An SQS FIFO batch of reconcile requests, with partial batch failures."""
    services = runtime.formation
    if context is not None:
        services.idempotency_config.register_lambda_context(context)

    def record_handler(record: SQSRecord) -> dict[str, Any]:
        request = ReconcileRequest.model_validate_json(record.body)
        logger.append_keys(family_id=request.family_id, session_id=request.session_id)
        try:
            return services.reconcile_once(request)
        finally:
            logger.remove_keys(["family_id", "session_id"])

    processor = SqsFifoPartialProcessor(skip_group_on_error=True)
    with warnings.catch_warnings():
        if context is None:
            # In-process (local mode) there is no Lambda deadline for Powertools to read; nothing to warn about.
            warnings.filterwarnings("ignore", message="Couldn't determine the remaining time left")
        response = process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
    return dict(response)
