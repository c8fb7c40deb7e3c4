"""In-process dispatch: the local stand-in for S3 -> EventBridge -> Lambda.

The directory store announces each write; the bus turns it into the same
EventBridge "Object Created" event S3 would send and queues it. ``drain()``
delivers queued events to the handlers subscribed to matching keys, in
order, until nothing is left (a handler's own writes are delivered in the
same drain). A delivery whose handler raises is logged and retried at a later
drain, up to three attempts, then dead-lettered. Delivery is deferred, never
nested inside the write that caused it, just as in AWS: a handler never runs
while its trigger's writer still holds the family lease.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from family_memory.domain.layout import FAMILIES_PREFIX

log = logging.getLogger(__name__)

#: Deliveries of one event to one handler before it is dead-lettered (the first and two retries).
MAX_ATTEMPTS = 3

Handler = Callable[[dict[str, Any]], Any]
LOCAL_BUCKET = "local-family-memory"


def object_created_event(bucket: str, key: str, etag: str, size: int | None = None) -> dict[str, Any]:
    """An EventBridge event as S3 sends it for a PutObject."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Object Created",
        "source": "aws.s3",
        "account": "000000000000",
        "time": now,
        "region": "local",
        "resources": [f"arn:aws:s3:::{bucket}"],
        "detail": {
            "version": "0",
            "bucket": {"name": bucket},
            "object": {"key": key, "size": size or 0, "etag": etag.strip('"'), "sequencer": uuid.uuid4().hex[:16]},
            "request-id": uuid.uuid4().hex[:16],
            "requester": "000000000000",
            "reason": "PutObject",
        },
    }


@dataclass(frozen=True)
class _Failed:
    event: dict[str, Any]
    handler: Handler
    attempts: int
    error: Exception


class InProcessBus:
    def __init__(self, bucket: str = LOCAL_BUCKET) -> None:
        self.bucket = bucket
        self._routes: list[tuple[re.Pattern[str], Handler]] = []
        self._queue: deque[dict[str, Any]] = deque()
        #: Deliveries whose handler raised, retried first at the next drain that asks for it.
        self._failed: list[_Failed] = []
        #: Deliveries that failed ``MAX_ATTEMPTS`` times: no longer retried (logged as errors).
        self.dead_letters: list[_Failed] = []
        #: The errors of the deliveries the last ``drain`` call made for the first time, in
        #: order (its caller decides what they mean; a retry's failure is only logged).
        self.errors: list[Exception] = []
        self._lock = threading.Lock()
        self.delivered = 0

    def subscribe(self, key_pattern: str, handler: Handler) -> None:
        """Deliver events whose object key fully matches ``key_pattern`` to ``handler``."""
        self._routes.append((re.compile(key_pattern), handler))

    def on_write(self, family_id: str, path: str, tag: str) -> None:
        """A DirectoryStore write listener."""
        key = f"{FAMILIES_PREFIX}{family_id}/{path}"
        if any(pattern.fullmatch(key) for pattern, _ in self._routes):
            with self._lock:
                self._queue.append(object_created_event(self.bucket, key, tag))

    @property
    def failed(self) -> int:
        """Deliveries that failed and were not delivered since: waiting to be retried, or dead."""
        return len(self._failed) + len(self.dead_letters)

    @property
    def pending(self) -> int:
        """Events queued, and failed deliveries waiting to be retried."""
        return len(self._queue) + len(self._failed)

    def drain(self, *, retry_failed: bool = True) -> int:
        """Deliver until the queue is empty; returns how many deliveries were made.

        A handler that raises does not lose its event: the error is logged, kept in
        ``errors`` for the caller, and the delivery is retried at the start of a later
        drain (``retry_failed``), as EventBridge retries a failed target, until it has
        failed ``MAX_ATTEMPTS`` times; then it goes to ``dead_letters``. A drain never
        raises for a handler and never retries a delivery that failed within it."""
        with self._lock:
            retry, self._failed = (self._failed, []) if retry_failed else ([], self._failed)
        self.errors = []
        failed: list[_Failed] = []
        count = 0
        for kept in retry:
            count += self._deliver(kept.event, kept.handler, failed, kept.attempts)
        while True:
            with self._lock:
                if not self._queue:
                    self._failed = failed + self._failed
                    return count
                event = self._queue.popleft()
            key = event["detail"]["object"]["key"]
            for pattern, handler in self._routes:
                if pattern.fullmatch(key):
                    count += self._deliver(event, handler, failed)

    def _deliver(self, event: dict[str, Any], handler: Handler, failed: list[_Failed], attempts: int = 0) -> int:
        """1 when ``handler`` took ``event``; 0 when it raised (logged, kept or dead-lettered)."""
        try:
            handler(event)
        except Exception as exc:
            if attempts == 0:  # a retry's error was reported when it first failed
                self.errors.append(exc)
            kept = _Failed(event, handler, attempts + 1, exc)
            where = {"key": event["detail"]["object"]["key"], "handler": getattr(handler, "__qualname__", "?")}
            if kept.attempts >= MAX_ATTEMPTS:
                log.exception(
                    "an event handler failed %d times; the event is dead-lettered", kept.attempts, extra=where
                )
                self.dead_letters.append(kept)
            else:
                log.exception("an event handler failed; the event is delivered again at a later drain", extra=where)
                failed.append(kept)
            return 0
        self.delivered += 1
        return 1
