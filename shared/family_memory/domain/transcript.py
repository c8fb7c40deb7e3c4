"""A finished conversation as received: ``sessions/{session_id}.json``.

Turns are numbered from 1 without gaps; a user turn names the member who
wrote it. Limits: 2,000 turns and 1 MB of JSON. Validation errors name the
turn and the rule, and nothing is stored when a transcript is refused.

A finished conversation cannot have happened in the future: intake refuses a
``started_at`` or a turn's ``at`` more than ``MAX_AHEAD_OF_CLOCK`` (10
minutes, for clock skew) ahead of the service's clock (``check_not_ahead``).
A session dated 2030 would otherwise outrank every real session that follows.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from family_memory.domain.clock import UtcDatetime, zone
from family_memory.domain.errors import InvalidInputError, PayloadTooLargeError
from family_memory.domain.family import Surface
from family_memory.domain.ids import FamilyId, MemberId, SessionId
from family_memory.domain.okf import validation_message
from family_memory.domain.text import check_body

MAX_TURNS = 2000
MAX_TRANSCRIPT_BYTES = 1_000_000
MAX_TURN_CHARS = 20_000
#: How far ahead of the service's clock a session's times may be (the caller's clock may run a little fast).
MAX_AHEAD_OF_CLOCK = timedelta(minutes=10)


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class Turn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int = Field(ge=1)
    role: Role
    member_id: MemberId | None = None
    text: str
    at: UtcDatetime | None = None

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        value = check_body(value, "text", MAX_TURN_CHARS)
        if not value:
            raise InvalidInputError("text is empty")
        return value

    @model_validator(mode="after")
    def _member_for_users(self) -> Turn:
        if self.role is Role.USER and self.member_id is None:
            raise InvalidInputError(f"turn {self.n} is a user turn without a member_id")
        return self


class Transcript(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    family_id: FamilyId
    session_id: SessionId
    surface: Surface = Surface.CHAT
    started_at: UtcDatetime
    time_zone: str
    turns: list[Turn] = Field(min_length=1)

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        zone(value)
        return value

    @field_validator("turns")
    @classmethod
    def _numbered(cls, turns: list[Turn]) -> list[Turn]:
        if len(turns) > MAX_TURNS:
            raise InvalidInputError(f"{len(turns)} turns; the limit is {MAX_TURNS}")
        numbers = [t.n for t in turns]
        seen: set[int] = set()
        for n in numbers:
            if n in seen:
                raise InvalidInputError(f"turn number {n} is repeated")
            seen.add(n)
        expected = list(range(1, len(turns) + 1))
        if sorted(numbers) != expected:
            missing = sorted(set(expected) - seen)
            raise InvalidInputError(f"turn numbers must run 1..{len(turns)} without gaps; missing {missing[:5]}")
        return sorted(turns, key=lambda t: t.n)

    def turn(self, n: int) -> Turn | None:
        return self.turns[n - 1] if 1 <= n <= len(self.turns) else None


def parse_transcript(data: bytes | str, where: str = "transcript") -> Transcript:
    """A validated transcript from JSON, or InvalidInputError saying exactly what is wrong."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_TRANSCRIPT_BYTES:
        raise PayloadTooLargeError(f"{where} is {size} bytes; the limit is {MAX_TRANSCRIPT_BYTES}")
    try:
        return Transcript.model_validate_json(data)
    except ValidationError as exc:
        raise InvalidInputError(f"{where}: {validation_message(exc)}") from exc


def check_not_ahead(transcript: Transcript, now: datetime, where: str = "transcript") -> None:
    """InvalidInputError when ``started_at`` or a turn's ``at`` is more than
    ``MAX_AHEAD_OF_CLOCK`` after ``now``: a finished conversation is in the past."""
    limit = now + MAX_AHEAD_OF_CLOCK
    allowed = f"the service's clock says {now:%Y-%m-%dT%H:%M:%SZ}, and at most 10 minutes ahead is accepted"
    if transcript.started_at > limit:
        raise InvalidInputError(
            f"{where}: started_at {transcript.started_at:%Y-%m-%dT%H:%M:%SZ} is in the future ({allowed})"
        )
    for turn in transcript.turns:
        if turn.at is not None and turn.at > limit:
            raise InvalidInputError(
                f"{where}: turn {turn.n}: at {turn.at:%Y-%m-%dT%H:%M:%SZ} is in the future ({allowed})"
            )
