"""``family-memory dream`` and ``family-memory brief`` on the local default."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from factories import FAMILY, OTHER_FAMILY, change_set, memory
from family_memory.adapters.local.embedded_index import EmbeddedIndex
from family_memory.app.bootstrap import build_local
from family_memory.app.cli import main
from family_memory.app.settings import load_settings
from family_memory.domain.changes import Action, MemoryWrite
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import FamilySettings
from family_memory.domain.memory import Authority, MemoryType
from family_memory.families import save_family
from family_memory.retrieval.search_index import IndexUnavailableError


@pytest.fixture
def home(tmp_path: Path) -> Path:
    clock = FixedClock(datetime(2026, 11, 16, 20, tzinfo=UTC))
    rt = build_local(load_settings(home=str(tmp_path)), clock)
    save_family(rt.store, FamilySettings(family_id=FAMILY, time_zone="America/Los_Angeles"))
    rules = [
        memory(type=MemoryType.DIRECTIVE, authority=Authority.USER_EXPLICIT, summary="Call first."),
        memory(
            type=MemoryType.DIRECTIVE,
            authority=Authority.USER_EXPLICIT,
            summary="Pizza tonight.",
            valid_until=date(2026, 11, 17),
        ),
    ]
    rt.writer.apply(change_set(*(MemoryWrite(action=Action.ADD, memory=m) for m in rules)))
    return tmp_path


def test_brief_compile_then_show_prints_the_prompt_block_and_its_budgets(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--home", str(home), "brief", "show", "--family", FAMILY]) == 1
    assert main(["--home", str(home), "brief", "compile", "--all"]) == 0
    assert main(["--home", str(home), "brief", "show", "--family", FAMILY, "--at", "2026-11-17T07:00:00Z"]) == 0
    out = capsys.readouterr().out
    assert "has no brief yet" in out and "<family_brief>" in out and "Pizza tonight." in out
    assert "of 2000 tokens (chat)" in out and "directives" in out
    assert (
        main(["--home", str(home), "brief", "show", "--family", FAMILY, "--household", "--at", "2026-11-17T09:00:00Z"])
        == 0
    )
    out = capsys.readouterr().out
    assert "Pizza tonight." not in out and "Last conversation" not in out


def test_dream_for_one_family_and_the_nightly_fan_out(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(home), "dream", "--family", FAMILY, "--at", "2026-11-16T21:00:00Z"]) == 0
    assert main(["--home", str(home), "dream", "--due", "--at", "2026-11-17T07:30:00Z"]) == 0
    assert main(["--home", str(home), "dream", "--due", "--at", "2026-11-17T08:30:00Z"]) == 0
    out = capsys.readouterr().out
    assert "fan-out: 1 families, 0 due, 0 enqueued" in out
    assert "fan-out: 1 families, 1 due, 1 enqueued" in out
    assert "expire 1" in out and "worker: 1 dreamed, 0 dead-lettered" in out


def test_a_mistyped_family_is_refused_and_no_folder_is_made(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(home), "dream", "--family", "fam-typo"]) == 2
    assert main(["--home", str(home), "brief", "compile", "--family", "fam-typo"]) == 2
    assert "fam-typo has no files" in capsys.readouterr().err
    assert not (home / "families" / "fam-typo").exists()


def test_dream_all_goes_on_past_a_family_whose_indexing_fails_and_exits_2(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rt = build_local(load_settings(home=str(home)), FixedClock(datetime(2026, 11, 16, 20, tzinfo=UTC)))
    save_family(rt.store, FamilySettings(family_id=OTHER_FAMILY, time_zone="America/Los_Angeles"))
    pizza = memory(
        type=MemoryType.DIRECTIVE,
        authority=Authority.USER_EXPLICIT,
        summary="Pizza tonight.",
        valid_until=date(2026, 11, 17),
    )
    rt.writer.apply(change_set(MemoryWrite(action=Action.ADD, memory=pizza), family_id=OTHER_FAMILY))
    upsert = EmbeddedIndex.upsert

    def down_for_one_family(self: EmbeddedIndex, family_id: str, *args: Any, **kw: Any) -> None:
        if family_id == OTHER_FAMILY:  # the first in order: the other family comes after it
            raise IndexUnavailableError("the index is down")
        upsert(self, family_id, *args, **kw)

    monkeypatch.setattr(EmbeddedIndex, "upsert", down_for_one_family)
    assert main(["--home", str(home), "dream", "--all", "--at", "2026-11-17T09:00:00Z"]) == 2
    out = capsys.readouterr().out
    assert out.count("expire 1") == 2  # both families dreamt: the first one's failure did not stop the second
    assert "deliveries of what the dreams changed failed" in out and "rebuild-index" in out
