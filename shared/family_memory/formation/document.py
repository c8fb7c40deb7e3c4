"""``candidates/{session_id}.json``: what the extractor proposed and each verdict.

Every candidate is kept, accepted or not, with the rules it failed, so a
family (or an engineer) can see why something was not remembered. The
top-level ``summary`` (one line, at most 200 characters) is the brief's "last
conversation". After reconciliation the document also records what became of
each accepted candidate (``reconciliation``); that section is rewritten only
when a reconciliation changed something, so replaying a session leaves the
file as it was. A session the extractor refused for good (a client error)
has no candidates and says why in ``extraction_failed``.
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from family_memory.domain.clock import UtcDatetime
from family_memory.domain.family import Surface
from family_memory.domain.ids import FamilyId, SessionId
from family_memory.domain.okf import serialise_json
from family_memory.formation.candidate import Candidate

SUMMARY_MAX = 200
#: A proposal is kept as proposed, up to this many characters of JSON.
PROPOSED_MAX_CHARS = 8000


class ExtractorKind(StrEnum):
    OFFLINE = "offline"
    BEDROCK = "bedrock"
    SUPPLIED = "supplied"


class ExtractorInfo(BaseModel):
    """Who proposed the candidates. The offline extractor says so in ``label``."""

    model_config = ConfigDict(frozen=True, extra="allow")

    name: str = Field(min_length=1, max_length=120)
    version: str = Field(min_length=1, max_length=60)
    kind: ExtractorKind
    label: str = Field(max_length=200)
    model_id: str | None = Field(default=None, max_length=200)

    @property
    def producer(self) -> str:
        """``<producer>/<version>`` for OKF's ``generated.by`` (characters OKF allows)."""
        raw = f"{self.name}/{self.version}"
        return "".join(c if c.isalnum() or c in "_.:/@+-" else "-" for c in raw)[:120]


class Limits(BaseModel):
    """The per-session cap and the confidence bars (higher for inferences)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_new: int = Field(default=20, ge=0, le=100)
    min_confidence_statement: float = Field(default=0.5, ge=0, le=1)
    min_confidence_inference: float = Field(default=0.8, ge=0, le=1)


class Rejection(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str
    message: str


class Verdict(StrEnum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class CandidateEntry(BaseModel):
    """One proposal: as proposed, its verdict and reasons, and (when accepted)
    the candidate as it goes to reconciliation (with any adjustment applied)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    index: int = Field(ge=1)
    verdict: Verdict
    reasons: list[Rejection] = Field(default_factory=list)
    adjustments: list[str] = Field(default_factory=list)
    candidate: Candidate | None = None
    proposed: Any = None

    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.ACCEPTED

    @property
    def evidence_notes(self) -> dict[str, str | int]:
        """What each evidence record this entry's claim forms also carries: the entry's extra
        key ``evidence_notes`` (a migration names the archived file and line there), its
        string and integer values only, and never the record's own ``ref``, ``quote`` or
        ``recordedAt``. Empty for an extractor's entries."""
        notes = (self.model_extra or {}).get(EVIDENCE_NOTES)
        if not isinstance(notes, dict):
            return {}
        return {
            str(k): v
            for k, v in notes.items()
            if str(k) not in _EVIDENCE_OWN and isinstance(v, str | int) and not isinstance(v, bool)
        }


#: The extra key of a candidates entry whose values go on each evidence record of its claim.
EVIDENCE_NOTES = "evidence_notes"
_EVIDENCE_OWN = frozenset({"ref", "quote", "recordedAt", "recorded_at"})


class OutcomeKind(StrEnum):
    ADDED = "added"
    REINFORCED = "reinforced"
    SUPERSEDED = "superseded"  # a new memory replaced an older one
    CONTRADICTION = "contradiction"
    NOOP = "noop"
    SUPPRESSED = "suppressed"


class Outcome(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    index: int
    kind: OutcomeKind
    memory_id: str | None = None
    replaced: str | None = None
    detail: str = ""


class Reconciliation(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    reconciled_at: UtcDatetime
    change_ids: list[str] = Field(default_factory=list)
    outcomes: list[Outcome] = Field(default_factory=list)


class ExtractionFailure(BaseModel):
    """Why a session has no candidates: the extractor refused it for good (a client
    error such as an invalid or too-long input). Replay tries again."""

    model_config = ConfigDict(frozen=True, extra="allow")

    code: str = Field(max_length=200)
    reason: str = Field(max_length=1000)
    failed_at: UtcDatetime


class CandidatesDocument(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    type: Literal["candidates"] = "candidates"
    family_id: FamilyId
    session_id: SessionId
    surface: Surface
    started_at: UtcDatetime
    time_zone: str
    extractor: ExtractorInfo
    summary: str = Field(max_length=SUMMARY_MAX)
    transcript_sha256: str
    extracted_at: UtcDatetime
    limits: Limits = Field(default_factory=Limits)
    problems: list[str] = Field(default_factory=list)
    usage: dict[str, int] = Field(default_factory=dict)
    candidates: list[CandidateEntry] = Field(default_factory=list)
    extraction_failed: ExtractionFailure | None = None
    reconciliation: Reconciliation | None = None

    @field_validator("summary")
    @classmethod
    def _one_line(cls, value: str) -> str:
        return one_line(value, SUMMARY_MAX)

    def accepted(self) -> list[tuple[int, Candidate]]:
        return [(e.index, e.candidate) for e in self.candidates if e.accepted and e.candidate is not None]

    def rejected_by_rule(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for entry in self.candidates:
            if not entry.accepted:
                for rule in sorted({r.rule for r in entry.reasons}):
                    counts[rule] = counts.get(rule, 0) + 1
        return counts

    def content_hash(self) -> str:
        """SHA-256 of the extraction (everything but the reconciliation section):
        the idempotency key of the reconcile message, with family and session."""
        return hashlib.sha256(serialise_json(self.model_copy(update={"reconciliation": None}))).hexdigest()


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed to single spaces and cut at a word boundary to ``limit`` characters."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0] if " " in flat[: limit - 1] else flat[: limit - 1]
    return cut.rstrip(" ,;:") + "…"


def bounded_proposal(raw: Any) -> Any:
    """The proposal as proposed, or a truncated JSON string of it when it is large."""
    try:
        text = json.dumps(raw, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(raw)[:PROPOSED_MAX_CHARS]
    return raw if len(text) <= PROPOSED_MAX_CHARS else text[:PROPOSED_MAX_CHARS] + "…(truncated)"


def transcript_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
