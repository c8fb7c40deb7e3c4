"""The composition root: ``bootstrap()`` builds the process's one ``Runtime`` from validated
settings, wiring each part (``wire_*`` returns it; nothing is changed after the fact).

``build_local`` and ``build_aws`` are its two backends. Locally, the event table
(``domain.layout.OBJECT_EVENTS``) is subscribed here on the in-process bus, as the
EventBridge rules route the same keys to the Lambda functions on AWS. Tests build a
Runtime with the adapters they want (``build_local``, ``build_aws``, ``assemble``)
instead of patching module globals.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import timedelta
from typing import Any

from family_memory.adapters.local.events import InProcessBus
from family_memory.app import formation as formation_wiring
from family_memory.app import lifecycle as lifecycle_wiring
from family_memory.app.formation import FormationServices
from family_memory.app.formation_events import handle_reconcile_batch, handle_session_created
from family_memory.app.foundation import Foundation
from family_memory.app.lifecycle import Lifecycle, compile_object_created
from family_memory.app.runtime import Runtime
from family_memory.app.settings import Settings, load_settings
from family_memory.card.service import Card
from family_memory.domain.clock import Clock, SystemClock
from family_memory.domain.errors import ConfigurationError
from family_memory.domain.layout import Service, key_pattern
from family_memory.ports.catalog import Catalog
from family_memory.ports.store import Store
from family_memory.retrieval.embedding import Embedder
from family_memory.retrieval.lookup import LookupSettings
from family_memory.retrieval.service import Retrieval, build_retrieval
from family_memory.writes.protocol import FamilyWriter

log = logging.getLogger(__name__)


def assemble(
    base: Foundation, retrieval: Retrieval | None, formation: FormationServices, lifecycle: Lifecycle
) -> Runtime:
    """The runtime of ``base`` with its parts: the brief's patcher listens to the writer (every
    settled change set patches the brief at once) and, locally, the bus delivers the event
    table's keys to their services and the reconcile queue is pumped after it."""
    brief = lifecycle_wiring.wire_brief(base)
    base.writer.listeners.append(brief.patcher)
    runtime = Runtime(
        **{f.name: getattr(base, f.name) for f in fields(Foundation)},
        formation=formation,
        lifecycle=lifecycle,
        brief=brief,
        card=Card(base.writer),
        retrieval=retrieval,
    )
    if runtime.bus is not None:
        _subscribe(runtime.bus, runtime)
    if formation.queue is not None:
        formation.queue.set_handler(functools.partial(handle_reconcile_batch, runtime))
        runtime.pumps.append(formation.queue.pump)
    return runtime


def _subscribe(bus: InProcessBus, runtime: Runtime) -> None:
    """The event table on the in-process bus: each service's keys to the handler Lambda runs."""
    handlers: dict[Service, Callable[[dict[str, Any]], object]] = {
        Service.COMPILE: functools.partial(compile_object_created, runtime.lifecycle, runtime.clock),
        Service.EXTRACT: functools.partial(handle_session_created, runtime),
    }
    if runtime.retrieval is not None:
        handlers = {Service.INDEX: runtime.retrieval.indexer.handle_event, **handlers}
    for service, handler in handlers.items():
        bus.subscribe(key_pattern(service), handler)


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
    base = Foundation(
        settings=settings,
        clock=clock,
        store=store,
        catalog=catalog,
        writer=_writer(settings, store, catalog, clock),
        bus=bus,
    )
    return assemble(base, retrieval, formation_wiring.wire_local(base, retrieval), lifecycle_wiring.wire_local(base))


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

    settings.require("the aws backend", ("bucket", "table"))
    assert settings.bucket is not None and settings.table is not None
    clock = clock or SystemClock()
    session = SharedClients(session or boto3.session.Session(region_name=settings.region))
    store = S3Store(session.client("s3"), settings.bucket)
    catalog = DynamoCatalog(session.client("dynamodb"), settings.table, clock=clock)
    base = Foundation(
        settings=settings, clock=clock, store=store, catalog=catalog, writer=_writer(settings, store, catalog, clock)
    )
    retrieval = None
    if settings.opensearch_endpoint:
        retrieval = _aws_retrieval(settings, session, store, catalog, clock, search_client)
    return assemble_aws(base, retrieval, session)


def assemble_aws(base: Foundation, retrieval: Retrieval | None, session: Any) -> Runtime:
    """``assemble`` with the AWS wiring of formation and the lifecycle, their clients from ``session``."""
    return assemble(
        base, retrieval, formation_wiring.wire_aws(base, retrieval, session), lifecycle_wiring.wire_aws(base, session)
    )


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


def bootstrap(settings: Settings | None = None, clock: Clock | None = None) -> Runtime:
    """The whole runtime for ``settings`` (by default the environment's, read once): every
    adapter of the configured backend and every part wired on them."""
    settings = settings if settings is not None else load_settings()
    return build_aws(settings, clock) if settings.backend == "aws" else build_local(settings, clock)


@functools.cache
def runtime() -> Runtime:
    """The process's runtime, built by ``bootstrap`` on first use."""
    return bootstrap()


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
