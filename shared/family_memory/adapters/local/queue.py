"""The local stand-in for the SQS FIFO reconcile queue.

Messages are kept in memory in arrival order and delivered, when pumped, to
one handler as SQS-shaped batches (``{"Records": [...]}`` with the fields
Lambda's SQS event source sends), so the local mode runs the same reconcile
code path as Lambda. Like FIFO SQS: a message with a deduplication id seen in
the last five minutes is dropped; a record reported in ``batchItemFailures``
(or every record, when the handler raises) is delivered again, up to
``max_receive_count`` receives, then moved to ``dead_letters``.

The queue lives as long as the process: in local mode the whole pipeline
runs inside one command, and ``replay`` re-runs anything a stopped process
left behind.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any

from family_memory.formation.queue import ReconcileRequest

log = logging.getLogger(__name__)

BatchHandler = Callable[[dict[str, Any]], Any]
DEDUPLICATION_WINDOW_SECONDS = 300.0


class InProcessQueue:
    def __init__(
        self,
        name: str = "family-memory-reconcile.fifo",
        *,
        batch_size: int = 10,
        max_receive_count: int = 5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.arn = f"arn:aws:sqs:local:000000000000:{name}"
        self.batch_size = batch_size
        self.max_receive_count = max_receive_count
        self._clock = clock
        self._messages: deque[dict[str, Any]] = deque()
        self._recent: dict[str, float] = {}
        self._lock = threading.Lock()
        self._handler: BatchHandler | None = None
        self.dead_letters: list[dict[str, Any]] = []
        self.delivered = 0

    def set_handler(self, handler: BatchHandler) -> None:
        self._handler = handler

    @property
    def pending(self) -> int:
        return len(self._messages)

    def send(self, request: ReconcileRequest) -> None:
        body = request.model_dump_json()
        dedup = request.deduplication_id
        now = self._clock()
        with self._lock:
            self._recent = {k: t for k, t in self._recent.items() if now - t < DEDUPLICATION_WINDOW_SECONDS}
            if dedup in self._recent:
                return
            self._recent[dedup] = now
            millis = str(int(time.time() * 1000))
            self._messages.append(
                {
                    "messageId": str(uuid.uuid4()),
                    "receiptHandle": uuid.uuid4().hex,
                    "body": body,
                    "attributes": {
                        "ApproximateReceiveCount": "0",
                        "SentTimestamp": millis,
                        "SenderId": "local",
                        "ApproximateFirstReceiveTimestamp": millis,
                        "SequenceNumber": str(int(time.time() * 1_000_000)),
                        "MessageGroupId": request.family_id,
                        "MessageDeduplicationId": dedup,
                    },
                    "messageAttributes": {},
                    "md5OfBody": hashlib.md5(body.encode(), usedforsecurity=False).hexdigest(),
                    "eventSource": "aws:sqs",
                    "eventSourceARN": self.arn,
                    "awsRegion": "local",
                }
            )

    def _next_batch(self) -> list[dict[str, Any]]:
        with self._lock:
            batch: list[dict[str, Any]] = []
            while self._messages and len(batch) < self.batch_size:
                message = self._messages.popleft()
                count = int(message["attributes"]["ApproximateReceiveCount"]) + 1
                message["attributes"]["ApproximateReceiveCount"] = str(count)
                batch.append(message)
            return batch

    def pump(self) -> int:
        """Deliver batches until the queue is empty; returns how many records were delivered."""
        if self._handler is None:
            return 0
        delivered = 0
        while batch := self._next_batch():
            delivered += len(batch)
            self.delivered += len(batch)
            try:
                response = self._handler({"Records": batch})
                failed_ids = {item["itemIdentifier"] for item in (response or {}).get("batchItemFailures", [])}
            except Exception:
                log.exception("reconcile batch failed; every record will be delivered again")
                failed_ids = {message["messageId"] for message in batch}
            failed = [m for m in batch if m["messageId"] in failed_ids]
            with self._lock:
                for message in reversed(failed):
                    if int(message["attributes"]["ApproximateReceiveCount"]) >= self.max_receive_count:
                        self.dead_letters.append(message)
                    else:
                        self._messages.appendleft(message)
        return delivered
