"""The dream queue in process (local mode): the stand-in for SQS and its dead-letter queue.

Messages are the same JSON bodies the SQS adapter sends. ``drain`` hands each
one to a worker; a message whose worker raises is retried up to
``max_receives`` times and then parked in ``dead_letters``, as SQS's redrive
policy would.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from family_memory.ports.lifecycle import DreamQueue, DreamRequest


@dataclass
class DrainReport:
    processed: int = 0
    failed_attempts: int = 0
    dead_lettered: list[str] = field(default_factory=list)


class LocalDreamQueue(DreamQueue):
    def __init__(self, *, max_receives: int = 3) -> None:
        self.max_receives = max_receives
        self._messages: deque[tuple[str, int]] = deque()
        self._lock = threading.Lock()
        self.dead_letters: list[tuple[str, str]] = []
        self.sent = 0

    def send(self, requests: Sequence[DreamRequest]) -> int:
        with self._lock:
            self._messages.extend((request.to_body(), 0) for request in requests)
            self.sent += len(requests)
        return len(requests)

    @property
    def pending(self) -> int:
        return len(self._messages)

    def bodies(self) -> list[str]:
        with self._lock:
            return [body for body, _ in self._messages]

    def drain(self, worker: Callable[[str], object]) -> DrainReport:
        """Deliver every message to ``worker`` until the queue is empty."""
        report = DrainReport()
        while True:
            with self._lock:
                if not self._messages:
                    return report
                body, receives = self._messages.popleft()
            try:
                worker(body)
                report.processed += 1
            except Exception as exc:  # a failed message is retried, then dead-lettered
                report.failed_attempts += 1
                if receives + 1 >= self.max_receives:
                    with self._lock:
                        self.dead_letters.append((body, str(exc)))
                    report.dead_lettered.append(body)
                else:
                    with self._lock:
                        self._messages.append((body, receives + 1))
