"""In-process dispatch: the local stand-in for S3 -> EventBridge -> Lambda.

The directory store announces each write; the bus turns it into the same
EventBridge "Object Created" event S3 would send and queues it. ``drain()``
delivers queued events to the handlers subscribed to matching keys, in
order, until nothing is left (a handler's own writes are delivered in the
same drain). A delivery whose handler raises is logged and kept for the next
drain. Delivery is deferred, never nested inside the write that caused
it, just as in AWS: a handler never runs while its trigger's writer still
holds the family lease.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from family_memory.domain.layout import FAMILIES_PREFIX

log = logging.getLogger(__name__)

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


class InProcessBus:
    def __init__(self, bucket: str = LOCAL_BUCKET) -> None:
        self.bucket = bucket
        self._routes: list[tuple[re.Pattern[str], Handler]] = []
        self._queue: deque[dict[str, Any]] = deque()
        #: Deliveries whose handler raised: (event, handler), retried first at the next drain.
        self._failed: list[tuple[dict[str, Any], Handler]] = []
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
    def pending(self) -> int:
        """Events queued, and deliveries that failed and wait for the next drain."""
        return len(self._queue) + len(self._failed)

    def drain(self) -> int:
        """Deliver until the queue is empty; returns how many deliveries were made.

        A handler that raises does not lose its event: the error is logged and that
        delivery is kept for the next drain (not retried within this one, so a handler
        that always fails cannot loop), as EventBridge retries a failed target. The
        caller's write has committed either way; a drain never raises for a handler."""
        with self._lock:
            retry, self._failed = self._failed, []
        failed: list[tuple[dict[str, Any], Handler]] = []
        count = 0
        for event, handler in retry:
            count += self._deliver(event, handler, failed)
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

    def _deliver(self, event: dict[str, Any], handler: Handler, failed: list[tuple[dict[str, Any], Handler]]) -> int:
        """1 when ``handler`` took ``event``; 0 when it raised (logged, kept in ``failed``)."""
        try:
            handler(event)
        except Exception:
            log.exception(
                "an event handler failed; the event is delivered again at the next drain",
                extra={"key": event["detail"]["object"]["key"], "handler": getattr(handler, "__qualname__", "?")},
            )
            failed.append((event, handler))
            return 0
        self.delivered += 1
        return 1
