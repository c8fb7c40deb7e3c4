"""Time budgets: a request's overall deadline, and the share of it search may use.

API Gateway gives an integration 30 seconds and the api function times out at 29; a
cold OpenSearch Serverless collection (scaled to zero) can take 10-30 s to answer its
first search. So every API request runs under a deadline (``request_deadline``, 25 s by
default), and each search a turn's lookup makes is bounded too (``DeadlineIndex``, 3 s
on the api function). A search that cannot answer in time raises ``SearchTimeoutError``,
an ``IndexUnavailableError``: the lookup keeps the other half's hits when that half
answered, and the API answers 503 ``search_unavailable`` with ``Retry-After`` when
neither did, never a gateway timeout. Work past the request's deadline is refused
where it would start (``check_deadline``, called before each AWS call): the caller gets
503 ``deadline_exceeded`` with ``Retry-After``; writes are crash-safe at every step, so
one stopped between two calls is completed by the next writer.

The deadline lives in a context variable: set per request by the API, absent elsewhere
(the other functions and the CLI run without one).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeoutError
from typing import TypeVar

from family_memory.domain.errors import FamilyMemoryError
from family_memory.retrieval.embedding import Vector
from family_memory.retrieval.search_index import Hit, IndexUnavailableError, MemoryIndex, SearchFilter, WrappedIndex

log = logging.getLogger(__name__)

T = TypeVar("T")

#: When the current request must be answered by (time.monotonic()); None: no deadline.
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("family_memory_deadline", default=None)

DEADLINE_EXCEEDED = "the request could not be finished in time; retry shortly"


class DeadlineExceededError(FamilyMemoryError):
    """The request's deadline passed before the next piece of work could start."""

    public = DEADLINE_EXCEEDED


class SearchTimeoutError(IndexUnavailableError):
    """A search did not answer within its share of the request's time."""


@contextlib.contextmanager
def request_deadline(seconds: float) -> Iterator[None]:
    """Run the block under a deadline ``seconds`` from now (the earlier one wins when nested)."""
    if seconds <= 0:
        raise ValueError(f"a deadline must be in the future, got {seconds} s")
    at = time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(at if outer is None else min(outer, at))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the current request's deadline (None: there is none)."""
    at = _DEADLINE.get()
    return None if at is None else at - time.monotonic()


def check_deadline(what: str) -> None:
    """DeadlineExceededError when the current request's deadline has passed."""
    left = remaining()
    if left is not None and left <= 0:
        raise DeadlineExceededError(f"the request's deadline passed {-left:.2f} s before {what}")


class DeadlineIndex(WrappedIndex):
    """``index`` with its two searches bounded: each answers within ``seconds`` (or what is
    left of the request's deadline, if less) or raises SearchTimeoutError. The call goes on
    in a worker thread until the engine answers or its client's own timeout ends it, so the
    engine's client should time out near ``seconds`` too (the api function's does); at most
    ``workers`` searches run at once, and one waiting for a worker waits within its budget.
    Every other method is the wrapped index's own."""

    def __init__(self, index: MemoryIndex, seconds: float, *, workers: int = 4) -> None:
        if seconds <= 0:
            raise ValueError(f"a search deadline must be positive, got {seconds}")
        super().__init__(index)
        self.seconds = seconds
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="search")

    def _bounded(self, what: str, fn: Callable[[], T]) -> T:
        left = remaining()
        budget = self.seconds if left is None else min(self.seconds, left)
        if budget <= 0:
            raise SearchTimeoutError(f"no time was left for the {what} search")
        context = contextvars.copy_context()
        future: Future[T] = self._executor.submit(context.run, fn)
        try:
            return future.result(timeout=budget)
        except FutureTimeoutError as exc:
            future.cancel()
            log.warning("a search did not answer in time", extra={"search": what, "budget_s": round(budget, 3)})
            raise SearchTimeoutError(f"the {what} search did not answer within {budget:.2f} s") from exc

    def semantic(self, family_id: str, vector: Vector, search_filter: SearchFilter, k: int) -> list[Hit]:
        return self._bounded("semantic", lambda: self.index.semantic(family_id, vector, search_filter, k))

    def keyword(self, family_id: str, text: str, search_filter: SearchFilter, k: int) -> list[Hit]:
        return self._bounded("keyword", lambda: self.index.keyword(family_id, text, search_filter, k))
