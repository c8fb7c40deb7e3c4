"""Logger, Tracer and Metrics, created once for every function and command."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "family-memory"
NAMESPACE = "FamilyMemory"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)

Handler = TypeVar("Handler", bound=Callable[..., Any])


def observed_handler(
    *, clear_state: bool = False, cold_start_metric: bool = False, correlation_id_path: str | None = None
) -> Callable[[Handler], Handler]:
    """Every Lambda handler's preamble, in one place: the logger's Lambda context (``clear_state``
    drops keys an earlier invocation appended; ``correlation_id_path`` names the request's id), the
    handler traced, and its metrics flushed after each invocation (``cold_start_metric`` adds the
    ColdStart one). The same as stacking ``logger.inject_lambda_context``, ``tracer.capture_lambda_handler``
    and ``metrics.log_metrics``, in that order."""

    def wrap(handler: Handler) -> Handler:
        flushed = metrics.log_metrics(handler, capture_cold_start_metric=cold_start_metric)
        traced = tracer.capture_lambda_handler(flushed)
        return cast(
            Handler,
            logger.inject_lambda_context(traced, correlation_id_path=correlation_id_path, clear_state=clear_state),
        )

    return wrap


class MetricsSink(Protocol):
    """Where a part publishes its figures: Lambda's ``metrics`` (EMF) or ``CountingMetrics``."""

    def add_metric(self, *, name: str, unit: Any, value: float) -> Any: ...


@dataclass
class CountingMetrics:
    """Local mode's metrics: totals kept in memory (Lambda publishes EMF instead)."""

    totals: dict[str, float] = field(default_factory=dict)

    def add_metric(self, *, name: str, unit: Any, value: float) -> None:
        self.totals[name] = self.totals.get(name, 0) + value
