"""Composition roots: wire adapters from validated settings, once per process.

Tests build a Runtime directly with the adapters they want instead of
patching module globals.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from family_memory.adapters.local.events import InProcessBus
from family_memory.app.settings import Settings, load_settings
from family_memory.domain.clock import Clock, SystemClock
from family_memory.domain.errors import InvalidInputError
from family_memory.ports.catalog import Catalog
from family_memory.ports.store import Store
from family_memory.writes.protocol import FamilyWriter


@dataclass
class Runtime:
    settings: Settings
    clock: Clock
    store: Store
    catalog: Catalog
    writer: FamilyWriter
    bus: InProcessBus | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    #: Local mode: in-process queues, pumped by ``drain`` after the bus (each returns deliveries made).
    pumps: list[Callable[[], int]] = field(default_factory=list)

    def drain(self) -> int:
        """Local mode: deliver the events and queued messages the last operation
        caused, until nothing is left (a no-op on AWS)."""
        total = 0
        while True:
            delivered = self.bus.drain() if self.bus is not None else 0
            for pump in self.pumps:
                delivered += pump()
            if not delivered:
                return total
            total += delivered


def _writer(settings: Settings, store: Store, catalog: Catalog, clock: Clock) -> FamilyWriter:
    return FamilyWriter(
        store,
        catalog,
        clock,
        lease_ttl=timedelta(seconds=settings.lease_ttl_seconds),
        lease_wait=timedelta(seconds=settings.lease_wait_seconds),
    )


def build_local(settings: Settings, clock: Clock | None = None) -> Runtime:
    from family_memory.adapters.local.directory_store import DirectoryStore
    from family_memory.adapters.local.sqlite_catalog import SQLiteCatalog

    clock = clock or SystemClock()
    bus = InProcessBus()
    store = DirectoryStore(settings.home, listeners=[bus.on_write])
    catalog = SQLiteCatalog(settings.home / "catalog.sqlite3", clock=clock)
    runtime = Runtime(settings, clock, store, catalog, _writer(settings, store, catalog, clock), bus)
    from family_memory.app.formation import wire_local

    wire_local(runtime)
    return runtime


def build_aws(settings: Settings, clock: Clock | None = None, *, session: Any = None) -> Runtime:
    import boto3

    from family_memory.adapters.aws.dynamo_catalog import DynamoCatalog
    from family_memory.adapters.aws.s3_store import S3Store

    if not (settings.bucket and settings.table):
        raise InvalidInputError("the aws backend needs MEMORY_BUCKET and MEMORY_TABLE")
    clock = clock or SystemClock()
    session = session or boto3.session.Session(region_name=settings.region)
    store = S3Store(session.client("s3"), settings.bucket)
    catalog = DynamoCatalog(session.client("dynamodb"), settings.table, clock=clock)
    runtime = Runtime(settings, clock, store, catalog, _writer(settings, store, catalog, clock))
    from family_memory.app.formation import wire_aws

    wire_aws(runtime, session)
    return runtime


def build(settings: Settings, clock: Clock | None = None) -> Runtime:
    return build_aws(settings, clock) if settings.backend == "aws" else build_local(settings, clock)


@functools.cache
def runtime() -> Runtime:
    """The process's runtime, built from the environment on first use (Lambda cold start)."""
    return build(load_settings())
