"""Settings, read from the environment once and validated.

``FAMILY_MEMORY_BACKEND`` picks the adapter set: ``local`` (the default: a
directory, SQLite, in-process dispatch; no AWS account) or ``aws``. Code below
the composition root receives plain values, never ``os.environ``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from family_memory.domain.errors import InvalidInputError
from family_memory.domain.okf import validation_message


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: Literal["local", "aws"] = "local"
    home: Path = Field(default=Path(".family-memory"), description="local mode: where the bundle and SQLite live")
    bucket: str | None = Field(default=None, description="aws mode: the memory bucket")
    table: str | None = Field(default=None, description="aws mode: the catalog table")
    region: str | None = None
    lease_ttl_seconds: float = Field(default=30.0, gt=0, le=900)
    lease_wait_seconds: float = Field(default=60.0, ge=0, le=900)
    # --- retrieval ---
    embedder: Literal["minilm", "hashed", "bedrock"] | None = Field(
        default=None, description="local default minilm (the offline model), aws default bedrock (Titan V2)"
    )
    opensearch_endpoint: str | None = Field(default=None, description="aws mode: the collection endpoint")
    opensearch_index: str = Field(default="family-memories", pattern=r"^[a-z][a-z0-9_-]{0,254}$")
    lookup_max_items: int = Field(default=5, ge=0, le=20)
    lookup_max_tokens: int = Field(default=350, ge=0, le=2000)
    lookup_rule_items: int = Field(default=8, ge=0, le=20)
    lookup_rule_tokens: int = Field(default=400, ge=0, le=2000)
    extractor: Literal["offline", "bedrock"] = Field(
        default="offline", description="formation: the offline rule-based extractor, or Bedrock"
    )
    #: Claude Haiku 4.5 through the US cross-region inference profile (Active on Bedrock's
    #: model lifecycle page; Claude 3.5 Haiku reached end of life there on 2026-06-19).
    bedrock_model_id: str = Field(default="us.anthropic.claude-haiku-4-5-20251001-v1:0", min_length=1, max_length=200)
    reconcile_queue_url: str | None = Field(default=None, description="aws mode: the SQS FIFO reconcile queue")
    idempotency_table: str | None = Field(default=None, description="aws mode: Powertools idempotency records")
    max_candidates_per_session: int = Field(default=20, ge=0, le=100)
    # --- deadlines (the api function; docs/api.md "Deadlines") ---
    api_deadline_seconds: float = Field(
        default=25.0, gt=0, le=28, description="every API request is answered within this (API Gateway waits 30 s)"
    )
    search_deadline_seconds: float | None = Field(
        default=None, gt=0, le=20, description="each search of a lookup answers within this, or is unavailable"
    )


_ENV = {
    "backend": "FAMILY_MEMORY_BACKEND",
    "home": "FAMILY_MEMORY_HOME",
    "bucket": "MEMORY_BUCKET",
    "table": "MEMORY_TABLE",
    "region": "AWS_REGION",
    "lease_ttl_seconds": "LEASE_TTL_SECONDS",
    "lease_wait_seconds": "LEASE_WAIT_SECONDS",
    "embedder": "FAMILY_MEMORY_EMBEDDER",
    "opensearch_endpoint": "OPENSEARCH_ENDPOINT",
    "opensearch_index": "OPENSEARCH_INDEX",
    "lookup_max_items": "LOOKUP_MAX_ITEMS",
    "lookup_max_tokens": "LOOKUP_MAX_TOKENS",
    "lookup_rule_items": "LOOKUP_RULE_ITEMS",
    "lookup_rule_tokens": "LOOKUP_RULE_TOKENS",
    "extractor": "FORMATION_EXTRACTOR",
    "bedrock_model_id": "BEDROCK_MODEL_ID",
    "reconcile_queue_url": "RECONCILE_QUEUE_URL",
    "idempotency_table": "IDEMPOTENCY_TABLE",
    "max_candidates_per_session": "FORMATION_MAX_CANDIDATES",
    "api_deadline_seconds": "API_DEADLINE_SECONDS",
    "search_deadline_seconds": "SEARCH_DEADLINE_SECONDS",
}


def load_settings(environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
    env = os.environ if environ is None else environ
    values: dict[str, object] = {field: env[name] for field, name in _ENV.items() if env.get(name)}
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        settings = Settings.model_validate(values)
    except ValidationError as exc:
        raise InvalidInputError(f"configuration: {validation_message(exc)}") from exc
    if settings.backend == "aws" and not (settings.bucket and settings.table):
        raise InvalidInputError("configuration: the aws backend needs MEMORY_BUCKET and MEMORY_TABLE")
    return settings
