"""Settings: one pydantic-settings model, read from the environment once per process.

Each field's ``validation_alias`` is its environment variable (README "Configuration" is
the contract: names and defaults). ``FAMILY_MEMORY_BACKEND`` picks the adapter set:
``local`` (the default: a directory, SQLite, in-process dispatch; no AWS account) or
``aws``. Code below the composition root receives plain values, never ``os.environ``.

A missing or bad variable is a ``ConfigurationError`` naming the variable (never the
value, which may hold a password): the deployment's problem, not a caller's. Each Lambda
function also says which optional variables it cannot do without (``Settings.require``,
called at INIT by ``app.bootstrap.lambda_runtime``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings.sources.utils import parse_env_vars

from family_memory.domain.errors import ConfigurationError
from family_memory.lifecycle.rules import DEFAULT_DECAY_AFTER_DAYS, DEFAULT_PROMOTE_AFTER
from family_memory.retrieval.caps import (
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_RULE_ITEMS,
    DEFAULT_RULE_TOKENS,
    MAX_ITEMS_LIMIT,
    MAX_TOKENS_LIMIT,
)

#: The environment ``load_settings`` was given instead of ``os.environ`` (tests, ``sam local``'s env.json).
_ENVIRON: ContextVar[Mapping[str, str] | None] = ContextVar("family_memory_environ", default=None)


class _GivenEnvironment(EnvSettingsSource):
    """pydantic-settings' environment source, over a mapping instead of ``os.environ``."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._given = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self._given, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        case_sensitive=True,
        env_ignore_empty=True,  # VAR= (empty) means "not set": the default applies
        validate_by_alias=True,
        validate_by_name=True,  # overrides (``--home``, tests) are given by field name
    )

    backend: Literal["local", "aws"] = Field(default="local", validation_alias="FAMILY_MEMORY_BACKEND")
    home: Path = Field(
        default=Path(".family-memory"),
        validation_alias="FAMILY_MEMORY_HOME",
        description="local mode: where the bundle and SQLite live",
    )
    bucket: str | None = Field(default=None, validation_alias="MEMORY_BUCKET", description="aws mode: the bucket")
    table: str | None = Field(default=None, validation_alias="MEMORY_TABLE", description="aws mode: the table")
    region: str | None = Field(default=None, validation_alias="AWS_REGION")
    lease_ttl_seconds: float = Field(default=30.0, gt=0, le=900, validation_alias="LEASE_TTL_SECONDS")
    lease_wait_seconds: float = Field(default=60.0, ge=0, le=900, validation_alias="LEASE_WAIT_SECONDS")
    # --- retrieval ---
    embedder: Literal["minilm", "hashed", "bedrock"] | None = Field(
        default=None,
        validation_alias="FAMILY_MEMORY_EMBEDDER",
        description="local default minilm (the offline model), aws default bedrock (Titan V2)",
    )
    opensearch_endpoint: str | None = Field(
        default=None, validation_alias="OPENSEARCH_ENDPOINT", description="aws mode: the collection endpoint"
    )
    opensearch_index: str = Field(
        default="family-memories", pattern=r"^[a-z][a-z0-9_-]{0,254}$", validation_alias="OPENSEARCH_INDEX"
    )
    # The lookup's caps: defaults and bounds are retrieval.caps' (one place to change them).
    lookup_max_items: int = Field(
        default=DEFAULT_MAX_ITEMS, ge=0, le=MAX_ITEMS_LIMIT, validation_alias="LOOKUP_MAX_ITEMS"
    )
    lookup_max_tokens: int = Field(
        default=DEFAULT_MAX_TOKENS, ge=0, le=MAX_TOKENS_LIMIT, validation_alias="LOOKUP_MAX_TOKENS"
    )
    lookup_rule_items: int = Field(
        default=DEFAULT_RULE_ITEMS, ge=0, le=MAX_ITEMS_LIMIT, validation_alias="LOOKUP_RULE_ITEMS"
    )
    lookup_rule_tokens: int = Field(
        default=DEFAULT_RULE_TOKENS, ge=0, le=MAX_TOKENS_LIMIT, validation_alias="LOOKUP_RULE_TOKENS"
    )
    # --- the lifecycle ---
    dream_queue_url: str | None = Field(
        default=None, validation_alias="DREAM_QUEUE_URL", description="aws: the SQS queue the fan-out fills"
    )
    dream_promote_after: int = Field(
        default=DEFAULT_PROMOTE_AFTER, ge=1, le=1000, validation_alias="DREAM_PROMOTE_AFTER"
    )
    dream_decay_after_days: int = Field(
        default=DEFAULT_DECAY_AFTER_DAYS, ge=1, le=3650, validation_alias="DREAM_DECAY_AFTER_DAYS"
    )
    # --- formation ---
    extractor: Literal["offline", "bedrock"] = Field(
        default="offline",
        validation_alias="FORMATION_EXTRACTOR",
        description="formation: the offline rule-based extractor, or Bedrock",
    )
    #: Claude Haiku 4.5 through the US cross-region inference profile (Active on Bedrock's
    #: model lifecycle page; Claude 3.5 Haiku reached end of life there on 2026-06-19).
    bedrock_model_id: str = Field(
        default="us.anthropic.claude-haiku-4-5-20251001-v1:0",
        min_length=1,
        max_length=200,
        validation_alias="BEDROCK_MODEL_ID",
    )
    reconcile_queue_url: str | None = Field(
        default=None, validation_alias="RECONCILE_QUEUE_URL", description="aws mode: the SQS FIFO reconcile queue"
    )
    idempotency_table: str | None = Field(
        default=None, validation_alias="IDEMPOTENCY_TABLE", description="aws mode: Powertools idempotency records"
    )
    max_candidates_per_session: int = Field(default=20, ge=0, le=100, validation_alias="FORMATION_MAX_CANDIDATES")
    # --- deadlines (the api function; docs/api.md "Deadlines") ---
    api_deadline_seconds: float = Field(
        default=25.0,
        gt=0,
        le=28,
        validation_alias="API_DEADLINE_SECONDS",
        description="every API request is answered within this (API Gateway waits 30 s)",
    )
    search_deadline_seconds: float | None = Field(
        default=None,
        gt=0,
        le=20,
        validation_alias="SEARCH_DEADLINE_SECONDS",
        description="each search of a lookup answers within this, or is unavailable",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Overrides first, then the environment; no .env file and no secrets directory.
        given = _ENVIRON.get()
        return (init_settings, env_settings if given is None else _GivenEnvironment(settings_cls, given))

    @classmethod
    def variable(cls, field: str) -> str:
        """The environment variable of ``field`` (its alias)."""
        alias = cls.model_fields[field].validation_alias
        return alias if isinstance(alias, str) else field

    def require(self, who: str, fields: Iterable[str]) -> None:
        """ConfigurationError naming every variable of ``fields`` that ``who`` (``the indexer
        function``) needs and that is not set."""
        missing = [self.variable(f) for f in fields if getattr(self, f) in (None, "")]
        if missing:
            verb = "is" if len(missing) == 1 else "are"
            raise ConfigurationError(f"configuration: {who} needs {' and '.join(missing)}, which {verb} not set")


def _problems(exc: ValidationError) -> str:
    """Each problem as ``VARIABLE: what is wrong`` (never the value: it may hold a password)."""
    parts = []
    for error in exc.errors(include_input=False):
        where = str(error["loc"][0]) if error["loc"] else "settings"
        name = Settings.variable(where) if where in Settings.model_fields else where
        parts.append(f"{name}: {error['msg']}")
    return "; ".join(parts)


def load_settings(environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
    """The settings from ``environ`` (``os.environ`` by default), with ``overrides`` (by field
    name; None means "not overridden") on top. ConfigurationError names each bad variable."""
    token = _ENVIRON.set(environ)
    try:
        settings = Settings(**{k: v for k, v in overrides.items() if v is not None})  # type: ignore[arg-type]
    except ValidationError as exc:
        raise ConfigurationError(f"configuration: {_problems(exc)}") from exc
    finally:
        _ENVIRON.reset(token)
    if settings.backend == "aws":
        settings.require("the aws backend", ("bucket", "table"))
    return settings
