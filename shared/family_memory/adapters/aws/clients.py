"""One boto3 client per service and configuration, for the whole runtime.

The composition root used to make a client wherever an adapter needed one: four
DynamoDB clients (catalog, embedding cache, dream ledger, idempotency) and two SQS
clients per cold start, each paying botocore's client construction (endpoint
resolution, the service model, the event hooks). ``SharedClients`` wraps the boto3
session: ``client()`` returns the same client for the same service, Region and
configuration, so an adapter still asks for what it needs and the process makes it
once.

Every client it makes has bounded timeouts and retries (``DEFAULT_CONFIG``, which a
caller's own configuration overrides field by field): Lambda's default is 60 s to
connect and 60 s to read with legacy retries, which alone could outlast API Gateway's
30 s. And every call first checks the current request's deadline
(``retrieval.deadline.check_deadline``): past it, the call is not made.
"""

from __future__ import annotations

import copy
from typing import Any

from botocore.config import Config

from family_memory.retrieval.deadline import check_deadline

#: Connect and read timeouts (seconds) and standard-mode retries (3 attempts in all).
DEFAULT_CONFIG = Config(connect_timeout=3, read_timeout=10, retries={"mode": "standard", "total_max_attempts": 3})


def _check_deadline(model: Any = None, **_: Any) -> None:
    what = f"{model.service_model.service_name}.{model.name}" if model is not None else "an AWS call"
    check_deadline(what)


class SharedClients:
    """A boto3 session whose ``client()`` makes each distinct client once (see the module)."""

    def __init__(self, session: Any, default_config: Config = DEFAULT_CONFIG) -> None:
        self.session = session
        self._default = default_config
        self._clients: dict[tuple[Any, ...], Any] = {}
        session.events.register("before-call", _check_deadline, unique_id="family-memory-deadline")

    @property
    def region_name(self) -> str | None:
        region: str | None = self.session.region_name
        return region

    @property
    def events(self) -> Any:
        return self.session.events

    def get_credentials(self) -> Any:
        return self.session.get_credentials()

    def client(self, service_name: str, region_name: str | None = None, config: Config | None = None) -> Any:
        merged = self._default.merge(config) if config is not None else self._default
        options = getattr(merged, "_user_provided_options", {})
        key = (service_name, region_name, tuple(sorted((k, repr(v)) for k, v in options.items())))
        found = self._clients.get(key)
        if found is None:
            # A copy: botocore rewrites a config's retries in place when it makes a client.
            config_copy = copy.deepcopy(merged)
            found = self._clients[key] = self.session.client(service_name, region_name=region_name, config=config_copy)
        return found

    @property
    def made(self) -> int:
        """How many clients were made (for tests and the cold-start benchmark)."""
        return len(self._clients)
