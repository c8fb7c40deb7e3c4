"""The dream's transitions, as pure rules over one memory and one local date.

A dream pass never invents a fact and never rewrites a family's words: it
only moves a memory's ``status`` or ``durability``.

- **Expire**: ``valid_until`` on or before the family's local date. A fact
  valid until the 17th is gone when the 17th begins in the family's time zone.
  Applies to active and dormant memories.
- **Decay**: an inferred memory not reinforced for ``decay_after_days``
  (about six months) of the family's calendar becomes dormant. Stated facts
  (explicit, implicit, system) and pinned memories never decay.
- **Promote**: a passing memory with at least ``promote_after`` reinforcements
  becomes durable. Pinned memories and explicit instructions (an explicit
  directive or constraint) are left as the family set them.

One memory makes at most one transition per pass, in that order of
precedence. Every rule reads only the memory and the date, so a second pass
for the same date finds nothing left to do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from family_memory.brief.weights import INSTRUCTION_TYPES, MemoryFacts
from family_memory.domain.changes import Action
from family_memory.domain.clock import local_date
from family_memory.domain.errors import InvalidInputError
from family_memory.domain.memory import Authority, Durability, Memory, Status

DEFAULT_PROMOTE_AFTER = 3
DEFAULT_DECAY_AFTER_DAYS = 182

#: Precedence when several rules match one memory, and the order of a plan.
TRANSITION_ORDER: tuple[Action, ...] = (Action.EXPIRE, Action.DECAY, Action.PROMOTE)


@dataclass(frozen=True, slots=True)
class DreamPolicy:
    promote_after: int = DEFAULT_PROMOTE_AFTER
    decay_after_days: int = DEFAULT_DECAY_AFTER_DAYS

    def __post_init__(self) -> None:
        if not 1 <= self.promote_after <= 1000:
            raise InvalidInputError(
                f"promote_after must be between 1 and 1000 reinforcements, got {self.promote_after}"
            )
        if not 1 <= self.decay_after_days <= 3650:
            raise InvalidInputError(f"decay_after_days must be between 1 and 3650, got {self.decay_after_days}")


@dataclass(frozen=True, slots=True)
class Transition:
    memory_id: str
    action: Action
    from_revision: int
    about: str
    summary: str
    why: str


def is_expired(memory: MemoryFacts, today: date) -> bool:
    return memory.valid_until is not None and today >= memory.valid_until


def decide(memory: MemoryFacts, today: date, time_zone: str, policy: DreamPolicy) -> tuple[Action, str] | None:
    """The transition ``memory`` makes on the family's local date ``today``, with the reason, or None."""
    if memory.status in (Status.ACTIVE, Status.DORMANT) and is_expired(memory, today):
        assert memory.valid_until is not None
        return Action.EXPIRE, f"valid until {memory.valid_until.isoformat()}"
    if memory.status is not Status.ACTIVE or memory.pin:
        return None
    if memory.authority is Authority.INFERRED:
        last = local_date(memory.last_reinforced_at, time_zone)
        idle = (today - last).days
        if idle >= policy.decay_after_days:
            return Action.DECAY, f"inferred, not reinforced since {last.isoformat()} ({idle} days)"
    explicit_instruction = memory.authority is Authority.USER_EXPLICIT and memory.type in INSTRUCTION_TYPES
    if (
        memory.durability is Durability.PASSING
        and not explicit_instruction
        and memory.reinforcement_count >= policy.promote_after
    ):
        return Action.PROMOTE, f"passing, reinforced {memory.reinforcement_count} times"
    return None


def plan_transitions(
    memories: Iterable[MemoryFacts], today: date, time_zone: str, policy: DreamPolicy
) -> list[Transition]:
    """Every transition due on ``today``, expiries first, then by memory id."""
    plan = []
    for memory in memories:
        decision = decide(memory, today, time_zone, policy)
        if decision is not None:
            action, why = decision
            plan.append(Transition(memory.id, action, memory.revision, memory.about, memory.summary, why))
    plan.sort(key=lambda t: (TRANSITION_ORDER.index(t.action), t.memory_id))
    return plan


def apply_transition(memory: Memory, action: Action) -> Memory:
    """The memory's next revision after ``action``; only status or durability change."""
    if action is Action.EXPIRE:
        return memory.evolve(status=Status.EXPIRED, revision=memory.revision + 1)
    if action is Action.DECAY:
        return memory.evolve(status=Status.DORMANT, revision=memory.revision + 1)
    if action is Action.PROMOTE:
        return memory.evolve(durability=Durability.DURABLE, revision=memory.revision + 1)
    raise InvalidInputError(f"{action.value} is not a dream transition")
