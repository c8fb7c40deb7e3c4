"""The README's first command: the walk-through runs once here, on the embedded
default, and each chapter shows what it promises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from family_memory.app.cli import main


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The walk-through as a newcomer first runs it (no --verbose): its output and its folder."""
    import contextlib
    import io

    home = tmp_path_factory.mktemp("page") / "home"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["walkthrough", "--dir", str(home)]) == 0
    return {"out": out.getvalue(), "err": err.getvalue(), "home": str(home)}


@pytest.fixture(scope="module")
def walkthrough(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    import contextlib
    import io

    home = tmp_path_factory.mktemp("walk") / "home"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["walkthrough", "--dir", str(home), "--verbose"]) == 0
    text = out.getvalue()
    titles = ["1. Files are the truth", "2. Formation", "3. Carry little", "4. Dreaming and the brief"]
    positions = [text.index(t) for t in titles]
    assert positions == sorted(positions), "chapters run in order"
    bounds = [*positions, len(text)]
    return {t.split(".")[0]: text[bounds[i] : bounds[i + 1]] for i, t in enumerate(titles)} | {"home": str(home)}


def test_chapter_one_shows_files_idempotence_stale_refusal_recovery_and_rebuild(walkthrough: dict[str, str]) -> None:
    chapter = walkthrough["1"]
    assert "already applied: True" in chapter
    assert "refused: memory" in chapter and "the change expected 1" in chapter
    assert "took the lease (token" in chapter and "completed it" in chapter
    assert "missing row" in chapter
    assert chapter.rstrip("=\n ").endswith("consistent: the catalog matches the files")


def test_chapter_two_forms_rejects_forgets_and_replays(walkthrough: dict[str, str]) -> None:
    chapter = walkthrough["2"]
    assert "offline rule-based extractor" in chapter
    assert chapter.count("-> added") >= 8 and "/memories/" in chapter
    for rule in ("cites_user_turn", "quote_in_turn", "valid_until", "confidence", "person_wrote"):
        assert f"{rule}: " in chapter
    assert "-> contradiction" in chapter and "-> reinforced" in chapter
    assert "-> suppressed: the family asked to forget this" in chapter
    assert "byte-identical: True; added or reinforced: 0" in chapter
    assert "then the family's dream:" in chapter and "No dream was run" not in chapter


def test_chapter_three_shows_lookups_a_misspelling_a_synonym_and_the_read_tools(walkthrough: dict[str, str]) -> None:
    chapter = walkthrough["3"]
    assert '<memory_lookup kind="candidates">' in chapter
    synonym = chapter.split('"who fixes the kids teeth?"', 1)[1].split("user (", 1)[0]
    assert "found by semantic: Maya's orthodontist" in synonym
    assert "shares with the orthodontist memory: none; it was found by semantic" in synonym
    misspelt = chapter.split('"is pianno still on?"', 1)[1].split("user (", 1)[0]
    assert "Ms. Okonkwo" in misspelt and "found by keyword: Leo's piano lessons" in misspelt
    assert "shares with the piano memory: none; it was found by keyword" in misspelt
    assert "<memory_file ref=" in chapter and "<conversation_excerpt ref=" in chapter
    assert "gets an error and no data" in chapter
    assert "equivalent: the index holds the same ids, fields and revisions as the files" in chapter


def test_chapter_four_compiles_dreams_and_patches_the_brief(walkthrough: dict[str, str]) -> None:
    chapter = walkthrough["4"]
    assert "<family_brief>" in chapter and "of 2000 tokens" in chapter
    assert "identical bytes" in chapter
    assert "**Promote**" in chapter and "**Expire**" in chapter
    assert "transitions 0; every file byte-identical: True" in chapter
    assert "Always text Lu before booking" in chapter
    assert "next night's brief mentions the joke: False" in chapter


def test_the_walkthrough_leaves_a_conformant_bundle_and_a_consistent_catalog(
    walkthrough: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    home = walkthrough["home"]
    assert main(["--home", home, "bundle", "check", "--all"]) == 0
    assert main(["--home", home, "catalog", "check", "--all"]) == 0
    assert main(["--home", home, "rebuild-index", "--all", "--check-only"]) == 0


def test_the_walkthrough_refuses_a_folder_it_did_not_make(tmp_path: Path) -> None:
    foreign = tmp_path / "precious"
    foreign.mkdir()
    (foreign / "thesis.txt").write_text("do not delete")
    with pytest.raises(SystemExit, match="not made by the walk-through"):
        main(["walkthrough", "--dir", str(foreign)])
    assert (foreign / "thesis.txt").exists()


def test_by_default_the_walkthrough_is_a_page_with_nothing_on_stderr(page: dict[str, str]) -> None:
    lines = page["out"].splitlines()
    assert len(lines) <= 150, len(lines)
    assert page["err"] == ""
    assert "--verbose shows" in page["out"]
    for title in ("1. Files are the truth", "2. Formation", "3. Carry little", "4. Dreaming and the brief"):
        assert f"== {title}" in page["out"]


def test_no_path_in_the_walkthroughs_output_is_broken_across_lines(page: dict[str, str]) -> None:
    for line in page["out"].splitlines():
        for word in line.split():
            if "families/" in word:
                assert re.search(r"families/[\w-]+(/[\w.-]+)*(\.(md|json|jsonl))?", word), word
        assert not line.rstrip().endswith(("-", "/")), line


def test_the_walkthroughs_folder_passes_bundle_check_with_no_problem(
    page: dict[str, str], walkthrough: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    for home in (page["home"], walkthrough["home"]):
        capsys.readouterr()
        assert main(["--home", home, "bundle", "check", "--all"]) == 0
        out = capsys.readouterr().out
        assert "0 problems" in out and "each memory has evidence" in out
