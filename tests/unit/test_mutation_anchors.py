"""The invariant-mutation harness finds its snippets through refactors (tests/invariants/mutations.py):
an edit may name the definition that holds it, and a snippet whose module moved is found where it
went, so moving code breaks no mutation; changing the mutated lines does."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HARNESS = Path(__file__).parents[2] / "tests" / "invariants" / "mutations.py"


def harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutations_under_test", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


STORE = """class Store:
    def create(self, path):
        return self._put(path, if_none_match="*")

    def replace(self, path, tag):
        return self._put(path, if_match=tag)

    def again(self, path):
        return self._put(path, if_none_match="*")
"""


def tree(root: Path, relative: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(STORE, encoding="utf-8")
    (root / "functions").mkdir(exist_ok=True)
    return path


def test_a_definition_name_makes_a_short_snippet_unique(tmp_path: Path) -> None:
    mu = harness()
    tree(tmp_path, "shared/pkg/store.py")
    snippet = 'return self._put(path, if_none_match="*")'
    assert isinstance(mu.locate(tmp_path, mu.Edit("shared/pkg/store.py", snippet, "x")), str)  # twice in the file
    place = mu.locate(tmp_path, mu.Edit("shared/pkg/store.py", snippet, "x", "Store.create"))
    assert place == ("shared/pkg/store.py", STORE.index(snippet))


def test_a_moved_module_is_followed_and_the_edit_applied_there(tmp_path: Path) -> None:
    mu = harness()
    moved = tree(tmp_path, "shared/pkg/storage/files.py")
    edit = mu.Edit(
        "shared/pkg/store.py", "return self._put(path, if_match=tag)", "return self._put(path)", "Store.replace"
    )
    assert mu.locate(tmp_path, edit) == ("shared/pkg/storage/files.py", STORE.index(edit.old))
    assert mu.apply(tmp_path, mu.Mutation("4.x", "clause", (edit,), ())) is None
    assert "if_match=tag" not in moved.read_text(encoding="utf-8")


def test_changed_lines_are_stale_not_silently_skipped(tmp_path: Path) -> None:
    mu = harness()
    tree(tmp_path, "shared/pkg/store.py")
    edit = mu.Edit("shared/pkg/store.py", "return self._put(path, expected=tag)", "x", "Store.replace")
    assert "occurs 0 times" in mu.locate(tmp_path, edit)
    assert mu.apply(tmp_path, mu.Mutation("4.x", "clause", (edit,), ())) is not None
