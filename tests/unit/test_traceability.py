"""``bundle check`` reports a memory that cannot be traced to its words: no evidence, or
evidence naming a session that is not stored (or a memory not on file, or another family)."""

from __future__ import annotations

from pathlib import Path

import pytest

from factories import FAMILY, add, change_set, evidence, memory
from family_memory.app.bootstrap import build_local
from family_memory.app.cli import main
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.card.operations import MemoryDraft
from family_memory.domain.evidence import EvidenceRecord
from family_memory.domain.family import FamilySettings, Member
from family_memory.families import save_family
from family_memory.traceability import trace_evidence


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    runtime = build_local(load_settings({}, home=str(tmp_path), embedder="hashed"))
    save_family(runtime.store, FamilySettings(family_id=FAMILY, members=[Member(id="lucia", name="Lucía")]))
    return runtime


def check(runtime: Runtime, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["--home", str(runtime.settings.home), "bundle", "check", "--family", FAMILY])
    return code, capsys.readouterr().out


def test_a_memory_citing_a_stored_session_or_added_on_the_card_is_traced(
    runtime: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    runtime.writer.apply(change_set(add(memory(), evidence(session="sess-1"))))
    runtime.store.put(FAMILY, "sessions/sess-1.json", b"{}")
    runtime.card.add(
        FAMILY, "lucia", MemoryDraft.model_validate({"type": "fact", "about": "Tea", "summary": "We drink tea."})
    )
    trace = trace_evidence(runtime.store, FAMILY)
    assert (trace.memories, trace.records, trace.problems) == (2, 2, [])
    code, out = check(runtime, capsys)
    assert code == 0 and "0 problems" in out and "2 memories, 2 evidence records" in out


def test_a_memory_without_evidence_is_a_problem(runtime: Runtime, capsys: pytest.CaptureFixture[str]) -> None:
    m = memory()
    runtime.writer.apply(change_set(add(m)))
    assert trace_evidence(runtime.store, FAMILY).problems == [
        f"memory {m.id}: no evidence (memories/{m.id}.evidence.jsonl is missing)"
    ]
    code, out = check(runtime, capsys)
    assert code == 1 and f"evidence: memory {m.id}: no evidence" in out


def test_evidence_naming_a_session_not_stored_is_a_problem(
    runtime: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    m = memory()
    runtime.writer.apply(change_set(add(m, evidence(session="sess-gone"))))
    code, out = check(runtime, capsys)
    assert code == 1
    assert (
        f"memory {m.id}: evidence conv://{FAMILY}/sess-gone#turn=3 names session sess-gone, which is not stored" in out
    )


def test_evidence_naming_a_missing_memory_or_another_family_is_a_problem(runtime: Runtime) -> None:
    m = memory()
    missing = memory()
    records = [
        EvidenceRecord.model_validate(
            {"ref": f"memory://{FAMILY}/{missing.id}", "quote": "x", "recordedAt": m.formed_at}
        ),
        EvidenceRecord.model_validate(
            {"ref": "conv://fam-okafor/sess-1#turn=1", "quote": "y", "recordedAt": m.formed_at}
        ),
    ]
    runtime.writer.apply(change_set(add(m, *records)))
    assert trace_evidence(runtime.store, FAMILY).problems == [
        f"memory {m.id}: evidence memory://{FAMILY}/{missing.id} names a memory not on file",
        f"memory {m.id}: evidence conv://fam-okafor/sess-1#turn=1 names another family",
    ]
