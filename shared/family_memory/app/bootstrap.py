"""Composition roots: wire adapters from validated settings, once per process.

Tests build a Runtime directly with the adapters they want instead of
patching module globals.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from family_memory.adapters.local.events import InProcessBus
from family_memory.app.settings import Settings, load_settings
from family_memory.domain.clock import Clock, SystemClock
from family_memory.domain.errors import ConfigurationError, DeliveryFailedError, FamilyMemoryError
from family_memory.domain.layout import Service, key_pattern
from family_memory.ports.catalog import Catalog
from family_memory.ports.store import Store
from family_memory.retrieval.embedding import Embedder
from family_memory.retrieval.index import IndexUnavailableError
from family_memory.retrieval.lookup import LookupSettings
from family_memory.retrieval.service import Retrieval, build_retrieval
from family_memory.writes.protocol import FamilyWriter

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    clock: Clock
    store: Store
    catalog: Catalog
    writer: FamilyWriter
    bus: InProcessBus | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    #: Index, embedder, indexer, turn-level lookup, similar-memory finder, read tools
    #: (None on AWS when no OpenSearch endpoint is configured).
    retrieval: Retrieval | None = None
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


def retrieval_for(runtime: Runtime) -> Retrieval:
    """The runtime's retrieval (index, lookup, read tools). Without it, search is unavailable
    (IndexUnavailableError, naming the missing setting): the request was fine, the deployment is not."""
    if runtime.retrieval is None:
        raise IndexUnavailableError("retrieval is not configured (aws mode needs OPENSEARCH_ENDPOINT)")
    return runtime.retrieval


def _writer(settings: Settings, store: Store, catalog: Catalog, clock: Clock) -> FamilyWriter:
    return FamilyWriter(
        store,
        catalog,
        clock,
        lease_ttl=timedelta(seconds=settings.lease_ttl_seconds),
        lease_wait=timedelta(seconds=settings.lease_wait_seconds),
    )


def _lookup_settings(settings: Settings) -> LookupSettings:
    return LookupSettings(
        max_items=settings.lookup_max_items,
        max_tokens=settings.lookup_max_tokens,
        rule_items=settings.lookup_rule_items,
        rule_tokens=settings.lookup_rule_tokens,
    )


def local_embedder(name: str | None) -> Embedder:
    """The offline embedder (MiniLM by default; ``hashed`` needs no model at all)."""
    if name in (None, "minilm"):
        from family_memory.adapters.local.minilm_embedder import MiniLMEmbedder

        return MiniLMEmbedder()
    if name == "hashed":
        from family_memory.adapters.local.hashed_embedder import HashedNgramEmbedder

        return HashedNgramEmbedder()
    raise ConfigurationError(
        f"configuration: FAMILY_MEMORY_EMBEDDER={name!r} is not available in local mode (minilm or hashed)"
    )


def build_local(settings: Settings, clock: Clock | None = None) -> Runtime:
    from family_memory.adapters.local.directory_store import DirectoryStore
    from family_memory.adapters.local.embedded_index import EmbeddedIndex
    from family_memory.adapters.local.embedding_cache import SQLiteEmbeddingCache
    from family_memory.adapters.local.sqlite_catalog import SQLiteCatalog
    from family_memory.app.formation import wire_local as wire_local_formation
    from family_memory.app.lifecycle import install_local as install_local_lifecycle

    clock = clock or SystemClock()
    bus = InProcessBus()
    store = DirectoryStore(settings.home, listeners=[bus.on_write])
    catalog = SQLiteCatalog(settings.home / "catalog.sqlite3", clock=clock)
    embedder = local_embedder(settings.embedder)
    retrieval = build_retrieval(
        store,
        catalog,
        clock,
        EmbeddedIndex(settings.home / "index", embedder.dimension, model_id=embedder.model_id),
        embedder,
        SQLiteEmbeddingCache(settings.home / "embedding-cache.sqlite3"),
        _lookup_settings(settings),
        search_deadline=settings.search_deadline_seconds,
    )
    bus.subscribe(key_pattern(Service.INDEX), retrieval.indexer.handle_event)
    writer = _writer(settings, store, catalog, clock)
    runtime = Runtime(settings, clock, store, catalog, writer, bus, retrieval=retrieval)
    install_local_lifecycle(runtime)
    wire_local_formation(runtime)
    return runtime


def build_aws(
    settings: Settings, clock: Clock | None = None, *, session: Any = None, search_client: Any = None
) -> Runtime:
    """The AWS runtime. ``session``: the boto3 session every client is made from (each
    distinct client once: ``SharedClients``); ``search_client``: an opensearch-py client to
    use instead of one for the configured endpoint (tests pass a recording stand-in)."""
    import boto3

    from family_memory.adapters.aws.clients import SharedClients
    from family_memory.adapters.aws.dynamo_catalog import DynamoCatalog
    from family_memory.adapters.aws.s3_store import S3Store
    from family_memory.app.formation import wire_aws as wire_aws_formation
    from family_memory.app.lifecycle import install_aws as install_aws_lifecycle

    settings.require("the aws backend", ("bucket", "table"))
    assert settings.bucket is not None and settings.table is not None
    clock = clock or SystemClock()
    session = SharedClients(session or boto3.session.Session(region_name=settings.region))
    store = S3Store(session.client("s3"), settings.bucket)
    catalog = DynamoCatalog(session.client("dynamodb"), settings.table, clock=clock)
    runtime = Runtime(settings, clock, store, catalog, _writer(settings, store, catalog, clock))
    if settings.opensearch_endpoint:
        runtime.retrieval = _aws_retrieval(settings, session, store, catalog, clock, search_client)
    install_aws_lifecycle(runtime, session)
    wire_aws_formation(runtime, session)
    return runtime


def _aws_retrieval(
    settings: Settings, session: Any, store: Store, catalog: Catalog, clock: Clock, client: Any = None
) -> Retrieval:
    from family_memory.adapters.aws.bedrock_embedder import BedrockTitanEmbedder, bedrock_runtime_client, turn_embedder
    from family_memory.adapters.aws.dynamo_embedding_cache import DynamoEmbeddingCache
    from family_memory.adapters.aws.opensearch_index import OpenSearchIndex, opensearch_client

    turns: Embedder | None = None
    if settings.embedder not in (None, "bedrock"):
        embedder = local_embedder(settings.embedder)
    else:
        embedder = BedrockTitanEmbedder(bedrock_runtime_client(session, settings.region))
        turns = turn_embedder(session, settings.region)
    region = settings.region or session.region_name
    if client is None:
        # With a search deadline (the api function): one try, timed out at the deadline.
        deadline = settings.search_deadline_seconds
        client = opensearch_client(
            str(settings.opensearch_endpoint),
            region,
            session,
            timeout=deadline or 10.0,
            max_retries=0 if deadline else 3,
        )
    return build_retrieval(
        store,
        catalog,
        clock,
        OpenSearchIndex(client, embedder.dimension, settings.opensearch_index, embedder.model_id),
        embedder,
        DynamoEmbeddingCache(session.client("dynamodb"), str(settings.table)),
        _lookup_settings(settings),
        turn_embedder=turns,
        search_deadline=settings.search_deadline_seconds,
    )


def build(settings: Settings, clock: Clock | None = None) -> Runtime:
    return build_aws(settings, clock) if settings.backend == "aws" else build_local(settings, clock)


@functools.cache
def runtime() -> Runtime:
    """The process's runtime, built from the environment (read once) on first use."""
    return build(load_settings())


@dataclass(frozen=True)
class FunctionRuntime:
    """A Lambda function's runtime: the process's, once ``function`` has checked the settings
    it cannot do without (``needs``: Settings field names, beyond the aws backend's bucket and
    table). Calling it returns the runtime (built once per process)."""

    function: str
    needs: tuple[str, ...] = ()

    def __call__(self) -> Runtime:
        built = runtime()
        built.settings.require(f"the {self.function} function", self.needs)
        return built


def lambda_runtime(function: str, needs: tuple[str, ...] = ()) -> FunctionRuntime:
    """``function``'s runtime getter (its handler module's ``runtime``). In Lambda
    (``AWS_LAMBDA_INITIALIZATION_TYPE`` is set) it is called here, while the module is
    imported, so a missing or bad variable fails INIT with a ConfigurationError naming it,
    before any event; tests and the CLI import handlers without building anything."""
    getter = FunctionRuntime(function, needs)
    if os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE"):
        getter()
    return getter
