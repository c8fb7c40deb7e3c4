"""The dream queue on SQS: ``SendMessageBatch`` in groups of ten, a few batches in flight at once.

Entries SQS reports as failed in a batch are sent again (with a short
back-off) up to ``attempts`` times; failures SQS marks as the sender's fault
are not retried. What still fails raises DreamQueueError, so the fan-out
invocation fails and its schedule's retry policy runs it again (the dreams
already enqueued are idempotent).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from family_memory.ports.lifecycle import DreamQueue, DreamQueueError, DreamRequest

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

SQS_BATCH_LIMIT = 10


class SQSDreamQueue(DreamQueue):
    def __init__(
        self,
        client: SQSClient,
        queue_url: str,
        *,
        attempts: int = 4,
        backoff_seconds: float = 0.1,
        max_workers: int = 8,
    ) -> None:
        self._sqs = client
        self.queue_url = queue_url
        self.attempts = attempts
        self.backoff_seconds = backoff_seconds
        self.max_workers = max_workers

    def _send_batch(self, bodies: Sequence[str]) -> list[str]:
        """Send up to ten bodies; the errors of the ones that finally failed."""
        pending = {str(i): body for i, body in enumerate(bodies)}
        permanent: list[str] = []
        transient: list[str] = []
        for attempt in range(self.attempts):
            response = self._sqs.send_message_batch(
                QueueUrl=self.queue_url,
                Entries=[{"Id": entry_id, "MessageBody": body} for entry_id, body in pending.items()],
            )
            retry: dict[str, str] = {}
            transient = []
            for failure in response.get("Failed", []):
                entry_id = failure["Id"]
                error = f"{failure.get('Code', '?')}: {failure.get('Message', '')}"
                if failure.get("SenderFault", False):
                    permanent.append(error)
                else:
                    transient.append(error)
                    retry[entry_id] = pending[entry_id]
            if not retry:
                break
            pending = retry
            if attempt + 1 < self.attempts:
                time.sleep(self.backoff_seconds * 2**attempt)
        return permanent + transient

    def send(self, requests: Sequence[DreamRequest]) -> int:
        bodies = [request.to_body() for request in requests]
        batches = [bodies[start : start + SQS_BATCH_LIMIT] for start in range(0, len(bodies), SQS_BATCH_LIMIT)]
        failed: list[str] = []
        if len(batches) <= 1 or self.max_workers <= 1:
            for batch in batches:
                failed += self._send_batch(batch)
        else:
            # Each call waits on the network; a few in flight at once (boto3 clients are thread-safe).
            with ThreadPoolExecutor(max_workers=self.max_workers) as pool:
                for errors in pool.map(self._send_batch, batches):
                    failed += errors
        if failed:
            raise DreamQueueError(
                f"{len(failed)} of {len(bodies)} dream requests could not be enqueued: {'; '.join(failed[:3])}"
            )
        return len(bodies)
