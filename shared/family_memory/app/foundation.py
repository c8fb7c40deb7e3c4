"""What every part of the runtime is built on: the settings, the clock, the store, the
catalog, the family writer and (locally) the in-process bus and queues.

``app.bootstrap`` builds one ``Foundation`` per backend and hands it to each part's
``wire_*`` function (formation, lifecycle, brief), which returns its part; the ``Runtime``
(``app.runtime``) is the foundation with those parts. The parts import this module, never
``app.bootstrap`` or ``app.runtime``, so the wiring has no import cycle
(``tests/unit/test_app_imports.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from family_memory.adapters.local.events import InProcessBus
from family_memory.app.settings import Settings
from family_memory.domain.clock import Clock
from family_memory.domain.errors import DeliveryFailedError, FamilyMemoryError
from family_memory.ports.catalog import Catalog
from family_memory.ports.store import Store
from family_memory.writes.protocol import FamilyWriter

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Foundation:
    settings: Settings
    clock: Clock
    store: Store
    catalog: Catalog
    writer: FamilyWriter
    #: Local mode: the in-process stand-in for S3 -> EventBridge -> Lambda (None on AWS).
    bus: InProcessBus | None = None
    #: Local mode: in-process queues, pumped by ``drain`` after the bus (each returns deliveries made).
    pumps: list[Callable[[], int]] = field(default_factory=list)

    def drain(self, *, strict: bool = True) -> int:
        """Local mode: deliver the events and queued messages the last operation
        caused, until nothing is left (a no-op on AWS); returns the deliveries made.

        Everything deliverable is delivered first. Then, ``strict`` (a one-shot
        command, whose process ends here): the first handler error is raised, so the
        command reports it and exits non-zero (an error of the core as it is, any other
        as DeliveryFailedError); a retried delivery's error was reported when it first
        failed and is only logged. Not ``strict`` (``drain_committed``, a
        long-lived server): errors stay logged and the bus retries those deliveries at
        a later drain. A delivery that failed is not retried within this call."""
        total, errors, first = 0, list[Exception](), True
        broken: set[int] = set()  # pumps that raised: not called again in this call
        while True:
            delivered = 0
            if self.bus is not None:
                delivered = self.bus.drain(retry_failed=first)
                errors += self.bus.errors
            first = False
            for n, pump in enumerate(self.pumps):
                if n in broken:
                    continue
                try:
                    delivered += pump()
                except Exception as exc:  # a queue's own failure (its lease busy, say): as a handler's
                    log.exception("a local queue failed to deliver; a later drain tries again")
                    errors.append(exc)
                    broken.add(n)
            if not delivered:
                break
            total += delivered
        if strict and errors:
            first_error = errors[0]
            if isinstance(first_error, FamilyMemoryError):
                raise first_error
            raise DeliveryFailedError(f"delivering what the change caused failed: {first_error}") from first_error
        return total

    def drain_committed(self) -> int:
        """``drain`` after a write that has committed, in a process that lives on (the
        API): what the write caused is delivered now when it can be; a handler's
        failure is logged by the bus and retried at a later drain, never the caller's
        error (the write it followed stands)."""
        return self.drain(strict=False)
