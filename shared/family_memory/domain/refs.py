"""References between the tiers: ``memory://{family}/{id}`` and
``conv://{family}/{session}#turn=12-14``.

Parsing is strict: the whole string must match, every part must pass the id
rules, and a turn range must be ascending. Nothing is percent-decoded, so an
encoded ``/`` or ``..`` cannot slip through.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from family_memory.domain.errors import InvalidInputError
from family_memory.domain.ids import check_family_id, check_memory_id, check_session_id

MAX_REF_LENGTH = 300
_MEMORY_REF = re.compile(r"memory://([^/#?]+)/([^/#?]+)")
_CONV_REF = re.compile(r"conv://([^/#?]+)/([^/#?]+)#turn=([1-9][0-9]{0,5})(?:-([1-9][0-9]{0,5}))?")


def _match(ref: object, scheme: str, pattern: re.Pattern[str], expected: str) -> re.Match[str]:
    """``ref`` matched whole by ``pattern``; InvalidInputError naming ``expected`` otherwise."""
    if not isinstance(ref, str):
        raise InvalidInputError(f"a {scheme}:// reference must be a string, got {type(ref).__name__}")
    if len(ref) > MAX_REF_LENGTH:
        raise InvalidInputError(f"reference is {len(ref)} characters long; the limit is {MAX_REF_LENGTH}")
    match = pattern.fullmatch(ref)
    if match is None:
        raise InvalidInputError(f"{ref[:80]!r} is not {expected}")
    return match


@dataclass(frozen=True, slots=True)
class MemoryRef:
    family_id: str
    memory_id: str

    @classmethod
    def parse(cls, ref: object) -> MemoryRef:
        match = _match(ref, "memory", _MEMORY_REF, "a memory reference; expected memory://{family}/{memory id}")
        return cls(check_family_id(match.group(1)), check_memory_id(match.group(2)))

    def __str__(self) -> str:
        return f"memory://{self.family_id}/{self.memory_id}"


@dataclass(frozen=True, slots=True)
class ConvRef:
    family_id: str
    session_id: str
    first_turn: int
    last_turn: int

    def __post_init__(self) -> None:
        check_family_id(self.family_id)
        check_session_id(self.session_id)
        if self.first_turn < 1 or self.last_turn < self.first_turn:
            raise InvalidInputError(
                f"turn range {self.first_turn}-{self.last_turn} is not valid: "
                "turns start at 1 and the range must ascend"
            )

    @classmethod
    def parse(cls, ref: object) -> ConvRef:
        match = _match(
            ref, "conv", _CONV_REF, "a conversation reference; expected conv://{family}/{session}#turn=12-14"
        )
        first = int(match.group(3))
        last = int(match.group(4)) if match.group(4) else first
        return cls(check_family_id(match.group(1)), check_session_id(match.group(2)), first, last)

    @property
    def turns(self) -> range:
        return range(self.first_turn, self.last_turn + 1)

    def __str__(self) -> str:
        span = str(self.first_turn) if self.first_turn == self.last_turn else f"{self.first_turn}-{self.last_turn}"
        return f"conv://{self.family_id}/{self.session_id}#turn={span}"
