"""Which memories may enter the brief, in which section, and in what order.

Weight order (seed section 6): pinned first, then explicit instructions, then
statements, then inferences; within directives, hard rules come right after
pinned lines. Ties are broken by more reinforcements, then higher confidence,
then the more recently reinforced (recency as a tie-breaker), then the memory
id, so the order is total and does not depend on the order memories were read.
"""

from __future__ import annotations

from family_memory.brief.model import Section
from family_memory.domain.memory import Authority, Memory, MemoryType, Sensitivity, Status, Strength
from family_memory.ports.catalog import CatalogRow

#: The front matter the brief and the dream read: a memory, or the catalog's row of it
#: (which has every field but the body), so a compile never needs to open a file.
MemoryFacts = Memory | CatalogRow


IDENTITY_TYPES = frozenset({MemoryType.IDENTITY, MemoryType.RELATIONSHIP})
INSTRUCTION_TYPES = frozenset({MemoryType.DIRECTIVE, MemoryType.CONSTRAINT})


def briefable(memory: MemoryFacts) -> bool:
    """Active and not sensitive: the only memories the brief may mention, even as a count."""
    return memory.status is Status.ACTIVE and memory.sensitivity is Sensitivity.NORMAL


def section_of(memory: MemoryFacts) -> Section | None:
    """Identity and relationship memories go to identity; standing instructions,
    constraints, explicit statements and pinned memories to directives; every
    other memory is only counted in the topic index."""
    if memory.type in IDENTITY_TYPES:
        return Section.IDENTITY
    if memory.type in INSTRUCTION_TYPES or memory.pin or memory.authority is Authority.USER_EXPLICIT:
        return Section.DIRECTIVES
    return None


def tier(memory: MemoryFacts) -> int:
    """0 pinned, 1 hard rule, 2 explicit instruction, 3 statement, 4 system, 5 inference."""
    if memory.pin:
        return 0
    if memory.strength is Strength.HARD:
        return 1
    if memory.authority is Authority.USER_EXPLICIT and memory.type in INSTRUCTION_TYPES:
        return 2
    if memory.authority in (Authority.USER_EXPLICIT, Authority.USER_IMPLICIT):
        return 3
    if memory.authority is Authority.SYSTEM:
        return 4
    return 5


def weight_key(memory: MemoryFacts) -> tuple[int, int, float, float, str]:
    """Sort ascending: the heaviest memory first."""
    return (
        tier(memory),
        -memory.reinforcement_count,
        -memory.confidence,
        -memory.last_reinforced_at.timestamp(),
        memory.id,
    )
