"""The reconcile queue on SQS FIFO: the family is the message group.

FIFO with ``MessageGroupId = family_id`` gives per-family ordering (one
family's sessions reconcile in arrival order; different families in
parallel) and a five-minute deduplication window on
``MessageDeduplicationId`` (a hash of family, session and content hash).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from family_memory.formation.queue import QueueUnavailableError, ReconcileRequest

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient


class SqsReconcileQueue:
    def __init__(self, client: SQSClient, queue_url: str) -> None:
        self._sqs = client
        self.queue_url = queue_url

    def send(self, request: ReconcileRequest) -> None:
        try:
            self._sqs.send_message(
                QueueUrl=self.queue_url,
                MessageBody=request.model_dump_json(),
                MessageGroupId=request.family_id,
                MessageDeduplicationId=request.deduplication_id,
            )
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            raise QueueUnavailableError(
                f"could not queue the reconciliation of session {request.session_id} ({code})"
            ) from exc
