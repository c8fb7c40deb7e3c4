"""What only the local store has to prove: atomic writes and a browsable bundle."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from family_memory.adapters.local.directory_store import DirectoryStore, content_tag
from family_memory.domain.errors import InvalidInputError


def test_a_crash_mid_write_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = DirectoryStore(tmp_path)
    tag = store.create("fam-rivera", "memories/a.md", b"old contents")

    def crash(*_args: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="power cut"):
        store.replace("fam-rivera", "memories/a.md", b"new contents", expected_tag=tag)
    monkeypatch.undo()
    assert store.read("fam-rivera", "memories/a.md").data == b"old contents"
    leftovers = [p.name for p in (tmp_path / "families/fam-rivera/memories").iterdir()]
    assert leftovers == ["a.md"]


def test_the_family_folder_is_a_plain_bundle_on_disk(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    store.create("fam-rivera", "memories/a.md", b"---\ntype: fact\n---\n")
    assert (tmp_path / "families/fam-rivera/memories/a.md").read_bytes() == b"---\ntype: fact\n---\n"
    assert store.read("fam-rivera", "memories/a.md").tag == content_tag(b"---\ntype: fact\n---\n")


def test_listeners_hear_every_write(tmp_path: Path) -> None:
    heard: list[tuple[str, str]] = []
    store = DirectoryStore(tmp_path, listeners=[lambda f, p, _t: heard.append((f, p))])
    tag = store.create("fam-rivera", "memories/a.md", b"1")
    store.replace("fam-rivera", "memories/a.md", b"2", expected_tag=tag)
    store.put("fam-rivera", "brief.json", b"{}")
    assert heard == [("fam-rivera", "memories/a.md"), ("fam-rivera", "memories/a.md"), ("fam-rivera", "brief.json")]


def test_an_upper_case_family_cannot_reach_a_lower_case_familys_folder(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    store.put("fam-rivera", "notes/a.md", b"ours")
    with pytest.raises(InvalidInputError, match="family ids are lower case"):
        store.put("FAM-RIVERA", "notes/a.md", b"theirs")
    with pytest.raises(InvalidInputError, match="family ids are lower case"):
        store.read_optional("Fam-Rivera", "notes/a.md")
    assert sorted(p.name for p in (tmp_path / "families").iterdir()) == ["fam-rivera"]


def test_a_folder_that_is_not_a_family_id_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = DirectoryStore(tmp_path)
    store.put("fam-rivera", "family.json", b"{}")
    (tmp_path / "families" / "FAM-OLD").mkdir()  # made before family ids were lower case only
    with caplog.at_level("WARNING"):
        assert list(store.families()) == ["fam-rivera"]
    assert any("FAM-OLD" in r.getMessage() for r in caplog.records)
