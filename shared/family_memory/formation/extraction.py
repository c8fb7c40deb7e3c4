"""The extraction port: a finished conversation in, proposed memories out.

Three implementations share it: the Bedrock extractor (``adapters/aws``), the
offline rule-based extractor (``offline``), and candidates supplied by a
caller (``SuppliedCandidates``). Proposals come back *raw* (whatever the
extractor produced), because validation must keep a malformed proposal with
the reason it was refused rather than crash on it.

Retrying a throttled extractor is shared behaviour and lives here, once: a
provider raises ``ExtractionThrottledError`` from its one narrow method and
the base class backs off and tries again. A provider sorts every other
failure into one of three: ``ExtractionUnavailableError`` (try again later: the
event is retried), its ``ExtractorMisconfiguredError`` (no input can work until
the configuration is fixed: the event is retried and dead-lettered, nothing is
recorded) or ``ExtractionRefusedError`` (this input will never work: recorded,
not retried).
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from family_memory.domain.errors import FamilyMemoryError, InvalidInputError
from family_memory.domain.family import FamilySettings
from family_memory.domain.transcript import Transcript
from family_memory.formation.document import ExtractorInfo, ExtractorKind


class ExtractionThrottledError(FamilyMemoryError):
    """The extractor's service asked us to slow down; worth retrying."""


class ExtractionUnavailableError(FamilyMemoryError):
    """The extractor could not run for now (throttling beyond the retries, a
    server error, a timeout). The session stays where it is; the event is
    retried later."""


class ExtractorMisconfiguredError(ExtractionUnavailableError):
    """The extractor itself cannot run as configured: its model does not exist (a wrong
    id, or one past end of life), access to it is not enabled, or the role may not call
    it. No session can be extracted until the configuration is fixed, so this is not a
    verdict on the session: nothing is recorded, the invocation fails (the event is
    retried, then dead-lettered and alarmed), and ``family-memory replay --failed-only``
    extracts the sessions left waiting once the model answers again."""

    def __init__(self, model_id: str, code: str, reason: str) -> None:
        super().__init__(f"extraction model {model_id!r} is unavailable or misconfigured ({code}): {reason}")
        self.model_id = model_id
        self.code = code
        self.reason = reason


class ExtractionRefusedError(FamilyMemoryError):
    """The extractor's service refused this session for good: a client error about
    the input (invalid, or too long for the model). The same input would be refused
    again, so it is not
    retried: the session is recorded as extraction-failed, with ``code`` and
    the reason, for a later replay."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}" if reason else code)
        self.code = code
        self.reason = reason


@dataclass(frozen=True)
class Extraction:
    """What one extractor run produced. There is no summary here on purpose: the
    session's summary is always derived from the accepted claims
    (``summary.derive_summary``), never taken from an extractor's free text."""

    candidates: list[Any]
    problems: list[str] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    attempts: int = 1


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter: attempt n waits up to base * 2**(n-1), capped."""

    max_attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 8.0
    sleep: Callable[[float], None] = time.sleep
    jitter: Callable[[], float] = random.random

    def delay(self, attempt: int) -> float:
        return float(min(self.max_delay, self.base_delay * 2 ** (attempt - 1)) * (0.5 + 0.5 * self.jitter()))


class Extractor(ABC):
    info: ExtractorInfo

    def __init__(self, retry: RetryPolicy | None = None) -> None:
        self.retry = retry or RetryPolicy()

    def extract(self, transcript: Transcript, family: FamilySettings) -> Extraction:
        """Proposals for ``transcript``, retrying throttling with backoff.
        ExtractionUnavailableError when the retries run out."""
        attempt = 1
        while True:
            try:
                result = self._extract(transcript, family)
            except ExtractionThrottledError as exc:
                if attempt >= self.retry.max_attempts:
                    raise ExtractionUnavailableError(
                        f"{self.info.name} is throttling; gave up after {attempt} attempts: {exc}"
                    ) from exc
                self.retry.sleep(self.retry.delay(attempt))
                attempt += 1
                continue
            if attempt == 1:
                return result
            return Extraction(result.candidates, result.problems, result.usage, attempts=attempt)

    @abstractmethod
    def _extract(self, transcript: Transcript, family: FamilySettings) -> Extraction:
        """One attempt. Raise ExtractionThrottledError when the service throttles."""


#: Supplied candidates accepted with one session. Every proposal is kept in the
#: candidates document (rejected ones with their reasons), so the count is bounded
#: before anything is validated or stored.
MAX_SUPPLIED_CANDIDATES = 200


def check_supplied_count(count: int) -> None:
    """InvalidInputError when a caller supplies more than ``MAX_SUPPLIED_CANDIDATES``."""
    if count > MAX_SUPPLIED_CANDIDATES:
        raise InvalidInputError(
            f"candidates: {count} supplied for one session; at most {MAX_SUPPLIED_CANDIDATES} are accepted "
            "(nothing was stored)"
        )


class SuppliedCandidates(Extractor):
    """Candidates produced elsewhere (a batch job, another model), submitted with
    the session. They are validated and reconciled exactly like the others.
    More than ``MAX_SUPPLIED_CANDIDATES`` are refused whole (InvalidInputError)."""

    def __init__(self, candidates: list[Any], *, producer: str = "supplied") -> None:
        super().__init__(RetryPolicy(max_attempts=1))
        check_supplied_count(len(candidates))
        self.candidates = list(candidates)
        self.info = ExtractorInfo(
            name=producer[:120] or "supplied",
            version="1",
            kind=ExtractorKind.SUPPLIED,
            label=f"candidates supplied by the caller ({producer[:100]})",
        )

    def _extract(self, transcript: Transcript, family: FamilySettings) -> Extraction:
        return Extraction(candidates=list(self.candidates))
