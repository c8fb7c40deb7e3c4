"""Whether every memory on file can be traced to the words it came from (invariant 2).

``trace_evidence`` reads a family's folder as ``family-memory bundle check`` does and
reports, as problems:

- a memory file without an evidence ledger beside it, or with an empty one;
- an evidence record citing a conversation (``conv://``) whose session is not stored
  (``sessions/{session_id}.json``), so the cited words cannot be read;
- an evidence record citing a memory (``memory://``) that is not on file: the card's own
  records cite the memory they were typed into, a derived memory the one it came from;
- an evidence record citing another family.

A ledger that cannot be read is a problem too (its file named).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from family_memory.domain.errors import FamilyMemoryError, InvalidInputError
from family_memory.domain.evidence import parse_ledger
from family_memory.domain.ids import check_memory_id
from family_memory.domain.layout import MEMORIES, evidence_path, memory_path, session_path
from family_memory.domain.refs import ConvRef, MemoryRef
from family_memory.ports.store import Store

_MEMORY_SUFFIX = ".md"


@dataclass
class EvidenceTrace:
    #: Memory files read.
    memories: int = 0
    #: Evidence records read.
    records: int = 0
    problems: list[str] = field(default_factory=list)


def _is_memory_id(name: str) -> bool:
    try:
        check_memory_id(name)
    except InvalidInputError:
        return False
    return True


def trace_evidence(store: Store, family_id: str) -> EvidenceTrace:
    """Every memory of ``family_id`` against its evidence ledger and what the ledger cites."""
    trace = EvidenceTrace()
    paths = set(store.list(family_id, MEMORIES))
    names = sorted(
        p[len(MEMORIES) : -len(_MEMORY_SUFFIX)] for p in paths if p.endswith(_MEMORY_SUFFIX) and p.count("/") == 1
    )
    # A file not named by a memory id is the OKF check's problem (check_bundle), not one to trace.
    memory_ids = [name for name in names if _is_memory_id(name)]
    sessions: dict[str, bool] = {}

    def stored(session_id: str) -> bool:
        if session_id not in sessions:
            sessions[session_id] = store.read_optional(family_id, session_path(session_id)) is not None
        return sessions[session_id]

    for memory_id in memory_ids:
        trace.memories += 1
        ledger = evidence_path(memory_id)
        if ledger not in paths:
            trace.problems.append(f"memory {memory_id}: no evidence ({ledger} is missing)")
            continue
        try:
            records = parse_ledger(store.read(family_id, ledger).data, where=ledger)
        except FamilyMemoryError as exc:
            trace.problems.append(f"memory {memory_id}: {exc}")
            continue
        if not records:
            trace.problems.append(f"memory {memory_id}: no evidence ({ledger} is empty)")
        for record in records:
            trace.records += 1
            ref: MemoryRef | ConvRef = (
                MemoryRef.parse(record.ref) if record.ref.startswith("memory://") else ConvRef.parse(record.ref)
            )
            if ref.family_id != family_id:
                trace.problems.append(f"memory {memory_id}: evidence {record.ref} names another family")
            elif isinstance(ref, MemoryRef):
                if memory_path(ref.memory_id) not in paths:
                    trace.problems.append(f"memory {memory_id}: evidence {record.ref} names a memory not on file")
            elif not stored(ref.session_id):
                session_id = ref.session_id
                trace.problems.append(
                    f"memory {memory_id}: evidence {record.ref} names session {session_id}, which is not stored"
                )
    return trace
