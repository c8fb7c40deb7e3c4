"""Logger, Tracer and Metrics, created once for every function and command."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "family-memory"
NAMESPACE = "FamilyMemory"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)


class MetricsSink(Protocol):
    """Where a part publishes its figures: Lambda's ``metrics`` (EMF) or ``CountingMetrics``."""

    def add_metric(self, *, name: str, unit: Any, value: float) -> Any: ...


@dataclass
class CountingMetrics:
    """Local mode's metrics: totals kept in memory (Lambda publishes EMF instead)."""

    totals: dict[str, float] = field(default_factory=dict)

    def add_metric(self, *, name: str, unit: Any, value: float) -> None:
        self.totals[name] = self.totals.get(name, 0) + value
