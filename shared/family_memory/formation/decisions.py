"""What to do with one candidate, given the family's similar memories.

A pure function, so the whole decision table is testable without files:

====================================================  ==============================
situation                                              decision
====================================================  ==============================
a memory (any status) already holds this evidence      noop (a replay, a redelivery)
an active or dormant memory says the same thing        reinforce it (dormant wakes up)
  (same type, near-identical text, same polarity,
  same valid_until)
an active memory on the same subject says otherwise:
  the candidate was said before that memory's latest   noop (stale)
  evidence
  the candidate has lower authority                    contradiction (recorded on the
                                                        memory, which stays as it is)
  otherwise (same or higher authority, newer)          supersede it
a retracted memory says the same thing                 noop (the family forgot it)
nothing close                                          add
====================================================  ==============================

"Same subject" means the same type, both dated or both lasting, and either
nearly the same ``about`` or a close text about the same (named) people.
Supersession is the costlier mistake (a valid claim leaves the brief), so two
household-wide claims are rivals only when their subjects match. Authority ranks: explicit > said in passing
> inferred > system; an inference can never replace an explicit statement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from family_memory.domain.memory import Authority, Memory, MemoryType, Status
from family_memory.formation.candidate import AUTHORITY_RANK
from family_memory.formation.text_similarity import negated, similarity

#: Text similarity at which two claims say the same thing.
SAME_CLAIM = 0.78
#: ``about`` similarity at which two claims are about the same subject.
SAME_ABOUT = 0.75
#: Text similarity that, with shared people, makes two claims rivals.
RIVAL_TEXT = 0.55

EvidenceKey = tuple[str, str]


class DecisionKind(StrEnum):
    ADD = "add"
    REINFORCE = "reinforce"
    SUPERSEDE = "supersede"
    CONTRADICTION = "contradiction"
    NOOP = "noop"


@dataclass(frozen=True)
class Proposal:
    """The parts of a candidate a decision needs."""

    type: MemoryType
    about: str
    summary: str
    authority: Authority
    valid_until: date | None
    applies_to: tuple[str, ...]
    evidence: frozenset[EvidenceKey]
    stated_at: datetime


@dataclass(frozen=True)
class Known:
    """A similar memory as it is now, with the evidence it already holds."""

    memory: Memory
    evidence: frozenset[EvidenceKey]
    score: float


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    target: Memory | None = None
    reason: str = ""


def claim_similarity(proposal: Proposal, memory: Memory) -> float:
    """How close two claims' words are (polarity aside: see ``same_claim``)."""
    return max(
        similarity(proposal.summary, memory.summary),
        similarity(f"{proposal.about} {proposal.summary}", f"{memory.about} {memory.summary}"),
    )


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+", text))


def same_claim(proposal: Proposal, memory: Memory) -> bool:
    """Says the same thing: near-identical words, the same polarity ("loves" vs "does not
    like") and the same numbers ("pills at 8" vs "pills at 9" are two claims)."""
    if negated(proposal.summary) != negated(memory.summary):
        return False
    if _numbers(proposal.summary) != _numbers(memory.summary):
        return False
    return claim_similarity(proposal, memory) >= SAME_CLAIM


def same_subject(proposal: Proposal, memory: Memory) -> bool:
    """Rivals: one can replace the other. A dated claim ("pizza night is tonight") never
    replaces a lasting one ("Friday is pizza night"), nor the reverse: both can be true."""
    if proposal.type is not memory.type:
        return False
    if (proposal.valid_until is None) != (memory.valid_until is None):
        return False
    if _numbers(proposal.about) != _numbers(memory.about):
        return False  # "Dish number 3" and "Dish number 5" are two subjects
    if similarity(proposal.about, memory.about) >= SAME_ABOUT:
        return True
    shared_people = bool(set(proposal.applies_to) & set(memory.applies_to))
    return shared_people and claim_similarity(proposal, memory) >= RIVAL_TEXT


def decide(proposal: Proposal, known: Sequence[Known]) -> Decision:
    """One of add / reinforce / supersede / contradiction / noop (table above)."""
    ranked = sorted(known, key=lambda k: -k.score)
    for k in ranked:
        if proposal.evidence and proposal.evidence <= k.evidence:
            return Decision(DecisionKind.NOOP, k.memory, f"already recorded in memory {k.memory.id}")
    current = [k for k in ranked if k.memory.status in (Status.ACTIVE, Status.DORMANT)]
    for k in current:
        m = k.memory
        same_kind = m.type is proposal.type and m.valid_until == proposal.valid_until
        if same_kind and same_claim(proposal, m):
            return Decision(DecisionKind.REINFORCE, m, f"says the same as memory {m.id}")
    for k in current:
        m = k.memory
        if m.status is not Status.ACTIVE or not same_subject(proposal, m):
            continue
        if proposal.stated_at < m.last_reinforced_at:
            return Decision(DecisionKind.NOOP, m, f"older than memory {m.id}, which it would replace")
        if AUTHORITY_RANK[proposal.authority] < AUTHORITY_RANK[m.authority]:
            return Decision(
                DecisionKind.CONTRADICTION,
                m,
                f"contradicts memory {m.id} ({m.authority.value}) with lower authority ({proposal.authority.value})",
            )
        return Decision(DecisionKind.SUPERSEDE, m, f"replaces memory {m.id}")
    for k in ranked:
        m = k.memory
        if m.status is Status.RETRACTED and same_claim(proposal, m):
            return Decision(DecisionKind.NOOP, m, f"the family forgot this (memory {m.id} is retracted)")
    return Decision(DecisionKind.ADD, None, "nothing like it yet")
