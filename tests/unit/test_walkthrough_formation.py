"""The walk-through's formation chapter runs on the embedded default and shows what it promises."""

from __future__ import annotations

from pathlib import Path

import pytest

from family_memory.app.walkthrough import run_walkthrough


def test_the_walkthrough_forms_rejects_forgets_and_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_walkthrough(tmp_path / "walk") == 0
    out = capsys.readouterr().out
    chapter = out.split("2. Formation", 1)[1]
    assert "offline rule-based extractor" in chapter
    assert chapter.count("-> added") >= 8 and "/memories/" in chapter
    for rule in ("cites_user_turn", "quote_in_turn", "valid_until", "confidence", "person_wrote"):
        assert f"{rule}: " in chapter
    assert "-> contradiction" in chapter and "-> reinforced" in chapter
    assert "-> suppressed: the family asked to forget this" in chapter
    assert "byte-identical: True; added or reinforced: 0" in chapter
    assert "No dream was run" in chapter
